"""Statistics over samples (known medians and intervals, modes, warnings), merging the
records of repeated launches, and reading schema versions."""

import random

import pytest
from helpers import golden

from hpcprobe.analysis.merge import MergeRefused, merge_records, merged_groups
from hpcprobe.analysis.stats import describe, find_modes, mad, median_ci
from hpcprobe.suite.repeat import merge_steps
from hpcprobe.results import parse_record_line, schema_problem


def test_known_median_mad_and_order_statistic_interval():
    stats = describe([5, 1, 9, 3, 7, 2, 8, 4, 6, 10])
    assert stats.count == 10 and stats.median == 5.5 and stats.mad == 2.5
    # n = 10: k = 2 (P(X <= 1) = 11/1024 <= 2.5 %, P(X <= 2) = 56/1024 > 2.5 %)
    assert (stats.ci_low, stats.ci_high) == (2.0, 9.0)
    assert stats.ci_method == "median, order statistics (97.9%)"


def test_interval_of_the_median_needs_six_samples():
    assert median_ci([1, 2, 3, 4, 5]) is None
    low, high, coverage = median_ci([1, 2, 3, 4, 5, 6])
    assert (low, high) == (1, 6) and coverage == pytest.approx(1 - 2 / 64)


def test_student_t_interval_for_few_samples():
    stats = describe([1.0, 1.1, 0.9])
    # mean 1, s = 0.1, t(0.975, 2) = 4.303: 1 ± 4.303 * 0.1 / sqrt(3)
    assert stats.ci_method == "mean, Student t"
    assert stats.ci_low == pytest.approx(1 - 0.24843, abs=1e-5)
    assert stats.ci_high == pytest.approx(1 + 0.24843, abs=1e-5)
    assert stats.cv == pytest.approx(0.1)


def test_missing_and_non_finite_samples_are_ignored():
    stats = describe([2.0, None, 4.0, float("nan"), "fast", True, 3.0])
    assert stats.count == 3 and stats.median == 3.0
    assert describe([]).count == 0 and describe([]).warnings == ("no samples",)


def test_a_bimodal_set_is_reported_as_two_modes():
    rng = random.Random(7)
    samples = ([rng.gauss(0.15e-6, 0.004e-6) for _ in range(12)]
               + [rng.gauss(0.37e-6, 0.01e-6) for _ in range(8)])
    rng.shuffle(samples)
    stats = describe(samples)
    assert [mode.count for mode in stats.modes] == [12, 8]
    assert stats.modes[0].median == pytest.approx(0.15e-6, rel=0.05)
    assert stats.modes[1].median == pytest.approx(0.37e-6, rel=0.05)
    assert stats.multimodal and any("2 modes" in warning for warning in stats.warnings)


def test_one_noisy_cluster_is_one_mode():
    for seed in range(50):
        rng = random.Random(seed)
        samples = [rng.gauss(1.0, 0.03) for _ in range(30)]
        assert len(find_modes(samples)) == 1, seed


def test_stability_warnings():
    assert describe([1.0, 1.01, 0.99, 1.0]).warnings == ()
    assert describe([1.0, 1.5, 0.6, 1.2]).warnings[0].startswith("unstable: CV")
    assert "too few" in describe([1.0, 1.0]).warnings[0]
    assert mad([1, 2, 3, 4, 100]) == 1


def _launch(rate_samples, **changes):
    record = golden("mpi")
    record["metrics"][0]["samples"] = rate_samples
    record["value"]["value"] = sorted(rate_samples)[len(rate_samples) // 2]
    for path, value in changes.items():
        section, _, key = path.partition("__")
        if key:
            record[section][key] = value
        else:
            record[section] = value
    return record


def test_merge_pools_samples_and_keeps_the_worst_verdict():
    first = _launch([1.0e7, 1.1e7, 1.2e7])
    second = _launch([3.0e7, 3.1e7, 2.9e7], finished_at="2025-01-15T11:00:00Z")
    second["validation"] = dict(second["validation"], verdict="failed", error=200.0)
    merged = merge_records([first, second])
    assert merged["metrics"][0]["samples"] == [1.0e7, 1.1e7, 1.2e7, 3.0e7, 3.1e7, 2.9e7]
    assert merged["value"]["value"] == pytest.approx(2.05e7)  # median of the six
    assert merged["validation"]["verdict"] == "failed" and merged["validation"]["error"] == 200
    assert merged["validation"]["per_repetition"] == [0, 0, 0, 0, 0, 0]
    assert merged["finished_at"] == "2025-01-15T11:00:00Z"
    assert merged["counters"]["merged_launches"] == 2
    assert merged["counters"]["merged_samples_per_launch"] == [3, 3]
    assert merged["notes"][-1].startswith("merged from 2 launches")
    assert schema_problem(merged) is None


@pytest.mark.parametrize("field, change, named", [
    ("metadata", {"hosts": ["node002"]}, "metadata.hosts"),
    ("metadata", {"git_commit": "other"}, "metadata.git_commit"),
    ("parameters", {"table_log2": 15}, "parameters"),
    ("layout", {"ranks": 2}, "layout"),
])
def test_merge_refuses_other_machines_and_configurations(field, change, named):
    other = _launch([1.0e7])
    other[field] = dict(other[field], **change)
    with pytest.raises(MergeRefused, match=f"^{named} differs"):
        merge_records([_launch([1.0e7]), other])
    merged, refused = merge_steps({"ra mpi": [_launch([1.0e7]), other]})
    assert merged == [] and named in refused["ra mpi"]


def test_merge_ignores_where_the_record_was_written():
    first, second = _launch([1.0e7]), _launch([2.0e7])
    second["metadata"]["command_line"] = [
        word if not word.endswith(".jsonl") else "/elsewhere/results.jsonl"
        for word in second["metadata"]["command_line"]]
    assert len(merged_groups([first, second])) == 1


def test_series_without_samples_take_the_median_of_the_launches():
    from helpers import DATA
    import json
    base = json.loads((DATA / "mem-latency.json").read_text())
    other = json.loads((DATA / "mem-latency.json").read_text())
    for entry in other["series"]:
        if entry["name"] == "time_per_access_many":
            entry["y"] = [2 * y for y in entry["y"]]
    third = json.loads((DATA / "mem-latency.json").read_text())
    merged = merge_records([base, other, third])
    many = next(s for s in merged["series"] if s["name"] == "time_per_access_many")
    original = next(s for s in base["series"] if s["name"] == "time_per_access_many")
    assert many["y"] == original["y"]  # median of (y, 2y, y)
    assert schema_problem(merged) is None


def test_a_newer_minor_version_with_an_added_field_is_read(monkeypatch):
    # A version only the reader knows (READER_VERSIONS) is read with its additions left
    # unchecked; 1.2 was read this way until the schema file listed it.
    import hpcprobe.results as results
    monkeypatch.setattr(results, "READER_VERSIONS", ("1.3",))
    record = golden("mpi")
    record.update(schema_version="1.3", matrix={"rows": [[1, 2], [3, 4]]})
    record["layout"]["placement"] = [{"host": "n1", "core": 0}]  # added inside an object too
    assert schema_problem(record) is None
    assert "was unexpected" in schema_problem(dict(record, schema_version="1.2"))
    record["layout"] = {}
    assert "layout" in schema_problem(record)


def test_an_unknown_schema_version_is_refused_with_a_message():
    import json
    record = golden("mpi")
    record["schema_version"] = "2.0"
    found, reason = parse_record_line(json.dumps(record).encode())
    assert found is None
    assert reason.startswith('schema_version: "2.0" is not a version this hpcprobe reads')
    assert "1.0, 1.1, 1.2" in reason
