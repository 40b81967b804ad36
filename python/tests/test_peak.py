"""`hpcprobe peak`: the command line built from the bench's description (a kernel word
and a variant become the bench's two-word variant; an option of another kernel, a
variant without a kernel, --np without a kernel are one line each), the table of the
machine's limits from made-up records ("unknown" where a record says nothing), the
suite's steps, and short real runs whose records validate."""

import json

import pytest

from helpers import read_jsonl, run_hpcprobe, stderr_lines
from hpcprobe.families.peak.options import bench_variant
from hpcprobe.families.peak.tables import peak_tables
from hpcprobe.suite.peak_steps import peak_steps
from rich.console import Console


def _text(records):
    console = Console(width=200, record=True)
    for table in peak_tables(records):
        console.print(table)
    return console.export_text()


@pytest.mark.parametrize("kernel, variant, joined", [
    ("flops", None, "flops-single"), ("flops", "star", "flops-star"),
    ("bandwidth", "single", "bandwidth-single"), ("clock", None, "clock")])
def test_the_bench_variant_of_two_words(kernel, variant, joined):
    assert bench_variant(kernel, variant) == joined


@pytest.mark.parametrize("args, says", [
    (("peak", "star"), "unknown kernel 'star' (allowed: flops, bandwidth, clock)"),
    (("peak", "--isa", "avx2"), "--isa applies to one kernel"),
    (("peak", "--np", "2"), "--np applies to one kernel"),
    (("peak", "clock", "star"), "'peak clock' has no variant"),
    (("peak", "bandwidth", "--precision", "single"), "--precision applies to"),
    (("peak", "flops", "--chains", "0"), "--chains"),
    (("peak", "memory"), "unknown kernel 'memory'"),
])
def test_bad_input_is_one_line_and_launches_nothing(tmp_path, args, says):
    done = run_hpcprobe(*args, "--out", str(tmp_path / "out"))
    lines = stderr_lines(done)
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert says in lines[0]
    assert not (tmp_path / "out").exists()


def _flops(variant, precision, rate, theoretical, per_cycle=16.0):
    return {"benchmark": "peak", "variant": variant, "algorithm": "avx512",
            "parameters": {"precision": precision, "peak_theoretical": theoretical,
                           "flops_per_cycle": per_cycle},
            "metrics": [{"name": "flop_rate", "unit": "flop/s", "samples": [rate / 2, rate]}]}


def test_the_table_shows_each_limit_and_unknown_where_missing():
    records = [_flops("flops-single", "double", 50e9, 60e9),
               _flops("flops-star", "double", 95e9, 120e9),
               {"benchmark": "peak", "variant": "clock", "algorithm": "add-chain",
                "parameters": {"memory_bandwidth_theoretical": None,
                               "memory_bandwidth_source": "unknown: no SMBIOS entries",
                               "link_rate_eth0": 12.5e9},
                "metrics": [{"name": "clock_rate", "unit": "Hz", "samples": [3.6e9]}],
                "counters": {"rank_clock_rate": [3.6e9, 3.5e9]}}]
    text = _text(records)
    assert "60" in text and "120" in text and "95" in text  # theoretical, star, measured
    assert "unknown: no SMBIOS entries" in text
    assert "link eth0" in text and "12.5" in text
    assert "single, theoretical" not in text  # no single-precision record: no row
    assert peak_tables([]) == []


def test_the_suites_steps_run_single_on_one_rank():
    for use in ("full", "main", "tiny"):
        steps = peak_steps(use)
        assert [s.variant for s in steps][:3] == ["clock", "flops-single", "flops-star"]
        assert all(s.benchmark == "peak" for s in steps)
        assert all((s.ranks == 1) == s.variant.endswith("-single") for s in steps)
        precisions = [s.bench_options for s in steps if "--precision" in s.bench_options]
        assert len(precisions) == 2  # single precision on one core and on every rank


def test_a_short_run_of_each_kernel_validates(tmp_path):
    out = tmp_path / "out"
    for args in (("flops", "single", "--min-time", "0.01", "--repeat", "2"),
                 ("flops", "star", "--np", "2", "--min-time", "0.01", "--repeat", "2"),
                 ("clock", "--np", "2", "--repeat", "2"),
                 ("bandwidth", "single", "--levels", "l1", "--min-time", "0.005",
                  "--repeat", "2")):
        done = run_hpcprobe("peak", *args, "--out", str(out), "--quiet", timeout=180)
        assert done.returncode == 0, done.stderr
    records = read_jsonl(out / "results.jsonl")
    assert [r["variant"] for r in records] == ["flops-single", "flops-star", "clock",
                                              "bandwidth-single"]
    assert all(r["validation"]["verdict"] == "passed" for r in records)
    assert "the machine's own limits" in done.stdout and "load, l1" in done.stdout
    assert json.dumps(records)  # plain JSON, as read


def test_the_headline_sets_the_fma_peak_beside_its_theoretical_peak():
    from hpcprobe.families.peak.headline import peak_headline
    record = _flops("flops-single", "double", 50e9, 64e9)
    record["validation"] = {"verdict": "passed"}
    (figure,) = peak_headline([record, _flops("flops-single", "single", 90e9, 128e9)])
    assert figure.value == 50e9 and figure.verdict == "passed"
    assert figure.of_limit == pytest.approx(50 / 64)
    assert "one core" in figure.label and "double" in figure.label
