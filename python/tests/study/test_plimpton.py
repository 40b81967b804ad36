"""Plimpton et al.'s studies (families/ra/studies_plimpton.py): their launches, rows()
and notes() on hand-made records (missing fields, failed and overlapped records), and the
T_1/T_C fit with answers computed by hand."""

import pytest

from hpcprobe.families.ra import studies_plimpton as plimpton
from hpcprobe.study.declare import Measured, Point, StudyContext
from hpcprobe.study.papers import item_of


def record(algorithm="hypercube", ranks=1, gups=None, lookahead=1024, overlap="off",
           mods="none", times=None, updates=None, counters=None, status="ok",
           verdict="passed"):
    """An `ra mpi` record with only the fields the studies read."""
    made = {
        "benchmark": "ra", "variant": "mpi", "algorithm": algorithm, "status": status,
        "parameters": {"lookahead": lookahead, "owner": "division"},
        "layout": {"ranks": ranks},
        "validation": {"verdict": verdict},
        "metrics": [],
        "counters": counters or {},
    }
    if algorithm == "hypercube":
        made["parameters"].update(overlap=overlap, mods=mods)
    if gups is not None:
        made["value"] = {"metric": "update_rate", "value": gups * 1e9, "unit": "updates/s"}
    if times is not None:
        made["metrics"].append({"name": "time", "unit": "s", "samples": times})
    if updates is not None:
        made["metrics"].append({"name": "updates", "unit": "updates", "samples": updates})
    return made


def measured(value, *records):
    return Measured(Point(value, (), key=str(value)), tuple(records))


def stage_counters(ranks, route_ns, steps, stages):
    """Every rank spent route_ns routing `steps` steps of `stages` stages."""
    return {"route_ns": [route_ns] * ranks, "steps": [steps] * ranks,
            "stages": [stages] * ranks}


# T_1 = 0.5 s · 1024 / 5,120,000 updates = 100 µs; T_C = 40 ms / (1000 steps · 1 stage)
# = 40 µs on 2 ranks and 80 ms / (1000 · 2) = 40 µs on 4.
ONE = record(ranks=1, gups=0.01024, times=[0.5], updates=[5_120_000])
TWO = record(ranks=2, gups=0.0146, counters=stage_counters(2, 40e6, 1000, 1))
FOUR = record(ranks=4, gups=0.0228, counters=stage_counters(4, 80e6, 1000, 2))


def test_t1_and_tc_fitted_from_hand_made_records():
    t1, tc = plimpton.fit_model([ONE, TWO, FOUR])
    assert t1.value_s == pytest.approx(100e-6)
    assert tc.value_s == pytest.approx(40e-6)
    assert sorted(tc.procs) == [2, 4]


def test_fit_ignores_overlapped_modded_and_failed_records():
    slow = stage_counters(2, 400e6, 1000, 1)  # 400 µs a stage: would move the median
    others = [record(ranks=2, overlap="on", counters=slow),
              record(ranks=2, mods="prepost", counters=slow),
              record(ranks=2, status="failed", counters=slow),
              record(ranks=2, verdict="failed", counters=slow),
              record(ranks=1, overlap="on", times=[5.0], updates=[5_120_000])]
    t1, tc = plimpton.fit_model([ONE, TWO, FOUR] + others)
    assert t1.value_s == pytest.approx(100e-6)
    assert tc.value_s == pytest.approx(40e-6) and tc.records == 2


def test_model_gups_by_hand():
    t1, tc = plimpton.fit_model([ONE, TWO, FOUR])
    # 4 · 1024 / (100 µs + 40 µs · 2) = 22.76 MUPS; 1 rank: 1024 / 100 µs.
    assert plimpton.model_gups(t1, tc, 4) == pytest.approx(4 * 1024 / 180e-6 / 1e9)
    assert plimpton.model_gups(t1, tc, 1) == pytest.approx(0.01024)
    assert plimpton.model_gups(t1, None, 1) == pytest.approx(0.01024)
    assert plimpton.model_gups(t1, None, 2) is None
    assert plimpton.model_gups(None, tc, 2) is None


def test_table2_rows_and_notes():
    points = [measured(1, ONE, record("reference", 1, gups=0.005)),
              measured(2, TWO, record("reference", 2, gups=0.004),
                       record(ranks=2, gups=9.0, overlap="on")),
              measured(4, FOUR, record("reference", 4, gups=0.9, status="failed"))]
    rows = plimpton.table2_rows(points)
    assert [row["procs"] for row in rows] == [1, 2, 4]
    assert rows[0]["gups_hpcc"] == pytest.approx(0.005)
    assert rows[1]["gups"] == pytest.approx(0.0146)  # the overlapped 9 GUPS kept out
    assert rows[1]["efficiency"] == pytest.approx(100 * 0.0146 / (2 * 0.01024))
    assert rows[2]["gups_hpcc"] is None  # failed
    assert rows[2]["gups_model"] == pytest.approx(4 * 1024 / 180e-6 / 1e9)
    assert rows[0]["efficiency"] == pytest.approx(100.0)
    keys = {column.key for column in item_of("001", "table2").columns}
    assert all(set(row) <= keys for row in rows)
    notes = dict((what, (ours, paper)) for what, ours, paper in
                 plimpton.table2_notes(points))
    assert notes["T_1 fitted"][0].startswith("100 µs per 1024 updates")
    assert notes["T_1 fitted"][1].startswith("56.9 µs")
    assert notes["T_C fitted"][0].startswith("40 µs per exchange stage")
    assert "2, 4 ranks" in notes["T_C fitted"][0] and notes["T_C fitted"][1] == "33 µs"
    # 2 · 40 / 100 = 0.80; efficiency at 4: 100 / 180 = 55.6 %
    assert notes["2·T_C / T_1"][0].startswith("0.80") and "55.6 %" in notes["2·T_C / T_1"][0]
    assert notes["T_C by rank count"][0] == "2 ranks: 40 µs, 4 ranks: 40 µs"


def test_stage_times_by_rank_count():
    slow = record(ranks=4, counters=stage_counters(4, 800e6, 1000, 2))  # 400 µs a stage
    found = plimpton.stage_times([ONE, TWO, FOUR, slow,
                                  record(ranks=8, overlap="on",
                                         counters=stage_counters(8, 1e9, 10, 3))])
    assert found == {2: pytest.approx(40e-6), 4: pytest.approx(220e-6)}


def test_table2_without_the_one_rank_point():
    rows = plimpton.table2_rows([measured(2, TWO), measured(4, FOUR)])
    assert all(row["efficiency"] is None and row["gups_model"] is None for row in rows)
    notes = plimpton.table2_notes([measured(2, TWO)])
    assert notes[0][1].startswith("not measured") and len(notes) == 2


def test_a_record_missing_its_fields_gives_none():
    bare = {"benchmark": "ra", "variant": "mpi", "algorithm": "reference", "status": "ok"}
    no_value = record("reference", ranks=2)
    wrong_types = record("reference", ranks=2, gups=0.1)
    wrong_types["value"]["value"] = "fast"
    rows = plimpton.table1_rows([measured(2, bare, no_value, wrong_types)])
    assert rows == [{"procs": 2, "gups": None, "efficiency": None}]
    assert plimpton.table3_rows([measured(2, record(ranks=2, times=None))])[0]["original"] \
        is None


def test_table1_rows_and_efficiency():
    points = [measured(1, record("reference", 1, gups=0.02)),
              measured(2, record("reference", 2, gups=0.01),
                       record("reference", 2, gups=5.0, verdict="failed"))]
    rows = plimpton.table1_rows(points)
    assert rows[1]["gups"] == pytest.approx(0.01)
    assert rows[1]["efficiency"] == pytest.approx(25.0)


def test_table3_keeps_overlap_out_of_the_no_mods_row_and_matches_mods_as_sets():
    records = [
        record(ranks=2, mods="none", times=[2.0, 2.2, 2.1]),
        record(ranks=2, mods="none", overlap="on", times=[0.5]),
        record(ranks=2, mods="prepost", times=[1.8]),
        record(ranks=2, mods="late-update,prepost", times=[1.7]),
        record(ranks=2, mods="prepost,late-update,late-wait", times=[1.6], status="failed"),
        record(ranks=2, mods="isend,late-wait,prepost,late-update", times=[1.5]),
        record(ranks=1, mods="none", times=[1.0]),  # another P: not in this row
    ]
    row = plimpton.table3_rows([measured(2, *records)])[0]
    assert row == {"procs": 2, "original": 2.1, "mod1": 1.8, "mod2": 1.7, "mod3": None,
                   "mod6": 1.5}
    notes = plimpton.table3_notes([measured(2, *records)])
    assert notes[0][1].startswith("2.1 s → 1.5 s (-28.6 %) on 2 ranks")


def test_table4_rows_efficiency_from_the_one_rank_baseline():
    baseline = record(ranks=1, gups=0.1, lookahead=1024)
    points = [
        Measured(Point(64, (plimpton.SuiteStep("ra", "mpi", (), 1.0, ranks=1),
                            plimpton.SuiteStep("ra", "mpi", (), 1.0, ranks=2))),
                 (baseline, record(ranks=2, gups=0.02, lookahead=64))),
        Measured(Point(1024, (plimpton.SuiteStep("ra", "mpi", (), 1.0, ranks=2),)),
                 (record(ranks=2, gups=0.15, lookahead=1024, verdict="failed"),
                  record(ranks=2, gups=0.9, lookahead=1024, overlap="on"))),
    ]
    rows = plimpton.table4_rows(points)
    assert rows[0] == {"lookahead": 64, "gups": pytest.approx(0.02),
                       "efficiency": pytest.approx(10.0)}
    assert rows[1] == {"lookahead": 1024, "gups": None, "efficiency": None}
    notes = plimpton.table4_notes(points)
    assert notes[0][1] == "0.1 GUPS" and notes[1][1] == "10 % at Q = 64 on 2 ranks"


def test_mods_of_reads_the_list_as_typed():
    assert plimpton.mods_of(record(mods="none")) == frozenset()
    assert plimpton.mods_of(record(mods="isend,prepost")) == {"prepost", "isend"}
    broken = record()
    broken["parameters"]["mods"] = 3
    assert plimpton.mods_of(broken) is None


def options_of(step):
    return dict(zip(step.bench_options[::2], step.bench_options[1::2]))


def test_table2_launches_lock_step_hypercube_and_reference_with_the_table_per_rank():
    points = plimpton.PLIMPTON_TABLE2.points(StudyContext("default"))
    assert [point.value for point in points] == [1, 2, 4, 8]
    hypercube, reference = points[3].steps
    assert hypercube.ranks == reference.ranks == 8
    assert options_of(hypercube)["--overlap"] == "off"
    assert options_of(hypercube)["--mods"] == "none"
    assert options_of(hypercube)["--table-log2"] == "25"  # 2^22 words on each of 8 ranks
    assert options_of(reference)["--algo"] == "reference"
    tiny = plimpton.PLIMPTON_TABLE2.points(StudyContext("tiny", np=(3,)))
    assert [point.value for point in tiny] == [3]
    assert options_of(tiny[0].steps[0])["--table-log2"] == "14"


def test_table3_launches_every_mod_lock_step_without_a_time_limit():
    points = plimpton.PLIMPTON_TABLE3.points(StudyContext("tiny"))
    assert [point.value for point in points] == [2]
    for step in points[0].steps:
        options = options_of(step)
        assert options["--overlap"] == "off" and "--time-limit" not in options
    default = plimpton.PLIMPTON_TABLE3.points(StudyContext("default", np=(4,)))
    assert {options_of(step)["--table-log2"] for step in default[0].steps} == {"19"}
    assert [options_of(step)["--mods"] for step in points[0].steps] == [
        "none", "prepost", "prepost,late-update", "prepost,late-update,late-wait",
        "prepost,late-update,late-wait,isend"]


def test_table4_sweeps_q_on_a_fixed_p_with_one_baseline():
    points = plimpton.PLIMPTON_TABLE4.points(StudyContext("default", np=(2, 4)))
    assert [point.value for point in points] == [1, 4, 16, 64, 256, 1024, 2048, 4096, 8192,
                                                  32768]
    baseline = points[0].steps[0]
    assert baseline.ranks == 1 and options_of(baseline)["--lookahead"] == "1024"
    assert all(point.steps[-1].ranks == 4 for point in points)
    assert sum(len(point.steps) for point in points) == 11
    last = points[-1].steps[-1].bench_options
    assert "--allow-noncompliant" in last
    assert options_of(points[2].steps[-1])["--overlap"] == "off"
    assert options_of(points[2].steps[-1])["--mods"] == "none"


def test_every_row_key_is_a_column_of_its_item():
    for study, rows in ((plimpton.PLIMPTON_TABLE1, plimpton.table1_rows([measured(1)])),
                        (plimpton.PLIMPTON_TABLE3, plimpton.table3_rows([measured(1)])),
                        (plimpton.PLIMPTON_TABLE4, plimpton.table4_rows([measured(1)]))):
        item = item_of(study.paper, study.item)
        assert item.study == study.name
        assert set(rows[0]) <= {column.key for column in item.columns}
        assert item.axis in rows[0]


def test_the_data_file_lists_every_table_and_figure_of_the_paper():
    from hpcprobe.study.papers import paper
    items = {item.id: item for item in paper("001").items}
    assert set(items) == {"table1", "table2", "table3", "table4", "fig1", "fig2"}
    assert items["fig1"].study == "plimpton-fig1" and items["fig1"].axis == "dims"
    assert [c.key for c in items["fig1"].columns] == ["dims", "procs", "messages", "gups",
                                                      "time_per_step_us"]
    assert items["fig2"].study is None and items["fig2"].why_not
    table2 = items["table2"].published[0].rows
    assert [row["procs"] for row in table2][:4] == [1, 4, 16, 64]
    assert table2[-1] == {"procs": 10240, "gups_hpcc": "—", "gups": 19.72,
                          "gups_model": "—", "efficiency": 10.7}
