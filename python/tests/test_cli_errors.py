"""Command-line mistakes: one line on stderr, a suggestion when one is close, exit 2."""

import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.cli import main, parse_arguments


def run_main(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, [line for line in captured.err.splitlines() if line.strip()]


@pytest.mark.parametrize("argv, expected", [
    (["ra", "singel"],
     "unknown variant 'singel' (allowed: single, star, ceiling, mpi, sweep, shared-table-study, "
     "modes); did you mean 'single'?"),
    (["raa", "single"],
     "unknown command 'raa' (allowed: peak, ra, stream, mem, dgemm, hpl, ptrans, fft, run, study, "
     "screen, config, model, show, report, "
     "compare, history, sysinfo, list, contention, topology, simulate, congestion, comm, beff, "
     "pairs, "
     "gpu, cluster, "
     "launch, script); "
     "did you mean 'ra'?"),
    (["show", "x.jsonl", "--format", "jsno"],
     "unknown format 'jsno' (allowed: table, json, csv, imb, osu, osu-full, osu-tail); "
     "did you mean 'json'?"),
    (["run", "--suite", "quik"],
     "unknown suite 'quik' (allowed: main, quick, memory, peak, hpcc, comm); "
     "did you mean 'quick'?"),
    (["run", "--scale", "tine"],
     "unknown scale 'tine' (allowed: default, tiny); did you mean 'tiny'?"),
])
def test_unknown_words_get_one_line_and_a_suggestion(capsys, argv, expected):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert lines == [f"hpcprobe: {expected}"]


def test_unknown_option_suggests_the_close_one(capsys):
    status, lines = run_main(capsys, "ra", "single", "--tabel-log2", "5")
    assert status == 2
    assert len(lines) == 1
    assert lines[0].startswith("hpcprobe: unknown option '--tabel-log2' for 'hpcprobe ra' ")
    assert "--table-log2, --memory-fraction" in lines[0]  # what is allowed
    assert lines[0].endswith("did you mean '--table-log2'?")


def test_unknown_option_with_equals_sign(capsys):
    status, lines = run_main(capsys, "run", "--suit=quick")
    assert status == 2
    assert lines[0].endswith("did you mean '--suite'?")


@pytest.mark.parametrize("argv, fragment", [
    (["ra", "single", "--np", "0"], "--np must be a whole number >= 1, not '0'"),
    (["ra", "single", "--np", "two"], "--np must be a whole number >= 1, not 'two'"),
    (["run", "--np", "-3"], "--np must be a whole number >= 1, not '-3'"),
    (["ra", "mpi", "--time-budget", "0"], "--time-budget must be a number of seconds > 0"),
    (["ra", "mpi", "--time-budget", "nan"], "--time-budget must be a number of seconds > 0"),
    (["ra"], "missing variant for 'hpcprobe ra' (allowed: single, star, ceiling, mpi, sweep, "
             "shared-table-study, modes)"),
    (["--verbose"], "unknown option '--verbose'"),
    (["list", "extra"], "unexpected argument 'extra' for 'hpcprobe list'"),
    (["ra", "single", "--np"], "expected one argument"),
])
def test_bad_values_are_usage_errors(capsys, argv, fragment):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert len(lines) == 1 and fragment in lines[0]


def test_launcher_arg_may_look_like_an_option():
    args = parse_arguments(["ra", "mpi", "--launcher-arg", "--bind-to",
                            "--launcher-arg", "core", "--np", "2"])
    assert args.launcher_arg == ["--bind-to", "core"]
    assert args.np == 2


@pytest.mark.parametrize("argv, expected", [
    (["ra", "single", "--table-log2", "60"], "--table-log2 must be a whole number from 4 to 50, "
                                             "not '60'"),
    (["ra", "single", "--lookahead", "99999"], "--lookahead must be a whole number from 1 to "
                                               "32768, not '99999'"),
    (["ra", "single", "--rng", "pcg"], "unknown rng 'pcg' (allowed: poly, lcg)"),
    (["ra", "single", "--memory-fraction", "2"], "--memory-fraction must be a number > 0 and "
                                                 "<= 0.9, not '2'"),
    (["ra", "mpi", "--owner", "guess"], "unknown owner 'guess' (allowed: division, predict)"),
    (["ra", "mpi", "--grid", "2y2"], "--grid takes 1 to 8 whole numbers from 1 to 16777216 "
                                     "joined by x, such as 2x2x2, not '2y2'"),
    (["ra", "mpi", "--dims", "99"], "--dims must be a whole number from 1 to 8, not '99'"),
    (["ra", "mpi", "--mods", "fast"], "--mods 'fast': unknown 'fast'"),
])
def test_described_values_are_checked_before_any_launch(capsys, argv, expected):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert len(lines) == 1 and lines[0].startswith(f"hpcprobe: {expected}")


def test_ra_options_become_bench_options():
    from hpcprobe.families.ra.options import ra_bench_options
    args = parse_arguments(["ra", "mpi", "--table-log2", "20", "--hugepages", "off",
                            "--rng", "lcg", "--allow-noncompliant", "--lookahead", "2048"])
    assert ra_bench_options(args) == ["--table-log2", "20", "--rng", "lcg", "--lookahead",
                                      "2048", "--allow-noncompliant", "--hugepages", "off"]


def test_whole_program_says_one_line_and_exits_2():
    completed = run_hpcprobe("ra", "singel")
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        "hpcprobe: unknown variant 'singel' (allowed: single, star, ceiling, mpi, sweep, "
        "shared-table-study, modes); did you mean 'single'?"]
    assert completed.stdout == ""


def test_version_and_help_exit_0():
    completed = run_hpcprobe("--version")
    assert completed.returncode == 0 and completed.stdout.startswith("hpcprobe ")
    completed = run_hpcprobe("ra", "--help")
    assert completed.returncode == 0 and "--table-log2" in completed.stdout


def test_mpi_algorithm_options_become_bench_options():
    from hpcprobe.families.ra.options import ra_bench_options
    args = parse_arguments(["ra", "mpi", "--algo", "hypercube", "--mods", "prepost,isend",
                            "--owner", "predict", "--lookahead", "512"])
    assert ra_bench_options(args) == ["--algo", "hypercube", "--lookahead", "512",
                                      "--owner", "predict", "--mods", "prepost,isend"]
    args = parse_arguments(["ra", "mpi", "--algo", "torus", "--grid", "2x2x1"])
    assert ra_bench_options(args) == ["--algo", "torus", "--grid", "2x2x1"]
    args = parse_arguments(["ra", "mpi", "--algo", "torus", "--dims", "2"])
    assert ra_bench_options(args) == ["--algo", "torus", "--dims", "2"]


def test_option_checks_that_need_several_options_are_left_to_the_bench():
    # Whether the grid fits the ranks is the bench's to say (it knows them).
    args = parse_arguments(["ra", "mpi", "--algo", "torus", "--grid", "3x5", "--dims", "2"])
    assert (args.grid, args.dims) == ("3x5", "2")


@pytest.mark.parametrize("argv, expected", [
    (["ra", "mpi", "--algo", "hypercub"],
     "unknown algorithm 'hypercub' (allowed: reference, alltoall, hypercube, torus, staged, "
     "shared, pipeline); did you mean 'hypercube'?"),
    (["ra", "sweep", "--algo", "alltoal"],
     "unknown algorithm 'alltoal' (allowed: reference, alltoall, hypercube, torus, staged, "
     "shared, pipeline); did you mean 'alltoall'?"),
    (["ra", "single", "--algo", "hypercube"],
     "--algo applies to 'hpcprobe ra mpi|sweep' only, not to 'ra single'"),
    (["ra", "mpi", "--algo", "hypercube", "--grid", "2x2"],
     "--grid applies to 'hpcprobe ra mpi --algo torus|staged|pipeline' only, not to 'ra mpi "
     "--algo hypercube'"),
    (["ra", "sweep", "--grid", "2x2"],
     "--grid applies to 'hpcprobe ra sweep --algo torus|staged' only, not to 'ra sweep --algo "
     "hypercube'"),
    (["ra", "mpi", "--update-loop", "plain"],
     "--update-loop applies to 'hpcprobe ra single|star|ceiling' only, not to 'ra mpi'"),
    (["ra", "single", "--mods", "none"],
     "--mods applies to 'hpcprobe ra mpi|sweep|modes' only, not to 'ra single'"),
    (["ra", "swep"],
     "unknown variant 'swep' (allowed: single, star, ceiling, mpi, sweep, shared-table-study, "
     "modes); "
     "did you mean 'sweep'?"),
    (["modle", "ra"],
     "unknown command 'modle' (allowed: peak, ra, stream, mem, dgemm, hpl, ptrans, fft, run, "
     "study, screen, "
     "config, model, show, report, "
     "compare, history, sysinfo, list, contention, topology, simulate, congestion, comm, beff, "
     "pairs, "
     "gpu, cluster, "
     "launch, script); "
     "did you mean 'model'?"),
])
def test_algorithm_mistakes_are_one_line(capsys, argv, expected):
    status, lines = run_main(capsys, *argv)
    assert status == 2
    assert lines == [f"hpcprobe: {expected}"]


def test_algorithm_options_reach_the_bench_as_single_arguments(tmp_path):
    import json
    import os
    import shlex
    import sys
    from pathlib import Path

    fake = Path(__file__).parent / "fake_bench.py"
    template = f"{shlex.quote(sys.executable)} {shlex.quote(str(fake))} --fake-np {{np}} {{cmd}}"
    argv_file = tmp_path / "argv.jsonl"
    env = dict(os.environ, FAKE_ARGV_FILE=str(argv_file))
    completed = run_hpcprobe("ra", "mpi", "--np", "2", "--algo", "hypercube", "--dump-table",
                             "t; rm -rf /", "--out", str(tmp_path / "out"),
                             "--launcher", template, "--quiet", env=env)
    assert completed.returncode == 0, completed.stderr
    argv = json.loads(argv_file.read_text())["argv"]
    assert argv[3:9] == ["ra", "mpi", "--algo", "hypercube", "--dump-table", "t; rm -rf /"]


def test_no_command_lists_every_command_by_group(capsys):
    # First contact: `hpcprobe` alone is a map of the tool, not an error.
    from hpcprobe.cli import COMMANDS
    from hpcprobe.overview import GROUPS, grouped

    assert main([]) == 0
    out = capsys.readouterr().out.splitlines()
    headings = [line[:-1] for line in out if line.endswith(":") and not line.startswith(" ")]
    assert headings == [group for group, _ in GROUPS]  # no "other": every command placed
    listed = [line.split()[0] for line in out if line[:2] == "  " and line[2] != " "]
    assert sorted(listed) == sorted(COMMANDS)
    assert any(line.startswith("start with:  hpcprobe run") for line in out)
    assert grouped(["ra", "newfamily"])[-1] == ("other", ["newfamily"])


def test_help_texts_name_papers_by_author_not_by_file_number(capsys):
    import re

    from hpcprobe.cli import COMMANDS, build_parser, print_overview

    print_overview()
    texts = {"": capsys.readouterr().out}
    texts.update({name: build_parser(only=name)[name].format_help() for name in COMMANDS})
    for name, text in texts.items():
        assert not re.search(r"paper 0\d\d", text), name
