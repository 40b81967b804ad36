"""What the bench reads from a launch's environment, with the real hpcprobe-bench under
mpiexec: HPCPROBE_LINK_LIMIT (an inter-node bandwidth above 1.1 x the link it crossed
fails the record, naming the link; a malformed value is one warning and the run goes
on), metadata.rank_hosts in every family's records, metadata.cluster and
metadata.transport (written when valid, left out when not).

On one machine every rank is on one node, so nothing is inter-node there: the checks
that must fire run on a two-host emulated cluster (docs/cluster.md; root, ip, tc). Where
root or the tools are missing those tests fail with the reason when CI is set, and skip
with it otherwise. The cluster is removed in a fixture finaliser whatever the tests did.
"""

import os

import pytest
from helpers import run_hpcprobe, stderr_lines
from integration import bench_path, require_cluster_support, run_bench

from hpcprobe.cluster import load_cluster
from hpcprobe.cluster import system as cluster_system
from hpcprobe.results import read_records

TINY_LIMIT = "1000 test-link"        # 1 kB/s: every real transfer is faster
ROOMY_LIMIT = "1e12 roomy-link"      # 1 TB/s: none is
LINK_RATE = "1gbit"
LINK_BYTES_PER_S = 125_000_000       # 1 Gbit/s
CONTROL = "inter-node: UCX tcp\x07 over fab0"


def records(path):
    found = read_records(path)
    assert found.problems == []      # every record validates against the schema
    return found.records


def run_pairs(tmp_path, np, env, size="1K", rc=0):
    out = tmp_path / "pairs.jsonl"
    completed = run_bench("pairs", "--size", size, "--messages", "1", "--repeat", "1",
                          "--quiet", "--out", str(out), np=np, extra_env=env, timeout=120)
    assert completed.returncode == rc, completed.stderr
    return records(out)[-1], completed


# --- one machine -------------------------------------------------------------------


@pytest.mark.parametrize("ranks", [2, 3])
def test_rank_hosts_one_index_per_rank_into_hosts(tmp_path, ranks):
    record, _ = run_pairs(tmp_path, ranks, {})
    meta = record["metadata"]
    assert meta["rank_hosts"] == [0] * ranks
    assert len(meta["hosts"]) == 1


def test_every_family_has_rank_hosts(tmp_path):
    out = tmp_path / "ra.jsonl"
    completed = run_bench("ra", "mpi", "--table-log2", "14", "--quiet", "--out", str(out),
                          np=2)
    assert completed.returncode == 0, completed.stderr
    (record,) = records(out)
    assert record["metadata"]["rank_hosts"] == [0, 0]


def test_within_a_node_nothing_is_judged_against_the_link(tmp_path):
    record, completed = run_pairs(tmp_path, 2, {"HPCPROBE_LINK_LIMIT": TINY_LIMIT}, "1M")
    assert record["validation"]["verdict"] == "passed"
    assert record["notes"] == []
    assert completed.stderr == ""


@pytest.mark.parametrize("value", ["fast test-link", "50000000", "50000000  two-spaces",
                                   "0x10 h0", "1e999 h0", "5 bad/name", "5 " + "x" * 65])
def test_a_malformed_limit_is_one_warning_and_the_run_goes_on(tmp_path, value):
    record, completed = run_pairs(tmp_path, 2, {"HPCPROBE_LINK_LIMIT": value})
    assert record["validation"]["verdict"] == "passed"
    lines = stderr_lines(completed)
    assert len(lines) == 1, lines
    assert lines[0].startswith("hpcprobe-bench: warning: HPCPROBE_LINK_LIMIT ignored: ")
    assert "<bytes_per_s> <link name>" in lines[0]


@pytest.mark.parametrize("value", ["0 h0-sw", "-5 h0-sw", ""])
def test_no_rate_is_no_limit_and_no_warning(tmp_path, value):
    _, completed = run_pairs(tmp_path, 2, {"HPCPROBE_LINK_LIMIT": value})
    assert completed.stderr == ""


TRANSPORT_VARIABLES = ("HPCPROBE_CLUSTER", "HPCPROBE_TRANSPORT", "UCX_TLS", "UCX_NET_DEVICES",
                       "MPIR_CVAR_CH4_NETMOD", "FI_PROVIDER")
LAUNCHER_WORDS = "inter-node: UCX tcp over fab0 (UCX_TLS=tcp,self); intra-node: MPICH shared memory"


# Values UCX itself accepts on one machine (the ranks read them too).
@pytest.mark.parametrize("env, cluster, transport", [
    ({"HPCPROBE_CLUSTER": "c1.lab_2-x", "HPCPROBE_TRANSPORT": LAUNCHER_WORDS},
     "c1.lab_2-x", LAUNCHER_WORDS),
    ({"HPCPROBE_TRANSPORT": LAUNCHER_WORDS, "UCX_TLS": "all"}, None, LAUNCHER_WORDS),  # it wins
    ({"HPCPROBE_CLUSTER": "bad name", "HPCPROBE_TRANSPORT": CONTROL, "UCX_TLS": "all"},
     None, None),                                        # given but invalid: left out
    ({"HPCPROBE_CLUSTER": "x" * 65, "HPCPROBE_TRANSPORT": "t" * 257}, None, None),
    ({"HPCPROBE_CLUSTER": "x" * 64, "HPCPROBE_TRANSPORT": "t" * 256}, "x" * 64, "t" * 256),
    ({"UCX_TLS": "tcp,self", "FI_PROVIDER": "tcp"}, None, "UCX_TLS=tcp,self; FI_PROVIDER=tcp"),
    ({"UCX_NET_DEVICES": "all", "MPIR_CVAR_CH4_NETMOD": "ucx"}, None,
     "UCX_NET_DEVICES=all; MPIR_CVAR_CH4_NETMOD=ucx"),
    ({"HPCPROBE_TRANSPORT": "", "FI_PROVIDER": "tcp"}, None, "FI_PROVIDER=tcp"),  # "": not given
    ({"FI_PROVIDER": "tcp\nx"}, None, None),
    ({}, None, None),                                    # nothing known: nothing said
])
def test_cluster_and_transport_written_only_when_valid(tmp_path, monkeypatch, env, cluster,
                                                        transport):
    for name in TRANSPORT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    record, _ = run_pairs(tmp_path, 2, env)
    meta = record["metadata"]
    assert meta.get("cluster") == cluster
    assert meta.get("transport") == transport


# --- a two-host emulated cluster ---------------------------------------------------------


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    """(cluster, env): two hosts on one switch at 1 Gbit/s, removed afterwards."""
    require_cluster_support()
    env = dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path_factory.mktemp("clusters")))
    name = f"lk{os.getpid() % 100000}"
    try:
        completed = run_hpcprobe("cluster", "up", "--name", name, "--nodes", "2",
                                 "--link-rate", LINK_RATE, "--cores-per-node", "1", env=env)
        assert completed.returncode == 0, completed.stderr
        yield load_cluster(name, env), env
    finally:
        if cluster_system.namespaces(f"hpcprobe-{name}-"):
            run_hpcprobe("cluster", "down", "--name", name, env=env)


def launch(two_hosts, tmp_path, limit, *bench_args, budget=120):
    """hpcprobe-bench BENCH_ARGS on one rank per host, with the link limit and the
    cluster's name set for the ranks themselves (by `env`, whatever the launcher adds)."""
    cluster, env = two_hosts
    out = tmp_path / "results.jsonl"
    program = ["env", f"HPCPROBE_LINK_LIMIT={limit}", f"HPCPROBE_CLUSTER={cluster.name}",
               bench_path(), *bench_args, "--quiet", "--out", str(out)]
    completed = run_hpcprobe("launch", "--cluster", cluster.name, "--np", "2", "--ppn", "1",
                             "--time-budget", str(budget), "--", *program, env=env,
                             timeout=budget + 60)
    return records(out), completed


def assert_failed_naming_the_link(record, completed, what):
    assert completed.returncode == 1, completed.stderr
    assert record["status"] == "failed"
    assert record["validation"]["verdict"] == "failed"
    detail = record["validation"]["detail"]
    assert detail.startswith(f"{what}: inter-node bandwidth ")
    assert "is faster than the link it crossed (test-link, 1 kB/s)" in detail
    assert detail in record["notes"]
    assert f"validation failed: {detail}" in completed.stderr


PAIRS = ("pairs", "--size", "1M", "--messages", "2", "--repeat", "1")


def test_pairs_faster_than_the_link_fails_naming_it(two_hosts, tmp_path):
    (record,), completed = launch(two_hosts, tmp_path, TINY_LIMIT, *PAIRS)
    bandwidth = next(m["values"] for m in record["matrices"] if m["name"] == "bandwidth")
    fastest = max(((0, 1), (1, 0)), key=lambda pair: bandwidth[pair[0]][pair[1]])
    assert_failed_naming_the_link(record, completed, "pairs, rank %d to %d" % fastest)
    assert record["validation"]["error"] == 0     # the data itself arrived right
    cluster, _ = two_hosts
    meta = record["metadata"]
    assert meta["hosts"] == [host.name for host in cluster.hosts]
    assert meta["rank_hosts"] == [0, 1]
    assert meta["cluster"] == cluster.name


@pytest.mark.parametrize("limit", [ROOMY_LIMIT, f"{LINK_BYTES_PER_S} h0-sw"])
def test_pairs_within_the_link_passes(two_hosts, tmp_path, limit):
    # The link's own rate too: TCP through the shaped link stays under 1.1 x its rate.
    (record,), completed = launch(two_hosts, tmp_path, limit, *PAIRS)
    assert completed.returncode == 0, completed.stderr
    assert record["validation"]["verdict"] == "passed"
    inter = next(m for m in record["metrics"] if m["name"] == "inter_node_bandwidth")
    assert len(inter["samples"]) == 2
    assert record["notes"] == []


def test_pairs_sampled_on_two_hosts_covers_every_node_pair(two_hosts, tmp_path):
    """2 hosts x 2 ranks and a budget no round fits: the rounds measured still cover every
    rank and the three node pairs (h0-h0, h0-h1, h1-h1), and say so."""
    cluster, env = two_hosts
    out = tmp_path / "results.jsonl"
    program = [bench_path(), "pairs", "--size", "64K", "--repeat", "2", "--sample-time",
               "0.001", "--matrix-time", "0.0001", "--quiet", "--out", str(out)]
    completed = run_hpcprobe("launch", "--cluster", cluster.name, "--np", "4", "--ppn", "2",
                             "--time-budget", "120", "--", *program, env=env, timeout=180)
    assert completed.returncode == 0, completed.stderr
    (record,) = records(out)
    parameters = record["parameters"]
    assert record["metadata"]["rank_hosts"] == [0, 0, 1, 1]
    assert parameters["node_pairs_total"] == parameters["node_pairs_measured"] == 3
    assert parameters["covers_every_rank"] and parameters["covers_every_node_pair"]
    assert parameters["rounds_measured"] in (2, 3) and parameters["pairs_total"] == 12
    assert parameters["sampled"] == (parameters["rounds_measured"] < 3)
    bandwidth = next(m["values"] for m in record["matrices"] if m["name"] == "bandwidth")
    hosts = record["metadata"]["rank_hosts"]
    met = {tuple(sorted((hosts[i], hosts[j]))) for i in range(4) for j in range(4)
           if bandwidth[i][j] is not None}
    assert met == {(0, 0), (0, 1), (1, 1)}
    assert record["validation"]["verdict"] == "passed"


COMM = ("comm", "all", "--functions", "pingpong,pingping,sendrecv,exchange", "--sizes",
        "64K,1M", "--time-per-size", "0.05")


def test_comm_point_to_point_faster_than_the_link_fails_naming_it(two_hosts, tmp_path):
    found, completed = launch(two_hosts, tmp_path, TINY_LIMIT, *COMM)
    assert [r["variant"] for r in found] == ["pingpong", "pingping", "sendrecv", "exchange"]
    for record in found:
        # Only the size long enough to judge (1 MiB) is named.
        assert_failed_naming_the_link(record, completed, f"comm {record['variant']} at 1048576 B")


@pytest.mark.parametrize("limit", [ROOMY_LIMIT, f"{LINK_BYTES_PER_S} h0-sw"])
def test_comm_point_to_point_within_the_link_passes(two_hosts, tmp_path, limit):
    found, completed = launch(two_hosts, tmp_path, limit, *COMM)
    assert completed.returncode == 0, completed.stderr
    assert [r["validation"]["verdict"] for r in found] == ["passed"] * 4


def test_beff_rings_faster_than_the_link_fail_naming_it(two_hosts, tmp_path):
    (record,), completed = launch(two_hosts, tmp_path, TINY_LIMIT, "beff",
                                  "--latency-pairs-time", "0.1", "--bandwidth-pairs-time",
                                  "0.2")
    detail = record["validation"]["detail"]
    what = detail.split(":")[0]
    assert what in ("beff naturally ordered ring, one neighbour's stream",
                    "beff randomly ordered ring, one neighbour's stream")
    assert_failed_naming_the_link(record, completed, what)

