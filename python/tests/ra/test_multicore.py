"""Threads on one node's table (issue 4; Garg & Sabharwal, sections 3.2 and 3.3):
`ra mpi --algo shared|pipeline` options, `ra shared-table-study` (their Table 2) and
`ra modes` (their Table 1). Argument checks and statistics without a binary, the launch
sequence and exit statuses through the fake bench, then the real binary."""

import io
import json
import os
import shlex
import sys

import pytest
from helpers import TESTS, golden, read_jsonl, run_hpcprobe, stderr_lines
from rich.console import Console

from hpcprobe.cli import main, parse_arguments
from hpcprobe.families.ra.options import ra_bench_options
from hpcprobe.families.ra.multicore import (
    RateSummary,
    error_row,
    error_table,
    mode_options,
    relative,
    run_row,
    shared_options,
    summarize_rates,
    thread_count,
    updates_text,
)

FAKE = TESTS / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"
TINY_STUDY = ("--table-log2", "12", "--updates-per-word", "2,4", "--reps", "3",
              "--threads", "2", "--oversubscribe", "--quiet")


def run_main(capsys, *argv):
    status = main(list(argv))
    return status, [line for line in capsys.readouterr().err.splitlines() if line.strip()]


# --- ra mpi: the algorithm a mapping mode implies, and pass-through ---

@pytest.mark.parametrize("mode, algorithm", [
    ("5", "shared"), ("6", "shared"), ("7", "pipeline"), ("8", "pipeline"),
    ("1", None), ("2", None), ("3", None), ("4", None)])
def test_mapping_mode_without_algo_chooses_it(mode, algorithm):
    args = parse_arguments(["ra", "mpi", "--mapping-mode", mode])
    assert args.algo == algorithm
    # 2, 3, 4 reach the bench, which refuses them with its own line (it knows why).
    assert ra_bench_options(args)[-2:] == ["--mapping-mode", mode]


def test_given_algo_is_kept_whatever_the_mode():
    assert parse_arguments(["ra", "mpi", "--algo", "hypercube", "--mapping-mode", "5"]).algo == (
        "hypercube")


def test_threaded_options_pass_through_as_typed_in_the_bench_order():
    args = parse_arguments(["ra", "mpi", "--mapping-mode", "6", "--threads", "0020", "--sync",
                            "locks:16", "--oversubscribe", "--updates-per-word", "16"])
    assert ra_bench_options(args) == [
        "--algo", "shared", "--oversubscribe", "--updates-per-word", "16", "--threads", "0020",
        "--mapping-mode", "6", "--sync", "locks:16"]
    args = parse_arguments(["ra", "mpi", "--algo", "pipeline", "--roles", "3"])
    assert ra_bench_options(args) == ["--algo", "pipeline", "--roles", "3"]


@pytest.mark.parametrize("argv, expected", [
    (["ra", "mpi", "--sync", "atomc"], "--sync takes none, atomic or locks:K (K >= 1 striped "
     "locks), not 'atomc'; did you mean 'atomic'?"),
    (["ra", "mpi", "--sync", "lock:3"], "not 'lock:3'; did you mean 'locks:3'?"),
    (["ra", "mpi", "--sync", "locks:0"], "not 'locks:0'"),
    (["ra", "mpi", "--sync", "locks:+3"], "not 'locks:+3'"),
    (["ra", "mpi", "--sync", "locks"], "not 'locks'"),
    (["ra", "mpi", "--roles", "-1"], "--roles takes auto or a whole number of routing threads "
     ">= 0, not '-1'"),
    (["ra", "mpi", "--roles", "some"], "not 'some'"),
    (["ra", "sweep", "--algo", "shared"], "--algo shared applies to 'hpcprobe ra mpi' only"),
    (["ra", "single", "--threads", "2"], "--threads applies to 'hpcprobe ra "
     "mpi|shared-table-study|modes' only, not to 'ra single'"),
    (["ra", "mpi", "--syncs", "none"], "--syncs applies to 'hpcprobe ra shared-table-study' "
     "only, not to 'ra mpi'"),
    (["ra", "modes", "--np", "4"],
     "--np applies to 'hpcprobe ra single|star|ceiling|mpi|sweep' only"),
    (["ra", "modes", "--algo", "shared"], "--algo applies to 'hpcprobe ra mpi|sweep' only"),
    (["ra", "modes", "--hpcc-summary"], "--hpcc-summary applies to"),
    (["ra", "modes", "--modes", "1,3"], "--modes takes 1, 5, 6, 7, 8, not 3"),
    (["ra", "modes", "--modes", ""], "--modes is empty"),
    (["ra", "modes", "--sync-a", "none"], "--sync-a applies to"),
    (["ra", "shared-table-study", "--threads", "0"],
     "--threads must be a whole number from 1 to 1024, not '0'"),
    (["ra", "shared-table-study", "--reps", "two"],
     "--repeat must be a whole number from 1 to 1000, not 'two'"),
    (["ra", "mpi", "--mapping-mode", "9"],
     "--mapping-mode must be a whole number from 1 to 8, not '9'"),
    (["ra", "mpi", "--mapping-mode", "x"], "--mapping-mode must be a whole number"),
    (["ra", "mpi", "--threads", "2000"], "--threads must be a whole number from 1 to 1024"),
    (["ra", "mpi", "--updates-per-word", "99"],
     "--updates-per-word must be a whole number from 1 to 64, not '99'"),
    (["ra", "mpi", "--updates-per-word", "2,4"],
     "--updates-per-word must be a whole number from 1 to 64, not '2,4'"),
    (["ra", "mpi", "--mapping-mode", "5", "--roles", "2"],
     "--roles applies to 'hpcprobe ra mpi --algo pipeline' only, not to 'ra mpi --algo "
     "shared'"),
    (["ra", "modes", "--grid", "2x2"], "--grid applies to 'hpcprobe ra modes --mode1-algo "
     "torus|staged' only, not to 'ra modes --mode1-algo hypercube'"),
    (["ra", "modes", "--update-loop", "plain"], "--update-loop applies to 'hpcprobe ra "
     "single|star|ceiling' only, not to 'ra modes'"),
    (["ra", "shared-table-study", "--roles", "2"], "--roles applies to 'hpcprobe ra mpi|modes' "
     "only, not to 'ra shared-table-study'"),
    (["ra", "sweep", "--threads", "2"], "--threads applies to 'hpcprobe ra "
     "mpi|shared-table-study|modes' only, not to 'ra sweep'"),
    (["ra", "modes", "--dump-table", "t.bin"], "--dump-table applies to 'hpcprobe ra "
     "single|star|ceiling|mpi' only, not to 'ra modes'"),
    (["ra", "shared-table-study", "--syncs", "none,atomic,lock:2"], "not 'lock:2'"),
    (["ra", "shared-table-study", "--syncs", ""], "--syncs takes none, atomic or locks:K"),
    (["ra", "shared-table-study", "--updates-per-word", "2,65"], "'65' is not one"),
    (["ra", "shared-table-study", "--sync", "none"], "--sync applies to 'hpcprobe ra "
     "mpi|modes' only"),
    (["ra", "shared-table-study", "--no-verify"], "--no-verify applies to"),
])
def test_bad_threaded_input_is_one_line_and_exit_2(capsys, argv, expected):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert len(lines) == 1 and lines[0].startswith("hpcprobe: ") and expected in lines[0]


# --- the launches of the studies ---

def test_study_defaults():
    args = parse_arguments(["ra", "shared-table-study"])
    assert args.updates_per_words == [2, 4, 8, 16, 32]
    assert args.syncs == ["none", "locks:1", "locks:16", "locks:32", "atomic"]
    assert thread_count(args) == max(2, os.cpu_count() or 1)
    assert shared_options(args, 8, "none", 4) == [
        "--algo", "shared", "--threads", "8", "--sync", "none", "--updates-per-word", "4",
        "--table-log2", "20", "--repeat", "5"]


def test_study_launch_options():
    args = parse_arguments(["ra", "shared-table-study", *TINY_STUDY, "--rng", "lcg",
                            "--mapping-mode", "6"])
    assert (thread_count(args), args.updates_per_words) == (2, [2, 4])
    assert shared_options(args, 2, "none", 2) == [
        "--algo", "shared", "--threads", "2", "--sync", "none", "--updates-per-word", "2",
        "--table-log2", "12", "--repeat", "3", "--allow-noncompliant", "--rng", "lcg",
        "--oversubscribe", "--mapping-mode", "6"]
    assert "--allow-noncompliant" not in shared_options(args, 2, "atomic")


def test_mode_launch_options():
    args = parse_arguments(["ra", "modes", "--threads", "4", "--roles", "1", "--grid", "2x2",
                            "--sync", "locks:8", "--mode1-algo", "torus"])
    assert args.modes == [1, 5, 6, 8]
    common = ["--table-log2", "24", "--repeat", "3"]
    assert mode_options(args, 1, 4) == ["--algo", "torus", "--threads", "1",
                                        "--mapping-mode", "1", *common, "--grid", "2x2"]
    assert mode_options(args, 6, 4) == ["--algo", "shared", "--threads", "4", "--sync",
                                        "locks:8", "--mapping-mode", "6", *common]
    assert mode_options(args, 7, 4) == ["--algo", "pipeline", "--threads", "4", "--roles", "1",
                                        "--mapping-mode", "7", *common]
    args = parse_arguments(["ra", "modes", "--mode1-algo", "alltoall", "--repeat", "1"])
    assert mode_options(args, 1, 2)[:2] == ["--algo", "alltoall"]
    assert mode_options(args, 5, 2)[4:6] == ["--sync", "atomic"]


# --- the statistics of Table 2 ---

def test_mean_std_and_ratio_by_hand():
    # Wrong words 4, 8, 12 of 4096: mean 8/4096, sample std sqrt((16+0+16)/2)/4096 = 4/4096.
    record = golden("mpi")
    record["parameters"]["table_words"] = 4096
    record["validation"]["per_repetition"] = [4, 8, 12]
    row = error_row(2, record)
    assert row.table_words == 4096 and row.wrong_words == [4, 8, 12]
    assert row.rates.mean == pytest.approx(8 / 4096)
    assert row.rates.std == pytest.approx(4 / 4096)
    assert row.rates.ratio == pytest.approx(0.5)
    assert summarize_rates([1e-6, 2e-6, 3e-6]) == RateSummary(
        pytest.approx(2e-6), pytest.approx(1e-6), pytest.approx(0.5))


def test_zero_mean_one_repetition_and_nothing_do_not_divide():
    assert summarize_rates([0.0, 0.0, 0.0]) == RateSummary(0.0, 0.0, None)
    assert summarize_rates([3e-6]) == RateSummary(3e-6, None, None)
    assert summarize_rates([]) == RateSummary(None, None, None)
    assert error_row(4, None).rates == RateSummary(None, None, None)


def test_relative_rate():
    # Garg & Sabharwal's Table 2(b): 4 cores give 2.58 times one core.
    assert relative(0.258, 0.1) == pytest.approx(2.58)
    assert relative(0.1, None) is None and relative(0.1, 0.0) is None
    assert relative(None, 0.1) is None


def test_run_row_from_a_record():
    record = golden("mpi")
    record["validation"].update(error=3, verdict="passed")
    row = run_row("mode 1", 1, 4, 1, None, record, 0.0131072)
    assert row.gups == pytest.approx(0.0131072) and row.relative == pytest.approx(1.0)
    assert (row.algorithm, row.wrong_words, row.verdict) == ("reference", 3, "passed")
    assert run_row("x", None, 1, 2, "none", None, 1.0).gups is None


def test_update_counts_read_like_the_paper():
    assert [updates_text(n) for n in (1 << 25, 512 << 20, 8192, 100, 3 << 30)] == [
        "32M", "512M", "8K", "100", "3G"]


def test_error_table_shows_n_a_for_a_zero_mean():
    rows = [error_row(2, None)]
    record = golden("mpi")
    record["validation"]["per_repetition"] = [0, 0, 0]
    rows.append(error_row(4, record))
    console = Console(file=io.StringIO(), width=200)
    console.print(error_table(2, "none", rows))
    text = console.file.getvalue()
    assert "64K" in text and "n/a" in text


# --- the launch sequence and exit statuses, with the fake bench ---

def fake_run(tmp_path, mode, *argv):
    argv_file = tmp_path / "argv.jsonl"
    env = dict(os.environ, FAKE_ARGV_FILE=str(argv_file), FAKE_MODE=mode)
    completed = run_hpcprobe("ra", *argv, "--launcher", TEMPLATE, "--quiet",
                             "--out", str(tmp_path / "out"), env=env)
    launched = [entry["argv"] for entry in read_jsonl(argv_file)] if argv_file.exists() else []
    return completed, launched


def test_study_launches_through_a_fake_bench(tmp_path):
    completed, launched = fake_run(tmp_path, "ok", "shared-table-study", *TINY_STUDY,
                                   "--syncs", "none,atomic", "--json")
    assert completed.returncode == 0, completed.stderr
    assert [argv[1] for argv in launched] == ["1"] * 5
    assert [(argv[argv.index("--threads") + 1], argv[argv.index("--sync") + 1],
             argv[argv.index("--updates-per-word") + 1]) for argv in launched] == [
        ("2", "none", "2"), ("2", "none", "4"), ("1", "none", "4"), ("2", "none", "4"),
        ("2", "atomic", "4")]
    summary = json.loads(completed.stdout)
    assert summary == json.loads((tmp_path / "out" / "ra-shared-table-study.json").read_text())
    # The fake writes the golden record: 16384 words, no wrong ones.
    assert [row["rates"]["mean"] for row in summary["errors"]["rows"]] == [0.0, 0.0]
    assert [row["rates"]["ratio"] for row in summary["errors"]["rows"]] == [None, None]
    assert [row["relative"] for row in summary["syncs"]] == [1.0, 1.0, 1.0]


def test_failed_validation_counts_only_where_nothing_races(tmp_path):
    completed, launched = fake_run(tmp_path, "failed", "shared-table-study", *TINY_STUDY,
                                   "--syncs", "none")
    assert len(launched) == 4
    assert completed.returncode == 1
    # The 2-thread runs without sync may lose updates; the 1-thread baseline may not.
    assert stderr_lines(completed)[-1] == (
        "hpcprobe: 1 run(s) that races cannot explain failed validation: "
        "'ra mpi shared 1 thread sync none (serial baseline)'")
    assert "shared-table-study (a)" in completed.stdout


@pytest.mark.parametrize("mode, status", [("die", 3), ("bad", 2)])
def test_a_crash_or_refusal_stops_the_study(tmp_path, mode, status):
    completed, launched = fake_run(tmp_path, mode, "modes", "--threads", "2")
    assert completed.returncode == status
    assert len(launched) == 1
    assert not (tmp_path / "out" / "ra-modes.json").exists()
    assert completed.stdout == ""
    if mode == "bad":
        assert stderr_lines(completed) == [
            "hpcprobe-bench: --table-log2 60 is out of range (allowed: 4..50)"]


def test_modes_launch_through_a_fake_bench(tmp_path):
    completed, launched = fake_run(tmp_path, "ok", "modes", "--threads", "3", "--modes",
                                   "5,1,7")
    assert completed.returncode == 0, completed.stderr
    assert [(argv[1], argv[argv.index("--mapping-mode") + 1]) for argv in launched] == [
        ("1", "5"), ("3", "1"), ("1", "7")]
    summary = json.loads((tmp_path / "out" / "ra-modes.json").read_text())
    assert [row["mode"] for row in summary["modes"]] == [5, 1, 7]
    assert [(row["ranks"], row["threads"]) for row in summary["modes"]] == [
        (1, 3), (3, 1), (1, 3)]


# --- the real binary ---

def real_study(tmp_path, *argv, env=None):
    completed = run_hpcprobe("ra", "shared-table-study", *TINY_STUDY, "--out", str(tmp_path),
                             *argv, env=env, timeout=60)
    summary_path = tmp_path / "ra-shared-table-study.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    results = tmp_path / "results.jsonl"
    return completed, summary, read_jsonl(results) if results.exists() else []


def test_real_shared_table_study(tmp_path):
    completed, summary, records = real_study(tmp_path, "--syncs", "none,locks:2,atomic")
    # Lost updates without sync may fail validation; that is what part (a) measures.
    assert completed.returncode == 0, completed.stderr
    assert len(records) == 6
    assert [(r["parameters"]["threads"], r["parameters"]["sync"], r["parameters"]["locks"],
             r["parameters"]["updates_per_word"]) for r in records] == [
        (2, "none", None, 2), (2, "none", None, 4), (1, "none", None, 4), (2, "none", None, 4),
        (2, "locks", 2, 4), (2, "atomic", None, 4)]
    assert {r["algorithm"] for r in records} == {"shared"}
    for row, record in zip(summary["errors"]["rows"], records):
        assert row["wrong_words"] == record["validation"]["per_repetition"]
        assert row["rates"]["mean"] == pytest.approx(sum(row["wrong_words"]) / 3 / 4096)
    baseline, *syncs = summary["syncs"]
    assert baseline["relative"] == 1.0 and baseline["wrong_words"] == 0
    assert [row["wrong_words"] for row in syncs[1:]] == [0, 0]
    assert all(row["gups"] > 0 for row in summary["syncs"])
    assert "std/mean" in completed.stdout


def test_real_lost_updates_give_an_exact_error_rate(tmp_path):
    env = dict(os.environ, HPCPROBE_INJECT_FAULT="lose:7")
    completed, summary, records = real_study(
        tmp_path, "--sync-a", "atomic", "--syncs", "atomic", "--json", env=env)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == summary
    for row in summary["errors"]["rows"]:
        assert row["wrong_words"] == [7, 7, 7]
        assert row["rates"] == {"mean": 7 / 4096, "std": 0.0, "ratio": 0.0}
        assert row["verdict"] == "passed"  # 7 words are under 1 % of 4096
    assert [row["wrong_words"] for row in summary["syncs"]] == [7, 7]


def test_real_modes(tmp_path):
    completed = run_hpcprobe("ra", "modes", "--table-log2", "14", "--threads", "2",
                             "--quiet", "--out", str(tmp_path), timeout=60)
    assert completed.returncode == 0, completed.stderr
    records = read_jsonl(tmp_path / "results.jsonl")
    assert [(r["algorithm"], r["layout"]["ranks"], r["layout"]["threads_per_rank"],
             r["parameters"]["mapping_mode"]) for r in records] == [
        ("hypercube", 2, 1, 1), ("shared", 1, 2, 5), ("shared", 1, 2, 6), ("pipeline", 1, 2, 8)]
    assert {r["parameters"]["table_words"] for r in records} == {1 << 14}
    summary = json.loads((tmp_path / "ra-modes.json").read_text())
    assert summary["modes"][0]["relative"] == 1.0
    assert all(row["verdict"] == "passed" and row["wrong_words"] == 0
               for row in summary["modes"])
    assert "relative" in completed.stdout


def test_real_bench_refusal_stops_the_study_with_its_line(tmp_path):
    completed, summary, records = real_study(tmp_path, "--mapping-mode", "7")
    assert completed.returncode == 2
    lines = stderr_lines(completed)
    assert len(lines) == 1 and lines[0].startswith("hpcprobe-bench: --mapping-mode 7")
    assert summary is None and records == []


def test_real_ra_mpi_mapping_modes(tmp_path):
    completed = run_hpcprobe("ra", "mpi", "--mapping-mode", "6", "--threads", "2",
                             "--table-log2", "12", "--quiet", "--out", str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    record = read_jsonl(tmp_path / "results.jsonl")[0]
    assert (record["algorithm"], record["parameters"]["mapping_mode"]) == ("shared", 6)
    completed = run_hpcprobe("ra", "mpi", "--mapping-mode", "3", "--quiet",
                             "--out", str(tmp_path))
    assert completed.returncode == 2
    lines = stderr_lines(completed)
    assert len(lines) == 1 and "--mapping-mode 3 is refused" in lines[0]
