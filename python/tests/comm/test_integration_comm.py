"""`comm` with the real hpcprobe-bench on 1-4 ranks (oversubscribed on 2 cores): every
IMB function with --check passes validation and writes a schema-valid record with its
curves; sub-communicators (--np-sweep); rotated buffers (--off-cache); a corrupted
receive fails validation and names the rank, function and size; bad input is one line."""

import re

import pytest
from helpers import run_hpcprobe
from integration import run_bench

from hpcprobe.families.comm.options import comm_functions
from hpcprobe.results import read_records

# IMB-MPI1's order (docs/kernels/comm.md), which the bench's description keeps; PingPong
# and PingPing run on two ranks.
COMM_FUNCTIONS = ("pingpong", "pingping", "sendrecv", "exchange", "allreduce", "reduce",
                  "reduce_scatter", "allgather", "allgatherv", "gather", "scatter",
                  "alltoall", "alltoallv", "bcast", "barrier")
TWO_RANK_FUNCTIONS = ("pingpong", "pingping")

TINY = ("--sizes", "0..1K", "--time-per-size", "0.001")
SIZES = [0] + [2 ** k for k in range(11)]            # 0, 1 .. 1 KiB
FLOAT_SIZES = [0] + [4 * 2 ** k for k in range(9)]   # whole floats: 0, 4 .. 1 KiB


def run_records(tmp_path, np, *options, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    completed = run_bench("comm", *options, "--quiet", "--out", str(out), np=np, timeout=300,
                          extra_env=extra_env)
    assert completed.returncode == rc, completed.stderr
    found = read_records(out)
    assert found.problems == []   # every record validates against the schema (1.2)
    return found.records, completed


def series(record, name):
    return next(s for s in record["series"] if s["name"] == name)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_every_function_checked(tmp_path, ranks):
    records, completed = run_records(tmp_path, ranks, "all", "--check", *TINY)
    by_name = {record["variant"]: record for record in records}
    expected = [f for f in COMM_FUNCTIONS if ranks >= 2 or f not in TWO_RANK_FUNCTIONS]
    assert list(by_name) == expected
    if ranks == 1:
        assert "skipping pingpong, pingping" in completed.stderr
    for name, record in by_name.items():
        assert record["benchmark"] == "comm" and record["algorithm"] == "imb"
        assert record["schema_version"] == "1.2"
        verdict = record["validation"]["verdict"]
        assert verdict == ("skipped" if name == "barrier" else "passed"), name
        if name == "barrier":
            assert series(record, "time_avg")["x"] == [0]
            continue
        assert record["parameters"]["check"] == "every-call"
        x = series(record, "time_avg")["x"]
        assert x == (FLOAT_SIZES if record["parameters"]["datatype"] == "MPI_FLOAT" else SIZES)
        counters = record["counters"]
        group = record["layout"]["ranks"]
        assert group == (2 if name in TWO_RANK_FUNCTIONS else ranks)
        # every timed call checked on every rank, plus one more per size; all right
        assert counters["checked_calls"] == [group * (reps + 1)
                                             for reps in counters["repetitions"]]
        assert counters["wrong_calls"] == [0] * len(x)
        assert len(counters["rank_node"]) == record["layout"]["ranks"]


def test_curves_and_headline(tmp_path):
    (record,), _ = run_records(tmp_path, 2, "pingpong", "--sizes", "0,1K,1M",
                               "--time-per-size", "0.005")
    names = [s["name"] for s in record["series"]]
    assert names == ["time_min", "time_avg", "time_max", "time_median", "time_p99",
                     "bandwidth"]
    assert series(record, "time_p99")["statistic"] == "p99"
    median = series(record, "time_median")
    assert len(median["samples"]) == 3 and all(median["samples"])
    for lo, avg, hi in zip(series(record, "time_min")["y"], series(record, "time_avg")["y"],
                           series(record, "time_max")["y"]):
        assert 0 < lo <= avg <= hi
    bw = series(record, "bandwidth")
    assert bw["y"][0] == 0 and bw["y"][2] == pytest.approx(2 ** 20 / series(
        record, "time_max")["y"][2])
    assert record["parameters"]["headline_size_bytes"] == 2 ** 20
    assert record["parameters"]["time_is"] == "half-round-trip"
    assert record["value"]["metric"] == "call_time"
    assert record["parameters"]["check"] == "one-call-per-size"


@pytest.mark.parametrize("ranks, groups", [(3, [2, 3]), (4, [2, 4])])
def test_np_sweep_runs_sub_communicators(tmp_path, ranks, groups):
    records, _ = run_records(tmp_path, ranks, "allreduce", "--np-sweep", *TINY)
    assert [r["layout"]["ranks"] for r in records] == groups
    assert [r["parameters"]["group_ranks"] for r in records] == groups
    assert all(r["validation"]["verdict"] == "passed" for r in records)


def test_off_cache_rotates_and_still_validates(tmp_path):
    (record,), _ = run_records(tmp_path, 2, "alltoall", "--off-cache", "--check", *TINY)
    assert record["parameters"]["off_cache"] is True
    assert record["validation"]["verdict"] == "passed"


@pytest.mark.parametrize("function", ["pingpong", "exchange", "allreduce", "alltoallv",
                                      "gather", "reduce_scatter"])
def test_corrupted_data_fails_and_names_rank_function_size(tmp_path, function):
    records, completed = run_records(tmp_path, 2, function, *TINY, rc=1,
                                     extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    (record,) = records
    assert record["status"] == "failed" and record["validation"]["verdict"] == "failed"
    detail = record["validation"]["detail"]
    # Every rank damages what it received; the lowest rank that checks it is named.
    assert re.match(rf"comm {function}: rank [01] received wrong data at 1024 B \(byte \d+ ",
                    detail), detail
    assert detail in completed.stderr


BAD = [
    (("pingpong",), 1, "comm pingpong needs at least 2 ranks, 1 launched"),
    (("all", "--functions", "allreduce,pingping"), 1, "comm pingping needs at least 2 ranks"),
    (("all", "--functions", "alreduce"), 2, "unknown function 'alreduce'"),
    (("bcast", "--functions", "bcast"), 2, "--functions applies to 'comm all' only"),
    (("bcast", "--sizes", "8,4"), 2, "--sizes must increase: 4 after 8"),
    (("bcast", "--sizes", ""), 2, "--sizes: '' has an empty item"),
    (("bcast", "--sizes", "1,,2"), 2, "has an empty item"),
    (("bcast", "--sizes", "4X"), 2, "--sizes: '4X' is not a size"),
    (("bcast", "--time-per-size", "0"), 2, "--time-per-size: '0' is not allowed"),
    # 1 GiB to each of 4 ranks: 8 GiB of buffers per rank, 32 GiB on the node
    (("alltoall", "--sizes", "1G"), 4, "more than the node's available memory allows"),
    (("bcast", "--seed", "3"), 2, "--seed does not apply to comm bcast"),
    (("bcast", "--placement-by", "launcher"), 2, "--placement-by needs --placement"),
]


@pytest.mark.parametrize("argv, np, message", BAD)
def test_bad_input_is_one_line(argv, np, message):
    completed = run_bench("comm", *argv, np=np, timeout=60)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], completed.stderr
    assert completed.stdout.strip() == ""


def test_the_functions_are_the_described_variants():
    assert comm_functions() == COMM_FUNCTIONS


def test_hpcprobe_relays_the_benchs_one_line(tmp_path):
    """hpcprobe leaves the ranks a function needs to the bench: its one line, exit 2."""
    completed = run_hpcprobe("comm", "pingpong", "--np", "1", "--quiet", "--out",
                             str(tmp_path / "out"), timeout=120)
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "hpcprobe-bench: comm pingpong needs at least 2 ranks, 1 launched (launch 2 or more)"]


def test_list_names_every_function():
    listing = run_bench("list").stdout.splitlines()
    for name in ("all",) + COMM_FUNCTIONS:
        assert any(line.split()[:2] == ["comm", name] for line in listing), name
