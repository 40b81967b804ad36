"""The limits layer (hpcprobe.limits, docs/limits.md): each bound against a hand
computation, the ceilings of made-up `peak` records, unknown ceilings, the findings, and
the limits table that show and run print."""

import json

import pytest

from hpcprobe.limits import bounds
from hpcprobe.limits.ceilings import ceilings_of, machine_key
from hpcprobe.limits.findings import finding_lines
from hpcprobe.limits.headline import fraction_of
from hpcprobe.limits.limit import KNOWN, NONE, UNKNOWN
from hpcprobe.limits.records import limits_of
from hpcprobe.limits.section import limits_data

from helpers import run_hpcprobe, write_jsonl
from limits_data import (collective, flops_record, fft, pairs, peak_bandwidth,
                         peak_clock, peak_flops, pingpong, ra, stream)

MIB = float(1 << 20)


def only(records, benchmark, variant):
    return next(item for item in limits_of(records)
                if item.identity["benchmark"] == benchmark
                and item.identity["variant"] == variant)


def by_name(found, name):
    return next(limit for limit in found.limits if limit.name == name)


def test_cores_in_use_counts_shared_cores_once_per_node():
    assert bounds.cores_in_use([16], 1, 2) == 2          # 16 ranks on 2 cores
    assert bounds.cores_in_use([2, 2], 1, 4) == 4        # 2 nodes, 2 ranks each
    assert bounds.cores_in_use([3], 2, 4) == 4           # 3 ranks x 2 threads on 4 cores
    assert bounds.flop_limit(10e9, [16], 1, 2) == 20e9


def test_fft_and_randomaccess_bounds_by_hand():
    # 1024 points: 5 * 1024 * 10 = 51200 flop over 32 * 1024 B: 1.5625 flop/B
    assert bounds.fft_flops(1024) == 51200
    assert bounds.fft_intensity(1024) == pytest.approx(1.5625)
    assert bounds.fft_bound(1024, 10e9, 1e9) == pytest.approx(1.5625e9)
    assert bounds.fft_bound(1024, 1e9, 1e9) == pytest.approx(1e9)   # flop bound
    assert bounds.ra_bound(12.8e9) == pytest.approx(1e8)              # 128 B/update
    assert bounds.dgemm_intensity(1600) == pytest.approx(100)         # n / 16
    assert bounds.hpl_intensity(2400) == pytest.approx(100)           # n / 24


def test_latency_bound_is_log2_p_rounds():
    assert bounds.latency_bound(2, 1e-6) == pytest.approx(1e-6)
    assert bounds.latency_bound(16, 1e-6) == pytest.approx(4e-6)
    assert bounds.latency_bound(5, 1e-6) == pytest.approx(3e-6)
    assert bounds.latency_bound(1, 1e-6) == 0


def test_allreduce_bound_of_the_issue_by_hand():
    # 16 ranks, 1 MiB: each rank moves 2 * 15/16 MiB = 1,966,080 B; at 14.4 GB/s 136.5 us;
    # the node's 16 ranks copy 16 x that, 2 B of traffic each, at 158 GB/s: 398.2 us.
    found = bounds.collective_bound("allreduce", MIB, 16, 16, 1, 1e-6, 14.4e9, 158e9)
    assert found.link == pytest.approx(1966080 / 14.4e9)
    assert found.memory == pytest.approx(2 * 16 * 1966080 / 158e9)
    assert found.time == found.memory and found.which == "node memory bandwidth"
    assert 2.68e-3 / found.link == pytest.approx(19.6, abs=0.1)  # the issue's "about 20x"
    assert 2.68e-3 / found.time == pytest.approx(6.7, abs=0.1)   # and "3-7x"


@pytest.mark.parametrize("function, link, node", [
    ("reduce_scatter", 0.75, 4 * 0.75),  # the whole vector n: (P-1)/P n each
    ("allgather", 3.0, 4 * 3.0),         # one rank's part n: (P-1) n each
    ("alltoall", 3.0, 4 * 3.0),          # n per pair
    ("gather", 3.0, 3.0),                # the root receives (P-1) n
    ("scatter", 3.0, 3.0),               # the root sends (P-1) n, the others get n each
    ("bcast", 1.0, 3.0),                 # the root sends n, 3 others receive it
    ("reduce", 1.0, 1.0),                # the root receives n
    ("barrier", 0.0, 0.0),
])
def test_each_collective_moves_the_bytes_of_its_definition(function, link, node):
    # P = 4 ranks on one node, n = 1 MiB, PingPong 1 GB/s, copy 2 GB/s, latency 0
    found = bounds.collective_bound(function, MIB, 4, 4, 1, 0.0, 1e9, 2e9)
    assert found.link == pytest.approx(link * MIB / 1e9)
    assert found.memory == pytest.approx(2 * node * MIB / 2e9)
    assert bounds.node_bytes(function, MIB, 4, 4, 1) == pytest.approx(node * MIB)


def machine():
    """The peak records of a made-up machine: 4 cores of 10 GF/s (9 measured)."""
    return [peak_flops("single", 9e9, 10e9), peak_flops("star", 34e9, 40e9, ranks=4),
            peak_bandwidth("single", {"triad_bandwidth_memory": 20e9,
                                      "copy_bandwidth_memory": 18e9,
                                      "copy_bandwidth_l2": 200e9},
                           working_sets={"l1": 16e3, "l2": 512e3}),
            peak_bandwidth("star", {"triad_bandwidth_memory": 40e9,
                                    "copy_bandwidth_memory": 36e9,
                                    "load_bandwidth_l1": 800e9,
                                    "load_bandwidth_memory": 45e9,
                                    "rank_copy_bandwidth_memory": 9e9,
                                    "copy_bandwidth_custom": 1e9}, ranks=4),
            peak_clock(51.2e9, {"eth0": 1.25e9, "mlx5_0_port1": 12.5e9})]


def test_ceilings_of_made_up_peak_records():
    ceilings = ceilings_of(machine())[("Test CPU", ("n1",))]
    found = ceilings.found
    assert found["flop_rate.single"].value == 9e9       # the best sample
    assert found["peak_theoretical.single"].value == 10e9
    assert found["flop_rate.star"].value == 34e9 and found["flop_rate.star"].ranks == 4
    assert ceilings.bandwidth("star", "copy", "memory").value == 36e9
    assert "rank_copy_bandwidth_memory.star" not in found  # a per-rank counter
    assert not ceilings.bandwidth("star", "copy", "custom").known
    assert found["memory_bandwidth_theoretical"].value == 51.2e9
    assert ceilings.links == {"eth0": 1.25e9, "mlx5_0_port1": 12.5e9}
    assert ceilings.level_for("single", 900e3) == "l2"    # 2 x 512 kB reach
    assert ceilings.level_for("single", 2e6) == "memory"


def test_a_missing_ceiling_is_unknown_with_its_reason():
    hpl = flops_record("hpl", "mpi", 8e9, ranks=2)
    found = only([hpl], "hpl", "mpi")
    assert {limit.status for limit in found.limits} == {UNKNOWN}
    assert "no peak flops record" in found.limits[0].source
    assert found.limits[0].fraction is None
    no_dimms = only([stream("single", 10e9, 10e9), peak_clock(None, {})], "stream", "single")
    theory = by_name(no_dimms, "theoretical memory bandwidth (DIMMs)")
    assert theory.status == UNKNOWN and "no SMBIOS memory device" in theory.source


def test_hpl_and_dgemm_against_the_peak_of_the_cores_they_use():
    records = machine() + [flops_record("hpl", "mpi", 8e9, ranks=2),
                           flops_record("dgemm", "star", 9e9, ranks=2)]
    hpl = only(records, "hpl", "mpi")
    total = by_name(hpl, "theoretical peak, 2 cores (in total)")
    assert (total.limit, total.fraction, total.finding) == (20e9, 0.4, True)  # < 0.5
    assert "0.4 of 20 GFLOP/s" in total.reason
    assert by_name(hpl, "theoretical peak per rank").limit == 10e9
    assert by_name(hpl, "empirical peak, 2 cores (in total)").limit == 18e9
    dgemm = only(records, "dgemm", "star")  # 9 GF/s per rank: 18 of 20 in total
    assert by_name(dgemm, "theoretical peak, 2 cores (in total)").fraction == 0.9
    assert not any(limit.finding for limit in dgemm.limits)


def test_peak_single_is_one_core_whatever_the_ranks_launched():
    # peak flops single on 2 ranks: rank 0 alone runs, its peak is one core's
    records = [peak_flops("single", 9e9, 10e9, ranks=2), flops_record("dgemm", "single", 6e9)]
    found = only(records, "dgemm", "single")
    assert by_name(found, "theoretical peak, 1 core (in total)").limit == 10e9
    assert by_name(found, "empirical peak, 1 core (in total)").limit == 9e9


def test_oversubscribed_ranks_share_the_cores_of_their_node():
    hpl = flops_record("hpl", "mpi", 30e9, ranks=16)  # 16 ranks on the 4 cores
    found = only(machine() + [hpl], "hpl", "mpi")
    assert by_name(found, "theoretical peak, 4 cores (in total)").limit == 40e9
    assert by_name(found, "theoretical peak per rank").limit == 40e9 / 16


def test_stream_against_the_empirical_and_theoretical_memory_bandwidth():
    records = machine() + [stream("star", 9e9, 10e9, copies=4), stream("single", 15e9, 17e9)]
    star = only(records, "stream", "star")
    triad = by_name(star, "empirical memory bandwidth (triad)")
    assert (triad.measured, triad.limit, triad.fraction) == (36e9, 40e9, 0.9)
    assert by_name(star, "theoretical memory bandwidth (DIMMs)").limit == 51.2e9
    single = only(records, "stream", "single")
    assert by_name(single, "empirical memory bandwidth (triad)").fraction == 0.75
    slow = only(machine() + [stream("single", 9e9, 17e9)], "stream", "single")
    assert by_name(slow, "empirical memory bandwidth (triad)").finding  # 0.45 < 0.5


def test_fft_and_randomaccess_name_the_bandwidth_they_use():
    records = machine() + [fft("single", 1e9, 1 << 20), ra("single", 50e6, 1 << 30),
                           ra("star", 1e8, 256e3, ranks=4)]
    limit = only(records, "fft", "single").limits[0]
    # 32 MiB out of the caches: 5 * 20 / 32 = 3.125 flop/B x 18 GB/s = 56.25 GF/s > 9 GF/s
    assert limit.limit == pytest.approx(9e9) and "flop peak" in limit.source
    limit = only(records, "ra", "single").limits[0]
    assert limit.limit == pytest.approx(18e9 / 128) and "copy_bandwidth_memory" in limit.source
    assert only(records, "ra", "star").limits[0].status == UNKNOWN  # no star working sets
    in_cache = only(records + [ra("single", 50e6, 256e3)], "ra", "single")
    assert in_cache.limits[0].status == KNOWN  # the last ra single is the 1 GiB one
    small = only(machine() + [ra("single", 50e6, 256e3)], "ra", "single").limits[0]
    assert small.status == NONE and "fits in l2" in small.source


def test_pingpong_and_pairs_have_a_link_limit_only_across_nodes():
    two = {"rank_hosts": [0, 1], "hosts": ("n1", "n2"), "nodes": 2}
    records = [peak_clock(None, {"eth0": 1.25e9, "ib0": 12.5e9}, hosts=("n1", "n2")),
               pingpong(5e9, 2e-6, **two), pairs(None, 4e9, **two)]
    link = only(records, "comm", "pingpong").limits[0]
    assert link.limit == 12.5e9 and "ib0" in link.source and link.finding  # 0.399
    assert only(records, "pairs", "bandwidth").limits[0].fraction == pytest.approx(0.32)
    same = only([pingpong(5e9, 2e-6)], "comm", "pingpong").limits[0]
    assert same.status == NONE and "share a node" in same.source


def collective_at(factor: float, function: str = "allreduce"):
    """A 2-rank collective `factor` times its bound (PingPong 1 GB/s, 1 us)."""
    sizes = [0.0, 1024.0, MIB]
    bound = [1e-6, max(1e-6, 1024 / 1e9), MIB / 1e9]
    return [pingpong(1e9, 1e-6), collective(function, sizes, [factor * b for b in bound])]


def test_a_collective_at_3_5x_its_bound_is_a_finding_and_at_2x_not():
    flagged = only(collective_at(3.5), "comm", "allreduce")
    assert flagged.limits[0].finding and "3.5x its bound" in flagged.limits[0].reason
    assert [point.fraction for point in flagged.curve] == pytest.approx([1 / 3.5] * 3,
                                                                        rel=1e-3)
    assert not only(collective_at(2.0), "comm", "allreduce").limits[0].finding
    lines = finding_lines(limits_of(collective_at(3.5)))
    assert len(lines) == 1 and lines[0].startswith("comm allreduce imb, time at 1 MiB")


def test_a_collective_within_a_node_is_bound_by_its_memory_when_tighter():
    # 2 ranks: each copies 1 MiB received; 2 x 2 MiB of traffic at 1 GB/s: 4.19 ms,
    # tighter than 1 MiB at PingPong's 1 GB/s (1.05 ms)
    records = collective_at(3.0) + [peak_bandwidth("star", {"copy_bandwidth_memory": 1e9},
                                                   ranks=2)]
    found = only(records, "comm", "allreduce")
    assert found.curve[-1].bound == pytest.approx(4 * MIB / 1e9)
    assert found.curve[-1].which == "node memory bandwidth"
    assert fraction_of(records, records[1], size=MIB) == found.curve[-1].fraction


def test_the_peak_of_another_machine_never_bounds_a_record():
    other = [dict(record, metadata=dict(record["metadata"], cpu_model="Other CPU"))
             for record in machine()]
    hpl = flops_record("hpl", "mpi", 8e9, ranks=2)
    assert machine_key(other[0]) != machine_key(hpl)
    assert {limit.status for limit in only(other + [hpl], "hpl", "mpi").limits} == {UNKNOWN}


def test_limits_json_holds_each_records_identity_and_limits():
    data = json.loads(json.dumps(limits_data(machine() + collective_at(3.5))))
    entry = next(item for item in data["records"] if item["variant"] == "allreduce")
    assert entry["launch_id"] == "comm-allreduce-1" and entry["limits"][0]["finding"]
    assert entry["curve"][-1]["bound_by"] == "PingPong bandwidth"
    assert data["thresholds"]["hpl.theoretical"] == 0.5 and len(data["findings"]) == 1
    assert data["machines"][0]["links"]["mlx5_0_port1"] == 12.5e9


def test_show_prints_the_limits_table(tmp_path):
    # (peak clock left out: its unit Hz is the peak family's addition to the schema)
    path = write_jsonl(tmp_path / "results.jsonl", machine()[:-1] + collective_at(3.5) + [
        flops_record("hpl", "mpi", 8e9, ranks=2)])
    shown = run_hpcprobe("show", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "Against the machine's limits" in shown.stdout
    assert "theoretical peak, 2 cores" in shown.stdout


def test_a_record_without_limits_shows_no_table(tmp_path):
    record = stream("single", 1e9, 1e9)
    record["benchmark"] = "mem"
    shown = run_hpcprobe("show", str(write_jsonl(tmp_path / "r.jsonl", [record])))
    assert shown.returncode == 0, shown.stderr
    assert "Against the machine's limits" not in shown.stdout


def test_the_headline_shows_each_figures_fraction_of_its_limit():
    from hpcprobe.families.comm.headline import comm_headline
    from hpcprobe.families.hpcc.headline import hpcc_headline
    from hpcprobe.suite.headline import HEADINGS, headline_rows
    records = machine() + [flops_record("hpl", "mpi", 8e9, ranks=2)] + collective_at(2.0)
    figures = {figure.key: figure for figure in hpcc_headline(records) + comm_headline(records)}
    assert figures["hpl"].of_limit == 0.4  # of the theoretical peak of its 2 cores
    assert figures[f"allreduce.{MIB:g}"].of_limit == pytest.approx(0.5, rel=1e-3)
    assert figures["pingpong.bandwidth"].of_limit is None  # one node: no link limit
    column = list(HEADINGS).index("of limit")
    rows = {row[1]: row for row in headline_rows(list(figures.values()))}
    assert rows["HPL, 2 ranks (N = 1000)"][column] == "0.4"
    assert rows["PingPong latency, 1 KiB"][column] == "—"
