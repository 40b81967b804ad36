"""A two-level tree, the most common production network: L leaf switches of H hosts
each, every leaf joined to one root switch by a single uplink (an H:1 oversubscribed
fat tree when the uplink is no faster than a host link). The emulated cluster's
`--topology tree:LxH` is such a network (docs/cluster.md).

A message goes up from its host to its leaf, and, when its destination hangs off
another leaf, up that leaf's uplink to the root and down the other leaf's uplink; then
down to the destination host: 2 links within a leaf, 4 across. Every link is full
duplex, so each has an up and a down direction that messages do not share.

Hosts sit on a (leaf, host) grid, row-major like the tori (host n on leaf n // H), so
the geometric patterns take their axes from it: axis 0 goes across leaves, axis 1 along
one leaf. Loads have the grid networks' shape (ndims = 2, 2, nodes): loads[0, d, n] is
host n's own link (d = UP towards its leaf, DOWN from it), loads[1, d, l] leaf l's
uplink (positions l >= L unused).
"""

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from hpcprobe.netsim.network import Network

UP, DOWN = 0, 1
HOST_HOPS, UPLINK_HOPS = 2, 4


@dataclass(frozen=True)
class Tree(Network):
    """dims = (leaves, hosts per leaf); wrap is never used (no wraparound)."""

    @classmethod
    def of(cls, leaves: int, hosts_per_leaf: int) -> "Tree":
        return cls((leaves, hosts_per_leaf), (False, False))

    @property
    def leaves(self) -> int:
        return self.dims[0]

    @property
    def hosts_per_leaf(self) -> int:
        return self.dims[1]

    @property
    def kind(self) -> str:
        return "tree"

    @property
    def spec(self) -> str:
        return f"tree {self.leaves}x{self.hosts_per_leaf}"

    @property
    def diameter(self) -> int:
        if self.leaves > 1:
            return UPLINK_HOPS
        return HOST_HOPS if self.hosts_per_leaf > 1 else 0

    @property
    def links(self) -> int:
        """Directed links: every host's link both ways, and every uplink both ways
        (a single leaf has none)."""
        return 2 * self.nodes + (2 * self.leaves if self.leaves > 1 else 0)

    def leaf(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(positions, dtype=np.int64) // self.hosts_per_leaf

    def hops(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.atleast_1d(a), np.atleast_1d(b)
        crosses = self.leaf(a) != self.leaf(b)
        return np.where(a == b, 0, np.where(crosses, UPLINK_HOPS, HOST_HOPS)).astype(np.int64)

    def neighbours(self, node: int) -> List[int]:
        """Hosts one switch away: the others on its leaf."""
        first = (node // self.hosts_per_leaf) * self.hosts_per_leaf
        return [n for n in range(first, first + self.hosts_per_leaf) if n != node]

    def route(self, a: int, b: int) -> List[int]:
        raise ValueError(f"{self.spec} routes through switches, not hosts: 'topology route' "
                         "takes a torus or mesh")


def tree_loads(tree: Tree, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """(2, 2, nodes) messages per directed link when every message src[i] -> dst[i]
    (host positions) goes up to the switch both share and down again."""
    loads = np.zeros((2, 2, tree.nodes), dtype=np.int64)
    moving = src != dst
    loads[0, UP] = np.bincount(src[moving], minlength=tree.nodes)
    loads[0, DOWN] = np.bincount(dst[moving], minlength=tree.nodes)
    leaf_src, leaf_dst = tree.leaf(src), tree.leaf(dst)
    crosses = moving & (leaf_src != leaf_dst)
    loads[1, UP, :tree.leaves] = np.bincount(leaf_src[crosses], minlength=tree.leaves)
    loads[1, DOWN, :tree.leaves] = np.bincount(leaf_dst[crosses], minlength=tree.leaves)
    return loads


def tree_path_loads(tree: Tree, loads: np.ndarray, src: np.ndarray, dst: np.ndarray,
                    uplink_weight: float = 1.0) -> np.ndarray:
    """Per message, the load of the busiest link on its route, an uplink's load
    counted `uplink_weight` times (host link rate / uplink rate: a slower uplink is
    as busy as that many more messages on a host link). 0 for a message that stays."""
    leaf_src, leaf_dst = tree.leaf(src), tree.leaf(dst)
    busiest = np.maximum(loads[0, UP, src], loads[0, DOWN, dst]).astype(float)
    crosses = (src != dst) & (leaf_src != leaf_dst)
    uplinks = np.maximum(loads[1, UP, leaf_src], loads[1, DOWN, leaf_dst]) * uplink_weight
    busiest = np.where(crosses, np.maximum(busiest, uplinks), busiest)
    return np.where(src == dst, 0.0, busiest)


def tree_alone_sharing(tree: Tree, src: np.ndarray, dst: np.ndarray,
                       uplink_weight: float = 1.0) -> np.ndarray:
    """A message alone on the tree (WOCON): 1 on its host links, `uplink_weight` where
    a slower uplink is its bottleneck; 0 when it stays on its host."""
    crosses = tree.leaf(src) != tree.leaf(dst)
    alone = np.where(crosses, max(1.0, uplink_weight), 1.0)
    return np.where(src == dst, 0.0, alone)


def tree_links_valid(tree: Tree) -> np.ndarray:
    """(2, 2, nodes): which entries of the loads are links."""
    valid = np.zeros((2, 2, tree.nodes), dtype=bool)
    valid[0] = True
    valid[1, :, :tree.leaves] = tree.leaves > 1
    return valid


def parse_tree(text: str) -> Tuple[int, int]:
    """"LxH" -> (L, H); ValueError with one line otherwise."""
    words = text.split("x")
    if len(words) != 2 or not all(w.isascii() and w.isdigit() and int(w) >= 1 for w in words):
        raise ValueError(f"--tree takes LxH: L leaf switches of H hosts each (such as 2x4), "
                         f"not '{text}'")
    leaves, hosts = int(words[0]), int(words[1])
    if leaves * hosts > (1 << 24):
        raise ValueError(f"--tree {text} has {leaves * hosts} hosts (allowed: at most "
                         f"{1 << 24})")
    return leaves, hosts
