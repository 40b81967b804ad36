"""`hpcprobe-bench peak bandwidth single|star` with the real binary: records the reader
accepts, with a metric per kernel and level, the rules of the sizes, the ranks' own rates;
a spoilt result fails validation; bad input is one line. Short runs (l1 and memory, 0.01 s
a repetition)."""

import platform
import re

import pytest
from integration import only_record, run_bench

SHORT = ("--levels", "l1,memory", "--min-time", "0.01", "--repeat", "2", "--quiet")
KERNELS = ("load", "copy", "triad")
LACKING = "neon" if re.search("x86|amd64", platform.machine(), re.I) else "avx512"


def _run(tmp_path, variant, *options, np=None, fault=None):
    out = tmp_path / "results.jsonl"
    env = {"HPCPROBE_INJECT_FAULT": fault} if fault else {}
    done = run_bench("peak", "bandwidth", variant, *SHORT, *options, "--out", str(out), np=np,
                     extra_env=env, timeout=120)
    return done, out


def test_single_records_each_kernel_at_each_level(tmp_path):
    done, out = _run(tmp_path, "single")
    assert done.returncode == 0, done.stderr
    record = only_record(out)
    assert (record["benchmark"], record["variant"]) == ("peak", "bandwidth-single")
    assert record["algorithm"] in ("avx512", "avx2", "sse2", "neon", "scalar")
    names = {metric["name"] for metric in record["metrics"]}
    assert names == {f"{k}_bandwidth_{level}" for k in KERNELS for level in ("l1", "memory")}
    assert record["value"]["metric"] == "load_bandwidth_l1"
    assert record["value"]["statistic"] == "max" and record["value"]["value"] > 0
    parameters = record["parameters"]
    assert parameters["levels"] == "l1,memory" and parameters["kernels"] == "load,copy,triad"
    assert parameters["working_set_bytes_l1"] < parameters["working_set_bytes_memory"]
    assert parameters["size_rule_l1"].startswith("half of")
    assert record["validation"]["verdict"] == "passed"
    series = {s["name"]: s for s in record["series"]}
    assert series["bandwidth_copy"]["x"] == [parameters["working_set_bytes_l1"],
                                            parameters["working_set_bytes_memory"]]


def test_star_sums_the_ranks_and_keeps_each_ranks_rate(tmp_path):
    done, out = _run(tmp_path, "star", "--kernels", "copy", np=2)
    assert done.returncode == 0, done.stderr
    record = only_record(out)
    assert record["variant"] == "bandwidth-star" and record["parameters"]["copies"] == 2
    ranks = record["counters"]["rank_copy_bandwidth_l1"]
    assert len(ranks) == 2 and min(ranks) > 0
    metric = next(m for m in record["metrics"] if m["name"] == "copy_bandwidth_l1")
    # the sum over the ranks over the slowest one's time: at most the ranks' own bests
    assert 0 < max(metric["samples"]) <= sum(ranks) * 1.000001


@pytest.mark.parametrize("fault", ["corrupt:1", "nan:1"])
def test_a_spoilt_result_fails_validation(tmp_path, fault):
    done, out = _run(tmp_path, "single", "--kernels", "triad", fault=fault)
    assert done.returncode == 1, done.stderr
    record = only_record(out)
    assert record["validation"]["verdict"] == "failed"
    assert "triad at memory" in record["validation"]["detail"]


@pytest.mark.parametrize("options, says", [
    (["--isa", LACKING], r"lacks it \(allowed here: auto"),
    (["--working-set", "64K"], r"exclude each other"),
    (["--kernels", "stream"], r"--kernels"),
])
def test_bad_input_is_one_line(tmp_path, options, says):
    done, out = _run(tmp_path, "single", *options)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and re.search(says, lines[0]), lines
