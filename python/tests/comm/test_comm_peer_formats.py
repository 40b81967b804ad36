"""`comm --format imb|osu|osu-full|osu-tail` and `show --format ...`: real runs of the
bench on 2-4 ranks, their stdout read with the regular expressions that existing
parsers use for IMB-MPI1's and OSU's output, the figures checked against the records, and
the timing policy (--timing) each layout implies recorded and applied.

The patterns mirror, in substance, those of Ramble's application definitions for
intel-mpi-benchmarks (one row per size: bytes, repetitions and two-decimal times) and
osu-micro-benchmarks (a header line choosing the columns, then size and two-decimal
latencies), and ReFrame's OSU checks (`^SIZE\\s+(\\S+)`)."""

import json
import re

import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.families.comm.peer_formats import percentile

# IMB-MPI1 (Ramble): collectives, PingPong/PingPing, Sendrecv/Exchange rows.
IMB_TIMES = re.compile(r"^\s+(?P<bytes>\d+)\s+(?P<repetitions>\d+)\s+(?P<t_min>\d+\.\d+)\s+"
                       r"(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)$", re.M)
IMB_BANDWIDTH = re.compile(r"^\s+(?P<bytes>\d+)\s+(?P<repetitions>\d+)\s+(?P<t>\d+\.\d+)\s+"
                           r"(?P<bw>\d+\.\d+)$", re.M)
IMB_COMBINED = re.compile(r"^\s+(?P<bytes>\d+)\s+(?P<repetitions>\d+)\s+(?P<t_min>\d+\.\d+)\s+"
                          r"(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s+(?P<bw>\d+\.\d+)$",
                          re.M)
IMB_BENCHMARKING = re.compile(r"^# Benchmarking (\w+)\s*$", re.M)
# OSU (Ramble): the header lines that choose the layout, then the rows.
OSU_AVG_HEADER = re.compile(r"^#\s+Size\s+Avg Latency\(us\)\s*$", re.M)
OSU_TAIL_HEADER = re.compile(r"^# Size\s+Avg Latency\(us\)\s+P50 Tail Lat\(us\)\s+"
                             r"P90 Tail Lat\(us\)\s+P99 Tail Lat\(us\)$", re.M)
OSU_ROW = re.compile(r"^\s*(?P<msg_size>[0-9]+)\s+(?P<avg_lat>[0-9.]+)\s*$", re.M)
OSU_TAIL_ROW = re.compile(r"^\s*(?P<msg_size>[0-9]+)\s+(?P<avg_lat>[0-9.]+)\s+"
                          r"(?P<p50>[0-9.]+)\s+(?P<p90>[0-9.]+)\s+(?P<p99>[0-9.]+)\s*$", re.M)
OSU_FULL_HEADER = re.compile(r"^# Size\s+Avg Latency\(us\)\s+Min Latency\(us\)\s+"
                             r"Max Latency\(us\)\s+Iterations$", re.M)
OSU_FULL_ROW = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+)$", re.M)
SIZES = ("--sizes", "0,8,64K")


def comm(tmp_path, *args, np=2):
    out = tmp_path / "out"
    completed = run_hpcprobe("comm", *args, "--np", str(np), "--out", str(out), timeout=300)
    records = [json.loads(line) for line in
               (out / "results.jsonl").read_text().splitlines()] if completed.returncode == 0 \
        else []
    return completed, records, out / "results.jsonl"


def curve(record, name):
    entry = next(s for s in record["series"] if s["name"] == name)
    return dict(zip(entry["x"], entry["y"]))


def micro(value):
    return f"{value * 1e6:.2f}"


def test_imb_layout_is_read_by_imb_parsers_and_times_as_imb(tmp_path):
    completed, records, _ = comm(tmp_path, "pingpong", "sendrecv", "allreduce", "barrier",
                                 *SIZES, "--format", "imb")
    assert completed.returncode == 0, completed.stderr
    text = completed.stdout
    assert IMB_BENCHMARKING.findall(text) == ["PingPong", "Sendrecv", "Allreduce", "Barrier"]
    by_function = {r["parameters"]["function"]: r for r in records}
    assert {r["parameters"]["timing"] for r in records} == {"imb"}
    assert {r["parameters"]["allocation"] for r in records} == {"MPI_Alloc_mem"}   # as IMB
    # PingPong: t (the slowest rank's) and Mbytes/sec, 10^6 B/s.
    pingpong = by_function["PingPong"]
    rows = {int(m["bytes"]): m for m in IMB_BANDWIDTH.finditer(text)}
    assert set(rows) == {0, 8, 65536}
    for size, t_max in curve(pingpong, "time_max").items():
        assert rows[size]["t"] == micro(t_max)
    # IMB's repetitions: 1000 up to 40 MiB moved (40 MiB / 64 KiB = 640).
    assert [int(rows[s]["repetitions"]) for s in (0, 8, 65536)] == [1000, 1000, 640]
    assert pingpong["counters"]["repetitions"] == [1000, 1000, 640]
    combined = {int(m["bytes"]): m for m in IMB_COMBINED.finditer(text)}
    assert set(combined) == {0, 8, 65536}
    sendrecv_avg = curve(by_function["Sendrecv"], "time_avg")
    assert all(combined[s]["t_avg"] == micro(v) for s, v in sendrecv_avg.items())
    allreduce = {int(m["bytes"]): m for m in IMB_TIMES.finditer(text)}
    assert set(allreduce) == {0, 8, 65536}
    assert all(allreduce[s]["t_min"] == micro(v)
               for s, v in curve(by_function["Allreduce"], "time_min").items())
    assert "#repetitions  t_min[usec]" in text      # Barrier: no sizes
    assert all(r["validation"]["verdict"] in ("passed", "skipped") for r in records)


@pytest.mark.parametrize("np", [2, 3])
def test_osu_layout_is_read_by_osu_parsers_and_times_as_osu(tmp_path, np):
    completed, records, _ = comm(tmp_path, "pingpong", "allreduce", *SIZES, "--format", "osu",
                                 np=np)
    assert completed.returncode == 0, completed.stderr
    text = completed.stdout
    assert len(OSU_AVG_HEADER.findall(text)) == 2     # OSU 7's latency test says Avg too
    rows = [(int(m["msg_size"]), m["avg_lat"]) for m in OSU_ROW.finditer(text)]
    pingpong, allreduce = records
    expected = [(int(s), micro(v)) for s, v in curve(pingpong, "time_avg").items()]
    expected += [(int(s), micro(v)) for s, v in curve(allreduce, "time_avg").items()]
    assert rows == expected
    # OSU's iterations: latency 10000 (skip 100) up to 8 KiB, 1000 (skip 10) above;
    # collectives 1000 (skip 100), then 100 (skip 10).
    assert pingpong["counters"]["repetitions"] == [10000, 10000, 1000]
    assert pingpong["parameters"]["allocation"] == "page-aligned"     # OSU's posix_memalign
    assert pingpong["counters"]["warmup_calls"] == [100, 100, 10]
    assert allreduce["counters"]["repetitions"] == [1000, 1000, 100]
    # ReFrame's OSU checks take the first number after the size.
    first = re.search(r"^65536\s+(\S+)", text, re.M)
    assert first and first.group(1) == micro(curve(pingpong, "time_avg")[65536])


def test_osu_full_and_tail_layouts_from_show(tmp_path):
    completed, records, results = comm(tmp_path, "alltoall", "--sizes", "8,64K",
                                       "--format", "osu")
    assert completed.returncode == 0, completed.stderr
    full = run_hpcprobe("show", str(results), "--format", "osu-full")
    assert full.returncode == 0, full.stderr
    assert len(OSU_FULL_HEADER.findall(full.stdout)) == 1
    rows = OSU_FULL_ROW.findall(full.stdout)
    record = records[0]
    assert [(int(r[0]), r[2], r[3], int(r[4])) for r in rows] == [
        (int(size), micro(curve(record, "time_min")[size]),
         micro(curve(record, "time_max")[size]), reps)
        for size, reps in zip((8, 65536), record["counters"]["repetitions"])]
    tail = run_hpcprobe("show", str(results), "--format", "osu-tail")
    assert len(OSU_TAIL_HEADER.findall(tail.stdout)) == 1
    tails = {int(m["msg_size"]): m for m in OSU_TAIL_ROW.finditer(tail.stdout)}
    median = next(s for s in record["series"] if s["name"] == "time_median")
    for size, samples in zip(median["x"], median["samples"]):
        measured = [value for value in samples if value is not None]
        assert tails[int(size)]["p90"] == micro(percentile(measured, 0.9))
        assert float(tails[int(size)]["p50"]) <= float(tails[int(size)]["p99"])


def test_show_says_when_the_record_was_timed_by_another_policy(tmp_path):
    completed, _, results = comm(tmp_path, "pingpong", "--sizes", "8", "--time-per-size",
                                 "0.01")
    assert completed.returncode == 0, completed.stderr
    shown = run_hpcprobe("show", str(results), "--format", "imb")
    assert shown.returncode == 0
    assert "# note: timed by hpcprobe's policy, not IMB-MPI1's" in shown.stdout
    assert IMB_BANDWIDTH.search(shown.stdout)


def test_failed_validation_is_said_in_a_comment_and_the_exit_status(tmp_path):
    out = tmp_path / "out"
    env = dict(__import__("os").environ, HPCPROBE_INJECT_FAULT="corrupt:1")
    completed = run_hpcprobe("comm", "allreduce", "--sizes", "8", "--np", "2", "--format",
                             "imb", "--out", str(out), env=env, timeout=120)
    assert completed.returncode != 0
    assert re.search(r"^# hpcprobe validation: failed", completed.stdout, re.M)


@pytest.mark.parametrize("args, message", [
    # --format chooses the timing, and the bench refuses what that timing fixes itself.
    (("comm", "pingpong", "--format", "osu", "--time-per-size", "1"),
     "hpcprobe-bench: --time-per-size does not apply to --timing osu"),
    (("comm", "pingpong", "--format", "imb", "--check"),
     "hpcprobe-bench: --check does not apply to --timing imb"),
    (("comm", "pingpong", "--format", "imb2"), "format 'imb2'"),
    (("comm", "pingpong", "--timing", "mpi"), "unknown timing 'mpi' (allowed: hpcprobe, imb, osu)"),
])
def test_bad_format_or_timing_is_one_line(args, message, tmp_path):
    completed = run_hpcprobe(*args, "--np", "2", "--out", str(tmp_path / "x"), "--quiet",
                             timeout=120)
    assert completed.returncode == 2
    lines = stderr_lines(completed)
    assert len(lines) == 1 and message in lines[0], lines


def test_show_refuses_a_peer_layout_without_comm_records(tmp_path):
    from helpers import golden, write_jsonl
    path = write_jsonl(tmp_path / "ra.jsonl", [golden("single")])
    shown = run_hpcprobe("show", str(path), "--format", "osu")
    assert shown.returncode == 2 and "imb and osu print comm's records" in shown.stderr
