"""The memory family with the real hpcprobe-bench: STREAM single/star, the read+write
stride and block kernels at -O3 and -O0, and the pointer chase, on 1-4 ranks
(oversubscribed on 2 cores), one copy and all copies at once. Every record validates
against the schema and says its validation passed; a corrupted array, buffer or chase
fails validation; bad input is one line with exit status 2."""

import json

import pytest
from integration import run_bench

from hpcprobe.results import read_records

TINY = {
    ("stream", "single"): ("--array-bytes", "64K", "--repeat", "3"),
    ("stream", "star"): ("--array-bytes", "64K", "--repeat", "3"),
    ("mem", "stride"): ("--buffer-bytes", "64K", "--max-stride", "16K", "--min-time", "0.0005",
                        "--repeat", "2"),
    ("mem", "latency"): ("--max-bytes", "64K", "--min-time", "0.0005", "--repeat", "2"),
}


def run_records(tmp_path, family, variant, np, *options, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    completed = run_bench(family, variant, "--quiet", "--out", str(out), "--oversubscribe",
                          *TINY[(family, variant)], *options, np=np, timeout=120,
                          extra_env=extra_env)
    assert completed.returncode == rc, completed.stderr
    found = read_records(out)
    assert found.problems == []   # every record validates against the schema
    return found.records


def series(record, name):
    return next(s for s in record["series"] if s["name"] == name)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_stream_star_on_every_rank(tmp_path, ranks):
    (record,) = run_records(tmp_path, "stream", "star", ranks)
    assert record["validation"]["verdict"] == "passed"
    assert record["value"]["metric"] == "star_triad_bandwidth"
    assert record["value"]["statistic"] == "max"
    best = series(record, "star_triad_best_bandwidth")
    assert best["x"] == list(range(ranks)) and all(y > 0 for y in best["y"])
    names = {m["name"] for m in record["metrics"]}
    assert {"single_copy_bandwidth", "star_triad_bandwidth"} <= names
    copy = next(m for m in record["metrics"] if m["name"] == "single_copy_bandwidth")
    assert len(copy["samples"]) == 2 and len(copy["warmup"]) == 1
    assert len(record["counters"]["cpus"]) == ranks


def test_stream_single_alone_has_no_star_figures(tmp_path):
    (record,) = run_records(tmp_path, "stream", "single", 2)
    assert record["parameters"]["copies"] == 1
    assert not any(m["name"].startswith("star_") for m in record["metrics"])
    assert "series" not in record


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("variant", ["O3", "O0"])
def test_stride_all_copies(tmp_path, ranks, variant):
    (record,) = run_records(tmp_path, "mem", "stride", ranks, "--copies", "all",
                            "--build-variant", variant)
    assert record["validation"]["verdict"] == "passed"
    assert record["parameters"]["build_variant"] == variant
    assert f"-{variant}" in record["parameters"]["build_flags"]
    one = series(record, "time_per_access_one")
    assert one["x"] == [8 * 2 ** k for k in range(12)]     # 8 B .. 16 KiB
    assert all(len(s) == 2 for s in one["samples"])
    if ranks == 1:
        assert "time_per_access_many" not in [s["name"] for s in record["series"]]
    else:
        ratio = series(record, "many_over_one_ratio")
        many, single = series(record, "time_per_access_many"), one
        for r, m, o in zip(ratio["y"], many["y"], single["y"]):
            assert r == pytest.approx(m / o)


def test_block_sweep(tmp_path):
    (record,) = run_records(tmp_path, "mem", "stride", 1, "--sweep", "block", "--min-bytes",
                            "1K", "--max-bytes", "32K")
    assert record["parameters"]["sweep"] == "block"
    assert series(record, "time_per_access_one")["x"] == [1024 * 2 ** k for k in range(6)]
    assert record["value"]["metric"] == "time_per_access_largest_block"


@pytest.mark.parametrize("ranks", [1, 3])
def test_latency_with_and_without_huge_pages(tmp_path, ranks):
    for pages in ("off", "on"):
        (tmp_path / pages).mkdir()
        (record,) = run_records(tmp_path / pages, "mem", "latency", ranks, "--copies", "all",
                                "--hugepages", pages)
        assert record["validation"]["verdict"] == "passed"
        assert record["parameters"]["hugepages"] == pages
        xs = series(record, "time_per_access_one")["x"]
        assert xs[0] == 1024 and xs[-1] == 65536 and len(xs) == 13   # 2 per octave
        assert record["value"]["metric"] == "memory_latency"
        plateaus = series(record, "plateau_latency")
        assert plateaus["x"] == sorted(plateaus["x"])
        assert all(1024 <= x <= 65536 for x in plateaus["x"]) and all(plateaus["y"])
        if pages == "off":
            assert record["counters"]["hugepage_bytes_rank0"] == 0


@pytest.mark.parametrize("family,variant", list(TINY))
def test_corruption_fails_validation(tmp_path, family, variant):
    (record,) = run_records(tmp_path, family, variant, 2, rc=1,
                            extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    assert record["validation"]["verdict"] == "failed"
    assert record["status"] == "failed"


BAD = [
    (("stream", "star", "--array-bytes", "0"), "--array-bytes must be a positive size"),
    (("stream", "star", "--array-bytes", "-4M"), "--array-bytes must be a positive size"),
    (("mem", "stride", "--buffer-bytes", "1M", "--max-stride", "2M"), "larger than the buffer"),
    (("mem", "latency", "--max-bytes", "64T"), "over the memory cap"),
    (("mem", "stride", "--copies", "3"), "more copies than launched ranks"),
    (("mem", "latency", "--copies", "2"), "would share cores"),
    (("mem", "latency", "--threads", "2"), "--threads does not apply to mem latency"),
    (("mem", "stride", "--build-variant", "O2"), "--build-variant"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_input_is_one_line(argv, message):
    # Two ranks on a machine where they fit; "would share cores" needs more copies
    # than cores, so that case launches one rank per core plus one.
    np = 2
    if message == "would share cores":
        import os
        np = (os.cpu_count() or 1) + 1
        argv = argv[:3] + ("all",) + argv[4:]
    completed = run_bench(*argv, np=np, timeout=60)
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], completed.stderr
    assert completed.stdout.strip() == ""


def test_list_names_the_memory_kernels():
    listing = run_bench("list").stdout
    for words in (("stream", "single"), ("stream", "star"), ("mem", "stride"),
                  ("mem", "latency")):
        assert any(line.split()[:2] == list(words) for line in listing.splitlines())
    assert json.loads(run_bench("sysinfo").stdout)["ranks"] == 1
