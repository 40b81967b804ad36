"""`hpcprobe compare`: ratios of two synthetic systems, paper 003's balance and its Kiviat
normalisation from HPCC summaries, regressions against a baseline, the formats."""

import csv
import io
import json

import pytest
from helpers import DATA, golden, run_hpcprobe, stderr_lines, write_jsonl

from hpcprobe.hpcc_summary.balance import balance_of, normalise, parse_hpcc_output

HPCC_X = {"HPL_Tflops": 2, "StarDGEMM_Gflops": 10, "CommWorldProcs": 100, "MPIFFT_Gflops": 40,
          "PTRANS_GBs": 80, "StarSTREAM_Copy": 5, "RandomlyOrderedRingBandwidth_GBytes": 0.2,
          "RandomlyOrderedRingLatency_usec": 2, "MPIRandomAccess_GUPs": 0.5}
HPCC_Y = {"HPL_Tflops": 4, "StarDGEMM_Gflops": 10, "CommWorldProcs": 200, "MPIFFT_Gflops": 40,
          "PTRANS_GBs": 320, "StarSTREAM_Copy": 2, "RandomlyOrderedRingBandwidth_GBytes": 0.1,
          "RandomlyOrderedRingLatency_usec": 4, "MPIRandomAccess_GUPs": 4}
# By hand from the definitions (paper 003, section 4.1.2): X's and Y's ratios to G-HPL.
BALANCE_X = [2, 1, 0.5, 0.02, 0.04, 0.25, 0.01, 0.5, 2.5e-4]
BALANCE_Y = [4, 1, 0.5, 0.01, 0.08, 0.1, 0.005, 0.25, 1e-3]
KIVIAT_X = [0.5, 1, 1, 1, 0.5, 1, 1, 1, 0.25]
KIVIAT_Y = [1, 1, 1, 0.5, 1, 0.4, 0.5, 0.5, 1]


def hpcc_file(path, keys):
    lines = ["HPC Challenge output", "Begin of Summary section."]
    lines += [f"{key}={value}" for key, value in keys.items()] + ["End of Summary section."]
    path.write_text("\n".join(lines) + "\n")
    return path


def system(directory, rate_scale=1.0, latency_scale=1.0):
    """A system's records: ra mpi hypercube on 4 ranks, ra single, a latency curve."""
    directory.mkdir()
    mpi = golden("mpi")
    mpi["algorithm"] = "hypercube"
    mpi["parameters"].update(mods="prepost,late-update,late-wait,isend", overlap="on")
    mpi["metrics"][0]["samples"] = [rate_scale * s for s in (1.0e8, 1.0e8, 1.0e8)]
    mpi["value"]["value"] = rate_scale * 1.0e8
    single = golden("single")
    single["metrics"][0]["samples"] = [rate_scale * 3e7, rate_scale * 3e7]
    single["value"]["value"] = rate_scale * 3e7
    latency = json.loads((DATA / "mem-latency.json").read_text())
    latency["metrics"][0]["samples"] = [latency_scale * 9e-8] * 3
    latency["value"]["value"] = latency_scale * 9e-8
    write_jsonl(directory / "results.jsonl", [mpi, single, latency])
    return directory


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_ratios_of_two_systems(tmp_path):
    a, b = system(tmp_path / "a"), system(tmp_path / "b", rate_scale=2.0, latency_scale=1.5)
    completed = run_hpcprobe("compare", str(a), str(b), "--names", "A,B", "--format", "csv")
    assert completed.returncode == 0, completed.stderr
    rows = {row[0]: row for row in csv_rows(completed.stdout) if len(row) == 5}
    assert rows["metric"] == ["metric", "unit", "A", "B", "B / A"]
    assert rows["ra mpi hypercube: update_rate"][1:] == ["GUPS", "0.1 (P=4)", "0.2 (P=4)", "2"]
    assert rows["ra single serial: update_rate"][4] == "2"
    latency = rows["mem latency chase (latency sweep, hugepages off, copies requested all): "
                   "memory_latency"]
    assert latency[1:] == ["ns", "90 (P=2)", "135 (P=2)", "1.5"]
    assert rows["HPCC MPIRandomAccess_GUPs"][4] == "2"


def test_balance_and_kiviat_normalisation():
    x, y = balance_of(HPCC_X), balance_of(HPCC_Y)
    assert list(x.values.values()) == pytest.approx(BALANCE_X)
    assert list(y.values.values()) == pytest.approx(BALANCE_Y)
    axes, normalised = normalise({"X": x, "Y": y})
    assert len(axes) == 9
    assert normalised["X"] == pytest.approx(KIVIAT_X)
    assert normalised["Y"] == pytest.approx(KIVIAT_Y)


def test_compare_reads_hpcc_output_files_and_draws_the_kiviat(tmp_path):
    x, y = hpcc_file(tmp_path / "x.txt", HPCC_X), hpcc_file(tmp_path / "y.txt", HPCC_Y)
    out = tmp_path / "compare.html"
    completed = run_hpcprobe("compare", str(x), str(y), "--names", "X,<b>Y</b>", "--format",
                             "html", "-o", str(out))
    assert completed.returncode == 0, completed.stderr
    html = out.read_text()
    assert "data:image/svg+xml;base64," in html and "<b>Y</b>" not in html
    assert "&lt;b&gt;Y&lt;/b&gt;" in html
    kiviat = csv_rows((tmp_path / "compare-data" / "balance-normalised-to-the-best-system.csv")
                      .read_text())
    values = {(row[0], row[1]): float(row[2]) for row in kiviat[1:]}
    assert values[("X", "G-RandomAccess/G-HPL")] == pytest.approx(0.25)
    assert values[("<b>Y</b>", "G-STREAM Copy/G-HPL")] == pytest.approx(0.4)


def test_missing_balance_inputs_are_named(tmp_path):
    a, b = system(tmp_path / "a"), system(tmp_path / "b")
    completed = run_hpcprobe("compare", str(a), str(b), "--format", "markdown")
    assert completed.returncode == 0, completed.stderr
    assert "missing inputs HPL_Tflops" in completed.stdout
    assert "no Kiviat chart: it needs 3 or more balance ratios" in completed.stdout
    assert "| ra mpi hypercube: update_rate | GUPS |" in completed.stdout


def test_a_regression_beyond_the_tolerance_exits_non_zero(tmp_path):
    baseline = system(tmp_path / "base")
    slower = system(tmp_path / "new", rate_scale=0.9, latency_scale=1.02)
    completed = run_hpcprobe("compare", str(slower), "--baseline", str(baseline),
                             "--tolerance", "5%")
    assert completed.returncode == 1
    lines = [line for line in stderr_lines(completed) if line.startswith("hpcprobe: regression")]
    assert len(lines) == 4, completed.stderr  # two ra rows and their two HPCC keys
    assert all(line.startswith("hpcprobe: regression: new: ") for line in lines)
    assert any("ra mpi hypercube: update_rate: 9e+07 against the baseline's 1e+08 (-10.0 %, "
               "tolerance 5 %)" in line for line in lines)
    within = run_hpcprobe("compare", str(slower), "--baseline", str(baseline),
                          "--tolerance", "12")
    assert within.returncode == 0, within.stderr


def test_a_slower_latency_is_a_regression(tmp_path):
    baseline = system(tmp_path / "base")
    slower = system(tmp_path / "new", latency_scale=1.2)
    completed = run_hpcprobe("compare", str(slower), "--baseline", str(baseline))
    assert completed.returncode == 1
    assert "memory_latency" in completed.stderr and "+20.0 %" in completed.stderr


@pytest.mark.parametrize("argv, message", [
    (["one"], "compare needs two systems or more, or one and --baseline FILE"),
    (["a", "b", "--tolerance", "5%"], "--tolerance applies with --baseline only"),
    (["a", "--baseline", "b", "--tolerance", "five"],
     "--tolerance takes a percentage from 0 to 1000, such as 5%, not 'five'"),
    (["a", "b", "--names", "x"], "--names takes 2 non-empty names, one per system, not 'x'"),
    (["a", "b", "--format", "pdf"], "unknown format 'pdf' (allowed: table, csv, markdown, html)"),
])
def test_bad_input_is_one_line(argv, message):
    completed = run_hpcprobe("compare", *argv)
    assert completed.returncode == 2
    assert stderr_lines(completed) == [f"hpcprobe: {message}"]


def test_parse_hpcc_output_refuses_a_file_without_the_block():
    from hpcprobe.errors import HpcprobeError
    with pytest.raises(HpcprobeError, match="no 'Begin of Summary section.'"):
        parse_hpcc_output("hello\n", "f.txt")
    keys = parse_hpcc_output("Begin of Summary section.\nA=1\nB=x\n1C=2\nD=nan\n"
                             "End of Summary section.\n", "f.txt")
    assert keys == {"A": 1.0}
