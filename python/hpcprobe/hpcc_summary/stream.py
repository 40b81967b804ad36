"""STREAM's best rates from `stream` records, as HPCC reports them (SingleSTREAM_*,
StarSTREAM_*): read by the summary, the balance ratios and the memory family's tables."""

from typing import List, Optional

from hpcprobe.records import Record, numbers
from hpcprobe.samples import find_series, metric_samples

STREAM_KERNELS = ("copy", "scale", "add", "triad")


def stream_single_best(record: Record, kernel: str) -> Optional[float]:
    """Rank 0 alone: the best of its timed iterations (B/s), as STREAM reports it."""
    rates = numbers(metric_samples(record, f"single_{kernel}_bandwidth"))
    return max(rates) if rates else None


def stream_star_best(record: Record, kernel: str) -> List[float]:
    """Every copy at once: each copy's best rate (B/s), by rank."""
    entry = find_series(record, f"star_{kernel}_best_bandwidth")
    return numbers(entry.get("y")) if entry else []
