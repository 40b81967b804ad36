"""The ceilings of a set of records, per machine: the flop rate and bandwidths the `peak`
records measured or state, and PingPong's bandwidth and latency from the `comm` records.

Records of several machines (a report over several runs) are grouped by machine: the CPU
model and the hosts (machine_key); a record's limits come from its own machine's ceilings
only. A ceiling no record gives is unknown, with the reason; it never takes a default."""

import re
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.records import Record, finite, number, parameter, section_of, series_points
from hpcprobe.samples import metric_samples

LEVELS = ("l1", "l2", "l3", "memory")
_LEVEL_METRIC = re.compile(r"(load|copy|triad)_bandwidth_(l1|l2|l3|memory)")
MachineKey = Tuple[str, Tuple[str, ...]]


@dataclass(frozen=True)
class Ceiling:
    """A limit of the machine: `value` in `unit` and where it comes from (`source`), or
    `value` None and `source` saying why it is unknown."""

    name: str
    value: Optional[float]
    unit: str
    source: str
    ranks: int = 1  # the ranks whose sum it is (star records)
    nodes: int = 1

    @property
    def known(self) -> bool:
        return self.value is not None and self.value > 0


def unknown(name: str, unit: str, why: str) -> Ceiling:
    return Ceiling(name, None, unit, why)


@dataclass
class Ceilings:
    """One machine's ceilings; every lookup returns a Ceiling, unknown ones saying why."""

    key: MachineKey
    cores_per_node: Optional[int] = None
    found: Dict[str, Ceiling] = field(default_factory=dict)
    working_sets: Dict[Tuple[str, str], float] = field(default_factory=dict)
    links: Dict[str, float] = field(default_factory=dict)
    # Why a ceiling is unknown where a record said so (peak clock: no DIMMs readable).
    reasons: Dict[str, str] = field(default_factory=dict)

    def get(self, name: str, unit: str, why: str) -> Ceiling:
        return self.found.get(name) or unknown(name, unit, self.reasons.get(name, why))

    def bandwidth(self, variant: str, kernel: str, level: str) -> Ceiling:
        return self.get(f"{kernel}_bandwidth_{level}.{variant}", "B/s",
                        f"no peak bandwidth {variant} record with {kernel} at {level}")

    def level_for(self, variant: str, footprint: float) -> Optional[str]:
        """The smallest cache level whose reach (twice the working set `peak bandwidth`
        used there: it takes half of what a rank reaches) holds `footprint` bytes per
        rank; "memory" beyond them; None when no cache level's size is known (a kernel
        that fits one would beat a memory bound)."""
        if not any(key[0] == variant for key in self.working_sets):
            return None
        for level in LEVELS[:-1]:
            size = self.working_sets.get((variant, level))
            if size is not None and footprint <= 2 * size:
                return level
        return "memory"


def machine_key(record: Record) -> MachineKey:
    """(CPU model, hosts): records that differ in either come from different machines."""
    metadata = section_of(record, "metadata")
    hosts = metadata.get("hosts")
    names = tuple(sorted(str(host) for host in hosts)) if isinstance(hosts, list) else ()
    return (str(metadata.get("cpu_model") or ""), names)


def best(record: Record, metric: str) -> Optional[float]:
    """The largest sample of a metric (the peaks' statistic is the maximum)."""
    samples = finite(metric_samples(record, metric))
    return max(samples) if samples else None


def _layout(record: Record) -> Tuple[int, int]:
    layout = section_of(record, "layout")
    ranks, nodes = number(layout.get("ranks")) or 1, number(layout.get("nodes")) or 1
    return int(ranks), int(nodes)


def _add(ceilings: Ceilings, name: str, value: Optional[float], unit: str, source: str,
         record: Record) -> None:
    ranks, nodes = _layout(record)
    if value is not None and value > 0:
        ceilings.found[name] = Ceiling(name, value, unit, source, ranks, nodes)


def _flops(ceilings: Ceilings, record: Record) -> None:
    if parameter(record, "precision") not in ("double", None):
        return
    variant = peak_parts(record)[1]
    ranks, _ = _layout(record)
    words = f"peak flops {variant} double ({record.get('algorithm')}, {ranks} ranks)"
    _add(ceilings, f"flop_rate.{variant}", best(record, "flop_rate"), "flop/s",
         f"{words}, measured", record)
    _add(ceilings, f"flop_rate_per_rank.{variant}", best(record, "flop_rate_per_rank"),
         "flop/s", f"{words}, measured, slowest rank", record)
    _add(ceilings, f"peak_theoretical.{variant}", number(parameter(record, "peak_theoretical")),
         "flop/s", f"{words}: clock x flops per cycle", record)
    _add(ceilings, "peak_theoretical_node", number(parameter(record, "peak_theoretical_node")),
         "flop/s", f"{words}: cores x clock x flops per cycle", record)
    cores = number(parameter(record, "cores_per_node"))
    if cores:
        ceilings.cores_per_node = int(cores)


def _bandwidth(ceilings: Ceilings, record: Record) -> None:
    variant = peak_parts(record)[1]
    ranks, _ = _layout(record)
    for entry in record.get("metrics") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not _LEVEL_METRIC.fullmatch(name):
            continue  # per-rank counters (rank_...) and --working-set's "custom" level
        _add(ceilings, f"{name}.{variant}", best(record, name), "B/s",
             f"peak bandwidth {variant} {name} ({record.get('algorithm')}, {ranks} ranks)",
             record)
    for level in LEVELS:
        size = number(parameter(record, f"working_set_bytes_{level}"))
        if size:
            ceilings.working_sets[(variant, level)] = size


def _clock(ceilings: Ceilings, record: Record) -> None:
    memory = number(parameter(record, "memory_bandwidth_theoretical"))
    said = str(parameter(record, "memory_bandwidth_source") or "peak clock")
    if memory:
        _add(ceilings, "memory_bandwidth_theoretical", memory, "B/s",
             f"DIMMs: {said}", record)
    else:
        ceilings.found.pop("memory_bandwidth_theoretical", None)
        ceilings.reasons["memory_bandwidth_theoretical"] = f"peak clock: {said}"
    for name, value in section_of(record, "parameters").items():
        rate = number(value)
        if name.startswith("link_rate_") and rate:
            ceilings.links[name[len("link_rate_"):]] = rate


def _pingpong(ceilings: Ceilings, record: Record) -> None:
    """The best bandwidth over sizes and the shortest time (the smallest message): the
    rates a collective's messages can reach at best."""
    bandwidth = [y for y in series_points(record, "bandwidth").values() if y]
    times = [y for y in series_points(record, "time_median").values() if y]
    source = f"PingPong of this set ({record.get('started_at')})"
    if bandwidth:
        _add(ceilings, "pingpong_bandwidth", max(bandwidth), "B/s",
             f"{source}, best over sizes", record)
    if times:
        _add(ceilings, "pingpong_latency", min(times), "s", f"{source}, shortest time",
             record)


_READERS = {("peak", "flops"): _flops, ("peak", "bandwidth"): _bandwidth,
            ("peak", "clock"): _clock, ("comm", "pingpong"): _pingpong}


def peak_parts(record: Record) -> Tuple[str, str]:
    """(kernel, variant) of a `peak` record: its variant is "flops-single", "flops-star",
    "bandwidth-single", "bandwidth-star" or "clock" as the bench names them; a plain
    "single"/"star" is told apart by its metrics (flop_rate or <kernel>_bandwidth_<level>)."""
    variant = str(record.get("variant"))
    kernel, _, rest = variant.partition("-")
    if rest:
        return kernel, rest
    if variant == "clock":
        return "clock", "clock"
    metric = str(section_of(record, "value").get("metric", ""))
    return ("bandwidth" if "_bandwidth_" in metric else "flops"), variant


def _kind(record: Record) -> Tuple[str, str]:
    benchmark = str(record.get("benchmark"))
    if benchmark == "peak":
        return benchmark, peak_parts(record)[0]
    return benchmark, str(record.get("variant"))


def ceilings_of(records: Sequence[Record]) -> Dict[MachineKey, Ceilings]:
    """Every machine's ceilings, read in order (a later record of a kind replaces an
    earlier one's figures)."""
    machines: Dict[MachineKey, Ceilings] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        key = machine_key(record)
        ceilings = machines.setdefault(key, Ceilings(key))
        if ceilings.cores_per_node is None:
            cores = number(section_of(record, "metadata").get("cores_per_node"))
            ceilings.cores_per_node = int(cores) if cores else None
        reader = _READERS.get(_kind(record))
        if reader is not None:
            reader(ceilings, record)
    return machines


def ceilings_for(machines: Dict[MachineKey, Ceilings], record: Record) -> Ceilings:
    key = machine_key(record)
    return machines.get(key) or Ceilings(key)


def ceiling_rows(ceilings: Ceilings) -> List[Ceiling]:
    """The known ceilings of a machine, by name (the ones the report lists)."""
    return [ceilings.found[name] for name in sorted(ceilings.found)
            if ceilings.found[name].known]


def per_core(ceilings: Ceilings, kind: str) -> Ceiling:
    """One core's double-precision peak: `theoretical` (clock x flops per cycle) or
    `empirical` (the FMA kernel), from peak flops single, else star's per rank."""
    if kind == "empirical":
        single = ceilings.found.get("flop_rate.single")
        star = ceilings.found.get("flop_rate_per_rank.star")
        return single or star or Ceiling("flop_rate", None, "flop/s",
                                         "no peak flops record")
    single = ceilings.found.get("peak_theoretical.single")
    if single is not None:  # rank 0 alone ran: one core's, whatever the ranks launched
        return single
    star = ceilings.found.get("peak_theoretical.star")
    if star is not None:
        return replace(star, value=star.value / star.ranks,  # type: ignore
                       source=f"{star.source}, per rank")
    return Ceiling("peak_theoretical", None, "flop/s", "no peak flops record with a "
                   "theoretical peak")
