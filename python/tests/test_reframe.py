"""contrib/reframe run end to end by the real `reframe` (reframe-hpc from the test extra),
with its local site config (the local scheduler, mpiexec): every check passes in both
launch modes, its performance variables are the figures of hpcprobe's records, and a
failed hpcprobe validation fails ReFrame's sanity."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REFRAME_DIR = Path(__file__).resolve().parents[2] / "contrib" / "reframe"
CONFIG = REFRAME_DIR / "config" / "local.py"
CHECKS = REFRAME_DIR / "checks"
# hpcprobe, hpcprobe-bench, mpiexec and reframe: the venv running the tests.
VENV_BIN = Path(sys.executable).parent
LAUNCH_MODES = ("reframe", "hpcprobe")
CHECK_CLASSES = {"hpcprobe_stream_single_check", "hpcprobe_stream_star_check",
                 "hpcprobe_comm_check", "hpcprobe_ra_check", "hpcprobe_hpl_check",
                 "hpcprobe_dgemm_check"}
# Each performance variable, and a range that any working run falls in (the unit's).
SENSIBLE = {
    "copy": (0.1, 10_000), "scale": (0.1, 10_000), "add": (0.1, 10_000),
    "triad": (0.1, 10_000),                  # GB/s
    "latency": (0.01, 10_000), "time_largest": (0.01, 1e6),  # us
    "bandwidth": (1, 1e6),                   # MB/s
    "gups": (1e-5, 100),                     # GUPS
    "gflops": (0.01, 1e5),                   # Gflop/s
}
UNITS = {"copy": "GB/s", "scale": "GB/s", "add": "GB/s", "triad": "GB/s", "latency": "us",
         "time_largest": "us", "bandwidth": "MB/s", "gups": "GUPS", "gflops": "Gflop/s"}
FAULT = "corrupt:5000"  # over 1 % of the RandomAccess table; any word for STREAM, comm


def reframe_program() -> Path:
    program = VENV_BIN / "reframe"
    assert program.is_file(), (f"{program} is missing: reframe-hpc is in the test extra "
                               "(pip install '.[test]', which `make build` runs)")
    return program


def reframe(prefix: Path, *args: str) -> subprocess.CompletedProcess:
    """`reframe -C local.py -c checks ARGS` in `prefix` (its files go there too)."""
    prefix.mkdir(parents=True)
    argv = [str(reframe_program()), "-C", str(CONFIG), "-c", str(CHECKS),
            "--prefix", str(prefix), *args]
    env = dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               TMPDIR=str(prefix), HOME=str(prefix))
    return subprocess.run(argv, cwd=prefix, env=env, capture_output=True, text=True,
                          timeout=240, stdin=subprocess.DEVNULL)


def run_reframe(prefix: Path, *args: str) -> tuple:
    """`reframe ... -r ARGS`: what it printed, and its run report."""
    report = prefix / "report.json"
    completed = reframe(prefix, "-r", "--report-file", str(report), *args)
    assert report.is_file(), completed.stdout[-4000:] + completed.stderr[-4000:]
    return completed, json.loads(report.read_text())


def cases(report: dict) -> list:
    """Each test case's last attempt (a retried case is in the report once per attempt)."""
    last = {}
    for run in report["runs"]:
        for case in run["testcases"]:
            key = (case["display_name"], case["system"], case["partition"], case["environ"])
            last[key] = case
    return list(last.values())


def perf(case: dict) -> dict:
    """Each performance variable: (value, reference, lower, upper, unit, result)."""
    prefix = f"{case['system']}:{case['partition']}:"
    return {key[len(prefix):]: values for key, values in case["perfvalues"].items()}


def kept_records(case: dict) -> list:
    """The records the run wrote, kept in the case's output directory."""
    outdir = Path(case["outputdir"])
    path = outdir / ("hpcprobe-out/results.jsonl" if case["launched_by"] == "hpcprobe"
                     else "results.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def job_errors(case: dict) -> str:
    """The end of what the case's job printed on stderr, to say why it failed."""
    path = Path(case["outputdir"]) / "rfm_job.err"
    return path.read_text()[-2000:] if path.is_file() else f"(no {path})"


@pytest.fixture(scope="module")
def passing_run(tmp_path_factory):
    # Up to two retries: the references catch a broken run, but this machine is shared.
    completed, report = run_reframe(tmp_path_factory.mktemp("rfm") / "pass",
                                    "-P", "launched_by=reframe,hpcprobe", "--max-retries", "2")
    return completed, report


def test_every_check_passes_in_both_launch_modes(passing_run):
    completed, report = passing_run
    failures = [(c["display_name"], c["fail_phase"], c["fail_reason"], job_errors(c))
                for c in cases(report) if c["result"] != "pass"]
    assert completed.returncode == 0 and failures == [], (failures, completed.stdout[-3000:])
    ran = {(c["name"].split(" ")[0], c["launched_by"]) for c in cases(report)}
    assert ran == {(name, mode) for name in CHECK_CLASSES for mode in LAUNCH_MODES}
    # comm has two functions; every check runs in both modes
    assert len(cases(report)) == (len(CHECK_CLASSES) + 1) * len(LAUNCH_MODES)
    by_mode = {c["launched_by"]: c for c in cases(report)
               if c["name"].startswith("hpcprobe_ra_check")}
    assert by_mode["reframe"]["executable"] == "hpcprobe-bench"
    assert by_mode["hpcprobe"]["executable"] == "hpcprobe"
    assert "--np" in by_mode["hpcprobe"]["executable_opts"]


def test_performance_variables_are_logged_with_sensible_values(passing_run):
    _, report = passing_run
    for case in cases(report):
        figures = perf(case)
        assert figures, case["display_name"]
        for name, (value, _ref, _lower, _upper, unit, result) in figures.items():
            low, high = SENSIBLE[name]
            assert low <= value <= high, (case["display_name"], name, value)
            assert unit == UNITS[name] and result == "pass"
    comm = [perf(c) for c in cases(report) if c["name"].startswith("hpcprobe_comm_check")]
    assert sum("bandwidth" in figures for figures in comm) == 2  # PingPong's, not Allreduce's
    # The perflog (ReFrame's performance log) has a line per case of each check.
    perflog = Path(report["session_info"]["prefix_output"]).parent / "perflogs" / "local"
    lines = (perflog / "default" / "hpcprobe_ra_check.log").read_text().splitlines()
    assert "gups_value" in lines[0]
    assert sum(line.startswith("pass|") for line in lines[1:]) == len(LAUNCH_MODES)


def test_references_come_from_the_system_partition_entry(passing_run):
    _, report = passing_run
    ra = next(c for c in cases(report) if c["name"].startswith("hpcprobe_ra_check"))
    value, ref, lower, upper, unit, _ = perf(ra)["gups"]
    assert (ref, lower, upper, unit) == (0.02, -0.95, None, "GUPS")  # local:default's
    pingpong = next(c for c in cases(report) if c["name"].startswith("hpcprobe_comm_check")
                    and c["function"] == "pingpong")
    assert perf(pingpong)["latency"][1:5] == [2.0, None, 49.0, "us"]
    assert perf(pingpong)["time_largest"][1] == 0  # no reference: logged, not judged


def test_figures_are_those_of_the_records(passing_run):
    _, report = passing_run
    for case in cases(report):
        records = kept_records(case)
        assert [r["validation"]["verdict"] for r in records] == ["passed"]
        record, figures = records[0], perf(case)
        if case["family"] in ("ra", "hpl", "dgemm"):
            name = "gups" if case["family"] == "ra" else "gflops"
            assert figures[name][0] == pytest.approx(record["value"]["value"] / 1e9)
        curves = {curve["name"]: curve for curve in record.get("series") or []}
        if case["family"] == "comm":
            assert curves["time_avg"]["x"] == [8, 1024, 65536, 1048576]
            assert figures["latency"][0] == pytest.approx(curves["time_avg"]["y"][0] * 1e6)
            assert figures["time_largest"][0] == pytest.approx(
                curves["time_avg"]["y"][-1] * 1e6)
            if "bandwidth" in figures:
                assert figures["bandwidth"][0] == pytest.approx(
                    curves["bandwidth"]["y"][-1] / 1e6)
        if case["family"] == "stream" and case["variant"] == "single":
            triad = next(m for m in record["metrics"] if m["name"] == "single_triad_bandwidth")
            assert figures["triad"][0] == pytest.approx(max(triad["samples"]) / 1e9)
        if case["family"] == "stream" and case["variant"] == "star":
            best = curves["star_triad_best_bandwidth"]["y"]
            assert len(best) == 2  # one best per rank: their mean is the figure
            assert figures["triad"][0] == pytest.approx(sum(best) / len(best) / 1e9)


def test_a_failed_validation_fails_reframe_sanity(tmp_path):
    env_vars = json.dumps({"HPCPROBE_INJECT_FAULT": FAULT})
    completed, report = run_reframe(
        tmp_path / "fault", "-n", "hpcprobe_(ra|stream_star|comm)_check",
        "-P", "launched_by=reframe,hpcprobe", "-S", f"env_vars={env_vars}")
    assert completed.returncode != 0
    found = cases(report)
    assert len(found) == 8  # ra, stream star, comm pingpong and allreduce; two modes each
    for case in found:
        assert case["result"] == "fail", case["display_name"]
        why = (case["display_name"], case["fail_reason"], job_errors(case))
        assert case["fail_phase"] == "sanity", why
        assert "hpcprobe validation did not pass" in case["fail_reason"], why
        assert "verdict failed" in case["fail_reason"]
        assert case["job_exitcode"] == 1
    ra = next(c for c in found if c["name"].startswith("hpcprobe_ra_check"))
    assert "error 5000.0 words" in ra["fail_reason"]


def test_an_unknown_launch_mode_is_refused_by_name(tmp_path):
    completed = reframe(tmp_path / "bad", "-l", "-n", "hpcprobe_ra_check",
                        "-S", "launched_by=srun")
    output = completed.stdout + completed.stderr
    assert "skipping test 'hpcprobe_ra_check'" in output
    assert "launched_by must be one of reframe, hpcprobe, not 'srun'" in output
    assert "Found 0 check(s)" in output
