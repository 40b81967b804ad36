"""Memory on the run's headline: STREAM Triad on one core and on every core at once (the
best iteration, STREAM's convention), the ratio of the two, and the load latency of each
plateau the latency sweep found, named for the cache it stands for (the sysfs cache
nearest to it, as the plateau table names them), and DRAM's; a cache sysfs lists that no
plateau stood for is shown as not seen, never as a latency (issue 40: a DRAM-like time
had been labelled L3 from the size sysfs gave)."""

from typing import List, Optional, Sequence, Tuple

from hpcprobe.families.memory.tables import cache_names, sysfs_caches
from hpcprobe.records import series_points
from hpcprobe.report.common import Record, last_of, number, parameter, ranks
from hpcprobe.limits.headline import fraction_of
from hpcprobe.suite.headline import (Figure, metric_figure, record_verdict, with_limit,
                                     worst_verdict)
from hpcprobe.units import binary_size

GROUP = "memory"
PLATEAUS = "plateau_latency"  # the sweep's plateaus: largest working set on each, latency
# The last plateau is DRAM's, as the sweep and its plateau table say, when it reaches past
# the largest cache; a sweep that stops sooner (a tiny run) ends on a cache.
NOT_SEEN = "not seen"


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
    one, many = with_limit(one, fraction_of(records, single)), with_limit(
        many, fraction_of(records, star))
    figures = [figure for figure in (one, many) if figure is not None]
    if one is not None and many is not None:
        figures.append(Figure(GROUP, "stream.many_over_one", "STREAM Triad, all cores ÷ one",
                              "1", (many.value / one.value,),
                              worst_verdict([one.verdict, many.verdict])))
    return figures


def latency_levels(record: Record) -> List[Tuple[str, str, Optional[float]]]:
    """(key, label, latency) of each plateau, smallest first: named for the sysfs cache it
    stands for, else by its number; DRAM's last; then each sysfs cache no plateau stood
    for, with latency None (not seen)."""
    plateaus = sorted((x, y) for x, y in series_points(record, PLATEAUS).items()
                      if y is not None and x > 0)
    caches = sysfs_caches(record)
    largest = max((size for _, size in caches), default=0.0)
    dram = bool(plateaus) and largest > 0 and plateaus[-1][0] > largest
    on_caches = plateaus[:-1] if dram else plateaus
    names = cache_names([size for size, _ in on_caches], caches)
    levels = []
    for index, ((size, latency), cache) in enumerate(zip(on_caches, names)):
        levels.append((f"latency.{cache[0]}", f"load latency, {cache[0]} (plateau to "
                       f"{binary_size(size)})", latency) if cache else
                      (f"latency.plateau{index + 1}", f"load latency, plateau {index + 1} "
                       f"(to {binary_size(size)}; no sysfs cache)", latency))
    if dram:
        levels.append(("latency.DRAM", f"load latency, DRAM (plateau to "
                       f"{binary_size(plateaus[-1][0])})", plateaus[-1][1]))
    seen = set(cache for cache in names if cache)
    levels += [(f"latency.{level}", f"load latency, {level} ({binary_size(size)} by sysfs)",
                None) for level, size in caches if (level, size) not in seen]
    return levels


def _latency(records: Sequence[Record]) -> List[Figure]:
    record = last_of(records, "mem", "latency")
    if record is None:
        return []
    verdict = record_verdict(record)
    return [Figure(GROUP, key, label, "s", () if latency is None else (latency,), verdict,
                   higher_is_better=False, shown=NOT_SEEN)
            for key, label, latency in latency_levels(record)]


def memory_headline(records: Sequence[Record]) -> List[Figure]:
    return _stream(records) + _latency(records)
