"""`hpcprobe stream single|star`, `hpcprobe mem stride|latency` and `run --suite memory`:
command-line mistakes, ranks and binding, records against the schema, launches through a
fake launcher, and, when the installed hpcprobe-bench has the families, the real thing.
The tables and HPCC keys are test_memory_tables.py's."""

import os
import shlex
import subprocess
import sys

import pytest
from helpers import (MEMORY_RECORDS, TESTS, read_jsonl, record_of, run_hpcprobe,
                     stand_in_bench, stderr_lines, write_jsonl)

from hpcprobe.cli import main, parse_arguments
from hpcprobe.launch import MpiexecLauncher, MpirunLauncher, SrunLauncher, TemplateLauncher
from hpcprobe.launch.binding import binding_args
from hpcprobe.families.memory.options import memory_bench_options
from hpcprobe.families.memory.tables import default_ranks, threads_per_rank
from hpcprobe.results import read_records, schema_problem

FAKE = TESTS / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"
CORES = os.cpu_count() or 1


def run_main(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, [line for line in captured.err.splitlines() if line.strip()]


# --- the fixtures are records ----------------------------------------------------------

@pytest.mark.parametrize("name", MEMORY_RECORDS)
def test_fixture_records_validate_against_the_schema(name, tmp_path):
    record = record_of(name)
    assert record["schema_version"] == "1.1"
    assert schema_problem(record) is None
    found = read_records(write_jsonl(tmp_path / "results.jsonl", [record]))
    assert found.problems == [] and len(found.records) == 1


def test_schema_refuses_an_unknown_version_and_statistic():
    record = record_of("stream-star")
    record["schema_version"] = "1.9"  # 1.2 is read (docs/results.md); 1.9 is not
    assert "schema_version" in schema_problem(record)
    record = record_of("mem-stride")
    record["series"][0]["statistic"] = "mode"
    assert "series.0.statistic" in schema_problem(record)


# --- command-line mistakes ---------------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    (["stream"], "missing variant for 'hpcprobe stream' (allowed: single, star)"),
    (["mem"], "missing variant for 'hpcprobe mem' (allowed: stride, latency)"),
    (["stream", "singel"],
     "unknown variant 'singel' (allowed: single, star); did you mean 'single'?"),
    (["mem", "latnecy"],
     "unknown variant 'latnecy' (allowed: stride, latency); did you mean 'latency'?"),
    (["mem", "latency", "--sweep", "block"],
     "--sweep applies to 'hpcprobe mem stride' only, not to 'mem latency'"),
    (["mem", "latency", "--build-variant", "O0"],
     "--build-variant applies to 'hpcprobe mem stride' only, not to 'mem latency'"),
    (["mem", "stride", "--points-per-octave", "4"],
     "--points-per-octave applies to 'hpcprobe mem latency' only, not to 'mem stride'"),
    (["mem", "stride", "--seed", "7"],
     "--seed applies to 'hpcprobe mem latency' only, not to 'mem stride'"),
    (["mem", "stride", "--hpcc-summary"],
     "--hpcc-summary applies to 'hpcprobe ra', 'hpcprobe stream' and 'hpcprobe run', not to "
     "'mem' (HPCC has no such benchmark)"),
    (["stream", "star", "--np", "0"], "--np must be a whole number >= 1, not '0'"),
    (["mem", "latency", "--time-budget", "-1"],
     "--time-budget must be a number of seconds > 0, not '-1'"),
    (["run", "--suite", "memroy"],
     "unknown suite 'memroy' (allowed: main, quick, memory, peak, hpcc, comm); "
     "did you mean 'memory'?"),
    (["stram", "star"],
     "unknown command 'stram' (allowed: peak, ra, stream, mem, dgemm, hpl, ptrans, fft, run, "
     "study, screen, "
     "config, model, show, report, "
     "compare, history, sysinfo, list, contention, topology, simulate, congestion, comm, beff, "
     "pairs, "
     "gpu, cluster, "
     "launch, script); "
     "did you mean 'stream'?"),
])
def test_mistakes_are_one_line_and_exit_2(capsys, argv, expected):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert lines == [f"hpcprobe: {expected}"]


@pytest.mark.parametrize("argv, option, close", [
    (["stream", "star", "--array-byte", "1M"], "--array-byte", "--array-bytes"),
    (["stream", "single", "--sweep", "block"], "--sweep", None),
    (["mem", "stride", "--threads", "2"], "--threads", None),
    (["mem", "latency", "--max-byte=2G"], "--max-byte", "--max-bytes"),
])
def test_unknown_options_name_what_is_allowed(capsys, argv, option, close):
    status, lines = run_main(capsys, *argv)
    assert status == 2 and len(lines) == 1
    assert lines[0].startswith(f"hpcprobe: unknown option '{option}' for 'hpcprobe {argv[0]}' "
                               "(allowed: ")
    assert "--copies" in lines[0]
    if close:
        assert lines[0].endswith(f"did you mean '{close}'?")


def test_whole_program_says_one_line_and_exits_2():
    completed = run_hpcprobe("mem", "latency", "--sweep", "stride")
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        "hpcprobe: --sweep applies to 'hpcprobe mem stride' only, not to 'mem latency'"]
    assert completed.stdout == ""


def test_help_lists_the_options():
    completed = run_hpcprobe("mem", "--help")
    assert completed.returncode == 0
    for option in ("--sweep", "--build-variant", "--points-per-octave", "--copies", "--np"):
        assert option in completed.stdout


# --- bench options, ranks, binding ---------------------------------------------------------

def test_values_pass_through_to_the_bench_as_typed():
    """In the bench's order, as typed (the bench judges --copies and combinations)."""
    args = parse_arguments(["mem", "stride", "--sweep", "block", "--build-variant", "O0",
                            "--buffer-bytes", "64K", "--min-stride", "8", "--max-stride", "2K",
                            "--min-bytes", "1K", "--max-bytes", "1M", "--repeat", "2",
                            "--min-time", "0.5", "--copies", "two", "--hugepages", "off",
                            "--oversubscribe", "--no-verify"])
    assert memory_bench_options(args) == [
        "--buffer-bytes", "64K", "--min-bytes", "1K", "--max-bytes", "1M", "--min-stride", "8",
        "--max-stride", "2K", "--sweep", "block", "--build-variant", "O0", "--copies", "two",
        "--oversubscribe", "--min-time", "0.5", "--hugepages", "off", "--repeat", "2",
        "--no-verify"]
    args = parse_arguments(["stream", "star", "--threads", "2", "--array-bytes", "1M"])
    assert memory_bench_options(args) == ["--array-bytes", "1M", "--threads", "2"]
    args = parse_arguments(["mem", "latency", "--points-per-octave", "4", "--seed", "9",
                            "--hugepages", "on"])
    assert memory_bench_options(args) == ["--hugepages", "on", "--points-per-octave", "4",
                                          "--seed", "9"]


@pytest.mark.parametrize("variant, copies, threads, cores, ranks", [
    ("single", None, 1, 8, 1),
    ("star", None, 1, 8, 8),
    ("star", None, 2, 8, 4),
    ("star", "one", 1, 8, 8),
    ("stride", None, 1, 8, 1),
    ("stride", "one", 1, 8, 1),
    ("stride", "all", 1, 8, 8),
    ("latency", "all", 1, 2, 2),
    ("latency", "3", 1, 8, 3),
    ("single", "12", 1, 8, 12),  # the bench refuses it without --oversubscribe
    ("stride", "two", 1, 8, 1),  # the bench refuses it
    ("star", None, 16, 8, 1),
])
def test_default_ranks(variant, copies, threads, cores, ranks):
    assert default_ranks(variant, copies, threads, cores) == ranks


def test_threads_per_rank_follows_the_bench():
    assert threads_per_rank("4", {"OMP_NUM_THREADS": "2"}) == 4
    assert threads_per_rank(None, {"OMP_NUM_THREADS": "2"}) == 2
    assert threads_per_rank(None, {"OMP_NUM_THREADS": "x"}) == 1
    assert threads_per_rank(None, {}) == 1


def mpi_dir(tmp_path, *names):
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in ("mpiexec", "mpirun", *names):
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)
    return folder


def test_binding_with_mpich_hydra(tmp_path):
    folder = mpi_dir(tmp_path, "hydra_pmi_proxy")
    mpiexec = MpiexecLauncher(str(folder / "mpiexec"))
    assert binding_args(mpiexec, 2, 1, 2, False, []) == ["-bind-to", "core"]
    assert binding_args(mpiexec, 2, 4, 8, False, []) == ["-bind-to", "core:4"]
    assert binding_args(MpirunLauncher(str(folder / "mpirun")), 1, 1, 2, False, []) == [
        "-bind-to", "core"]


def test_binding_with_open_mpi(tmp_path):
    folder = mpi_dir(tmp_path, "ompi_info")
    mpirun = MpirunLauncher(str(folder / "mpirun"))
    assert binding_args(mpirun, 4, 1, 4, False, []) == ["--bind-to", "core"]
    assert binding_args(mpirun, 2, 2, 4, False, []) == [
        "--map-by", "slot:PE=2", "--bind-to", "core"]


def test_no_binding_where_the_bench_pins_itself(tmp_path):
    folder = mpi_dir(tmp_path, "hydra_pmi_proxy")
    mpiexec = MpiexecLauncher(str(folder / "mpiexec"))
    assert binding_args(mpiexec, 3, 1, 2, False, []) == []  # more ranks than cores
    assert binding_args(mpiexec, 2, 1, 2, True, []) == []  # --oversubscribe
    assert binding_args(mpiexec, 2, 1, 2, False, ["-bind-to", "socket"]) == []  # the user's
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "mpiexec").write_text("")
    assert binding_args(MpiexecLauncher(str(bare / "mpiexec")), 2, 1, 2, False, []) == []
    assert binding_args(TemplateLauncher("aprun -n {np} {cmd}"), 2, 1, 2, False, []) == []


def test_binding_with_srun():
    srun = SrunLauncher("/usr/bin/srun")
    assert binding_args(srun, 2, 1, 2, False, []) == ["--cpu-bind=cores"]
    assert binding_args(srun, 2, 2, 8, False, []) == []
    assert binding_args(srun, 2, 1, 2, False, ["--cpu-bind=sockets"]) == []


# --- launches through the fake launcher ---------------------------------------------------

@pytest.fixture
def fake(tmp_path):
    bench = stand_in_bench(tmp_path / "bin" / "hpcprobe-bench")

    class Fake:
        env = dict(os.environ, HPCPROBE_BENCH=str(bench),
                   FAKE_ARGV_FILE=str(tmp_path / "argv.jsonl"))
        out = tmp_path / "out"
        argv_file = tmp_path / "argv.jsonl"

    Fake.bench = bench
    return Fake


def hpcprobe(fake, *args):
    return run_hpcprobe(*args, "--launcher", TEMPLATE, "--out", str(fake.out), env=fake.env)


def test_stream_star_launch_prints_the_table_and_the_summary(fake):
    completed = hpcprobe(fake, "stream", "star", "--array-bytes", "1M", "--hpcc-summary",
                         "--quiet")
    assert completed.returncode == 0, completed.stderr
    [launched] = read_jsonl(fake.argv_file)
    assert launched["argv"] == ["--fake-np", str(CORES), str(fake.bench), "stream", "star",
                                "--array-bytes", "1M", "--out",
                                str(fake.out / "results.jsonl")]
    assert "star mean / single" in completed.stdout
    summary = (fake.out / "hpcc-summary.txt").read_text()
    assert "StarSTREAM_Copy=7.11\n" in summary and summary in completed.stdout
    assert (fake.out / "stream-star.log").is_file()


@pytest.mark.parametrize("argv, ranks", [
    (["mem", "stride"], 1),
    (["mem", "stride", "--copies", "3"], 3),
    (["mem", "latency", "--copies", "all"], CORES),
    (["mem", "latency", "--copies", "all", "--np", "5"], 5),
    (["stream", "single"], 1),
])
def test_ranks_launched(fake, argv, ranks):
    completed = hpcprobe(fake, *argv, "--quiet")
    assert completed.returncode == 0, completed.stderr
    assert read_jsonl(fake.argv_file)[0]["argv"][1] == str(ranks)
    assert "ns/access" in completed.stdout or "GB/s" in completed.stdout


def test_omp_num_threads_shapes_stream_ranks_only(fake):
    fake.env["OMP_NUM_THREADS"] = str(2 * CORES)
    assert hpcprobe(fake, "mem", "latency", "--copies", "all", "--quiet").returncode == 0
    assert hpcprobe(fake, "stream", "star", "--quiet").returncode == 0
    assert [entry["argv"][1] for entry in read_jsonl(fake.argv_file)] == [str(CORES), "1"]


def test_bad_input_from_the_bench_is_relayed(fake):
    fake.env["FAKE_MODE"] = "bad"
    completed = hpcprobe(fake, "mem", "latency", "--quiet")
    assert completed.returncode == 2
    assert len(stderr_lines(completed)) == 1 and completed.stdout == ""


def test_memory_suite_through_the_fake_launcher(fake):
    completed = hpcprobe(fake, "run", "--suite", "memory", "--scale", "tiny", "--np", "2",
                         "--hpcc-summary")
    assert completed.returncode == 0, completed.stderr
    launched = [entry["argv"] for entry in read_jsonl(fake.argv_file)]
    assert [argv[3:5] for argv in launched] == [
        ["stream", "single"], ["stream", "star"]] + [["mem", "stride"]] * 3 + [
        ["mem", "latency"]] * 2
    assert [argv[1] for argv in launched] == ["2", "2", "2", "1", "1", "2", "2"]
    assert launched[3][5:9] == ["--sweep", "block", "--copies", "one"]
    assert [line for line in stderr_lines(completed) if line.startswith("[")] == [
        "[1/7] stream single ...", "[2/7] stream star ...", "[3/7] mem stride ...",
        "[4/7] mem stride block O3 ...", "[5/7] mem stride block O0 ...",
        "[6/7] mem latency hugepages off ...", "[7/7] mem latency hugepages on ..."]
    assert len(read_jsonl(fake.out / "results.jsonl")) == 7
    assert "hpcprobe run --suite memory" in completed.stdout
    assert "plateaus of the curve" in completed.stdout
    assert "SingleSTREAM_Triad=12.66" in completed.stdout


# --- the real hpcprobe-bench ---


@pytest.mark.parametrize("argv", [
    ["stream", "star", "--np", "2", "--array-bytes", "1M", "--repeat", "2"],
    ["mem", "stride", "--np", "2", "--copies", "all", "--buffer-bytes", "256K",
     "--max-stride", "64K", "--min-time", "0.001", "--repeat", "2"],
    ["mem", "latency", "--np", "2", "--copies", "all", "--max-bytes", "1M",
     "--min-time", "0.001", "--repeat", "2"],
])
def test_real_bench_records_and_tables(tmp_path, argv):
    completed = run_hpcprobe(*argv, "--quiet", "--out", str(tmp_path),
                             timeout=300)
    assert completed.returncode == 0, completed.stderr
    found = read_records(tmp_path / "results.jsonl")
    assert found.problems == [] and len(found.records) == 1
    record = found.records[0]
    assert (record["benchmark"], record["variant"]) == tuple(argv[:2])
    assert record["validation"]["verdict"] == "passed"
    assert ("GB/s" if argv[0] == "stream" else "ns/access") in completed.stdout


def test_real_memory_suite_tiny(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "hpcprobe", "run", "--suite", "memory", "--scale", "tiny",
         "--np", "2", "--quiet", "--hpcc-summary", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    found = read_records(tmp_path / "results.jsonl")
    assert found.problems == [] and len(found.records) == 7
    assert "StarSTREAM_Triad=" in completed.stdout
