"""The models paper 004's studies set beside their measurements (docs/studies/bhatele.md):

- eq. 1, a message's latency with wormhole routing and no contention, L_f/B · D + L/B
  (L_f the flit, B the link bandwidth, D the hops, L the message), through the
  simulator's link model (netsim/simulate.py: BG/P's 425 MB/s, 32-byte flits);
- §1's bandwidth argument (p. 3-4): when every rank sends to a random partner, the link
  crossings needed grow as P · (mean hops) ∝ P^(4/3) on a 3-D torus, while the links grow
  as P, so the load per link grows as P^(1/3). Given twice: in closed form (the mean
  ring distance, hand-checkable) and by the simulator routing WICON's random pairs.
"""

import math
from typing import Dict, List, Sequence, Tuple

import numpy as np

from hpcprobe.netsim.network import Network
from hpcprobe.netsim.patterns import Machine, dims_create, wicon_rnd
from hpcprobe.netsim.simulate import LinkModel, simulate

# The sweep of §1's argument: k x k x k tori, 64 to 32,768 nodes (the simulator routes
# the largest in a fraction of a second).
SWEEP_SIDES = (4, 8, 16, 32)
# The paper's exponents: links (available) ∝ P, crossings (required) ∝ P^(4/3).
PAPER_LINK_EXPONENT = 1.0
PAPER_CROSSING_EXPONENT = 4.0 / 3.0
# Eq. 1's constants as the simulator's defaults: BG/P's 425 MB/s links, 32-byte flits.
BGP_MODEL = LinkModel()


def eq1_latency(hops: float, message_bytes: float, model: LinkModel = BGP_MODEL) -> float:
    """Eq. 1 (plus the model's t_hop, 0 as printed) for a message alone on its links."""
    return float(model.latency(np.array([float(hops)]), np.array([1.0]),
                               float(message_bytes))[0])


def torus_dims(procs: int, ndims: int = 3) -> Tuple[int, ...]:
    """A balanced grid of `procs` positions, largest first, as MPI_Dims_create makes it."""
    if procs < 1:
        raise ValueError(f"a grid needs at least 1 position, not {procs}")
    return dims_create(procs, ndims)


def mean_line_hops(size: int, ring: bool) -> float:
    """Mean hops along one dimension from a node to a uniformly random node (itself
    included): min(d, D − d) averaged over d on a ring, (D² − 1) / 3D on a line."""
    if size <= 2 or not ring:
        return (size * size - 1) / (3.0 * size)
    return sum(min(d, size - d) for d in range(size)) / size


def required_crossings(dims: Sequence[int], ranks_per_node: int = 1,
                       ring: bool = True) -> float:
    """§1's link crossings when every rank sends one message to a random node: ranks ·
    mean hops (8x8x8, 4 ranks per node: 2048 · 6 = 12,288)."""
    return math.prod(dims) * ranks_per_node * sum(mean_line_hops(d, ring) for d in dims)


def available_links(dims: Sequence[int], ring: bool = True) -> int:
    """Directed links of the grid (8x8x8 torus: 512 · 6 = 3,072)."""
    return Network(tuple(dims), (ring,) * len(dims)).links


def simulated_load(dims: Sequence[int], ranks_per_node: int = 1,
                   seed: int = 1) -> Dict[str, float]:
    """The simulator's WICON RND on a torus of `dims`: links, link crossings (every
    message's hops summed), crossings per link and the busiest link's messages."""
    network = Network(tuple(dims), (True,) * len(dims))
    machine = Machine.block(network, ranks_per_node)
    result = simulate(machine, wicon_rnd(machine, seed), LinkModel(), sizes=())
    crossings = round((result["avg_hops"] or 0.0) * result["messages"])
    return {"procs": machine.ranks, "links": network.links, "crossings": crossings,
            "load": crossings / network.links if network.links else None,
            "max_load": result["max_link_load"]}


def sweep(sides: Sequence[int] = SWEEP_SIDES, ranks_per_node: int = 1) -> List[Dict[str, float]]:
    """§1's argument over k x k x k tori: the simulator's row and the closed form's."""
    rows = []
    for side in sides:
        dims = (side, side, side)
        row = simulated_load(dims, ranks_per_node)
        row["crossings_closed_form"] = required_crossings(dims, ranks_per_node)
        rows.append(row)
    return rows


def fitted_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of log y against log x: y ∝ x^slope."""
    if len(xs) < 2 or len(xs) != len(ys) or min(xs) <= 0 or min(ys) <= 0:
        raise ValueError("an exponent needs two or more positive pairs")
    lx, ly = np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float))
    return float(np.polyfit(lx, ly, 1)[0])
