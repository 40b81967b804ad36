"""Paper 000's models (families/ra/bottleneck.py) on hand-made inputs with hand-computed
answers, and the garg-* studies' rows() on hand-made records (studies_garg.py)."""

import math

import pytest

from hpcprobe.families.ra import bottleneck as b
from hpcprobe.families.ra import studies_garg as g
from hpcprobe.study.declare import Measured, Point

CLOCK = 850e6  # Blue Gene/P: the paper's cycles


def cycles(n):
    return n / CLOCK


def record(algorithm, ranks, gups, status="ok", verdict="passed", per_rep=None, **params):
    counters = params.pop("counters", {})
    return {"benchmark": "ra", "variant": "mpi", "algorithm": algorithm, "status": status,
            "layout": {"ranks": ranks},
            "parameters": params, "counters": counters,
            "metrics": [{"name": "update_rate", "unit": "updates/s",
                         "samples": [] if gups is None else [gups * 1e9]}],
            "validation": {"verdict": verdict, "per_repetition": per_rep or []}}


def measured(value, *records, key=""):
    return Measured(Point(value, (), key), tuple(records))


# ---- eq. (6)-(7) -------------------------------------------------------------------------

def test_eq7_bound_is_nodes_over_the_busiest_core():
    # The paper's section 5.1 loads (95, 112, 114, 146 cycles) on 64 nodes at 850 MHz:
    # 64 · 0.85e9 / 146 = 0.3726 GUPS (the measured 0.38 corresponds to 143 cycles).
    bound = b.eq7_bound_gups([cycles(c) for c in (95, 112, 114, 146)], 64)
    assert bound == pytest.approx(64 * 0.85 / 146, rel=1e-12)
    assert b.eq7_bound_gups([], 4) is None
    assert b.eq7_bound_gups([0.0, -1.0], 4) is None


def test_role_times_average_every_rank_per_update_it_issued():
    # rank 0: 100 and 50 ns busy over 10 updates -> 10, 5 ns; rank 1: 300 and 10 ns over
    # 20 -> 15, 0.5 ns. Means 12.5 and 2.75 ns, worst 15 and 5 ns.
    times = b.role_times([100, 50, 300, 10], [10, 20], ["generate", "update slice 0"])
    assert times.per_update_s == pytest.approx((12.5e-9, 2.75e-9))
    assert times.worst_per_update_s == pytest.approx((15e-9, 5e-9))
    assert times.names == ("generate", "update slice 0") and times.bottleneck == 0
    assert times.bound_gups() == pytest.approx(2 / 12.5e-9 / 1e9)          # 0.16
    assert times.strict_bound_gups() == pytest.approx(30 / 300e-9 / 1e9)   # 0.1
    assert b.role_times([1, 2, 3], [10, 20]) is None   # not ranks x threads
    assert b.role_times([1, 2], [0]) is None           # a rank that issued nothing


def test_record_role_times_refuses_a_record_without_every_ranks_threads():
    only_rank0 = record("pipeline", 2, 0.1, counters={"thread_busy_ns_rank0": [1, 2]})
    assert b.record_role_times(only_rank0) is None
    broken = record("pipeline", 2, 0.1, counters={"thread_busy_ns": [1, None],
                                                    "updates_issued": [1]})
    assert b.record_role_times(broken) is None
    assert b.record_role_times(None) is None


# ---- section 4.3.1 and 5.2 ---------------------------------------------------------------

def test_bucket_size_is_the_lookahead_over_every_bucket_of_a_node():
    # 8x8x16 (1024 nodes): 32 + 21 = 53 buckets, 1024 // 53 = 19 as in Table 4.
    assert b.paper_bucket_count((8, 8, 16)) == 53
    assert b.paper_bucket_size((8, 8, 16)) == 19
    assert b.paper_bucket_size((16, 16, 32)) == 12   # 8192 nodes: 1024 // 85
    assert b.paper_bucket_count((4,), cores=2, receive_per_dim=1) == 3 + 1 + 2


def test_multicore_routing_model_reproduces_table4():
    # t_r = 330 / BktSize; T_3 = 90 + t_r + 41.5 cycles.
    assert b.receive_time_per_update(330, 12) == pytest.approx(27.5)
    assert b.core_overhead(143, 90, 11.3) == pytest.approx(41.7)
    for nodes, bucket, published in ((8192, 12, 43.8), (16384, 10, 84.6)):
        receive = b.receive_time_per_update(cycles(330), bucket)
        gups = b.multicore_bottleneck_gups(nodes, cycles(90), receive, cycles(41.5))
        assert gups == pytest.approx(published, abs=0.1)   # 8192·0.85/159 = 43.79


def test_singlecore_routing_model_reproduces_the_64_node_row():
    hops = b.routing_hops((4, 4, 4))
    assert hops == pytest.approx(2.25)
    hop = b.per_hop_cost(457, 92, hops)
    assert hop == pytest.approx(365 / 2.25)                # ≈ 162 cycles
    gups = b.singlecore_bottleneck_gups(64, cycles(92), cycles(hop), hops)
    assert gups == pytest.approx(64 * 0.85 / 457)          # 0.119: the paper's 0.12
    assert b.per_hop_cost(10, 5, 0) is None


def test_grid_of_reads_only_well_formed_grids():
    assert b.grid_of(record("torus", 4, 0.1, grid="2x2")) == (2, 2)
    assert b.grid_of(record("torus", 4, 0.1, grid="2xx")) is None
    assert b.grid_of(record("torus", 4, 0.1, grid=4)) is None


# ---- the studies' rows --------------------------------------------------------------------

ROLES = "generate+route axes 0-0;update slice 0"


def pipeline(ranks, gups, bucket, **extra):
    # rank 0's threads: 800 and 400 ns, rank 1's: 600 and 400 ns, 100 updates each;
    # receives: 200 ns over 10 messages (t_pkt = 20 ns).
    counters = {"thread_busy_ns": [800, 400, 600, 400], "thread_updates": [100] * 4,
                "updates_issued": [100, 100], "receive_ns": [100, 100],
                "messages_received": [5, 5]}
    return record("pipeline", ranks, gups, counters=counters, thread_roles=ROLES,
                  bucket_size=bucket, mapping_mode=8, **extra)


def test_table4_rows_from_hand_made_records():
    serial = record("torus", 1, 0.1, grid="1")                 # t_cpu = 10 ns
    torus2 = record("torus", 2, 0.1, grid="2")                 # T = 20 ns, 0.5 hops
    torus4 = record("torus", 4, 0.2, grid="2x2")               # 1 hop
    failed = record("pipeline", 4, 9.0, verdict="failed")
    rows = g.table4_rows([measured(2, pipeline(2, 0.2, 10), torus2, serial),
                          measured(4, pipeline(4, 0.25, 5), torus4, failed)])
    first, second = rows
    # t_u = 800 ns / 200 applied = 4 ns; t_r = 20 / 10 = 2 ns; t_op = 10 - 4 - 2 = 4 ns.
    assert first["multi_model"] == pytest.approx(0.2)          # calibrated here
    assert first["t_r_ns"] == pytest.approx(2.0) and first["bucket_size"] == 10
    # Eq. (7): T_0 = (8 + 6) / 2 = 7 ns per update -> 2 / 7 ns.
    assert first["multi_bound"] == pytest.approx(2 / 7e-9 / 1e9)
    assert first["single_model"] == pytest.approx(0.1)         # calibrated here
    assert (first["multi_gups"], first["single_gups"]) == (0.2, 0.1)
    # N = 4, bucket 5: 4 + 4 + 4 ns -> 4 / 12 ns; the failed record is not used.
    assert second["multi_model"] == pytest.approx(4 / 12e-9 / 1e9)
    assert second["multi_gups"] == 0.25
    # t_hop = (20 - 10) / 0.5 = 20 ns; 4 / (10 + 1·20 ns).
    assert second["single_model"] == pytest.approx(4 / 30e-9 / 1e9)
    notes = dict((what, text) for what, text, _ in g.table4_notes(
        [measured(2, pipeline(2, 0.2, 10), torus2, serial)]))
    assert notes["t_pkt_rcv (receive calls per message)"] == "20.0 ns"
    assert notes["bound over measured, 2 ranks"] == "+43 %"   # no cores named: eq. (7)


def test_roles_sharing_cores_are_bound_by_the_cores():
    # 2 ranks x 2 threads on one node of 2 cores. T = (8+6)/2 = 7 ns and (4+4)/2 = 4 ns
    # per update: eq. (7) 2 / 7 ns = 0.2857 GUPS; the cores: 2 / (7 + 4) ns = 0.1818.
    shared = pipeline(2, 0.15, 10)
    shared["layout"].update(nodes=1, ranks_per_node_max=2, threads_per_rank=2)
    shared["metadata"] = {"cores_per_node": 2}
    assert b.cores_used(shared) == 2
    times = b.record_role_times(shared)
    assert times.cores_bound_gups(2) == pytest.approx(2 / 11e-9 / 1e9)
    assert times.bound_with_cores_gups(2) == pytest.approx(2 / 11e-9 / 1e9)
    assert times.bound_with_cores_gups(64) == pytest.approx(2 / 7e-9 / 1e9)  # a core each
    assert times.bound_with_cores_gups(None) == times.bound_gups()
    row = g.table4_rows([measured(2, shared)])[0]
    assert row["multi_bound"] == pytest.approx(2 / 11e-9 / 1e9)
    shared["metadata"] = {"cores_per_node": "two"}
    assert b.cores_used(shared) is None


def test_table4_rows_without_the_fields_are_none():
    bare = record("pipeline", 2, 0.1, mapping_mode=8)   # an older bench: no new counters
    row = g.table4_rows([measured(2, bare)])[0]
    assert row["multi_gups"] == 0.1
    assert all(row[key] is None for key in ("multi_model", "multi_bound", "t_r_ns",
                                            "bucket_size", "single_model", "single_gups"))


def test_table3_rows_keep_the_owner_rules_apart():
    division = record("torus", 3, 0.1, owner="division")
    predict = record("torus", 3, 0.16, owner="predict")
    rows = g.table3_rows([measured(3, division, predict)])
    assert rows == [{"procs": 3, "division": 0.1, "predict": 0.16,
                     "gain": pytest.approx(60.0)}]
    failed = record("torus", 3, 0.5, verdict="failed", owner="predict")
    row = g.table3_rows([measured(3, division, failed)])[0]
    assert row["predict"] is None and row["gain"] is None


def test_table2a_rows_count_races_even_over_the_tolerance():
    racing = record("shared", 1, 0.1, "failed", verdict="failed", per_rep=[2, 4], sync="none",
                    table_words=10 ** 6, updates_per_word=2)
    row = g.table2a_rows([measured("2M", racing, key="x2")])[0]
    assert row["updates"] == "2M" and row["per_word"] == 2
    assert row["mean"] == pytest.approx(3.0)                   # 10⁻⁶
    assert row["std"] == pytest.approx(math.sqrt(2))
    assert row["ratio"] == pytest.approx(math.sqrt(2) / 3)
    crashed = record("shared", 1, None, status="error", sync="none")
    assert g.table2a_rows([measured("2M", crashed)])[0]["mean"] is None
    unchecked = record("shared", 1, 0.1, "failed", verdict="not_validated", sync="none")
    assert g.table2a_rows([measured("2M", unchecked)])[0]["mean"] is None


def test_table2b_rows_are_relative_to_one_thread():
    serial = record("shared", 1, 0.1, threads=1, sync="none", locks=None)
    locked = record("shared", 1, 0.05, threads=2, sync="locks", locks=1)
    other = record("shared", 1, 0.9, threads=2, sync="locks", locks=16)
    rows = g.table2b_rows([measured("Serial – 1 core", serial, key="1-none"),
                           measured("Shared – 2 cores, 1 lock", other, locked,
                                    key="2-locks:1")])
    assert rows[0] == {"benchmark": "Serial – 1 core", "gups": 0.1, "relative": 1.0}
    assert rows[1]["gups"] == 0.05 and rows[1]["relative"] == pytest.approx(0.5)


def test_table1_rows_name_each_mode_and_compare_with_mode_1():
    mode1 = record("hypercube", 2, 0.2, mapping_mode=1)
    mode8 = record("pipeline", 1, 0.1, mapping_mode=8)
    rows = g.table1_rows([measured(1, mode1), measured(8, mode8)])
    assert rows[0] == {"mode": 1, "table": "C", "generation": "C", "limit": "C",
                       "gups": 0.2, "relative": 1.0}
    assert rows[1]["table"] == "N" and rows[1]["relative"] == pytest.approx(0.5)
    assert g.table1_rows([measured(8, mode8)])[0]["relative"] is None


def test_every_rows_key_is_a_column_of_the_papers_item():
    from hpcprobe.study import papers
    for study in g.STUDIES:
        item = papers.item_of(study.paper, study.item)
        keys = {column.key for column in item.columns}
        assert item.study == study.name and item.axis in keys
        for row in study.rows([]):
            assert set(row) <= keys
    assert {column.key for column in papers.item_of("000", "table4").columns} >= set(
        g.table4_rows([measured(2, pipeline(2, 0.2, 10))])[0])


def test_the_ra_report_tells_the_owner_rules_apart_and_shows_eq7():
    from hpcprobe.families.ra.report import _eq7_bound, compare_label
    division = record("torus", 3, 0.1, owner="division")
    predict = record("torus", 3, 0.1, owner="predict")
    assert "owner" not in compare_label(division)
    assert compare_label(predict) == "owner predict"
    assert _eq7_bound(pipeline(2, 0.2, 10)) == "0.2857"
    assert _eq7_bound(record("pipeline", 2, 0.2)) is None


def _table_log2s(points):
    return {step.bench_options[step.bench_options.index("--table-log2") + 1]
            for point in points for step in point.steps}


def test_an_emulated_cluster_short_of_cpus_gets_smaller_tables():
    from hpcprobe.study.declare import StudyContext
    for points in (g.table3_points, g.table4_points):
        alone = StudyContext("default", cores=2)
        assert _table_log2s(points(alone)) == {"22"}
        roomy = StudyContext("default", cores=2, cluster=True, cluster_cpus=64.0)
        assert _table_log2s(points(roomy)) == {"22"}
        shared = StudyContext("default", cores=2, cluster=True, cluster_cpus=2.0)
        assert _table_log2s(points(shared)) == {"20"}
        assert _table_log2s(points(StudyContext("tiny", cluster=True, cluster_cpus=2.0))) \
            == {str(g.TINY_TABLE_LOG2)}
