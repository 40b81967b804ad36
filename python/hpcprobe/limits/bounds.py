"""The bounds: what the machine's ceilings allow a kernel, formula by formula. Pure
arithmetic on numbers (SI units: flop/s, B/s, s, B), each formula saying where it comes
from, so that the tests check each against a hand computation."""

import math
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Sequence, Tuple

# RandomAccess beyond the caches: each update reads one 64 B line and writes it back.
LINE_BYTES = 64
RA_BYTES_PER_UPDATE = 2 * LINE_BYTES
# A complex double is 16 B; an out-of-place FFT reads its input and writes its output once
# at least.
FFT_BYTES_PER_POINT = 32


def cores_in_use(ranks_per_node: Sequence[int], threads: int, cores: int) -> int:
    """The cores P ranks of `threads` threads each can keep busy: on each node
    min(ranks x threads, cores) (oversubscribed ranks share cores), summed over nodes."""
    return sum(min(ranks * max(threads, 1), cores) for ranks in ranks_per_node if ranks > 0)


def flop_limit(per_core: float, ranks_per_node: Sequence[int], threads: int,
               cores: int) -> float:
    """The flop rate P ranks can reach: the per-core peak times the cores they use (HPL's
    and DGEMM's efficiency against peak, as Saini et al. rate HPL)."""
    return per_core * cores_in_use(ranks_per_node, threads, cores)


def fft_flops(points: float) -> float:
    """HPCC's count of a complex 1-D FFT of N points: 5 N log2 N flop."""
    return 5 * points * math.log2(points) if points > 1 else 0.0


def fft_intensity(points: float) -> float:
    """flop per byte at least moved: 5 N log2 N / (32 N) = 5 log2 N / 32."""
    return fft_flops(points) / (FFT_BYTES_PER_POINT * points) if points > 1 else 0.0


def fft_bound(points: float, flop_peak: float, bandwidth: float) -> float:
    """The roofline bound of an FFT: min(flop peak, intensity x bandwidth) flop/s."""
    return min(flop_peak, fft_intensity(points) * bandwidth)


def ra_bound(bandwidth: float) -> float:
    """RandomAccess beyond the caches: updates/s <= bandwidth / 128 B (one line read and
    written back per update; the copy bandwidth counts both, as likwid counts copy)."""
    return bandwidth / RA_BYTES_PER_UPDATE


def dgemm_intensity(order: float) -> float:
    """DGEMM C <- bC + aAB of order n: 2 n^3 flop over A, B and C read and C written
    (4 x 8 n^2 B): n / 16 flop/B, the compulsory traffic."""
    return 2 * order ** 3 / (32 * order ** 2) if order > 0 else 0.0


def hpl_intensity(order: float) -> float:
    """HPL's LU of order n: 2/3 n^3 flop over the matrix read and written once
    (16 n^2 B): n / 24 flop/B, the compulsory traffic."""
    return (2 / 3) * order ** 3 / (16 * order ** 2) if order > 0 else 0.0


# STREAM Triad a = b + s c: 2 flop per 24 B (STREAM's byte count).
TRIAD_INTENSITY = 2 / 24
# RandomAccess: one update (an XOR: one operation) per 128 B.
RA_INTENSITY = 1 / RA_BYTES_PER_UPDATE


# The bytes of each collective, with n the message size as IMB and comm define it
# (docs/kernels/comm.md) and P the ranks: (bytes the busiest rank sends or receives
# (the link bound), bytes the root receives, bytes each other rank receives (the memory
# bound: every byte received is copied once)). Lower bounds, whatever the algorithm.
Bytes = Callable[[float, int], float]
COLLECTIVE_BYTES: Dict[str, Tuple[Bytes, Bytes, Bytes]] = {
    # the vector n: reduce-scatter then allgather, each rank 2(P-1)/P n in and out
    "allreduce": (lambda n, p: 2 * (p - 1) / p * n,) * 3,
    # the whole vector n: each rank keeps n/P, receives the other ranks' (P-1)/P n
    "reduce_scatter": (lambda n, p: (p - 1) / p * n,) * 3,
    # one rank's part n: each rank receives the P-1 others'
    "allgather": (lambda n, p: (p - 1) * n,) * 3,
    "allgatherv": (lambda n, p: (p - 1) * n,) * 3,
    # n per rank pair: each rank sends and receives P-1 blocks
    "alltoall": (lambda n, p: (p - 1) * n,) * 3,
    "alltoallv": (lambda n, p: (p - 1) * n,) * 3,
    # the message n: the root sends it at least once, every other rank receives it
    "bcast": (lambda n, p: n, lambda n, p: 0.0, lambda n, p: n),
    # the vector n: the root receives n at least (the others may combine first)
    "reduce": (lambda n, p: n, lambda n, p: n, lambda n, p: 0.0),
    # one rank's part n: the root receives the P-1 others'
    "gather": (lambda n, p: (p - 1) * n, lambda n, p: (p - 1) * n, lambda n, p: 0.0),
    # n per rank: the root sends P-1 parts, each other rank receives its own
    "scatter": (lambda n, p: (p - 1) * n, lambda n, p: 0.0, lambda n, p: n),
    "barrier": (lambda n, p: 0.0,) * 3,
}


def latency_bound(ranks: int, latency: float) -> float:
    """ceil(log2 P) PingPong latencies: information from every rank reaches every other
    in no fewer than log2 P rounds of messages (a dissemination or a tree)."""
    return math.ceil(math.log2(ranks)) * latency if ranks > 1 else 0.0


def node_bytes(function: str, size: float, ranks: int, on_node: int, nodes: int) -> float:
    """The bytes the ranks of the busiest node receive together (the root's node: it
    receives most), or of a node of non-roots where that is more."""
    _, root, other = COLLECTIVE_BYTES[function]
    with_root = root(size, ranks) + (on_node - 1) * other(size, ranks)
    return max(with_root, on_node * other(size, ranks)) if nodes > 1 else with_root


def memory_time(received: float, copy_bandwidth: float) -> float:
    """Every byte received within a node is copied once: read and written, 2 B of memory
    traffic each, at the node's copy bandwidth (counted as likwid counts copy: read plus
    write)."""
    return 2 * received / copy_bandwidth


@dataclass(frozen=True)
class CollectiveBound:
    """A collective's bound at one size: the largest of its parts, and which it is."""

    time: float
    latency: float
    link: Optional[float]
    memory: Optional[float]

    @property
    def which(self) -> str:
        parts = {"latency": self.latency, "PingPong bandwidth": self.link or 0.0,
                 "node memory bandwidth": self.memory or 0.0}
        return max(parts, key=lambda name: parts[name])


def collective_bound(function: str, size: float, ranks: int, on_node: int, nodes: int,
                     latency: float, link_bandwidth: Optional[float],
                     copy_bandwidth: Optional[float]) -> CollectiveBound:
    """bound(n) = max(latency bound, the busiest rank's bytes at the PingPong bandwidth,
    the node's received bytes copied at the node's copy bandwidth (ranks sharing a
    node)); a part whose ceiling is unknown is left out (None)."""
    link_bytes = COLLECTIVE_BYTES[function][0](size, ranks)
    link = link_bytes / link_bandwidth if link_bandwidth else None
    memory = None
    if copy_bandwidth and on_node > 1:
        memory = memory_time(node_bytes(function, size, ranks, on_node, nodes), copy_bandwidth)
    lat = latency_bound(ranks, latency)
    return CollectiveBound(max(lat, link or 0.0, memory or 0.0), lat, link, memory)
