"""`ra mpi --algo staged --dims d` (Plimpton et al., Figure 1: the all2all in d synchronous
stages over a d-dimensional grid of the ranks) with the real hpcprobe-bench under the real
mpiexec: the final table equals the serial one bit for bit for P = 1..8 and every
d = 1..floor(log2 P), and the per-rank counters match the grid's message and volume
counts. Up to 8 ranks run oversubscribed on 2 cores."""

import json
import math

import pytest
from integration import dump_table, run_bench

from hpcprobe.families.ra import model

COUNT_TABLE_LOG2 = 18
LOOKAHEAD = 1024
VOLUME_TOLERANCE = 0.1  # the owners of random updates vary from step to step


def allowed_dims(ranks):
    return range(1, max(1, int(math.log2(ranks))) + 1)


MATRIX = [(ranks, dims) for ranks in range(1, 9) for dims in allowed_dims(ranks)]
# MPI_Dims_create's near-equal factors, largest first (d = 1: the list of P ranks).
SHAPES = {(4, 2): [2, 2], (5, 2): [5, 1], (6, 2): [3, 2], (7, 2): [7, 1], (8, 2): [4, 2],
          (8, 3): [2, 2, 2]}


@pytest.fixture(scope="module")
def serial_tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    return {rng: dump_table(folder / f"{rng}.bin", "single", 1, "--rng", rng)
            for rng in ("poly", "lcg")}


def staged_record(tmp_path, ranks, *options):
    out = tmp_path / f"staged-{ranks}.jsonl"
    completed = run_bench("ra", "mpi", "--algo", "staged", "--quiet", "--out", str(out),
                          *options, np=ranks, timeout=120)
    assert completed.returncode == 0, completed.stderr
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["algorithm"] == "staged"
    assert record["validation"]["verdict"] == "passed"
    assert record["validation"]["error"] == 0
    return record


def test_the_matrix_covers_every_allowed_dimension():
    assert len(MATRIX) == 14
    assert (8, 3) in MATRIX and (7, 2) in MATRIX and (7, 3) not in MATRIX


@pytest.mark.parametrize("ranks,dims", MATRIX)
def test_final_table_is_the_serial_table(tmp_path, serial_tables, ranks, dims):
    out = tmp_path / "records.jsonl"
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", "staged", "--dims",
                        str(dims), "--out", str(out))
    assert dumped == serial_tables["poly"]
    record = json.loads(out.read_text().splitlines()[-1])
    shape = [int(size) for size in record["parameters"]["grid"].split("x")]
    assert record["parameters"]["dims"] == dims
    assert shape == SHAPES.get((ranks, dims), [ranks])
    assert record["counters"]["stages"] == [sum(size > 1 for size in shape)] * ranks


@pytest.mark.parametrize("ranks,options", [
    (6, ("--rng", "lcg", "--owner", "predict", "--dims", "2")),
    (8, ("--grid", "2x4")),
    (6, ("--grid", "1x6")),
    (3, ("--lookahead", "1", "--allow-noncompliant")),
    (5, ("--lookahead", "5", "--allow-noncompliant", "--dims", "2")),
    (4, ("--lookahead", "2048", "--allow-noncompliant", "--dims", "2")),
])
def test_other_rules_grids_and_lookaheads_stay_exact(tmp_path, serial_tables, ranks, options):
    rng = "lcg" if "lcg" in options else "poly"
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", "staged", *options)
    assert dumped == serial_tables[rng]


def test_default_dims_is_the_torus_default(tmp_path):
    """Without --dims: min(3, log2 P), as torus and pipeline."""
    record = staged_record(tmp_path, 4, "--table-log2", "14")
    assert record["parameters"]["dims"] == 2 and record["parameters"]["grid"] == "2x2"


def per_step(record, counter):
    counters = record["counters"]
    return [value / steps for value, steps in zip(counters[counter], counters["steps"])]


@pytest.mark.parametrize("ranks,dims", [(2, 1), (4, 1), (4, 2), (6, 2), (8, 1), (8, 2),
                                        (8, 3)])
def test_counts_are_the_grids(tmp_path, ranks, dims):
    """A step sends one message to every other rank of each line, Σ (D_k − 1) (P − 1 at
    d = 1, log2 P on a grid of 2s), and moves the share (D_k − 1)/D_k of Q in each stage."""
    record = staged_record(tmp_path, ranks, "--dims", str(dims), "--rng", "lcg",
                           "--table-log2", str(COUNT_TABLE_LOG2), "--lookahead",
                           str(LOOKAHEAD))
    shape = [int(size) for size in record["parameters"]["grid"].split("x")]
    messages = model.grid_shape_messages(shape)
    assert per_step(record, "messages_sent") == [messages] * ranks
    assert record["counters"]["partners"] == [messages] * ranks
    if dims == 1:
        assert messages == model.alltoall_messages(ranks)
    if shape == [2] * dims:
        assert messages == model.hypercube_messages(ranks)
    words = sum(per_step(record, "bytes_sent")) / 8 / ranks
    assert words == pytest.approx(model.grid_shape_words(shape, LOOKAHEAD),
                                  rel=VOLUME_TOLERANCE)
    assert max(record["counters"]["max_pending"]) >= LOOKAHEAD


def test_time_limit_stops_every_rank_together(tmp_path):
    record = staged_record(tmp_path, 4, "--dims", "2", "--table-log2", "22",
                           "--time-limit", "0.05")
    executed = record["counters"]["updates_executed"]
    assert 0 < executed < 4 << 22
    assert any("--time-limit" in note for note in record["notes"])
    assert len(set(record["counters"]["steps"])) == 1


@pytest.mark.parametrize("ranks,options,expected", [
    (4, ("--dims", "3"), "--dims 3 is more than log2 of the 4 ranks; allowed: --dims from 1 "
                         "to 2"),
    (3, ("--dims", "2"), "allowed: --dims from 1 to 1"),
    (2, ("--dims", "0"), "--dims"),
    (2, ("--dims", "9"), "--dims"),
    (4, ("--grid", "2x3"), "--grid 2x3 holds 6 ranks, but 4 are running"),
    (2, ("--dims", "1", "--overlap", "on"), "--overlap applies to --algo hypercube|torus"),
    (2, ("--dims", "1", "--mods", "none"), "--mods applies to --algo hypercube only"),
])
def test_bad_input_is_one_line_and_exit_2(ranks, options, expected):
    completed = run_bench("ra", "mpi", "--algo", "staged", "--table-log2", "12", *options,
                          np=ranks)
    assert completed.returncode == 2
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], completed.stderr


def test_dims_is_refused_by_the_algorithms_without_a_grid():
    completed = run_bench("ra", "mpi", "--algo", "alltoall", "--dims", "1", "--table-log2",
                          "12", np=2)
    assert completed.returncode == 2
    assert "--dims applies to --algo torus|staged|pipeline only" in completed.stderr
