"""The contention simulator (docs/kernels/contention.md): route every message of a
pattern (patterns.py) in dimension order, count the messages on every directed link,
and predict each message's latency with Bhatele & Kale's eq. 1,

    latency = D · (L_f / B + t_hop) + L / (B / m),

L_f the flit (header packet) size, B the link bandwidth, D the hops, L the message's
bytes, t_hop a fixed delay per hop (0 in eq. 1 as printed), and m the number of messages
sharing the busiest link of the route: a link shared by m messages gives each 1/m of its
bandwidth. A message that stays on its node crosses no link; it is counted, not
predicted. Values are SI base units (s, B, B/s).

On a two-level tree (tree.py) whose uplinks run at B_up rather than B, an uplink's load
counts B / B_up times: m messages on an uplink get B_up / m each, which eq. 1 writes as
a sharing of m · B / B_up on links of bandwidth B.
"""

import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from hpcprobe.netsim.network import Network
from hpcprobe.netsim.patterns import Machine, Phase
from hpcprobe.netsim.routing import link_ends, link_loads, path_max_load
from hpcprobe.netsim.tree import (Tree, tree_alone_sharing, tree_links_valid, tree_loads,
                                  tree_path_loads)

# The paper's Blue Gene/P (section 2): 425 MB/s per link and direction; its eq. 1
# example uses 32-byte flits.
BGP_LINK_BANDWIDTH = 425e6
PAPER_FLIT_BYTES = 32.0
# Table 1's message sizes: MPI's short, eager and rendezvous protocols on BG/P.
TABLE_1_SIZES = (32, 1024, 16384)


@dataclass(frozen=True)
class LinkModel:
    """Eq. 1's constants: B (bytes/s per link and direction), L_f (bytes), t_hop (s);
    on a tree, its uplinks' bandwidth (None: B, as every other link)."""

    bandwidth: float = BGP_LINK_BANDWIDTH
    flit_bytes: float = PAPER_FLIT_BYTES
    hop_latency_s: float = 0.0
    uplink_bandwidth: Optional[float] = None

    @property
    def uplink_weight(self) -> float:
        """How many host-link messages one uplink message counts as: B / B_up."""
        return self.bandwidth / self.uplink_bandwidth if self.uplink_bandwidth else 1.0

    def latency(self, hops: np.ndarray, sharing: np.ndarray,
                message_bytes: Any) -> np.ndarray:
        """Eq. 1 with the bandwidth of the busiest link shared by `sharing` messages."""
        per_hop = self.flit_bytes / self.bandwidth + self.hop_latency_s
        return hops * per_hop + message_bytes * np.maximum(sharing, 1) / self.bandwidth


@dataclass
class Routed:
    """One phase after routing: per message its hops and the load of its busiest link."""

    phase: Phase
    hops: np.ndarray
    sharing: np.ndarray
    loads: np.ndarray
    rounds: int  # how many times the links are filled: 1, or the messages one at a time
    alone: Optional[np.ndarray] = None  # each message's sharing with no other (None: 1)

    def alone_sharing(self) -> np.ndarray:
        return self.alone if self.alone is not None else np.ones(len(self.hops))


def route_phase(machine: Machine, phase: Phase, model: LinkModel) -> Routed:
    network = machine.network
    src = machine.rank_position[phase.src]
    dst = machine.rank_position[phase.dst]
    hops = network.hops(src, dst) if len(src) else np.zeros(0, dtype=np.int64)
    if isinstance(network, Tree):
        return _route_tree(network, phase, src, dst, hops, model.uplink_weight)
    loads = link_loads(network, src, dst)
    if phase.sequential:  # each message alone: it shares no link
        return Routed(phase, hops, np.minimum(hops, 1), loads, max(1, len(src)))
    return Routed(phase, hops, path_max_load(network, loads, src, dst), loads, 1)


def _route_tree(tree: Tree, phase: Phase, src: np.ndarray, dst: np.ndarray,
                hops: np.ndarray, uplink_weight: float) -> Routed:
    loads = tree_loads(tree, src, dst)
    alone = tree_alone_sharing(tree, src, dst, uplink_weight)
    if phase.sequential:
        return Routed(phase, hops, alone, loads, max(1, len(src)), alone)
    return Routed(phase, hops, tree_path_loads(tree, loads, src, dst, uplink_weight), loads, 1,
                  alone)


def valid_links(network: Network) -> np.ndarray:
    """Which entries of the loads array are links, for any network."""
    if isinstance(network, Tree):
        return tree_links_valid(network)
    return link_ends(network)[0]


def _stats(values: np.ndarray) -> Dict[str, Optional[float]]:
    if values.size == 0:
        return {"mean_s": None, "min_s": None, "max_s": None}
    return {"mean_s": float(values.mean()), "min_s": float(values.min()),
            "max_s": float(values.max())}


def latency_rows(model: LinkModel, routed: Sequence[Routed],
                 sizes: Sequence[float]) -> List[Dict[str, Any]]:
    """Predicted latency of the messages that cross the network: per size in `sizes`,
    or one row for patterns whose messages carry their own sizes."""
    hops = np.concatenate([r.hops for r in routed])
    sharing = np.concatenate([r.sharing for r in routed])
    alone = np.concatenate([r.alone_sharing() for r in routed])
    network = hops > 0
    if routed and routed[0].phase.message_bytes is not None:
        own = np.concatenate([r.phase.message_bytes for r in routed])[network]
        row = {"bytes": None, "mean_bytes": float(own.mean()) if own.size else None}
        row.update(_stats(model.latency(hops[network], sharing[network], own)))
        row["uncontended_mean_s"] = _stats(
            model.latency(hops[network], alone[network], own))["mean_s"]
        return [row]
    rows = []
    for size in sizes:
        row: Dict[str, Any] = {"bytes": size}
        row.update(_stats(model.latency(hops[network], sharing[network], float(size))))
        row["uncontended_mean_s"] = _stats(
            model.latency(hops[network], alone[network], float(size)))["mean_s"]
        rows.append(row)
    return rows


def _load_summary(routed: Sequence[Routed], valid: np.ndarray, links: int) -> Dict[str, Any]:
    total_hops = int(sum(int(r.hops.sum()) for r in routed))
    rounds = sum(r.rounds for r in routed)
    busiest = [int((r.hops > 0).any()) if r.phase.sequential
               else int(r.loads.max()) if r.loads.size else 0 for r in routed]
    used = np.zeros(valid.shape, dtype=bool)
    for r in routed:
        used |= r.loads > 0
    return {
        "max_link_load": max(busiest, default=0),
        "mean_link_load": total_hops / (links * rounds) if links and rounds else None,
        "links_used": int((used & valid).sum()),
    }


def phase_summary(model: LinkModel, r: Routed, valid: np.ndarray, links: int,
                  sizes: Sequence[float]) -> Dict[str, Any]:
    summary: Dict[str, Any] = {"name": r.phase.name, "messages": int(len(r.hops)),
                               "avg_hops": float(r.hops.mean()) if r.hops.size else None}
    summary.update(_load_summary([r], valid, links))
    summary["latency"] = latency_rows(model, [r], sizes)
    if r.phase.watch is not None and r.hops.size:
        w = r.phase.watch
        sizes_w = (r.phase.message_bytes[w:w + 1] if r.phase.message_bytes is not None
                   else np.asarray(sizes, dtype=float))
        summary["watched"] = {
            "src": int(r.phase.src[w]), "dst": int(r.phase.dst[w]), "hops": int(r.hops[w]),
            "busiest_link_load": float(r.sharing[w]),
            "latency_s": [float(x) for x in model.latency(r.hops[w], r.sharing[w], sizes_w)],
        }
    return summary


def _step_time(routed: Sequence[Routed], model: LinkModel) -> Optional[float]:
    """RandomAccess patterns: the phases one after another, each as long as its slowest
    message (stages of one step of Q updates)."""
    total = 0.0
    for r in routed:
        moving = r.hops > 0
        if moving.any():
            total += float(model.latency(r.hops[moving], r.sharing[moving],
                                         r.phase.message_bytes[moving]).max())
    return total


def simulate(machine: Machine, phases: Sequence[Phase], model: LinkModel,
             sizes: Sequence[float] = TABLE_1_SIZES) -> Dict[str, Any]:
    """Route `phases` on `machine` and summarise: the keys of `hpcprobe simulate --json`."""
    started = time.perf_counter()
    network = machine.network
    routed = [route_phase(machine, phase, model) for phase in phases]
    valid = valid_links(network)
    hops = np.concatenate([r.hops for r in routed]) if routed else np.zeros(0, np.int64)
    result: Dict[str, Any] = {
        "network": network.spec, "dims": list(network.dims),
        "wrap": [bool(w) for w in network.wrap], "nodes": int(network.nodes),
        "ranks": int(machine.ranks), "links": int(network.links),
        "messages": int(hops.size), "network_messages": int((hops > 0).sum()),
        "intra_node_messages": int((hops == 0).sum()), "phases": len(routed),
        "avg_hops": float(hops.mean()) if hops.size else None,
        "max_hops": int(hops.max()) if hops.size else None,
        "hops_histogram": {str(h): int(c) for h, c in enumerate(np.bincount(hops)) if c},
    }
    result.update(_load_summary(routed, valid, network.links))
    result.update({"link_bandwidth_bytes_per_s": model.bandwidth,
                   "flit_bytes": model.flit_bytes, "hop_latency_s": model.hop_latency_s,
                   **({"uplink_bandwidth_bytes_per_s": model.uplink_bandwidth or model.bandwidth}
                      if isinstance(network, Tree) else {}),
                   "latency": latency_rows(model, routed, sizes) if routed else []})
    if routed and routed[0].phase.message_bytes is not None:
        result["step_time_s"] = _step_time(routed, model)
    if len(routed) > 1 or any(r.phase.watch is not None for r in routed):
        result["phase_results"] = [phase_summary(model, r, valid, network.links, sizes)
                                   for r in routed]
    result["elapsed_s"] = time.perf_counter() - started
    return result
