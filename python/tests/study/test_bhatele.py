"""Paper 004's studies (families/contention/studies_bhatele.py): rows from hand-made
records (a missing field, a failed record), eq. 1 and §1's P^(4/3) argument with
hand-computed answers, and the points each scale plans."""

import math

import pytest

from hpcprobe.families.contention import bhatele_model as model
from hpcprobe.families.contention import bhatele_rows as rows
from hpcprobe.families.contention.studies_bhatele import STUDIES
from hpcprobe.study.declare import Measured, Point, StudyContext
from hpcprobe.study.papers import item_of

B = 425e6            # BG/P's link, the simulator's default
US = 1e-6
SIZE = 1024


def study(name):
    return next(s for s in STUDIES if s.name == name)


def record(variant, series=None, counters=None, parameters=None, status="ok",
           verdict="passed", ranks=None):
    made = {"benchmark": "contention", "variant": variant, "status": status,
            "validation": {"verdict": verdict}, "parameters": dict(parameters or {}),
            "series": [{"name": name, "x": list(xs), "y": list(ys)}
                       for name, (xs, ys) in (series or {}).items()],
            "counters": dict(counters or {})}
    if ranks is not None:
        made["layout"] = {"ranks": ranks}
    return made


def wocon_record(**changes):
    """Rank 0 to the 3 other nodes of a ring of 4 (1, 2 and 1 hops), at 1 KiB."""
    fields = dict(series={"message_time_min": ([SIZE], [2 * US]),
                          "message_time_mean": ([SIZE], [2.5 * US]),
                          "message_time_max": ([SIZE], [3 * US]),
                          "spread": ([SIZE], [0.5]),
                          f"pair_time_b{SIZE}": ([1, 2, 1], [2 * US, 3 * US, 4 * US])},
                  counters={"pair_hops": [1, 2, 1]},
                  parameters={"topology_kind": "torus", "topology_dims": "4",
                              "topology_wrap": "1", "max_message_bytes": SIZE})
    fields.update(changes)
    return record("wocon", **fields)


def grid_record(variant, kind, pairs_a, pairs_b, series, phases=None, extra=None):
    """A contention record on a 1-D grid of 4 nodes, one rank each."""
    counters = {"rank_node": [0, 1, 2, 3], "node_coords": [0, 1, 2, 3],
                "pair_rank_a": pairs_a, "pair_rank_b": pairs_b}
    if phases is not None:
        counters["pair_phase"] = phases
    parameters = {"topology_kind": kind, "topology_dims": "4",
                  "topology_wrap": "1" if kind == "torus" else "0",
                  "max_message_bytes": SIZE, **(extra or {})}
    return record(variant, series=series, counters=counters, parameters=parameters, ranks=4)


def measured(value, *records):
    return Measured(Point(value, ()), tuple(records))


# --- eq. 1 and §1's argument, by hand ------------------------------------------------------

def test_eq1_is_the_papers_example():
    # §1: 32-byte flits, 1024 bytes, 8 links: the first term is a fourth of the second.
    assert model.eq1_latency(8, 1024) == pytest.approx((8 * 32 + 1024) / B)
    assert model.eq1_latency(0, 1024) == pytest.approx(1024 / B)


def test_mean_hops_and_links_by_hand():
    assert model.mean_line_hops(8, True) == pytest.approx((0 + 1 + 2 + 3 + 4 + 3 + 2 + 1) / 8)
    assert model.mean_line_hops(4, False) == pytest.approx(15 / 12)  # (D² − 1) / 3D
    assert model.mean_line_hops(1, True) == 0
    # The paper's worked example (p. 3): 8x8x8, 4 ranks per node.
    assert model.available_links((8, 8, 8)) == 512 * 6
    assert model.required_crossings((8, 8, 8), 4) == pytest.approx(512 * 4 * 6)


def test_torus_dims_balanced_as_dims_create():
    assert model.torus_dims(8) == (2, 2, 2)
    assert model.torus_dims(12) == (3, 2, 2)
    assert model.torus_dims(7) == (7, 1, 1)
    assert model.torus_dims(1) == (1, 1, 1)
    with pytest.raises(ValueError):
        model.torus_dims(0)


def test_simulator_matches_the_worked_example():
    found = model.simulated_load((8, 8, 8), 4)
    assert found["links"] == 3072
    assert found["procs"] == 2048
    assert found["crossings"] == pytest.approx(12288, rel=0.01)  # a random matching
    assert found["load"] == pytest.approx(4.0, rel=0.01)


def test_closed_form_exponents_are_exactly_the_papers():
    sides = (4, 8, 16)
    procs = [k ** 3 for k in sides]
    # k^3 nodes, 3k/4 hops each: 0.75 k^4 = 0.75 P^(4/3); 6 k^3 = 6 P links.
    crossings = [model.required_crossings((k, k, k)) for k in sides]
    assert crossings == [pytest.approx(0.75 * k ** 4) for k in sides]
    assert model.fitted_exponent(procs, crossings) == pytest.approx(4 / 3)
    links = [model.available_links((k, k, k)) for k in sides]
    assert model.fitted_exponent(procs, links) == pytest.approx(1.0)


def test_simulated_sweep_grows_as_p_to_four_thirds():
    swept = model.sweep((4, 8, 16))
    procs = [row["procs"] for row in swept]
    assert model.fitted_exponent(procs, [r["crossings"] for r in swept]) == \
        pytest.approx(4 / 3, abs=0.03)
    assert model.fitted_exponent(procs, [r["links"] for r in swept]) == pytest.approx(1.0)
    assert [round(r["load"], 1) for r in swept] == [0.5, 1.0, 2.0]  # k / 8


def test_fitted_exponent_refuses_too_little():
    assert model.fitted_exponent([1, 2, 4], [3, 6, 12]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        model.fitted_exponent([1], [1])
    with pytest.raises(ValueError):
        model.fitted_exponent([0, 1], [1, 2])


# --- rows from hand-made records --------------------------------------------------------

def test_wocon_row_and_eq1_at_the_records_hops():
    (row,) = study("bhatele-fig3").rows([measured(SIZE, wocon_record())])
    assert row["message_bytes"] == SIZE
    assert row["min_us"] == pytest.approx(2.0)
    assert row["mean_us"] == pytest.approx(2.5)
    assert row["max_us"] == pytest.approx(3.0)
    assert row["spread"] == pytest.approx(50.0)
    assert row["max_hops"] == 2
    assert row["model_min_us"] == pytest.approx((32 + 1024) / B / US)
    assert row["model_max_us"] == pytest.approx((64 + 1024) / B / US)
    assert row["model_spread"] == pytest.approx(100 * 32 / 1056)


def test_wocon_row_missing_fields_are_none():
    bare = wocon_record(series={"message_time_mean": ([SIZE], [2.5 * US])}, counters={})
    (row,) = study("bhatele-fig4").rows([measured(SIZE, bare)])
    assert row["mean_us"] == pytest.approx(2.5)
    assert all(row[key] is None for key in ("min_us", "max_us", "spread", "max_hops",
                                            "model_min_us", "model_max_us", "model_spread"))
    # Text where a number belongs, NaN: not numbers.
    odd = wocon_record(series={"message_time_min": ([SIZE], ["fast"]),
                               "message_time_max": ([SIZE], [math.nan])})
    (row,) = study("bhatele-fig4").rows([measured(SIZE, odd)])
    assert row["min_us"] is None and row["max_us"] is None


def test_wocon_model_on_the_records_own_grid():
    # A line of 4 nodes with its placement: rank 0 to 1, 2 and 3 hops.
    made = grid_record("wocon", "mesh", [0, 0, 0], [1, 2, 3],
                       {"message_time_mean": ([SIZE], [2 * US])})
    (row,) = study("bhatele-fig6").rows([measured(SIZE, made)])
    assert row["model_min_us"] == pytest.approx((32 + 1024) / B / US)
    assert row["model_max_us"] == pytest.approx((96 + 1024) / B / US)
    assert row["model_spread"] == pytest.approx(100 * 64 / 1056)


def test_wocon_model_on_an_emulated_tree_cluster():
    # tree:2x2, uplinks at half the host links' rate: within a leaf 2 links; across, 4
    # links and the uplink counts twice (B / B_up). The record's own hops say flat (2).
    link = 1e8
    made = record("wocon", series={}, counters={"rank_node": [0, 1, 2, 3],
                                                "pair_rank_a": [0, 0, 0],
                                                "pair_rank_b": [1, 2, 3],
                                                "pair_hops": [2, 2, 2]},
                  parameters={"topology_kind": "flat"}, ranks=4)
    made["metadata"] = {"cluster_network": "tree:2x2 link_bytes_per_s=100000000 "
                                           "uplink_bytes_per_s=50000000 link_delay_s=0"}
    (row,) = study("bhatele-table1").rows([measured(SIZE, made)])
    within, across = (2 * 32 + 1024) / link, (4 * 32 + 2 * 1024) / link
    assert row["model_wocon_nn"] == pytest.approx(within / US)
    assert row["model_wocon_rnd"] == pytest.approx((within + 2 * across) / 3 / US)
    (row,) = study("bhatele-fig3").rows([measured(SIZE, made)])
    assert row["model_max_us"] == pytest.approx(across / US)
    assert row["max_hops"] == 2 and row["min_us"] is None


@pytest.mark.parametrize("failed", [dict(status="failed"), dict(verdict="failed")])
def test_failed_records_are_not_used(failed):
    bad = wocon_record(**failed)
    for name in ("bhatele-fig5", "bhatele-table1"):
        (row,) = study(name).rows([measured(SIZE, bad)])
        assert [key for key, value in row.items() if value is not None] == ["message_bytes"]


def test_table1_nn_is_the_nearest_destinations_rnd_all():
    nn = grid_record("wicon", "torus", [0, 2], [1, 3],
                     {"message_time_mean": ([SIZE], [5 * US])}, extra={"pairs": "nn"})
    rnd = grid_record("wicon", "torus", [0, 1], [2, 3],
                      {"message_time_mean": ([SIZE], [9 * US])}, extra={"pairs": "rnd"})
    (row,) = study("bhatele-table1").rows([measured(SIZE, wocon_record(), nn, rnd)])
    assert row["wocon_nn"] == pytest.approx(3.0)        # the 1-hop destinations: 2 and 4 µs
    assert row["wocon_rnd"] == pytest.approx(3.0)       # all three: 2, 3, 4 µs
    assert row["wicon_nn"] == pytest.approx(5.0)
    assert row["wicon_rnd"] == pytest.approx(9.0)
    assert row["model_wocon_nn"] == pytest.approx(1056 / B / US)
    assert row["model_wocon_rnd"] == pytest.approx((1056 + 1088 + 1056) / 3 / B / US)
    # Ring of 4: NN pairs share no link; the RND pairs 0-2, 1-3 (2 hops, the + way on a
    # tie) put 2 messages on every link they cross.
    assert row["model_wicon_nn"] == pytest.approx(1056 / B / US)
    assert row["model_wicon_rnd"] == pytest.approx((2 * 32 + 2 * 1024) / B / US)


def test_fig9_rows_and_a_record_the_simulator_cannot_model():
    nn = grid_record("wicon", "torus", [0, 2], [1, 3],
                     {"message_time_mean": ([SIZE], [4 * US])}, extra={"pairs": "nn"})
    rnd = grid_record("wicon", "torus", [0, 1], [2, 3],
                      {"message_time_mean": ([SIZE], [10 * US])}, extra={"pairs": "rnd"})
    (row,) = study("bhatele-fig9").rows([measured(SIZE, rnd, nn)])
    assert row["rnd_over_nn"] == pytest.approx(2.5)
    assert row["model_rnd_over_nn"] == pytest.approx(2112 / 1056)
    flat = dict(nn, parameters={"pairs": "nn", "topology_kind": "flat"})
    (row,) = study("bhatele-fig9").rows([measured(SIZE, flat)])
    assert row["nn_us"] == pytest.approx(4.0)
    assert row["model_nn_us"] is None and row["rnd_us"] is None and row["rnd_over_nn"] is None


def test_stress_link_on_a_line_of_four():
    # Pairs (1,2) alone, then with (0,3), which crosses the middle link 1->2 as well.
    made = grid_record("stress-link", "mesh", [1, 0], [2, 3],
                       {"middle_pair_time_pairs_1": ([SIZE], [3 * US]),
                        "middle_pair_time_pairs_2": ([SIZE], [6 * US])}, phases=[1, 2])
    (row,) = study("bhatele-fig11").rows([measured(SIZE, made)])
    assert row["pairs"] == 2
    assert row["slowdown"] == pytest.approx(2.0)
    assert row["model_alone_us"] == pytest.approx(1056 / B / US)
    assert row["model_all_us"] == pytest.approx((32 + 2 * 1024) / B / US)
    assert row["model_slowdown"] == pytest.approx(2080 / 1056)


def test_equidistant_on_a_line_of_four():
    made = grid_record("equidistant", "mesh", [0, 2, 0, 1], [1, 3, 2, 3],
                       {"message_time_distance_1": ([SIZE], [2 * US]),
                        "message_time_distance_2": ([SIZE], [5 * US])}, phases=[1, 1, 2, 2])
    (row,) = study("bhatele-fig13").rows([measured(SIZE, made)])
    assert row["distance"] == 2
    assert row["far_over_near"] == pytest.approx(2.5)
    # Distance 2: 0->2 and 1->3 both cross 1->2.
    assert row["model_far_over_near"] == pytest.approx(2112 / 1056)
    (row,) = study("bhatele-fig13").rows([measured(SIZE)])  # the point left no record
    assert row["distance"] is None and row["near_us"] is None


def test_scaling_rows_and_notes():
    nn = grid_record("wicon", "torus", [0], [1], {"message_time_mean": ([SIZE], [4 * US])},
                     extra={"pairs": "nn"})
    rnd = dict(nn, parameters=dict(nn["parameters"], pairs="rnd"),
               series=[{"name": "message_time_mean", "x": [SIZE], "y": [6 * US]}])
    scaling = study("bhatele-fig9p")
    (row,) = scaling.rows([measured(2, wocon_record(), nn, rnd)])
    assert row["procs"] == 2
    assert row["wocon_us"] == pytest.approx(2.5)
    assert row["rnd_over_nn"] == pytest.approx(1.5)
    # 2x1x1: one link each way; the one pair's two messages cross one link each.
    assert (row["links"], row["crossings"], row["load"]) == (2, 2, 1.0)
    (row,) = scaling.rows([measured(4)])
    assert row["wicon_nn_us"] is None and row["links"] == 8   # 2x2x1: 4 lines of 1 link
    notes = scaling.notes([])
    assert notes[0][1] == "P^1.00" and notes[1][1] in ("P^1.33", "P^1.34", "P^1.35")


def test_every_row_key_is_a_column_of_its_item():
    for each in STUDIES:
        keys = {column.key for column in item_of(each.paper, each.item).columns}
        for row in each.rows([measured(SIZE if each.item != "fig9p" else 2)]):
            assert set(row) <= keys, each.name


# --- points -------------------------------------------------------------------------------

def test_tiny_is_two_points_of_two_ranks_at_most():
    for each in STUDIES:
        points = each.points(StudyContext("tiny"))
        assert 1 <= len(points) <= 2, each.name
        assert all(step.ranks <= 2 for point in points for step in point.steps), each.name
        assert len({point.name for point in points}) == len(points)
        assert each.interconnect


def test_local_points_emulate_nodes_cluster_points_do_not():
    local = study("bhatele-fig4").points(StudyContext("default"))
    assert [p.value for p in local] == [16, 64, 256, 1024, 4096, 16384, 65536]
    options = local[0].steps[0].bench_options
    assert ("--torus", "8x8x16") == options[options.index("--torus"):][:2]
    assert "--ranks-per-node" in options
    cluster = study("bhatele-fig4").points(StudyContext("default", cluster=True, ppn=2))
    assert cluster[0].steps[0].ranks == 8
    assert "--ranks-per-node" not in cluster[0].steps[0].bench_options
    ring = study("bhatele-fig11").points(StudyContext("default", np=(6,)))
    assert ring[0].steps[0].ranks == 6
    assert "6" == ring[0].steps[0].bench_options[
        ring[0].steps[0].bench_options.index("--torus") + 1]
    scaling = study("bhatele-fig9p").points(StudyContext("default"))
    assert [p.value for p in scaling] == [2, 4, 8]
    assert "2x2x2" in scaling[2].steps[0].bench_options


def test_usable_reads_untrusted_records():
    good = wocon_record()
    other = dict(good, benchmark="comm")
    assert rows.usable([None, "text", other, good], "wocon") == [good]
    assert rows.usable([good], "wicon") == []
    nn = dict(good, variant="wicon", parameters={"pairs": "nn"})
    assert rows.usable([nn], "wicon", "rnd") == [] and rows.usable([nn], "wicon", "nn") == [nn]
    assert rows.numbered(dict(good, series="broken"), "pair_time_b") == []
    assert rows.hop_times(dict(good, series=[{"name": f"pair_time_b{SIZE}", "x": 3}]),
                          SIZE) == {}
