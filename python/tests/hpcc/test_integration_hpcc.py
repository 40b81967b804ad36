"""HPL, DGEMM, PTRANS and FFT with the real hpcprobe-bench on 1-4 ranks (oversubscribed on
2 cores): every record validates against the schema and passes its check; a corrupted
solution, product, matrix or transform fails it; bad input is one line and exit status 2."""

import os

import pytest
from integration import bench_path, run_bench

from hpcprobe.results import read_records

GRIDS = [(1, "1x1"), (2, "1x2"), (2, "2x1"), (3, "1x3"), (3, "3x1"), (4, "2x2")]
CORRUPT = {"HPCPROBE_INJECT_FAULT": "corrupt:1"}


def records(tmp_path, *argv, np, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    completed = run_bench(*argv, "--quiet", "--out", str(out), np=np, timeout=180,
                          extra_env=extra_env)
    assert completed.returncode == rc, completed.stderr
    found = read_records(out)
    assert found.problems == []
    return found.records


def fftw_built():
    completed = run_bench("fft", "single", "--fft", "fftw", "--log2", "4", "--quiet")
    if completed.returncode == 2 and "without FFTW3" in completed.stderr:
        return False
    assert completed.returncode == 0, completed.stderr
    return True


@pytest.mark.parametrize("ranks,grid", GRIDS)
def test_hpl_residual_passes_on_every_grid(tmp_path, ranks, grid):
    (record,) = records(tmp_path, "hpl", "mpi", "--n", "301", "--nb", "32", "--grid", grid,
                        np=ranks)
    p, q = map(int, grid.split("x"))
    assert (record["parameters"]["p"], record["parameters"]["q"]) == (p, q)
    assert record["parameters"]["n"] % record["parameters"]["nb"] != 0
    assert record["validation"]["verdict"] == "passed"
    assert 0 <= record["validation"]["error"] < 16
    assert record["value"]["metric"] == "flop_rate" and record["value"]["value"] > 0


def test_hpl_without_lookahead_and_with_repetitions(tmp_path):
    (record,) = records(tmp_path, "hpl", "mpi", "--n", "257", "--nb", "20", "--grid", "2x2",
                        "--lookahead", "0", "--repeat", "2", np=4)
    assert record["parameters"]["lookahead_depth"] == 0
    assert record["validation"]["verdict"] == "passed"
    assert len(next(m for m in record["metrics"] if m["name"] == "time")["samples"]) == 2


@pytest.mark.parametrize("lookahead", ["0", "1"])
def test_hpl_corrupted_solution_fails(tmp_path, lookahead):
    (record,) = records(tmp_path, "hpl", "mpi", "--n", "203", "--nb", "24", "--lookahead",
                        lookahead, np=2, rc=1, extra_env=CORRUPT)
    assert record["validation"]["verdict"] == "failed" and record["status"] == "failed"
    assert record["validation"]["error"] > 16


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_dgemm_star_and_single(tmp_path, ranks):
    star, single = (records(tmp_path / v, "dgemm", v, "--n", "97", "--repeat", "2", np=ranks)[0]
                    for v in ("star", "single") if (tmp_path / v).mkdir() is None)
    assert star["parameters"]["copies"] == ranks and single["parameters"]["copies"] == 1
    for record in (star, single):
        assert record["validation"]["verdict"] == "passed"
        assert len(record["metrics"][0]["samples"]) == 2
        assert record["parameters"]["blas_threads"] == 1


def test_dgemm_wrong_element_fails(tmp_path):
    (record,) = records(tmp_path, "dgemm", "single", "--n", "64", np=1, rc=1, extra_env=CORRUPT)
    assert record["validation"]["verdict"] == "failed"


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_ptrans(tmp_path, ranks):
    (record,) = records(tmp_path, "ptrans", "mpi", "--n", "150", "--nb", "16", "--repeat", "2",
                        np=ranks)
    assert record["validation"]["verdict"] == "passed" and record["validation"]["error"] == 0
    assert record["value"]["unit"] == "B/s"


def test_ptrans_catches_one_wrong_element(tmp_path):
    (record,) = records(tmp_path, "ptrans", "mpi", "--n", "150", "--nb", "16", np=3, rc=1,
                        extra_env=CORRUPT)
    assert record["validation"]["verdict"] == "failed"


@pytest.mark.parametrize("engine", ["internal", "fftw"])
@pytest.mark.parametrize("variant,ranks", [("single", 2), ("star", 3), ("mpi", 1), ("mpi", 2),
                                           ("mpi", 3), ("mpi", 4)])
def test_fft(tmp_path, engine, variant, ranks):
    if engine == "fftw" and not fftw_built():
        if os.environ.get("CI"):
            pytest.fail("CI builds with FFTW3 (make build installs libfftw3-dev)")
        # Built without FFTW3 (no libfftw3-dev here): fftw_built() has checked that
        # --fft fftw is refused with its one line and exit 2; that is all there is to test.
        return
    (record,) = records(tmp_path, "fft", variant, "--log2", "11", "--fft", engine, np=ranks)
    assert record["parameters"]["fft_engine"] == engine and record["parameters"]["m"] == 2048
    assert record["validation"]["verdict"] == "passed" and record["validation"]["error"] < 16


@pytest.mark.parametrize("variant,ranks", [("single", 1), ("mpi", 3)])
def test_fft_wrong_point_fails(tmp_path, variant, ranks):
    (record,) = records(tmp_path, "fft", variant, "--log2", "10", "--fft", "internal", np=ranks,
                        rc=1, extra_env=CORRUPT)
    assert record["validation"]["verdict"] == "failed"


BAD = [
    (("hpl", "mpi", "--n", "100", "--grid", "2x2"), 2, "has 4 processes but 2 ranks"),
    (("hpl", "mpi", "--n", "100", "--grid", "2by1"), 2, "is not a process grid"),
    (("hpl", "mpi", "--n", "100", "--nb", "0"), 1, "--nb '0' is not allowed"),
    (("hpl", "mpi", "--n", "100", "--nb", "101"), 1, "at most --n"),
    (("hpl", "mpi", "--n", "3000000"), 1, "over the memory cap"),
    (("ptrans", "mpi", "--n", "-5"), 1, "is not a matrix order"),
    (("fft", "mpi", "--m", "1000"), 2, "is not a power of two"),
    (("fft", "single", "--n", "5"), 1, "--n does not apply to fft"),
    (("dgemm", "star", "--grid", "1x1"), 1, "--grid does not apply to dgemm"),
    (("dgemm", "single", "--n", "400000"), 1, "over the memory cap"),
]


@pytest.mark.parametrize("argv,np,message", BAD)
def test_bad_input_is_one_line(argv, np, message):
    completed = run_bench(*argv, np=np, timeout=60)
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], completed.stderr
    assert completed.stdout.strip() == ""


def test_list_names_the_families():
    listing = [line.split()[:2] for line in run_bench("list").stdout.splitlines()]
    for words in (["hpl", "mpi"], ["dgemm", "single"], ["dgemm", "star"], ["ptrans", "mpi"],
                  ["fft", "single"], ["fft", "star"], ["fft", "mpi"]):
        assert words in listing
    assert os.path.exists(bench_path())


# A NaN in the result must fail every floating-point verifier: NaN compares false with
# any tolerance, and fmax-style reductions drop it (DGEMM's did, so a C with a NaN row
# passed). HPCPROBE_INJECT_FAULT=nan:1 puts one NaN where corrupt:1 puts a wrong value.
NAN_CASES = [
    ("dgemm", "single", ("--n", "64"), 1),
    ("dgemm", "star", ("--n", "64"), 2),
    ("hpl", "mpi", ("--n", "120", "--nb", "16"), 2),
    ("ptrans", "mpi", ("--n", "150", "--nb", "16"), 3),
    ("fft", "single", ("--log2", "10"), 1),
    ("fft", "mpi", ("--log2", "12"), 2),
    ("stream", "single", ("--array-bytes", "1M"), 1),
]


@pytest.mark.parametrize("benchmark,variant,options,ranks", NAN_CASES,
                         ids=[f"{b}-{v}" for b, v, _, _ in NAN_CASES])
def test_a_nan_in_the_result_fails_validation(tmp_path, benchmark, variant, options, ranks):
    (record,) = records(tmp_path, benchmark, variant, *options, np=ranks, rc=1,
                        extra_env={"HPCPROBE_INJECT_FAULT": "nan:1"})
    assert record["validation"]["verdict"] == "failed" and record["status"] == "failed"
    error = record["validation"]["error"]
    assert error is None or error > record["validation"]["tolerance"]
