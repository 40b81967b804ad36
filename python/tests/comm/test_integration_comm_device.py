"""`comm` and `pairs` with `--buffers` on the real hpcprobe-bench: host buffers say so in
the record; device buffers either run (a CUDA build on a node with a GPU: the record says
how MPI reached them, and the data still validate) or, without a device, every rank stops
at one line and exit 2 before anything is allocated; and the functions that do not take
device buffers are refused."""

import pytest
from integration import run_bench

from hpcprobe.results import read_records

TINY = ("--sizes", "0..1K", "--time-per-size", "0.001")
TRANSFERS = ("cuda-aware", "staged")


def _records(path):
    found = read_records(path)
    assert found.problems == []   # schema-valid
    return found.records


def test_host_buffers_are_recorded(tmp_path):
    out = tmp_path / "results.jsonl"
    completed = run_bench("comm", "pingpong", "--buffers", "host", *TINY, "--quiet",
                          "--out", str(out), np=2, timeout=60)
    assert completed.returncode == 0, completed.stderr
    completed = run_bench("pairs", "--size", "4K", "--repeat", "1", "--quiet", "--out", str(out),
                          np=2, timeout=60)
    assert completed.returncode == 0, completed.stderr
    for record in _records(out):
        parameters = record["parameters"]
        assert parameters["buffers"] == "host" and parameters["device_transfer"] == "none"
        assert parameters["device"] is None and parameters["mpi_device_query"] is None
        assert record["validation"]["verdict"] == "passed"


@pytest.mark.parametrize("bench, args, np", [
    ("comm", ("allreduce",), 1),
    ("comm", ("allreduce",), 2),
    ("comm", ("all", "--functions", "pingpong,alltoall"), 2),
    ("pairs", ("--size", "4K", "--repeat", "1"), 2),
])
def test_device_buffers_run_or_refuse_in_one_line(tmp_path, bench, args, np):
    out = tmp_path / "results.jsonl"
    extra = TINY if bench == "comm" else ()
    completed = run_bench(bench, *args, *extra, "--buffers", "device", "--quiet",
                          "--out", str(out), np=np, timeout=60)
    if completed.returncode == 0:   # a device, and a CUDA build
        for record in _records(out):
            parameters = record["parameters"]
            assert parameters["buffers"] == "device"
            assert parameters["device_transfer"] in TRANSFERS
            assert isinstance(parameters["device_name"], str)
            assert record["validation"]["verdict"] == "passed"
            staged = any("not the MPI's own" in note for note in record.get("notes", []))
            assert staged == (parameters["device_transfer"] == "staged")
        return
    lines = completed.stderr.strip().splitlines()
    assert completed.returncode == 2, completed.stderr
    assert len(lines) == 1 and lines[0].startswith(
        f"hpcprobe-bench: {bench}: --buffers device: "), completed.stderr
    assert not out.exists() or out.read_text() == ""


@pytest.mark.parametrize("args, message", [
    (("bcast",), "--buffers device applies to pingpong, allreduce and alltoall, not to "
                 "'comm bcast'"),
    (("all",), "not to 'comm pingping' (with comm all: --functions pingpong,allreduce,"),
    (("all", "--functions", "pingpong,gather"), "not to 'comm gather'"),
])
def test_functions_without_device_buffers_are_refused(args, message):
    completed = run_bench("comm", *args, "--buffers", "device", np=2, timeout=60)
    lines = completed.stderr.strip().splitlines()
    assert completed.returncode == 2 and len(lines) == 1 and message in lines[0], completed.stderr


def test_buffers_do_not_apply_to_beff():
    completed = run_bench("beff", "--buffers", "host", np=2, timeout=60)
    assert completed.returncode == 2
    assert "--buffers does not apply to beff" in completed.stderr
