"""The screen's link rule (docs/screen.md, "Links"): one bad pair named; a node whose
every link is bad has a bad link of its own when it is fine, none when it is slow; a
link of a slow node unjudged; lower-is-better checks; medians of repeated pairs."""

import json
from dataclasses import asdict

import pytest

from hpcprobe.screen.links import OWN_LINK, confirm_links, judge_links
from hpcprobe.screen.verdicts import NodeVerdict, PairFigure, Thresholds

GB = 1e9
NOISE = (1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015, 0.985, 1.0)

# Links

HOSTS = [f"n{i}" for i in range(8)]


def all_pairs(value_of, check="pair-bandwidth", higher=True):
    """Every pair of HOSTS once, with value_of(a, b)."""
    return [PairFigure(a, b, check, value_of(a, b), "B/s", higher, True)
            for i, a in enumerate(HOSTS) for b in HOSTS[i + 1:]]


def ok_nodes(**exceptions):
    state = dict.fromkeys(HOSTS, "ok")
    state.update(exceptions)
    return [NodeVerdict(host, state[host], (), "") for host in HOSTS]


def wobble(a, b):
    return 10 * GB * NOISE[(HOSTS.index(a) + 3 * HOSTS.index(b)) % len(NOISE)]


def bad_links(verdicts):
    return [(v.a, v.b) for v in verdicts if v.status == "bad"]


def test_one_bad_link_is_named():
    pairs = all_pairs(lambda a, b: 2.5 * GB if {a, b} == {"n2", "n6"} else wobble(a, b))
    verdicts = judge_links(pairs, ok_nodes())
    assert bad_links(verdicts) == [("n2", "n6")]
    bad = next(v for v in verdicts if v.status == "bad")
    assert bad.ratio == pytest.approx(0.25, abs=0.01) and bad.value == 2.5 * GB
    assert "both ends good elsewhere" in bad.reason
    assert {v.status for v in verdicts if v.status != "bad"} == {"ok"}


def test_a_fine_node_whose_every_link_is_bad_has_a_bad_link_of_its_own():
    """Every link of n3 looks bad and n3 itself is fine: none of its pairs is called bad
    (n3 has no good link), its own link is."""
    pairs = all_pairs(lambda a, b: 2.5 * GB if "n3" in (a, b) else wobble(a, b))
    verdicts = judge_links(pairs, ok_nodes())
    assert bad_links(verdicts) == [("n3", OWN_LINK)]
    own = verdicts[-1]
    assert own.ratio == pytest.approx(0.25, abs=0.01) and own.value == 2.5 * GB
    assert "every one of its 7 links" in own.reason and "21 links without it" in own.reason
    unknown = [v for v in verdicts if v.status == "unknown"]
    assert len(unknown) == 7 and all("n3" in (v.a, v.b) for v in unknown)
    assert all("n3 has no other good link" in v.reason for v in unknown)


def test_a_slow_node_or_a_fleet_without_good_links_has_no_bad_link():
    pairs = all_pairs(lambda a, b: 2.5 * GB if "n3" in (a, b) else wobble(a, b))
    assert bad_links(judge_links(pairs, ok_nodes(n3="slow"))) == []
    four = {"n0", "n1", "n2", "n3"}  # n3's 3 links, and 3 good links without it
    few = [pair for pair in pairs if {pair.a, pair.b} <= four]
    assert bad_links(judge_links(few, ok_nodes())) == [("n3", OWN_LINK)]
    strict = Thresholds(min_peers=4)
    assert bad_links(judge_links(few, ok_nodes(), strict)) == []


def test_a_link_of_a_slow_or_failed_node_is_not_judged():
    pairs = all_pairs(lambda a, b: 2.5 * GB if {a, b} == {"n2", "n6"} else wobble(a, b))
    for state in ("slow", "failed", "suspect"):
        verdicts = judge_links(pairs, ok_nodes(n6=state))
        assert bad_links(verdicts) == []
        link = next(v for v in verdicts if {v.a, v.b} == {"n2", "n6"})
        assert link.status == "unknown" and f"n6 is {state}" in link.reason


def test_a_bad_link_of_a_lower_is_better_check():
    pairs = all_pairs(lambda a, b: (4e-6 if {a, b} == {"n0", "n1"} else wobble(a, b) / GB
                                    * 1e-7), "pair-latency", higher=False)
    verdicts = judge_links(pairs, ok_nodes())
    assert bad_links(verdicts) == [("n0", "n1")]
    fast = all_pairs(lambda a, b: (0.2e-6 if {a, b} == {"n0", "n1"} else 1e-6),
                     "pair-latency", higher=False)
    assert bad_links(judge_links(fast, ok_nodes())) == []


def test_a_link_measured_twice_counts_its_median():
    pairs = all_pairs(wobble)
    pairs += [PairFigure("n5", "n4", "pair-bandwidth", 1 * GB, "B/s", True, True),
              PairFigure("n4", "n5", "pair-bandwidth", 1.2 * GB, "B/s", True, True)]
    verdicts = judge_links(pairs, ok_nodes())
    link = [v for v in verdicts if {v.a, v.b} == {"n4", "n5"}]
    assert len(link) == 1 and (link[0].a, link[0].b) == ("n4", "n5")
    assert link[0].value == pytest.approx(1.2 * GB)  # median of 3: wobble, 1, 1.2 GB/s
    assert bad_links(verdicts) == [("n4", "n5")]


def test_links_without_a_figure_or_too_few_are_unknown():
    pairs = all_pairs(wobble)[:3]
    pairs.append(PairFigure("n6", "n7", "pair-bandwidth", float("nan"), "B/s", True, True))
    pairs.append(PairFigure("n5", "n7", "pair-bandwidth", 1 * GB, "B/s", True, False))
    verdicts = judge_links(pairs, ok_nodes())
    assert [v.status for v in verdicts] == ["unknown"] * 5
    assert "only 3 links measured" in verdicts[0].reason
    assert verdicts[3].reason == "no validated positive figure" and verdicts[3].value is None
    json.dumps([asdict(v) for v in verdicts], allow_nan=False)


def test_each_check_of_links_is_judged_on_its_own():
    pairs = all_pairs(wobble) + all_pairs(
        lambda a, b: 5e-6 if {a, b} == {"n1", "n7"} else 1e-6, "pair-latency", False)
    verdicts = judge_links(pairs, ok_nodes())
    assert [(v.check, v.a, v.b) for v in verdicts if v.status == "bad"] == [
        ("pair-latency", "n1", "n7")]
    assert len(verdicts) == 56


def test_a_link_to_itself_is_refused():
    with pytest.raises(ValueError, match="a link from host 'n1' to itself"):
        judge_links([PairFigure("n1", "n1", "pair-bandwidth", 1.0, "B/s", True, True)], [])


def test_a_bad_link_is_kept_only_where_its_repeat_is_bad_too():
    once = all_pairs(lambda a, b: 2.5 * GB if {a, b} == {"n2", "n6"} else wobble(a, b))
    twice = all_pairs(lambda a, b: 2.4 * GB if {a, b} == {"n2", "n6"} else wobble(a, b))
    first = judge_links(once, ok_nodes())
    kept = confirm_links(first, judge_links(twice, ok_nodes()))
    assert bad_links(kept) == [("n2", "n6")]
    assert next(v for v in kept if v.status == "bad").reason.endswith(": confirmed")
    cleared = confirm_links(first, judge_links(all_pairs(wobble), ok_nodes()))
    assert bad_links(cleared) == []
    link = next(v for v in cleared if {v.a, v.b} == {"n2", "n6"})
    assert link.status == "ok" and link.reason.startswith("bad once (")
    assert "not reproduced" in link.reason
    assert [v for v in cleared if v is not link] == [v for v in first if v.status != "bad"]


def test_an_own_link_is_confirmed_by_its_repeat_and_one_not_measured_again_cleared():
    pairs = all_pairs(lambda a, b: 2.5 * GB if "n3" in (a, b) else wobble(a, b))
    first = judge_links(pairs, ok_nodes())
    assert bad_links(confirm_links(first, judge_links(pairs, ok_nodes()))) == [
        ("n3", OWN_LINK)]
    gone = confirm_links(first, [])
    assert bad_links(gone) == [] and "repeat not measured" in gone[-1].reason
