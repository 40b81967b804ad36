"""The congestion model behind `hpcprobe simulate congestion` (docs/kernels/congestion.md):
the bandwidth canary's CIF from the link loads of the congestors.

The canaries' ring and the congestors' flows are placed as hpcprobe-bench places them
(the same roles per node, the same seeded ring), routed by contention's simulator, and
each canary message's time is eq. 1 with the busiest link of its route shared by every
flow on it:

    t = D · (L_f / B + t_hop) + L / (B / m)

A canary rank's sample waits for its message out and its message in (the ring step), so
its time is the larger of the two; the CIF is the mean time beside the congestors over
the mean time alone. Every flow on a link counts as an equal share: a congestor flow that
something else throttles (an incast's root link) takes less than that in a real network,
so the prediction is an upper bound where congestors bottleneck elsewhere.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.network import Network
from hpcprobe.netsim.simulate import LinkModel
from hpcprobe.netsim.tree import Tree
from hpcprobe.families.congestion.cif import CONGESTORS

_MASK = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def _splitmix64(state: int) -> Tuple[int, int]:
    """(new state, output): core/include/hpcprobe/rng.h's hpcp_splitmix64."""
    state = (state + _GOLDEN_GAMMA) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def shuffle(n: int, seed: int) -> List[int]:
    """hpcp_shuffle: the bench's seeded Fisher-Yates permutation of 0..n-1."""
    order, state = list(range(n)), seed & _MASK
    for i in range(n - 1, 0, -1):
        state, value = _splitmix64(state)
        j = value % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def _mark(units: int, congestors: int) -> List[int]:
    """Canary units spread evenly, as cong_split_units marks them."""
    canaries = units - congestors
    marks = [1] * units
    for c in range(canaries):
        marks[(2 * c + 1) * units // (2 * canaries)] = 0
    return marks


def split_units(unit_ranks: Sequence[int], fraction: float, need: int = 2) -> List[int]:
    """1 for each congestor unit: the bench's rule (floor(fraction · units), moved until
    each role has `need` ranks). ValueError when no split works."""
    units = len(unit_ranks)
    n = math.floor(fraction * units + 1e-9)
    if sum(unit_ranks) < 2 * need or not 1 <= n < units:
        raise ValueError(f"--congestor-fraction {fraction:g} on {units} unit(s) of "
                         f"{sum(unit_ranks)} ranks leaves a role without {need} ranks")

    def ranks(marks: List[int], role: int) -> int:
        return sum(r for r, m in zip(unit_ranks, marks) if m == role)
    marks = _mark(units, n)
    while n > 1 and ranks(marks, 0) < need:
        n -= 1
        marks = _mark(units, n)
    while n < units - 1 and ranks(marks, 1) < need and ranks(marks, 0) > need:
        n += 1
        marks = _mark(units, n)
    if ranks(marks, 0) < need or ranks(marks, 1) < need:
        raise ValueError(f"{units} unit(s) cannot give each role {need} ranks")
    return marks


def rank_roles(machine: Machine, fraction: float) -> np.ndarray:
    """1 for each congestor rank: per node, or per rank on one node."""
    nodes = int(machine.rank_node.max()) + 1
    if nodes == 1:
        return np.array(split_units([1] * machine.ranks, fraction), dtype=np.int64)
    per_node = np.bincount(machine.rank_node, minlength=nodes).tolist()
    return np.array(split_units(per_node, fraction), dtype=np.int64)[machine.rank_node]


def canary_ring(rank_congestor: np.ndarray, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """(src, dst): each canary rank's message to its right neighbour on the ring."""
    members = np.flatnonzero(rank_congestor == 0)
    order = members[shuffle(len(members), seed)]
    return order, np.roll(order, -1)


def congestor_flows(rank_congestor: np.ndarray, congestor: str) -> Tuple[np.ndarray, np.ndarray]:
    """(src, dst) of one pattern's flows, rooted at the first congestor rank."""
    ranks = np.flatnonzero(rank_congestor == 1)
    root, others = ranks[0], ranks[1:]
    if congestor in ("incast", "put-incast"):
        return others, np.full(len(others), root)
    if congestor == "get-bcast":
        return np.full(len(others), root), others
    src, dst = np.meshgrid(ranks, ranks, indexing="ij")
    keep = src != dst
    return src[keep], dst[keep]


@dataclass(frozen=True)
class Prediction:
    congestor: str
    isolated_s: float   # mean time of a canary sample's message, alone
    congested_s: float
    max_link_load: int

    @property
    def cif(self) -> float:
        return self.congested_s / self.isolated_s if self.isolated_s > 0 else math.nan


Link = Tuple[str, int, int]


def flow_links(network: Network, a: int, b: int) -> List[Link]:
    """The directed links a message from position a to b crosses: a tree's host links
    and uplinks, a grid's dimension-order route."""
    if a == b:
        return []
    if isinstance(network, Tree):
        links = [("host", a, 0), ("host", b, 1)]
        leaf_a, leaf_b = int(network.leaf(np.array([a]))[0]), int(network.leaf(np.array([b]))[0])
        if leaf_a != leaf_b:
            links += [("uplink", leaf_a, 0), ("uplink", leaf_b, 1)]
        return links
    path = network.route(a, b)
    return [("grid", u, v) for u, v in zip(path, path[1:])]


def max_min_rates(paths: Sequence[List[Link]], capacity: Dict[str, float]) -> np.ndarray:
    """Max-min fair rates (progressive filling): every flow grows at the same pace until
    a link it crosses is full; TCP flows sharing FIFO links settle near this."""
    rates = np.zeros(len(paths))
    frozen = np.array([not path for path in paths])
    left = {link: capacity[link[0]] for path in paths for link in path}
    while not frozen.all():
        users: Dict[Link, List[int]] = {}
        for index, path in enumerate(paths):
            if not frozen[index]:
                for link in path:
                    users.setdefault(link, []).append(index)
        link, flows = min(users.items(), key=lambda item: left[item[0]] / len(item[1]))
        share = left[link] / len(flows)
        for index in flows:
            rates[index] = share
            frozen[index] = True
            for crossed in paths[index]:
                left[crossed] -= share
    return rates


def _sample_times(machine: Machine, src: np.ndarray, dst: np.ndarray, extra: Tuple,
                  model: LinkModel, message_bytes: float) -> Tuple[np.ndarray, int]:
    """Each canary rank's time (its message out and in) with the `extra` flows beside,
    and the most flows on one link."""
    position = machine.rank_position
    all_src = np.concatenate([src, extra[0]]).astype(np.int64)
    all_dst = np.concatenate([dst, extra[1]]).astype(np.int64)
    paths = [flow_links(machine.network, int(position[a]), int(position[b]))
             for a, b in zip(all_src, all_dst)]
    capacity = {"host": model.bandwidth, "grid": model.bandwidth,
                "uplink": model.uplink_bandwidth or model.bandwidth}
    rates = max_min_rates(paths, capacity)
    per_hop = model.flit_bytes / model.bandwidth + model.hop_latency_s
    n = len(src)
    times = [len(paths[i]) * per_hop + message_bytes / rates[i] if paths[i] else 0.0
             for i in range(n)]
    out = dict(zip(src.tolist(), times))
    into = dict(zip(dst.tolist(), times))
    per_rank = np.array([max(out[r], into[r]) for r in src.tolist()])
    counts: Dict[Link, int] = {}
    for path in paths:
        for link in path:
            counts[link] = counts.get(link, 0) + 1
    return per_rank, max(counts.values(), default=0)


def predict(machine: Machine, rank_congestor: np.ndarray, congestors: Sequence[str], seed: int,
            model: LinkModel, message_bytes: float) -> List[Prediction]:
    """The bandwidth canary's predicted CIF beside each congestor."""
    src, dst = canary_ring(rank_congestor, seed)
    none = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    alone, _ = _sample_times(machine, src, dst, none, model, message_bytes)
    found = []
    for congestor in congestors:
        if congestor not in CONGESTORS:
            continue
        loaded, load = _sample_times(machine, src, dst, congestor_flows(rank_congestor, congestor),
                                     model, message_bytes)
        found.append(Prediction(congestor, float(alone.mean()), float(loaded.mean()), load))
    return found


def roles_summary(rank_congestor: np.ndarray, machine: Machine) -> Dict[str, int]:
    canary = rank_congestor == 0
    return {"canary_ranks": int(canary.sum()), "congestor_ranks": int((~canary).sum()),
            "canary_nodes": len(set(machine.rank_node[canary].tolist())),
            "congestor_nodes": len(set(machine.rank_node[~canary].tolist()))}
