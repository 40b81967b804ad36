"""The simulator on a two-level tree (netsim/tree.py) and the cluster's
network line that records carry for `simulate --compare` (cluster/network_text.py)."""

import numpy as np
import pytest

from hpcprobe.cli import main
from hpcprobe.cluster.network_text import NetworkText, parse_network_text
from hpcprobe.netsim import patterns
from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.simulate import LinkModel, simulate
from hpcprobe.netsim.report import compare_record, record_link_model
from hpcprobe.netsim.tree import Tree, parse_tree, tree_loads

MIB = 1 << 20


def tree_machine(leaves, hosts, ranks_per_node=1):
    return Machine.block(Tree.of(leaves, hosts), ranks_per_node)


def test_hops_and_links_of_a_tree():
    tree = Tree.of(2, 4)
    assert (tree.nodes, tree.links, tree.diameter, tree.spec) == (8, 20, 4, "tree 2x4")
    a = np.array([0, 0, 0, 5])
    b = np.array([0, 3, 4, 7])
    assert tree.hops(a, b).tolist() == [0, 2, 4, 2]
    assert tree.neighbours(5) == [4, 6, 7]
    one_leaf = Tree.of(1, 4)
    assert (one_leaf.links, one_leaf.diameter) == (8, 2)
    with pytest.raises(ValueError, match="routes through switches"):
        tree.route(0, 5)


def test_alltoall_on_a_tree_loads_every_uplink_with_its_leafs_remote_messages():
    # 2 leaves of 2 hosts: each host sends 3 messages up its link and receives 3; each
    # uplink carries the 2 x 2 messages between its leaf's hosts and the other leaf's.
    tree = Tree.of(2, 2)
    src = np.repeat(np.arange(4), 3)
    dst = np.array([d for s in range(4) for d in range(4) if d != s])
    loads = tree_loads(tree, src, dst)
    assert loads[0].tolist() == [[3, 3, 3, 3], [3, 3, 3, 3]]
    assert loads[1, :, :2].tolist() == [[4, 4], [4, 4]] and not loads[1, :, 2:].any()
    result = simulate(tree_machine(2, 2), patterns.alltoall(tree_machine(2, 2)), LinkModel(),
                      [1024])
    assert (result["max_link_load"], result["links_used"], result["avg_hops"]) == (
        4, 12, pytest.approx(10 / 3))


def test_pairs_across_the_leaves_share_the_uplink_by_their_number():
    # Tree 2x4, one rank per host: axis 0 pairs host i of leaf 0 with host i of leaf 1
    # (4 pairs, all up one uplink and down the other); axis 1 pairs hosts of one leaf.
    machine = tree_machine(2, 4)
    model = LinkModel(bandwidth=50e6, flit_bytes=0)
    across = simulate(machine, patterns.wicon_nn_torus(machine, 0), model, [MIB])
    within = simulate(machine, patterns.wicon_nn_torus(machine, 1), model, [MIB])
    assert across["max_link_load"] == 4 and within["max_link_load"] == 1
    assert within["latency"][0]["mean_s"] == pytest.approx(MIB / 50e6)
    assert across["latency"][0]["mean_s"] == pytest.approx(4 * MIB / 50e6)
    assert across["latency"][0]["uncontended_mean_s"] == pytest.approx(MIB / 50e6)


def test_a_slower_uplink_weighs_its_load_by_the_rate_ratio():
    machine = tree_machine(2, 4)
    model = LinkModel(bandwidth=50e6, flit_bytes=0, uplink_bandwidth=25e6)
    across = simulate(machine, patterns.wicon_nn_torus(machine, 0), model, [MIB])
    assert across["latency"][0]["mean_s"] == pytest.approx(8 * MIB / 50e6)
    assert across["latency"][0]["uncontended_mean_s"] == pytest.approx(2 * MIB / 50e6)
    assert across["uplink_bandwidth_bytes_per_s"] == 25e6
    # One message at a time (WOCON): within a leaf the host link, across the uplink.
    wocon = simulate(machine, patterns.wocon(machine), model, [MIB])
    assert wocon["max_link_load"] == 1
    assert wocon["latency"][0]["min_s"] == pytest.approx(MIB / 50e6)
    assert wocon["latency"][0]["max_s"] == pytest.approx(2 * MIB / 50e6)


@pytest.mark.parametrize("text", ["2", "2x", "x4", "0x4", "2x4x1", "2x-4", "２x4"])
def test_bad_tree_shapes_are_refused(text):
    with pytest.raises(ValueError, match="--tree takes LxH"):
        parse_tree(text)


def test_network_text_round_trips_and_refuses_anything_else():
    tree = NetworkText("tree", (2, 4), 5e7, 0.0, 2.5e7)
    assert str(tree) == "tree:2x4 link_bytes_per_s=50000000 uplink_bytes_per_s=25000000 " \
                        "link_delay_s=0"
    assert parse_network_text(str(tree)) == tree
    torus = NetworkText("torus", (4, 2), 5e7, 2e-5)
    assert parse_network_text(str(torus)) == torus
    for bad in ["tree:2x4 link_bytes_per_s=50000000 link_delay_s=0",  # a tree's uplink
                "torus:4x2 link_bytes_per_s=5e7 uplink_bytes_per_s=1 link_delay_s=0",
                "flat:2x2 link_bytes_per_s=1 link_delay_s=0",
                "ring:4 link_bytes_per_s=1 link_delay_s=0",
                "flat:4 link_bytes_per_s=1 link_delay_s=0 ",
                "flat:4 link_bytes_per_s=-1 link_delay_s=0",
                "flat:0 link_bytes_per_s=1 link_delay_s=0",
                "flat:4 link_bytes_per_s=inf link_delay_s=0", 7, None, "x" * 300]:
        assert parse_network_text(bad) is None, bad


def tree_record(network_text, rank_node=(0, 1, 2, 3), pairs=((0, 2), (1, 3))):
    """A contention wicon record as the bench writes it on a tree 2x2 cluster."""
    return {
        "benchmark": "contention", "variant": "wicon", "started_at": "t",
        "metadata": {"cluster_network": network_text},
        "parameters": {"topology_kind": "mesh", "topology_dims": "2x2",
                       "topology_wrap": "0,0"},
        "layout": {"ranks": len(rank_node)},
        "counters": {"rank_node": list(rank_node), "node_coords": [0, 0, 0, 1, 1, 0, 1, 1],
                     "pair_rank_a": [a for a, _ in pairs], "pair_rank_b": [b for _, b in pairs]},
        "series": [{"name": "message_time_mean", "x": [MIB], "y": [0.05]}],
    }


def test_compare_predicts_a_cluster_record_on_its_own_tree_and_link_rates():
    record = tree_record("tree:2x2 link_bytes_per_s=50000000 uplink_bytes_per_s=25000000 "
                         "link_delay_s=0")
    model = record_link_model(record)
    assert (model.bandwidth, model.uplink_bandwidth, model.hop_latency_s) == (5e7, 2.5e7, 0)
    compared = compare_record(record, model)
    assert compared["network"] == "tree 2x2"
    (row,) = compared["rows"]
    # Both pairs cross: each uplink carries 2 messages each way at half the host rate.
    assert row["max_link_load"] == 2 and row["avg_hops"] == 4
    assert row["predicted_s"] == pytest.approx(4 * 32 / 5e7 + 4 * MIB / 5e7)
    assert row["measured_s"] == 0.05


def test_options_given_override_the_clusters_rates():
    record = tree_record("tree:2x2 link_bytes_per_s=50000000 uplink_bytes_per_s=25000000 "
                         "link_delay_s=0")

    class Given:
        link_bandwidth, flit_bytes, hop_latency, uplink_bandwidth = 1e9, None, 1e-6, None

    model = record_link_model(record, Given())
    assert (model.bandwidth, model.uplink_bandwidth, model.hop_latency_s) == (1e9, 2.5e7, 1e-6)


def test_a_record_whose_cluster_line_is_not_ours_is_predicted_as_its_own_grid():
    record = tree_record("tree:2x2 link_bytes_per_s=50000000 link_delay_s=0; rm -rf /")
    assert record_link_model(record) == LinkModel()
    compared = compare_record(record, record_link_model(record))
    assert compared["network"] == "mesh 2x2"


def test_compare_refuses_ranks_outside_the_clusters_tree():
    record = tree_record("tree:2x2 link_bytes_per_s=50000000 uplink_bytes_per_s=50000000 "
                         "link_delay_s=0", rank_node=(0, 1, 2, 9))
    with pytest.raises(ValueError, match="outside the cluster's tree 2x2"):
        compare_record(record, record_link_model(record))


@pytest.mark.parametrize("argv, says", [
    (["simulate", "wocon", "--tree", "2x4", "--wrap", "0,0"], "a tree has no wraparound"),
    (["simulate", "wocon", "--tree", "2x4", "--torus", "4x2"], "are alternatives"),
    (["simulate", "wocon", "--torus", "4x2", "--uplink-bandwidth", "1e6"],
     "--uplink-bandwidth applies to --tree"),
    (["simulate", "--compare", "x.jsonl", "--tree", "2x4"], "--compare takes the pattern"),
    (["simulate", "wocon", "--tree", "2by4"], "--tree takes LxH"),
])
def test_tree_options_are_checked(capsys, argv, says):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
