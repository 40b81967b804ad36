"""The machine's limits on the run's headline, where the peak records exist: the FMA peak
in double precision on one core and on every rank (the best repetition; of limit: over
the theoretical peak at the measured clock), and the load bandwidth of L1 on one core and
the copy bandwidth of memory on every rank (of limit: over the DIMMs' rate, where the
machine states it)."""

from typing import List, Optional, Sequence

from hpcprobe.families.peak.tables import latest
from hpcprobe.records import number, parameter
from hpcprobe.suite.headline import Figure, metric_figure, with_limit

Record = dict


def _of(record: Optional[Record], limit: Optional[float], best: Optional[float]):
    return best / limit if record is not None and limit and best else None


def _best(figure: Optional[Figure]) -> Optional[float]:
    return figure.value if figure is not None and figure.samples else None


def _flops(records: Sequence[Record]) -> List[Optional[Figure]]:
    figures = []
    for variant, words in (("single", "one core"), ("star", "every rank at once (sum)")):
        record = latest(records, f"flops-{variant}", "double")
        if record is None:
            continue
        isa = str(record.get("algorithm", "?"))[:12]
        figure = metric_figure(record, "processor", f"peak.flops.{variant}",
                               f"FMA peak ({isa}, double), {words}", "flop_rate",
                               best_of=True)
        theoretical = number(parameter(record, "peak_theoretical"))
        figures.append(with_limit(figure, _of(record, theoretical, _best(figure))))
    return figures


def _bandwidth(records: Sequence[Record]) -> List[Optional[Figure]]:
    figures = []
    one, every = latest(records, "bandwidth-single"), latest(records, "bandwidth-star")
    if one is not None:
        figures.append(metric_figure(one, "memory", "peak.bandwidth.single.l1.load",
                                     "load bandwidth, L1, one core (best)",
                                     "load_bandwidth_l1", best_of=True))
    if every is not None:
        figure = metric_figure(every, "memory", "peak.bandwidth.star.memory.copy",
                               "copy bandwidth, memory, every rank (sum, best)",
                               "copy_bandwidth_memory", best_of=True)
        clock = latest(records, "clock")
        dimms = number(parameter(clock, "memory_bandwidth_theoretical"))
        figures.append(with_limit(figure, _of(clock, dimms, _best(figure))))
    return figures


def peak_headline(records: Sequence[Record]) -> List[Figure]:
    return [figure for figure in _flops(records) + _bandwidth(records) if figure is not None]
