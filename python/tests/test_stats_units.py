"""Sample statistics and human scaling of SI units."""

import pytest
from helpers import golden

from hpcprobe.samples import SampleSummary, headline_summary, metric_median, summarize
from hpcprobe.units import format_quantity


def test_summary_ignores_missing_samples():
    assert summarize([3.0, None, 1.0, 2.0, None]) == SampleSummary(3, 1.0, 2.0, 3.0)


def test_summary_of_an_even_count_takes_the_middle_mean():
    assert summarize([4, 1, 3, 2]) == SampleSummary(4, 1.0, 2.5, 4.0)


def test_summary_without_samples():
    assert summarize([None, None]) == SampleSummary(0, None, None, None)
    assert summarize([]) == SampleSummary(0, None, None, None)


def test_headline_uses_the_metric_named_in_value():
    assert headline_summary(golden("star")) == SampleSummary(1, 2e7, 2e7, 2e7)
    assert headline_summary(golden("mpi")) == SampleSummary(3, 10240000.0, 13107200.0,
                                                            16384000.0)
    assert metric_median(golden("mpi"), "verify_time") == 0.0025
    assert metric_median(golden("mpi"), "no_such_metric") is None


@pytest.mark.parametrize("value, unit, text", [
    (13107200.0, "updates/s", "0.01311 GUPS"),
    (1.23456e9, "updates/s", "1.235 GUPS"),
    (2.0e11, "B/s", "200 GB/s"),
    (2.5e-5, "s", "25 µs"),
    (0.25, "s", "250 ms"),
    (3.0, "s", "3 s"),
    (0.0, "s", "0 s"),
    (131072, "B", "131.1 kB"),
    (65536, "updates", "65536 updates"),
    (0.5, "words", "0.5 words"),
    (5, "words", "5 words"),
    (0.5, "1", "0.5"),
    (None, "updates/s", "—"),
])
def test_format_quantity(value, unit, text):
    assert format_quantity(value, unit) == text
