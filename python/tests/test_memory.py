"""`hpcprobe stream single|star`, `hpcprobe mem stride|latency` and `run --suite memory`:
command-line mistakes, ranks and binding, the tables and the HPCC keys from hand-written
records (data/stream-*.json, data/mem-*.json), launches through a fake launcher, and, when
the installed hpcprobe-bench has the families, the real thing."""

import copy
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (DATA, golden, measured_summary, read_jsonl, run_hpcprobe, stderr_lines,
                     write_jsonl)
from rich.console import Console

from hpcprobe.cli import main, parse_arguments
from hpcprobe.hpcc_summary.summary import hpcc_summary_text
from hpcprobe.launch import MpiexecLauncher, MpirunLauncher, SrunLauncher, TemplateLauncher
from hpcprobe.launch.binding import binding_args
from hpcprobe.units import binary_size
from hpcprobe.families.memory.options import memory_bench_options
from hpcprobe.families.memory.tables import (default_ranks, memory_tables, cache_names,
                                             threads_per_rank)
from hpcprobe.launch import find_bench
from hpcprobe.results import read_records, schema_problem
from hpcprobe.suites import describe_suite, suite_steps

FAKE = Path(__file__).parent / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"
CORES = os.cpu_count() or 1
KERNELS = ("copy", "scale", "add", "triad")
FIXTURES = ("stream-star", "stream-single", "mem-stride", "mem-latency")


def fixture(name):
    return copy.deepcopy(json.loads((DATA / f"{name}.json").read_text()))


def rendered(records, width=200):
    console = Console(width=width, record=True, highlight=False)
    for table in memory_tables(records):
        console.print(table)
    return console.export_text()


def row_of(text, first_cell):
    """The cells of the table row that starts with `first_cell`."""
    for line in text.splitlines():
        line = line.replace("┃", "│")
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} in\n{text}")


def run_main(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, [line for line in captured.err.splitlines() if line.strip()]


# --- the fixtures are records ----------------------------------------------------------

@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_records_validate_against_the_schema(name, tmp_path):
    record = fixture(name)
    assert record["schema_version"] == "1.1"
    assert schema_problem(record) is None
    found = read_records(write_jsonl(tmp_path / "results.jsonl", [record]))
    assert found.problems == [] and len(found.records) == 1


def test_schema_refuses_an_unknown_version_and_statistic():
    record = fixture("stream-star")
    record["schema_version"] = "1.9"  # 1.2 is read (docs/results.md); 1.9 is not
    assert "schema_version" in schema_problem(record)
    record = fixture("mem-stride")
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
     "unknown suite 'memroy' (allowed: main, quick, memory, hpcc, comm); did you mean 'memory'?"),
    (["stram", "star"],
     "unknown command 'stram' (allowed: ra, stream, mem, dgemm, hpl, ptrans, fft, run, config, "
     "model, show, report, "
     "compare, sysinfo, list, contention, topology, simulate, congestion, comm, beff, pairs, "
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


# --- tables ----------------------------------------------------------------------------

def test_binary_sizes():
    assert [binary_size(value) for value in (8, 1024, 1536, 3 << 20, 1 << 30, None)] == [
        "8 B", "1 KiB", "1.5 KiB", "3 MiB", "1 GiB", "—"]


def test_stream_star_table():
    record = fixture("stream-star")
    text = rendered([record])
    assert "hpcprobe stream star: 2 copies × 1 thread, arrays of 128 MiB (4x_llc); " \
           "validation passed (0 ≤ 1e-13)" in text
    for kernel in KERNELS:
        single = max(next(metric["samples"] for metric in record["metrics"]
                          if metric["name"] == f"single_{kernel}_bandwidth")) / 1e9
        best = next(series["y"] for series in record["series"]
                    if series["name"] == f"star_{kernel}_best_bandwidth")
        mean = statistics.fmean(best) / 1e9
        assert row_of(text, kernel.capitalize()) == [
            kernel.capitalize(), f"{single:.4g}", f"{min(best) / 1e9:.4g}", f"{mean:.4g}",
            f"{max(best) / 1e9:.4g}", f"{sum(best) / 1e9:.4g}", f"{mean / single:.4g}"]
    assert row_of(text, "Triad") == ["Triad", "12.66", "7.66", "7.73", "7.8", "15.46", "0.6106"]


def test_stream_single_table_has_no_star_columns():
    text = rendered([fixture("stream-single")])
    assert row_of(text, "kernel") == ["kernel", "single GB/s (best)"]
    assert row_of(text, "Copy") == ["Copy", "11.61"]


def test_mem_stride_table_is_the_ratio_curve():
    text = rendered([fixture("mem-stride")])
    assert "hpcprobe mem stride (stride sweep, O3 build): 2 copies; validation passed " \
           "(0 ≤ 0)" in text
    assert row_of(text, "stride") == ["stride", "1 copy ns/access", "2 copies ns/access (mean)",
                                      "slowest copy ns/access", "many / one"]
    assert row_of(text, "8 B") == ["8 B", "0.35", "0.62", "0.6386", "1.771"]
    assert row_of(text, "4 KiB") == ["4 KiB", "7.9", "8.4", "8.652", "1.063"]


def test_mem_table_of_one_copy_and_missing_points():
    record = fixture("mem-stride")
    record["series"] = [record["series"][0]]
    record["series"][0]["y"][1] = None
    record["parameters"]["copies"] = 1
    text = rendered([record])
    assert row_of(text, "stride") == ["stride", "1 copy ns/access"]
    assert row_of(text, "16 B") == ["16 B", "—"]


def test_mem_latency_tables_name_the_plateaus():
    text = rendered([fixture("mem-latency")])
    assert "hpcprobe mem latency (pointer-chase latency, huge pages off): 2 copies" in text
    assert row_of(text, "64 MiB") == ["64 MiB", "88", "121", "123.4", "1.375"]
    assert row_of(text, "plateau") == ["plateau", "up to", "ns/access", "sysfs cache"]
    assert row_of(text, "1") == ["1", "32 KiB", "1.2", "L1d (32 KiB)"]
    assert row_of(text, "2") == ["2", "1 MiB", "4.1", "L2 (1 MiB)"]
    assert row_of(text, "3") == ["3", "16 MiB", "14.5", "L3 (32 MiB)"]
    assert row_of(text, "4") == ["4", "64 MiB", "88", "memory"]
    assert "one plateau each, of L1d 32 KiB, L2 1 MiB, L3 32 MiB; huge pages given: 0 B" in text


CACHES = [("L1d", 32768.0), ("L2", 1048576.0), ("L3", 33554432.0)]


def names_of(sizes, caches=CACHES):
    return [name[0] if name else None for name in cache_names(sizes, caches)]


def test_each_cache_names_its_nearest_plateau():
    assert names_of([32768, 1 << 20, 16 << 20]) == ["L1d", "L2", "L3"]
    # A curve measured on a VM: more plateaus than caches; the others stay unnamed.
    assert names_of([23450, 416154, 3059744, 10705960, 55207526]) == [
        "L1d", "L2", None, None, "L3"]
    # Fewer plateaus than caches: a plateau two caches chose keeps the nearer one.
    assert names_of([40000, 2 << 20]) == ["L1d", "L2"]
    assert names_of([40000, 24 << 20]) == ["L1d", "L3"]
    assert names_of([]) == [] and names_of([65536], []) == [None]


def test_hostile_records_do_not_crash_the_tables():
    record = fixture("mem-latency")
    record["parameters"].update(cache_l1d_bytes=None, cache_l2_bytes="big", copies="x")
    record["series"][0]["x"] = ["a", 2048]
    record["series"][-1]["y"] = [None, None, None, None]
    record["parameters"]["hugepages"] = "off\x1b[2J"
    stream = fixture("stream-star")
    stream["series"] = [{"name": "star_copy_best_bandwidth", "y": "no"}]
    stream["metrics"] = [{"name": "single_copy_bandwidth", "samples": [None, True, "1"]}]
    text = rendered([record, stream, golden("mpi")])
    assert "\x1b" not in text
    assert "one plateau each, of L3 32 MiB;" in text
    record["parameters"]["cache_l3_bytes"] = 0
    assert "sysfs gave no cache sizes" in rendered([record])
    assert row_of(text, "3") == ["3", "16 MiB", "—", "L3 (32 MiB)"]
    assert row_of(text, "1") == ["1", "32 KiB", "—", "—"]


def test_other_benchmarks_have_no_memory_tables():
    assert memory_tables([golden("single"), golden("mpi")]) == []


# --- HPCC summary ------------------------------------------------------------------------

def best_single(record, kernel):
    return max(next(metric["samples"] for metric in record["metrics"]
                    if metric["name"] == f"single_{kernel}_bandwidth")) / 1e9


def star_mean(record, kernel):
    return statistics.fmean(next(series["y"] for series in record["series"]
                                 if series["name"] == f"star_{kernel}_best_bandwidth")) / 1e9


def block(*lines):
    return "\n".join(["Begin of Summary section.", *lines, "End of Summary section."]) + "\n"


def summary(records):
    return measured_summary(hpcc_summary_text(records), records)


def test_hpcc_keys_of_a_stream_star_record():
    record = fixture("stream-star")
    assert summary([record]) == block(
        "Success=1", "CommWorldProcs=2", "MPI_Wtick=1.000000e-06",
        "STREAM_VectorSize=16777216", "STREAM_Threads=1",
        *[f"StarSTREAM_{k.capitalize()}={'%g' % star_mean(record, k)}" for k in KERNELS],
        *[f"SingleSTREAM_{k.capitalize()}={'%g' % best_single(record, k)}" for k in KERNELS])
    text = summary([record])
    assert "StarSTREAM_Copy=7.11\n" in text and "SingleSTREAM_Triad=12.66\n" in text


def test_single_keys_come_from_the_single_record_and_follow_randomaccess():
    star, single = fixture("stream-star"), fixture("stream-single")
    for metric in single["metrics"]:
        metric["samples"] = [rate * 1.5 for rate in metric["samples"]]
    text = summary([golden("single"), star, single, fixture("mem-latency")])
    keys = [line.split("=")[0] for line in text.splitlines()[1:-1]]
    assert keys == ["Success", "CommWorldProcs", "MPI_Wtick", "RandomAccess_N",
                    "SingleRandomAccess_GUPs", "STREAM_VectorSize", "STREAM_Threads",
                    "StarSTREAM_Copy", "StarSTREAM_Scale", "StarSTREAM_Add", "StarSTREAM_Triad",
                    "SingleSTREAM_Copy", "SingleSTREAM_Scale", "SingleSTREAM_Add",
                    "SingleSTREAM_Triad"]
    assert f"SingleSTREAM_Triad={'%g' % best_single(single, 'triad')}\n" in text
    assert f"StarSTREAM_Triad={'%g' % star_mean(star, 'triad')}\n" in text


def test_only_measured_stream_keys_and_a_failed_one():
    single = fixture("stream-single")
    single["status"] = "failed"
    single["validation"]["verdict"] = "failed"
    text = summary([single])
    assert "Success=0\n" in text and "StarSTREAM" not in text
    assert "SingleSTREAM_Copy=11.61\n" in text
    assert summary([fixture("mem-stride")]) == block()


# --- the memory suite --------------------------------------------------------------------

def test_memory_suite_steps():
    steps = suite_steps("memory")
    assert [step.name for step in steps] == [
        "stream single", "stream star", "mem stride", "mem stride block O3",
        "mem stride block O0", "mem latency hugepages off", "mem latency hugepages on"]
    assert [step.bench_options for step in steps] == [
        (), ("--copies", "all"), ("--sweep", "stride", "--copies", "all"),
        ("--sweep", "block", "--copies", "one", "--build-variant", "O3"),
        ("--sweep", "block", "--copies", "one", "--build-variant", "O0"),
        ("--hugepages", "off", "--copies", "all"), ("--hugepages", "on", "--copies", "all")]
    assert [step.ranks for step in steps] == [None, None, None, 1, 1, None, None]
    assert all(step.time_budget_s == 600.0 for step in steps)


def test_memory_suite_tiny():
    steps = suite_steps("memory", "tiny")
    assert steps[0].bench_options == ("--array-bytes", "1M", "--repeat", "2")
    assert steps[2].bench_options == ("--sweep", "stride", "--copies", "all", "--buffer-bytes",
                                      "256K", "--max-stride", "64K", "--min-time", "0.001",
                                      "--repeat", "2")
    assert steps[3].bench_options[-6:] == ("--min-time", "0.001", "--repeat", "2",
                                           "--build-variant", "O3")
    assert steps[6].bench_options == ("--hugepages", "on", "--copies", "all", "--max-bytes",
                                      "1M", "--min-time", "0.001", "--repeat", "2")


def test_quick_suite_is_unchanged():
    assert [step.name for step in suite_steps("quick", "tiny")] == [
        "ra single", "ra star", "ra mpi", "ra mpi hypercube"]
    assert describe_suite("quick") == (
        "quick: RandomAccess only: ra single, ra star, ra mpi, ra mpi hypercube; 3 repetitions "
        "each, table words per --scale: default 2^24, tiny 2^14; budget 300 s each")
    assert describe_suite("memory").startswith(
        "memory: stream single, stream star, mem stride, mem stride block O3, ")


# --- launches through the fake launcher ---------------------------------------------------

@pytest.fixture
def fake(tmp_path):
    bench = tmp_path / "bin" / "hpcprobe-bench"
    bench.parent.mkdir()
    # Launched only by the fake launcher; its description (the parsers') is the real one.
    bench.write_text(f"#!/bin/sh\n[ \"$1\" = describe ] && exec "
                     f"{shlex.quote(find_bench(os.environ))} \"$@\"\nexit 99\n")
    bench.chmod(0o755)

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


def test_show_prints_the_tables(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [fixture(name) for name in FIXTURES])
    completed = run_hpcprobe("show", str(path))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("hpcprobe mem latency") == 2  # curve and plateaus
    for word in ("star mean / single", "many / one", "memory"):
        assert word in completed.stdout
    completed = run_hpcprobe("show", str(path), "--format", "csv")
    assert completed.returncode == 0
    assert len(completed.stdout.splitlines()) == 1 + len(FIXTURES)


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
