"""`hpcprobe simulate`, `hpcprobe topology route` and the option checks of `hpcprobe
contention`, without launching anything: the JSON keys, the paper's example through the
command line, and one line with exit status 2 for every mistake."""

import json

import pytest

from hpcprobe.cli import main


def run_main(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, [line for line in captured.err.splitlines() if line.strip()]


def test_simulate_json_has_the_issues_keys_and_the_papers_example(capsys):
    status, out, err = run_main(capsys, "simulate", "wicon-rnd", "--torus", "8x8x8",
                                "--ranks-per-node", "4", "--json")
    assert status == 0 and err == []
    result = json.loads(out)
    for key in ("nodes", "links", "messages", "avg_hops", "max_link_load", "mean_link_load",
                "latency"):
        assert key in result
    assert (result["nodes"], result["links"], result["messages"]) == (512, 3072, 2048)
    assert result["avg_hops"] == pytest.approx(6, abs=0.1)
    assert result["mean_link_load"] == pytest.approx(4, abs=0.1)
    assert [row["bytes"] for row in result["latency"]] == [32, 1024, 16384]
    for row in result["latency"]:
        assert row["mean_s"] > row["uncontended_mean_s"] > 0


@pytest.mark.parametrize("argv", [
    ["simulate", "wocon", "--torus", "4x4x4"],
    ["simulate", "stress-link", "--mesh", "1x1x16", "--sizes", "1K,64K"],
    ["simulate", "equidistant", "--torus", "4x8", "--ranks-per-node", "2", "--distance", "1..4"],
    ["simulate", "ra-hypercube", "--torus", "4x4", "--lookahead", "256"],
    ["simulate", "ra-torus", "--torus", "4x4", "--grid", "4x2x2"],
    ["simulate", "alltoall", "--mesh", "3x3", "--link-bandwidth", "1e9", "--flit-bytes", "16",
     "--hop-latency", "5e-8"],
])
def test_every_pattern_prints_a_table(capsys, argv):
    status, out, err = run_main(capsys, *argv)
    assert status == 0 and err == []
    assert "predicted µs per message" in out


def test_model_options_reach_eq1(capsys):
    _, out, _ = run_main(capsys, "simulate", "wocon", "--mesh", "2", "--sizes", "1000",
                         "--link-bandwidth", "1e9", "--flit-bytes", "0", "--hop-latency", "1e-6",
                         "--json")
    (row,) = json.loads(out)["latency"]
    assert row["mean_s"] == pytest.approx(1e-6 + 1000 / 1e9)


@pytest.mark.parametrize("argv, fragment", [
    (["simulate"], "missing pattern for 'hpcprobe simulate'"),
    (["simulate", "wicon-rdn", "--torus", "4"], "did you mean 'wicon-rnd'?"),
    (["simulate", "wicon-rnd"], "needs the network: --torus DIMS, --mesh DIMS or --tree LxH"),
    (["simulate", "wicon-rnd", "--torus", "8x"], "--torus takes 1 to 8 whole numbers"),
    (["simulate", "wicon-rnd", "--torus", "4", "--mesh", "4"], "alternatives"),
    (["simulate", "wicon-rnd", "--torus", "4x4", "--wrap", "1"], "one 0 or 1 per dimension"),
    (["simulate", "wocon", "--torus", "4", "--seed", "3"], "--seed applies to"),
    (["simulate", "equidistant", "--torus", "8", "--distance", "5"],
     "--distance 5 is beyond axis 0: no two nodes are more than 4 hops apart"),
    (["simulate", "equidistant", "--torus", "8", "--distance", "3..2"], "increasing hop counts"),
    (["simulate", "stress-link", "--torus", "8", "--axis", "1"], "--axis 1 is not a dimension"),
    (["simulate", "wocon", "--torus", "1"], "wocon measures between nodes"),
    (["simulate", "wicon-rnd", "--torus", "4", "--sizes", "8,4"], "increasing sizes"),
    (["simulate", "ra-hypercube", "--torus", "4", "--sizes", "8"], "--sizes applies to"),
    (["simulate", "ra-torus", "--torus", "4", "--grid", "3x3"], "places for 4 ranks"),
    (["simulate", "ra-torus", "--torus", "4", "--lookahead", "0"], "--lookahead must be"),
    (["simulate", "alltoall", "--torus", "16x16x16", "--ranks-per-node", "2"], "at most"),
    (["simulate", "wicon-rnd", "--torus", "4", "--ranks-per-node", "0"], "--ranks-per-node"),
    (["simulate", "wicon-rnd", "--torus", "4", "--coords", "c.csv"], "--coords applies to"),
    (["simulate", "wicon-rnd", "--torus", "4", "--link-bandwidth", "-1"],
     "--link-bandwidth must be a number of bytes/s > 0"),
    (["simulate", "--compare", "x.jsonl", "--torus", "4"], "--compare takes the pattern"),
    (["contention"], "missing variant for 'hpcprobe contention'"),
    (["contention", "wicon", "--distance", "2"], "--distance applies to 'hpcprobe contention "
                                                 "equidistant' only"),
    (["contention", "wocon", "--pairs", "nn"], "--pairs applies to"),
    (["contention", "woocon"], "did you mean 'wocon'?"),
    (["topology"], "missing action for 'hpcprobe topology'"),
    (["topology", "route", "0", "--torus", "4"], "takes two nodes"),
    (["topology", "route", "0", "1"], "needs the network"),
    (["topology", "route", "0", "9", "--torus", "4"], "node '9' is not in torus 4"),
    (["topology", "route", "0", "1", "--torus", "4", "--np", "2"], "--np applies to"),
    (["topology", "show", "3"], "unexpected argument '3'"),
    (["topology", "show", "--out", "d"], "--out does not apply to 'hpcprobe topology'"),
    (["topology", "route", "0", "1", "--torus", "4", "--launcher-arg", "-x"],
     "--launcher-arg applies to"),
])
def test_mistakes_are_one_line(capsys, argv, fragment):
    status, _, lines = run_main(capsys, *argv)
    assert status == 2
    assert len(lines) == 1 and fragment in lines[0], lines


def test_topology_route(capsys):
    status, out, err = run_main(capsys, "topology", "route", "0,0,0", "3,5,7", "--torus",
                                "8x8x8", "--json")
    assert status == 0 and err == []
    route = json.loads(out)
    assert route["hops"] == 3 + 3 + 1 and route["steps"] == [3, -3, -1]
    assert route["route"][0] == [0, 0, 0] and route["route"][-1] == [3, 5, 7]
    assert len(route["route"]) == route["hops"] + 1
    status, out, _ = run_main(capsys, "topology", "route", "0", "15", "--mesh", "4x4")
    assert status == 0 and "6 hop(s)" in out and "(3,3)" in out


def test_compare_reports_records_it_cannot_predict(capsys, tmp_path):
    from helpers import golden, write_jsonl
    path = write_jsonl(tmp_path / "r.jsonl", [golden("mpi")])
    status, out, err = run_main(capsys, "simulate", "--compare", str(path), "--json")
    assert status == 0 and json.loads(out)["records"] == []
