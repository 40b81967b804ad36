"""The interconnect on the run's headline: PingPong latency (smallest message above 0 B)
and bandwidth (largest message), Allreduce at its smallest and largest size, b_eff's
rings, and the rank-pair matrix's slowest and median pair (within and across nodes
when the ranks spanned several; a sampled matrix says how much of it was measured)."""

from typing import List, Optional, Sequence

from hpcprobe.limits.headline import fraction_of
from hpcprobe.suite.headline import Figure, metric_figure, point_figure, series_xs, with_limit
from hpcprobe.report.common import Record, last_of, ranks
from hpcprobe.families.comm.tables import device_buffers, pairs_coverage
from hpcprobe.units import binary_size

GROUP = "interconnect"


def _pingpong(record: Record) -> List[Optional[Figure]]:
    sizes = [x for x in series_xs(record, "time_median") if x > 0]
    if not sizes:
        return []
    small, large = sizes[0], sizes[-1]
    return [point_figure(record, GROUP, "pingpong.latency",
                         f"PingPong latency, {binary_size(small)}", "time_median", small, "s",
                         higher_is_better=False),
            point_figure(record, GROUP, "pingpong.bandwidth",
                         f"PingPong bandwidth, {binary_size(large)}", "bandwidth", large, "B/s",
                         higher_is_better=True)]


def _allreduce(record: Record) -> List[Optional[Figure]]:
    sizes = [x for x in series_xs(record, "time_median") if x > 0]
    chosen = sorted({sizes[0], sizes[-1]}) if sizes else []
    return [point_figure(record, GROUP, f"allreduce.{size:g}",
                         f"Allreduce time, {binary_size(size)}, {ranks(record)} ranks",
                         "time_median", size, "s", higher_is_better=False) for size in chosen]


def _beff(record: Record) -> List[Optional[Figure]]:
    return [metric_figure(record, GROUP, f"beff.{name}", f"b_eff {words}", name)
            for name, words in (("natural_ring_bandwidth", "natural ring bandwidth, per rank"),
                                ("random_ring_bandwidth", "random ring bandwidth, per rank"),
                                ("random_ring_latency", "random ring latency"))]


def _pairs(record: Record) -> List[Optional[Figure]]:
    figures = []
    coverage = pairs_coverage(record)
    sampled = f" ({coverage})" if coverage else ""
    for metric, where in (("intra_node_bandwidth", "within a node"),
                          ("inter_node_bandwidth", "across nodes")):
        every = metric_figure(record, GROUP, "", "", metric)
        if every is None:
            continue
        for key, words, value in (("slowest", "slowest pair", min(every.samples)),
                                  ("median", "median pair", every.value)):
            figures.append(Figure(GROUP, f"pairs.{metric}.{key}",
                                  f"rank pairs {where}, {words}{sampled}", every.unit, (value,),
                                  every.verdict))
    return figures


def _limited(figure: Optional[Figure], record: Record,
             records: Sequence[Record]) -> Optional[Figure]:
    """The figure with its fraction of its limit (hpcprobe.limits): PingPong's bandwidth
    and the pairs across nodes against the link, Allreduce against its bound at its size."""
    if figure is None:
        return None
    if figure.key == "pingpong.bandwidth":
        return with_limit(figure, fraction_of(records, record))
    if figure.key.startswith("allreduce."):  # the key holds the size as %g: find it
        size = next((x for x in series_xs(record, "time_median")
                     if f"allreduce.{x:g}" == figure.key), None)
        return with_limit(figure, None if size is None else
                          fraction_of(records, record, size=size))
    if figure.key.startswith("pairs.inter_node_bandwidth."):
        return with_limit(figure, fraction_of(records, record, value=figure.value))
    return figure


def comm_headline(records: Sequence[Record]) -> List[Figure]:
    figures: List[Optional[Figure]] = []
    # The interconnect's figures come from host buffers; device ones add the GPU's path.
    records = [record for record in records if not device_buffers(record)]
    for benchmark, variant, figures_of in (("comm", "pingpong", _pingpong),
                                           ("comm", "allreduce", _allreduce),
                                           ("beff", "hpcc", _beff),
                                           ("pairs", "bandwidth", _pairs)):
        record = last_of(records, benchmark, variant)
        if record is not None:
            figures += [_limited(figure, record, records) for figure in figures_of(record)]
    return [figure for figure in figures if figure is not None]
