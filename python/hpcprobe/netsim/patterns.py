"""The traffic the simulator routes (docs/kernels/contention.md): the contention
benchmarks of paper 004 and the per-step exchanges of the RandomAccess algorithms.

A pattern is a list of phases. The messages of one phase are in flight together and
share links; phases follow one another. A `sequential` phase sends its messages one at
a time (WOCON), so none shares a link with another.

Ranks sit on nodes in blocks (rank r on node r // ranks_per_node) and nodes on the
network in row-major order, as hpcprobe-bench places them by default; a Machine can also
carry any other placement (the one a measured record used).
"""

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from hpcprobe.netsim.network import Network

# A phase holds at most this many messages (all-to-all grows as P²): 2^24, about 4096
# ranks' all-to-all, a few hundred MB of arrays.
MAX_PHASE_MESSAGES = 1 << 24
# HPCC RandomAccess's updates in flight per rank and its word (the ra-* patterns; the ra
# family's model takes them from here).
HPCC_LOOKAHEAD = 1024
WORD_BYTES = 8
PATTERNS = ("wocon", "wicon-nn", "wicon-nn-torus", "wicon-rnd", "stress-link",
            "equidistant", "alltoall", "ra-alltoall", "ra-hypercube", "ra-torus")
# Patterns whose message sizes follow from the algorithm (--lookahead), not --sizes.
RA_PATTERNS = ("ra-alltoall", "ra-hypercube", "ra-torus")
MAX_RA_GRID_DIMS = 3


@dataclass(frozen=True)
class Machine:
    """A network and where each rank sits: rank_position[r] is its node's index in the
    network (row-major), rank_node[r] the node it belongs to."""

    network: Network
    rank_position: np.ndarray
    rank_node: np.ndarray

    @classmethod
    def block(cls, network: Network, ranks_per_node: int) -> "Machine":
        """Every position of the network a node with `ranks_per_node` ranks, in order."""
        nodes = np.repeat(np.arange(network.nodes, dtype=np.int64), ranks_per_node)
        return cls(network, nodes, nodes)

    @property
    def ranks(self) -> int:
        return len(self.rank_position)

    def first_ranks(self) -> np.ndarray:
        """The lowest rank of every node, in node order."""
        _, first = np.unique(self.rank_node, return_index=True)
        return first.astype(np.int64)


@dataclass
class Phase:
    """Messages src[i] -> dst[i] (ranks) in flight together. message_bytes: each
    message's size, or None for the simulation's --sizes. watch: the index of the
    message whose own latency is reported (stress-link's middle pair)."""

    name: str
    src: np.ndarray
    dst: np.ndarray
    message_bytes: Optional[np.ndarray] = None
    sequential: bool = False
    watch: Optional[int] = None


def _both_ways(a: np.ndarray, b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The messages of pairs (a[i], b[i]) exchanging: a->b and b->a, as WICON does."""
    return np.concatenate([a, b]), np.concatenate([b, a])


def pair_phase(name: str, a: np.ndarray, b: np.ndarray, watch: Optional[int] = None) -> Phase:
    src, dst = _both_ways(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    return Phase(name, src, dst, watch=watch)


# --- paper 004 ---------------------------------------------------------------------------

def wocon(machine: Machine) -> List[Phase]:
    """Rank 0 to the first rank of every other node, one message at a time."""
    first = machine.first_ranks()
    others = first[machine.rank_node[first] != machine.rank_node[0]]
    return [Phase("wocon", np.zeros(len(others), dtype=np.int64), others, sequential=True)]


def random_matching(ranks: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """A seeded, uniformly random perfect matching of 0..ranks-1 (the last rank of the
    shuffle idles when `ranks` is odd): consecutive entries of a random permutation."""
    order = np.random.default_rng(seed).permutation(ranks)
    pairs = ranks // 2
    return order[0:2 * pairs:2], order[1:2 * pairs:2]


def wicon_rnd(machine: Machine, seed: int) -> List[Phase]:
    a, b = random_matching(machine.ranks, seed)
    return [pair_phase("wicon-rnd", a, b)]


def wicon_nn(machine: Machine) -> List[Phase]:
    """Partners differ by one (2i, 2i+1), the paper's NN mode."""
    a = np.arange(0, machine.ranks - 1, 2)
    return [pair_phase("wicon-nn", a, a + 1)]


def _node_pairs_ranks(machine: Machine, node_a: np.ndarray,
                      node_b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Rank i of node_a[j] with rank i of node_b[j], for every i both nodes have."""
    order = np.argsort(machine.rank_node, kind="stable")
    nodes_sorted = machine.rank_node[order]
    starts = np.searchsorted(nodes_sorted, node_a), np.searchsorted(nodes_sorted, node_b)
    counts = (np.searchsorted(nodes_sorted, node_a, side="right") - starts[0],
              np.searchsorted(nodes_sorted, node_b, side="right") - starts[1])
    shared = np.minimum(*counts)
    pair = np.repeat(np.arange(len(node_a)), shared)
    local = np.arange(len(pair)) - np.repeat(np.cumsum(shared) - shared, shared)
    return order[starts[0][pair] + local], order[starts[1][pair] + local]


def _position_node(machine: Machine) -> np.ndarray:
    """Node at each network position (-1 where the run has none)."""
    at = np.full(machine.network.nodes, -1, dtype=np.int64)
    at[machine.rank_position] = machine.rank_node
    return at


def _line_pairs(machine: Machine, axis: int, distance: int,
                lines: str = "all") -> Tuple[np.ndarray, np.ndarray]:
    """Nodes c and c + distance along `axis`, for c with (c mod 2·distance) < distance
    (the paper's Figure 12), on every line (or the line through position 0)."""
    network = machine.network
    coords = network.coords(np.arange(network.nodes))
    c = coords[:, axis]
    keep = (c % (2 * distance) < distance) & (c + distance < network.dims[axis])
    if lines == "first":
        others = np.delete(coords, axis, axis=1)
        keep &= ~others.any(axis=1)
    partner = coords[keep].copy()
    partner[:, axis] += distance
    at = _position_node(machine)
    a, b = at[np.flatnonzero(keep)], at[network.index(partner)]
    present = (a >= 0) & (b >= 0)
    return a[present], b[present]


def wicon_nn_torus(machine: Machine, axis: int) -> List[Phase]:
    """Every rank with the rank of the same place on the next node along `axis`."""
    a, b = _node_pairs_ranks(machine, *_line_pairs(machine, axis, 1))
    return [pair_phase("wicon-nn-torus", a, b)]


def equidistant(machine: Machine, axis: int, distances: Sequence[int]) -> List[Phase]:
    """One phase per distance: all ranks of nodes `distance` apart along `axis`."""
    phases = []
    for distance in distances:
        a, b = _node_pairs_ranks(machine, *_line_pairs(machine, axis, distance))
        phases.append(pair_phase(f"distance {distance}", a, b))
    return phases


def stress_pairs(size: int) -> List[Tuple[int, int]]:
    """Positions along the axis of the pairs around the middle link, innermost first:
    (D/2 − 1 − k, D/2 + k)."""
    middle = size // 2
    return [(middle - 1 - k, middle + k) for k in range(min(middle, size - middle))]


def stress_link(machine: Machine, axis: int, max_pairs: Optional[int] = None) -> List[Phase]:
    """On the line through position 0 along `axis`, one rank per node: the middle pair
    alone, then with 1, 2, ... pairs around it (the paper's Figure 10). Phase s watches
    the middle pair's first message."""
    network = machine.network
    at = _position_node(machine)
    first = machine.first_ranks()
    stride = network.strides[axis]
    pairs = stress_pairs(network.dims[axis])[:max_pairs]
    nodes = [(at[lo * stride], at[hi * stride]) for lo, hi in pairs]
    nodes = nodes[:next((i for i, (x, y) in enumerate(nodes) if x < 0 or y < 0), len(nodes))]
    a = np.array([first[x] for x, _ in nodes], dtype=np.int64)
    b = np.array([first[y] for _, y in nodes], dtype=np.int64)
    return [pair_phase(f"{count} pair{'s' if count > 1 else ''}", a[:count], b[:count], watch=0)
            for count in range(1, len(nodes) + 1)]


def alltoall(machine: Machine, message_bytes: Optional[float] = None,
             name: str = "alltoall") -> List[Phase]:
    """Every rank to every other rank at once."""
    ranks = machine.ranks
    check_messages(name, ranks * (ranks - 1))
    src = np.repeat(np.arange(ranks, dtype=np.int64), ranks - 1)
    skip = np.tile(np.arange(1, ranks, dtype=np.int64), ranks)
    dst = (src + skip) % ranks
    sizes = None if message_bytes is None else np.full(len(src), float(message_bytes))
    return [Phase(name, src, dst, sizes)]


def check_messages(name: str, count: int) -> None:
    if count > MAX_PHASE_MESSAGES:
        raise ValueError(f"{name} would route {count} messages at once (allowed: at most "
                         f"{MAX_PHASE_MESSAGES}; use fewer nodes or ranks per node)")


# --- RandomAccess: one step of Q updates per rank --------------------------------------

def ra_alltoall(machine: Machine, lookahead: int = HPCC_LOOKAHEAD) -> List[Phase]:
    """Plimpton et al.'s 1-D all-to-all: Q/P updates to every other rank."""
    return alltoall(machine, WORD_BYTES * lookahead / machine.ranks, "ra-alltoall")


def _halving_stage(lo: np.ndarray, hi: np.ndarray, lookahead: int):
    """One stage of the hypercube's recursive halving for every rank still in a
    partition of 2 or more (core/kernels/ra/ra_mpi_hypercube.c): the messages
    (src, dst, words) and the halves each rank goes on with."""
    rank = np.arange(len(lo), dtype=np.int64)
    size = hi - lo
    half = size // 2
    mid = lo + half
    upper = rank >= mid
    busy = size > 1
    other = np.where(upper, half, size - half)  # ranks in the other half
    words = lookahead * other / np.maximum(size, 1)  # the part of a Q-list owned there
    even = busy & (size % 2 == 0)
    src, dst, share = [rank[even]], [np.where(upper, rank - half, rank + half)[even]], [
        words[even]]
    low = busy & (size % 2 == 1) & ~upper  # lower rank i: to mid+i and mid+i+1
    i, n = rank - lo, half
    for offset, fraction in ((0, (n - i) / (n + 1)), (1, (i + 1) / (n + 1))):
        src.append(rank[low]), dst.append((mid + i + offset)[low])
        share.append((words * fraction)[low])
    high = busy & (size % 2 == 1) & upper  # upper rank j: to lo+j-1 and lo+j
    j = rank - mid
    for offset, fraction, exists in ((-1, j / np.maximum(n, 1), j > 0),
                                     (0, (n - j) / np.maximum(n, 1), j < n)):
        pick = high & exists
        single = high & ((j == 0) | (j == n))  # the ends send once, all of it
        src.append(rank[pick]), dst.append((lo + j + offset)[pick])
        share.append(np.where(single, words, words * fraction)[pick])
    new_lo = np.where(busy & upper, mid, lo)
    new_hi = np.where(busy & ~upper, mid, hi)
    return (np.concatenate(src), np.concatenate(dst), np.concatenate(share)), new_lo, new_hi


def ra_hypercube(machine: Machine, lookahead: int = HPCC_LOOKAHEAD) -> List[Phase]:
    """Plimpton et al.'s hypercube for any P: ⌈log2 P⌉ stages, each a phase."""
    ranks = machine.ranks
    lo = np.zeros(ranks, dtype=np.int64)
    hi = np.full(ranks, ranks, dtype=np.int64)
    phases = []
    while (hi - lo > 1).any():
        (src, dst, words), lo, hi = _halving_stage(lo, hi, lookahead)
        phases.append(Phase(f"stage {len(phases) + 1}", src, dst, WORD_BYTES * words))
    return phases


def dims_create(procs: int, ndims: int) -> Tuple[int, ...]:
    """Balanced sizes (largest first) whose product is procs, as MPI_Dims_create
    makes them: each prime factor, largest first, goes to the smallest size so far."""
    factors, left, p = [], procs, 2
    while p * p <= left:
        while left % p == 0:
            factors.append(p)
            left //= p
        p += 1
    if left > 1:
        factors.append(left)
    sizes = [1] * ndims
    for factor in sorted(factors, reverse=True):
        sizes[sizes.index(min(sizes))] *= factor
    return tuple(sorted(sizes, reverse=True))


def ra_grid(ranks: int, grid: Optional[Tuple[int, ...]] = None) -> Tuple[int, ...]:
    """The torus algorithm's virtual grid: `grid`, or min(3, ⌊log2 P⌋) dimensions."""
    if grid is not None:
        if math.prod(grid) != ranks:
            raise ValueError(f"--grid {'x'.join(map(str, grid))} has {math.prod(grid)} "
                             f"places for {ranks} ranks (allowed: sizes whose product is "
                             f"{ranks})")
        return grid
    return dims_create(ranks, max(1, min(MAX_RA_GRID_DIMS, ranks.bit_length() - 1)))


def ra_torus(machine: Machine, lookahead: int = HPCC_LOOKAHEAD,
             grid: Optional[Tuple[int, ...]] = None) -> List[Phase]:
    """Garg & Sabharwal's aggregation on a virtual grid: every rank sends to the
    D_k − 1 others on its line along each axis k, Q/D_k updates each (dimension-order
    relaying moves each update once per axis it differs in)."""
    shape = ra_grid(machine.ranks, grid)
    check_messages("ra-torus", machine.ranks * sum(size - 1 for size in shape))
    coords = np.stack(np.unravel_index(np.arange(machine.ranks), shape), axis=-1)
    src, dst, sizes = [], [], []
    for k, size in enumerate(shape):
        for step in range(1, size):
            moved = coords.copy()
            moved[:, k] = (moved[:, k] + step) % size
            src.append(np.arange(machine.ranks))
            dst.append(np.ravel_multi_index(tuple(moved.T), shape))
            sizes.append(np.full(machine.ranks, WORD_BYTES * lookahead / size))
    if not src:
        return [Phase("ra-torus", np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))]
    return [Phase("ra-torus", np.concatenate(src), np.concatenate(dst),
                  np.concatenate(sizes))]
