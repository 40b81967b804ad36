"""Each collective of `comm` against its algorithm-independent bound (bounds.py): per
message size a curve, and the record's limit at its largest size. The bound uses the
PingPong of the same set of records and, for ranks sharing a node, the node's copy
bandwidth of `peak bandwidth star`."""

from typing import Dict, List, Optional, Tuple

from hpcprobe.limits import bounds
from hpcprobe.limits.ceilings import Ceilings
from hpcprobe.limits.limit import KNOWN, NONE, UNKNOWN, CurvePoint, Limit, ranks_per_node
from hpcprobe.records import Record, number, parameter, series_points
from hpcprobe.units import binary_size

TIMES = "time_median"  # the headline's time: the median over samples of the slowest rank


def _is_collective(record: Record) -> bool:
    return record.get("benchmark") == "comm" and record.get("variant") in bounds.COLLECTIVE_BYTES


def _group(record: Record) -> Tuple[int, int, int]:
    """(ranks of the group that called it, most of them on one node, nodes)."""
    ranks = int(number(parameter(record, "group_ranks")) or 0) or None
    spread = ranks_per_node(record, ranks)
    return sum(spread), max(spread, default=1), len(spread)


def _node_copy(ceilings: Ceilings) -> Optional[float]:
    """The copy bandwidth of one node's memory: peak bandwidth star's sum over its ranks,
    over its nodes."""
    ceiling = ceilings.bandwidth("star", "copy", "memory")
    return ceiling.value / max(ceiling.nodes, 1) if ceiling.known else None  # type: ignore


def curve_of(record: Record, ceilings: Ceilings) -> List[CurvePoint]:
    """Time and bound at each message size; empty without a PingPong in the set."""
    latency = ceilings.found.get("pingpong_latency")
    if not _is_collective(record) or latency is None or parameter(record, "buffers") == "device":
        return []
    link = ceilings.found.get("pingpong_bandwidth")
    ranks, on_node, nodes = _group(record)
    copy = _node_copy(ceilings)
    points = []
    for size, time in sorted(series_points(record, TIMES).items()):
        if not time or time <= 0:
            continue
        bound = bounds.collective_bound(str(record.get("variant")), size, ranks, on_node,
                                        nodes, latency.value or 0.0,
                                        None if link is None else link.value, copy)
        points.append(CurvePoint(size, time, bound.time, bound.which))
    return points


def _collective(record: Record, ceilings: Ceilings) -> List[Limit]:
    """The record's limit: its bound at its largest message size (Barrier: its one)."""
    points = curve_of(record, ceilings)
    name = "bound"
    if parameter(record, "buffers") == "device":
        return [Limit("time", name, None, "s", None, "device buffers: the bound is of "
                      "host memory and links", is_time=True, status=NONE)]
    if not points:
        return [Limit("time", name, None, "s", None, "no PingPong record of this machine",
                      is_time=True, status=UNKNOWN, check="collective")]
    last = points[-1]
    figure = f"time at {binary_size(last.size)}" if last.size else "time"
    copy = _node_copy(ceilings)
    memory = "" if copy else " (node memory unknown)"
    return [Limit(figure, name, last.bound, "s", last.measured, f"{last.which}{memory}",
                  is_time=True, status=KNOWN, check="collective")]


COMPUTERS: Dict[Tuple[str, str], object] = {
    ("comm", function): _collective for function in bounds.COLLECTIVE_BYTES}
