"""`hpcprobe run --suite hpcc`: the sizes HPCC gives each test from N, hpccinf.txt and
its bad lines, `config import-hpccinf`, and the real suite's summary block with every
key of HPCC's (but b_eff's, whose family plugs in separately) holding a number."""

import json
import re

import pytest
from helpers import DATA, run_hpcprobe, stderr_lines
from hpcc_parsers import HPCC15_KEYS

from hpcprobe import describe
from hpcprobe.cli import parse_arguments
from hpcprobe.errors import UsageError
from hpcprobe.families.hpcc.options import default_np
from hpcprobe.families.hpcc.suite import HpccSizing, hpcc_steps, parse_hpccinf, step_values

# An HPCC input file as bench/hpcc_suite writes it (N = 2000 on a 1x2 grid).
HPCCINF = (DATA / "hpccinf.txt").read_text()

# What Debian's hpcc 1.5.0 printed for N = 2000 on a 1x2 grid.
HPCC_AT_2000 = {"STREAM_VectorSize": 666666, "FFT_N": 2 ** 18, "MPIFFT_N": 2 ** 18,
                "RandomAccess_N": 2 ** 20, "MPIRandomAccess_N": 2 ** 21, "PTRANS_n": 1000}


def test_sizes_from_n_are_hpccs():
    values = step_values(HpccSizing(2000, 80, 1, 2, "test"))
    assert int(values["stream"]["array_bytes"]) // 8 == HPCC_AT_2000["STREAM_VectorSize"]
    assert 2 ** int(values["fft_local"]["log2"]) == HPCC_AT_2000["FFT_N"]
    assert 2 ** int(values["fft_mpi"]["log2"]) == HPCC_AT_2000["MPIFFT_N"]
    assert 2 ** int(values["ra_local"]["table_log2"]) == HPCC_AT_2000["RandomAccess_N"]
    assert 2 ** int(values["ra_mpi"]["table_log2"]) == HPCC_AT_2000["MPIRandomAccess_N"]
    assert int(values["ptrans"]["n"]) == HPCC_AT_2000["PTRANS_n"]
    assert abs(int(values["dgemm"]["n"]) - 815) <= 1  # HPCC 1.5.0 printed 815
    steps = hpcc_steps(HpccSizing(2000, 80, 1, 2, "test"))
    assert steps[-1].bench_options == ("--n", "2000", "--nb", "80", "--lookahead", "1",
                                       "--grid", "1x2")
    assert steps[3].bench_options[-2:] == ("--rng", "lcg")


def test_steps_follow_hpccs_order():
    names = [step.name for step in hpcc_steps(HpccSizing(400, 32, 1, 2, "test"))]
    assert names == ["ra mpi", "ra star", "ra single", "ra mpi lcg", "ra star lcg",
                     "ra single lcg", "ptrans mpi", "dgemm star", "dgemm single",
                     "stream star", "stream single", "fft mpi", "fft star", "fft single",
                     "beff hpcc", "hpl mpi"]
    one_rank = [step.name for step in hpcc_steps(HpccSizing(400, 32, 1, 1, "test"))]
    assert one_rank == [name for name in names if name != "beff hpcc"]  # b_eff needs a pair


def test_hpccinf_is_read():
    assert parse_hpccinf(HPCCINF, "hpccinf.txt") == {"n": 2000, "nb": 80, "p": 1, "q": 2,
                                                      "pmap": 0, "depth": 1}


@pytest.mark.parametrize("line,text,message", [
    (6, "two thousand Ns", "hpccinf.txt line 6: expected 1 whole number(s) (Ns)"),
    (8, "0 NBs", "hpccinf.txt line 8: NB must be from 1 to N = 2000, not 0"),
    (12, "Qs", "hpccinf.txt line 12: expected 1 whole number(s) (Qs), found 'Qs'"),
    (9, "7 PMAP", "hpccinf.txt line 9: PMAP must be 0 or 1, not 7"),
])
def test_malformed_hpccinf_names_the_line(line, text, message):
    lines = HPCCINF.splitlines()
    lines[line - 1] = text
    with pytest.raises(UsageError) as raised:
        parse_hpccinf("\n".join(lines), "hpccinf.txt")
    assert message in str(raised.value)


def test_short_hpccinf():
    with pytest.raises(UsageError, match="line 11: missing"):
        parse_hpccinf("\n".join(HPCCINF.splitlines()[:10]), "hpccinf.txt")


def test_import_hpccinf_writes_a_config(tmp_path):
    (tmp_path / "hpccinf.txt").write_text(HPCCINF)
    out = tmp_path / "sizing.json"
    done = run_hpcprobe("config", "import-hpccinf", str(tmp_path / "hpccinf.txt"), "--out",
                        str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["n"] == 2000
    assert "--np 2 --config" in done.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text(HPCCINF.replace("2000         Ns", "abc Ns"))
    done = run_hpcprobe("config", "import-hpccinf", str(bad))
    assert done.returncode == 2
    assert stderr_lines(done) == [f"hpcprobe: {bad} line 6: expected 1 whole number(s) (Ns), "
                                  "found 'abc'"]


@pytest.mark.parametrize("argv,message", [
    (("run", "--suite", "quick", "--n", "100"), "--n applies to 'hpcprobe run --suite hpcc'"),
    (("run", "--suite", "hpcc", "--hpccinf", "a", "--config", "b"), "both size the suite"),
    (("run", "--suite", "hpcc", "--np", "2", "--n", "100", "--grid", "2x2"),
     "has 4 processes but 2 ranks"),
    (("run", "--suite", "hpcc", "--np", "1", "--n", "100", "--nb", "200"),
     "larger than N = 100"),
    (("hpl", "--log2", "3"), "--log2 applies to 'hpcprobe fft' only"),
    (("fft",), "missing variant for 'hpcprobe fft'"),
])
def test_bad_suite_input_is_one_line(tmp_path, argv, message):
    done = run_hpcprobe(*argv, "--out", str(tmp_path / "r"), "--quiet")
    assert done.returncode == 2
    assert len(stderr_lines(done)) == 1 and message in done.stderr, done.stderr


BEFF_KEYS = {"MaxPingPongLatency_usec", "RandomlyOrderedRingLatency_usec",
             "MinPingPongBandwidth_GBytes", "NaturallyOrderedRingBandwidth_GBytes",
             "RandomlyOrderedRingBandwidth_GBytes", "MinPingPongLatency_usec",
             "AvgPingPongLatency_usec", "MaxPingPongBandwidth_GBytes",
             "AvgPingPongBandwidth_GBytes", "NaturallyOrderedRingLatency_usec"}
NUMBER = re.compile(r"^-?[0-9.]+(e[-+][0-9]+)?$|^[RC]$|^f$")


def test_the_suite_prints_every_hpcc_key_with_a_number(tmp_path):
    out = tmp_path / "run"
    done = run_hpcprobe("run", "--suite", "hpcc", "--scale", "tiny", "--np", "2", "--out",
                        str(out), "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    text = (out / "hpcc-summary.txt").read_text()
    assert text in done.stdout
    lines = text.splitlines()
    begin, end = lines.index("Begin of Summary section."), lines.index("End of Summary section.")
    pairs = [line.split("=", 1) for line in lines[begin + 1:end]]
    assert [key for key, _ in pairs] == HPCC15_KEYS  # every key of HPCC 1.5, in its order
    assert all(NUMBER.match(value) for _, value in pairs), pairs
    values = dict(pairs)
    assert values["Success"] == "1" and values["CommWorldProcs"] == "2"
    assert float(values["HPL_Tflops"]) > 0 and values["HPL_N"] == "400"
    assert all(float(values[key]) > 0 for key in BEFF_KEYS)
    after = lines[end + 1:]  # paper 003's balance, as hpcprobe compare computes it
    assert after[0].startswith("Balance (paper 003, Table 2): G-HPL = ")
    ratios = dict(line.strip().split(" = ") for line in after[1:])
    assert {"G-EP DGEMM/G-HPL", "G-FFT/G-HPL", "G-PTRANS/G-HPL",
            "G-RandomAccess/G-HPL"} <= set(ratios)
    assert float(ratios["G-PTRANS/G-HPL"]) == pytest.approx(
        float(values["PTRANS_GBs"]) / (float(values["HPL_Tflops"]) * 1e3), rel=1e-3)
    kinds = {(r["benchmark"], r["variant"]) for r in
             map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {("hpl", "mpi"), ("fft", "mpi"), ("ptrans", "mpi"), ("dgemm", "star")} <= kinds


def summary_values(out):
    lines = (out / "hpcc-summary.txt").read_text().splitlines()
    begin, end = lines.index("Begin of Summary section."), lines.index("End of Summary section.")
    return dict(line.split("=", 1) for line in lines[begin + 1:end])


def test_the_suite_sized_from_an_hpccinf_and_from_memory(tmp_path):
    small = HPCCINF.replace("2000         Ns", "240          Ns").replace(
        "80           NBs", "24           NBs")
    (tmp_path / "hpccinf.txt").write_text(small)
    done = run_hpcprobe("run", "--suite", "hpcc", "--np", "2", "--hpccinf",
                        str(tmp_path / "hpccinf.txt"), "--out", str(tmp_path / "a"), "--quiet",
                        timeout=600)
    assert done.returncode == 0, done.stderr
    values = summary_values(tmp_path / "a")
    assert (values["HPL_N"], values["HPL_NB"], values["HPL_npcol"]) == ("240", "24", "2")
    assert values["PTRANS_n"] == "120"
    done = run_hpcprobe("run", "--suite", "hpcc", "--np", "2", "--memory-fraction", "0.00001",
                        "--nb", "64", "--out", str(tmp_path / "b"), "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    assert "of the available memory" in done.stderr
    n = int(summary_values(tmp_path / "b")["HPL_N"])
    assert n >= 64 and n % 64 == 0


@pytest.mark.parametrize("argv, ranks", [
    (["hpl", "--grid", "2x3"], 6),
    (["ptrans", "mpi", "--grid", "1x4", "--n", "64"], 4),
    (["hpl", "--grid", "2y3"], 8),  # not PxQ: the cores; the bench says what is wrong
    (["hpl"], 8),
    (["dgemm", "single"], 1),
    (["fft", "star"], 8),
])
def test_ranks_without_np(argv, ranks):
    args = parse_arguments(argv)
    assert default_np(args, describe.family(args.command), 8) == ranks


@pytest.mark.parametrize("argv, line", [
    (["--n", "-5"], "--n must be a whole number >= 1, not '-5'"),
    (["--nb", "0"], "--nb must be a whole number >= 1, not '0'"),
    (["--memory-fraction", "2"], "--memory-fraction must be a number > 0 and <= 0.9, not '2'"),
])
def test_run_sizing_values_are_refused_before_the_suite_launches(argv, line):
    # The bench reads --n and --nb as text: hpcprobe checks them before any step runs.
    with pytest.raises(UsageError) as refused:
        parse_arguments(["run", "--suite", "hpcc", *argv])
    assert refused.value.message == line
