"""RandomAccess on the run's headline: single, star (the sum over the ranks) and mpi with
the fastest algorithm that ran compliant and validated."""

from typing import List, Optional, Sequence

from hpcprobe.limits.headline import fraction_of
from hpcprobe.suite.headline import Figure, metric_figure, with_limit
from hpcprobe.report.common import Record, last_of, of_benchmark, plain, ranks

GROUP = "RandomAccess"


def _fastest_mpi(records: Sequence[Record]) -> Optional[Figure]:
    """The compliant, validated mpi record of the highest median rate (HPCC's rules:
    a non-compliant algorithm's rate is not RandomAccess's); when none validated, the
    last compliant one, with its verdict."""
    best: Optional[Figure] = None
    fallback: Optional[Figure] = None
    for record in of_benchmark(records, "ra", "mpi"):
        if record.get("compliant") is False:
            continue
        algorithm = plain(record.get("algorithm"))
        figure = metric_figure(record, GROUP, "ra.mpi", f"RandomAccess mpi ({algorithm}), "
                               f"{ranks(record)} ranks", "update_rate")
        if figure is None:
            continue
        fallback = figure
        if figure.verdict == "passed" and (best is None or figure.value > best.value):
            best = figure
    return best or fallback


def ra_headline(records: Sequence[Record]) -> List[Figure]:
    figures = []
    single, star = last_of(records, "ra", "single"), last_of(records, "ra", "star")
    if single is not None:
        figures.append(with_limit(metric_figure(single, GROUP, "ra.single", "RandomAccess "
                                                "single, one core", "update_rate"),
                                  fraction_of(records, single)))
    if star is not None:
        figures.append(with_limit(metric_figure(star, GROUP, "ra.star", f"RandomAccess star, "
                                                f"sum over {ranks(star)} ranks",
                                                "update_rate_sum"),
                                  fraction_of(records, star)))
    figures.append(_fastest_mpi(records))
    return [figure for figure in figures if figure is not None]
