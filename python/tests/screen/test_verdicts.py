"""The screen's verdicts on made-up figures: robust statistics (one outlier, two, a bimodal
fleet, a fleet of two), lower-is-better checks, failed and unusable figures, the repeat of
a suspect, the link rule, and drain lines for hostile host names."""

import json
import math
import shlex
from dataclasses import asdict

import pytest

from hpcprobe.errors import UsageError
from hpcprobe.screen.verdicts import (NodeFigure, NodeVerdict, Thresholds,
                                      confirm, drain_lines, judge_nodes, robust_z)

GB = 1e9
# Small spread around 1: a fleet's figures are never exactly equal.
NOISE = (1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015, 0.985, 1.0)


def fleet(values, check="stream", unit="B/s", higher=True, validated=True):
    """NodeFigures of one check, host n0, n1, ... in order."""
    return [NodeFigure(f"n{i}", check, value, unit, higher, validated)
            for i, value in enumerate(values)]


def noisy(count, scale=10 * GB):
    return [scale * NOISE[i % len(NOISE)] for i in range(count)]


def status(verdicts):
    return {verdict.host: verdict.status for verdict in verdicts}


def flagged(verdicts):
    return sorted(host for host, state in status(verdicts).items() if state != "ok")


# Robust z

def test_robust_z_is_the_modified_z_score():
    z = robust_z({"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0, "e": 100.0})
    # median 3, absolute deviations 2 1 0 1 97 -> MAD 1
    assert z == pytest.approx({"a": -1.349, "b": -0.6745, "c": 0.0, "d": 0.6745,
                               "e": 65.4265})


def test_robust_z_where_mad_is_zero():
    assert robust_z({"a": 5.0, "b": 5.0, "c": 5.0, "d": 1.0}) == {
        "a": 0.0, "b": 0.0, "c": 0.0, "d": -math.inf}
    assert robust_z({}) == {}


# Outliers

def test_one_outlier_is_the_only_suspect():
    values = noisy(8)
    values[5] = 5 * GB
    verdicts = judge_nodes(fleet(values), {})
    assert flagged(verdicts) == ["n5"]
    slow = verdicts[5]
    assert slow.status == "suspect"
    check = slow.checks[0]
    assert check.status == "slow" and check.ratio == pytest.approx(0.5, abs=0.01)
    assert check.z < -3.5 and check.median == pytest.approx(10 * GB, rel=0.01)
    assert "0.50 of the peer median" in check.reason and "robust z" in check.reason
    assert all(v.checks[0].status == "ok" for v in verdicts if v.host != "n5")


def test_one_outlier_in_a_fleet_of_equal_figures():
    """MAD 0: the ratio alone decides; a mild difference stays ok."""
    verdicts = judge_nodes(fleet([100.0, 100.0, 100.0, 100.0, 50.0, 90.0]), {})
    assert status(verdicts) == {"n0": "ok", "n1": "ok", "n2": "ok", "n3": "ok",
                                "n4": "suspect", "n5": "ok"}
    assert "MAD is 0" in verdicts[4].checks[0].reason
    assert verdicts[4].checks[0].z is None


def test_two_outliers_are_both_suspects():
    values = noisy(10)
    values[2], values[7] = 6 * GB, 4 * GB
    assert flagged(judge_nodes(fleet(values), {})) == ["n2", "n7"]


def test_a_node_beyond_the_spread_but_within_the_ratio_is_ok():
    """Both rules: a tight fleet makes 0.9 a large z, but 0.9 is within 0.85."""
    values = noisy(8)
    values[3] = 9 * GB
    verdicts = judge_nodes(fleet(values), {})
    assert flagged(verdicts) == []
    assert verdicts[3].checks[0].ratio == pytest.approx(0.9, abs=0.01)


def test_a_noisy_fleet_keeps_a_node_inside_its_spread():
    """Worse than the ratio but inside a wide, single-group spread: not slow."""
    values = [100.0, 80.0, 120.0, 90.0, 110.0, 70.0, 130.0, 95.0, 105.0]
    verdicts = judge_nodes(fleet(values), {})
    assert flagged(verdicts) == []
    assert "inside the fleet's spread" in verdicts[5].checks[0].reason


def test_a_bimodal_fleet_has_no_slow_node_and_says_why():
    values = noisy(4, 7 * GB) + noisy(4, 10 * GB)
    verdicts = judge_nodes(fleet(values), {})
    assert not any(v.status in ("slow", "suspect") for v in verdicts)
    low, high = verdicts[:4], verdicts[4:]
    assert all(v.status == "unjudged" for v in low)
    assert all(v.status == "ok" for v in high)
    assert ("the fleet splits (4 nodes near 0.83 and 4 nodes near 1.18 of the fleet median): "
            "the peers cannot judge which group is right") in low[0].reason


def test_a_bimodal_fleet_is_judged_by_each_node_s_history():
    values = noisy(4, 7 * GB) + noisy(4, 10 * GB)
    history = {("n0", "stream"): [7 * GB] * 5, ("n1", "stream"): [10 * GB] * 5}
    verdicts = judge_nodes(fleet(values), history)
    assert verdicts[0].status == "ok" and verdicts[1].status == "suspect"
    assert verdicts[1].checks[0].history_ratio == pytest.approx(0.707, abs=0.01)
    assert "history: 0.71 of the own median of 5 past runs" in verdicts[1].reason
    assert verdicts[2].status == "unjudged"


def test_several_checks_per_node():
    dgemm = noisy(6, 1e11)
    dgemm[2] = dgemm[4] = 0.5e11
    figures = fleet(noisy(6)) + fleet(dgemm, "dgemm", "flop/s")
    figures[4] = NodeFigure("n4", "stream", 10 * GB, "B/s", True, False)
    verdicts = judge_nodes(figures, {})
    assert status(verdicts) == {"n0": "ok", "n1": "ok", "n2": "suspect", "n3": "ok",
                                "n4": "failed", "n5": "ok"}
    assert [c.status for c in verdicts[2].checks] == ["ok", "slow"]
    assert verdicts[2].reason.startswith("slow: dgemm: peers: 0.50 of the peer median")
    assert verdicts[4].reason.startswith("failed: stream: figure not validated; slow: dgemm")
    assert verdicts[0].reason == "ok (2 checks judged)"


# Few nodes and history

def test_a_fleet_of_two_nodes_cannot_be_judged_by_its_peers():
    verdicts = judge_nodes(fleet([10 * GB, 5 * GB]), {})
    assert status(verdicts) == {"n0": "unjudged", "n1": "unjudged"}
    assert "1 peer, fewer than 3: the peers cannot judge" in verdicts[1].reason
    assert "0 past values" in verdicts[1].reason
    # The ratio is still shown (a repeat and the report use it), but did not judge.
    assert verdicts[1].checks[0].ratio == pytest.approx(0.5)
    assert verdicts[1].checks[0].z is None


def test_a_fleet_of_two_nodes_is_judged_by_history():
    history = {("n0", "stream"): [10 * GB, 9.9 * GB, 10.1 * GB],
               ("n1", "stream"): [10 * GB, None, float("nan"), 10.2 * GB, 9.8 * GB]}
    verdicts = judge_nodes(fleet([10 * GB, 5 * GB]), history)
    assert status(verdicts) == {"n0": "ok", "n1": "suspect"}
    assert verdicts[1].checks[0].history_ratio == pytest.approx(0.5)
    assert "own median of 3 past runs" in verdicts[1].reason


def test_too_short_a_history_does_not_judge():
    history = {("n1", "stream"): [10 * GB, 10 * GB]}
    verdicts = judge_nodes(fleet([10 * GB, 5 * GB]), history)
    assert verdicts[1].status == "unjudged"
    assert "2 past values, fewer than 3" in verdicts[1].reason
    lenient = judge_nodes(fleet([10 * GB, 5 * GB]), history, Thresholds(min_history=2))
    assert lenient[1].status == "suspect"


def test_history_finds_a_slowdown_the_peers_share():
    """The whole fleet slowed: the peers see nothing, each node's past does."""
    history = {(f"n{i}", "stream"): [10 * GB] * 4 for i in range(6)}
    verdicts = judge_nodes(fleet(noisy(6, 7 * GB)), history)
    assert all(v.status == "suspect" for v in verdicts)
    assert all(v.checks[0].ratio == pytest.approx(1, abs=0.05) for v in verdicts)


# Lower is better

def test_lower_is_better_checks_turn_the_rule_around():
    values = noisy(8, 100e-9)
    values[1], values[6] = 150e-9, 50e-9  # slower; faster
    verdicts = judge_nodes(fleet(values, "latency", "s", higher=False), {})
    assert flagged(verdicts) == ["n1"]
    assert verdicts[1].checks[0].z > 3.5 and verdicts[1].checks[0].ratio > 1 / 0.85
    assert verdicts[1].checks[0].higher_is_better is False


def test_lower_is_better_history():
    history = {("n0", "latency"): [100e-9] * 3, ("n1", "latency"): [100e-9] * 3}
    verdicts = judge_nodes(fleet([110e-9, 125e-9], "latency", "s", higher=False), history)
    assert status(verdicts) == {"n0": "ok", "n1": "suspect"}


# Failed and unusable figures

def test_an_unvalidated_figure_fails_the_node_and_is_no_reference():
    figures = fleet(noisy(6))
    figures.append(NodeFigure("n6", "stream", 1 * GB, "B/s", True, False))
    verdicts = judge_nodes(figures, {})
    assert verdicts[6].status == "failed"
    assert verdicts[6].reason == "failed: stream: figure not validated"
    assert flagged(verdicts) == ["n6"]
    assert verdicts[0].checks[0].median == pytest.approx(10 * GB, rel=0.02)


@pytest.mark.parametrize("value, why", [
    (None, "no figure"), (float("nan"), "not a positive finite number"),
    (float("inf"), "not a positive finite number"), (0.0, "not a positive finite"),
    (-3.0, "not a positive finite"), (True, "not a positive finite"),
    ("10", "not a positive finite")])
def test_unusable_values_fail(value, why):
    figures = fleet(noisy(5)) + [NodeFigure("bad", "stream", value, "B/s", True, True)]
    verdicts = judge_nodes(figures, {})
    assert status(verdicts)["bad"] == "failed" and why in verdicts[-1].reason
    assert flagged(verdicts) == ["bad"]
    json.dumps([asdict(v) for v in verdicts], allow_nan=False)  # screen.json stays JSON


def test_a_host_missing_a_check_has_failed_it():
    figures = fleet(noisy(5)) + fleet(noisy(4, 1e11), "dgemm", "flop/s")
    verdicts = judge_nodes(figures, {})
    assert [c.check for c in verdicts[4].checks] == ["stream", "dgemm"]
    assert verdicts[4].status == "failed" and "dgemm: no figure" in verdicts[4].reason
    assert flagged(verdicts) == ["n4"]


def test_no_figure_at_all_judges_nothing():
    assert judge_nodes([], {}) == []


def test_a_node_with_one_unjudged_check_is_ok_and_says_so():
    figures = fleet(noisy(5)) + [NodeFigure("n0", "gpu", 1e12, "flop/s", True, True)]
    verdicts = judge_nodes(figures, {})
    assert verdicts[0].status == "ok"
    assert "ok (1 check judged); not judged: gpu: peers: 0 peers" in verdicts[0].reason
    assert verdicts[1].status == "failed"  # the other nodes have no gpu figure


@pytest.mark.parametrize("figures, message", [
    (fleet([1.0, 2.0]) + fleet([3.0]), "two figures of check 'stream' for host 'n0'"),
    (fleet([1.0]) + [NodeFigure("x", "stream", 1.0, "s", True, True)], "'B/s' and 's'")])
def test_a_caller_s_inconsistent_figures_are_refused(figures, message):
    with pytest.raises(ValueError, match=message):
        judge_nodes(figures, {})


@pytest.mark.parametrize("fields, message", [
    ({"ratio": 1.5}, "threshold ratio 1.5: allowed is a number between 0 and 1"),
    ({"link_ratio": 0}, "threshold link_ratio 0:"),
    ({"history_ratio": float("nan")}, "threshold history_ratio nan:"),
    ({"z": -1.0}, "threshold z -1.0: allowed is a positive number"),
    ({"z": float("inf")}, "threshold z inf"),
    ({"min_peers": 0}, "threshold min_peers 0: allowed is a whole number >= 1"),
    ({"min_history": 2.5}, "threshold min_history 2.5")])
def test_thresholds_out_of_range_are_refused_in_one_line(fields, message):
    with pytest.raises(UsageError, match=message) as caught:
        Thresholds(**fields)
    assert "\n" not in caught.value.message and caught.value.exit_status == 2


def test_thresholds_change_the_verdict():
    values = noisy(8)
    values[0] = 8 * GB
    assert flagged(judge_nodes(fleet(values), {})) == ["n0"]
    assert flagged(judge_nodes(fleet(values), {}, Thresholds(ratio=0.75))) == []
    assert flagged(judge_nodes(fleet(values), {}, Thresholds(z=1000.0))) == []


# The repeat of a suspect

def suspect_and_fleet():
    values = noisy(8)
    values[5] = 5 * GB
    return judge_nodes(fleet(values), {})


def repeat_of(value, peers=(10 * GB, 10.1 * GB), validated=True):
    """The suspect n5's verdict from a repeat launch with two ok peers."""
    figures = [NodeFigure("n5", "stream", value, "B/s", True, validated)]
    figures += [NodeFigure(f"p{i}", "stream", v, "B/s", True, True)
                for i, v in enumerate(peers)]
    return judge_nodes(figures, {})[0]


def test_a_repeat_that_is_slow_too_makes_the_node_slow():
    first = suspect_and_fleet()[5]
    again = repeat_of(5.2 * GB)
    assert again.status == "unjudged"  # two peers cannot judge; the ratio still counts
    final = confirm(first, again)
    assert final.status == "slow" and final.checks[0].status == "slow"
    assert "repeat 0.52 of the peer median: confirmed" in final.reason


def test_a_repeat_that_is_not_slow_clears_the_node():
    final = confirm(suspect_and_fleet()[5], repeat_of(9.9 * GB))
    assert final.status == "ok" and final.checks[0].status == "ok"
    assert "slow once (" in final.checks[0].reason
    assert final.reason == "ok (1 check judged); not reproduced in a repeat: stream"


def test_a_repeat_without_peers_compares_with_the_first_median():
    first = suspect_and_fleet()[5]
    assert confirm(first, repeat_of(5 * GB, peers=())).status == "slow"
    assert confirm(first, repeat_of(10 * GB, peers=())).status == "ok"


def test_a_failed_repeat_fails_the_node():
    final = confirm(suspect_and_fleet()[5], repeat_of(5 * GB, validated=False))
    assert final.status == "failed"
    assert "repeat: figure not validated" in final.reason


def test_a_suspect_not_repeated_stays_suspect():
    first = suspect_and_fleet()[5]
    assert confirm(first).status == "suspect"
    assert "not repeated" in confirm(first).reason
    other = NodeVerdict("n5", "suspect", repeat_of(5 * GB).checks[:0], "")
    assert confirm(first, other).status == "suspect"


def test_one_confirmed_check_of_two_makes_the_node_slow():
    figures = fleet([10 * GB, 10 * GB, 10 * GB, 5 * GB]) + fleet(
        [1e-7, 1e-7, 1e-7, 2e-7], "latency", "s", higher=False)
    first = judge_nodes(figures, {})[3]
    assert [c.status for c in first.checks] == ["slow", "slow"]
    again = judge_nodes([NodeFigure("n3", "stream", 10 * GB, "B/s", True, True),
                         NodeFigure("n3", "latency", 2e-7, "s", False, True)], {})[0]
    final = confirm(first, again)
    assert final.status == "slow"
    assert [c.status for c in final.checks] == ["ok", "slow"]


def test_confirm_leaves_other_nodes_alone():
    node = suspect_and_fleet()[0]
    assert confirm(node, repeat_of(1.0)) is node


def test_a_suspect_by_history_is_confirmed_by_history():
    history = {("n0", "stream"): [10 * GB] * 3, ("n1", "stream"): [10 * GB] * 3}
    first = judge_nodes(fleet([10 * GB, 5 * GB]), history)[1]
    assert first.status == "suspect"
    again = judge_nodes([NodeFigure("n1", "stream", 5.1 * GB, "B/s", True, True)], history)
    assert confirm(first, again[0]).status == "slow"
    again = judge_nodes([NodeFigure("n1", "stream", 9.8 * GB, "B/s", True, True)], history)
    assert confirm(first, again[0]).status == "ok"



# Drain lines

def verdict(host, state="slow", reason="stream: peers: 0.50 of the peer median"):
    return NodeVerdict(host, state, (), f"{state}: {reason}")


def test_drain_lines_for_slow_and_failed_nodes_only():
    nodes = [verdict("n1"), verdict("n2", "ok"), verdict("n3", "failed", "dgemm: no figure"),
             verdict("n4", "suspect"), verdict("n5", "unjudged")]
    assert drain_lines(nodes) == [
        "scontrol update NodeName=n1 State=DRAIN 'Reason=hpcprobe screen: slow: stream: "
        "peers: 0.50 of the peer median'",
        "scontrol update NodeName=n3 State=DRAIN 'Reason=hpcprobe screen: failed: dgemm: "
        "no figure'"]


def test_a_real_screen_drain_line_parses_into_five_words():
    values = noisy(8)
    values[5] = 5 * GB
    first = judge_nodes(fleet(values), {})[5]
    (line,) = drain_lines([confirm(first, repeat_of(5 * GB))])
    words = shlex.split(line)
    assert words[:4] == ["scontrol", "update", "NodeName=n5", "State=DRAIN"]
    assert len(words) == 5 and words[4].startswith("Reason=hpcprobe screen: slow: stream")


@pytest.mark.parametrize("host", [
    "n1; reboot", "n1\nscontrol update NodeName=n2 State=DOWN", "$(reboot)", "`id`",
    "n1 State=DOWN", "", "node[1-4]", "n1'", 'n1"', "nöde", "n1\x1b[2J", "n1\r",
    "n\u20281", "x" * 300])
def test_a_hostile_host_name_is_never_printed_raw(host):
    (line,) = drain_lines([verdict(host)])
    assert line.startswith("# refused: host name ") and "drain it by hand" in line
    # A comment of one printable ASCII line: the name shown escaped, never run.
    assert line.isprintable() and line.isascii() and len(line) < 200
    assert ascii(host[:64]) in line


@pytest.mark.parametrize("reason", [
    "x'; reboot; echo '", "a\nscontrol update NodeName=n9 State=DOWN", "$(id) `id`",
    "tab\there", "über \u2028 line", "y" * 1000])
def test_a_hostile_reason_stays_one_quoted_argument(reason):
    (line,) = drain_lines([verdict("n7", "failed", reason)])
    assert line.isascii() and line.isprintable()
    words = shlex.split(line)
    assert len(words) == 5 and words[2] == "NodeName=n7"
    assert words[4].startswith("Reason=hpcprobe screen: failed: ")
    assert len(words[4]) <= len("Reason=") + 200


def test_hosts_that_slurm_allows_are_printed():
    for host in ("node-01", "gpu.rack3", "a_b", "N9", "-lead"):
        (line,) = drain_lines([verdict(host)])
        assert shlex.split(line)[2] == f"NodeName={host}"
