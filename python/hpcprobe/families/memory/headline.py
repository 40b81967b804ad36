"""Memory on the run's headline: STREAM Triad on one core and on every core at once (the
best iteration, STREAM's convention), the ratio of the two, and the load latency at one
working set in each cache level and in DRAM, the levels taken from the caches the record
found (sysfs)."""

from typing import List, Sequence

from hpcprobe.suite.headline import Figure, metric_figure, point_figure, series_xs, worst_verdict
from hpcprobe.units import binary_size
from hpcprobe.report.common import Record, last_of, number, parameter, ranks

GROUP = "memory"
LATENCY_CURVE = "time_per_access_one"  # one copy alone: the latency, not the contention
CACHE_LEVELS = (("L1", "cache_l1d_bytes"), ("L2", "cache_l2_bytes"), ("L3", "cache_l3_bytes"))
# A level's working set: at most a quarter of it (half of a 32 MiB L3 already missed to
# DRAM a third of the time on the 2-core VM of docs/benchmarks.md: 88 ns against 17 ns at
# a quarter), and above the level below.
LEVEL_SHARE = 4
# A working set counts as DRAM once it is this many times the last level's size.
DRAM_OVER_LLC = 4


def _stream(records: Sequence[Record]) -> List[Figure]:
    single, star = last_of(records, "stream", "single"), last_of(records, "stream", "star")
    one = None if single is None else metric_figure(
        single, GROUP, "stream.single.triad", "STREAM Triad, one core (best)",
        "single_triad_bandwidth", best_of=True)
    many = None
    if star is not None:  # its samples are the mean over the copies: times them, the sum
        copies = number(parameter(star, "copies")) or ranks(star)
        many = metric_figure(star, GROUP, "stream.star.triad",
                             f"STREAM Triad, {copies:g} cores at once (sum, best)",
                             "star_triad_bandwidth", scale=copies, best_of=True)
    figures = [figure for figure in (one, many) if figure is not None]
    if one is not None and many is not None:
        figures.append(Figure(GROUP, "stream.many_over_one", "STREAM Triad, all cores ÷ one",
                              "1", (many.value / one.value,),
                              worst_verdict([one.verdict, many.verdict])))
    return figures


def level_sizes(record: Record) -> List[tuple]:
    """(level, working set) for each cache level the record names and DRAM: the largest
    swept working set within a quarter of the level and above the level below; DRAM's the
    largest swept, if it is DRAM_OVER_LLC times the last level."""
    xs = sorted(series_xs(record, LATENCY_CURVE))
    chosen, below = [], 0.0
    for level, name in CACHE_LEVELS:
        size = number(parameter(record, name))
        if not size:
            continue
        inside = [x for x in xs if below < x <= size / LEVEL_SHARE]
        if inside:
            chosen.append((level, inside[-1]))
        below = size
    if xs and below and xs[-1] >= DRAM_OVER_LLC * below:
        chosen.append(("DRAM", xs[-1]))
    return chosen


def _latency(records: Sequence[Record]) -> List[Figure]:
    record = last_of(records, "mem", "latency")
    if record is None:
        return []
    figures = []
    for level, size in level_sizes(record):
        figures.append(point_figure(record, GROUP, f"latency.{level}",
                                    f"load latency, {level} ({binary_size(size)})",
                                    LATENCY_CURVE, size, "s", higher_is_better=False))
    return [figure for figure in figures if figure is not None]


def memory_headline(records: Sequence[Record]) -> List[Figure]:
    return _stream(records) + _latency(records)
