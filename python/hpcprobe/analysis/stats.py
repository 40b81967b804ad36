"""Robust statistics over the raw samples a record carries (one per timed repetition).

On shared machines a single number misleads: small-message latency can flip between two
values from one launch to the next. So every summary says how far to trust it:

- median and MAD (median absolute deviation), robust to the odd slow repetition;
- a 95 % confidence interval: of the median, distribution-free from order statistics,
  when there are 6 samples or more (fewer cannot reach 95 %); of the mean, Student t,
  for 2-5 samples; the method is named with the interval;
- the coefficient of variation (sample standard deviation / mean);
- modes: samples that fall into clearly separated clusters are reported per cluster
  (each with its median and count) instead of as one median between them;
- warnings when the spread is large (CV >= 10 %, pyperf's threshold), when there are
  several modes, or too few samples to judge.
"""

import math
import statistics
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, List, Optional, Sequence, Tuple

from hpcprobe.records import finite

UNSTABLE_CV = 0.10
FEW_SAMPLES = 3
# Student t quantiles t(0.975, df) for df = 1..4 (the t interval serves 2-5 samples).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
CI_LEVEL = 0.95
Z975 = 1.959964
# 2^-n underflows past ~1070 samples; the normal approximation is exact enough there.
EXACT_CI_SAMPLES = 1000
# Modes: a cluster holds at least this share of the samples (and 3 samples), and the gap
# between neighbouring clusters is at least MODE_SEPARATION times the larger robust spread
# within them and at least MODE_MIN_GAP relative (timers quantise; 5 % is not a mode).
MODE_MIN_SHARE = 0.10
MODE_MIN_COUNT = 3
MODE_SEPARATION = 4.0
MODE_MIN_GAP = math.log(1.10)
MAD_TO_SIGMA = 1.4826
MAX_MODES = 4
# Where every sample in a cluster is equal, its spread counts as this (relative).
_SPREAD_FLOOR = 0.005


@dataclass(frozen=True)
class Mode:
    """One cluster of samples: its median, how many samples, and their range."""

    median: float
    count: int
    low: float
    high: float


@dataclass(frozen=True)
class SampleStats:
    """Statistics of one metric's samples; None where undefined for these samples."""

    count: int
    median: Optional[float] = None
    mean: Optional[float] = None
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    stdev: Optional[float] = None
    mad: Optional[float] = None
    cv: Optional[float] = None
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None
    ci_method: Optional[str] = None
    modes: Tuple[Mode, ...] = ()
    warnings: Tuple[str, ...] = field(default=())

    @property
    def multimodal(self) -> bool:
        return len(self.modes) > 1

    @property
    def stable(self) -> bool:
        return not self.warnings


def sample_stdev(values: Sequence[float], mean: float) -> float:
    """The sample standard deviation in floating point (statistics.stdev computes it in
    exact fractions, ~100x slower on the 10^5 samples of a merged record)."""
    return math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (len(values) - 1))


def mad(values: Sequence[float]) -> float:
    """Median absolute deviation from the median (not scaled to sigma)."""
    centre = statistics.median(values)
    return statistics.median(abs(value - centre) for value in values)


def _order_statistic(n: int) -> Tuple[int, float]:
    """The largest k with P(X <= k-1) <= 2.5 % for X ~ Binomial(n, 1/2), and that tail
    (k = 0: none). Exact up to EXACT_CI_SAMPLES, normal approximation beyond."""
    alpha = (1 - CI_LEVEL) / 2
    if n > EXACT_CI_SAMPLES:
        k = int(math.floor(n / 2 - Z975 * math.sqrt(n) / 2))
        return k, statistics.NormalDist(n / 2, math.sqrt(n) / 2).cdf(k - 0.5)
    pmf, tail, k = 0.5 ** n, 0.0, 0  # P(X = 0), P(X <= k - 1)
    while k + 1 <= n // 2 and tail + pmf <= alpha:
        tail += pmf
        pmf *= (n - k) / (k + 1)
        k += 1
    return k, tail


def median_ci(values: Sequence[float]) -> Optional[Tuple[float, float, float]]:
    """(low, high, coverage) of the distribution-free CI of the median: the order
    statistics x_(k), x_(n-k+1) with the largest k whose two tails stay within 2.5 %
    each; None for fewer than 6 samples (even x_(1)..x_(n) covers less than 95 %)."""
    ordered = sorted(values)
    n = len(ordered)
    k, tail = _order_statistic(n)
    if k == 0:
        return None
    return ordered[k - 1], ordered[n - k], 1 - 2 * tail


def mean_ci(values: Sequence[float]) -> Optional[Tuple[float, float]]:
    """Student t 95 % CI of the mean for 2-5 samples; None otherwise."""
    n = len(values)
    if n - 1 not in _T975:
        return None
    centre = statistics.fmean(values)
    half = _T975[n - 1] * statistics.stdev(values) / math.sqrt(n)
    return centre - half, centre + half


def _scale_of(values: Sequence[float]) -> float:
    return max(MAD_TO_SIGMA * mad(values), _SPREAD_FLOOR)


def _split(points: Sequence[float], smallest: int) -> List[Sequence[float]]:
    """Split sorted `points` (log values) at its widest gap when the gap separates two
    clusters of at least `smallest` points clearly; recursively."""
    if len(points) < 2 * smallest:
        return [points]
    gaps = [(points[i] - points[i - 1], i) for i in range(smallest, len(points) - smallest + 1)]
    gap, at = max(gaps)
    left, right = points[:at], points[at:]
    spread = max(_scale_of(left), _scale_of(right))
    if gap < MODE_MIN_GAP or gap < MODE_SEPARATION * spread:
        return [points]
    return _split(left, smallest) + _split(right, smallest)


def find_modes(values: Sequence[float]) -> Tuple[Mode, ...]:
    """Clusters of the samples, lowest first (one Mode when there are no clear ones).

    Works on log values for positive samples (rates and times vary by ratios)."""
    ordered = sorted(values)
    if not ordered:
        return ()
    positive = ordered[0] > 0
    points = [math.log(value) for value in ordered] if positive else ordered
    smallest = max(MODE_MIN_COUNT, math.ceil(MODE_MIN_SHARE * len(ordered)))
    clusters = _split(points, smallest)[:MAX_MODES] if positive else [points]
    modes, start = [], 0
    for cluster in clusters:
        members = ordered[start:start + len(cluster)]
        start += len(cluster)
        modes.append(Mode(statistics.median(members), len(members), members[0], members[-1]))
    return tuple(modes)


def _warnings(values: Sequence[float], cv: Optional[float],
              modes: Sequence[Mode]) -> Tuple[str, ...]:
    found = []
    if len(values) < FEW_SAMPLES:
        found.append(f"{len(values)} sample{'s' if len(values) != 1 else ''}: too few to "
                     "judge the spread")
    if len(modes) > 1:
        found.append(f"{len(modes)} modes: the samples cluster apart, so each is reported "
                     "on its own (a single median would sit between them)")
    elif cv is not None and cv >= UNSTABLE_CV:
        found.append(f"unstable: CV {cv:.0%} >= {UNSTABLE_CV:.0%}")
    return tuple(found)


def describe(samples: Iterable[object]) -> SampleStats:
    """Statistics of the finite samples (others ignored)."""
    # Sorted once here: every sort after this one (medians, MAD, CI, modes) finds its
    # input in order, which Python's sort passes in linear time.
    return _describe(tuple(sorted(finite(samples))))


@lru_cache(maxsize=4096)
def _describe(values: Tuple[float, ...]) -> SampleStats:
    # Cached: a report asks for the same record's statistics in several places.
    if not values:
        return SampleStats(0, warnings=("no samples",))
    n, mean = len(values), statistics.fmean(values)
    stdev = sample_stdev(values, mean) if n > 1 else None
    cv = stdev / abs(mean) if stdev is not None and mean != 0 else None
    ci_low = ci_high = method = None
    by_median = median_ci(values)
    if by_median is not None:
        ci_low, ci_high, coverage = by_median
        method = f"median, order statistics ({coverage:.1%})"
    elif mean_ci(values) is not None:
        ci_low, ci_high = mean_ci(values)  # type: ignore[misc]
        method = "mean, Student t"
    modes = find_modes(values)
    return SampleStats(n, statistics.median(values), mean, min(values), max(values), stdev,
                       mad(values), cv, ci_low, ci_high, method, modes,
                       _warnings(values, cv, modes))
