"""Summaries of a metric's samples (one sample per timed repetition): count, min, median
and max. The robust statistics of `compare` and `report` (median and MAD, intervals,
modes) are analysis/stats.py's."""

import statistics
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional


@dataclass(frozen=True)
class SampleSummary:
    """count/min/median/max over the samples that were measured (None ignored)."""

    count: int
    min: Optional[float]
    median: Optional[float]
    max: Optional[float]


def summarize(samples: Iterable[Optional[float]]) -> SampleSummary:
    # A None sample is a repetition that produced no value (e.g. stopped by a time
    # limit); it must not turn the statistics into None.
    measured = [float(sample) for sample in samples if sample is not None]
    if not measured:
        return SampleSummary(0, None, None, None)
    return SampleSummary(
        len(measured), min(measured), statistics.median(measured), max(measured)
    )


def find_metric(record: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    """The entry of record["metrics"] called `name`, or None."""
    for metric in record.get("metrics") or []:
        if isinstance(metric, dict) and metric.get("name") == name:
            return metric
    return None


def find_series(record: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    """The entry of record["series"] called `name`, or None."""
    for entry in record.get("series") or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def metric_samples(record: Dict[str, Any], name: str) -> List[Optional[float]]:
    metric = find_metric(record, name)
    if metric is None:
        return []
    return list(metric.get("samples") or [])


def metric_median(record: Dict[str, Any], name: str) -> Optional[float]:
    return summarize(metric_samples(record, name)).median


def headline_summary(record: Dict[str, Any]) -> SampleSummary:
    """Statistics over the samples of the record's headline metric (value.metric)."""
    headline = record.get("value") or {}
    return summarize(metric_samples(record, str(headline.get("metric", ""))))
