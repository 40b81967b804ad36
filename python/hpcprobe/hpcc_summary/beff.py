"""HPCC's b_eff keys from `beff` records (HPCC 1.5, src/bench_lat_bw_1.5.2.c and the
summary in src/io.c), for the `--hpcc-summary` block.

A beff record keeps HPCC's raw figures as metric samples (docs/kernels/comm.md):
`pingpong_latency` and `pingpong_bandwidth` one per pair of ranks (each pair's best
measurement), `natural_ring_latency` and `natural_ring_bandwidth` one per measurement
(each the slowest rank's), `random_ring_latency` and `random_ring_bandwidth` HPCC's
figure itself (the geometric mean over the random orderings). The keys are HPCC's:

- Min/Avg/MaxPingPongLatency_usec: min, arithmetic mean, max over the pairs (µs)
- Min/Avg/MaxPingPongBandwidth_GBytes: the same over the pairs' bandwidths (10^9 B/s)
- NaturallyOrderedRingLatency_usec: the best measurement; ...Bandwidth_GBytes its
  bandwidth (the 2,000,000 B runs)
- RandomlyOrderedRingLatency_usec and ...Bandwidth_GBytes: the geometric means

in HPCC's order, in block.py's fixed point where HPCC has `%g`. The last beff record
given is reported.
"""

import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.hpcc_summary.block import decimal
from hpcprobe.samples import metric_samples
from hpcprobe.units import GIGA, MICRO
from hpcprobe.records import finite

Record = Dict[str, Any]
Entry = Tuple[str, str]


# (HPCC key, metric, how HPCC reduces the samples, unit divisor), in HPCC's order.
BEFF_KEYS = (
    ("MaxPingPongLatency_usec", "pingpong_latency", "max", MICRO),
    ("RandomlyOrderedRingLatency_usec", "random_ring_latency", "last", MICRO),
    ("MinPingPongBandwidth_GBytes", "pingpong_bandwidth", "min", GIGA),
    ("NaturallyOrderedRingBandwidth_GBytes", "natural_ring_bandwidth", "max", GIGA),
    ("RandomlyOrderedRingBandwidth_GBytes", "random_ring_bandwidth", "last", GIGA),
    ("MinPingPongLatency_usec", "pingpong_latency", "min", MICRO),
    ("AvgPingPongLatency_usec", "pingpong_latency", "mean", MICRO),
    ("MaxPingPongBandwidth_GBytes", "pingpong_bandwidth", "max", GIGA),
    ("AvgPingPongBandwidth_GBytes", "pingpong_bandwidth", "mean", GIGA),
    ("NaturallyOrderedRingLatency_usec", "natural_ring_latency", "min", MICRO),
)


def _reduce(samples: List[float], how: str) -> Optional[float]:
    if not samples:
        return None
    if how == "max":
        return max(samples)
    if how == "min":
        return min(samples)
    if how == "mean":
        return statistics.fmean(samples)
    return samples[-1]


def beff_figures(record: Record) -> Dict[str, Optional[float]]:
    """HPCC's ten figures of one beff record, in SI units (s, B/s); None where the
    record lacks the samples."""
    return {key: _reduce(finite(metric_samples(record, metric)), how)
            for key, metric, how, _ in BEFF_KEYS}


def beff_summary_entries(records: Sequence[Record]) -> List[Entry]:
    """(key, text) in HPCC's order for the last beff record ([] without one)."""
    chosen = [record for record in records if record.get("benchmark") == "beff"]
    if not chosen:
        return []
    figures = beff_figures(chosen[-1])
    return [(key, decimal(figures[key] / divisor)) for key, _, _, divisor in BEFF_KEYS
            if figures[key] is not None]
