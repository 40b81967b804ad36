"""Progress estimates, and `hpcprobe run --repeat K` with the real bench."""

import io
import os

from helpers import read_jsonl, run_hpcprobe, stand_in_bench
from rich.console import Console

from hpcprobe.progress import DurationEstimates, LiveProgress, PlainProgress, duration_text
from hpcprobe.results import read_records


def test_estimates_come_from_earlier_launches():
    estimates = DurationEstimates()
    assert estimates.estimate("ra single") is None
    assert estimates.remaining(["ra single"]) is None
    estimates.add("ra single", 2.0)
    estimates.add("ra star", 4.0)
    estimates.add("ra single", 4.0)
    assert estimates.estimate("ra single") == 3.0
    # a step never run counts at the mean of all launches so far (10/3 s)
    assert estimates.remaining(["ra single", "ra star", "ra mpi"]) == 3.0 + 4.0 + 10 / 3


def test_duration_text():
    assert [duration_text(s) for s in (0.42, 40, 150, 7200)] == ["0.4 s", "40 s", "2.5 min",
                                                                 "2.0 h"]


def _plain_lines(estimate, left):
    stream = io.StringIO()
    progress = PlainProgress(Console(file=stream, width=200))
    progress.begin(2, 6, "mem latency", 600.0, estimate, left)
    progress.end(True, 12.0)
    return stream.getvalue().splitlines()


def test_plain_lines_name_the_benchmark_and_the_estimate():
    assert _plain_lines(None, None) == ["[2/6] mem latency ...", "done in 12.0 s"]
    assert _plain_lines(12.0, 150.0)[:2] == ["[2/6] mem latency ...",
                                             "  estimate 12 s, about 2.5 min left in all"]


def test_the_live_bar_shows_the_estimate():
    stream = io.StringIO()
    progress = LiveProgress(Console(file=stream, width=160, force_terminal=True))
    progress.begin(1, 3, "ra star", 300.0, 20.0, 95.0)
    progress.update(5.0)
    text = progress._progress.get_renderable()  # the bar's line as rich would draw it
    shown = io.StringIO()
    Console(file=shown, width=160).print(text)
    progress.end(True, 6.0)
    assert "[1/3] ra star" in shown.getvalue()
    assert "5.0 s of ~20 s (budget 300 s)" in shown.getvalue()
    assert "all: ~1.5 min left" in shown.getvalue()  # 95 s less the 5 s elapsed
    # The line that stays: the step, its time, and the rest (95 s less its 20 s estimate).
    assert "[1/3] ra star: done in 6.0 s · about 75 s left" in stream.getvalue()


def test_run_repeat_merges_each_step(tmp_path):
    completed = run_hpcprobe("run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                             "--repeat", "2", "--out", str(tmp_path), timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "[1/8] ra single (round 1 of 2) ..." in completed.stderr
    assert "[5/8] ra single (round 2 of 2) ...\n  estimate " in completed.stderr
    raw = read_jsonl(tmp_path / "results.jsonl")
    assert [r["variant"] for r in raw] == ["single", "star", "mpi", "mpi"] * 2
    merged = read_records(tmp_path / "merged.jsonl")
    assert merged.problems == []
    assert [(r["variant"], r["algorithm"]) for r in merged.records] == [
        ("single", "serial"), ("star", "serial"), ("mpi", "reference"), ("mpi", "hypercube")]
    for record, first, second in zip(merged.records, raw[:4], raw[4:]):
        assert record["counters"]["merged_launches"] == 2
        assert record["metrics"][0]["samples"] == (first["metrics"][0]["samples"]
                                                   + second["metrics"][0]["samples"])
    assert "Statistics of every headline" in completed.stdout


def test_run_repeat_refuses_to_merge_launches_from_other_nodes(tmp_path):
    from test_runner import TEMPLATE
    bench = stand_in_bench(tmp_path / "hpcprobe-bench")
    env = dict(os.environ, HPCPROBE_BENCH=str(bench), FAKE_MODE="host_per_launch")
    completed = run_hpcprobe("run", "--suite", "quick", "--repeat", "2", "--launcher", TEMPLATE,
                             "--out", str(tmp_path / "out"), env=env)
    assert completed.returncode == 3
    refused = [line for line in completed.stderr.splitlines() if "cannot merge" in line]
    assert len(refused) == 4
    assert refused[0].startswith("hpcprobe: cannot merge the 2 records of 'ra single': "
                                 "metadata.hosts differs: [\"node-")
    assert refused[0].endswith("in launch 2; each is kept in results.jsonl")
    assert len(read_jsonl(tmp_path / "out" / "results.jsonl")) == 8
    assert not (tmp_path / "out" / "merged.jsonl").exists()
