"""The screen's checks: what each launches and how each node's figure comes from the
records (metadata.hosts, metadata.rank_hosts and a per-rank series). Records are read by
field, never through a family: this layer may not import one."""

import statistics
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.screen.verdicts import NodeFigure


@dataclass(frozen=True)
class Check:
    """One battery step: a launch over every core of every node at once."""

    name: str
    benchmark: str
    variant: str
    values: Tuple[Tuple[str, str], ...]  # bench options by attribute (describe.py names them)
    series: str          # the per-rank series summed per node
    unit: str
    higher_is_better: bool
    about: str
    predicted_s: float   # the launch's run time at these sizes, launch start excluded
    missing: Optional[str] = None  # why the check cannot give per-node figures yet
    per_node: str = "sum"  # how a node's ranks make its figure: "sum" or "median"

    def options(self) -> Tuple[str, ...]:
        """The bench options, named as the bench describes them (asks the bench once)."""
        return bench_step_options(self.benchmark, self.variant, dict(self.values))


BATTERY: Tuple[Check, ...] = (
    Check("dgemm", "dgemm", "star", (("n", "1500"), ("repeat", "5")), "best_flop_rate",
          "flop/s", True, "DGEMM on every core at once, each rank's best rate summed per "
          "node", 8.0),
    Check("stream", "stream", "star", (("repeat", "10"),), "star_triad_best_bandwidth", "B/s",
          True, "STREAM triad on every core at once, each rank's best rate summed per node",
          10.0),
    # Every rank's chase at once; its figure is the latency at the largest working set
    # (past the caches: the DRAM plateau). A node's ranks share its memory: their median,
    # not their sum. One point per octave and 3 samples keep the sweep short.
    Check("latency", "mem", "latency", (("copies", "all"), ("points_per_octave", "1"),
                                        ("repeat", "3")),
          "memory_latency_per_rank", "s", False, "memory latency at the largest working set "
          "(the DRAM plateau) on every core at once, the median of each node's ranks", 6.0,
          per_node="median"),
    # A 128 MiB table per rank is past any core's share of the caches; the bench's own
    # size (4x the caches) took 60 s a repetition here, so 1 s caps each repetition.
    Check("ra", "ra", "star", (("table_log2", "24"), ("time_limit", "1"), ("repeat", "3")),
          "best_update_rate", "updates/s", True,
          "RandomAccess star on every core at once, each rank's best rate summed per node",
          8.0),
    Check("gpu", "gpu", "", (), "", "B/s", True, "the GPU steps per node", 0.0,
          missing="no per-node GPU figure yet (and no device on most nodes screened here)"),
)
PAIR_CHECKS = ("pair-bandwidth", "pair-latency")
ALL_CHECKS = tuple(check.name for check in BATTERY) + PAIR_CHECKS
DEFAULT_CHECKS = tuple(check.name for check in BATTERY if check.missing is None) + PAIR_CHECKS


def battery_check(name: str) -> Optional[Check]:
    return next((check for check in BATTERY if check.name == name), None)


def _section(record: Mapping, key: str) -> Mapping:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def record_hosts(record: Mapping) -> List[str]:
    hosts = _section(record, "metadata").get("hosts")
    return [str(host) for host in hosts] if isinstance(hosts, list) else []


def rank_host_names(record: Mapping) -> List[Optional[str]]:
    """Each rank's host name (metadata.rank_hosts indexes metadata.hosts; one host and no
    rank_hosts: every rank on it); None for an index out of range."""
    hosts = record_hosts(record)
    indexes = _section(record, "metadata").get("rank_hosts")
    if not isinstance(indexes, list):
        return []
    return [hosts[index] if isinstance(index, int) and 0 <= index < len(hosts) else None
            for index in indexes]


def validated(record: Mapping) -> bool:
    """As the families judge: the record ran and its validation passed."""
    return record.get("status") == "ok" and _section(record, "validation").get(
        "verdict") == "passed"


def _per_rank(record: Mapping, name: str) -> Optional[List[Tuple[int, float]]]:
    for series in record.get("series") or []:
        if isinstance(series, dict) and series.get("name") == name and \
                series.get("x_name") == "rank":
            pairs = zip(series.get("x") or [], series.get("y") or [])
            return [(int(x), float(y)) for x, y in pairs
                    if isinstance(x, (int, float)) and isinstance(y, (int, float))]
    return None


def per_host_values(record: Mapping, series: str) -> Dict[str, List[float]]:
    """The series' values of each host's ranks (no series: nothing)."""
    ranks = _per_rank(record, series)
    names = rank_host_names(record)
    values: Dict[str, List[float]] = {}
    for rank, value in ranks or []:
        host = names[rank] if 0 <= rank < len(names) else None
        if host is not None:
            values.setdefault(host, []).append(value)
    return values


def per_host_sums(record: Mapping, series: str) -> Dict[str, float]:
    """The series' values summed over each host's ranks (no series: nothing)."""
    return {host: sum(values) for host, values in per_host_values(record, series).items()}


def per_host_figures(record: Mapping, check: Check) -> Dict[str, float]:
    """Each host's figure: its ranks' values summed (rates) or their median (latency)."""
    if check.per_node == "median":
        return {host: statistics.median(values)
                for host, values in per_host_values(record, check.series).items()}
    return per_host_sums(record, check.series)


def node_figures(check: Check, records: Sequence[Mapping],
                 hosts: Sequence[str]) -> List[NodeFigure]:
    """Each host's figure for `check` from the last of its records; a host the record
    does not hold (or no record: the launch failed) gets no value, unvalidated."""
    mine = [record for record in records if record.get("benchmark") == check.benchmark
            and record.get("variant") == check.variant]
    record = mine[-1] if mine else {}
    sums = per_host_figures(record, check) if record else {}
    good = bool(record) and validated(record)
    return [NodeFigure(host, check.name, sums.get(host), check.unit, check.higher_is_better,
                       good and host in sums) for host in hosts]


def hosts_of(records: Sequence[Mapping]) -> List[str]:
    """Every host the records name, in the order first seen."""
    return list(dict.fromkeys(host for record in records for host in record_hosts(record)))
