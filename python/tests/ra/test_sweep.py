"""`hpcprobe ra sweep`: look-ahead lists, bench argv, efficiency, the summary file;
with a fake launcher+bench, and once with the real binary when it has `hypercube`. Also
which `ra ceiling` record a figure is measured against."""

import json
import os
import shlex
import sys

import pytest
from helpers import TESTS, golden, read_jsonl, run_hpcprobe, stderr_lines

from hpcprobe.cli import main, parse_arguments
from hpcprobe.families.ra.options import SWEEP_LOOKAHEADS
from hpcprobe.families.ra.report import ceiling_for, ceiling_fraction, compare_label
from hpcprobe.families.ra.sweep import (
    SweepPoint,
    baseline_options,
    efficiency_percent,
    point_options,
    sweep_point,
)

FAKE = TESTS / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"


def sweep_args(*argv):
    return parse_arguments(["ra", "sweep", *argv])


def test_default_lookaheads_are_table_4():
    assert sweep_args().lookaheads == [1, 4, 16, 64, 256, 1024, 2048, 4096, 8192, 32768]
    assert list(SWEEP_LOOKAHEADS) == sweep_args().lookaheads


def test_lookahead_list_keeps_the_order_given():
    assert sweep_args("--lookahead", "64,1,32768").lookaheads == [64, 1, 32768]


@pytest.mark.parametrize("text, message", [
    ("", "--lookahead is empty; give a comma list of whole numbers from 1 to 32768, such as "
         "1,4,16,64"),
    ("1,4,x", "--lookahead takes a comma list of whole numbers from 1 to 32768, such as "
              "1,4,16,64; 'x' is not one"),
    ("0,4", "'0' is not one"),
    ("32769", "'32769' is not one"),
    ("1.5", "'1.5' is not one"),
    ("4,,16", "'' is not one"),
])
def test_bad_lookahead_lists_exit_2_before_anything_launches(tmp_path, text, message):
    argv_file = tmp_path / "argv.jsonl"
    env = dict(os.environ, FAKE_ARGV_FILE=str(argv_file))
    completed = run_hpcprobe("ra", "sweep", "--lookahead", text, "--launcher", TEMPLATE,
                             "--out", str(tmp_path / "out"), env=env)
    assert completed.returncode == 2
    lines = stderr_lines(completed)
    assert len(lines) == 1 and lines[0].startswith("hpcprobe: --lookahead ")
    assert message in lines[0]
    assert not argv_file.exists() and not (tmp_path / "out").exists()


def test_sweep_refuses_hpcc_summary(capsys):
    assert main(["ra", "sweep", "--hpcc-summary"]) == 2
    assert "not to 'ra sweep'" in capsys.readouterr().err


def test_point_argv_adds_allow_noncompliant_over_1024_and_the_defaults():
    args = sweep_args("--np", "4", "--rng", "lcg", "--mods", "none")
    assert point_options(args, 64) == [
        "--algo", "hypercube", "--lookahead", "64", "--rng", "lcg", "--mods", "none",
        "--table-log2", "20", "--time-limit", "5"]
    assert point_options(args, 2048)[:5] == [
        "--algo", "hypercube", "--lookahead", "2048", "--allow-noncompliant"]
    assert point_options(args, 1024).count("--allow-noncompliant") == 0


def test_given_table_and_time_limit_replace_the_defaults():
    args = sweep_args("--algo", "torus", "--memory-fraction", "0.25", "--time-limit", "60",
                      "--grid", "2x2", "--repeat", "3", "--allow-noncompliant")
    assert point_options(args, 16) == [
        "--algo", "torus", "--lookahead", "16", "--memory-fraction", "0.25", "--time-limit",
        "60", "--repeat", "3", "--grid", "2x2"]
    # One rank has no 2x2 grid: the baseline leaves the grid to the bench.
    assert baseline_options(args) == [
        "--algo", "torus", "--lookahead", "1024", "--memory-fraction", "0.25", "--time-limit",
        "60", "--repeat", "3"]


def record(ranks, gups, lookahead, compliant=True):
    result = golden("mpi")
    result["algorithm"] = "hypercube"
    result["layout"]["ranks"] = ranks
    result["value"]["value"] = gups * 1e9
    result["parameters"]["lookahead"] = lookahead
    result["compliant"] = compliant
    return result


def test_efficiency_is_gups_over_p_times_the_1_rank_rate():
    # Plimpton et al., Table 4: 0.158 GUPS on 32 processors at Q = 1024, against 0.0180.
    assert efficiency_percent(0.158, 32, 0.0180) == pytest.approx(27.4, abs=0.05)
    assert efficiency_percent(0.223, 32, 0.0180) == pytest.approx(38.7, abs=0.05)
    assert efficiency_percent(0.1, 32, None) is None
    assert efficiency_percent(0.1, 32, 0.0) is None
    assert efficiency_percent(None, 32, 0.018) is None


def test_points_from_synthetic_records():
    baseline = sweep_point(1024, record(1, 0.0180, 1024), None)
    assert baseline.gups == pytest.approx(0.0180)
    point = sweep_point(8192, record(32, 0.223, 8192, compliant=False), baseline.gups)
    assert point == SweepPoint(8192, 32, pytest.approx(0.223), pytest.approx(38.71, abs=0.01),
                               False, "passed", 65536)
    assert sweep_point(4, None, baseline.gups) == SweepPoint(4, None, None, None, None, None,
                                                             None)
    hostile = record(32, 0.1, 4)
    hostile["layout"]["ranks"] = "32"
    hostile["compliant"] = "yes"
    assert sweep_point(4, hostile, 0.018).efficiency_percent is None
    assert sweep_point(4, hostile, 0.018).compliant is None


def test_sweep_through_a_fake_bench(tmp_path):
    argv_file, out = tmp_path / "argv.jsonl", tmp_path / "out"
    env = dict(os.environ, FAKE_ARGV_FILE=str(argv_file))
    completed = run_hpcprobe("ra", "sweep", "--np", "4", "--lookahead", "16,2048",
                             "--launcher", TEMPLATE, "--out", str(out), env=env)
    assert completed.returncode == 0, completed.stderr
    launched = [entry["argv"] for entry in read_jsonl(argv_file)]
    results = str(out / "results.jsonl")
    assert [argv[1] for argv in launched] == ["1", "4", "4"]
    assert [argv[3:] for argv in launched] == [
        ["ra", "mpi", "--algo", "hypercube", "--lookahead", "1024", "--table-log2", "20",
         "--time-limit", "5", "--out", results],
        ["ra", "mpi", "--algo", "hypercube", "--lookahead", "16", "--table-log2", "20",
         "--time-limit", "5", "--out", results],
        ["ra", "mpi", "--algo", "hypercube", "--lookahead", "2048", "--allow-noncompliant",
         "--table-log2", "20", "--time-limit", "5", "--out", results],
    ]
    assert len(read_jsonl(out / "results.jsonl")) == 3
    summary = json.loads((out / "ra-sweep.json").read_text())
    assert summary["algorithm"] == "hypercube" and summary["procs"] == 4
    # The fake writes the golden record every time: 4 ranks at 0.0131072 GUPS.
    assert summary["baseline"]["gups"] == pytest.approx(0.0131072)
    assert [point["lookahead"] for point in summary["points"]] == [16, 2048]
    assert [point["efficiency_percent"] for point in summary["points"]] == [25.0, 25.0]
    assert "[1/3] ra mpi hypercube Q=1024 on 1 rank (baseline) ..." in completed.stderr
    assert "[3/3] ra mpi hypercube Q=2048 on 4 ranks ..." in completed.stderr
    assert "hpcprobe ra sweep: hypercube" in completed.stdout


def test_bench_refusing_its_input_stops_the_sweep(tmp_path):
    argv_file = tmp_path / "argv.jsonl"
    env = dict(os.environ, FAKE_ARGV_FILE=str(argv_file), FAKE_MODE="bad")
    completed = run_hpcprobe("ra", "sweep", "--np", "2", "--launcher", TEMPLATE, "--quiet",
                             "--out", str(tmp_path / "out"), env=env)
    assert completed.returncode == 2
    assert len(read_jsonl(argv_file)) == 1
    assert stderr_lines(completed) == [
        "hpcprobe-bench: --table-log2 60 is out of range (allowed: 4..50)"]


def test_a_failed_point_is_reported_and_the_sweep_goes_on(tmp_path):
    env = dict(os.environ, FAKE_MODE="die")
    completed = run_hpcprobe("ra", "sweep", "--np", "2", "--lookahead", "1,4",
                             "--launcher", TEMPLATE, "--quiet", "--out", str(tmp_path), env=env)
    assert completed.returncode == 3
    assert stderr_lines(completed)[-1].startswith("hpcprobe: 3 of 3 sweep launches failed: ")
    summary = json.loads((tmp_path / "ra-sweep.json").read_text())
    assert [point["gups"] for point in summary["points"]] == [None, None]


def test_real_small_sweep(tmp_path):
    completed = run_hpcprobe("ra", "sweep", "--np", "2", "--lookahead", "1,64,2048",
                             "--table-log2", "12", "--out", str(tmp_path), "--quiet",
                             timeout=300)
    assert completed.returncode == 0, completed.stderr
    records = read_jsonl(tmp_path / "results.jsonl")
    assert [r["parameters"]["lookahead"] for r in records] == [1024, 1, 64, 2048]
    assert [r["layout"]["ranks"] for r in records] == [1, 2, 2, 2]
    assert {r["algorithm"] for r in records} == {"hypercube"}
    assert [r["compliant"] for r in records] == [True, True, True, False]
    assert all(r["validation"]["verdict"] == "passed" for r in records)
    summary = json.loads((tmp_path / "ra-sweep.json").read_text())
    assert all(point["efficiency_percent"] > 0 for point in summary["points"])
    assert "Q" in completed.stdout and "efficiency" in completed.stdout


def ceiling(gups, loop, finished_at):
    result = golden("mpi")
    result["variant"], result["algorithm"] = "ceiling", "owned"
    result["value"]["value"] = gups * 1e9
    for metric in result["metrics"]:
        if metric["name"] == "update_rate":
            metric["samples"] = [gups * 1e9]
    result["parameters"]["update_loop"] = loop
    result["finished_at"] = finished_at
    return result


def test_the_yardstick_is_the_prefetching_ceiling_never_the_plain_loop():
    """A plain-loop ceiling is HPCC's loop, not the machine's limit: an mpi record is
    measured against the newest prefetching ceiling of its table and ranks, even when a
    plain one is newer, and has no ceiling when only plain ones exist."""
    measured = record(4, 0.4, 1024)
    measured["parameters"]["table_log2"] = 14
    for metric in measured["metrics"]:
        if metric["name"] == "update_rate":
            metric["samples"] = [0.4e9]
    prefetch = ceiling(0.5, "prefetch", "2026-11-28T05:00:00Z")
    plain = ceiling(0.25, "plain", "2026-11-28T06:00:00Z")
    assert ceiling_for(measured, [measured, prefetch, plain]) is prefetch
    assert ceiling_fraction(measured, [measured, prefetch, plain]) == pytest.approx(0.8)
    assert ceiling_for(measured, [measured, plain]) is None
    assert compare_label(golden("single") | {"parameters": {"update_loop": "plain"}}) == \
        "plain loop"
