"""plimpton-fig1 (families/ra/studies_staged.py): its points, and its rows and notes from
hand-made `ra mpi --algo staged` records, including records missing fields, records of
another d, and failed ones."""

import copy

import pytest

from hpcprobe.families.ra.studies_staged import (PLIMPTON_FIG1, STUDIES, messages_per_step,
                                                 most_dims, time_per_step_s)
from hpcprobe.study.declare import Measured, StudyContext


def staged_record(dims=2, ranks=8, grid="4x2", messages=(64,) * 8,
                  steps=16, times=(0.2, 0.1, 0.4), rate=2.5e6):
    return {
        "benchmark": "ra", "variant": "mpi", "algorithm": "staged", "status": "ok",
        "layout": {"ranks": ranks, "threads_per_rank": 1, "nodes": 1},
        "parameters": {"dims": dims, "grid": grid, "lookahead": 1024, "owner": "division"},
        "value": {"metric": "update_rate", "value": rate, "unit": "updates/s"},
        "metrics": [{"name": "update_rate", "unit": "updates/s", "samples": [rate] * 3},
                    {"name": "time", "unit": "s", "samples": list(times)},
                    {"name": "updates", "unit": "updates", "samples": [65536] * len(times)}],
        "counters": {"messages_sent": list(messages), "steps": [steps] * ranks,
                     "stages": [dims] * ranks},
        "validation": {"verdict": "passed", "error": 0},
    }


def point(dims, ranks=8):
    return next(p for p in PLIMPTON_FIG1.points(StudyContext("default", np=(ranks,)))
                if p.value == dims)


def test_the_axis_runs_d_from_1_to_log2_p_at_one_p():
    default = PLIMPTON_FIG1.points(StudyContext("default"))
    assert [p.value for p in default] == [1, 2, 3]
    assert {step.ranks for p in default for step in p.steps} == {8}
    tiny = PLIMPTON_FIG1.points(StudyContext("tiny"))
    assert [p.value for p in tiny] == [1, 2]
    assert {step.ranks for p in tiny for step in p.steps} == {4}
    options = tiny[1].steps[0].bench_options
    assert options[:4] == ("--algo", "staged", "--dims", "2")
    assert "--table-log2" in options
    # --np: its first count is the grid's P; d up to floor(log2 P), any P.
    assert [p.value for p in PLIMPTON_FIG1.points(StudyContext("default", np=(6, 2)))] == [1, 2]
    assert [p.value for p in PLIMPTON_FIG1.points(StudyContext("tiny", np=(1,)))] == [1]
    assert (most_dims(1), most_dims(3), most_dims(7), most_dims(8), most_dims(16)) == \
        (1, 1, 2, 3, 4)
    assert STUDIES == (PLIMPTON_FIG1,) and PLIMPTON_FIG1.item == "fig1"


def test_rows_from_the_records():
    rows = PLIMPTON_FIG1.rows([Measured(point(2), (staged_record(),))])
    assert rows == [{"dims": 2, "procs": 8, "messages": 4.0, "gups": pytest.approx(0.0025),
                     "time_per_step_us": pytest.approx(0.2 / 16 * 1e6)}]


def test_messages_are_the_mean_over_the_ranks_per_step():
    record = staged_record(ranks=2, messages=(10, 30), steps=10)
    assert messages_per_step(record) == pytest.approx(2.0)


def test_a_record_of_another_d_is_never_used_for_a_point():
    other = staged_record(dims=3, grid="2x2x2", messages=[48] * 8)
    rows = PLIMPTON_FIG1.rows([Measured(point(2), (other,)), Measured(point(3), (other,))])
    assert rows[0] == {"dims": 2, "procs": None, "messages": None, "gups": None,
                       "time_per_step_us": None}
    assert rows[1]["procs"] == 8 and rows[1]["messages"] == 3.0


def test_failed_and_other_algorithms_records_are_not_used():
    failed = staged_record()
    failed["validation"]["verdict"] = "failed"
    broken = staged_record()
    broken["status"] = "failed"
    torus = staged_record()
    torus["algorithm"] = "torus"
    for record in (failed, broken, torus):
        row = PLIMPTON_FIG1.rows([Measured(point(2), (record,))])[0]
        assert row["gups"] is None and row["messages"] is None, record


@pytest.mark.parametrize("damage", [
    lambda r: r.pop("counters"),
    lambda r: r["counters"].update(steps=[0] * 8),
    lambda r: r["counters"].update(messages_sent="many"),
    lambda r: r["counters"].update(messages_sent=[1, 2]),
    lambda r: r["counters"].update(steps=[16, 15, 16, 16, 16, 16, 16, 16]),
    lambda r: r.pop("metrics"),
    lambda r: r["metrics"][2].update(samples=[65536, 1000, 65536]),
])
def test_a_record_missing_fields_gives_none_not_a_guess(damage):
    record = staged_record()
    damage(record)
    row = PLIMPTON_FIG1.rows([Measured(point(2), (record,))])[0]
    assert row["dims"] == 2
    assert row["messages"] is None or row["time_per_step_us"] is None


def test_time_per_step_is_the_median_repetition_over_its_steps():
    assert time_per_step_s(staged_record(times=(0.3, 0.1, 0.2), steps=10)) == pytest.approx(0.02)
    assert time_per_step_s(staged_record(times=(0.3, 0.1), steps=10)) == pytest.approx(0.02)
    with_text = staged_record()
    with_text["metrics"][1]["samples"] = ["slow", None, 0.4]
    assert time_per_step_s(with_text) == pytest.approx(0.4 / 16)


def test_the_newest_passing_record_of_the_point_is_used():
    old, new = staged_record(rate=1e6), staged_record(rate=4e6)
    rows = PLIMPTON_FIG1.rows([Measured(point(2), (old, new))])
    assert rows[0]["gups"] == pytest.approx(0.004)


def test_notes_set_the_messages_beside_the_papers_l():
    cube = staged_record(dims=3, grid="2x2x2", messages=[24] * 8, steps=8)
    notes = PLIMPTON_FIG1.notes([Measured(point(2), (staged_record(),)),
                                 Measured(point(3), (cube,)),
                                 Measured(point(1), ())])
    assert len(notes) == 2
    what, measured, paper = notes[0]
    assert what == "messages per step, d = 2"
    assert measured == "4 on a 4x2 grid (Σ(D_k − 1) = 4)"
    assert paper == "L = d(P^(1/d) − 1) = 3.66 at P = 8"
    assert notes[1][1].startswith("3 on a 2x2x2 grid (Σ(D_k − 1) = 3)")
    assert notes[1][2] == "L = d(P^(1/d) − 1) = 3 at P = 8"


def test_records_are_not_changed():
    record = staged_record()
    kept = copy.deepcopy(record)
    PLIMPTON_FIG1.rows([Measured(point(2), (record,))])
    PLIMPTON_FIG1.notes([Measured(point(2), (record,))])
    assert record == kept
