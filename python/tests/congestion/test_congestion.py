"""The congestion family without launching: the CIF from hand-made samples (sub-
microsecond latencies kept unrounded, bandwidth the other way round, intervals that hold
the point), roles per node as the bench assigns them, the bench's ring permutation, the
model's max-min rates and predictions, the command line's one-line refusals, and the
tables and report section of a record."""

import math

import numpy as np
import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.families.congestion import cif as cif_module
from hpcprobe.families.congestion.model import (canary_ring, congestor_flows, max_min_rates,
                                                predict, rank_roles, shuffle, split_units)
from hpcprobe.families.congestion.tables import congestion_tables
from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.simulate import LinkModel
from hpcprobe.netsim.tree import Tree


def record_of(samples, congestors="incast", canaries="latency,bandwidth"):
    metrics = [{"name": name, "unit": "s", "samples": list(values)}
               for name, values in samples.items()]
    return {"benchmark": "congestion", "parameters": {"canaries": canaries,
                                                      "congestors": congestors},
            "metrics": metrics, "counters": {"congestor_bytes_incast": [0, 4096, 8192]},
            "validation": {"verdict": "passed", "error": 0, "tolerance": 0}}


def test_cif_of_sub_microsecond_latencies_is_not_quantised():
    # GPCNeT rounds to 0.1 us first: 0.44 and 0.46 would both read 0.4 or 0.5
    alone = [0.40e-6] * 50 + [0.44e-6] * 50
    loaded = [0.90e-6] * 50 + [0.94e-6] * 50
    record = record_of({"latency_isolated": alone, "latency_incast": loaded,
                        "bandwidth_isolated": [100.0] * 10, "bandwidth_incast": [40.0] * 10})
    rows = {row.canary: row for row in cif_module.cif_rows(record)}
    assert rows["latency"].cif_mean == pytest.approx(0.92 / 0.42, rel=1e-12)
    assert rows["latency"].isolated.median == pytest.approx(0.42e-6)
    assert rows["latency"].cif_p99 == pytest.approx(0.94 / 0.44, rel=1e-9)
    low, high = rows["latency"].cif_mean_ci
    assert low <= rows["latency"].cif_mean <= high and high - low < 0.1
    # bandwidth: isolated / congested, so slower under load is above 1 as well
    assert rows["bandwidth"].cif_mean == pytest.approx(2.5)
    assert rows["bandwidth"].unit == "B/s"


def test_cif_is_none_without_samples_and_ignores_garbage():
    record = record_of({"latency_isolated": [1e-6, None, "x", -1, float("nan")],
                        "latency_incast": []}, canaries="latency")
    (row,) = cif_module.cif_rows(record)
    assert row.isolated.count == 1 and row.congested.count == 0
    assert row.cif_mean is None and row.cif_mean_ci is None
    assert cif_module.cif(2.0, 4.0, rate=False) == 2.0
    assert cif_module.cif(2.0, 4.0, rate=True) == 0.5
    assert cif_module.cif(0.0, 4.0, rate=False) is None


def test_names_from_an_untrusted_record_are_only_known_patterns():
    record = record_of({}, congestors="incast,<script>,alltoall", canaries="latency,evil")
    assert cif_module.conditions_of(record) == ["incast", "alltoall"]
    assert cif_module.canaries_of(record) == ["latency"]


def test_roles_are_per_node_on_two_and_four_hosts():
    # 2 hosts x 2 ranks: one host of canaries, one of congestors
    two = Machine.block(Tree.of(1, 2), 2)
    roles = rank_roles(two, 0.8)
    assert roles.tolist() == [1, 1, 0, 0]
    # 4 hosts x 2 ranks: 3 congestor hosts, the canary host in the middle of its quarter
    four = Machine.block(Tree.of(2, 2), 2)
    roles = rank_roles(four, 0.8)
    assert roles.reshape(4, 2).min(axis=1).tolist() == roles.reshape(4, 2).max(axis=1).tolist()
    assert int((roles == 0).sum()) == 2
    # the tree of the issue: 8 hosts, 1 rank each: canaries on hosts 2 and 6 (one per leaf)
    eight = Machine.block(Tree.of(2, 4), 1)
    assert np.flatnonzero(rank_roles(eight, 0.8) == 0).tolist() == [2, 6]


def test_one_node_splits_per_rank_and_moves_to_two_of_each():
    assert split_units([1, 1, 1, 1], 0.8) == [1, 0, 1, 0]
    with pytest.raises(ValueError):
        split_units([1, 1, 1], 0.8)
    with pytest.raises(ValueError):
        split_units([1] * 8, 0.1)


def test_the_ring_is_the_benchs_permutation():
    # core/tests prints the same for hpcp_shuffle(7, 1) and (7, 2)
    assert shuffle(7, 1) == [5, 6, 4, 3, 0, 1, 2]
    assert shuffle(7, 2) == [3, 5, 6, 0, 1, 2, 4]
    src, dst = canary_ring(np.array([1, 0, 1, 0, 0]), 1)
    assert sorted(src.tolist()) == [1, 3, 4] and np.roll(src, -1).tolist() == dst.tolist()


def test_congestor_flows():
    roles = np.array([0, 1, 1, 1])
    assert [x.tolist() for x in congestor_flows(roles, "incast")] == [[2, 3], [1, 1]]
    assert [x.tolist() for x in congestor_flows(roles, "get-bcast")] == [[1, 1], [2, 3]]
    src, dst = congestor_flows(roles, "alltoall")
    assert len(src) == 6 and not (src == dst).any()


def test_max_min_rates_share_a_link_and_leave_what_a_throttled_flow_cannot_use():
    host = ("host", 0, 0)
    # two flows on one link: half each
    assert max_min_rates([[host], [host]], {"host": 10.0}).tolist() == [5.0, 5.0]
    # flow 0 is held to 2 by a link shared with 4 others; flow 1 gets the rest of link a
    a, b = ("host", 1, 0), ("host", 2, 1)
    paths = [[a, b], [a]] + [[b]] * 4
    rates = max_min_rates(paths, {"host": 10.0})
    assert rates[0] == pytest.approx(2.0) and rates[1] == pytest.approx(8.0)


def test_prediction_on_the_issues_tree():
    machine = Machine.block(Tree.of(2, 4), 1)
    model = LinkModel(50e6, 0.0, 0.0, 50e6)
    found = {p.congestor: p for p in predict(machine, rank_roles(machine, 0.8),
                                              ["incast", "alltoall"], 1, model, 131072)}
    # incast: 5 senders share the root's link (10 MB/s each); 3 cross the uplink the
    # canary's message into leaf 0 takes, which leaves it 20 of 50 MB/s: CIF 2.5
    assert found["incast"].cif == pytest.approx(2.5, rel=1e-6)
    assert found["alltoall"].cif > found["incast"].cif


def test_bad_input_is_one_line(tmp_path):
    for args, words in ((["--canary", "latncy"], "did you mean 'latency'"),
                        (["--congestor", "none,incast"], "goes alone"),
                        (["--congestor", "incast,incast"], "twice"),
                        (["--congestor-fraction", "1"], "a number > 0 and < 1"),
                        (["--congestor-bytes", "4"], "from 8 to 64M"),
                        (["--samples", "0"], "--samples")):
        done = run_hpcprobe("congestion", *args, "--out", str(tmp_path))
        assert done.returncode == 2, done.stderr
        (line,) = stderr_lines(done)
        assert words in line


def test_simulate_congestion_refuses_what_it_does_not_take():
    done = run_hpcprobe("simulate", "congestion", "--tree", "2x4", "--sizes", "8")
    assert done.returncode == 2 and "does not apply" in stderr_lines(done)[0]
    done = run_hpcprobe("simulate", "wocon", "--torus", "4", "--congestor", "incast")
    assert done.returncode == 2 and "only" in stderr_lines(done)[0]
    done = run_hpcprobe("simulate", "congestion")
    assert done.returncode == 2 and "needs the network" in stderr_lines(done)[0]
    done = run_hpcprobe("simulate", "congestion", "--tree", "2x4", "--link-bandwidth", "5e7",
                        "--congestor", "incast", "--json")
    assert done.returncode == 0, done.stderr
    assert '"cif": 2.4' in done.stdout


def test_tables_show_every_canary_and_congestor_as_plain_text():
    record = record_of({"latency_isolated": [1e-6] * 5, "latency_incast": [3e-6] * 5,
                        "bandwidth_isolated": [100.0] * 5, "bandwidth_incast": [50.0] * 5})
    record["parameters"]["role_unit"] = "[red]x"
    tables = congestion_tables([record, {"benchmark": "ra"}])
    assert len(tables) == 2
    from rich.console import Console
    console = Console(width=200, record=True)
    for table in tables:
        console.print(table)
    text = console.export_text()
    assert "3.000" in text and "2.000" in text and "0.008192" in text
    assert math.isfinite(cif_module.cif_rows(record)[0].cif_mean)
