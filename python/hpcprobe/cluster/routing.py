"""Grid arithmetic of torus and mesh clusters, with the conventions of the contention
family's network model and of hpcprobe-bench (docs/kernels/contention.md), so that a
cluster routes messages as the simulator assumes:

- host n sits at row-major coordinates (the last dimension varies fastest);
- a dimension of size 1 has no link; one of size 2 has one link, even on a torus;
- routes go along dimension 0 first, then 1, then 2, each the short way round a torus
  ring, a tie (distance D/2) the positive way.
"""

from typing import List, Sequence, Tuple

Coordinates = Tuple[int, ...]


def coordinates(index: int, dims: Sequence[int]) -> Coordinates:
    found = []
    for size in reversed(dims):
        found.append(index % size)
        index //= size
    return tuple(reversed(found))


def index_of(coords: Sequence[int], dims: Sequence[int]) -> int:
    index = 0
    for coord, size in zip(coords, dims):
        index = index * size + coord
    return index


def has_ring(size: int, torus: bool) -> bool:
    """Whether a dimension has a wraparound link of its own (size 2 has one link)."""
    return torus and size > 2


def steps(a: Sequence[int], b: Sequence[int], dims: Sequence[int],
          torus: bool) -> List[int]:
    """Signed steps along each dimension from coordinates a to b, as routed."""
    found = []
    for here, there, size in zip(a, b, dims):
        delta = there - here
        if has_ring(size, torus):
            wrapped = delta % size
            delta = wrapped if wrapped <= size // 2 else wrapped - size
        found.append(delta)
    return found


def route(a: int, b: int, dims: Sequence[int], torus: bool) -> List[int]:
    """The hosts a dimension-order route visits from host a to host b, both included."""
    here = list(coordinates(a, dims))
    visited = [a]
    for k, step in enumerate(steps(here, coordinates(b, dims), dims, torus)):
        direction = 1 if step > 0 else -1
        for _ in range(abs(step)):
            here[k] = (here[k] + direction) % dims[k]
            visited.append(index_of(here, dims))
    return visited


def neighbour_pairs(dims: Sequence[int], torus: bool) -> List[Tuple[int, int, int]]:
    """(dimension, lower host, upper host) of every link: the upper host is one step
    along the dimension in the positive direction (wrapping round a ring)."""
    pairs = []
    total = 1
    for size in dims:
        total *= size
    for index in range(total):
        here = coordinates(index, dims)
        for k, size in enumerate(dims):
            last = here[k] == size - 1
            if size == 1 or (last and not has_ring(size, torus)):
                continue
            there = list(here)
            there[k] = (here[k] + 1) % size
            pairs.append((k, index, index_of(there, dims)))
    return pairs
