"""The memory families' tables and HPCC keys from hand-written records (data/stream-*.json,
data/mem-*.json), the memory suite's steps, and `hpcprobe show` of the records: no launch.
Launches and command-line mistakes are test_memory.py's."""

import statistics

from helpers import (MEMORY_RECORDS, golden, measured_summary, record_of, run_hpcprobe,
                     write_jsonl)
from rich.console import Console

from hpcprobe.hpcc_summary.summary import hpcc_summary_text
from hpcprobe.units import binary_size
from hpcprobe.families.memory.tables import cache_names, memory_tables
from hpcprobe.suite.suites import describe_suite, suite_steps

KERNELS = ("copy", "scale", "add", "triad")


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


# --- tables ----------------------------------------------------------------------------

def test_binary_sizes():
    assert [binary_size(value) for value in (8, 1024, 1536, 3 << 20, 1 << 30, None)] == [
        "8 B", "1 KiB", "1.5 KiB", "3 MiB", "1 GiB", "—"]


def test_stream_star_table():
    record = record_of("stream-star")
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
    text = rendered([record_of("stream-single")])
    assert row_of(text, "kernel") == ["kernel", "single GB/s (best)"]
    assert row_of(text, "Copy") == ["Copy", "11.61"]


def test_mem_stride_table_is_the_ratio_curve():
    text = rendered([record_of("mem-stride")])
    assert "hpcprobe mem stride (stride sweep, O3 build): 2 copies; validation passed " \
           "(0 ≤ 0)" in text
    assert row_of(text, "stride") == ["stride", "1 copy ns/access", "2 copies ns/access (mean)",
                                      "slowest copy ns/access", "many / one"]
    assert row_of(text, "8 B") == ["8 B", "0.35", "0.62", "0.6386", "1.771"]
    assert row_of(text, "4 KiB") == ["4 KiB", "7.9", "8.4", "8.652", "1.063"]


def test_mem_table_of_one_copy_and_missing_points():
    record = record_of("mem-stride")
    record["series"] = [record["series"][0]]
    record["series"][0]["y"][1] = None
    record["parameters"]["copies"] = 1
    text = rendered([record])
    assert row_of(text, "stride") == ["stride", "1 copy ns/access"]
    assert row_of(text, "16 B") == ["16 B", "—"]


def test_mem_latency_tables_name_the_plateaus():
    text = rendered([record_of("mem-latency")])
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
    record = record_of("mem-latency")
    record["parameters"].update(cache_l1d_bytes=None, cache_l2_bytes="big", copies="x")
    record["series"][0]["x"] = ["a", 2048]
    record["series"][-1]["y"] = [None, None, None, None]
    record["parameters"]["hugepages"] = "off\x1b[2J"
    stream = record_of("stream-star")
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
    record = record_of("stream-star")
    assert summary([record]) == block(
        "Success=1", "CommWorldProcs=2", "MPI_Wtick=1.000000e-06",
        "STREAM_VectorSize=16777216", "STREAM_Threads=1",
        *[f"StarSTREAM_{k.capitalize()}={'%g' % star_mean(record, k)}" for k in KERNELS],
        *[f"SingleSTREAM_{k.capitalize()}={'%g' % best_single(record, k)}" for k in KERNELS])
    text = summary([record])
    assert "StarSTREAM_Copy=7.11\n" in text and "SingleSTREAM_Triad=12.66\n" in text


def test_single_keys_come_from_the_single_record_and_follow_randomaccess():
    star, single = record_of("stream-star"), record_of("stream-single")
    for metric in single["metrics"]:
        metric["samples"] = [rate * 1.5 for rate in metric["samples"]]
    text = summary([golden("single"), star, single, record_of("mem-latency")])
    keys = [line.split("=")[0] for line in text.splitlines()[1:-1]]
    assert keys == ["Success", "CommWorldProcs", "MPI_Wtick", "RandomAccess_N",
                    "SingleRandomAccess_GUPs", "STREAM_VectorSize", "STREAM_Threads",
                    "StarSTREAM_Copy", "StarSTREAM_Scale", "StarSTREAM_Add", "StarSTREAM_Triad",
                    "SingleSTREAM_Copy", "SingleSTREAM_Scale", "SingleSTREAM_Add",
                    "SingleSTREAM_Triad"]
    assert f"SingleSTREAM_Triad={'%g' % best_single(single, 'triad')}\n" in text
    assert f"StarSTREAM_Triad={'%g' % star_mean(star, 'triad')}\n" in text


def test_only_measured_stream_keys_and_a_failed_one():
    single = record_of("stream-single")
    single["status"] = "failed"
    single["validation"]["verdict"] = "failed"
    text = summary([single])
    assert "Success=0\n" in text and "StarSTREAM" not in text
    assert "SingleSTREAM_Copy=11.61\n" in text
    assert summary([record_of("mem-stride")]) == block()


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


def test_show_prints_the_tables(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [record_of(name) for name in MEMORY_RECORDS])
    completed = run_hpcprobe("show", str(path))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("hpcprobe mem latency") == 2  # curve and plateaus
    for word in ("star mean / single", "many / one", "memory"):
        assert word in completed.stdout
    completed = run_hpcprobe("show", str(path), "--format", "csv")
    assert completed.returncode == 0
    assert len(completed.stdout.splitlines()) == 1 + len(MEMORY_RECORDS)


