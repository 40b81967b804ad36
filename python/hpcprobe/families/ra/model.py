"""RandomAccess performance models, as pure functions (docs/kernels/ra-model.md).

- Plimpton et al.'s hypercube scaling model: T_P = T_1 + T_C·log2(P) seconds per step of
  Q updates on each of P processes, so GUPS(P) = P·Q / T_P / 10⁹.
- Its overlapped form (`ra mpi --overlap on`, the pipelined hypercube): a stage's messages
  travel while their receiver generates, splits and updates later batches, so the exchange
  is hidden up to the update time: T_P = max(T_1, T_C·log2 P). It stops hiding at the
  crossover P* = 2^(T_1 / T_C), past which the exchange alone sets the pace.
- Garg & Sabharwal's bottleneck bound, their eq. (1): the rate is at most the smaller of a
  CPU bound N / (t_cpu + (N−1)/N·t_comm) and a network bound 4B/b, with B the bisection
  bandwidth (bytes/s, one direction) and b the bytes sent per update.
- The messages and words one rank sends per step of Q updates in the 1-D all-to-all,
  the d-dimensional grid (torus) and the hypercube exchanges.

Units are SI base units (s, bytes, bytes/s, updates); a name ending in `gups` holds
10⁹ updates/s.
"""

import math
import re
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from hpcprobe.netsim.network import parse_shape
from hpcprobe.netsim.patterns import HPCC_LOOKAHEAD
from hpcprobe.units import GIGA

# The most processes the crossover search looks at (2^40), far past any machine.
MAX_CROSSOVER_PROCS = 1 << 40
TOPOLOGY_KINDS = ("torus", "mesh", "fattree")


@dataclass(frozen=True)
class HypercubeModel:
    """Plimpton et al.'s T_P = T_1 + T_C·log2(P) for steps of Q updates per process.

    t1_s: seconds one process takes to generate and apply Q updates (no exchange).
    tc_s: seconds per exchange stage: splitting the Q-update list and swapping one
          message with the partner.
    lookahead: Q, the updates each process generates per step.
    """

    t1_s: float
    tc_s: float
    lookahead: int = HPCC_LOOKAHEAD

    def step_time_s(self, procs: float) -> float:
        """T_P: seconds per step of Q updates on every one of `procs` processes."""
        return self.t1_s + self.tc_s * math.log2(procs)

    def gups(self, procs: float) -> float:
        """Predicted rate on `procs` processes, in GUPS."""
        return procs * self.lookahead / self.step_time_s(procs) / GIGA

    def efficiency(self, procs: float) -> float:
        """GUPS(P) / (P·GUPS(1)) = T_1 / T_P, a fraction."""
        return self.t1_s / self.step_time_s(procs)

    def overlapped_step_time_s(self, procs: float) -> float:
        """T_P of the overlapped form: the exchange hidden behind the updates while it
        takes no longer than they do, max(T_1, T_C·log2 P)."""
        return max(self.t1_s, self.tc_s * math.log2(procs))

    def overlapped_gups(self, procs: float) -> float:
        return procs * self.lookahead / self.overlapped_step_time_s(procs) / GIGA

    def hiding_crossover_procs(self) -> Optional[float]:
        """P* = 2^(T_1/T_C), where T_C·log2 P reaches T_1 and overlap stops hiding the
        exchange; None when T_C is 0 (it never stops) or P* is past MAX_CROSSOVER_PROCS."""
        if self.tc_s <= 0 or self.t1_s / self.tc_s > math.log2(MAX_CROSSOVER_PROCS):
            return None
        return 2.0 ** (self.t1_s / self.tc_s)

    @property
    def t_cpu_s(self) -> float:
        """Seconds of computation per update (eq. (1)'s tg + tu + tos): T_1 / Q."""
        return self.t1_s / self.lookahead

    @property
    def t_comm_s(self) -> float:
        """Seconds of communication per update (eq. (1)'s ts + tr + top): T_C / Q."""
        return self.tc_s / self.lookahead


def cpu_bound_gups(procs: float, t_cpu_s: float, t_comm_s: float) -> float:
    """Eq. (1)'s first term: N / (t_cpu + (N−1)/N·t_comm), in GUPS, for N = procs."""
    return procs / (t_cpu_s + (procs - 1) / procs * t_comm_s) / GIGA


def network_bound_gups(bisection_bytes_per_s: float, bytes_per_update: float) -> float:
    """Eq. (1)'s second term: 4B/b, in GUPS. Random updates cross the bisection half the
    time, half of those in each direction, so B counts one direction."""
    return 4.0 * bisection_bytes_per_s / bytes_per_update / GIGA


@dataclass(frozen=True)
class Topology:
    """A network that grows with the number of processes P (one process per node).

    kind: torus, mesh (no wraparound) or fattree (full bisection).
    dims: how many dimensions grow with P (torus, mesh).
    spread: D_max(P) = spread·P^(1/dims), the longest dimension; 1 for a cube. A named
            shape such as 8x8x16 keeps its proportions: at P = 1024 D_max is 16.
    spec: the text it was parsed from.
    """

    kind: str
    dims: int
    spread: float
    spec: str

    def longest_dimension(self, procs: float) -> float:
        return min(float(procs), self.spread * procs ** (1.0 / self.dims))

    def bisection_bytes_per_s(self, procs: float, link_bytes_per_s: float) -> float:
        """B for `procs` processes, one direction, with `link_bytes_per_s` per link and
        direction. A torus cut across its longest dimension D_max severs 2·P/D_max links
        (each ring is cut twice), a mesh P/D_max, a full-bisection fat tree P/2."""
        if self.kind == "fattree":
            return procs / 2.0 * link_bytes_per_s
        rings_cut = 2.0 if self.kind == "torus" else 1.0
        return rings_cut * procs / self.longest_dimension(procs) * link_bytes_per_s


def _shape_topology(kind: str, shape_text: str, spec: str) -> Topology:
    sizes = parse_shape(shape_text) or ()
    grown = [size for size in sizes if size > 1]
    if not grown:
        raise ValueError(f"topology '{spec}' has no dimension larger than 1")
    procs = math.prod(grown)
    spread = max(grown) / procs ** (1.0 / len(grown))
    return Topology(kind, len(grown), spread, spec)


def parse_topology(spec: str) -> Topology:
    """'torus:8x8x16', 'torus:3d', 'mesh:16x16', 'mesh:2d', 'fattree'.

    Raises ValueError with a one-line reason for anything else.
    """
    kind, _, shape = spec.partition(":")
    allowed = "torus:AxBxC, torus:Nd, mesh:AxBxC, mesh:Nd or fattree"
    if kind not in TOPOLOGY_KINDS:
        raise ValueError(f"unknown topology '{spec}' (allowed: {allowed})")
    if kind == "fattree":
        if shape:
            raise ValueError(f"topology '{spec}': fattree takes no shape (allowed: {allowed})")
        return Topology("fattree", 1, 1.0, spec)
    if parse_shape(shape):
        return _shape_topology(kind, shape, spec)
    dims = re.fullmatch(r"([1-8])d", shape)
    if dims:
        return Topology(kind, int(dims.group(1)), 1.0, spec)
    raise ValueError(
        f"topology '{spec}' is malformed: give sizes joined by 'x' (such as {kind}:8x8x16) "
        f"or a dimension count (such as {kind}:3d); allowed: {allowed}")


@dataclass(frozen=True)
class Bottleneck:
    """Eq. (1) for one network: t_cpu_s, t_comm_s per update; bytes_per_update = b."""

    topology: Topology
    link_bytes_per_s: float
    bytes_per_update: float
    t_cpu_s: float
    t_comm_s: float

    def cpu_gups(self, procs: float) -> float:
        return cpu_bound_gups(procs, self.t_cpu_s, self.t_comm_s)

    def network_gups(self, procs: float) -> Optional[float]:
        """None for one process: nothing crosses a network."""
        if procs < 2:
            return None
        bisection = self.topology.bisection_bytes_per_s(procs, self.link_bytes_per_s)
        return network_bound_gups(bisection, self.bytes_per_update)

    def network_binds(self, procs: float) -> bool:
        network = self.network_gups(procs)
        return network is not None and network < self.cpu_gups(procs)

    def crossover_procs(self, limit: int = MAX_CROSSOVER_PROCS) -> Optional[int]:
        """The smallest P at which the network bound is below the CPU bound: the first
        power of two where it is, then bisection down to the integer. None up to `limit`."""
        high = 2
        while not self.network_binds(high):
            high *= 2
            if high > limit:
                return None
        low = high // 2  # does not bind (or is 1)
        while high - low > 1:
            middle = (low + high) // 2
            if self.network_binds(middle):
                high = middle
            else:
                low = middle
        return high


# Messages and words (64-bit updates) one rank sends per step of Q updates, with the
# destinations uniformly random (Plimpton et al., section 2; Garg & Sabharwal, section 4).

def alltoall_messages(procs: int) -> int:
    """1-D all-to-all: one message to every other rank, P − 1."""
    return procs - 1


def alltoall_words(procs: int, lookahead: int) -> float:
    """1-D all-to-all: every update not owned locally is sent once, Q·(P − 1)/P."""
    return lookahead * (procs - 1) / procs


def grid_messages(procs: int, dims: int) -> float:
    """d-dimensional grid of side P^(1/d): P^(1/d) − 1 messages in each dimension,
    d·(P^(1/d) − 1) in all."""
    return dims * (procs ** (1.0 / dims) - 1)


def grid_words(procs: int, lookahead: int, dims: int) -> float:
    """d-dimensional grid: in each dimension the share (s − 1)/s of the Q updates moves
    on, s = P^(1/d); d·Q·(P^(1/d) − 1)/P^(1/d) in all."""
    side = procs ** (1.0 / dims)
    return dims * lookahead * (side - 1) / side


def grid_shape_messages(shape: Sequence[int]) -> int:
    """A grid of the given sizes (e.g. a record's "2x2x1"): Σ (s_i − 1)."""
    return sum(size - 1 for size in shape)


def grid_shape_words(shape: Sequence[int], lookahead: int) -> float:
    """A grid of the given sizes: Q·Σ (s_i − 1)/s_i."""
    return lookahead * sum((size - 1) / size for size in shape)


def hypercube_messages(procs: int) -> float:
    """Hypercube: one message per dimension, log2 P."""
    return math.log2(procs)


def hypercube_words(procs: int, lookahead: int) -> float:
    """Hypercube: half of the list leaves in each of the log2 P stages, log2(P)·Q/2."""
    return math.log2(procs) * lookahead / 2


# The algorithms on a d-dimensional grid of the ranks: torus routes asynchronously, staged
# exchanges synchronously along each axis in turn (paper 001, Figure 1).
GRID_ALGORITHMS = ("torus", "staged")


def messages_per_step(algorithm: str, procs: int, dims: int = 3) -> float:
    """Messages per rank per step for 'alltoall', 'torus' or 'staged' (d = dims), or
    'hypercube'."""
    if algorithm == "alltoall":
        return alltoall_messages(procs)
    if algorithm in GRID_ALGORITHMS:
        return grid_messages(procs, dims)
    if algorithm == "hypercube":
        return hypercube_messages(procs)
    raise ValueError(f"no message count for algorithm '{algorithm}'")


def words_per_step(algorithm: str, procs: int, lookahead: int, dims: int = 3) -> float:
    """Words (updates) per rank per step for 'alltoall', 'torus', 'staged' or
    'hypercube'."""
    if algorithm == "alltoall":
        return alltoall_words(procs, lookahead)
    if algorithm in GRID_ALGORITHMS:
        return grid_words(procs, lookahead, dims)
    if algorithm == "hypercube":
        return hypercube_words(procs, lookahead)
    raise ValueError(f"no word count for algorithm '{algorithm}'")


def powers_of_two(highest_log2: int) -> Tuple[int, ...]:
    """1, 2, 4, ..., 2^highest_log2."""
    return tuple(1 << exponent for exponent in range(highest_log2 + 1))
