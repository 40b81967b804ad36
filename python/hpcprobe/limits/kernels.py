"""The limits of FFT and RandomAccess (the bound their bytes per operation give) and of
PingPong and the rank pairs (the link rate, across nodes only)."""

from typing import Dict, List, Optional, Tuple

from hpcprobe.limits import bounds
from hpcprobe.limits.ceilings import Ceiling, Ceilings, per_core, unknown
from hpcprobe.limits.limit import (KNOWN, NONE, UNKNOWN, Limit, median_of, node_scale,
                                   ranks_of, ranks_per_node, threads_of)
from hpcprobe.records import Record, number, parameter, section_of, series_points
from hpcprobe.units import binary_size


def _level_bandwidth(record: Record, ceilings: Ceilings, variant: str,
                     footprint: float) -> Tuple[Ceiling, float]:
    """The copy bandwidth of the level that holds `footprint` bytes per rank, and the
    scale to this record's nodes."""
    level = ceilings.level_for(variant, footprint)
    if level is None:
        return unknown("copy_bandwidth", "B/s", f"no peak bandwidth {variant} record with "
                       "the caches' sizes"), 1.0
    ceiling = ceilings.bandwidth(variant, "copy", level)
    return ceiling, node_scale(record, ceiling)


def _fft(record: Record, ceilings: Ceilings) -> List[Limit]:
    """5 N log2 N flop over at least 32 N B: min(flop peak of the cores used, intensity x
    the copy bandwidth of the level that holds the 32 N B)."""
    variant = str(record.get("variant"))
    points = number(parameter(record, "m")) or 0.0
    rate = median_of(record, "flop_rate")  # star: the mean over ranks (StarFFT)
    ranks = ranks_of(record) if variant == "star" else 1
    measured = None if rate is None else rate * ranks
    name = "roofline bound (5 N log2 N flop over 32 N B)"
    core = per_core(ceilings, "empirical")
    bandwidth, scale = _level_bandwidth(record, ceilings, variant,
                                        bounds.FFT_BYTES_PER_POINT * points)
    missing = [c.source for c in (core, bandwidth) if not c.known]
    if points <= 1 or missing:
        why = "; ".join(missing) or "the record gives no transform length (parameters.m)"
        return [Limit("flop_rate", name, None, "flop/s", measured, why, status=UNKNOWN,
                      check="fft")]
    cores = ceilings.cores_per_node or ranks
    used = bounds.cores_in_use(ranks_per_node(record, ranks), threads_of(record), cores)
    flop_peak = core.value * used  # type: ignore[operator]
    bound = bounds.fft_bound(points, flop_peak, bandwidth.value * scale)  # type: ignore
    which = ("the flop peak" if bound >= flop_peak else
             f"intensity {bounds.fft_intensity(points):.3g} flop/B x {bandwidth.source}")
    return [Limit("flop_rate", name, bound, "flop/s", measured,
                  f"{which}; flop peak: {core.source} x {used} cores", check="fft")]


def _ra(record: Record, ceilings: Ceilings) -> List[Limit]:
    """Beyond the caches each update reads and writes a 64 B line: the memory's copy
    bandwidth / 128 B; a table that a cache holds has no such bound."""
    variant = str(record.get("variant"))
    metric = "update_rate_sum" if variant == "star" else "update_rate"
    measured = median_of(record, metric)
    table = number(parameter(record, "table_bytes")) or 0.0
    name = "memory bound (128 B per update)"
    level = ceilings.level_for(variant, table)
    if level is None:
        return [Limit("update_rate", name, None, "updates/s", measured, f"no peak bandwidth "
                      f"{variant} record with the caches' sizes", status=UNKNOWN, check="ra")]
    if level != "memory":
        return [Limit("update_rate", name, None, "updates/s", measured,
                      f"the table ({binary_size(table)} per rank) fits in {level}: no "
                      "memory bound", status=NONE)]
    ceiling = ceilings.bandwidth(variant, "copy", "memory")
    if not ceiling.known:
        return [Limit("update_rate", name, None, "updates/s", measured, ceiling.source,
                      status=UNKNOWN, check="ra")]
    bound = bounds.ra_bound(ceiling.value * node_scale(record, ceiling))  # type: ignore
    return [Limit("update_rate", name, bound, "updates/s", measured,
                  f"{ceiling.source} / 128 B", check="ra")]


def _link(ceilings: Ceilings) -> Optional[Tuple[str, float]]:
    """The fastest link of the node: the most a pair of ranks on two nodes can reach."""
    if not ceilings.links:
        return None
    name = max(ceilings.links, key=lambda link: ceilings.links[link])
    return name, ceilings.links[name]


def _link_limit(figure: str, measured: Optional[float], ceilings: Ceilings,
                across: bool, check: str) -> Limit:
    name = "link rate"
    if not across:
        return Limit(figure, name, None, "B/s", measured, "the ranks share a node: no "
                     "link limit", status=NONE)
    link = _link(ceilings)
    if link is None:
        return Limit(figure, name, None, "B/s", measured, "no peak clock record with a "
                     "link rate of this node", status=UNKNOWN, check=check)
    return Limit(figure, name, link[1], "B/s", measured,
                 f"link {link[0]} (peak clock), the node's fastest", status=KNOWN, check=check)


def _pingpong(record: Record, ceilings: Ceilings) -> List[Limit]:
    """PingPong's bandwidth at its largest message against the link, when ranks 0 and 1
    (the two that play) sit on different nodes."""
    points = {x: y for x, y in series_points(record, "bandwidth").items() if y}
    measured = points[max(points)] if points else None
    hosts = section_of(record, "metadata").get("rank_hosts")
    across = isinstance(hosts, list) and len(hosts) >= 2 and hosts[0] != hosts[1]
    figure = f"bandwidth at {binary_size(max(points))}" if points else "bandwidth"
    return [_link_limit(figure, measured, ceilings, across, "pingpong")]


def _pairs(record: Record, ceilings: Ceilings) -> List[Limit]:
    """The median pair across nodes against the link; pairs within a node have none."""
    across = median_of(record, "inter_node_bandwidth")
    if across is None:
        within = median_of(record, "intra_node_bandwidth")
        return [_link_limit("median pair within a node", within, ceilings, False, "")]
    return [_link_limit("median pair across nodes", across, ceilings, True, "pairs")]


COMPUTERS: Dict[Tuple[str, str], object] = {
    ("fft", "single"): _fft, ("fft", "star"): _fft, ("ra", "single"): _ra,
    ("ra", "star"): _ra, ("comm", "pingpong"): _pingpong, ("pairs", "bandwidth"): _pairs}
