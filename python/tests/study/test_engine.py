"""`hpcprobe study` on a made-up paper and study (study_fixture.py): the plan, a run and
its table beside the paper's rows, resuming, the budget cut, bad input."""

import json

import pytest

import study_fixture
from hpcprobe.cli import main
from hpcprobe.study.declare import Point
from hpcprobe.study.engine import PlannedPoint, budget_cut
from hpcprobe.study.state import STATE_FILE


@pytest.fixture
def study_dir(monkeypatch, tmp_path):
    (tmp_path / "papers").mkdir()
    study_fixture.install(monkeypatch, tmp_path / "papers")
    return tmp_path / "out"


def _run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _table(out_dir):
    return json.loads((out_dir / "study-table.json").read_text())


def test_plan_names_each_launch_and_launches_nothing(capsys, study_dir):
    status, out, _ = _run(capsys, "study", "test-table9", "--plan", "--np", "1,2,4",
                          "--out", str(study_dir))
    assert status == 0
    assert "P1" in out and "P4" in out and "ra single" in out
    assert not study_dir.exists()


def test_a_run_prints_the_table_beside_the_papers_rows_and_writes_its_files(capsys,
                                                                           study_dir):
    status, out, err = _run(capsys, "study", "test-table9", "--scale", "tiny", "--out",
                            str(study_dir), "--quiet")
    assert status == 0, err
    table = _table(study_dir)
    assert [row["procs"] for row in table["rows"]] == [1, 2]
    assert all(row["gups"] > 0 for row in table["rows"])
    assert [point["status"] for point in table["points"]] == ["done", "done"]
    words = " ".join(out.split())  # rich wraps a title to its table's width
    assert "the paper's rows, made-up machine" in words and "3.5" in out
    assert "n/a" in out  # the paper-only column
    assert "points: 2 (paper: 1)" in out
    html = (study_dir / "report.html").read_text()
    assert "test-table9: Table 9" in html       # the study's section, first
    assert "data:image/svg+xml" in html          # its figure
    assert (study_dir / "report-data" / "test-table9-table-9.csv").is_file()


def test_a_second_run_resumes_and_launches_only_what_is_missing(capsys, study_dir):
    assert _run(capsys, "study", "test-table9", "--scale", "tiny", "--out", str(study_dir),
                "--quiet")[0] == 0
    state = json.loads((study_dir / STATE_FILE).read_text())
    first_ids = state["points"][0]["launch_ids"]
    # As if the study had been killed during its second point.
    state["points"][1].update(status="stopped", launch_ids=[])
    (study_dir / STATE_FILE).write_text(json.dumps(state))
    status, _, err = _run(capsys, "study", "test-table9", "--scale", "tiny", "--out",
                          str(study_dir), "--quiet")
    assert status == 0
    assert "resuming" in err and "1 of 2 points" in err
    again = json.loads((study_dir / STATE_FILE).read_text())
    assert again["points"][0]["launch_ids"] == first_ids
    assert len(again["points"][1]["launch_ids"]) == 1
    assert [row["gups"] is not None for row in _table(study_dir)["rows"]] == [True, True]


def test_restart_ignores_the_earlier_run(capsys, study_dir):
    _run(capsys, "study", "test-table9", "--scale", "tiny", "--out", str(study_dir), "--quiet")
    before = json.loads((study_dir / STATE_FILE).read_text())["points"][0]["launch_ids"]
    _run(capsys, "study", "test-table9", "--scale", "tiny", "--out", str(study_dir), "--quiet",
         "--restart")
    after = json.loads((study_dir / STATE_FILE).read_text())["points"][0]["launch_ids"]
    assert before != after


def test_a_corrupted_state_file_starts_afresh(capsys, study_dir):
    study_dir.mkdir()
    (study_dir / STATE_FILE).write_text("{not json")
    status, _, err = _run(capsys, "study", "test-table9", "--scale", "tiny", "--out",
                          str(study_dir), "--quiet")
    assert status == 0 and "resuming" not in err


def _planned(*predictions):
    return [PlannedPoint(Point(index, (), key=f"p{index}"), seconds)
            for index, seconds in enumerate(predictions)]


def test_the_budget_cut_leaves_out_what_does_not_fit_in_order():
    cut = budget_cut(_planned(10.0, 30.0, 5.0, None), 20.0)
    assert set(cut) == {"p1"}
    assert "predicted 30 s, 10 s of the 20 s budget left" == cut["p1"]
    assert budget_cut(_planned(10.0, 30.0), 20.0, done=("p1",)) == {}


def test_a_run_over_budget_names_the_points_it_left_out(capsys, study_dir):
    status, _, err = _run(capsys, "study", "test-table9", "--scale", "tiny", "--np", "1,2",
                          "--time-budget", "0.5", "--out", str(study_dir), "--quiet")
    assert status == 0  # a budget is the user's choice, not a failure
    points = _table(study_dir)["points"]
    assert [point["status"] for point in points] == ["left out", "left out"]
    assert "point P1: left out: predicted" in err
    assert "more than the whole 0.5 s budget" in err
    assert not (study_dir / "results.jsonl").exists()


@pytest.mark.parametrize("argv, expected", [
    (["study", "test-tabel9"], "no study named 'test-tabel9' (`hpcprobe study list` names "
                               "1); did you mean 'test-table9'?"),
    (["study", "test-table9", "--np", "0"], "--np takes a comma list of whole numbers"),
    (["study", "test-table9", "--nodes", "2,4"], "--nodes is for the interconnect studies"),
    (["study", "test-table9", "--scale", "huge"], "unknown scale 'huge'"),
    (["study", "test-table9", "--ppn", "2"], "--ppn is for --cluster"),
    (["study", "test-table9", "--np", "2", "--nodes", "2"], "give --np (rank counts) "
     "or --nodes (node counts of --ppn ranks each), not both"),
])
def test_bad_input_is_one_line(capsys, monkeypatch, study_dir, argv, expected):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)  # --ppn is taken inside Slurm
    status, _, err = _run(capsys, *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2 and len(lines) == 1 and expected in lines[0], err


def test_a_point_is_left_out_when_the_points_run_so_far_say_it_will_not_fit():
    from types import SimpleNamespace

    from hpcprobe.study.engine import StudyRun
    run = SimpleNamespace(ratios=[], left_s=lambda: 30.0,
                          state=SimpleNamespace(budget_s=100.0))
    entry = _planned(20.0)[0]
    assert StudyRun._too_long(run, entry) == ""
    run.ratios = [3.0, 4.0, 2.0]  # the points so far took 3x their prediction (median)
    assert StudyRun._too_long(run, entry) == (
        "predicted 60 s (the model x 3: the points so far took 3x their predictions, the "
        "last 2x), 30 s of the 100 s budget left")
    run.ratios = [1.0, 1.0, 1.25]  # the last point's ratio, higher, rules
    assert StudyRun._too_long(run, entry) == ""
    run.ratios = [1.0, 1.0, 2.0]
    assert StudyRun._too_long(run, entry).startswith("predicted 40 s (the model x 2:")


def test_ranks_beyond_the_cores_stretch_the_prediction():
    from hpcprobe.study.engine import predict_point
    from hpcprobe.suite.step import SuiteStep
    point = Point(8, (SuiteStep("ra", "single", ("--table-log2", "12"), 60.0, ranks=8),))
    cache = {}
    alone = predict_point(point, cache, 1)
    assert predict_point(point, cache, 1, cores=2) == pytest.approx(alone * 4)
    assert predict_point(point, cache, 1, cores=16) == pytest.approx(alone)


def test_threads_of_a_rank_stretch_the_prediction_too():
    from hpcprobe.study.engine import predict_point, threads_of
    from hpcprobe.suite.step import SuiteStep
    plain = SuiteStep("ra", "mpi", ("--table-log2", "12"), 60.0, ranks=4)
    threaded = SuiteStep("ra", "mpi", ("--table-log2", "12", "--threads", "2"), 60.0, ranks=4)
    assert (threads_of(plain), threads_of(threaded)) == (1, 2)
    cache = {}
    alone = predict_point(Point(4, (plain,)), cache, 1)
    assert predict_point(Point(4, (threaded,)), cache, 1, cores=2) == pytest.approx(alone * 4)
    assert predict_point(Point(4, (threaded,)), cache, 1, cores=8) == pytest.approx(alone)


def test_an_emulated_clusters_ranks_share_this_machines_cpus():
    # garg-table4 on 4 emulated hosts ran over its budget: its 8 ranks of 2 threads on 2
    # CPUs were predicted as if each host had cores of its own.
    from hpcprobe.study.declare import Study, StudyContext
    from hpcprobe.study.engine import plan_points
    from hpcprobe.suite.step import SuiteStep
    step = SuiteStep("ra", "mpi", ("--table-log2", "12", "--threads", "2"), 60.0, ranks=8)
    study = Study("test-shared", "999", "table9", lambda context: [Point(8, (step,))],
                  lambda measured: [], 60.0, interconnect=True)
    own = plan_points(study, StudyContext("default", cores=2, cluster=True), 1)
    shared = plan_points(study, StudyContext("default", cores=2, cluster=True,
                                             cluster_cpus=2.0), 1)
    assert shared[0].predicted_s == pytest.approx(own[0].predicted_s * 8)


def test_nodes_give_an_interconnect_studys_rank_counts(capsys):
    # docs/studies.md: ranks = nodes x --ppn (1 outside a cluster: one rank a node of the
    # allocation); --nodes was once read by bhatele's studies only, others ignored it.
    status, out, _ = _run(capsys, "study", "plimpton-table2", "--nodes", "3,5", "--plan")
    assert status == 0
    ranks = [line.split("│")[3].strip() for line in out.splitlines()
             if "ra mpi hypercube" in line]
    assert ranks == ["3", "5"]
    from hpcprobe.study.declare import StudyContext
    context = StudyContext("default", nodes=(2, 4), ppn=3, cluster=True)
    assert context.rank_counts((1, 2)) == (6, 12)
    assert StudyContext("default", nodes=(2, 4)).rank_counts((1, 2)) == (2, 4)


@pytest.mark.parametrize("races, status, point", [(True, 0, "done"), (False, 3, "failed")])
def test_a_point_measuring_races_counts_a_failed_validation_as_measured(
        capsys, monkeypatch, tmp_path, races, status, point):
    # garg-table2a failed in CI: unsynchronised threads on a 2^14 table lost 244 words,
    # over the 1 % rule, and the study called its point failed though the lost words are
    # what it measures. 500 lost updates of 4 x 2^12 fail the rule every time.
    from hpcprobe.study.declare import Study
    from hpcprobe.suite.step import SuiteStep
    step = SuiteStep("ra", "mpi", ("--algo", "shared", "--threads", "2", "--sync", "none",
                                   "--table-log2", "12"), 60.0, ranks=1)
    study = Study("test-table9", "000", "table9",
                  lambda context: [Point(1, (step,), key="P1", races=races)],
                  lambda measured: [{"procs": 1, "gups": None}], budget_s=120.0)
    (tmp_path / "papers").mkdir()
    study_fixture.install(monkeypatch, tmp_path / "papers", study)
    monkeypatch.setenv("HPCPROBE_INJECT_FAULT", "lose:500")
    out_dir = tmp_path / "out"
    got, _, err = _run(capsys, "study", "test-table9", "--out", str(out_dir), "--quiet")
    assert got == status, err
    assert "failed validation" in err  # the launch still says so
    assert [p["status"] for p in _table(out_dir)["points"]] == [point]
    record = json.loads((out_dir / "results.jsonl").read_text().splitlines()[-1])
    assert record["validation"]["verdict"] == "failed"  # kept as it was measured
