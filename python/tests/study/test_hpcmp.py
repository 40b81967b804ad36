"""Paper 002 (hpcmp): Levesque's model and the ratios on hand-made inputs with answers worked
by hand, and the studies' rows() on hand-made records (a record missing fields, a failed
one, one of another placement)."""

import pytest

from hpcprobe.families.comm import studies_hpcmp as comm_studies
from hpcprobe.families.memory import studies_hpcmp as memory_studies
from hpcprobe.study import levesque
from hpcprobe.study.declare import Measured, Point, StudyContext


def _measured(value, *records):
    return Measured(Point(value, ()), tuple(records))


def _record(benchmark, variant, parameters=None, metrics=None, series=None, **extra):
    record = {"benchmark": benchmark, "variant": variant, "status": "ok",
              "validation": {"verdict": "passed"}, "parameters": parameters or {},
              "metrics": [{"name": k, "samples": v} for k, v in (metrics or {}).items()],
              "series": [{"name": k, "x": x, "y": y} for k, (x, y) in (series or {}).items()]}
    record.update(extra)
    return record


def _stream(single, per_copy):
    return _record("stream", "star", {"copies": len(per_copy)},
                   {"single_triad_bandwidth": single},
                   {"star_triad_best_bandwidth": (list(range(len(per_copy))), per_copy)})


def _stride(one, many, sweep="stride", **parameters):
    xs = sorted(one)
    return _record("mem", "stride", {"sweep": sweep, **parameters}, series={
        "time_per_access_one": (xs, [one[x] for x in xs]),
        "time_per_access_many": (xs, [many[x] for x in xs]) if many else ([], [])})


def _latency(one, many, l1=32768, l2=1048576):
    xs = sorted(one)
    return _record("mem", "latency", {"sweep": "latency", "cache_l1d_bytes": l1,
                                      "cache_l2_bytes": l2}, series={
        "time_per_access_one": (xs, [one[x] for x in xs]),
        "time_per_access_many": (xs, [many[x] for x in xs])})


# ---- the model ------------------------------------------------------------------------

def test_predicted_slowdown_by_hand():
    # 1 + 0.5 (2 - 1) + 0.25 (1.2 - 1) = 1 + 0.5 + 0.05
    assert levesque.predicted_slowdown(0.5, 2.0, 0.25, 1.2) == pytest.approx(1.55)
    # Levesque's model proper: latency unchanged, bandwidth halved; a code 30 % bandwidth.
    assert levesque.predicted_slowdown(0.3, 2.0) == pytest.approx(1.3)
    # no contention, no slowdown whatever the fraction
    assert levesque.predicted_slowdown(1.0, 1.0) == pytest.approx(1.0)


def test_predicted_slowdown_refuses_what_is_not_a_fraction():
    assert levesque.predicted_slowdown(None, 2.0) is None
    assert levesque.predicted_slowdown(0.5, None) is None
    assert levesque.predicted_slowdown(1.2, 2.0) is None
    assert levesque.predicted_slowdown(-0.1, 2.0) is None
    assert levesque.predicted_slowdown(0.7, 2.0, 0.4, 1.5) is None  # 0.7 + 0.4 > 1


def test_implied_fraction_inverts_the_model():
    # Levesque's BT: 109 % where bandwidth halves -> 9 % of the time is bandwidth.
    assert levesque.implied_bandwidth_fraction(1.09, 2.0) == pytest.approx(0.09)
    # (1.6 - 1) / (1.8 - 1) = 0.75
    fraction = levesque.implied_bandwidth_fraction(1.6, 1.8)
    assert fraction == pytest.approx(0.75)
    assert levesque.predicted_slowdown(fraction, 1.8) == pytest.approx(1.6)
    assert levesque.implied_bandwidth_fraction(3.0, 2.0) == 1.0  # held in [0, 1]
    assert levesque.implied_bandwidth_fraction(0.9, 2.0) == 0.0
    assert levesque.implied_bandwidth_fraction(1.5, 1.0) is None
    assert levesque.implied_bandwidth_fraction(None) is None


def test_model_ratios_and_step_ratios():
    assert levesque.model_bandwidth_ratio(2) == 2.0  # "cut in half"
    assert levesque.model_bandwidth_ratio(4, 2) == 2.0  # quad over dual
    assert levesque.model_bandwidth_ratio(0) is None
    # times 10, 18, 40 after a one-copy 5: dual/single 1.8, then 40/18
    assert levesque.step_ratios([9.0, 18.0, 40.0], 5.0) == pytest.approx([1.8, 2.0, 40 / 18])
    assert levesque.step_ratios([None, 4.0], 2.0) == [None, None]
    assert levesque.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert levesque.geometric_mean([None, 0.0]) is None


def test_stride_model_by_footprint():
    # 1 MiB buffer, 64 B lines: stride 128 touches 512 KiB (fits a 1 MiB L2), 32 touches
    # all of it (1 MiB, still fits), and a 256 KiB L2 sees 512 KiB: memory, the STREAM ratio.
    assert levesque.stride_footprint(128, 2 ** 20) == 2 ** 19
    assert levesque.stride_footprint(32, 2 ** 20) == 2 ** 20
    assert levesque.levesque_stride_ratio(128, 2 ** 20, 2 ** 20, 1.7) == 1.0
    assert levesque.levesque_stride_ratio(128, 2 ** 20, 2 ** 18, 1.7) == 1.7
    assert levesque.levesque_stride_ratio(128, None, 2 ** 18, 1.7) is None


def test_stream_bandwidths_from_the_record():
    # single: the best iteration; star: the mean of the copies' best (HPCC's StarSTREAM)
    single, star = levesque.stream_bandwidths(_stream([8e9, 10e9], [4e9, 6e9]))
    assert (single, star) == (10e9, 5e9)
    assert levesque.stream_bandwidths(None) == (None, None)
    bare = _record("stream", "star", metrics={"star_triad_bandwidth": [3e9, 4e9]})
    assert levesque.stream_bandwidths(bare) == (None, 4e9)


def test_usable_and_pick():
    good = _stream([1.0], [1.0])
    failed = dict(good, validation={"verdict": "failed"})
    not_ok = dict(good, status="failed")
    assert levesque.usable(good) and not levesque.usable(failed)
    assert not levesque.usable(not_ok) and not levesque.usable("text")
    assert levesque.pick([failed, good], "stream", "star") is good
    assert levesque.pick([good], "stream", "star", copies=4) is None


# ---- rows() ----------------------------------------------------------------------------

def test_fig2_rows_by_hand():
    stride = _stride({256: 2e-9}, {256: 4e-9}, buffer_bytes=2 ** 26, cache_l2_bytes=2 ** 20)
    rows = memory_studies._fig2_rows([
        _measured(256, stride, _stream([10e9], [6e9, 6e9]))])
    # 64 MiB buffer at 256 B: 16 MiB of lines, past the 1 MiB L2: the STREAM ratio 10/6
    assert rows == [{"stride_bytes": 256, "time_one": pytest.approx(2.0),
                     "time_many": pytest.approx(4.0), "ratio": pytest.approx(2.0),
                     "ratio_levesque": pytest.approx(10 / 6)}]


def test_fig2_rows_missing_and_failed():
    failed = dict(_stride({512: 1e-9}, {512: 3e-9}), status="failed")
    no_many = _stride({1024: 1e-9}, {})  # one phase only, no buffer size
    rows = memory_studies._fig2_rows([_measured(512, failed), _measured(1024, no_many),
                                      _measured(2048)])
    assert rows[0] == {"stride_bytes": 512, "time_one": None, "time_many": None,
                       "ratio": None, "ratio_levesque": None}
    assert rows[1]["time_one"] == pytest.approx(1.0)
    assert rows[1]["time_many"] is None and rows[1]["ratio"] is None
    assert rows[1]["ratio_levesque"] is None
    assert rows[2]["time_one"] is None


def test_fig4_rows_by_hand():
    o3 = _stride({4096: 1e-9}, {}, sweep="block", build_variant="O3")
    o0 = _stride({4096: 3e-9}, {}, sweep="block", build_variant="O0")
    rows = memory_studies._fig4_rows([_measured(4096, o0, o3), _measured(8192, o3)])
    assert rows[0] == {"block_bytes": 4096, "time_o3": 1e-9, "time_o0": 3e-9,
                       "o0_over_o3": pytest.approx(3.0)}
    assert rows[1] == {"block_bytes": 8192, "time_o3": None, "time_o0": None,
                       "o0_over_o3": None}


def _fig6_point(copies, single, star, lat_one, lat_many, rw_one, rw_many):
    sizes = (16384, 524288, 2 ** 26)  # half L1, half L2, memory
    return _measured(copies, _stream([single], [star] * copies),
                     _latency(dict(zip(sizes, lat_one)), dict(zip(sizes, lat_many))),
                     _stride({256: rw_one, 8192: rw_one, 65536: 1.0},
                             {256: rw_many, 8192: rw_many, 65536: 9.0}))


def test_fig6_rows_dual_then_quad():
    rows = memory_studies._fig6_rows([
        _fig6_point(2, 10e9, 6e9, (1, 4, 100), (1, 5, 120), 2.0, 3.0),
        _fig6_point(4, 10e9, 3e9, (1, 4, 100), (2, 6, 180), 2.0, 6.0)])
    dual, quad = rows
    assert dual["base"] == 1 and quad["base"] == 2
    assert dual["bw_per_copy"] == pytest.approx(6.0)
    assert dual["bw_ratio"] == pytest.approx(10 / 6)  # one copy over two
    assert quad["bw_ratio"] == pytest.approx(2.0)  # 6 GB/s per copy at 2, 3 at 4
    assert dual["lat_l1_ratio"] == pytest.approx(1.0)
    assert dual["lat_l2_ratio"] == pytest.approx(1.25)
    assert dual["lat_mem_ratio"] == pytest.approx(1.2)
    assert quad["lat_l1_ratio"] == pytest.approx(2.0)  # against the dual row's many phase
    assert quad["lat_mem_ratio"] == pytest.approx(1.5)
    assert dual["rw_ratio"] == pytest.approx(1.5)  # strides 2^8..2^13 only
    assert quad["rw_ratio"] == pytest.approx(2.0)
    assert (dual["bw_ratio_levesque"], quad["bw_ratio_levesque"]) == (2.0, 2.0)
    assert dual["lat_ratio_levesque"] == 1.0


def test_fig6_rows_with_a_failed_point():
    failed = _fig6_point(2, 10e9, 6e9, (1, 4, 100), (1, 5, 120), 2.0, 3.0)
    failed = Measured(failed.point, tuple(dict(r, status="failed") for r in failed.records))
    rows = memory_studies._fig6_rows([failed, _fig6_point(4, 10e9, 3e9, (1, 4, 100),
                                                          (2, 6, 180), 2.0, 6.0)])
    assert all(rows[0][key] is None for key in ("bw_per_copy", "bw_ratio", "lat_l1_ratio",
                                                "rw_ratio"))
    assert rows[1]["base"] == 2 and rows[1]["bw_ratio"] is None  # no dual figures to use


def test_fig6_notes_predict_the_nas_kernels():
    notes = memory_studies._fig6_notes([
        _fig6_point(2, 10e9, 6.25e9, (1, 4, 100), (1, 5, 120), 2.0, 3.0)])
    bt = next(note for note in notes if note[0].startswith("BT"))
    # Levesque's BT 109 %: f = 0.09; here B1/B2 = 1.6: 1 + 0.09 x 0.6 = 1.054 -> 105 %
    assert bt[1].startswith("105% predicted here") and "109%" in bt[2]
    assert "needs 3 rows" in notes[-1][1]


def _pairs(pair, intra, inter, nodes, placement="as-launched", status="ok"):
    metrics = {"pair_bandwidth": pair, "intra_node_bandwidth": intra}
    if inter:
        metrics["inter_node_bandwidth"] = inter
    return _record("pairs", "bandwidth", {"placement": placement}, metrics,
                   counters={"rank_node": nodes}, status=status)


def test_pairs_rows_by_hand():
    record = _pairs([1000e6, 1400e6, 1200e6, 1000e6], [1400e6, 1200e6], [1000e6, 1000e6],
                    [0, 0, 1, 1])
    rows = comm_studies._map_rows([_measured(4, record)])
    assert rows == [{"cores": 4, "nodes": 2, "min_bw": pytest.approx(1000),
                     "max_bw": pytest.approx(1400), "spread": pytest.approx(400 / 14),
                     "intra_bw": pytest.approx(1300), "inter_bw": pytest.approx(1000),
                     "intra_gain": pytest.approx(30.0)}]


def test_pairs_rows_missing_fields_and_failed():
    bare = _record("pairs", "bandwidth")  # no metrics, no counters
    failed = _pairs([5e6], [5e6], [], [0, 0], status="failed")
    rows = comm_studies._map_rows([_measured(2, bare), _measured(4, failed), _measured(8)])
    assert rows[0] == {key: (2 if key == "cores" else None) for key in comm_studies._COLUMNS}
    assert all(rows[1][key] is None for key in comm_studies._COLUMNS[1:])
    assert rows[2]["cores"] == 8 and rows[2]["min_bw"] is None


def test_placement_rows_keep_placements_apart():
    block = _pairs([2000e6, 4000e6], [], [], [0, 1], placement="block")
    spread = _pairs([1000e6, 1000e6], [], [], [0, 1], placement="round-robin")
    failed = _pairs([9e9], [], [], [0, 1], placement="round-robin", status="failed")
    rows = comm_studies._placement_rows([_measured(2, failed, spread, block),
                                         _measured(4, block)])
    assert rows[0]["bw_block"] == pytest.approx(3000) and rows[0]["bw_rr"] == pytest.approx(1000)
    assert rows[0]["block_over_rr"] == pytest.approx(3.0)
    assert rows[0]["gamess_rr"] is None and rows[0]["gamess_smp"] is None
    assert rows[1]["bw_rr"] is None and rows[1]["block_over_rr"] is None


def test_points_stay_small_at_tiny_and_take_np():
    tiny, default = StudyContext("tiny", cores=2), StudyContext("default", cores=2)
    for study in memory_studies.STUDIES + comm_studies.STUDIES:
        points = study.points(tiny)
        assert 1 <= len(points) <= 2, study.name
        assert all(step.ranks <= 2 for point in points for step in point.steps), study.name
        assert all(step.ranks <= 8 for point in study.points(default) for step in point.steps)
    np16 = StudyContext("default", np=(16,), cores=2)
    fig8 = next(s for s in comm_studies.STUDIES if s.name == "hpcmp-fig8")
    assert [p.value for p in fig8.points(np16)] == [16]
    steps = memory_studies.HPCMP_FIG6.points(StudyContext("default", np=(4,), cores=2))[0].steps
    assert all("--oversubscribe" in step.bench_options for step in steps)


def test_latency_levels_take_the_point_at_or_below_half_the_cache():
    record = _latency({1024: 1.0, 12000: 2.0, 400000: 5.0, 2 ** 24: 90.0},
                      {1024: 1.0, 12000: 2.5, 400000: 6.0, 2 ** 24: 120.0})
    assert levesque.latency_levels(record, "one") == {"l1": 2.0, "l2": 5.0, "mem": 90.0}
    assert levesque.latency_levels(record, "many")["mem"] == 120.0
    no_sizes = _latency({1024: 1.0}, {1024: 1.0}, l1=None, l2="1M")
    assert levesque.latency_levels(no_sizes, "one") == {"l1": None, "l2": None, "mem": 1.0}


def test_the_data_file_has_every_figure_and_the_table():
    from hpcprobe.study import papers
    paper = papers.paper("002")
    # the unnumbered table of §4.4.1 is carried by Figures 9-12's published rows
    assert {item.id for item in paper.items} == {f"fig{n}" for n in range(1, 19)}
    midnight = [row for n in (9, 10, 11, 12) for p in paper.item(f"fig{n}").published
                for row in p.rows]
    assert [(row["cores"], row["min_bw"], row["max_bw"]) for row in midnight] == [
        (16, 1000, 1400), (32, 500, 1000), (64, 500, 850), (128, 480, 680)]
    declared = {study.name for study in memory_studies.STUDIES + comm_studies.STUDIES}
    assert {item.study for item in paper.items if item.study} == declared
    assert all(item.why_not for item in paper.items if item.study is None)
    assert all(2213 <= item.page <= 2231 for item in paper.items if item.page)
