"""`hpcprobe history` (trends, moves, its one-line refusals) and the launch hook: every
launch's records go in as one run, and a history that cannot be written never fails it."""

import os
import shlex
import sys
from pathlib import Path

import pytest
from helpers import run_hpcprobe, stand_in_bench, stderr_lines

from hpcprobe.cli import main
from hpcprobe.history import Figure, open_history
from hpcprobe.history.command import moved, since_time, trends
from hpcprobe.history.hook import keep_launch

FAKE = Path(__file__).resolve().parents[1] / "fake_bench.py"
TEMPLATE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} --fake-np {{np}} {{cmd}}"
FIGURE = "stream.star.openmp.star_triad_bandwidth"


def filled(path, values, host="n1", validated_last=True):
    with open_history(path) as history:
        for day, value in enumerate(values, start=1):
            stamp = f"2026-11-{day:02d}T00:00:00Z"
            last = day == len(values)
            history.add_run("c", [Figure(host, FIGURE, value, "B/s",
                                         validated_last or not last)], stamp, stamp)
    return path


@pytest.mark.parametrize("last, earlier, status", [
    (10.0, [10.0, 10.2, 9.8, 10.1, 9.9], "steady"),
    (8.0, [10.0, 10.2, 9.8, 10.1, 9.9], "moved"),
    (12.0, [10.0, 10.2, 9.8, 10.1, 9.9], "moved"),
    (10.9, [10.0, 10.0, 10.0], "steady"),  # MAD 0: within 10 %
    (11.1, [10.0, 10.0, 10.0], "moved"),
    (1.0, [10.0, 10.0], "too few"),
])
def test_a_last_value_beyond_its_spread_has_moved(last, earlier, status):
    assert moved(last, earlier)[0] == status


def test_the_spread_is_the_scaled_mad_of_the_earlier_values():
    status, median, spread = moved(-2.0, [1.0, 2.0, 3.0, 4.0, 100.0])
    assert moved(-1.0, [1.0, 2.0, 3.0, 4.0, 100.0])[0] == "steady"  # 4 < 3 x 1.4826
    assert (status, median) == ("moved", 3.0) and spread == pytest.approx(1.4826)


def test_trends_per_host_and_figure(tmp_path):
    with open_history(filled(tmp_path / "h.sqlite", [10.0, 10.1, 9.9, 10.0, 5.0])) as history:
        history.add_run("c", [Figure("n2", FIGURE, 5.0, "B/s", False)],
                        "2026-11-30", "2026-11-30")
        found = trends(history.series())
    assert [(t.host, t.count, t.status, t.last_value) for t in found] == [
        ("n1", 5, "moved", 5.0), ("n2", 1, "not validated", 5.0)]
    assert found[0].first == "2026-11-01T00:00:00.000Z" and found[0].median == 10.0


def test_the_command_prints_the_trend_and_flags_a_move(tmp_path, capsys):
    path = filled(tmp_path / "h.sqlite", [10e9, 10.1e9, 9.9e9, 10e9, 5e9])
    assert main(["history", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 figures, 5 values (1 moved)" in out and "moved" in out and "5 GB/s" in out
    assert main(["history", "--file", str(path), "--figure", "stream.*",
                 "--since", "2026-11-04"]) == 0
    assert "1 figures, 2 values" in capsys.readouterr().out
    assert main(["history", "--file", str(path), "--host", "n9"]) == 0
    assert "no figures in history" in capsys.readouterr().out


@pytest.mark.parametrize("argv, expected, status", [
    (["--since", "last week"], "--since must be a time (2026-11-29, 2026-11-29T05:00:00Z) "
     "or an age (30m, 12h, 7d, 2w), not 'last week'", 2),
    (["--file", "{missing}"], "no history at {missing} (runs add to it as they finish)", 4),
])
def test_the_command_refuses_in_one_line(tmp_path, capsys, argv, expected, status):
    missing = str(tmp_path / "none.sqlite")
    argv = [word.format(missing=missing) for word in argv]
    assert main(["history", *argv]) == status
    assert capsys.readouterr().err == f"hpcprobe: {expected.format(missing=missing)}\n"
    assert not Path(missing).exists()


def test_the_command_refuses_a_corrupted_file_in_one_line(tmp_path, capsys):
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"\x00garbage" * 1000)
    assert main(["history", "--file", str(path)]) == 4
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and str(path) in error and "move it away" in error


def test_a_history_that_is_off_needs_a_file(monkeypatch, capsys):
    monkeypatch.setenv("HPCPROBE_HISTORY", "off")
    assert main(["history"]) == 2
    assert "the history is off" in capsys.readouterr().err


def test_ages_for_since():
    assert since_time("7d") < since_time("1h") < since_time("1m")
    assert since_time("2026-11-29T06:00:00+01:00") == "2026-11-29T05:00:00.000Z"


RECORD = {"benchmark": "ra", "variant": "star", "algorithm": "serial",
          "value": {"metric": "update_rate", "value": 2e7, "unit": "updates/s"},
          "validation": {"verdict": "passed"}, "metadata": {"hosts": ["n1"]}}


def test_the_hook_stores_one_run_per_launch(tmp_path):
    env = {"HPCPROBE_HISTORY": str(tmp_path / "h.sqlite")}
    run = keep_launch(["hpcprobe", "ra", "star"], [RECORD, RECORD], "2026-11-29T05:00:00Z",
                      "2026-11-29T05:01:00Z", "launch-1", env)
    assert run == 1
    with open_history(env["HPCPROBE_HISTORY"]) as history:
        assert history.run_count() == 1 and len(history.series()) == 2
    assert keep_launch(["x"], [{"no": "figures"}], "2026-11-29", "2026-11-29", None, env) is None


def test_the_hook_writes_nothing_when_the_history_is_off(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert keep_launch(["x"], [RECORD], "2026-11-29", "2026-11-29", None,
                       {"HPCPROBE_HISTORY": "off"}) is None
    assert list(tmp_path.iterdir()) == []


def test_the_hook_warns_once_and_never_raises(tmp_path, capsys):
    bad = tmp_path / "h.sqlite"
    bad.write_bytes(b"not a database" * 500)
    for _ in range(3):
        assert keep_launch(["x"], [RECORD], "2026-11-29", "2026-11-29", None,
                           {"HPCPROBE_HISTORY": str(bad)}) is None
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hpcprobe: warning: history not written")


@pytest.fixture
def fake_env(tmp_path):
    bench = stand_in_bench(tmp_path / "bin" / "hpcprobe-bench")
    return dict(os.environ, HPCPROBE_BENCH=str(bench), HPCPROBE_HISTORY=str(
        tmp_path / "h.sqlite"), FAKE_ARGV_FILE=str(tmp_path / "argv.jsonl"))


def launch_ra(env, out, repeat="1"):
    return run_hpcprobe("ra", "single", "--np", "1", "--table-log2", "14", "--repeat", repeat,
                        "--allow-noncompliant", "--out", str(out), "--launcher", TEMPLATE,
                        env=env)


def test_every_launch_goes_into_the_history(tmp_path, fake_env):
    completed = launch_ra(fake_env, tmp_path / "out", repeat="2")
    assert completed.returncode == 0, completed.stderr
    with open_history(fake_env["HPCPROBE_HISTORY"]) as history:
        points = history.series()
        assert history.run_count() >= 1
    assert points and all(point.figure.startswith("ra.single.") for point in points)
    assert "history" not in completed.stderr


def test_a_history_that_cannot_be_written_never_fails_a_launch(tmp_path, fake_env):
    Path(fake_env["HPCPROBE_HISTORY"]).write_bytes(b"not a database" * 500)
    completed = launch_ra(fake_env, tmp_path / "out")
    assert completed.returncode == 0, completed.stderr
    warnings = [line for line in stderr_lines(completed) if "history" in line]
    assert len(warnings) == 1 and "history not written" in warnings[0]
