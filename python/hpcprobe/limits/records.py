"""Each record's limits: its figure beside the ceilings of its own machine (ceilings.py)
through the formulas of bounds.py, keyed by benchmark and variant; the collectives' are
collectives.py's. A record of no benchmark here has no limits."""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.limits import bounds, collectives, findings, kernels
from hpcprobe.limits.ceilings import Ceilings, best, ceilings_for, ceilings_of, per_core
from hpcprobe.limits.limit import (KNOWN, CurvePoint, Limit, against, median_of, node_scale,
                                   ranks_of, ranks_per_node, threads_of)
from hpcprobe.records import Record, number, parameter, section_of


@dataclass
class RecordLimits:
    record: Record
    limits: List[Limit] = field(default_factory=list)
    curve: List[CurvePoint] = field(default_factory=list)

    @property
    def identity(self) -> Dict[str, object]:
        return {"benchmark": self.record.get("benchmark"),
                "variant": self.record.get("variant"),
                "algorithm": self.record.get("algorithm"),
                "started_at": self.record.get("started_at"),
                "launch_id": section_of(self.record, "metadata").get("launch_id")}

    @property
    def headline(self) -> Optional[Limit]:
        """The limit the headline's "of limit" shows: the first of the record's first
        figure that is known (HPL: the theoretical peak, else the empirical one)."""
        first = self.limits[0].figure if self.limits else ""
        return next((limit for limit in self.limits
                     if limit.status == KNOWN and limit.figure == first), None)


def flop_limits(record: Record, ceilings: Ceilings, total: Optional[float],
                check: str) -> List[Limit]:
    """Theoretical and empirical peak of the cores the ranks use, in total and per rank."""
    ranks = ranks_of(record)
    cores = ceilings.cores_per_node or int(number(section_of(record, "metadata").get(
        "cores_per_node")) or ranks)
    used = bounds.cores_in_use(ranks_per_node(record), threads_of(record), cores)
    found = []
    for kind in ("theoretical", "empirical"):
        ceiling = per_core(ceilings, kind)
        words = f"{kind} peak, {used} core{'s' if used > 1 else ''}"
        found.append(against("flop_rate", total, ceiling, f"{words} (in total)",
                             f"{check}.{kind}", used))
        if ranks > 1:
            found.append(against("flop_rate per rank", None if total is None else total / ranks,
                                 ceiling, f"{kind} peak per rank", "", used / ranks))
    return found


def _dgemm(record: Record, ceilings: Ceilings) -> List[Limit]:
    rate = median_of(record, "flop_rate")  # star: the mean over ranks (StarDGEMM)
    total = None if rate is None else rate * (ranks_of(record) if record.get(
        "variant") == "star" else 1)
    return flop_limits(record, ceilings, total, "dgemm")


def _hpl(record: Record, ceilings: Ceilings) -> List[Limit]:
    return flop_limits(record, ceilings, median_of(record, "flop_rate"), "hpl")


def _stream(record: Record, ceilings: Ceilings) -> List[Limit]:
    variant = str(record.get("variant"))
    copies = 1.0
    if variant == "star":  # the samples are the mean over the copies: their sum
        copies = number(parameter(record, "copies")) or ranks_of(record)
    found = []
    for kernel in ("triad", "copy"):
        measured = best(record, f"{variant}_{kernel}_bandwidth")
        ceiling = ceilings.bandwidth(variant, kernel, "memory")
        found.append(against(f"{kernel.capitalize()} bandwidth",
                             None if measured is None else measured * copies, ceiling,
                             f"empirical memory bandwidth ({kernel})", f"stream.{kernel}",
                             node_scale(record, ceiling)))
    theory = ceilings.get("memory_bandwidth_theoretical", "B/s",
                          "no peak clock record (the DIMMs' rate)")
    nodes = number(section_of(record, "layout").get("nodes")) or 1
    found.append(against("Triad bandwidth", found[0].measured, theory,
                         "theoretical memory bandwidth (DIMMs)", "", nodes))
    return found


Computer = Callable[[Record, Ceilings], List[Limit]]


COMPUTERS: Dict[Tuple[str, str], Computer] = {
    ("dgemm", "single"): _dgemm, ("dgemm", "star"): _dgemm, ("hpl", "mpi"): _hpl,
    ("stream", "single"): _stream, ("stream", "star"): _stream,
    **kernels.COMPUTERS, **collectives.COMPUTERS}


def record_limits(record: Record, ceilings: Ceilings) -> Optional[RecordLimits]:
    """The record's limits, or None when its benchmark has none."""
    compute = COMPUTERS.get((str(record.get("benchmark")), str(record.get("variant"))))
    if compute is None:
        return None
    found = RecordLimits(record, compute(record, ceilings))
    found.curve = collectives.curve_of(record, ceilings)
    found.limits = [findings.judge(limit) for limit in found.limits]
    return found


def limits_of(records: Sequence[Record]) -> List[RecordLimits]:
    """Every record's limits (those that have any), each from its own machine's ceilings."""
    machines = ceilings_of(records)
    found = []
    for record in records:
        if isinstance(record, dict) and record.get("benchmark") != "peak":
            limits = record_limits(record, ceilings_for(machines, record))
            if limits is not None and limits.limits:
                found.append(limits)
    return found
