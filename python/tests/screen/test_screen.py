"""`hpcprobe screen` (part C of issue 43): the per-node figures from hand-made records,
the node-pair figures, the plan and its time model, the options' refusals, and a screen
of this machine (one node: nothing to compare it with, so "unjudged", exit 1). The
screen on emulated hosts is in python/tests/cluster/test_integration_screen.py."""

import json

import pytest
from helpers import run_hpcprobe

from hpcprobe.screen.checks import battery_check, node_figures, per_host_sums
from hpcprobe.screen.pairs import pair_check, pair_figures
from hpcprobe.screen.plan import DEFAULT_BUDGET_S, pair_rounds, plan, screen_time_s


def star_record(values, rank_hosts, hosts, verdict="passed", status="ok",
                name="star_triad_best_bandwidth", benchmark="stream", variant="star"):
    return {"benchmark": benchmark, "variant": variant, "status": status,
            "validation": {"verdict": verdict},
            "metadata": {"hosts": hosts, "rank_hosts": rank_hosts},
            "series": [{"name": name, "x_name": "rank", "unit": "B/s",
                        "x": list(range(len(values))), "y": values}]}


def test_each_node_sums_its_ranks():
    record = star_record([1.0, 2.0, 10.0, 20.0, 5.0], [0, 0, 1, 1, 2], ["a", "b", "c"])
    assert per_host_sums(record, "star_triad_best_bandwidth") == {"a": 3.0, "b": 30.0,
                                                                  "c": 5.0}
    figures = node_figures(battery_check("stream"), [record], ["a", "b", "c"])
    assert [(f.host, f.value, f.validated, f.higher_is_better) for f in figures] == [
        ("a", 3.0, True, True), ("b", 30.0, True, True), ("c", 5.0, True, True)]


def test_a_node_latency_is_its_ranks_median_and_lower_is_better():
    record = star_record([90e-9, 100e-9, 400e-9, 80e-9, 85e-9, 200e-9], [0, 0, 0, 1, 1, 2],
                         ["a", "b", "c"], name="memory_latency_per_rank", benchmark="mem",
                         variant="latency")
    figures = node_figures(battery_check("latency"), [record], ["a", "b", "c"])
    assert [(f.host, f.unit, f.validated, f.higher_is_better) for f in figures] == [
        ("a", "s", True, False), ("b", "s", True, False), ("c", "s", True, False)]
    # one slow rank of three does not move its node's median; a sum would triple it
    assert [f.value for f in figures] == pytest.approx([100e-9, 82.5e-9, 200e-9])
    stream_only = star_record([1.0], [0], ["a"])
    assert node_figures(battery_check("latency"), [stream_only], ["a"])[0].value is None


def test_a_node_ra_figure_sums_its_ranks_best_rates():
    record = star_record([1e7, 2e7, 3e7, 4e7], [0, 1, 0, 1], ["a", "b"],
                         name="best_update_rate", benchmark="ra")
    figures = node_figures(battery_check("ra"), [record], ["a", "b"])
    assert [(f.host, f.value, f.unit, f.validated, f.higher_is_better) for f in figures] == [
        ("a", 4e7, "updates/s", True, True), ("b", 6e7, "updates/s", True, True)]
    record["validation"]["verdict"] = "failed"
    assert not any(f.validated for f in node_figures(battery_check("ra"), [record],
                                                     ["a", "b"]))


def test_a_host_the_record_left_out_or_a_failed_record_is_unvalidated():
    record = star_record([1.0, 2.0], [0, 0], ["a"])
    figures = node_figures(battery_check("stream"), [record], ["a", "b"])
    assert [(f.host, f.value, f.validated) for f in figures] == [("a", 3.0, True),
                                                                  ("b", None, False)]
    failed = star_record([1.0, 2.0], [0, 1], ["a", "b"], verdict="failed")
    assert not any(f.validated for f in node_figures(battery_check("stream"), [failed],
                                                     ["a", "b"]))
    assert [f.value for f in node_figures(battery_check("stream"), [], ["a"])] == [None]


def test_hostile_rank_hosts_and_series_are_skipped_not_trusted():
    record = star_record([1.0, 2.0, 3.0], [0, 7, "x"], ["a"])
    assert per_host_sums(record, "star_triad_best_bandwidth") == {"a": 1.0}
    record["series"][0]["x_name"] = "bytes"  # not per rank: no figure
    assert per_host_sums(record, "star_triad_best_bandwidth") == {}
    assert per_host_sums({"metadata": "junk", "series": "junk"}, "x") == {}


def pairs_record(matrix, rank_hosts, hosts, size=1 << 20, medians=None):
    return {"benchmark": "pairs", "variant": "bandwidth", "status": "ok",
            "validation": {"verdict": "passed"}, "parameters": {"message_bytes": size},
            "metadata": {"hosts": hosts, "rank_hosts": rank_hosts},
            "matrices": [{"name": "bandwidth_max", "values": matrix},
                         {"name": "bandwidth", "values": medians or [[0.5] * 3] * 3}]}


def test_a_node_pair_is_its_slower_direction_and_unmeasured_pairs_are_left_out():
    matrix = [[None, 100.0, None], [80.0, None, 50.0], [None, None, None]]
    record = pairs_record(matrix, [0, 1, 2], ["a", "b", "c"])
    found = [(f.a, f.b, f.value) for f in pair_figures(pair_check("pair-bandwidth"), record)]
    assert found == [("a", "b", 80.0), ("b", "c", 50.0)]
    medians = [[None, 10.0, None], [8.0, None, 5.0], [None, None, None]]
    latency = pair_figures(pair_check("pair-latency"), pairs_record(
        matrix, [0, 1, 2], ["a", "b", "c"], 8, medians))
    assert [(f.a, f.b, f.value, f.higher_is_better) for f in latency] == [
        ("a", "b", 8 / 8.0, False), ("b", "c", 8 / 5.0, False)]


def test_ranks_of_one_host_make_no_node_pair():
    record = pairs_record([[None, 9.0], [9.0, None]], [0, 0], ["a"])
    assert pair_figures(pair_check("pair-bandwidth"), record) == []


def test_the_pair_rounds_grow_as_nodes_minus_one():
    assert [pair_rounds(n) for n in (1, 2, 3, 4, 8, 4096)] == [0, 1, 3, 3, 7, 4095]


def test_the_plan_battery_is_constant_and_pairs_fit_the_budget():
    checks = ("dgemm", "stream", "pair-bandwidth", "pair-latency")
    small = plan(8, 4, checks)
    assert [(p.check, p.ranks, p.ppn) for p in small] == [
        ("dgemm", 32, 4), ("stream", 32, 4), ("pair-bandwidth", 8, 1), ("pair-latency", 8, 1)]
    assert all(p.rounds == p.rounds_total == 7 for p in small[2:])
    big = plan(4096, 4, checks)
    assert all(p.rounds < p.rounds_total for p in big[2:])  # sampled to the budget
    assert all(p.rounds >= 3 for p in big[2:])              # every node in several pairs
    assert big[0].predicted_s - small[0].predicted_s < 5    # launch start alone grows
    times = [screen_time_s(n, DEFAULT_BUDGET_S, checks) for n in (2, 64, 512, 4096)]
    assert times == sorted(times)
    assert times[-1] <= 600 and times[-1] <= DEFAULT_BUDGET_S * 1.05
    assert plan(1, 4, checks)[-1].check == "stream"  # one node: no pairs


def run(*args, timeout=300):
    return run_hpcprobe("screen", *args, timeout=timeout)


@pytest.mark.parametrize("args, expected", [
    (("--checks", "dgemm,bogus"), "unknown check 'bogus' for --checks (allowed: dgemm, "),
    (("--checks", "gpu"), "check 'gpu' cannot judge nodes yet: no per-node GPU figure yet"),
    (("--checks", ","), "--checks must name at least one of"),
    (("--nodes", "3"), "--nodes 3: this machine has 1 node (give --plan"),
    (("--threshold-ratio", "1.5"), "--threshold-ratio must be a number in (0, 1)"),
])
def test_bad_options_are_refused_in_one_line(args, expected):
    completed = run(*args, timeout=60)
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], completed.stderr


def test_plan_predicts_4096_nodes_within_ten_minutes():
    completed = run("--plan", "--nodes", "4096", timeout=60)
    assert completed.returncode == 0, completed.stderr
    predicted = [line for line in completed.stdout.splitlines() if line.startswith("predicted")]
    seconds = float(predicted[0].split()[1])
    assert 60 < seconds <= 600
    assert "of 4095 rounds" in completed.stdout


def test_one_node_is_unjudged_and_the_exit_status_says_not_ok(tmp_path):
    out = tmp_path / "screen"
    completed = run("--out", str(out), "--quiet", "--history", "off")
    assert completed.returncode == 1, completed.stderr
    data = json.loads((out / "screen.json").read_text())
    assert data["format"] == "hpcprobe-screen-1"
    assert len(data["hosts"]) == 1 and data["links"] == [] and data["pairs"] == []
    node = data["nodes"][0]
    assert node["status"] == "unjudged"
    assert {check["check"] for check in node["checks"]} == {"dgemm", "stream", "latency",
                                                            "ra"}
    assert all(check["value"] > 0 for check in node["checks"])
    assert "one node: no node pairs to measure" in data["notes"]
    assert "unjudged" in completed.stdout
    records = (out / "results.jsonl").read_text().splitlines()
    assert {json.loads(line)["benchmark"] for line in records} == {"dgemm", "stream", "mem",
                                                                   "ra"}


def args_for(**given):
    import argparse
    values = dict(cluster=None, nodes=None, plan=False)
    values.update(given)
    return argparse.Namespace(**values)


def test_the_nodes_come_from_the_allocation_or_this_machine():
    from hpcprobe.errors import UsageError
    from hpcprobe.screen.command import layout_of
    slurm = {"SLURM_JOB_ID": "7", "SLURM_JOB_NUM_NODES": "4", "SLURM_NTASKS": "32"}
    layout = layout_of(args_for(), slurm)
    assert (layout.nodes, layout.cores, layout.hosts) == (4, 8, ())
    assert layout_of(args_for(nodes=2), slurm).nodes == 2
    with pytest.raises(UsageError, match="--nodes 5: the Slurm allocation has 4 nodes"):
        layout_of(args_for(nodes=5), slurm)
    assert layout_of(args_for(nodes=4096, plan=True), {}).nodes == 4096
    with pytest.raises(UsageError, match="SLURM_JOB_NUM_NODES must be a node count"):
        layout_of(args_for(), dict(slurm, SLURM_JOB_NUM_NODES="4(x2)"))
    alone = layout_of(args_for(), {})
    assert alone.nodes == 1 and len(alone.hosts) == 1


def test_history_off_is_a_note_and_reads_and_writes_nothing():
    from hpcprobe.screen.history_link import ScreenHistory
    notes = []
    history = ScreenHistory.open("off", notes)
    assert history.database is None and notes == [
        "history: off (--history off): peers alone judge"]
    assert history.baselines(["a"], ["stream"]) == {}
    history.add([], None, None)  # nothing to write, nothing raised


def test_baselines_are_read_per_host_and_check_as_screen_figures():
    from hpcprobe.screen.history_link import ScreenHistory

    class Database:
        asked = []

        def baseline(self, host, figure, last):
            self.asked.append((host, figure, last))
            return [1.0, 2.0] if host == "a" else []

    history = ScreenHistory(Database(), [])
    assert history.baselines(["a", "b"], ["stream"]) == {("a", "stream"): [1.0, 2.0]}
    assert Database.asked == [("a", "screen.stream", 20), ("b", "screen.stream", 20)]
