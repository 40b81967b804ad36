"""The main job (`hpcprobe run`, `make run`) with the real hpcprobe-bench at --scale tiny:
on 1, 2 and 3 ranks every subsystem has validated records, the headline table has every
group, report.html opens in headless Chromium without console errors; Ctrl-C after the
second step still writes the report, naming the steps that are missing; a figure changed
by hand in a copied earlier run is flagged by the next run. Unit tests of the sizing, the
headline and run.json read as untrusted input."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser import chromium, visit
from helpers import golden, run_hpcprobe

from hpcprobe.suite.headline import SUBSYSTEMS, Figure, change, headline_rows
from hpcprobe.families.hpcc.headline import hpl_needed
from hpcprobe.suite.main_job import hpl_order, main_steps
from hpcprobe.results import read_records
from hpcprobe.suite.manifest import (MANIFEST_FILE, RunManifest, StepOutcome, find_earlier,
                                   machine_of, read_manifest)
from hpcprobe.suite.suites import DEFAULT_SUITE

SUBSYSTEM_BENCHMARKS = {
    "processor": {"dgemm", "hpl", "fft"},
    "memory": {"stream", "mem"},
    "interconnect": {"comm", "beff", "pairs"},
    "RandomAccess": {"ra"},
}
ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artifacts"


def run_tiny(out: Path, ranks: int, timeout: float = 300) -> subprocess.CompletedProcess:
    return run_hpcprobe("run", "--scale", "tiny", "--np", str(ranks), "--out", str(out),
                        timeout=timeout)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 8])
def test_the_main_job_covers_every_subsystem(tmp_path, ranks):
    out = tmp_path / "run"
    done = run_tiny(out, ranks)
    assert done.returncode == 0, done.stderr
    records = read_records(out / "results.jsonl").records
    benchmarks = {record["benchmark"] for record in records}
    for subsystem, names in SUBSYSTEM_BENCHMARKS.items():
        assert names <= benchmarks, f"{subsystem}: {names - benchmarks} missing"
    assert all(record["validation"]["verdict"] == "passed" for record in records)
    allreduce = [record for record in records if record["variant"] == "allreduce"]
    assert [record["layout"]["ranks"] for record in allreduce] == [max(2, ranks)]
    for group in SUBSYSTEMS:
        assert f"│ {group}" in done.stdout, f"no {group} group in the headline"
    # Against the machine's limits: the collectives against their bound from PingPong
    assert "of limit" in done.stdout and "Against the machine's limits" in done.stdout
    limits = json.loads((out / "limits.json").read_text())
    assert {"allreduce", "hpl"} <= {entry["variant"] if entry["benchmark"] == "comm" else
                                    entry["benchmark"] for entry in limits["records"]}
    assert f"limits: {out / 'limits.json'}" in done.stderr
    manifest = read_manifest(out)
    assert manifest is not None and manifest.suite == DEFAULT_SUITE
    assert [step.status for step in manifest.steps] == ["done"] * len(manifest.steps)
    report = out / "report.html"
    assert f"report: {report}" in done.stderr
    html = report.read_text()
    assert "The machine at a glance" in html and "missing" not in html.split("<h2")[0]
    assert "Limits and roofline" in html and "Roofline data" in html
    page = visit(chromium(), report, ARTIFACTS / f"main-job-{ranks}.png")
    assert page.console == [], page.console


def _wait_for_line(process: subprocess.Popen, prefix: str, timeout: float) -> list:
    """Lines of the process's stderr up to the one starting with `prefix`."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith(prefix):
            return seen
    pytest.fail(f"no line starting with {prefix!r} within {timeout} s: {''.join(seen)}")


def test_an_interrupted_run_still_writes_its_report(tmp_path):
    out = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "hpcprobe", "run", "--scale", "tiny", "--np", "2",
         "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_line(process, "[3/", 120)  # the second step is done
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    manifest = read_manifest(out)
    assert manifest is not None
    statuses = [step.status for step in manifest.steps]
    assert statuses[:2] == ["done", "done"]
    assert "not run" in statuses and "done" not in statuses[3:]
    html = (out / "report.html").read_text()
    assert "stopped by SIGINT" in html
    missing = [step.name for step in manifest.steps if step.status != "done"]
    assert all(name in html for name in missing)
    assert "hpcprobe: missing: ra mpi hypercube: not run (the run was stopped by SIGINT)" \
        in stderr
    kept = {record["benchmark"] + " " + record["variant"]
            for record in read_records(out / "results.jsonl").records}
    assert {"peak clock", "peak flops-single"} <= kept  # the first two steps


def test_failed_steps_do_not_stop_the_run_and_are_named_with_why(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, HPCPROBE_INJECT_FAULT="corrupt:1")  # the steps that can spoil
    done = run_hpcprobe("run", "--scale", "tiny", "--np", "2", "--out", str(out), env=env,
                        timeout=300)
    assert done.returncode == 1, done.stderr  # validation failed, nothing else
    manifest = read_manifest(out)
    failed = {step.name: step.why for step in manifest.steps if step.status == "failed"}
    assert "stream single" in failed and "failed validation" in failed["stream single"]
    assert "not run" not in [step.status for step in manifest.steps]
    assert any(step.status == "done" for step in manifest.steps)
    stream_line = next(line for line in done.stdout.splitlines() if "STREAM Triad, one" in line)
    assert "failed" in stream_line  # the headline shows the verdict, never a bare number
    html = (out / "report.html").read_text()
    assert "stream single: failed" in html


def test_make_run_is_the_readmes_first_command_and_runs_the_main_job():
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    first_block = readme.split("```")[1]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()[1:]
                if line.strip()]
    assert commands[:2] == ["make run", "make test"]
    makefile = (root / "Makefile").read_text()
    recipe = makefile.split("\nrun: build\n", 1)[1].splitlines()[0]
    assert "hpcprobe run" in recipe and "--suite" not in recipe


def _multiply_rate(path: Path, benchmark: str, variant: str, factor: float) -> None:
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["benchmark"] == benchmark and record["variant"] == variant:
            for metric in record["metrics"]:
                metric["samples"] = [value * factor for value in metric["samples"]]
            record["value"]["value"] *= factor
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


def test_a_figure_changed_by_hand_in_an_earlier_run_is_flagged(tmp_path):
    first, copy, second = tmp_path / "first", tmp_path / "copy", tmp_path / "second"
    assert run_tiny(first, 2).returncode == 0
    shutil.copytree(first, copy)
    _multiply_rate(copy / "results.jsonl", "ra", "single", 10.0)
    (copy / MANIFEST_FILE).touch()  # the newest earlier run
    done = run_tiny(second, 2)
    assert done.returncode == 0, done.stderr
    assert f"compared with the earlier run {copy.resolve()}" in done.stderr
    moved = next(line for line in done.stderr.splitlines() if "moved beyond" in line)
    ratio = re.search(r"RandomAccess single, one core ×([0-9.e+-]+)", moved)
    assert ratio is not None, moved
    # A tenth of the earlier, whatever the noise: a loaded machine slowed the second run
    # 6.5x once (0.0154), so the floor only refuses nonsense.
    assert 0.001 < float(ratio.group(1)) < 0.5
    assert "÷ copy" in done.stdout and "worse" in done.stdout


# --- units -------------------------------------------------------------------------------

def figure(*samples: float, unit: str = "B/s", higher: bool = True) -> Figure:
    return Figure("memory", "k", "label", unit, samples, "passed", higher)


def test_a_change_beyond_the_spread_moves_and_within_it_does_not():
    assert change(figure(100.0), figure(110.0)).moved          # 0.91: beyond 5 %
    assert not change(figure(100.0), figure(103.0)).moved       # within the 5 % floor
    wide = figure(80.0, 100.0, 120.0)                           # ±16 % spread
    assert not change(wide, figure(110.0)).moved
    assert change(figure(1.0, unit="s"), figure(1.0)) is None   # units differ


def test_headline_rows_say_better_or_worse_by_direction():
    rows = headline_rows([figure(2.0e-6, unit="s", higher=False)],
                         {"k": figure(1.0e-6, unit="s", higher=False)})
    assert rows[0][-2:] == ["2", "worse"]
    assert rows[0][2:4] == ["2", "µs"]


def test_hpl_is_time_boxed_and_capped_by_memory():
    # 50 GFLOP/s per rank on 2 ranks, 15 s at 0.8: N^3 = 1.5 * 15 * 0.8 * 1e11 = 1.8e12,
    # N = 12164, in whole blocks of 192: 12096.
    assert hpl_order(50e9, 2, 15.0, None) == 12096
    assert hpl_order(50e9, 2, 15.0, 3600) == 3456  # the cap's order, in whole blocks
    assert hpl_order(1.0, 1, 15.0, None) == 1000   # never below HPL_MIN_N


def test_the_n_hpl_would_need_follows_a_loss_that_falls_as_one_over_n():
    # 0.7 at N = 10000: k = 10000 * (1/0.7 - 1); 0.85 needs k / (1/0.85 - 1) = 24286.
    assert abs(hpl_needed(10000, 0.7) - 24285.7) < 1
    assert hpl_needed(10000, 0.9) is None and hpl_needed(0, 0.5) is None


def test_the_steps_need_two_ranks_for_the_interconnect_only():
    steps = main_steps("tiny", 1)
    assert {step.ranks for step in steps if step.benchmark in ("comm", "beff", "pairs")} == {2}
    others = [step for step in steps if step.benchmark not in ("comm", "beff", "pairs")]
    # the peak kernels' single variants run on one core whatever the ranks
    assert {step.ranks for step in others if not step.variant.endswith("-single")} == {None}
    assert {step.ranks for step in others if step.variant.endswith("-single")} == {1}


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "hpcprobe-run-1"}',
                                  '{"format": "hpcprobe-run-1", "suite": 1, "scale": "tiny", '
                                  '"ranks": 2, "repeat": 1}'])
def test_a_malformed_run_json_is_not_an_earlier_run(tmp_path, text):
    (tmp_path / MANIFEST_FILE).write_text(text)
    assert read_manifest(tmp_path) is None


def test_an_earlier_run_must_match_suite_scale_ranks_and_machine(tmp_path):
    record = golden("single")
    for name, scale in (("older", "tiny"), ("other-scale", "default")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text(json.dumps(record) + "\n")
        RunManifest("main", scale, 2, 1, [StepOutcome("ra single", "ra single")]).write(
            tmp_path / name)
    here = tmp_path / "now"
    here.mkdir()
    machine = machine_of([record])
    found = find_earlier(here, RunManifest("main", "tiny", 2, 1), machine)
    assert found is not None and found.path.name == "older"
    assert find_earlier(here, RunManifest("main", "tiny", 3, 1), machine) is None
    assert find_earlier(here, RunManifest("quick", "tiny", 2, 1), machine) is None
    assert find_earlier(here, RunManifest("main", "tiny", 2, 1), ("other",) + machine[1:]) \
        is None
