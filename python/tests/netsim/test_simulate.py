"""The contention simulator (hpcprobe.patterns, hpcprobe.simulate): the paper's worked
example, eq. 1, the patterns of the benchmarks and of the RandomAccess algorithms."""

import numpy as np
import pytest

from hpcprobe.netsim import patterns
from hpcprobe.families.ra.model import hypercube_words
from hpcprobe.netsim.network import make_network
from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.simulate import LinkModel, simulate


def machine(spec="torus", dims="8x8x8", ranks_per_node=4):
    return Machine.block(make_network(spec, dims), ranks_per_node)


def test_paper_worked_example_8x8x8_torus_four_ranks_per_node():
    """Section 1: 512 × 6 = 3072 links, 6 hops on average between random nodes, and with
    every one of 4 ranks per node sending at once about 4 messages on every link."""
    m = machine()
    result = simulate(m, patterns.wicon_rnd(m, seed=1), LinkModel())
    assert (result["nodes"], result["ranks"], result["links"]) == (512, 2048, 3072)
    assert result["messages"] == 2048
    assert result["avg_hops"] == pytest.approx(6, abs=0.1)
    assert result["mean_link_load"] == pytest.approx(4, abs=0.1)
    assert result["max_link_load"] >= 4
    # over every ordered pair of nodes the average is exactly 3 × 2 hops
    nodes = np.arange(512)
    assert m.network.hops(np.repeat(nodes, 512), np.tile(nodes, 512)).mean() == 6.0
    assert m.network.diameter == 12


def test_eq1_the_papers_numbers():
    """32-byte flits, 1024-byte message, 8 hops: the first term is a fourth of the
    second."""
    model = LinkModel(bandwidth=1e9, flit_bytes=32)
    alone = model.latency(np.array([8]), np.array([1]), 1024.0)[0]
    assert alone == pytest.approx(8 * 32 / 1e9 + 1024 / 1e9)
    assert (8 * 32 / 1e9) / (1024 / 1e9) == 0.25
    shared = model.latency(np.array([8]), np.array([3]), 1024.0)[0]
    assert shared == pytest.approx(8 * 32 / 1e9 + 3 * 1024 / 1e9)


def test_random_matchings_are_perfect_and_seeded():
    for ranks in (2, 7, 64, 1001):
        a, b = patterns.random_matching(ranks, seed=5)
        used = np.concatenate([a, b])
        assert len(used) == 2 * (ranks // 2) and len(set(used.tolist())) == len(used)
        again = patterns.random_matching(ranks, seed=5)
        assert (again[0] == a).all() and (again[1] == b).all()
    assert not (patterns.random_matching(64, 5)[0] == patterns.random_matching(64, 6)[0]).all()


def test_wocon_sends_one_message_at_a_time():
    m = machine("torus", "4x4", ranks_per_node=2)
    result = simulate(m, patterns.wocon(m), LinkModel(), sizes=[64])
    assert result["messages"] == 15 and result["max_link_load"] == 1
    assert result["hops_histogram"] == {"1": 4, "2": 6, "3": 4, "4": 1}
    row = result["latency"][0]
    model = LinkModel()
    assert row["max_s"] == pytest.approx(model.latency(np.array([4]), np.array([1]), 64.0)[0])
    assert row["mean_s"] == row["uncontended_mean_s"]


def test_stress_link_loads_the_middle_link_step_by_step():
    m = machine("mesh", "1x1x16", ranks_per_node=1)
    phases = patterns.stress_link(m, axis=2)
    assert len(phases) == 8
    result = simulate(m, phases, LinkModel(), sizes=[4096])
    watched = [p["watched"] for p in result["phase_results"]]
    assert [w["busiest_link_load"] for w in watched] == list(range(1, 9))
    assert [w["hops"] for w in watched] == [1] * 8
    latency = [w["latency_s"][0] for w in watched]
    assert latency == sorted(latency) and latency[-1] > 7 * latency[0]


def test_stress_link_on_a_ring_stops_sharing_past_a_quarter():
    """On a torus the outer pairs go round the other way: only D/4 cross the middle."""
    m = machine("torus", "16", ranks_per_node=1)
    result = simulate(m, patterns.stress_link(m, axis=0), LinkModel(), sizes=[4096])
    loads = [p["watched"]["busiest_link_load"] for p in result["phase_results"]]
    assert loads == [1, 2, 3, 4, 4, 4, 4, 4]


def test_equidistant_pairs_are_that_many_hops_apart():
    m = machine("torus", "2x2x16", ranks_per_node=2)
    phases = patterns.equidistant(m, axis=2, distances=[1, 2, 5, 8])
    result = simulate(m, phases, LinkModel(), sizes=[1024])
    for distance, phase in zip([1, 2, 5, 8], result["phase_results"]):
        assert phase["avg_hops"] == distance
    first, last = result["phase_results"][0], result["phase_results"][-1]
    assert last["max_link_load"] > first["max_link_load"]


def test_nn_pairs():
    m = machine("torus", "4x4", ranks_per_node=1)
    assert simulate(m, patterns.wicon_nn(m), LinkModel())["avg_hops"] == 1
    four = machine("torus", "4x4", ranks_per_node=4)
    assert simulate(four, patterns.wicon_nn(four), LinkModel())["network_messages"] == 0
    result = simulate(four, patterns.wicon_nn_torus(four, axis=1), LinkModel())
    assert result["avg_hops"] == 1 and result["messages"] == 64


@pytest.mark.parametrize("ranks", [8, 12, 13])
def test_ra_hypercube_stages(ranks):
    m = machine("mesh", str(ranks), ranks_per_node=1)
    phases = patterns.ra_hypercube(m, lookahead=1024)
    assert len(phases) == int(np.ceil(np.log2(ranks)))
    words = sum(float(p.message_bytes.sum()) for p in phases) / 8 / ranks
    if ranks == 8:
        assert words == hypercube_words(8, 1024)
        assert all(len(p.src) == 8 for p in phases)
    for phase in phases:  # every message crosses the current halves
        assert (phase.src != phase.dst).all()


def test_ra_torus_and_alltoall():
    m = machine("torus", "4x4", ranks_per_node=1)
    (phase,) = patterns.ra_torus(m, lookahead=1024)
    assert patterns.ra_grid(16) == (4, 2, 2)
    assert len(phase.src) == 16 * (3 + 1 + 1)
    (a2a,) = patterns.ra_alltoall(m, lookahead=1024)
    assert len(a2a.src) == 16 * 15 and a2a.message_bytes[0] == 8 * 1024 / 16
    result = simulate(m, [a2a], LinkModel())
    assert result["latency"][0]["bytes"] is None and result["step_time_s"] > 0
    with pytest.raises(ValueError, match="places for 16 ranks"):
        patterns.ra_grid(16, (3, 5))


def test_alltoall_is_refused_past_the_message_limit():
    with pytest.raises(ValueError, match="at most"):
        patterns.alltoall(machine("torus", "16x16x16", ranks_per_node=2))


def test_dims_create_is_balanced():
    assert patterns.dims_create(12, 3) == (3, 2, 2)
    assert patterns.dims_create(64, 3) == (4, 4, 4)
    assert patterns.dims_create(7, 2) == (7, 1)
