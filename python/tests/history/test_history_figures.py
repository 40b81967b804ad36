"""figures_of: the figures a record gives the history, on hand-made and hostile records."""

import copy
import json
from pathlib import Path

import pytest

from hpcprobe.history import Figure, figures_of

DATA = Path(__file__).resolve().parents[1] / "data"


def record(hosts=("n1",), rank_hosts=None, ys=None, verdict="passed", **changes):
    made = {
        "benchmark": "dgemm", "variant": "star", "algorithm": "blas",
        "started_at": "2026-11-29T05:00:00.000Z",
        "value": {"metric": "flop_rate", "statistic": "median", "value": 4e10,
                  "unit": "flop/s"},
        "validation": {"verdict": verdict},
        "metadata": {"hosts": list(hosts)},
        "series": [],
    }
    if rank_hosts is not None:
        made["metadata"]["rank_hosts"] = rank_hosts
        made["series"].append({"name": "best_flop_rate", "x_name": "rank", "unit": "flop/s",
                               "x": list(range(len(rank_hosts))), "y": ys})
    made.update(changes)
    return made


def test_a_single_host_record_gives_its_headline():
    assert figures_of(record()) == [Figure("n1", "dgemm.star.blas.flop_rate", 4e10, "flop/s",
                                           True, "2026-11-29T05:00:00.000Z")]
    assert figures_of(record(algorithm=None))[0].figure == "dgemm.star.flop_rate"
    assert not figures_of(record(verdict="failed"))[0].validated
    assert not figures_of(record(verdict="not_validated"))[0].validated


def test_the_stored_stream_record():
    found = figures_of(json.loads((DATA / "stream-star.json").read_text()))
    assert [(f.host, f.figure, f.unit) for f in found] == [
        ("node001", "stream.star.openmp.star_triad_bandwidth", "B/s")]


def test_several_hosts_give_a_figure_per_host_summed_over_its_ranks():
    found = figures_of(record(("a", "b"), [0, 1, 0, 1, 1], [1.0, 10.0, 2.0, 20.0, 30.0]))
    assert [(f.host, f.figure, f.value) for f in found] == [
        ("a,b", "dgemm.star.blas.flop_rate", 4e10),
        ("a", "dgemm.star.blas.best_flop_rate", 3.0),
        ("b", "dgemm.star.blas.best_flop_rate", 60.0)]


def test_per_rank_times_are_not_summed_per_host():
    latency = record(("a", "b"), [0, 1, 0], [9e-8, 1e-7, 8e-8],
                     value={"metric": "memory_latency", "value": 9e-8, "unit": "s"})
    latency["series"][0].update(name="memory_latency_per_rank", unit="s")
    assert [(f.host, f.figure) for f in figures_of(latency)] == [
        ("a,b", "dgemm.star.blas.memory_latency")]


def test_a_host_with_a_rank_without_a_value_gets_no_sum():
    found = figures_of(record(("a", "b"), [0, 1, 0, 1], [1.0, 2.0, None, 4.0]))
    assert [(f.host, f.value) for f in found[1:]] == [("b", 6.0)]


def test_the_per_rank_series_must_be_the_headlines():
    made = record(("a", "b"), [0, 1], [1.0, 2.0])
    twin = copy.deepcopy(made["series"][0])
    made["series"].append(dict(twin, name="best_flop_rate_again"))
    assert len(figures_of(made)) == 1  # two candidates: neither is taken
    other_unit = record(("a", "b"), [0, 1], [1.0, 2.0])
    other_unit["series"][0]["unit"] = "B/s"
    assert len(figures_of(other_unit)) == 1
    stream = record(("a", "b"), [0, 1], [1.0, 2.0],
                    value={"metric": "star_triad_bandwidth", "value": 3.0, "unit": "B/s"})
    stream["series"] = [{"name": f"star_{kernel}_best_bandwidth", "x_name": "rank",
                         "unit": "B/s", "x": [0, 1], "y": [1.0, 2.0 if kernel == "triad" else 9]}
                        for kernel in ("copy", "triad")]
    assert [(f.host, f.figure, f.value) for f in figures_of(stream)[1:]] == [
        ("a", "dgemm.star.blas.star_triad_best_bandwidth", 1.0),
        ("b", "dgemm.star.blas.star_triad_best_bandwidth", 2.0)]


@pytest.mark.parametrize("x", [[0, 0], [0, 2], [0, 1.5], [0, True], [0], [0, 1, 2], "01",
                               [0, None]])
def test_a_series_that_does_not_cover_each_rank_once_gives_no_sums(x):
    made = record(("a", "b"), [0, 1], [1.0, 2.0])
    made["series"][0]["x"] = x
    assert len(figures_of(made)) == 1


@pytest.mark.parametrize("rank_hosts", [[0, 2], [0, -1], [0, 1.5], [0, True], "01", [],
                                        [0, None], None])
def test_rank_hosts_that_are_not_places_give_no_sums(rank_hosts):
    made = record(("a", "b"), [0, 1], [1.0, 2.0])
    made["metadata"]["rank_hosts"] = rank_hosts
    assert len(figures_of(made)) == 1


@pytest.mark.parametrize("change", [
    {"benchmark": "dg.emm"}, {"benchmark": None}, {"variant": "st ar"}, {"variant": 3},
    {"algorithm": "a\x1b[31m"}, {"algorithm": "x" * 65}, {"benchmark": "ra\u202e"},
    {"value": {"metric": "flop.rate", "value": 1.0, "unit": "flop/s"}},
    {"value": {"metric": "flop_rate", "value": 1.0, "unit": "flop/s\n"}},
    {"value": {"metric": "flop_rate", "value": 1.0, "unit": "u" * 33}},
    {"value": {"metric": "flop_rate", "value": 1.0}}, {"value": [1.0]}, {"value": None},
    {"metadata": {"hosts": []}}, {"metadata": {"hosts": "n1"}}, {"metadata": None},
    {"metadata": {"hosts": ["a,b"]}}, {"metadata": {"hosts": ["a", "a"]}},
    {"metadata": {"hosts": ["a b"]}}, {"metadata": {"hosts": [7]}},
    {"metadata": {"hosts": ["h" * 256]}},
])
def test_hostile_records_give_nothing(change):
    assert figures_of(record(**change)) == []


@pytest.mark.parametrize("value", [float("nan"), float("inf"), True, "4e10", None, [1.0]])
def test_a_headline_that_is_not_a_finite_number_is_left_out(value):
    made = record(("a", "b"), [0, 1], [1.0, 2.0])
    made["value"]["value"] = value
    assert [(f.host, f.value) for f in figures_of(made)] == [("a", 1.0), ("b", 2.0)]


@pytest.mark.parametrize("thing", [None, [], "record", 3, {"benchmark": "ra"}])
def test_what_is_not_a_record_gives_nothing(thing):
    assert figures_of(thing) == []


def test_a_start_that_is_not_a_time_leaves_the_time_to_the_run():
    assert figures_of(record(started_at="soon"))[0].time is None
    assert figures_of(record(started_at=12))[0].time is None
