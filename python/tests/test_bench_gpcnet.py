"""bench/congestion's GPCNeT comparison without a cluster (bench/lib/gpcnet_compare.py):
GPCNeT's printed tables read back (a fixture captured from a real run), hpcprobe's raw
samples turned into the same figures, and the side-by-side table's verdicts.
test_integration_bench_gpcnet.py runs the GPCNeT path on emulated hosts."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "lib"))
import gpcnet_compare as gc  # noqa: E402

# GPCNeT 1.3 network_load_test, 10 emulated hosts (tree 2x5, 400 Mbit/s links, one rank
# each), through `hpcprobe launch --cluster`: the first banner lines and its tables.
GPCNET_OUTPUT = """\
NetworkLoad Tests v1.3
  Test with 10 MPI ranks (10 nodes)
+------------------------------------------------------------------------------+
|                            Isolated Network Tests                            |
+---------------------------------+--------------+--------------+--------------+
|                            Name |          Avg |          99% |        Units |
+---------------------------------+--------------+--------------+--------------+
|          RR Two-sided Lat (8 B) |        116.3 |        303.7 |         usec |
+---------------------------------+--------------+--------------+--------------+
| RR Two-sided BW+Sync (131072 B) |         42.5 |         32.6 |   MiB/s/rank |
+---------------------------------+--------------+--------------+--------------+
|        Multiple Allreduce (8 B) |        177.4 |       3029.2 |         usec |
+---------------------------------+--------------+--------------+--------------+

+------------------------------------------------------------------------------+
|                 Network Tests running with Congestion Tests                  |
+---------------------------------+--------------+--------------+--------------+
|                            Name |          Avg |          99% |        Units |
+---------------------------------+--------------+--------------+--------------+
|          RR Two-sided Lat (8 B) |        660.3 |       9049.5 |         usec |
+---------------------------------+--------------+--------------+--------------+
| RR Two-sided BW+Sync (131072 B) |         32.3 |          2.6 |   MiB/s/rank |
+---------------------------------+--------------+--------------+--------------+
|        Multiple Allreduce (8 B) |        241.9 |       5201.9 |         usec |
+---------------------------------+--------------+--------------+--------------+

+------------------------------------------------------------------------------+
|          Network Tests running with Congestion Tests - Key Results           |
+---------------------------------+--------------------------------------------+
|                            Name |                   Congestion Impact Factor |
+---------------------------------+----------------------+---------------------+
|                                 |                  Avg |                 99% |
+---------------------------------+----------------------+---------------------+
|          RR Two-sided Lat (8 B) |                 5.7X |               29.8X |
+---------------------------------+----------------------+---------------------+
| RR Two-sided BW+Sync (131072 B) |                 1.3X |               12.5X |
+---------------------------------+----------------------+---------------------+
|        Multiple Allreduce (8 B) |                 1.4X |                1.7X |
+---------------------------------+----------------------+---------------------+
"""


def test_the_tables_are_read_by_canary_and_section():
    tables = gc.parse_gpcnet(GPCNET_OUTPUT)
    assert tables["isolated"]["latency"] == {"avg": 116.3, "p99": 303.7}
    assert tables["isolated"]["bandwidth"] == {"avg": 42.5, "p99": 32.6}
    assert tables["isolated"]["allreduce"] == {"avg": 177.4, "p99": 3029.2}
    assert tables["congested"]["latency"] == {"avg": 660.3, "p99": 9049.5}
    assert tables["congested"]["bandwidth"] == {"avg": 32.3, "p99": 2.6}
    assert tables["cif"] == {"latency": {"cif_avg": 5.7, "cif_p99": 29.8},
                             "bandwidth": {"cif_avg": 1.3, "cif_p99": 12.5},
                             "allreduce": {"cif_avg": 1.4, "cif_p99": 1.7}}
    assert "isolated_congestors" not in tables  # this run printed none


def test_figures_join_isolated_and_cif_and_need_the_key_results():
    figures = gc.gpcnet_figures(GPCNET_OUTPUT)
    assert figures["latency"] == {"avg": 116.3, "p99": 303.7, "cif_avg": 5.7, "cif_p99": 29.8}
    assert set(figures) == {"latency", "bandwidth", "allreduce"}
    cut = GPCNET_OUTPUT.split("Key Results")[0]
    with pytest.raises(ValueError, match="Key Results"):
        gc.gpcnet_figures(cut)
    with pytest.raises(ValueError):
        gc.gpcnet_figures("[mpiexec@head] HYDU_sock_write: write error\n")


def test_the_parser_tolerates_noise_spacing_and_other_tables():
    noisy = ("[proxy:0] warning: something\n"
             + GPCNET_OUTPUT.replace("|          RR Two-sided Lat (8 B) |        116.3",
                                     "|RR Two-sided Lat (8 B)|116.3")
             + "\n| Some Other Table |\n| RR Two-sided Lat (8 B) | 1.0 | 2.0 | usec |\n")
    tables = gc.parse_gpcnet(noisy)
    assert tables["isolated"]["latency"]["avg"] == 116.3
    assert tables["cif"]["latency"]["cif_avg"] == 5.7  # the unknown table kept nothing


def test_isolated_congestor_rows_are_kept_by_their_names():
    text = ("| Isolated Congestion Tests |\n| Name | Avg | 99% | Units |\n"
            "| Alltoall (4096 B) | 12.5 | 9.0 | MiB/s/rank |\n")
    assert gc.parse_gpcnet(text)["isolated_congestors"] == {
        "Alltoall (4096 B)": {"avg": 12.5, "p99": 9.0}}


def test_sample_figures_use_gpcnet_units_and_its_worst_percent():
    rng = np.random.default_rng(1)
    data = {("latency", "isolated"): rng.uniform(10e-6, 20e-6, 1000),
            ("latency", "gpcnet"): rng.uniform(30e-6, 60e-6, 1000),
            ("bandwidth", "isolated"): np.full(100, 40 * 2.0**20),
            ("bandwidth", "gpcnet"): np.full(100, 20 * 2.0**20)}
    figures = gc.sample_figures(lambda c, k: data.get((c, k), np.array([])), "gpcnet")
    assert set(figures) == {"latency", "bandwidth"}  # no allreduce samples: left out
    latency = figures["latency"]
    assert latency["avg"] == pytest.approx(15, rel=0.02)  # usec
    assert latency["p99"] == pytest.approx(19.9, rel=0.01)
    assert latency["cif_avg"] == pytest.approx(3, rel=0.03)
    assert figures["bandwidth"] == pytest.approx({"avg": 40, "p99": 40, "cif_avg": 2,
                                                  "cif_p99": 2})
    # A rate's "99%" is its worst 1 %: the low end.
    data[("bandwidth", "isolated")] = np.arange(1, 101) * 2.0**20
    low = gc.sample_figures(lambda c, k: data.get((c, k), np.array([])), "gpcnet")
    assert low["bandwidth"]["p99"] < 3


def test_default_mode_takes_the_worst_congestor_and_rounds_their_median():
    a = {"latency": {"avg": 10, "p99": 20, "cif_avg": 2, "cif_p99": 5}}
    b = {"latency": {"avg": 10, "p99": 20, "cif_avg": 4, "cif_p99": 3}}
    assert gc.worst_of([a, b])["latency"] == {"avg": 10, "p99": 20, "cif_avg": 4, "cif_p99": 5}
    c = {"latency": {"avg": 30, "p99": 20, "cif_avg": 9, "cif_p99": 5}}
    assert gc.medians([a, b, c])["latency"]["avg"] == 10
    assert gc.medians([a, b, c])["latency"]["cif_avg"] == 4


def test_side_by_side_judges_the_gpcnet_mode_against_the_tolerances():
    gpcnet = gc.gpcnet_figures(GPCNET_OUTPUT)
    close = {c: {k: v * 1.1 for k, v in f.items()} for c, f in gpcnet.items()}
    lines, passed = gc.side_by_side("flat", gpcnet, close, close)
    assert passed and lines[0] == "flat"
    row = next(line for line in lines if line.startswith("latency CIF avg"))
    assert row.split()[4:11] == ["5.70", "6.27", "1.10", "-", "-", "25%", "pass"]
    far = {c: dict(f) for c, f in close.items()}
    far["bandwidth"]["avg"] = gpcnet["bandwidth"]["avg"] * 1.2  # isolated: 15 % allowed
    lines, passed = gc.side_by_side("flat", gpcnet, far, close)
    assert not passed
    assert [line for line in lines if "FAIL" in line] == [
        next(line for line in lines if line.startswith("bandwidth isolated avg"))]
    missing = {c: f for c, f in close.items() if c != "allreduce"}
    assert not gc.side_by_side("flat", gpcnet, missing, close)[1]


def test_a_figure_within_tolerance_only_with_idle_ranks_spinning_is_said_so():
    gpcnet = gc.gpcnet_figures(GPCNET_OUTPUT)
    close = {c: {k: v * 1.1 for k, v in f.items()} for c, f in gpcnet.items()}
    far = {c: dict(f) for c, f in close.items()}
    far["latency"]["avg"] = gpcnet["latency"]["avg"] * 0.2  # idle ranks asleep: faster
    lines, passed = gc.side_by_side("tree", gpcnet, far, close, close)
    row = next(line for line in lines if line.startswith("latency isolated avg"))
    assert passed and row.split()[-2:] == ["spin", f"{close['latency']['avg']:.1f}"]
    assert row.split()[6:9] == ["0.20", f"{close['latency']['avg']:.1f}", "1.10"]
    assert not gc.side_by_side("tree", gpcnet, far, close, far)[1]  # spinning: still far


def test_placement_lines_name_each_placement():
    figures = {"bandwidth": {"cif_avg": 1.04}}
    lines = gc.placement_lines(figures, {"packed": figures, "spread": {"bandwidth": {
        "cif_avg": 1.8}}}, {"bandwidth": {"cif_avg": 1.9}})
    assert any("packed" in line and line.endswith("1.04") for line in lines)
    assert any("spread" in line and line.endswith("1.80") for line in lines)
    assert not any("default mode --canary-placement packed" in line for line in lines)
    lines = gc.placement_lines(figures, {}, figures, {"bandwidth": {"cif_avg": 0.97}})
    assert lines[-1].split()[-1] == "0.97" and "default mode --canary-placement packed" in \
        lines[-1]
