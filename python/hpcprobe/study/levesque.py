"""Levesque's model of the multicore slowdown and the single/dual, dual/quad ratios of
paper 002 (docs/studies/hpcmp.md), from hpcprobe's memory and communication records.

Paper 002 §4.3 (p. 2219) quotes Levesque et al. [6]: "predicted dual-core performance ...
is correctly accounted for using the simplest possible model for memory performance—namely,
that the effective latency of the memory subsystem and bandwidth+latency for the L2 cache
remain the same regardless of how many cores are used, but the main memory bandwidth is cut
in half", and §3 (p. 2215-2216) that "the dual-core performance degradation is directly
proportional to degradation in memory bandwidth". Written as a time: a code that spends a
fraction f_bw of its one-copy time streaming from main memory and f_lat waiting on its
latency, run as N copies at once, takes

    T_N / T_1 = 1 + f_bw (B_1 / B_N - 1) + f_lat (L_N / L_1 - 1)

with B the main-memory bandwidth one copy gets (STREAM single; star per copy) and L the
memory latency (the pointer chase, one copy; many). Levesque's model proper has L_N = L_1
and B_N = B_1 / N (N = 2: "cut in half"); hpcprobe puts the measured ratios in their place.

Records are read by their fields only (this layer imports no family), as untrusted input."""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.records import number, numbers, parameter, section_of, series_points
from hpcprobe.samples import find_metric, find_series

Record = Dict[str, Any]
# Paper 002 §4.1: running two copies "causes an approximate doubling of memory R+W time for
# strides between 2^8 and 2^13 bytes": the strides whose ratios hpcmp-fig6 averages.
RW_STRIDES = (2 ** 8, 2 ** 13)
CACHE_LINE_BYTES = 64


def predicted_slowdown(bandwidth_fraction: Optional[float], bw_ratio: Optional[float],
                       latency_fraction: float = 0.0,
                       lat_ratio: Optional[float] = 1.0) -> Optional[float]:
    """T_N / T_1 = 1 + f_bw (B_1/B_N - 1) + f_lat (L_N/L_1 - 1); None when an input is
    missing, a fraction is outside [0, 1] or they sum past 1."""
    if bandwidth_fraction is None or bw_ratio is None or lat_ratio is None:
        return None
    fractions = (bandwidth_fraction, latency_fraction)
    if any(f < 0 or f > 1 for f in fractions) or sum(fractions) > 1 + 1e-12:
        return None
    return 1 + bandwidth_fraction * (bw_ratio - 1) + latency_fraction * (lat_ratio - 1)


def implied_bandwidth_fraction(slowdown: Optional[float],
                               bw_ratio: float = 2.0) -> Optional[float]:
    """The f_bw that makes the model give `slowdown` (T_N / T_1) at `bw_ratio` with the
    latency unchanged: (S - 1) / (B_1/B_N - 1), held in [0, 1]; None where B_1/B_N <= 1
    (no contention: every f fits)."""
    if slowdown is None or bw_ratio <= 1:
        return None
    return min(1.0, max(0.0, (slowdown - 1) / (bw_ratio - 1)))


def model_bandwidth_ratio(copies: int, base: int = 1) -> Optional[float]:
    """Levesque's B_base / B_N: main-memory bandwidth shared evenly by the copies (2 over 1:
    "cut in half")."""
    if copies < 1 or base < 1:
        return None
    return copies / base


def ratio(value: Optional[float], base: Optional[float]) -> Optional[float]:
    """value / base, None unless both are positive numbers."""
    if value is None or base is None or value <= 0 or base <= 0:
        return None
    return value / base


def geometric_mean(values: Sequence[Optional[float]]) -> Optional[float]:
    found = [v for v in values if v is not None and v > 0]
    if not found:
        return None
    return math.exp(sum(math.log(v) for v in found) / len(found))


def stride_footprint(stride: float, buffer_bytes: float) -> float:
    """Bytes of cache lines one pass of the R+W kernel touches: every line up to a stride
    of a line, then one line per stride."""
    return buffer_bytes * CACHE_LINE_BYTES / max(stride, CACHE_LINE_BYTES)


def levesque_stride_ratio(stride: float, buffer_bytes: Optional[float],
                          private_bytes: Optional[float],
                          bw_ratio: Optional[float]) -> Optional[float]:
    """The model's many/one R+W time at a stride: 1 where the lines a pass touches fit the
    private caches (their bandwidth and latency stay the same), else the main-memory
    bandwidth ratio (each access a line from memory)."""
    if buffer_bytes is None or private_bytes is None or private_bytes <= 0:
        return None
    if stride_footprint(stride, buffer_bytes) <= private_bytes:
        return 1.0
    return bw_ratio


def usable(record: Any) -> bool:
    """A record a study may use: an object whose status is ok and whose validation did not
    fail (paper rows are never built from wrong answers)."""
    if not isinstance(record, dict) or record.get("status") != "ok":
        return False
    return section_of(record, "validation").get("verdict") != "failed"


def pick(records: Sequence[Any], benchmark: str, variant: str,
         **parameters: Any) -> Optional[Record]:
    """The first usable record of a benchmark and variant whose parameters match."""
    for record in records:
        if usable(record) and record.get("benchmark") == benchmark \
                and record.get("variant") == variant \
                and all(parameter(record, k) == v for k, v in parameters.items()):
            return record
    return None


def _metric_best(record: Record, name: str) -> Optional[float]:
    metric = find_metric(record, name)
    found = numbers(metric.get("samples")) if metric else []
    return max(found) if found else None


def stream_bandwidths(record: Optional[Record]) -> Tuple[Optional[float], Optional[float]]:
    """(B_1, B_N) in B/s from a `stream` record: one copy's best triad, and HPCC's
    StarSTREAM, the mean over copies of each one's best triad (the series), else the best
    iteration's mean over copies (the metric)."""
    if record is None:
        return None, None
    single = _metric_best(record, "single_triad_bandwidth")
    entry = find_series(record, "star_triad_best_bandwidth")
    per_copy = numbers(entry.get("y")) if entry else []
    star = sum(per_copy) / len(per_copy) if per_copy else _metric_best(
        record, "star_triad_bandwidth")
    return single, star


def value_at(record: Optional[Record], series: str, x: float) -> Optional[float]:
    """The series' y at the largest x not above `x` (None when there is none)."""
    if record is None:
        return None
    points = series_points(record, series)
    below = [key for key in points if key <= x]
    return points[max(below)] if below else None


def value_exactly(record: Optional[Record], series: str, x: float) -> Optional[float]:
    """The series' y at exactly `x` (a launch of one stride or block size: another x is
    another point's figure, never this one's)."""
    return series_points(record, series).get(float(x)) if record is not None else None


def latency_levels(record: Optional[Record], phase: str) -> Dict[str, Optional[float]]:
    """The pointer chase's latency (s) of `phase` ("one" or "many") in L1, L2 and memory:
    at half the L1d and half the L2 (sysfs sizes in the record), and at the largest working
    set."""
    series = f"time_per_access_{phase}"
    levels: Dict[str, Optional[float]] = {"l1": None, "l2": None, "mem": None}
    if record is None:
        return levels
    for level, key in (("l1", "cache_l1d_bytes"), ("l2", "cache_l2_bytes")):
        size = number(parameter(record, key))
        levels[level] = value_at(record, series, size / 2) if size else None
    points = series_points(record, series)
    levels["mem"] = points[max(points)] if points else None
    return levels


def stride_times(record: Optional[Record], phase: str,
                 lo: float = RW_STRIDES[0], hi: float = RW_STRIDES[1]) -> List[float]:
    """The R+W times (s) of `phase` at the strides in [lo, hi], in stride order."""
    if record is None:
        return []
    points = series_points(record, f"time_per_access_{phase}")
    return [y for x, y in sorted(points.items()) if lo <= x <= hi and y is not None]


def step_ratios(values: Sequence[Optional[float]], base: Optional[float]) -> List[Optional[float]]:
    """Each value over the one before it (the first over `base`): the dual/single, then
    quad/dual ratios of a row per copy count."""
    previous, out = base, []
    for value in values:
        out.append(ratio(value, previous))
        previous = value
    return out
