"""Every family on real emulated clusters (root, ip, tc): the comm suite and each family
across two hosts, placement compared against the link, contention on a routed torus, the
simulator against a measured tree, a lossy link measured, congestion's roles per host.
Clusters and fixtures as in test_integration_cluster.py (conftest.py, clusters.py).
"""

import json
from pathlib import Path

import pytest
from clusters import hpcprobe
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.results import read_records


def cluster_records(out: Path):
    found = read_records(out / "results.jsonl")
    assert found.problems == []
    return found.records


def test_the_comm_suite_runs_across_two_hosts(flat2, cluster_env, tmp_path):
    # comm (every function), beff and pairs through `run`, round-robin: every pair of
    # neighbouring ranks crosses the link.
    out = tmp_path / "out"
    completed = hpcprobe(cluster_env, "run", "--suite", "comm", "--scale", "tiny", "--cluster",
                         flat2.name, "--ppn", "2", "--placement", "round-robin", "--out",
                         str(out), "--quiet", timeout=600)
    assert completed.returncode == 0, completed.stderr
    records = cluster_records(out)
    assert {r["benchmark"] for r in records} == {"comm", "beff", "pairs"}
    names = sorted(host.name for host in flat2.hosts)
    for record in records:
        assert record["layout"]["nodes"] == 2, record["variant"]
        assert record["metadata"]["hosts"] == names  # the hosts' own names
    pingpong = next(r for r in records if r["variant"] == "pingpong")
    assert pingpong["layout"]["ranks_per_node_max"] == 1  # round-robin: across the link


def test_the_main_job_runs_on_two_hosts_of_two_ranks(flat2, cluster_env, tmp_path):
    # issue 40: every step validated across the link, each sized on the hosts it ran on
    out = tmp_path / "out"
    completed = hpcprobe(cluster_env, "run", "--scale", "tiny", "--cluster", flat2.name,
                         "--ppn", "2", "--out", str(out), "--quiet", timeout=600)
    assert completed.returncode == 0, completed.stderr
    records = cluster_records(out)
    assert {r["benchmark"] for r in records} >= {"stream", "mem", "dgemm", "hpl", "fft",
                                                "comm", "beff", "pairs", "ra"}
    assert all(r["validation"]["verdict"] == "passed" for r in records)
    assert {r["layout"]["nodes"] for r in records if r["layout"]["ranks"] == 4} == {2}
    manifest = json.loads((out / "run.json").read_text())
    assert all(step["predicted_s"] > 0 for step in manifest["steps"])


@pytest.mark.parametrize("command", [
    ("ra", "mpi", "--table-log2", "14"),  # HPCC's algorithm: ANY_SOURCE receives
    ("ra", "mpi", "--algo", "hypercube", "--table-log2", "14"),
    ("ra", "star", "--table-log2", "14"),
    ("contention", "wocon", "--sizes", "8,1K", "--repeat", "2", "--messages", "4"),
    ("comm", "pingpong", "allreduce", "--sizes", "8,1K", "--placement", "block"),
])
def test_each_family_takes_a_cluster(flat2, cluster_env, tmp_path, command):
    out = tmp_path / "out"
    completed = hpcprobe(cluster_env, *command, "--cluster", flat2.name, "--ppn", "2",
                         "--out", str(out), "--quiet", timeout=300)
    assert completed.returncode == 0, completed.stderr
    records = cluster_records(out)
    assert records
    for record in records:
        assert record["layout"]["ranks"] >= 2
        assert set(record["metadata"]["hosts"]) <= {host.name for host in flat2.hosts}
    if command[0] in ("ra", "contention"):
        assert all(r["layout"]["nodes"] == 2 for r in records)  # all 4 ranks, both hosts
    else:  # block: the pingpong pair shares host 0
        pingpong = next(r for r in records if r["variant"] == "pingpong")
        assert pingpong["layout"]["nodes"] == 1


def test_compare_by_placement_shows_shared_memory_against_the_link(flat2, cluster_env,
                                                                   tmp_path):
    # 2 hosts x 2 ranks: block puts the PingPong pair on one host (shared memory),
    # round-robin on two (the link); `compare --by placement` puts them side by side.
    out = tmp_path / "out"
    for placement in ("block", "round-robin"):
        completed = hpcprobe(cluster_env, "comm", "pingpong", "--sizes", "4M", "--cluster",
                             flat2.name, "--ppn", "2", "--placement", placement, "--out",
                             str(out), "--quiet", timeout=300)
        assert completed.returncode == 0, completed.stderr
    compared = run_hpcprobe("compare", "--by", "placement", str(out), "--format", "csv")
    assert compared.returncode == 0, compared.stderr
    row = next(line for line in compared.stdout.splitlines()
               if line.startswith("comm pingpong imb (at 4 MiB): bandwidth,"))
    ratio = float(row.rsplit(",", 1)[1])  # round-robin / block
    assert ratio < 0.05, row  # the link (50 MB/s) against shared memory (GB/s)
    across = next(r for r in cluster_records(out)
                  if r["parameters"]["placement"] == "round-robin")
    bandwidth = next(s for s in across["series"] if s["name"] == "bandwidth")["y"][-1]
    assert bandwidth <= 1.1 * 50e6, bandwidth


def test_contention_takes_a_torus_from_the_cluster(make_cluster, cluster_env, tmp_path):
    cluster = make_cluster("t", "--nodes", "4", "--topology", "torus:2x2",
                           "--link-rate", "400mbit")
    out = tmp_path / "out"
    completed = hpcprobe(cluster_env, "contention", "wocon", "--sizes", "8", "--repeat", "2",
                         "--messages", "4", "--cluster", cluster.name, "--ppn", "1",
                         "--out", str(out), "--quiet", timeout=300)
    assert completed.returncode == 0, completed.stderr
    (record,) = cluster_records(out)
    assert record["parameters"]["topology_kind"] == "torus"
    assert record["parameters"]["coordinate_source"] == "csv"
    coordinates = (out / "cluster.coords").read_text().splitlines()
    assert coordinates[0] == "rank,x,y"
    assert [line.split(",", 1)[1] for line in coordinates[1:]] == [
        ",".join(map(str, host.coordinates)) for host in cluster.hosts]


def test_simulate_predicts_a_tree_clusters_wicon_from_the_record(make_cluster, cluster_env,
                                                                 tmp_path):
    # Tree 2x2: pairs across the leaves (axis 0 of its (leaf, host) grid) share each
    # uplink two at a time, pairs within a leaf (axis 1) share nothing. The records carry
    # the cluster's network, so the simulator predicts them on the tree with the links'
    # own rate, long after the cluster is gone: across / within = 2 predicted; 1.8
    # measured on the development VM (bench/cluster_check quotes the 2x4 tree).
    cluster = make_cluster("w", "--nodes", "4", "--topology", "tree:2x2", "--link-rate",
                           "400mbit", "--uplink-rate", "400mbit")
    measured, predicted = {}, {}
    for name, axis in (("within", "1"), ("across", "0")):
        out = tmp_path / name
        completed = hpcprobe(cluster_env, "contention", "wicon", "--pairs", "nn-torus",
                             "--axis", axis, "--sizes", "256K", "--repeat", "2", "--messages",
                             "4", "--cluster", cluster.name, "--ppn", "1", "--out", str(out),
                             "--quiet", timeout=300)
        assert completed.returncode == 0, completed.stderr
        (record,) = cluster_records(out)
        assert record["metadata"]["cluster_network"] == (
            "tree:2x2 link_bytes_per_s=50000000 uplink_bytes_per_s=50000000 link_delay_s=0")
        assert record["parameters"]["topology_kind"] == "mesh"  # its (leaf, host) grid
        compared = run_hpcprobe("simulate", "--compare", str(out), "--json")
        assert compared.returncode == 0, compared.stderr
        (item,) = json.loads(compared.stdout)["records"]
        (row,) = item["rows"]
        assert item["network"] == "tree 2x2" and item["link_bandwidth_bytes_per_s"] == 5e7
        measured[name], predicted[name] = row["measured_s"], row["predicted_s"]
    assert predicted["across"] / predicted["within"] == pytest.approx(2, rel=0.01)
    assert measured["across"] / measured["within"] > 1.4, measured


def test_cluster_options_are_checked(flat2, cluster_env, tmp_path):
    cases = [
        (("--ppn", "2"), "--ppn is for --cluster"),
        (("--cluster", flat2.name, "--launcher", "mpiexec"), "leave out --launcher"),
        (("--cluster", flat2.name, "--ppn", "1", "--np", "3"), "needs 3 hosts"),
        (("--cluster", "no-such-cluster"), "no-such-cluster"),
    ]
    for options, says in cases:
        completed = hpcprobe(cluster_env, "pairs", *options, "--out", str(tmp_path / "o"))
        assert completed.returncode == 2, (options, completed.stderr)
        lines = stderr_lines(completed)
        assert len(lines) == 1 and says in lines[0], (options, lines)


def test_a_lossy_link_is_measured_and_recorded(make_cluster, cluster_env, tmp_path):
    # Degradation is measured, not hidden: PingPong at 256 KiB through a link that drops
    # 5 % of its packets each way is slower on average than through the same link clean,
    # and its record says so. Losses at a message's tail wait for TCP's retransmission
    # timeout (>= 200 ms), so the mean call time moves (2-3 x on the development VM) while
    # the median barely does: the test reads the mean. Whether a second of calls meets
    # such a loss is chance (about one launch in eight did not), so the lossy launch may be
    # tried up to four times; with the loss not applied every try stays at the clean time
    # and the test fails. Heavier loss (20 % each way) can stall TCP past any budget. The
    # clean run first also lets the hosts learn each other's addresses: a lossy link can
    # lose ARP and so MPI's connection set-up.
    cluster = make_cluster("q", "--nodes", "2", "--link-rate", "400mbit")

    def pingpong(out):
        completed = hpcprobe(cluster_env, "comm", "pingpong", "--sizes", "256K",
                             "--time-per-size", "1", "--cluster", cluster.name, "--ppn", "1",
                             "--out", str(out), "--quiet", "--time-budget", "120",
                             timeout=200)
        assert completed.returncode == 0, completed.stderr
        (record,) = cluster_records(out)
        assert record["validation"]["verdict"] == "passed", record["validation"]
        mean_call_s = next(s for s in record["series"] if s["name"] == "time_avg")["y"][-1]
        return record, mean_call_s

    clean, clean_call_s = pingpong(tmp_path / "clean")
    assert "cluster_faults" not in clean["metadata"]
    assert clean["metadata"]["cluster"] == cluster.name
    completed = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--link",
                         "h0-sw", "loss", "5%")
    assert completed.returncode == 0, completed.stderr
    lossy_call_s = []
    for attempt in range(4):
        lossy, call_s = pingpong(tmp_path / f"lossy{attempt}")
        assert lossy["metadata"]["cluster_faults"] == "h0-sw loss 5%"
        lossy_call_s.append(call_s)
        if call_s > 1.2 * clean_call_s:
            break
    assert max(lossy_call_s) > 1.2 * clean_call_s, (lossy_call_s, clean_call_s)


CONGESTION_TINY = ("--samples", "20", "--bandwidth-samples", "3", "--bandwidth-bytes", "16K",
                   "--congestor-bytes", "256", "--warmup", "2", "--quiet")


def test_congestion_roles_are_per_host_on_two_hosts(flat2, cluster_env, tmp_path):
    # 2 hosts x 2 ranks: one host runs the canaries, the other every congestor pattern;
    # the bytes are counted on the congestor host only, and each pattern moved some.
    out = tmp_path / "two"
    completed = hpcprobe(cluster_env, "congestion", "--cluster", flat2.name, "--ppn", "2",
                         *CONGESTION_TINY, "--out", str(out), timeout=300)
    assert completed.returncode == 0, completed.stderr
    (record,) = cluster_records(out)
    params, counters = record["parameters"], record["counters"]
    assert params["role_unit"] == "node" and params["canary_units"] == 1
    hosts = counters["rank_node"]
    roles = counters["rank_congestor"]
    assert len(set(hosts)) == 2
    for host in set(hosts):  # a host's ranks share one role
        assert len({role for role, h in zip(roles, hosts) if h == host}) == 1
    congestor_host = hosts[roles.index(1)]
    for pattern in ("incast", "put_incast", "get_bcast", "alltoall"):
        per_node = counters[f"congestor_bytes_{pattern}"]
        assert per_node[congestor_host] > 0 and per_node[1 - congestor_host] == 0
    assert any("small scale" in note for note in record["notes"])
    assert record["validation"]["verdict"] == "passed"


def test_congestion_on_four_hosts_is_predicted_from_its_record(make_cluster, cluster_env,
                                                               tmp_path):
    # Tree 2x2, 1 rank per host: 0.8 of 4 hosts would leave 1 canary rank, so the split
    # moves to 2 and 2, the canaries one per leaf (hosts 1 and 3); the record carries
    # the cluster's network, and the simulator predicts its bandwidth CIF.
    cluster = make_cluster("g", "--nodes", "4", "--topology", "tree:2x2", "--link-rate",
                           "400mbit", "--uplink-rate", "400mbit")
    out = tmp_path / "four"
    completed = hpcprobe(cluster_env, "congestion", "--cluster", cluster.name, "--ppn", "1",
                         "--congestor", "incast", *CONGESTION_TINY, "--out", str(out),
                         timeout=300)
    assert completed.returncode == 0, completed.stderr
    (record,) = cluster_records(out)
    assert record["counters"]["rank_congestor"] == [1, 0, 1, 0]
    assert record["parameters"]["congestor_fraction_used"] == 0.5
    compared = run_hpcprobe("simulate", "--compare", str(out), "--json")
    assert compared.returncode == 0, compared.stderr
    item = json.loads(compared.stdout.splitlines()[0])
    assert item["network"] == "tree 2x2" and item["predicted_cif"]["incast"] > 1
    assert item["measured_cif"]["incast"] > 0
