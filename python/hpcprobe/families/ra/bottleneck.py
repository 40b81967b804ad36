"""Garg & Sabharwal's models of the multi-core algorithm (paper 000, sections 5.1-5.2;
docs/kernels/ra-model.md section 5), as pure functions and their readings of a record.

- Eq. (6)-(7): each core i of a node spends T_i seconds per update the node issues, and
  the node cannot go faster than its busiest core, so GUPS ≤ N / max_i T_i for N nodes
  (their eq. (7) is per node: GUPS ≤ 1/max T_i). hpcprobe measures T_i directly: each
  thread's busy time over the updates its rank issued, on every rank, and takes T_i of a
  role as the mean over the ranks (the paper's "average load ... per update").
- Section 5.2's routing model behind Table 4's "Bottleneck" columns. Multi-core: the
  busiest core (core 3, which receives and updates) spends t_u + t_r + t_op per update,
  with t_r = t_pkt / BktSize the per-packet receive cost spread over a bucket, and t_op
  calibrated on the smallest system. Single-core: t_cpu + h·t_hop per update, with h the
  expected software routing hops Σ (D_k − 1)/D_k and t_hop calibrated the same way.
- Section 4.3.1's bucket size: the look-ahead of 1024 shared by every bucket of a node.

Times are seconds per update (any one unit works for the pure functions, the GUPS ones
excepted); a name ending in `gups` holds 10⁹ updates/s.
"""

import math
import statistics
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.records import number, numbers, parameter, section_of
from hpcprobe.samples import metric_median
from hpcprobe.units import GIGA

Record = Dict[str, Any]
NANO = 1e-9


# ---- eq. (6)-(7) ------------------------------------------------------------------------

def eq7_bound_gups(role_times_s: Sequence[float], nodes: int) -> Optional[float]:
    """Eq. (7) for `nodes` nodes: N / max_i T_i, in GUPS; None without a positive time."""
    positive = [time for time in role_times_s if time > 0]
    if not positive or nodes < 1:
        return None
    return nodes / max(positive) / GIGA


@dataclass(frozen=True)
class RoleTimes:
    """Eq. (6) as measured: per role (a thread index of every rank), the name the record
    gives it, T_i (mean over ranks of busy seconds per update the rank issued) and the
    worst rank's. `ranks` ranks, `updates` issued in all, `busiest_s` the longest busy
    time of any thread on any rank."""

    names: Tuple[str, ...]
    per_update_s: Tuple[float, ...]
    worst_per_update_s: Tuple[float, ...]
    ranks: int
    updates: float
    busiest_s: float

    @property
    def bottleneck(self) -> int:
        """The index of the role with the largest T_i (core 3 in the paper)."""
        return max(range(len(self.per_update_s)), key=lambda i: self.per_update_s[i])

    def bound_gups(self) -> Optional[float]:
        """Eq. (7): N / max_i T_i."""
        return eq7_bound_gups(self.per_update_s, self.ranks)

    def cores_bound_gups(self, cores: Optional[int]) -> Optional[float]:
        """Eq. (6)-(7)'s argument with the cores as the resource, for threads that share
        them (more roles than cores): every update costs sum_i T_i of core time, so
        `cores` cores apply at most cores / sum_i T_i updates a second. None without
        cores or times."""
        total = sum(time for time in self.per_update_s if time > 0)
        if not cores or cores < 1 or total <= 0:
            return None
        return cores / total / GIGA

    def bound_with_cores_gups(self, cores: Optional[int]) -> Optional[float]:
        """The tighter of eq. (7) and the cores' bound: eq. (7) alone where every role
        has a core of its own, the cores' bound where they take turns."""
        found = [bound for bound in (self.bound_gups(), self.cores_bound_gups(cores))
                 if bound is not None]
        return min(found) if found else None

    def strict_bound_gups(self) -> Optional[float]:
        """The run cannot end before its busiest thread: updates / its busy time."""
        return self.updates / self.busiest_s / GIGA if self.busiest_s > 0 else None


def role_times(busy_ns: Sequence[float], issued: Sequence[float],
               names: Sequence[str] = ()) -> Optional[RoleTimes]:
    """T_i from every rank's threads: `busy_ns` rank-major (ranks × threads, as the
    record's counters.thread_busy_ns), `issued` the updates each rank issued
    (counters.updates_issued). None when the shapes disagree or a rank issued none."""
    ranks = len(issued)
    if ranks < 1 or not busy_ns or len(busy_ns) % ranks or any(n <= 0 for n in issued):
        return None
    threads = len(busy_ns) // ranks
    per_rank = [[busy_ns[r * threads + i] * NANO / issued[r] for i in range(threads)]
                for r in range(ranks)]
    means = tuple(statistics.fmean(row[i] for row in per_rank) for i in range(threads))
    worst = tuple(max(row[i] for row in per_rank) for i in range(threads))
    labels = tuple(names[i] if i < len(names) else f"thread {i}" for i in range(threads))
    return RoleTimes(labels, means, worst, ranks, float(sum(issued)), max(busy_ns) * NANO)


def cores_used(record: Optional[Record]) -> Optional[int]:
    """The cores a threaded run's roles had: per node the fewer of its cores and its
    ranks x threads, times the nodes (layout and metadata.cores_per_node)."""
    layout, metadata = section_of(record, "layout"), section_of(record, "metadata")
    values = [number(layout.get(key)) for key in ("nodes", "ranks_per_node_max",
                                                   "threads_per_rank")]
    cores = number(metadata.get("cores_per_node"))
    if cores is None or any(value is None or value < 1 for value in values + [cores]):
        return None
    nodes, ranks, threads = values
    return int(nodes * min(cores, ranks * threads))


def record_role_times(record: Optional[Record]) -> Optional[RoleTimes]:
    """Eq. (6) from a threaded `ra mpi` record (pipeline or shared); None for a record
    without every rank's thread counters."""
    counters = section_of(record, "counters")
    busy, issued = counters.get("thread_busy_ns"), counters.get("updates_issued")
    if not isinstance(busy, list) or not isinstance(issued, list):
        return None
    busy_values, issued_values = numbers(busy), numbers(issued)
    if len(busy_values) != len(busy) or len(issued_values) != len(issued):
        return None  # a null or text among them: the shapes cannot be trusted
    roles = parameter(record, "thread_roles")
    names = roles.split(";") if isinstance(roles, str) else []
    return role_times(busy_values, issued_values, names)


# ---- section 4.3.1: buckets -------------------------------------------------------------

def paper_bucket_count(dims: Sequence[int], cores: int = 4, receive_per_dim: int = 4) -> int:
    """Buckets of one node: Σ (D_k − 1) to send to other nodes, `receive_per_dim` per
    dimension for packets received, and one per ordered pair of cores (one way each,
    send and receive): Xmax + Ymax + Zmax + 21 for 3-D and 4 cores."""
    return (sum(size - 1 for size in dims) + receive_per_dim * len(dims)
            + cores * (cores - 1))


def paper_bucket_size(dims: Sequence[int], lookahead: int = 1024, cores: int = 4) -> int:
    """⌊lookahead / NumBuckets⌋: the updates one bucket holds."""
    return lookahead // paper_bucket_count(dims, cores)


# ---- section 5.2: the routing model -----------------------------------------------------

def receive_time_per_update(packet_receive_s: float, bucket_size: float) -> float:
    """t_r = t_pkt_rcv / BktSize: one receive call's cost spread over a bucket's updates."""
    return packet_receive_s / bucket_size


def core_overhead(bottleneck_s: float, update_s: float, receive_s: float) -> float:
    """t_op3 = T_3 − t_u − t_r: what the busiest core spends beyond updating and receiving
    (the paper: 143 − 90 − 11.3 = 41.5 cycles on 64 nodes)."""
    return bottleneck_s - update_s - receive_s


def multicore_bottleneck_gups(nodes: float, update_s: float, receive_s: float,
                              overhead_s: float) -> float:
    """Eq. (6)-(7) with core 3 the busiest: N / (t_u + t_r + t_op3), in GUPS."""
    return nodes / (update_s + receive_s + overhead_s) / GIGA


def routing_hops(dims: Sequence[int]) -> float:
    """Expected software-routing hops of an update, Σ (D_k − 1)/D_k (2.25 on 4×4×4)."""
    return sum((size - 1) / size for size in dims)


def per_hop_cost(single_s: float, cpu_s: float, hops: float) -> Optional[float]:
    """t_hop = (T − (t_g + t_u + t_os)) / hops: the single-core algorithm's routing cost
    per hop (the paper: (457 − 92) / 2.25 ≈ 162 cycles). None without hops."""
    return (single_s - cpu_s) / hops if hops > 0 else None


def singlecore_bottleneck_gups(nodes: float, cpu_s: float, hop_s: float, hops: float) -> float:
    """N / (t_cpu + hops · t_hop), in GUPS."""
    return nodes / (cpu_s + hops * hop_s) / GIGA


# ---- the model from records -------------------------------------------------------------

def grid_of(record: Optional[Record]) -> Optional[Tuple[int, ...]]:
    """parameters.grid ("4x2") as sizes; None when absent or malformed."""
    text = parameter(record, "grid")
    if not isinstance(text, str) or not text:
        return None
    parts = text.split("x")
    if not all(part.isdigit() and int(part) >= 1 for part in parts):
        return None
    return tuple(int(part) for part in parts)


def ranks_of(record: Optional[Record]) -> Optional[int]:
    ranks = number(section_of(record, "layout").get("ranks"))
    return int(ranks) if ranks is not None and ranks >= 1 else None


def seconds_per_update(record: Optional[Record]) -> Optional[float]:
    """A rank's time per update it issued: ranks / rate (the paper's 143 cycles per update
    from 0.38 GUPS on 64 nodes)."""
    rate, ranks = metric_median(record, "update_rate") if record else None, ranks_of(record)
    return ranks / rate if rate and rate > 0 and ranks else None


def packet_receive_s(record: Optional[Record]) -> Optional[float]:
    """t_pkt_rcv: Σ receive_ns / Σ messages_received over the ranks, in seconds."""
    counters = section_of(record, "counters")
    spent = numbers(counters.get("receive_ns"))
    received = numbers(counters.get("messages_received"))
    return sum(spent) * NANO / sum(received) if spent and sum(received) > 0 else None


def update_s(record: Optional[Record]) -> Optional[float]:
    """t_u: the updating threads' busy time per update they applied, over every rank
    (threads whose role starts with "update"); None without such a thread."""
    roles = parameter(record, "thread_roles")
    counters = section_of(record, "counters")
    busy, done = numbers(counters.get("thread_busy_ns")), numbers(counters.get("thread_updates"))
    if not isinstance(roles, str) or not busy or len(busy) != len(done):
        return None
    names = roles.split(";")
    chosen = [i for i in range(len(busy)) if names[i % len(names)].startswith("update")]
    applied = sum(done[i] for i in chosen)
    return sum(busy[i] for i in chosen) * NANO / applied if applied > 0 else None


def bucket_size(record: Optional[Record]) -> Optional[float]:
    size = number(parameter(record, "bucket_size"))
    return size if size is not None and size >= 1 else None


@dataclass(frozen=True)
class MulticoreModel:
    """Section 5.2's multi-core model calibrated on one record (the paper: 64 nodes):
    t_u, t_pkt_rcv measured there and t_op3 what is left of its time per update."""

    nodes: int
    update_s: float
    packet_s: float
    overhead_s: float

    def gups(self, nodes: float, bucket: float) -> float:
        """The model at `nodes` nodes whose buckets hold `bucket` updates."""
        receive = receive_time_per_update(self.packet_s, bucket)
        return multicore_bottleneck_gups(nodes, self.update_s, receive, self.overhead_s)


def calibrate_multicore(record: Optional[Record]) -> Optional[MulticoreModel]:
    """From a pipeline record: T (ranks / rate), t_u, t_pkt_rcv and BktSize; None when
    one of them is missing."""
    total, update = seconds_per_update(record), update_s(record)
    packet, bucket, ranks = packet_receive_s(record), bucket_size(record), ranks_of(record)
    if None in (total, update, packet, bucket, ranks):
        return None
    receive = receive_time_per_update(packet, bucket)
    return MulticoreModel(ranks, update, packet, core_overhead(total, update, receive))


@dataclass(frozen=True)
class SinglecoreModel:
    """Section 5.2's single-core model: t_cpu (t_g + t_u + t_os, from a run without
    routing) and t_hop calibrated on one routed record of `nodes` nodes."""

    nodes: int
    cpu_s: float
    hop_s: float

    def gups(self, nodes: float, hops: float) -> float:
        return singlecore_bottleneck_gups(nodes, self.cpu_s, self.hop_s, hops)


def calibrate_singlecore(serial: Optional[Record],
                         routed: Optional[Record]) -> Optional[SinglecoreModel]:
    """t_cpu from `serial` (one rank: nothing routed), t_hop from `routed` (a torus record
    on 2 or more ranks, its grid giving the hops); None when either cannot give it."""
    cpu, total, grid = seconds_per_update(serial), seconds_per_update(routed), grid_of(routed)
    ranks = ranks_of(routed)
    if cpu is None or total is None or grid is None or ranks is None:
        return None
    hop = per_hop_cost(total, cpu, routing_hops(grid))
    return None if hop is None else SinglecoreModel(ranks, cpu, hop)


def describe_roles(times: RoleTimes) -> List[str]:
    """One line per role: T_i in ns per update (mean over ranks; the worst rank's)."""
    return [f"{name}: {mean * 1e9:.2f} ns/update (worst rank {worst * 1e9:.2f})"
            for name, mean, worst in zip(times.names, times.per_update_s,
                                         times.worst_per_update_s)]


def relative_gap(model: Optional[float], measured: Optional[float]) -> Optional[float]:
    """(model − measured) / measured; None when either is missing or measured is 0."""
    if model is None or not measured or math.isnan(model):
        return None
    return (model - measured) / measured
