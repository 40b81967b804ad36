"""Dimension-order routing of many messages at once on a torus or mesh (network.py):
how many messages cross every directed link, and the busiest link on each message's
route. Vectorised: every message's route along one dimension is a contiguous run of
links on one line of the grid, so the loads of a dimension are a difference array over
positions, summed along that dimension, and the busiest link of a run is a range-maximum
query on a sparse table. Cost O(messages · dims + nodes · dims · log D).

Loads are an array (ndims, 2, nodes): loads[k, 0, n] counts the messages on the link
leaving node n in the + direction of dimension k, loads[k, 1, n] those leaving it in
the − direction. Positions without a link (the ends of a mesh line) stay 0.
"""

from typing import Dict, Iterator, Tuple

import numpy as np

from hpcprobe.netsim.network import Network

# Messages routed per pass: bounds the temporaries (about 100 bytes per message).
CHUNK_MESSAGES = 1 << 20
PLUS, MINUS = 0, 1

Segment = Tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def segments(network: Network, src: np.ndarray, dst: np.ndarray) -> Iterator[Segment]:
    """For each dimension k and direction, the messages that move along it:
    (k, direction, which (indices into src), coords of the line (n, ndims), first link
    position, number of links). Along k a message has reached its destination in the
    dimensions before k and is still at its source in those after."""
    steps = network.offsets(src, dst)
    here = network.coords(src)
    there = network.coords(dst)
    for k, size in enumerate(network.dims):
        step = steps[:, k]
        for direction, moving in ((PLUS, step > 0), (MINUS, step < 0)):
            which = np.flatnonzero(moving)
            if which.size == 0:
                continue
            length = np.abs(step[which])
            position = here[which, k]
            # A − link at position p leaves p for p − 1: the run ends at the source.
            first = position if direction == PLUS else np.mod(position - length + 1, size)
            yield k, direction, which, here[which], first, length
        here[:, k] = there[:, k]


def _run_counts(network: Network, k: int, line: np.ndarray, first: np.ndarray,
                length: np.ndarray) -> np.ndarray:
    """Messages on each link position of dimension k (flat over nodes) for runs of
    `length` links from `first` on the lines `line`, wrapping round a ring."""
    size = network.dims[k]
    extended = list(network.dims)
    extended[k] += 1  # one slot past the end for the runs that stop there
    end = first + length
    over = end > size
    starts, stops = line.copy(), line.copy()
    starts[:, k] = first
    stops[:, k] = np.where(over, size, end)
    plus = [np.ravel_multi_index(tuple(starts.T), extended)]
    minus = [np.ravel_multi_index(tuple(stops.T), extended)]
    if over.any():  # the part past the end of a ring starts again at 0
        again, stop = line[over].copy(), line[over].copy()
        again[:, k] = 0
        stop[:, k] = end[over] - size
        plus.append(np.ravel_multi_index(tuple(again.T), extended))
        minus.append(np.ravel_multi_index(tuple(stop.T), extended))
    cells = int(np.prod(extended))
    diff = (np.bincount(np.concatenate(plus), minlength=cells)
            - np.bincount(np.concatenate(minus), minlength=cells))
    counts = np.cumsum(diff.reshape(extended), axis=k)
    return np.take(counts, np.arange(size), axis=k).reshape(-1)


def link_loads(network: Network, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """(ndims, 2, nodes) messages per directed link when every message from src[i] to
    dst[i] (node indices) is routed in dimension order."""
    loads = np.zeros((len(network.dims), 2, network.nodes), dtype=np.int64)
    for start in range(0, len(src), CHUNK_MESSAGES):
        part = slice(start, start + CHUNK_MESSAGES)
        for k, direction, _, line, first, length in segments(network, src[part], dst[part]):
            loads[k, direction] += _run_counts(network, k, line, first, length)
    return loads


def _sparse_table(values: np.ndarray, k: int, size: int) -> np.ndarray:
    """table[j] = max of 2^j consecutive positions along axis k, going round the line
    (every query stays inside one run, so going round a mesh line is never read)."""
    levels = [values]
    width = 1
    while 2 * width <= size:
        previous = levels[-1]
        levels.append(np.maximum(previous, np.roll(previous, -width, axis=k)))
        width *= 2
    return np.stack(levels)


def path_max_load(network: Network, loads: np.ndarray, src: np.ndarray,
                  dst: np.ndarray) -> np.ndarray:
    """For every message, the load of the busiest link on its route (0 when it stays
    on its node)."""
    busiest = np.zeros(len(src), dtype=np.int64)
    tables: Dict[Tuple[int, int], np.ndarray] = {}
    for start in range(0, len(src), CHUNK_MESSAGES):
        part = slice(start, start + CHUNK_MESSAGES)
        found = busiest[part]
        for k, direction, which, line, first, length in segments(network, src[part],
                                                                 dst[part]):
            size = network.dims[k]
            if (k, direction) not in tables:
                grid = loads[k, direction].reshape(network.dims)
                tables[(k, direction)] = _sparse_table(grid, k, size)
            table = tables[(k, direction)]
            level = np.floor(np.log2(length)).astype(np.int64)
            at_first, at_last = line.copy(), line.copy()
            at_first[:, k] = first
            at_last[:, k] = np.mod(first + length - (1 << level), size)
            left = table[(level, *at_first.T)]
            right = table[(level, *at_last.T)]
            found[which] = np.maximum(found[which], np.maximum(left, right))
    return busiest


def link_ends(network: Network) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(valid, from, to), each (ndims, 2, nodes): whether the link exists, and the
    nodes it joins (for tests and listings)."""
    nodes = np.arange(network.nodes)
    coords = network.coords(nodes)
    shape = (len(network.dims), 2, network.nodes)
    valid = np.zeros(shape, dtype=bool)
    ends = np.zeros(shape, dtype=np.int64)
    for k, (size, ring) in enumerate(zip(network.dims, network.rings)):
        for direction, step in ((PLUS, 1), (MINUS, -1)):
            moved = coords.copy()
            moved[:, k] = coords[:, k] + step
            exists = (moved[:, k] >= 0) & (moved[:, k] < size)
            if ring:
                exists[:] = True
                moved[:, k] %= size
            valid[k, direction] = exists & (size > 1)
            moved[:, k] = np.clip(moved[:, k], 0, size - 1)
            ends[k, direction] = network.index(moved)
    return valid, np.broadcast_to(nodes, shape), ends
