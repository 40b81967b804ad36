"""The optimised `ra mpi` algorithms with the real hpcprobe-bench under the real mpiexec:
every final table equals the serial one bit for bit, on powers of two and not, and the
per-rank counters match the analytic message and volume counts (Plimpton et al.,
section 2; Garg & Sabharwal, section 4). Up to 64 ranks run oversubscribed on 2 cores."""

import json
import math

import pytest
from integration import dump_table, run_bench

from hpcprobe.families.ra import model

ALGORITHMS = ("alltoall", "hypercube", "torus")
COUNT_RANKS = (2, 3, 4, 5, 6, 7, 8, 16, 27, 64)
COUNT_TABLE_LOG2 = 18
LOOKAHEAD = 1024
# Relative tolerance on volumes: the owners of random updates vary from step to step.
VOLUME_TOLERANCE = 0.1


@pytest.fixture(scope="module")
def serial_tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    return {rng: dump_table(folder / f"{rng}.bin", "single", 1, "--rng", rng)
            for rng in ("poly", "lcg")}


def bench_record(tmp_path, np, *options, timeout=120):
    out = tmp_path / f"records-{np}.jsonl"
    completed = run_bench("ra", "mpi", "--quiet", "--out", str(out), *options, np=np,
                          timeout=timeout)
    assert completed.returncode == 0, completed.stderr
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["validation"]["verdict"] == "passed"
    assert record["validation"]["error"] == 0
    return record


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 5, 7])
def test_final_table_is_the_serial_table(tmp_path, serial_tables, algorithm, ranks):
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", algorithm)
    assert dumped == serial_tables["poly"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_lcg_with_predicted_owners_matches_serial(tmp_path, serial_tables, algorithm):
    dumped = dump_table(tmp_path / "t.bin", "mpi", 6, "--algo", algorithm, "--rng", "lcg",
                        "--owner", "predict")
    assert dumped == serial_tables["lcg"]


@pytest.mark.parametrize("mods", ["none", "prepost", "late-update", "late-wait", "isend",
                                  "prepost,late-wait", "all"])
@pytest.mark.parametrize("ranks", [3, 4])
def test_every_hypercube_switch_keeps_the_table_exact(tmp_path, serial_tables, mods, ranks):
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", "hypercube", "--mods", mods)
    assert dumped == serial_tables["poly"]


@pytest.mark.parametrize("ranks,grid", [(4, "2x2"), (4, "4"), (6, "3x2"), (6, "2x3"),
                                        (6, "1x6"), (8, "2x2x2")])
def test_torus_grids_keep_the_table_exact(tmp_path, serial_tables, ranks, grid):
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", "torus", "--grid", grid)
    assert dumped == serial_tables["poly"]


@pytest.mark.parametrize("lookahead", ["1", "5", "2048"])
def test_small_and_large_lookahead_stay_exact(tmp_path, serial_tables, lookahead):
    for algorithm in ALGORITHMS:
        dumped = dump_table(tmp_path / "t.bin", "mpi", 3, "--algo", algorithm, "--lookahead",
                            lookahead, "--allow-noncompliant")
        assert dumped == serial_tables["poly"]


OVERLAPPED = ("hypercube", "torus", "pipeline")


@pytest.mark.parametrize("lookahead", [1, 5, 1024])
@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("algorithm", OVERLAPPED)
def test_overlapped_forms_are_exact_and_keep_the_lookahead(tmp_path, serial_tables, algorithm,
                                                           ranks, lookahead):
    """--overlap on: the final table is the serial one bit for bit, and the look-ahead in
    use (this rank's updates in batches or buckets not yet through) never passed Q."""
    out = tmp_path / "records.jsonl"
    dumped = dump_table(tmp_path / "t.bin", "mpi", ranks, "--algo", algorithm, "--overlap",
                        "on", "--lookahead", str(lookahead), "--out", str(out))
    assert dumped == serial_tables["poly"]
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["parameters"]["overlap"] == "on"
    assert record["validation"]["error"] == 0
    in_use = record["counters"]["max_lookahead"]
    assert len(in_use) == ranks and max(in_use) <= lookahead
    assert min(in_use) >= 1  # every rank generated, so the counter moved


@pytest.mark.parametrize("algorithm", OVERLAPPED)
def test_overlap_off_is_recorded_and_exact(tmp_path, serial_tables, algorithm):
    out = tmp_path / "records.jsonl"
    dumped = dump_table(tmp_path / "t.bin", "mpi", 3, "--algo", algorithm, "--overlap", "off",
                        "--out", str(out))
    assert dumped == serial_tables["poly"]
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["parameters"]["overlap"] == "off"
    assert "max_lookahead" not in record["counters"]


@pytest.mark.parametrize("overlap", ["on", "off"])
@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_hypercube_records_its_time_in_mpi_calls(tmp_path, overlap, ranks):
    """exchange_ns: per rank, the time inside the exchange's MPI calls (waiting for a
    partner included); above nothing where messages flow, and within the run's time.
    Only the hypercube keeps it."""
    record = bench_record(tmp_path, ranks, "--algo", "hypercube", "--overlap", overlap,
                          "--table-log2", "18")
    run_ns = next(m for m in record["metrics"] if m["name"] == "time")["samples"][-1] * 1e9
    in_mpi = record["counters"]["exchange_ns"]
    assert len(in_mpi) == ranks
    assert all(0 <= ns <= run_ns for ns in in_mpi), (in_mpi, run_ns)
    if ranks > 1:
        assert min(in_mpi) > 0
    torus = bench_record(tmp_path, ranks, "--algo", "torus", "--table-log2", "18")
    assert "exchange_ns" not in torus["counters"]


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
def test_ceiling_restores_every_word_and_fails_when_words_are_wrong(tmp_path, ranks):
    """ra ceiling: each rank's part, updated twice, is back to its indices (error 0); a
    corrupted table is found and the verdict is failed, never passed."""
    out = tmp_path / "ceiling.jsonl"
    completed = run_bench("ra", "ceiling", "--quiet", "--table-log2", "16", "--out", str(out),
                          np=ranks)
    assert completed.returncode == 0, completed.stderr
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["variant"] == "ceiling"
    assert record["parameters"]["table_scope"] == "global"
    assert record["validation"]["verdict"] == "passed"
    assert record["validation"]["error"] == 0
    assert record["counters"]["updates_executed"] == 4 << 16
    bad = run_bench("ra", "ceiling", "--quiet", "--table-log2", "16", "--out", str(out),
                    np=ranks, extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:5000"})
    assert bad.returncode != 0
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["validation"]["verdict"] == "failed"
    assert record["validation"]["error"] == 5000


def test_time_limit_stops_every_rank_together(tmp_path):
    for algorithm in ALGORITHMS:
        record = bench_record(tmp_path, 3, "--algo", algorithm, "--table-log2", "22",
                              "--time-limit", "0.05")
        executed = record["counters"]["updates_executed"]
        assert 0 < executed < 4 << 22
        assert any("--time-limit" in note for note in record["notes"])


def per_step(record, counter):
    counters = record["counters"]
    return [value / steps for value, steps in zip(counters[counter], counters["steps"])]


def counted(tmp_path, algorithm, ranks):
    return bench_record(tmp_path, ranks, "--algo", algorithm, "--rng", "lcg",
                        "--table-log2", str(COUNT_TABLE_LOG2), "--lookahead", str(LOOKAHEAD))


@pytest.mark.parametrize("ranks", COUNT_RANKS)
def test_alltoall_counts(tmp_path, ranks):
    record = counted(tmp_path, "alltoall", ranks)
    command_line = record["metadata"]["command_line"]
    assert command_line[command_line.index("--algo") + 1] == "alltoall"
    assert record["counters"]["partners"] == [ranks - 1] * ranks
    assert per_step(record, "messages_sent") == [model.alltoall_messages(ranks)] * ranks
    words = sum(per_step(record, "bytes_sent")) / 8 / ranks
    assert words == pytest.approx(model.alltoall_words(ranks, LOOKAHEAD), rel=VOLUME_TOLERANCE)


@pytest.mark.parametrize("ranks", COUNT_RANKS)
def test_hypercube_counts(tmp_path, ranks):
    record = counted(tmp_path, "hypercube", ranks)
    stages = record["counters"]["stages"]
    low, high = math.floor(math.log2(ranks)), math.ceil(math.log2(ranks))
    assert all(low <= n <= high for n in stages)
    messages = per_step(record, "messages_sent")
    # A step is a batch; pipelined (the default), the batch leaves room for the applier in
    # the look-ahead and lag_ticks x stages ticks at the end drain the pipe, each sending
    # its (empty) messages but the last lag_ticks.
    parameters = record["parameters"]
    batch, lag = parameters["batch"], parameters["lag_ticks"]
    assert (batch, lag) == ((LOOKAHEAD - 128, 2) if parameters["overlap"] == "on"
                            else (LOOKAHEAD, 0))
    sending_ticks = 1 + lag * (max(stages) - 1) / record["counters"]["steps"][0]
    if ranks & (ranks - 1) == 0:
        assert messages == [pytest.approx(model.hypercube_messages(ranks) * sending_ticks)] * ranks
        words = sum(per_step(record, "bytes_sent")) / 8 / ranks
        assert words == pytest.approx(model.hypercube_words(ranks, batch),
                                      rel=VOLUME_TOLERANCE)
    else:
        # An odd partition costs the lower half two messages (Plimpton et al.).
        assert all(n <= m / sending_ticks <= 2 * n for m, n in zip(messages, stages))


@pytest.mark.parametrize("ranks", COUNT_RANKS)
def test_torus_counts(tmp_path, ranks):
    record = counted(tmp_path, "torus", ranks)
    shape = [int(size) for size in record["parameters"]["grid"].split("x")]
    assert math.prod(shape) == ranks
    assert record["counters"]["partners"] == [model.grid_shape_messages(shape)] * ranks
    assert record["counters"]["stages"] == [sum(size > 1 for size in shape)] * ranks
    if len(shape) == 3 and len(set(shape)) == 1:  # a cube: d(P^(1/d) - 1)
        assert model.grid_shape_messages(shape) == pytest.approx(model.grid_messages(ranks, 3))
    # Every update moves along axis i with probability (s_i - 1)/s_i.
    updates_per_rank = 4 * (1 << COUNT_TABLE_LOG2) / ranks
    words = sum(record["counters"]["bytes_sent"]) / 8 / ranks
    expected = updates_per_rank * model.grid_shape_words(shape, 1)
    assert words == pytest.approx(expected, rel=VOLUME_TOLERANCE)
    assert max(record["counters"]["max_pending"]) > 0


@pytest.mark.parametrize("options,expected", [
    (("--algo", "torus", "--grid", "2x3"), "--grid 2x3 holds 6 ranks, but 4 are running"),
    (("--algo", "torus", "--dims", "3"), "allowed: --dims from 1 to 2"),
    (("--algo", "torus", "--grid", "2xx"), "is not a grid"),
    (("--lookahead", "0"), "an integer from 1 to 32768"),
    (("--lookahead", "32769", "--allow-noncompliant"), "an integer from 1 to 32768"),
    (("--lookahead", "2048"), "add --allow-noncompliant"),
    (("--algo", "hypercube", "--owner", "predict", "--table-log2", "4"), "Theorem 4.1"),
    (("--algo", "alltoall", "--grid", "2x2"),
     "--grid applies to --algo torus|staged|pipeline only"),
    (("--algo", "reference", "--mods", "none"), "--mods applies to --algo hypercube only"),
    (("--algo", "alltoall", "--overlap", "on"), "--overlap applies to --algo hypercube|torus"),
    (("--algo", "torus", "--overlap", "half"), "--overlap"),
    (("--algo", "hypercube", "--mods", "prepost,fast"), "--mods: unknown item 'fast'"),
    (("--algo", "hypercub",), "did you mean 'hypercube'?"),
])
def test_bad_input_is_one_line_and_exit_2(options, expected):
    completed = run_bench("ra", "mpi", "--table-log2", "12", *options, np=4)
    assert completed.returncode == 2
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], completed.stderr
