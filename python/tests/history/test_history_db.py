"""The history database: its schema version, its queries, what it refuses, and that a
run goes in whole or not at all, also with a writer killed half-way or two at once."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy
import pytest

from hpcprobe.errors import EXIT_IO_FAILURE, HpcprobeError
from hpcprobe.history import SCHEMA_VERSION, Figure, history_path, open_history
from hpcprobe.history.db import APPLICATION_ID, _identity, canonical_time

PYTHON_DIR = str(Path(__file__).resolve().parents[2])


def figure(host="n1", name="stream.star.openmp.star_triad_bandwidth", value=1e10,
           validated=True, time=None):
    return Figure(host, name, value, "B/s", validated, time)


def one_line_refusal(path, action=lambda history: None):
    with pytest.raises(HpcprobeError) as caught:
        with open_history(path) as history:
            action(history)
    assert caught.value.exit_status == EXIT_IO_FAILURE
    assert "\n" not in caught.value.message and str(path) in caught.value.message
    return caught.value.message


def test_a_new_history_has_the_schema_version_its_tables_and_wal(tmp_path):
    path = tmp_path / "deep" / "er" / "history.sqlite"
    open_history(path).close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 1
        assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        columns = [row[1] for row in connection.execute("PRAGMA table_info(figures)")]
    assert {"runs", "figures", "figures_screen"} <= names
    assert columns == ["run_id", "host", "figure", "value", "unit", "validated", "time"]
    open_history(path).close()  # opens again as is


def test_a_screen_figures_baseline_and_series_read_the_index_and_others_scan(tmp_path):
    """The partial index serves a screen figure's per-node queries (SQLite takes it only
    where the query's text names its condition); other figures are not in it."""
    path = tmp_path / "h.sqlite"
    plans = []
    with open_history(path) as history:
        history._connection.set_trace_callback(plans.append)
        history.baseline("n1", "screen.dgemm")
        history.series(host="n1", figure="screen.dgemm")
        history.series(host="n1", figure="dgemm.flop_rate")
    queries = [sql for sql in plans if sql.startswith("SELECT")]
    assert len(queries) == 3
    with sqlite3.connect(path) as connection:
        used = [" ".join(row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + sql))
                for sql in queries]
    assert "USING INDEX figures_screen" in used[0] and "USING INDEX figures_screen" in used[1]
    assert "figures_screen" not in used[2], used


def test_runs_series_and_baselines(tmp_path):
    with open_history(tmp_path / "h.sqlite") as history:
        for day, value in enumerate([10.0, 11.0, 12.0, 13.0]):
            stamp = f"2026-11-0{day + 1}T00:00:00Z"
            run = history.add_run("hpcprobe stream star", [
                figure("n1", value=value), figure("n2", value=value * 2, validated=day != 2),
                figure("n1", name="ra.star.serial.update_rate", value=1.0)],
                stamp, stamp, f"launch-{day}")
            assert run == day + 1
        assert history.run_count() == 4
        points = history.series(host="n1", figure="stream.star.openmp.star_triad_bandwidth")
        assert [point.value for point in points] == [10.0, 11.0, 12.0, 13.0]
        assert points[0].time == "2026-11-01T00:00:00.000Z" and points[0].validated
        assert len(history.series()) == 12
        assert len(history.series(figure="stream.*", glob=True)) == 8
        assert len(history.series(figure="stream.*")) == 0  # exact unless glob
        assert [p.value for p in history.series(host="n2", since="2026-11-03")] == [24, 26]
        assert history.baseline("n2", "stream.star.openmp.star_triad_bandwidth") == [20, 22, 26]
        assert history.baseline("n1", "stream.star.openmp.star_triad_bandwidth", last=2,
                                before="2026-11-04T00:00:00Z") == [11.0, 12.0]
        assert history.baseline("n9", "nothing") == []


def test_a_figure_keeps_its_own_time_and_bad_values_are_refused(tmp_path):
    with open_history(tmp_path / "h.sqlite") as history:
        history.add_run("c", [figure(time="2026-01-01T01:00:00+01:00")],
                        "2026-02-01T00:00:00Z", "2026-02-01T00:01:00Z")
        assert history.series()[0].time == "2026-01-01T00:00:00.000Z"
        history.add_run("c", [figure(value=numpy.float64(2.5)), figure(value=numpy.int64(3))],
                        "2026-02-02", "2026-02-02")
        assert [point.value for point in history.series()[1:]] == [2.5, 3.0]
        for bad in (float("nan"), float("inf"), True, "1"):
            with pytest.raises(HpcprobeError, match="not a finite number"):
                history.add_run("c", [figure(), figure(value=bad)], "2026-02-01", "2026-02-01")
        with pytest.raises(HpcprobeError, match="not a time"):
            history.add_run("c", [figure()], "yesterday", "2026-02-01")
        assert history.run_count() == 2  # nothing of the refused runs


def test_canonical_times_sort_as_times():
    assert canonical_time("2025-01-15T09:59:00Z") < canonical_time("2025-01-15T10:00:00.000Z")
    assert canonical_time("2026-11-29") == "2026-11-29T00:00:00.000Z"


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "h.sqlite"
    open_history(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 2")
    assert "schema 2, newer than this hpcprobe reads (1)" in one_line_refusal(path)


def test_an_sqlite_file_of_another_program_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE mine (x)")
    before = path.read_bytes()
    assert "not an hpcprobe history" in one_line_refusal(path)
    assert path.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"this is not a database\n" * 400)
    message = one_line_refusal(path)
    assert "not a readable hpcprobe history" in message and "move it away" in message


def test_a_history_corrupted_inside_is_refused_in_one_line(tmp_path):
    path = tmp_path / "h.sqlite"
    with open_history(path) as history:
        for run in range(20):
            history.add_run("c", [figure(f"node{n:03d}", value=run + n) for n in range(200)],
                            "2026-11-01", "2026-11-01")
    assert not Path(f"{path}-wal").exists()  # the last close checkpointed it
    data = bytearray(path.read_bytes())
    page = 4096
    data[2 * page:len(data) - page] = b"\xa5" * (len(data) - 3 * page)
    path.write_bytes(bytes(data))
    one_line_refusal(path, lambda history: history.series())


def test_a_directory_is_refused(tmp_path):
    assert "is a directory" in one_line_refusal(tmp_path)


def test_where_the_history_is():
    assert history_path({"HPCPROBE_HISTORY": "off"}) is None
    assert history_path({"HPCPROBE_HISTORY": ""}) is None
    assert history_path({"HPCPROBE_HISTORY": "/x/h.db"}) == Path("/x/h.db")
    assert history_path({"XDG_DATA_HOME": "/d", "HOME": "/h"}) == Path(
        "/d/hpcprobe/history.sqlite")
    assert history_path({"XDG_DATA_HOME": "rel", "HOME": "/h"}) == Path(
        "/h/.local/share/hpcprobe/history.sqlite")


def test_the_tests_never_write_the_users_history():
    chosen = history_path()
    assert chosen is not None and "hpcprobe-test-history-" in str(chosen)


# A writer: one whole run, then a second whose figures stop half-way (a marker file
# says so) until the test kills it.
KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from hpcprobe.history import Figure, open_history
    path, marker = sys.argv[1], Path(sys.argv[2])
    history = open_history(path)
    figures = [Figure(f"n{i}", "f", float(i), "s", True) for i in range(1000)]
    history.add_run("whole", figures, "2026-11-01", "2026-11-01")
    real = history._connection
    class Stalling:
        def __getattr__(self, name):
            return getattr(real, name)
        def executemany(self, sql, rows):
            def stall():
                for index, row in enumerate(rows):
                    if index == 500:
                        marker.touch()
                        time.sleep(600)
                    yield row
            return real.executemany(sql, stall())
    history._connection = Stalling()
    history.add_run("half", figures, "2026-11-02", "2026-11-02")
""")


def test_a_writer_killed_half_way_leaves_no_half_run(tmp_path):
    path, marker = tmp_path / "h.sqlite", tmp_path / "half-way"
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path), str(marker)],
                              env=env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert writer.poll() is None, "the writer ended before it was half-way"
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    with open_history(path) as history:
        assert history.run_count() == 1
        points = history.series()
    assert len(points) == 1000 and {point.run_id for point in points} == {1}


CONCURRENT_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from hpcprobe.history import Figure, open_history
    path, go, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    while not go.exists():
        time.sleep(0.01)
    for run in range(60):
        figures = [Figure(f"n{i}", name, float(run), "s", True) for i in range(40)]
        with open_history(path) as history:
            history.add_run(name, figures, "2026-11-01", "2026-11-01", f"{name}-{run}")
""")


def test_two_writers_at_once_lose_nothing(tmp_path):
    path, go = tmp_path / "h.sqlite", tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    writers = [subprocess.Popen([sys.executable, "-c", CONCURRENT_WRITER, str(path), str(go),
                                 name], env=env, stderr=subprocess.PIPE, text=True)
               for name in ("a", "b")]
    go.touch()  # both make the file and write at once
    for writer in writers:
        _, errors = writer.communicate(timeout=300)
        assert writer.returncode == 0, errors
    with open_history(path) as history:
        assert history.run_count() == 120
        for name in ("a", "b"):
            points = history.series(figure=name)
            assert len(points) == 60 * 40
            assert sorted({point.value for point in points}) == [float(r) for r in range(60)]


def test_the_identity_is_read_in_one_snapshot(tmp_path):
    """Another process makes the file between two of the reader's reads: the reader
    sees the file as it was before (empty), not half of each."""
    path = tmp_path / "h.sqlite"
    with sqlite3.connect(path) as connection:  # empty, in WAL, as a maker leaves it
        connection.execute("PRAGMA journal_mode = WAL")
    reader = sqlite3.connect(path, isolation_level=None)

    def make_it_meanwhile(statement):
        if statement.startswith("PRAGMA user_version"):
            reader.set_trace_callback(None)
            open_history(path).close()
    reader.set_trace_callback(make_it_meanwhile)
    try:
        assert _identity(reader) == (0, 0, 0)
        assert _identity(reader) == (APPLICATION_ID, SCHEMA_VERSION, 3)  # 2 tables, 1 index
    finally:
        reader.close()


MAKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from hpcprobe.history import Figure, open_history
    path, go = sys.argv[1], Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.001)
    with open_history(path) as history:
        history.add_run("x", [Figure("n", "f", 1.0, "s", True)], "2026-11-01", "2026-11-01")
""")


def test_processes_making_the_file_at_once_all_take_it_for_a_history(tmp_path):
    """A reader that saw the file half-made (its id before, its tables after the maker's
    commit) took it for another program's: the identity is read in one snapshot."""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    for round_ in range(5):
        path, go = tmp_path / f"h{round_}.sqlite", tmp_path / f"go{round_}"
        makers = [subprocess.Popen([sys.executable, "-c", MAKER, str(path), str(go)], env=env,
                                   stderr=subprocess.PIPE, text=True) for _ in range(3)]
        time.sleep(0.3)
        go.touch()
        for maker in makers:
            _, errors = maker.communicate(timeout=120)
            assert maker.returncode == 0, errors
        with open_history(path) as history:
            assert history.run_count() == 3
