"""The contention family with the real hpcprobe-bench on 1-4 ranks (oversubscribed on 2
cores): WOCON, WICON (nn, nn-torus, rnd), stress-link and equidistant record every measured
pair with its hop count and the topology they assumed; hop counts agree with the Python
network; coordinates from a CSV and from SLURM_TOPOLOGY_ADDR; a damaged message fails
validation; bad input is one line and exit status 2."""

import json
import os
import re
import stat
import time

import numpy as np
import pytest
from helpers import run_hpcprobe, stderr_lines
from integration import bench_path, run_bench
from test_integration_faults import _processes_mentioning as processes_mentioning

from hpcprobe.results import read_records
from hpcprobe.netsim.report import machine_from_record

TINY = ("--sizes", "8,1K", "--repeat", "2", "--messages", "4", "--quiet")


def run_records(tmp_path, variant, np_, *options, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    completed = run_bench("contention", variant, *TINY, "--out", str(out), *options, np=np_,
                          timeout=120, extra_env=extra_env)
    assert completed.returncode == rc, completed.stderr
    found = read_records(out)
    assert found.problems == []  # every record validates against the schema
    return found.records


def check_hops(record):
    """Each pair's recorded hops are the network's distance between the pair's nodes."""
    machine = machine_from_record(record)
    a = np.array(record["counters"]["pair_rank_a"])
    b = np.array(record["counters"]["pair_rank_b"])
    hops = machine.network.hops(machine.rank_position[a], machine.rank_position[b])
    assert record["counters"]["pair_hops"] == hops.tolist()


def series(record, name):
    return next(s for s in record["series"] if s["name"] == name)


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_wocon_times_every_node_with_its_hops(tmp_path, ranks):
    (record,) = run_records(tmp_path, "wocon", ranks, "--mesh", str(ranks),
                            "--ranks-per-node", "1")
    counters, params = record["counters"], record["parameters"]
    assert counters["pair_rank_a"] == [0] * (ranks - 1)
    assert counters["pair_rank_b"] == list(range(1, ranks))
    assert counters["pair_hops"] == list(range(1, ranks))
    assert (params["topology_kind"], params["topology_dims"], params["topology_wrap"]) == (
        "mesh", str(ranks), "0")
    assert (params["ranks_per_node"], params["ranks_per_node_source"],
            params["coordinate_source"]) == (1, "option", "row-major")
    assert record["validation"]["verdict"] == "passed"
    assert record["value"]["metric"] == "hop_spread"
    pairs = series(record, "pair_time_b1024")
    assert pairs["x"] == counters["pair_hops"] and all(y > 0 for y in pairs["y"])
    assert all(len(s) == 2 for s in pairs["samples"])
    assert series(record, "message_time_mean")["x"] == [8, 1024]


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("pairs", ["nn", "rnd"])
def test_wicon_pairs_every_rank_and_says_which_idles(tmp_path, ranks, pairs):
    (record,) = run_records(tmp_path, "wicon", ranks, "--pairs", pairs, "--torus", str(ranks),
                            "--ranks-per-node", "1")
    counters = record["counters"]
    used = counters["pair_rank_a"] + counters["pair_rank_b"]
    assert len(used) == 2 * (ranks // 2) and len(set(used)) == len(used)
    assert all(a < b for a, b in zip(counters["pair_rank_a"], counters["pair_rank_b"]))
    if ranks % 2:
        assert counters["idle_ranks"] == sorted(set(range(ranks)) - set(used))
        assert any("idle" in note for note in record["notes"])
    if pairs == "nn":
        assert counters["pair_rank_a"] == list(range(0, ranks - 1, 2))
        assert counters["pair_hops"] == [1] * (ranks // 2)
    check_hops(record)
    assert record["validation"]["verdict"] == "passed"
    assert record["parameters"]["pairs"] == pairs


def test_wicon_rnd_is_seeded(tmp_path):
    first, again = run_records(tmp_path, "wicon", 4, "--seed", "7"), run_records(
        tmp_path, "wicon", 4, "--seed", "7")[1:]
    for name in ("pair_rank_a", "pair_rank_b"):
        assert first[0]["counters"][name] == again[0]["counters"][name]
    assert first[0]["parameters"]["seed"] == 7


def test_wicon_nn_torus_pairs_grid_neighbours(tmp_path):
    (record,) = run_records(tmp_path, "wicon", 4, "--pairs", "nn-torus", "--torus", "2x2",
                            "--ranks-per-node", "1", "--axis", "0")
    assert record["counters"]["pair_hops"] == [1, 1]
    assert record["parameters"]["axis"] == 0
    check_hops(record)


def test_without_a_topology_the_network_is_flat(tmp_path):
    (record,) = run_records(tmp_path, "wicon", 2)
    assert record["parameters"]["topology_kind"] == "flat"
    assert record["counters"]["pair_hops"] == [0]   # both ranks on this one node
    assert any("no topology given" in note for note in record["notes"])


@pytest.mark.parametrize("ranks, hops", [(2, [1]), (3, [1]), (4, [1, 3])])
def test_stress_link_adds_pairs_around_the_middle(tmp_path, ranks, hops):
    (record,) = run_records(tmp_path, "stress-link", ranks, "--mesh", str(ranks),
                            "--ranks-per-node", "1")
    counters = record["counters"]
    assert counters["pair_hops"] == hops
    assert counters["pair_phase"] == list(range(1, len(hops) + 1))
    names = [s["name"] for s in record["series"]]
    assert names == [f"middle_pair_time_pairs_{k}" for k in range(1, len(hops) + 1)]
    assert record["value"]["metric"] == "middle_pair_slowdown"
    check_hops(record)


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_equidistant_pairs_are_each_distance_apart(tmp_path, ranks):
    (record,) = run_records(tmp_path, "equidistant", ranks, "--torus", f"1x{ranks}",
                            "--ranks-per-node", "1")
    counters = record["counters"]
    assert counters["pair_hops"] == counters["pair_phase"]
    distances = sorted(set(counters["pair_phase"]))
    assert distances == list(range(1, max(1, ranks // 2) + 1))
    assert record["parameters"]["axis"] == 1
    for d in distances:
        assert series(record, f"message_time_distance_{d}")["x"] == [8, 1024]
    check_hops(record)


def test_equidistant_on_part_of_a_ring_runs_the_distances_it_has(tmp_path):
    """4 nodes on the first positions of a 9-node ring: no pair is 4 apart."""
    (record,) = run_records(tmp_path, "equidistant", 4, "--torus", "9", "--ranks-per-node", "1")
    assert record["parameters"]["distances"] == "1,2,3"
    line = one_line(run_bench("contention", "equidistant", "--torus", "9", "--ranks-per-node",
                              "1", "--distance", "4", "--quiet", np=4))
    assert "--distance 4: no two nodes of this run are 4 apart along axis 0" in line


def test_two_ranks_per_node_pair_rank_by_rank(tmp_path):
    (record,) = run_records(tmp_path, "equidistant", 4, "--mesh", "2", "--ranks-per-node", "2")
    assert record["counters"]["pair_rank_a"] == [0, 1]
    assert record["counters"]["pair_rank_b"] == [2, 3]
    assert record["counters"]["rank_node"] == [0, 0, 1, 1]


def test_coordinates_from_a_csv(tmp_path):
    csv = tmp_path / "coords.csv"
    csv.write_text("rank,x,y\n0,1,1\n1,0,0\n2,1,0\n3,0,1\n")
    (record,) = run_records(tmp_path, "wocon", 4, "--coords", str(csv), "--ranks-per-node", "1")
    params = record["parameters"]
    assert (params["coordinate_source"], params["topology_dims"]) == ("csv", "2x2")
    assert params["topology_dims_inferred"] is True
    assert record["counters"]["node_coords"] == [1, 1, 0, 0, 1, 0, 0, 1]
    assert record["counters"]["pair_hops"] == [2, 1, 1]
    check_hops(record)


def test_coordinates_from_slurm_topology_addr(tmp_path):
    """Ranks 0 and 1 under one leaf switch, 2 and 3 under another."""
    wrapper = tmp_path / "bench.sh"
    wrapper.write_text(
        '#!/bin/sh\nr=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}}\n'
        'leaf=$((r / 2))\nexport SLURM_TOPOLOGY_ADDR="top.leaf$leaf.node$r"\n'
        f'exec "{bench_path()}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "r.jsonl"
    completed = run_bench("contention", "wocon", *TINY, "--coords", "slurm", "--ranks-per-node",
                          "1", "--out", str(out), np=4, program=str(wrapper))
    assert completed.returncode == 0, completed.stderr
    (record,) = read_records(out).records
    assert record["parameters"]["topology_kind"] == "tree"
    assert record["parameters"]["topology_levels"] == 2
    assert record["counters"]["pair_hops"] == [2, 4, 4]


@pytest.mark.parametrize("variant, options", [
    ("wicon", ()),
    ("wocon", ("--ranks-per-node", "1")),
    ("stress-link", ("--mesh", "4", "--ranks-per-node", "1")),
])
def test_a_damaged_message_fails_validation(tmp_path, variant, options):
    (record,) = run_records(tmp_path, variant, 4, *options, rc=1,
                            extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    assert record["status"] == "failed"
    assert record["validation"]["verdict"] == "failed" and record["validation"]["error"] >= 1


def one_line(completed):
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert completed.returncode == 2, completed.stderr
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("ranks, args, fragment", [
    (1, ("wicon",), "no pair (allowed: 2 or more ranks"),
    (1, ("wocon",), "wocon measures between nodes, and this run has 1 node"),
    (2, ("wocon",), "emulated ones with --ranks-per-node N"),
    (4, ("equidistant", "--torus", "4", "--ranks-per-node", "1", "--distance", "3"),
     "--distance 3 is beyond axis 0: no two nodes are more than 2 hops apart"),
    (4, ("equidistant", "--mesh", "4", "--ranks-per-node", "1", "--distance", "0"),
     "--distance '0' is not allowed"),
    (2, ("stress-link",), "stress-link works along one axis of a torus or mesh"),
    (4, ("wicon", "--torus", "3", "--ranks-per-node", "1"), "4 nodes do not fit in dims 3"),
    (2, ("wicon", "--wrap", "1"), "--wrap needs the dims"),
    (2, ("wicon", "--torus", "2", "--mesh", "2"), "--torus and --mesh are alternatives"),
    (2, ("wicon", "--coords", "slurm"), "SLURM_TOPOLOGY_ADDR is not set"),
    (2, ("wicon", "--coords", "/nonexistent.csv"), "cannot be read"),
    (2, ("wicon", "--pairs", "nn", "--seed", "3"), "--seed applies to --pairs rnd only"),
    (2, ("wocon", "--max-pairs", "2"), "--max-pairs does not apply to contention wocon"),
    (2, ("wicon", "--sizes", "1K,8"), "--sizes must increase: 8 after 1024"),
    (2, ("wicon", "--sizes", "2G"), "--sizes: '2G' is not a size or a range"),
])
def test_bad_input_is_one_line(ranks, args, fragment):
    line = one_line(run_bench("contention", *args, "--quiet", np=ranks))
    assert fragment in line


@pytest.mark.parametrize("text, fragment", [
    ("0,0\n1,0\n2,1\n3,1\n", "nodes 0 and 1 collide"),
    ("0,0\n1,1\n3,1\n", "rank 2 is missing"),
    ("0,0,0\n1,1,1\n2,0,1\n3,1,0\n", "line 1"),
    ("0,0\n1,1\n2,5\n3,3\n", "outside the dims"),
])
def test_bad_coordinates_are_one_line(tmp_path, text, fragment):
    csv = tmp_path / "c.csv"
    csv.write_text(text)
    line = one_line(run_bench("contention", "wicon", "--quiet", "--coords", str(csv),
                              "--ranks-per-node", "1", "--mesh", "4", np=4))
    assert fragment in line


def test_ranks_of_one_node_must_share_coordinates(tmp_path):
    csv = tmp_path / "c.csv"
    csv.write_text("0,0\n1,1\n")
    line = one_line(run_bench("contention", "wicon", "--quiet", "--coords", str(csv),
                              "--ranks-per-node", "2", np=2))
    assert "share node 0" in line


def test_hpcprobe_contention_and_topology_show(tmp_path):
    done = run_hpcprobe("contention", "wicon", "--np", "2", "--sizes", "8", "--repeat", "2",
                        "--messages", "3", "--torus", "2", "--ranks-per-node", "1", "--out",
                        str(tmp_path), "--quiet", timeout=180)
    assert done.returncode == 0, done.stderr
    assert "µs per message over the pairs" in done.stdout
    (record,) = read_records(tmp_path / "results.jsonl").records
    assert record["counters"]["pair_hops"] == [1]
    shown = run_hpcprobe("topology", "show", "--np", "3", "--mesh", "3", "--ranks-per-node", "1",
                         timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "mesh 3, 3 node(s), 3 rank(s)" in shown.stdout
    refused = run_hpcprobe("topology", "show", "--np", "2", "--torus", "1", "--ranks-per-node",
                           "1", timeout=120)
    assert refused.returncode == 2
    assert stderr_lines(refused) == ["hpcprobe-bench: 2 nodes do not fit in dims 1 (1 "
                                     "positions); allowed: dims with at least as many positions "
                                     "as nodes"]


def test_show_prints_the_contention_tables(tmp_path):
    run_records(tmp_path, "stress-link", 4, "--mesh", "4", "--ranks-per-node", "1")
    run_records(tmp_path, "wocon", 4, "--mesh", "4", "--ranks-per-node", "1")
    run_records(tmp_path, "equidistant", 4, "--mesh", "4", "--ranks-per-node", "1")
    shown = run_hpcprobe("show", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert "middle pair" in shown.stdout and "2 / 1" in shown.stdout
    assert "one-way µs from rank 0 to each node" in shown.stdout
    assert re.search(r"1 hop\(s\) \W+ 2 hop\(s\) \W+ 3 hop\(s\) ", shown.stdout)  # wocon
    assert "pairs at each hop count: 1 hops: 1, 2 hops: 1, 3 hops: 1" in shown.stdout
    assert re.search(r"1 hop\(s\) µs \W+ 2 hop\(s\) µs \W+ 3 hop\(s\) µs", shown.stdout)


def test_simulate_compare_puts_each_measurement_beside_its_prediction(tmp_path):
    run_records(tmp_path, "wocon", 4, "--torus", "4", "--ranks-per-node", "1")
    run_records(tmp_path, "stress-link", 4, "--mesh", "4", "--ranks-per-node", "1")
    run_records(tmp_path, "equidistant", 4, "--mesh", "4", "--ranks-per-node", "1")
    run_records(tmp_path, "wicon", 2)  # flat: nothing to predict, said on stderr
    done = run_hpcprobe("simulate", "--compare", str(tmp_path), "--json", "--link-bandwidth",
                        "1e9")
    assert done.returncode == 0, done.stderr
    assert "no prediction for contention wicon" in done.stderr
    compared = json.loads(done.stdout)["records"]
    assert [c["variant"] for c in compared] == ["wocon", "stress-link", "equidistant"]
    wocon, stress, equidistant = (c["rows"] for c in compared)
    assert [row["bytes"] for row in wocon] == [8, 1024]
    assert wocon[0]["predicted_s"] == pytest.approx(4 / 3 * 32 / 1e9 + 8 / 1e9)  # 1, 2, 1 hops
    assert [row["max_link_load"] for row in stress] == [1, 1, 2, 2]
    assert [row["phase"] for row in equidistant][::2] == ["distance 1", "distance 2",
                                                          "distance 3"]
    assert all(row["measured_s"] > 0 for rows in (wocon, stress, equidistant) for row in rows)


def test_a_dying_rank_is_reported(tmp_path):
    """The launcher ends the run when a rank dies; should it miss the death (MPICH's hydra
    did once here, under heavy load, leaving rank 0 in a collective), the time budget
    does, and no process is left behind either way."""
    done = run_hpcprobe("contention", "wicon", "--np", "2", "--sizes", "8", "--out",
                        str(tmp_path), "--quiet", "--time-budget", "20",
                        env=dict(os.environ, HPCPROBE_INJECT_FAULT="exit:1"), timeout=90)
    assert done.returncode == 3
    assert re.search(r"benchmark 'contention wicon' (failed|exceeded its time budget)",
                     stderr_lines(done)[-1])
    assert "injected fault: rank 1 exits" in done.stderr
    time.sleep(1)  # the launcher's cleanup of its ranks
    assert processes_mentioning(str(tmp_path)) == []


def test_a_hanging_rank_is_stopped_at_the_time_budget(tmp_path):
    done = run_hpcprobe("contention", "wocon", "--np", "2", "--ranks-per-node", "1", "--sizes",
                        "8", "--time-budget", "8", "--out", str(tmp_path),
                        env=dict(os.environ, HPCPROBE_INJECT_FAULT="hang:1"), timeout=60)
    assert done.returncode == 3
    assert "exceeded its time budget of 8 s" in stderr_lines(done)[-1]
