"""Torus and mesh networks as Bhatele & Kale describe them (paper 004): nodes on a grid
of `dims`, each dimension with or without wraparound links, every node linked to its
neighbours by one link in each direction. Hop distances, dimension-order routes and the
directed links, vectorised with numpy (docs/kernels/contention.md).

Conventions shared with hpcprobe-bench (core/kernels/contention/cont_topo.c):
- node n sits at row-major coordinates (the last dimension varies fastest);
- along a dimension of size D with wraparound, the distance is min(d, D − d); a
  dimension of size 1 or 2 has no separate wraparound link (it would join the same two
  nodes), so it counts as a mesh dimension;
- dimension-order routing moves along dimension 0 first, then 1, …, each time the short
  way round; a tie (d = D/2 on a ring) goes the positive way.
"""

import math
import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np


# Positions (nodes of the full grid) a network may have: 2^24, far past any machine's.
MAX_POSITIONS = 1 << 24
NETWORK_KINDS = ("torus", "mesh")
# Sizes joined by "x" ("8x8x16"): 1 to 8 dimensions of 1 to 999999 each.
SHAPE_PATTERN = r"[1-9][0-9]{0,5}(x[1-9][0-9]{0,5}){0,7}"


def parse_shape(text: str) -> Optional[Tuple[int, ...]]:
    """"8x8x16" -> (8, 8, 16); None when `text` is not sizes joined by "x"."""
    if not re.fullmatch(SHAPE_PATTERN, text):
        return None
    return tuple(int(size) for size in text.split("x"))


@dataclass(frozen=True)
class Network:
    """A torus, mesh or mixed grid: `dims` sizes, `wrap[k]` whether dimension k has
    wraparound links (as asked; `rings` says which really do)."""

    dims: Tuple[int, ...]
    wrap: Tuple[bool, ...]

    @property
    def nodes(self) -> int:
        return math.prod(self.dims)

    @property
    def rings(self) -> Tuple[bool, ...]:
        """Dimensions with a wraparound link of their own (size > 2)."""
        return tuple(w and d > 2 for w, d in zip(self.wrap, self.dims))

    @property
    def kind(self) -> str:
        if all(self.wrap):
            return "torus"
        return "mesh" if not any(self.wrap) else "mixed"

    @property
    def spec(self) -> str:
        """e.g. "torus 8x8x8", "mixed 8x8x16 (wrap 0,0,1)"."""
        text = f"{self.kind} {'x'.join(map(str, self.dims))}"
        if self.kind == "mixed":
            text += f" (wrap {','.join(str(int(w)) for w in self.wrap)})"
        return text

    @property
    def strides(self) -> Tuple[int, ...]:
        strides, step = [], 1
        for size in reversed(self.dims):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))

    @property
    def diameter(self) -> int:
        return sum(d // 2 if ring else d - 1 for d, ring in zip(self.dims, self.rings))

    @property
    def links(self) -> int:
        """Directed links: per dimension, D per direction on each line of a ring, D − 1
        on a mesh line."""
        total = 0
        for size, ring in zip(self.dims, self.rings):
            per_line = size if ring else size - 1
            total += 2 * per_line * (self.nodes // size)
        return total

    def coords(self, nodes: np.ndarray) -> np.ndarray:
        """(n, ndims) coordinates of node indices."""
        return np.stack(np.unravel_index(np.asarray(nodes, dtype=np.int64), self.dims),
                        axis=-1)

    def index(self, coords: np.ndarray) -> np.ndarray:
        """Node indices of (n, ndims) coordinates."""
        coords = np.asarray(coords, dtype=np.int64)
        return np.ravel_multi_index(tuple(coords.T), self.dims)

    def offsets(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(n, ndims) signed steps from node a to node b along each dimension, the way
        dimension-order routing takes them."""
        delta = self.coords(b) - self.coords(a)
        sizes = np.asarray(self.dims, dtype=np.int64)
        rings = np.asarray(self.rings)
        wrapped = np.mod(delta, sizes)  # 0..D-1: the positive way round
        short = np.where(wrapped <= sizes // 2, wrapped, wrapped - sizes)
        return np.where(rings, short, delta)

    def hops(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Hop distance between nodes a and b (arrays of the same shape)."""
        return np.abs(self.offsets(np.atleast_1d(a), np.atleast_1d(b))).sum(axis=1)

    def neighbours(self, node: int) -> List[int]:
        """Nodes one link away from `node`."""
        here = self.coords(np.array([node]))[0]
        found = []
        for k, (size, ring) in enumerate(zip(self.dims, self.rings)):
            for step in (1, -1):
                c = int(here[k]) + step
                if ring:
                    c %= size
                if 0 <= c < size:
                    there = here.copy()
                    there[k] = c
                    found.append(int(self.index(there[None, :])[0]))
        return sorted(set(found) - {node})

    def route(self, a: int, b: int) -> List[int]:
        """The nodes a dimension-order route visits from a to b, both ends included."""
        steps = self.offsets(np.array([a]), np.array([b]))[0]
        here = self.coords(np.array([a]))[0]
        path = [a]
        for k, step in enumerate(steps):
            direction = 1 if step > 0 else -1
            for _ in range(abs(int(step))):
                here[k] = (here[k] + direction) % self.dims[k]
                path.append(int(self.index(here[None, :])[0]))
        return path


def parse_wrap(text: str, ndims: int) -> Tuple[bool, ...]:
    """"1,1,0" -> (True, True, False); ValueError with one line otherwise."""
    words = text.split(",")
    if len(words) != ndims or any(word not in ("0", "1") for word in words):
        raise ValueError(f"--wrap takes one 0 or 1 per dimension ({ndims} here, such as "
                         f"{','.join(['1'] * ndims)}), not '{text}'")
    return tuple(word == "1" for word in words)


def make_network(kind: str, dims_text: str, wrap_text: Optional[str] = None) -> Network:
    """The network of `--torus DIMS` or `--mesh DIMS` (and `--wrap LIST`, which sets each
    dimension's wraparound). ValueError with one line for anything else."""
    dims = parse_shape(dims_text)
    if dims is None:
        raise ValueError(f"--{kind} takes sizes joined by 'x' (1 to 8 dimensions, such as "
                         f"8x8x16), not '{dims_text}'")
    if math.prod(dims) > MAX_POSITIONS:
        raise ValueError(f"--{kind} {dims_text} has {math.prod(dims)} nodes (allowed: at "
                         f"most {MAX_POSITIONS})")
    wrap = (kind == "torus",) * len(dims)
    if wrap_text is not None:
        wrap = parse_wrap(wrap_text, len(dims))
    return Network(dims, wrap)


def default_axis(dims: Sequence[int]) -> int:
    """The longest dimension (the last of equals): the paper's Z of 8x8x16."""
    longest = max(dims)
    return max(k for k, size in enumerate(dims) if size == longest)
