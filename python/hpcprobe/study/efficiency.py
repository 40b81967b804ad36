"""Measured parallel efficiency and the correlations the papers draw between figures."""

import math
from typing import Optional, Sequence


def parallel_efficiency(rate_p: Optional[float], procs: Optional[int],
                        rate_1: Optional[float]) -> Optional[float]:
    """Rate_P / (P · Rate_1) as a fraction (1.0 = perfect); None when an input is missing,
    P < 1 or Rate_1 is not positive. For times, pass 1/T (a rate of work)."""
    if rate_p is None or rate_1 is None or not procs or procs < 1 or rate_1 <= 0:
        return None
    return rate_p / (procs * rate_1)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> Optional[float]:
    """Pearson's r of paired figures; None for fewer than 3 pairs or a constant series
    (a correlation of two points says nothing)."""
    pairs = [(x, y) for x, y in zip(xs, ys)
             if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)]
    if len(pairs) < 3:
        return None
    mean_x = sum(x for x, _ in pairs) / len(pairs)
    mean_y = sum(y for _, y in pairs) / len(pairs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in pairs)
    sxx = sum((x - mean_x) ** 2 for x, _ in pairs)
    syy = sum((y - mean_y) ** 2 for _, y in pairs)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)
