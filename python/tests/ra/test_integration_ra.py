"""hpcprobe with the real hpcprobe-bench under the real mpiexec (1-4 ranks; 4 ranks on
2 cores are oversubscribed, which MPICH handles)."""

import pytest
from helpers import read_jsonl, run_hpcprobe, stderr_lines
from integration import dump_table, only_record, run_bench

from hpcprobe.results import read_records

TABLE_WORDS = 1 << 14


@pytest.fixture(scope="module")
def single_dumps(tmp_path_factory):
    """Final tables of `ra single` on one rank, per generator: the reference sequence."""
    folder = tmp_path_factory.mktemp("dumps")
    return {rng: dump_table(folder / f"single-{rng}.bin", "single", 1, "--rng", rng)
            for rng in ("poly", "lcg")}


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_ra_mpi_passes_and_matches_the_serial_table(tmp_path, single_dumps, ranks):
    argv = ["ra", "mpi", "--np", str(ranks), "--table-log2", "14", "--out", str(tmp_path)]
    completed = run_hpcprobe(*argv)
    assert completed.returncode == 0, completed.stderr
    record = only_record(tmp_path / "results.jsonl")
    assert record["validation"]["verdict"] == "passed"
    assert record["validation"]["error"] == 0
    assert record["layout"]["ranks"] == ranks
    assert record["parameters"]["table_words"] == TABLE_WORDS
    assert record["metadata"]["user_command_line"] == ["hpcprobe", *argv]
    assert "GUPS" in completed.stdout
    dumped = dump_table(tmp_path / "mpi.bin", "mpi", ranks)
    assert len(dumped) == 8 * TABLE_WORDS
    assert dumped == single_dumps["poly"]


def test_ra_star_reports_per_rank_rates(tmp_path):
    completed = run_hpcprobe("ra", "star", "--np", "3", "--table-log2", "12", "--repeat", "2",
                             "--out", str(tmp_path), "--quiet")
    assert completed.returncode == 0, completed.stderr
    record = only_record(tmp_path / "results.jsonl")
    assert record["validation"]["verdict"] == "passed"
    assert record["layout"]["ranks"] == 3
    assert record["value"]["metric"] == "update_rate_per_rank_mean"
    metrics = {metric["name"]: metric for metric in record["metrics"]}
    for name in ("update_rate_per_rank_mean", "update_rate_per_rank_min",
                 "update_rate_per_rank_max", "update_rate_sum"):
        assert len(metrics[name]["samples"]) == 2
        assert all(sample > 0 for sample in metrics[name]["samples"])
    low, high = metrics["update_rate_per_rank_min"], metrics["update_rate_per_rank_max"]
    assert all(a <= b for a, b in zip(low["samples"], high["samples"]))


def test_lcg_single_and_mpi_pass_and_agree(tmp_path, single_dumps):
    for variant, ranks in (("single", "1"), ("mpi", "3")):
        completed = run_hpcprobe("ra", variant, "--np", ranks, "--rng", "lcg",
                                 "--table-log2", "14", "--out", str(tmp_path), "--quiet")
        assert completed.returncode == 0, completed.stderr
    records = read_jsonl(tmp_path / "results.jsonl")
    assert [r["parameters"]["rng"] for r in records] == ["lcg", "lcg"]
    assert [r["validation"]["verdict"] for r in records] == ["passed", "passed"]
    dumped = dump_table(tmp_path / "mpi-lcg.bin", "mpi", 3, "--rng", "lcg")
    assert dumped == single_dumps["lcg"]
    assert dumped != single_dumps["poly"]


@pytest.mark.parametrize("rng", ["poly", "lcg"])
@pytest.mark.parametrize("lookahead", ["1024", "5", "1"])
def test_prefetch_and_plain_loops_leave_the_same_table(tmp_path, single_dumps, rng, lookahead):
    """single's two serial loops end in the same table as the reference dump, and the record
    says which loop ran and how far it prefetched (never beyond the look-ahead)."""
    ahead = {"1024": 128, "5": 4, "1": 1}[lookahead]
    for loop, expected_ahead in (("prefetch", ahead), ("plain", 0)):
        options = ("--rng", rng, "--lookahead", lookahead, "--update-loop", loop)
        dumped = dump_table(tmp_path / f"{loop}.bin", "single", 1, *options)
        assert dumped == single_dumps[rng]
        out = tmp_path / f"{loop}.jsonl"
        completed = run_bench("ra", "single", "--table-log2", "14", "--quiet", "--out",
                              str(out), *options)
        assert completed.returncode == 0, completed.stderr
        record = only_record(out)
        assert record["validation"]["verdict"] == "passed"
        assert (record["parameters"]["update_loop"],
                record["parameters"]["prefetch_ahead"]) == (loop, expected_ahead)


def test_update_loop_is_refused_for_mpi_with_one_line(tmp_path):
    completed = run_bench("ra", "mpi", "--table-log2", "14", "--update-loop", "plain", np=2)
    assert completed.returncode == 2
    assert "--update-loop applies to" in completed.stderr
    assert len(stderr_lines(completed)) == 1


def test_hpcc_summary_from_a_real_record(tmp_path):
    completed = run_hpcprobe("ra", "mpi", "--np", "2", "--table-log2", "14", "--repeat", "2",
                             "--hpcc-summary", "--out", str(tmp_path), "--quiet")
    assert completed.returncode == 0, completed.stderr
    lines = (tmp_path / "hpcc-summary.txt").read_text().splitlines()
    assert lines[0] == "Begin of Summary section." and lines[-1] == "End of Summary section."
    values = dict(line.split("=", 1) for line in lines[1:-1])
    assert values["CommWorldProcs"] == "2"
    assert values["MPIRandomAccess_N"] == str(TABLE_WORDS)
    assert values["MPIRandomAccess_Errors"] == "0"
    assert values["MPIRandomAccess_ExeUpdates"] == str(4 * TABLE_WORDS)
    assert values["MPIRandomAccess_Algorithm"] == "0"
    assert float(values["MPIRandomAccess_GUPs"]) > 0
    assert float(values["MPIRandomAccess_time"]) > 0


def test_sysinfo_and_list():
    sysinfo = run_hpcprobe("sysinfo")
    assert sysinfo.returncode == 0, sysinfo.stderr
    assert "cpu_model" in sysinfo.stdout and "mpi_library" in sysinfo.stdout
    listing = run_hpcprobe("list")
    assert listing.returncode == 0, listing.stderr
    for word in ("single", "star", "mpi", "quick"):
        assert word in listing.stdout


def test_quick_suite_tiny(tmp_path):
    completed = run_hpcprobe("run", "--suite", "quick", "--scale", "tiny", "--np", "2",
                             "--out", str(tmp_path), timeout=180)
    assert completed.returncode == 0, completed.stderr
    found = read_records(tmp_path / "results.jsonl")
    assert found.problems == []
    records = found.records
    assert [r["variant"] for r in records] == ["single", "star", "mpi", "mpi"]
    assert [r["algorithm"] for r in records][2:] == ["reference", "hypercube"]
    assert all(r["validation"]["verdict"] == "passed" for r in records)
    assert all(r["parameters"]["repeat"] == 3 for r in records)
    assert all(r["parameters"]["table_log2"] == 14 for r in records)
    table_rows = [line for line in completed.stdout.splitlines() if "GUPS" in line]
    assert len(table_rows) == 4
    assert [line for line in stderr_lines(completed) if line.startswith("[")] == [
        "[1/4] ra single ...", "[2/4] ra star ...", "[3/4] ra mpi ...",
        "[4/4] ra mpi hypercube ..."]
    for variant in ("single", "star", "mpi"):
        assert (tmp_path / f"ra-{variant}.log").stat().st_size > 0
