"""`beff` and `pairs` with the real hpcprobe-bench on 2-4 ranks (oversubscribed): HPCC's
figures and keys from a real record, the P x P matrices (shape, diagonal, a symmetric
same-node matrix), placement applied by the bench (a file, block, round-robin), corrupted
messages failing validation, a time budget that samples the matrix (every rank and node
pair covered, the same pairs for the same seed), and one-line errors."""

import socket

import pytest
from helpers import run_hpcprobe
from integration import run_bench

from hpcprobe.hpcc_summary.beff import beff_summary_entries
from hpcprobe.results import read_records


def run_records(tmp_path, benchmark, np, *options, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    completed = run_bench(benchmark, *options, "--quiet", "--out", str(out), np=np,
                          timeout=300, extra_env=extra_env)
    assert completed.returncode == rc, completed.stderr
    found = read_records(out)
    assert found.problems == []
    return found.records, completed


def metric(record, name):
    return next(m for m in record["metrics"] if m["name"] == name)["samples"]


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_beff_figures(tmp_path, ranks):
    (record,), _ = run_records(tmp_path, "beff", ranks)  # no variant: beff's only one
    assert (record["benchmark"], record["variant"]) == ("beff", "hpcc")
    assert record["validation"]["verdict"] == "passed"
    pairs = ranks * (ranks - 1)   # few ranks: every ordered pair (stride 1)
    assert record["counters"]["pingpong_pairs_latency"] == pairs
    assert len(metric(record, "pingpong_latency")) == pairs
    assert len(metric(record, "pingpong_bandwidth")) == pairs
    assert len(metric(record, "natural_ring_latency")) == 8     # HPCC's 8 measurements
    assert len(metric(record, "natural_ring_bandwidth")) == 3   # and 3
    by_ordering = {s["name"]: s for s in record["series"]}
    assert len(by_ordering["random_ring_latency_by_ordering"]["y"]) == 30
    assert len(by_ordering["random_ring_bandwidth_by_ordering"]["y"]) == 10
    assert record["value"]["metric"] == "random_ring_bandwidth"
    assert record["parameters"]["bandwidth_bytes"] == 2000000
    keys = dict(beff_summary_entries([record]))
    assert float(keys["MinPingPongLatency_usec"]) <= float(keys["AvgPingPongLatency_usec"]) \
        <= float(keys["MaxPingPongLatency_usec"])
    assert float(keys["MinPingPongBandwidth_GBytes"]) <= float(keys["MaxPingPongBandwidth_GBytes"])
    assert len(keys) == 10


def test_beff_corruption_fails(tmp_path):
    (record,), completed = run_records(tmp_path, "beff", 2, rc=1,
                                       extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    assert record["status"] == "failed"
    assert "1 full-content message(s) arrived wrong" in record["validation"]["detail"]
    assert "validation failed: beff:" in completed.stderr


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_pairs_matrices(tmp_path, ranks):
    (record,), _ = run_records(tmp_path, "pairs", ranks, "--size", "64K", "--repeat", "3",
                               "--sample-time", "0.001")
    matrices = {m["name"]: m for m in record["matrices"]}
    bw, same = matrices["bandwidth"]["values"], matrices["same_node"]["values"]
    lo, hi = matrices["bandwidth_min"]["values"], matrices["bandwidth_max"]["values"]
    assert len(bw) == ranks and all(len(row) == ranks for row in bw)
    for i in range(ranks):
        for j in range(ranks):
            assert (bw[i][j] is None) == (i == j)
            assert bw[i][j] is None or 0 < lo[i][j] <= bw[i][j] <= hi[i][j]
            assert same[i][j] == same[j][i] == 1   # one node: every pair shares it
    assert matrices["bandwidth"]["row_name"] == "src_rank"
    assert (matrices["bandwidth_min"]["statistic"], matrices["bandwidth_max"]["statistic"]) == (
        "min", "max")
    assert len(metric(record, "pair_bandwidth")) == ranks * (ranks - 1)
    assert len(metric(record, "intra_node_bandwidth")) == ranks * (ranks - 1)
    assert "inter_node_bandwidth" not in [m["name"] for m in record["metrics"]]
    parameters = record["parameters"]
    assert parameters["rounds"] == parameters["rounds_measured"] == ranks - 1 + ranks % 2
    assert parameters["pairs_measured"] == parameters["pairs_total"] == ranks * (ranks - 1)
    assert parameters["sampled"] is False and parameters["sampling"] == "every round"
    assert parameters["covers_every_rank"] and parameters["covers_every_node_pair"]
    assert parameters["samples_per_pair"] == 3 and parameters["sample_time_s"] == 0.001
    assert record["validation"]["verdict"] == "passed"


@pytest.mark.parametrize("ranks", [3, 4])
def test_pairs_past_the_budget_a_sample_covering_every_rank(tmp_path, ranks):
    """A budget no round fits: the rounds that cover every rank and the node pair, no
    more; the other cells null; the coverage stated; the same seed, the same pairs."""
    options = ("--size", "4K", "--repeat", "2", "--sample-time", "0.001",
               "--matrix-time", "0.0001", "--seed", "5")
    (record,), completed = run_records(tmp_path, "pairs", ranks, *options)
    parameters = record["parameters"]
    covering = 1 if ranks % 2 == 0 else 2     # a bye each round when odd
    assert parameters["sampled"] is True
    assert parameters["rounds_measured"] == covering < parameters["rounds"]
    assert parameters["pairs_measured"] == covering * (ranks - ranks % 2)
    assert parameters["pairs_total"] == ranks * (ranks - 1)
    assert parameters["covers_every_rank"] and parameters["covers_every_node_pair"]
    assert parameters["node_pairs_measured"] == parameters["node_pairs_total"] == 1
    assert "seeded random order (seed 5)" in parameters["sampling"]
    bw = next(m for m in record["matrices"] if m["name"] == "bandwidth")["values"]
    measured = [(i, j) for i in range(ranks) for j in range(ranks) if bw[i][j] is not None]
    assert len(measured) == parameters["pairs_measured"]
    assert all((j, i) in measured for i, j in measured)      # both directions of a pair
    assert {i for i, _ in measured} == set(range(ranks))     # every rank
    assert len(metric(record, "pair_bandwidth")) == len(measured)   # no null in a metric
    assert record["validation"]["verdict"] == "passed"
    assert any(note.startswith(f"sampled: {len(measured)} of {ranks * (ranks - 1)} ordered "
                               "pairs") for note in record["notes"])
    assert any(note.startswith(f"covering every rank and node pair took {covering} rounds")
               and note.endswith("past the 0.0001 s budget") for note in record["notes"])
    again = tmp_path / "again"
    again.mkdir()
    (other,), _ = run_records(again, "pairs", ranks, *options)
    bw2 = next(m for m in other["matrices"] if m["name"] == "bandwidth")["values"]
    assert [[v is None for v in row] for row in bw2] == [[v is None for v in row] for row in bw]


def test_pairs_corruption_names_the_ranks(tmp_path):
    (record,), _ = run_records(tmp_path, "pairs", 2, "--size", "4K", rc=1,
                               extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    assert record["validation"]["detail"].startswith(
        "pairs: rank 0 received wrong data from rank 1 at 4096 B")


def test_placement_file_applied_by_the_bench(tmp_path):
    host = socket.gethostname()
    placement = tmp_path / "placement.txt"
    placement.write_text(f"# four ranks, two pinned\n0 {host} 1\n1 {host}\n2 {host} 0\n"
                         f"3 {host}\n")
    (record,), _ = run_records(tmp_path, "pairs", 4, "--size", "4K", "--placement",
                               str(placement))
    parameters = record["parameters"]
    assert parameters["placement"] == "file" and parameters["placement_by"] == "hpcprobe"
    assert record["counters"]["rank_cpu"][0] == 1 and record["counters"]["rank_cpu"][2] == 0
    assert record["counters"]["rank_node"] == [0, 0, 0, 0]


@pytest.mark.parametrize("order", ["block", "round-robin"])
def test_placement_orders(tmp_path, order):
    (record,), _ = run_records(tmp_path, "beff", 2, "--placement", order)
    assert record["parameters"]["placement"] == order
    assert record["parameters"]["placement_by"] == "hpcprobe"


BAD = [
    ("beff", 1, (), "beff needs at least 2 ranks, 1 launched"),
    ("pairs", 1, (), "pairs needs at least 2 ranks, 1 launched"),
    ("pairs", 2, ("--size", "0"), "--size must be a positive size in bytes from 1 to 1073741824"),
    ("pairs", 2, ("--size", "2G"), "--size must be a positive size in bytes from 1 to 1073741824"),
    ("pairs", 2, ("--sizes", "8"), "--sizes does not apply to pairs bandwidth"),
    ("pairs", 2, ("--matrix-time", "0"), "--matrix-time"),
    ("pairs", 2, ("--sample-time", "-1"), "--sample-time"),
    ("beff", 2, ("--placement", "/nonexistent/file"), "--placement /nonexistent/file: no such"),
]


@pytest.mark.parametrize("benchmark, np, argv, message", BAD)
def test_bad_input_is_one_line(benchmark, np, argv, message):
    completed = run_bench(benchmark, *argv, np=np, timeout=60)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], completed.stderr


def test_hpcprobe_relays_the_benchs_one_line(tmp_path):
    """hpcprobe leaves the ranks b_eff needs to the bench: its one line, exit 2."""
    completed = run_hpcprobe("beff", "--np", "1", "--quiet", "--out", str(tmp_path / "out"),
                             timeout=120)
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and "beff needs at least 2 ranks, 1 launched" in lines[0], lines


@pytest.mark.parametrize("text, message", [
    ("0 {h}\n1 {h}\n3 {h}\n", "rank 2 is missing; the file must list every rank 0..3 once"),
    ("0 {h}\n1 {h}\n1 {h}\n2 {h}\n3 {h}\n", "rank 1 is listed twice (lines 2 and 3)"),
    ("0 {h}\n1 {h}\n2 elsewhere\n3 {h}\n",
     "puts 1 rank(s) on host 'elsewhere' but the launcher started 0 there"),
])
def test_bad_placement_file(tmp_path, text, message):
    placement = tmp_path / "placement.txt"
    placement.write_text(text.format(h=socket.gethostname()))
    completed = run_bench("pairs", "--placement", str(placement), np=4, timeout=60)
    assert completed.returncode == 2
    assert message in completed.stderr and len(completed.stderr.strip().splitlines()) == 1


def test_placement_through_the_launcher(tmp_path):
    """hpcprobe pairs --placement FILE: the build's mpiexec gets the host file, the bench
    pins the CPUs the file names and records where each rank ran."""
    placement = tmp_path / "placement.txt"
    placement.write_text(f"0 {socket.gethostname()} 1\n1 {socket.gethostname()} 0\n")
    out = tmp_path / "out"
    completed = run_hpcprobe("pairs", "--np", "2", "--size", "4K", "--repeat", "1",
                             "--placement", str(placement), "--out", str(out), "--quiet")
    assert completed.returncode == 0, completed.stderr
    (record,) = read_records(out / "results.jsonl").records
    assert record["parameters"]["placement_by"] == "launcher"
    assert record["counters"]["rank_cpu"] == [1, 0]
    assert (out / "placement.hosts").exists()
    log = (out / "pairs-bandwidth.log").read_text()
    assert str(out / "placement.hosts") in log.splitlines()[0]
