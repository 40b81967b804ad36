"""A figure beside one of its limits, and what every limit computation reads of a record:
its measured value, its ranks and how they sit on nodes."""

import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional

from hpcprobe.limits.ceilings import Ceiling
from hpcprobe.records import Record, finite, number, parameter, section_of
from hpcprobe.samples import metric_samples

KNOWN, UNKNOWN, NONE = "known", "unknown", "none"


@dataclass(frozen=True)
class Limit:
    """A figure beside one limit. `fraction` is measured / limit for rates and bound /
    measured for times, so both are <= 1 when the machine behaves; `status` is known,
    unknown (a ceiling missing: `source` says which and why) or none (the figure has no
    such limit here: `source` says why); `check` names its threshold (findings.py)."""

    figure: str
    name: str
    limit: Optional[float]
    unit: str
    measured: Optional[float]
    source: str
    is_time: bool = False
    status: str = KNOWN
    check: str = ""
    finding: bool = False
    reason: str = ""

    @property
    def fraction(self) -> Optional[float]:
        if self.status != KNOWN or not self.limit or not self.measured:
            return None
        return self.limit / self.measured if self.is_time else self.measured / self.limit


@dataclass(frozen=True)
class CurvePoint:
    """A collective at one message size: its time, its bound and what makes the bound."""

    size: float
    measured: float
    bound: float
    which: str

    @property
    def fraction(self) -> float:
        return self.bound / self.measured if self.measured else 0.0


def against(figure: str, measured: Optional[float], ceiling: Ceiling, name: str,
            check: str = "", scale: float = 1.0, is_time: bool = False) -> Limit:
    """A Limit from a ceiling (times `scale`: the cores or nodes it counts)."""
    if not ceiling.known:
        return Limit(figure, name, None, ceiling.unit, measured, ceiling.source, is_time,
                     UNKNOWN, check)
    return Limit(figure, name, ceiling.value * scale, ceiling.unit, measured,  # type: ignore
                 ceiling.source, is_time, KNOWN, check)


def median_of(record: Record, metric: str) -> Optional[float]:
    samples = finite(metric_samples(record, metric))
    return statistics.median(samples) if samples else None


def ranks_of(record: Record) -> int:
    value = number(section_of(record, "layout").get("ranks"))
    return int(value) if value and value >= 1 else 1


def ranks_per_node(record: Record, ranks: Optional[int] = None) -> List[int]:
    """How many of the first `ranks` ranks each node holds (metadata.rank_hosts; else the
    layout's ranks spread evenly over its nodes)."""
    count = ranks or ranks_of(record)
    hosts = section_of(record, "metadata").get("rank_hosts")
    if isinstance(hosts, list) and len(hosts) >= count:
        tally: Dict[str, int] = {}
        for host in hosts[:count]:
            tally[str(host)] = tally.get(str(host), 0) + 1
        return list(tally.values())
    nodes = int(number(section_of(record, "layout").get("nodes")) or 1)
    return [count // nodes + (index < count % nodes) for index in range(nodes)]


def threads_of(record: Record) -> int:
    layout = number(section_of(record, "layout").get("threads_per_rank")) or 1
    blas = number(parameter(record, "blas_threads")) or 1
    return int(max(layout, blas))


def node_scale(record: Record, ceiling: Ceiling) -> float:
    """A star ceiling (a sum over one run's nodes) for this record's nodes."""
    nodes = number(section_of(record, "layout").get("nodes")) or 1
    return nodes / max(ceiling.nodes, 1)
