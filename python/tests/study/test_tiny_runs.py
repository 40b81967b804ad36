"""Every study runs at --scale tiny (the real bench, 1-2 ranks) and measures what its
table shows; a study killed outright resumes where it stopped."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import run_hpcprobe
from hpcprobe.study.declare import StudyContext
from hpcprobe.study.registry import all_studies, item_for

STUDIES = all_studies()


@pytest.mark.parametrize("study", STUDIES, ids=[study.name for study in STUDIES])
def test_the_study_runs_at_tiny_scale(study, tmp_path):
    out = tmp_path / "out"
    completed = run_hpcprobe("study", study.name, "--scale", "tiny", "--out", str(out),
                             "--quiet", timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    table = json.loads((out / "study-table.json").read_text())
    assert all(point["status"] == "done" for point in table["points"]), table["points"]
    measured = [column.key for column in item_for(study).columns
                if column.source == "measured"]
    assert any(row.get(key) is not None for row in table["rows"] for key in measured), \
        f"{study.name} measured none of {measured}"
    assert (out / "report.html").is_file()


def _two_point_study():
    for study in STUDIES:
        if not study.interconnect and len(study.points(StudyContext("tiny"))) >= 2:
            return study
    raise AssertionError("no study has two points at tiny scale")


def test_a_killed_study_resumes_where_it_stopped(tmp_path):
    study, out = _two_point_study(), tmp_path / "out"
    argv = [sys.executable, "-m", "hpcprobe", "study", study.name, "--scale", "tiny",
            "--out", str(out), "--quiet"]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    state_path, deadline = out / "study.json", time.monotonic() + 240
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if state_path.is_file() and '"done"' in state_path.read_text():
                break
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the launcher and its ranks with it
        process.wait()
    state = json.loads(state_path.read_text())
    done = [point["key"] for point in state["points"] if point["status"] == "done"]
    assert done, "the study was killed before its first point was written"
    completed = run_hpcprobe("study", study.name, "--scale", "tiny", "--out", str(out),
                             "--quiet", timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    # A point's launch takes far longer than the 50 ms between looks at study.json.
    assert len(done) < len(state["points"]), "the study ended before it was killed"
    assert f"resuming {out}: {len(done)} of" in completed.stderr
    after = json.loads(state_path.read_text())
    kept = {point["key"]: point["launch_ids"] for point in state["points"]
            if point["status"] == "done"}
    assert all(point["launch_ids"] == kept[point["key"]] for point in after["points"]
               if point["key"] in kept)
