"""Bad input, corrupted tables, dying and hanging ranks, with the real binary."""

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from helpers import read_jsonl, run_hpcprobe, stderr_lines
from integration import bench_path, only_record, run_bench

# (arguments after "ra single", what the bench's one line must say): what only the bench
# can judge (this machine's memory, a look-ahead's compliance), which hpcprobe relays.
BAD_INPUTS = [
    (["--table-log2", "40"], r"memory"),                      # larger than this machine
    (["--lookahead", "2048"], r"--allow-noncompliant"),
]
# Values outside the described range, which hpcprobe refuses itself from the description
# (describe.py) before launching: the bench refuses them too, for the bench's own users.
RANGE_BAD_INPUTS = [
    (["--table-log2", "60"], r"\b4\b.*\b50\b"),               # the allowed range
    (["--memory-fraction", "2"], r"0\.9"),
]
# hpcprobe chooses the bench's --out itself, so this one is for the bench alone.
BENCH_BAD_INPUTS = BAD_INPUTS + RANGE_BAD_INPUTS + [
    (["--out", "/nonexistent-dir/results.jsonl"], r"--out .*cannot append"),  # before measuring
]


def with_fault(spec):
    return dict(os.environ, HPCPROBE_INJECT_FAULT=spec)


@pytest.mark.parametrize("options, says", BENCH_BAD_INPUTS,
                         ids=[" ".join(o) for o, _ in BENCH_BAD_INPUTS])
def test_bad_input_to_the_bench_is_one_line_and_exit_2(options, says):
    process = subprocess.Popen([bench_path(), "ra", "single", *options, "--quiet"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    stderr = process.stderr.read()  # to EOF: the bench has exited
    # Rejected before allocating anything: this process's peak resident size (the
    # kernel's count, not a clock) stays far below the table asked for (2^40 or 2^60
    # words; 2^27 x 8 B = 1 GiB by default for the others).
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 2
    assert usage.ru_maxrss < 256 * 1024  # KiB
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and re.search(says, lines[0]), lines


@pytest.mark.parametrize("options, says", BAD_INPUTS, ids=[" ".join(o) for o, _ in BAD_INPUTS])
def test_bad_input_through_hpcprobe_is_relayed_with_exit_2(tmp_path, options, says):
    completed = run_hpcprobe("ra", "single", *options, "--quiet", "--out", str(tmp_path))
    assert completed.returncode == 2
    results = tmp_path / "results.jsonl"  # the bench may have checked it can write it
    assert not results.exists() or results.read_bytes() == b""  # nothing was measured
    lines = stderr_lines(completed)
    assert len(lines) == 1 and lines[0].startswith("hpcprobe-bench: ")
    assert re.search(says, lines[0]), lines
    assert completed.stdout == ""


@pytest.mark.parametrize("options, says", RANGE_BAD_INPUTS,
                         ids=[" ".join(o) for o, _ in RANGE_BAD_INPUTS])
def test_out_of_range_values_are_refused_before_launching(tmp_path, options, says):
    completed = run_hpcprobe("ra", "single", *options, "--quiet", "--out", str(tmp_path))
    assert completed.returncode == 2
    assert not (tmp_path / "results.jsonl").exists()  # nothing was launched
    lines = stderr_lines(completed)
    assert len(lines) == 1 and lines[0].startswith("hpcprobe: ") and re.search(says, lines[0])


def test_relayed_line_is_last_when_not_quiet(tmp_path):
    completed = run_hpcprobe("ra", "mpi", "--np", "2", "--table-log2", "40",
                             "--out", str(tmp_path))
    assert completed.returncode == 2
    # The bench's own line (its figures per rank: 2 ranks here), after the progress lines.
    last = stderr_lines(completed)[-1]
    assert last.startswith("hpcprobe-bench: a table of 2^40 words") and "memory" in last


@pytest.mark.parametrize("argv, says", [
    (["ra", "single", "--tabel-log2", "10"], "did you mean '--table-log2'?"),
    (["rx"], "did you mean 'ra'?"),
    (["ra", "singel"], "did you mean 'single'?"),
])
def test_bench_suggests_on_unknown_words(argv, says):
    completed = run_bench(*argv)
    assert completed.returncode == 2
    lines = stderr_lines(completed)
    assert len(lines) == 1 and says in lines[0]


def test_noncompliant_lookahead_runs_when_allowed(tmp_path):
    completed = run_hpcprobe("ra", "single", "--table-log2", "12", "--lookahead", "2048",
                             "--allow-noncompliant", "--out", str(tmp_path), "--quiet")
    assert completed.returncode == 0, completed.stderr
    record = only_record(tmp_path / "results.jsonl")
    assert record["compliant"] is False
    assert record["parameters"]["lookahead"] == 2048
    assert record["validation"]["verdict"] == "passed"
    shown = run_hpcprobe("show", str(tmp_path), "--format", "csv")
    assert shown.stdout.splitlines()[1].split(",")[15] == "false"  # the compliant column


@pytest.mark.parametrize("variant, ranks", [("single", 1), ("mpi", 2)])
def test_corrupted_table_fails_verification(tmp_path, variant, ranks):
    # 2^8 words: HPCC's tolerance is 1 % of the table (2.56 words), so 5 flips fail.
    completed = run_hpcprobe("ra", variant, "--np", str(ranks), "--table-log2", "8",
                             "--repeat", "2", "--out", str(tmp_path), "--quiet",
                             env=with_fault("corrupt:5"))
    assert completed.returncode == 1, completed.stderr
    record = only_record(tmp_path / "results.jsonl")
    assert record["status"] == "failed"
    assert record["validation"]["verdict"] == "failed"
    assert record["validation"]["error"] >= 5
    if variant == "single":
        assert record["validation"]["error"] == 5
    assert f"benchmark 'ra {variant}' failed validation" in stderr_lines(completed)[-1]


def test_bench_itself_exits_1_on_failed_verification(tmp_path):
    completed = run_bench("ra", "single", "--table-log2", "8", "--quiet",
                          "--out", str(tmp_path / "r.jsonl"),
                          extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:5"})
    assert completed.returncode == 1


def test_errors_within_the_hpcc_tolerance_pass(tmp_path):
    completed = run_hpcprobe("ra", "single", "--table-log2", "14", "--out", str(tmp_path),
                             "--quiet", env=with_fault("corrupt:5"))
    assert completed.returncode == 0, completed.stderr
    validation = only_record(tmp_path / "results.jsonl")["validation"]
    assert (validation["verdict"], validation["error"]) == ("passed", 5)
    assert validation["tolerance"] == pytest.approx(163.84)


def _processes_mentioning(text):
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                stat = (cmdline.parent / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(cmdline.parent.name)
        except OSError:
            pass
    return found


def test_dying_rank_is_reported_and_earlier_records_stay(tmp_path):
    argv = ["ra", "mpi", "--np", "2", "--table-log2", "14", "--out", str(tmp_path), "--quiet"]
    assert run_hpcprobe(*argv).returncode == 0
    # MPICH's hydra now and then misses the dead rank and leaves the other one spinning
    # (about 1 launch in 20 here); the watchdog's budget is what then ends the run, so a
    # dying rank never hangs hpcprobe either way.
    completed = run_hpcprobe(*argv, "--time-budget", "30", env=with_fault("exit:1"),
                             timeout=120)  # a hang guard
    assert completed.returncode == 3
    # mpiexec reports the dead rank's status (17) or that of the ranks it then killed;
    # or the watchdog stopped what mpiexec left running.
    assert re.search(r"benchmark 'ra mpi' (failed \(exit status (17|9|137|-9)\)|exceeded "
                     r"its time budget of 30 s)", stderr_lines(completed)[-1])
    assert "injected fault: rank 1 exits" in completed.stderr
    records = read_jsonl(tmp_path / "results.jsonl")
    assert len(records) == 1 and records[0]["validation"]["verdict"] == "passed"
    deadline = time.monotonic() + 60  # the launcher's cleanup: waited for, not timed
    while _processes_mentioning(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_mentioning(str(tmp_path)) == []


def test_hanging_rank_is_stopped_at_the_time_budget(tmp_path):
    completed = run_hpcprobe("ra", "mpi", "--np", "2", "--table-log2", "14",
                             "--time-budget", "10", "--out", str(tmp_path),
                             env=with_fault("hang:1"), timeout=120)  # a hang guard
    assert completed.returncode == 3
    log = (tmp_path / "ra-mpi.log").read_text()
    assert "hpcprobe watchdog: time budget of 10 s exceeded\n" in log
    assert stderr_lines(completed)[-1] == (
        "hpcprobe: benchmark 'ra mpi' exceeded its time budget of 10 s and was stopped "
        f"(hung rank?); records already measured are in {tmp_path / 'results.jsonl'}")
    # The launcher's cleanup of its ranks: waited for, not timed (the guard is generous).
    deadline = time.monotonic() + 60
    while _processes_mentioning(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_mentioning(str(tmp_path)) == []
