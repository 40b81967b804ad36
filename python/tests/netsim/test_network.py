"""Networks and routing (hpcprobe.network, hpcprobe.routing): hop distances against
breadth-first search on small tori, meshes and mixed grids; dimension-order routes are as
long as the hop distance; link loads and each route's busiest link against walking every
route link by link."""

from collections import Counter, deque

import numpy as np
import pytest

from hpcprobe.netsim.network import Network, default_axis, make_network, parse_wrap
from hpcprobe.netsim.routing import MINUS, PLUS, link_ends, link_loads, path_max_load

SMALL = [
    Network((5,), (True,)),
    Network((3, 4), (True, True)),
    Network((3, 4), (False, False)),
    Network((4, 6), (True, True)),          # even rings: ties at D/2
    Network((2, 3, 4), (True, False, True)),
    Network((1, 5), (False, False)),
    Network((2, 2, 2), (True, True, True)),  # size 2: no wraparound link of its own
]


def bfs(network, start):
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for other in network.neighbours(node):
            if other not in dist:
                dist[other] = dist[node] + 1
                queue.append(other)
    return dist


@pytest.mark.parametrize("network", SMALL, ids=lambda n: n.spec)
def test_hops_match_breadth_first_search(network):
    nodes = np.arange(network.nodes)
    for a in range(network.nodes):
        dist = bfs(network, a)
        assert network.hops(np.full(network.nodes, a), nodes).tolist() == [
            dist[b] for b in range(network.nodes)]


@pytest.mark.parametrize("network", SMALL, ids=lambda n: n.spec)
def test_routes_are_as_long_as_the_hop_distance(network):
    for a in range(network.nodes):
        for b in range(network.nodes):
            path = network.route(a, b)
            assert path[0] == a and path[-1] == b
            assert len(path) - 1 == network.hops(a, b)[0]
            assert all(y in network.neighbours(x) for x, y in zip(path, path[1:]))
            # dimension order: the dimension that changes never goes back to an earlier one
            changed = [int(np.flatnonzero(network.coords(np.array([x]))[0]
                                          != network.coords(np.array([y]))[0])[0])
                       for x, y in zip(path, path[1:])]
            assert changed == sorted(changed)


def walk_loads(network, src, dst):
    """Messages per directed link (from, to), by walking every route."""
    counts = Counter()
    for a, b in zip(src, dst):
        path = network.route(int(a), int(b))
        counts.update(zip(path, path[1:]))
    return counts


def vector_loads(network, loads):
    valid, start, end = link_ends(network)
    found = Counter()
    for k, direction, node in zip(*np.nonzero(loads)):
        assert valid[k, direction, node], "a load on a link that does not exist"
        found[(int(start[k, direction, node]), int(end[k, direction, node]))] += int(
            loads[k, direction, node])
    return found


@pytest.mark.parametrize("network", SMALL + [Network((4, 3, 5), (False, True, True))],
                         ids=lambda n: n.spec)
def test_link_loads_and_busiest_link_match_walking_the_routes(network):
    rng = np.random.default_rng(7)
    src = rng.integers(0, network.nodes, 400)
    dst = rng.integers(0, network.nodes, 400)
    loads = link_loads(network, src, dst)
    walked = walk_loads(network, src, dst)
    assert vector_loads(network, loads) == walked
    busiest = path_max_load(network, loads, src, dst)
    for a, b, found in zip(src, dst, busiest):
        path = network.route(int(a), int(b))
        assert found == max((walked[link] for link in zip(path, path[1:])), default=0)


def test_link_counts():
    assert make_network("torus", "8x8x8").links == 512 * 6 == 3072
    assert make_network("mesh", "4").links == 2 * 3
    assert make_network("torus", "2x1").links == 2  # one link each way, no wraparound
    valid, _, _ = link_ends(make_network("mesh", "3x4"))
    assert valid.sum() == make_network("mesh", "3x4").links


def test_ties_go_the_positive_way():
    ring = make_network("torus", "8")
    loads = link_loads(ring, np.array([0, 4]), np.array([4, 0]))
    assert loads[0, PLUS].sum() == 8 and loads[0, MINUS].sum() == 0


def test_make_network_refuses_bad_input():
    with pytest.raises(ValueError, match="sizes joined by 'x'"):
        make_network("torus", "8x")
    with pytest.raises(ValueError, match="at most"):
        make_network("torus", "4096x4096x4096")
    with pytest.raises(ValueError, match="one 0 or 1 per dimension"):
        parse_wrap("1,0", 3)
    assert make_network("mesh", "8x8x16", "0,0,1").kind == "mixed"
    assert default_axis((8, 8, 16)) == 2 and default_axis((8, 8)) == 1
