"""The launch path (launcher argv, logs, watchdog, exit statuses, suites) with a fake
launcher+bench, so it needs no MPI and no compiled binary."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (golden, read_jsonl, run_hpcprobe, stand_in_bench, stderr_lines,
                     write_jsonl)

from hpcprobe.runner import own_records

FAKE = Path(__file__).parent / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"


@pytest.fixture
def fake(tmp_path):
    """Environment and paths for runs whose launcher is fake_bench.py."""
    bench = stand_in_bench(tmp_path / "bin" / "hpcprobe-bench")
    env = dict(os.environ, HPCPROBE_BENCH=str(bench),
               FAKE_ARGV_FILE=str(tmp_path / "argv.jsonl"),
               FAKE_PID_FILE=str(tmp_path / "pid"))

    class Fake:
        pass

    fake = Fake()
    fake.env, fake.bench, fake.out = env, bench, tmp_path / "out"
    fake.argv_file, fake.pid_file = tmp_path / "argv.jsonl", tmp_path / "pid"
    return fake


def hpcprobe(fake, *args, timeout=60):
    return run_hpcprobe(*args, "--launcher", TEMPLATE, env=fake.env, timeout=timeout)


def is_running(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_successful_launch(fake):
    argv = ["ra", "single", "--np", "3", "--table-log2", "14", "--repeat", "2",
            "--allow-noncompliant", "--out", str(fake.out)]
    completed = hpcprobe(fake, *argv)
    assert completed.returncode == 0, completed.stderr
    launched = read_jsonl(fake.argv_file)
    assert len(launched) == 1
    assert launched[0]["argv"] == [
        "--fake-np", "3", str(fake.bench), "ra", "single", "--table-log2", "14",
        "--allow-noncompliant", "--repeat", "2", "--out", str(fake.out / "results.jsonl")]
    user_command = ["hpcprobe", *argv, "--launcher", TEMPLATE]
    assert json.loads(launched[0]["user_command"]) == user_command
    records = read_jsonl(fake.out / "results.jsonl")
    assert [record["metadata"]["user_command_line"] for record in records] == [user_command]
    assert "fake: ra single on 3 ranks" in (fake.out / "ra-single.log").read_text()
    assert "0.025 GUPS" in completed.stdout
    assert stderr_lines(completed) == [
        "[1/1] ra single ...", "fake: ra single on 3 ranks", stderr_lines(completed)[-1]]
    assert stderr_lines(completed)[-1].startswith("done in ")


def test_hostile_value_reaches_the_bench_as_one_argument(fake, tmp_path):
    hostile = f"t.bin; touch {tmp_path}/pwned && echo $(id) > {tmp_path}/pwned2"
    completed = hpcprobe(fake, "ra", "single", "--dump-table", hostile, "--out", str(fake.out))
    assert completed.returncode == 0
    assert read_jsonl(fake.argv_file)[0]["argv"][5:7] == ["--dump-table", hostile]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_only_records_of_this_launch_are_shown(fake):
    fake.out.mkdir()
    write_jsonl(fake.out / "results.jsonl", [golden("star")])
    completed = hpcprobe(fake, "ra", "mpi", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 0
    assert "mpi" in completed.stdout and "star" not in completed.stdout
    assert [r["variant"] for r in read_jsonl(fake.out / "results.jsonl")] == ["star", "mpi"]


def test_bad_input_relays_the_bench_line_and_exits_2(fake):
    fake.env["FAKE_MODE"] = "bad"
    completed = hpcprobe(fake, "ra", "single", "--table-log2", "50", "--quiet",
                         "--out", str(fake.out))
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        "hpcprobe-bench: --table-log2 60 is out of range (allowed: 4..50)"]
    assert completed.stdout == ""


def test_validation_failure_exits_1(fake):
    fake.env["FAKE_MODE"] = "failed"
    completed = hpcprobe(fake, "ra", "mpi", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 1
    assert stderr_lines(completed)[-1] == (
        "hpcprobe: benchmark 'ra mpi' failed validation (error 7 words, tolerance 1.5); "
        f"the record is in {fake.out / 'results.jsonl'}")
    assert "failed (7 > 1.5 words)" in completed.stdout


def test_dying_launch_exits_3_and_keeps_earlier_records(fake):
    assert hpcprobe(fake, "ra", "mpi", "--out", str(fake.out)).returncode == 0
    fake.env["FAKE_MODE"] = "die"
    completed = hpcprobe(fake, "ra", "mpi", "--out", str(fake.out))
    assert completed.returncode == 3
    lines = stderr_lines(completed)
    assert "rank 1: exiting as asked" in lines
    assert lines[-1] == (
        f"hpcprobe: benchmark 'ra mpi' failed (exit status 17); see {fake.out / 'ra-mpi.log'}"
        f"; records already measured are kept in {fake.out / 'results.jsonl'}")
    assert len(read_jsonl(fake.out / "results.jsonl")) == 1


def test_hung_launch_is_stopped_by_the_watchdog(fake):
    fake.env["FAKE_MODE"] = "hang"
    completed = hpcprobe(fake, "ra", "mpi", "--time-budget", "1.5", "--out", str(fake.out))
    assert completed.returncode == 3
    assert stderr_lines(completed)[-1] == (
        "hpcprobe: benchmark 'ra mpi' exceeded its time budget of 1.5 s and was stopped "
        f"(hung rank?); records already measured are in {fake.out / 'results.jsonl'}")
    # The watchdog's own report says what it did, in order (no wall-clock bound to race).
    log = (fake.out / "ra-mpi.log").read_text().splitlines()
    watchdog = [line for line in log if line.startswith("hpcprobe watchdog: ")]
    assert watchdog[:2] == ["hpcprobe watchdog: time budget of 1.5 s exceeded",
                            "hpcprobe watchdog: SIGTERM to every process of the launch"]
    assert not is_running(int(fake.pid_file.read_text()))  # the launcher's child too


def test_launch_ignoring_sigterm_is_killed(fake):
    fake.env["FAKE_MODE"] = "ignores_sigterm"
    completed = hpcprobe(fake, "ra", "single", "--time-budget", "1", "--out", str(fake.out))
    assert completed.returncode == 3
    assert "exceeded its time budget of 1 s" in stderr_lines(completed)[-1]
    log = (fake.out / "ra-single.log").read_text().splitlines()
    assert [line for line in log if line.startswith("hpcprobe watchdog: ")] == [
        "hpcprobe watchdog: time budget of 1 s exceeded",
        "hpcprobe watchdog: SIGTERM to every process of the launch",
        "hpcprobe watchdog: still running 5 s after SIGTERM: SIGKILL"]
    assert not is_running(int(fake.pid_file.read_text()))


def test_exit_0_without_a_record_is_a_failure(fake):
    fake.env["FAKE_MODE"] = "norecord"
    completed = hpcprobe(fake, "ra", "star", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 3
    assert "exited 0 but wrote no record" in stderr_lines(completed)[-1]


def test_invalid_record_from_the_bench_is_reported(fake):
    fake.env["FAKE_MODE"] = "invalid"
    completed = hpcprobe(fake, "ra", "star", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 3
    assert stderr_lines(completed)[0].startswith(
        f"{fake.out / 'results.jsonl'}:1: invalid record: not JSON")


def test_unwritable_out_dir_is_one_line_and_exit_4(fake):
    completed = hpcprobe(fake, "ra", "single", "--out", "/dev/null/results")
    assert completed.returncode == 4
    assert stderr_lines(completed) == [
        "hpcprobe: cannot write /dev/null/results: Not a directory"]


def test_hpcc_summary_is_printed_and_written(fake):
    completed = hpcprobe(fake, "ra", "mpi", "--hpcc-summary", "--quiet",
                         "--out", str(fake.out))
    assert completed.returncode == 0
    written = (fake.out / "hpcc-summary.txt").read_text()
    assert written.startswith("Begin of Summary section.\n")
    assert "MPIRandomAccess_GUPs=0.0131072\n" in written
    assert written.endswith("End of Summary section.\n")
    assert written in completed.stdout


def test_default_out_dir_is_results_timestamp(fake, tmp_path):
    completed = run_hpcprobe("ra", "single", "--quiet", "--launcher", TEMPLATE,
                             env=fake.env, cwd=tmp_path)
    assert completed.returncode == 0
    made = list((tmp_path / "results").iterdir())
    assert len(made) == 1
    assert len(made[0].name) == len("20250115-100000") and made[0].name[8] == "-"
    assert (made[0] / "results.jsonl").is_file()


def test_suite_keeps_going_after_a_failure(fake):
    fake.env["FAKE_MODE_STAR"] = "die"
    completed = hpcprobe(fake, "run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                         "--out", str(fake.out))
    assert completed.returncode == 3
    lines = stderr_lines(completed)
    assert [line for line in lines if line.startswith("[")] == [
        "[1/4] ra single ...", "[2/4] ra star ...", "[3/4] ra mpi ...",
        "[4/4] ra mpi hypercube ..."]
    assert lines[-1] == "hpcprobe: 1 of 4 benchmarks failed: 'ra star' (exit status 3)"
    launched = [entry["argv"] for entry in read_jsonl(fake.argv_file)]
    assert [argv[3:5] for argv in launched] == [
        ["ra", "single"], ["ra", "star"], ["ra", "mpi"], ["ra", "mpi"]]
    assert all(argv[5:9] == ["--table-log2", "14", "--repeat", "3"] for argv in launched)
    assert launched[3][9:11] == ["--algo", "hypercube"]
    assert all(argv[1] == "2" for argv in launched)
    assert [r["variant"] for r in read_jsonl(fake.out / "results.jsonl")] == [
        "single", "mpi", "mpi"]
    for variant in ("single", "star", "mpi"):
        assert (fake.out / f"ra-{variant}.log").is_file()
    assert "hpcprobe run --suite quick" in completed.stdout


def test_suite_budget_is_300_s_unless_overridden():
    from hpcprobe.suite.suites import suite_steps

    steps = suite_steps("quick")
    assert [step.time_budget_s for step in steps] == [300.0] * 4
    assert all(step.bench_options[:4] == ("--table-log2", "24", "--repeat", "3")
               for step in steps)
    assert [step.name for step in steps] == [
        "ra single", "ra star", "ra mpi", "ra mpi hypercube"]
    assert steps[3].bench_options[4:] == ("--algo", "hypercube")


def _summary_lines(fake):
    return (fake.out / "hpcc-summary.txt").read_text().splitlines()


def test_hpcc_success_is_zero_and_named_when_a_suite_step_was_killed(fake):
    fake.env["FAKE_MODE_STAR"] = "die"
    completed = hpcprobe(fake, "run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                         "--hpcc-summary", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 3
    lines = _summary_lines(fake)
    assert "Success=0" in lines and "Success=1" not in lines
    assert "Not successful: step 'ra star' failed (exit status 3)" in lines
    assert "Not successful: step 'ra star' failed (exit status 3)" in completed.stdout


def test_hpcc_success_is_zero_and_named_when_a_step_was_not_verified(fake):
    fake.env["FAKE_MODE_SINGLE"] = "skipped"
    completed = hpcprobe(fake, "run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                         "--hpcc-summary", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 0
    lines = _summary_lines(fake)
    assert "Success=0" in lines
    assert [line for line in lines if line.startswith("Not successful")] == [
        "Not successful: 'ra single serial' was not verified (--no-verify)"]


def test_hpcc_success_is_one_when_every_step_ran_and_passed(fake):
    completed = hpcprobe(fake, "run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                         "--hpcc-summary", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 0
    lines = _summary_lines(fake)
    assert "Success=1" in lines and not any(line.startswith("Not successful") for line in lines)


def test_a_failed_single_launch_still_writes_success_zero(fake):
    fake.env["FAKE_MODE"] = "die"
    completed = hpcprobe(fake, "ra", "mpi", "--hpcc-summary", "--quiet", "--out", str(fake.out))
    assert completed.returncode == 3
    assert "Success=0" in _summary_lines(fake)
    assert "Not successful: step 'ra mpi' failed (exit status 3)" in _summary_lines(fake)


def _start_fake(fake, *args):
    fake.env["FAKE_MODE"] = "ignores_sigterm"
    process = subprocess.Popen(
        [sys.executable, "-m", "hpcprobe", *args, "--launcher", TEMPLATE],
        env=fake.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not fake.pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.pid_file.exists(), process.communicate()
    return process


def test_a_second_signal_kills_at_once(fake):
    process = _start_fake(fake, "ra", "single", "--out", str(fake.out))
    process.send_signal(signal.SIGTERM)
    time.sleep(0.5)  # the launch ignores SIGTERM: hpcprobe is in its 5 s grace
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    log = (fake.out / "ra-single.log").read_text().splitlines()
    assert [line for line in log if line.startswith("hpcprobe watchdog: ")] == [
        "hpcprobe watchdog: SIGTERM received: stopping the launch",
        "hpcprobe watchdog: SIGTERM to every process of the launch",
        "hpcprobe watchdog: second signal: SIGKILL at once"]
    assert not is_running(int(fake.pid_file.read_text()))


def test_nohup_keeps_sighup_ignored(fake):
    # Under nohup SIGHUP is ignored before hpcprobe starts: it must stay so.
    fake.env["FAKE_MODE"] = "hang"
    process = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys, runpy; "
         "signal.signal(signal.SIGHUP, signal.SIG_IGN); sys.argv[0] = 'hpcprobe'; "
         "runpy.run_module('hpcprobe', run_name='__main__')",
         "ra", "mpi", "--time-budget", "3", "--out", str(fake.out), "--launcher", TEMPLATE],
        env=fake.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not fake.pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 3, stderr  # the budget ended it, not the SIGHUP
    assert "exceeded its time budget of 3 s" in stderr


def test_a_launch_reads_only_records_with_its_identity(tmp_path):
    mine, other, older = golden("mpi"), golden("mpi"), golden("mpi")
    mine["metadata"]["launch_id"] = "123-mine"
    other["metadata"]["launch_id"] = "456-other"
    path = write_jsonl(tmp_path / "results.jsonl", [other, mine, older])
    found = own_records(path, 0, "123-mine")
    assert [r["metadata"].get("launch_id") for r in found.records] == ["123-mine", None]
