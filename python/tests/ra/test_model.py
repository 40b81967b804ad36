"""The RandomAccess models (hpcprobe.model, model_fit) and `hpcprobe model ra`: pure
Python from synthetic records, and one --measure run with the real binary at the end."""

import json
import math

import pytest
from helpers import golden, write_jsonl

from hpcprobe.cli import main
from hpcprobe.families.ra.model import (
    Bottleneck,
    HypercubeModel,
    alltoall_messages,
    alltoall_words,
    cpu_bound_gups,
    grid_messages,
    grid_shape_messages,
    grid_shape_words,
    grid_words,
    hypercube_messages,
    hypercube_words,
    messages_per_step,
    network_bound_gups,
    parse_topology,
    words_per_step,
)
from hpcprobe.families.ra.model_fit import fit_t1, fit_tc, measured_bytes_per_update, measured_gups

# Plimpton et al., Table 2, "GUPS (model)": T_1 = 56.9 µs, T_C = 33 µs, Q = 1024.
TABLE_2_MODEL = {1: "0.0180", 4: "0.0333", 16: "0.0867", 64: "0.257", 256: "0.817",
                 1024: "2.71", 4096: "9.26", 8192: "17.26"}
RED_STORM = ["--t1", "56.9e-6", "--tc", "33e-6"]


def as_printed(text):
    """(value, half a unit of its last printed digit)."""
    decimals = len(text.split(".")[1])
    return float(text), 0.5 * 10 ** -decimals


def run_main(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, [line for line in captured.err.splitlines() if line.strip()]


@pytest.mark.parametrize("procs", sorted(TABLE_2_MODEL))
def test_hypercube_model_reproduces_table_2(procs):
    value, half_digit = as_printed(TABLE_2_MODEL[procs])
    assert HypercubeModel(56.9e-6, 33e-6, 1024).gups(procs) == pytest.approx(value, abs=half_digit)


def test_model_json_reproduces_table_2(capsys):
    procs = ",".join(str(p) for p in sorted(TABLE_2_MODEL))
    status, out, err = run_main(capsys, "model", "ra", *RED_STORM, "--procs", procs, "--json")
    assert status == 0 and err == []
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["procs"] for row in rows] == sorted(TABLE_2_MODEL)
    for row in rows:
        value, half_digit = as_printed(TABLE_2_MODEL[row["procs"]])
        assert row["gups"] == pytest.approx(value, abs=half_digit)
    assert rows[0]["efficiency_percent"] == 100.0
    assert rows[1]["efficiency_percent"] == pytest.approx(100 * 56.9 / (56.9 + 2 * 33))


def test_model_default_procs_are_powers_of_two_to_2_20(capsys):
    status, out, _ = run_main(capsys, "model", "ra", *RED_STORM, "--json")
    assert status == 0
    assert [json.loads(line)["procs"] for line in out.splitlines()] == [
        1 << k for k in range(21)]


def test_model_table_for_people(capsys):
    status, out, _ = run_main(capsys, "model", "ra", *RED_STORM, "--procs", "1024,8192")
    assert status == 0
    assert "2.71" in out and "17.26" in out
    assert "T_1 = 56.9 µs per 1024 updates (given); T_C = 33 µs" in out


def test_per_update_times_are_t1_and_tc_over_q():
    model = HypercubeModel(56.9e-6, 33e-6, 1024)
    assert model.t_cpu_s == pytest.approx(56.9e-6 / 1024)
    assert model.t_comm_s == pytest.approx(33e-6 / 1024)


def test_eq_1_terms():
    assert cpu_bound_gups(1, 1e-9, 5e-9) == pytest.approx(1.0)
    assert cpu_bound_gups(4, 1e-9, 4e-9) == pytest.approx(4 / (1e-9 + 3e-9) / 1e9)
    assert network_bound_gups(2e9, 8) == pytest.approx(1.0)


@pytest.mark.parametrize("spec, procs, links", [
    ("torus:8x8x16", 1024, 2 * 1024 / 16),  # the named machine: 2·P/D_max
    ("mesh:8x8x16", 1024, 1024 / 16),
    ("torus:3d", 512, 2 * 512 / 8),         # a cube of side 8
    ("torus:8x8x16", 8192, 2 * 8192 / 32),  # grown 8x: every side doubles
    ("torus:1x1x16", 16, 2),                # a ring: sizes of 1 do not grow
    ("fattree", 1000, 500),
])
def test_bisection_links(spec, procs, links):
    topology = parse_topology(spec)
    assert topology.bisection_bytes_per_s(procs, 1.0) == pytest.approx(links)


def bottleneck(spec, t_cpu_s, t_comm_s=0.0, link=1e9, bytes_per_update=8.0):
    return Bottleneck(parse_topology(spec), link, bytes_per_update, t_cpu_s, t_comm_s)


def test_crossover_of_a_cubic_torus():
    # Network bound 4·2·P^(2/3)·1e9/8 = P^(2/3) GUPS; CPU bound P/10.5 GUPS: the network
    # takes over once P^(1/3) > 10.5, i.e. P > 1157.6.
    bound = bottleneck("torus:3d", t_cpu_s=10.5e-9)
    assert bound.crossover_procs() == 1158
    assert not bound.network_binds(1157) and bound.network_binds(1158)
    assert bound.network_gups(1) is None


def test_communication_time_moves_the_crossover_later():
    assert bottleneck("torus:3d", 10.5e-9, t_comm_s=10e-9).crossover_procs() > 1158


def test_full_bisection_never_binds_and_a_tiny_one_always_does():
    assert bottleneck("fattree", 1e-8).crossover_procs() is None
    assert bottleneck("mesh:1d", 1e-8, link=1e6).crossover_procs() == 2


def test_bottleneck_through_the_cli(capsys):
    status, out, _ = run_main(capsys, "model", "ra", "--t1", "10.752e-6", "--tc", "0",
                              "--topology", "torus:3d", "--link-bandwidth", "1e9",
                              "--procs", "1000,2000", "--json")
    assert status == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["bound"] for row in rows] == ["cpu", "network"]
    assert {row["crossover_procs"] for row in rows} == {1158}
    assert rows[0]["bytes_per_update"] == 8
    assert rows[1]["network_bound_gups"] == pytest.approx(2000 ** (2 / 3))


@pytest.mark.parametrize("procs, q", [(2, 1024), (16, 1024), (1024, 64), (4096, 1)])
def test_analytic_counts(procs, q):
    assert alltoall_messages(procs) == procs - 1
    assert alltoall_words(procs, q) == pytest.approx(q * (procs - 1) / procs)
    assert hypercube_messages(procs) == pytest.approx(math.log2(procs))
    assert hypercube_words(procs, q) == pytest.approx(math.log2(procs) * q / 2)
    side = procs ** (1 / 2)
    assert grid_messages(procs, 2) == pytest.approx(2 * (side - 1))
    assert grid_words(procs, q, 2) == pytest.approx(2 * q * (side - 1) / side)


def test_grid_counts_agree_with_the_other_algorithms_at_their_extremes():
    # A 1-D grid is the all-to-all; a grid of sides 2 is the hypercube.
    assert grid_messages(64, 1) == pytest.approx(alltoall_messages(64))
    assert grid_words(64, 1024, 1) == pytest.approx(alltoall_words(64, 1024))
    assert grid_messages(64, 6) == pytest.approx(hypercube_messages(64))
    assert grid_words(64, 1024, 6) == pytest.approx(hypercube_words(64, 1024))
    assert grid_shape_messages([4, 4, 4]) == pytest.approx(grid_messages(64, 3))
    assert grid_shape_words([4, 4, 4], 1024) == pytest.approx(grid_words(64, 1024, 3))
    assert grid_shape_messages([2, 2, 1]) == 2


def test_counts_by_algorithm_name():
    assert messages_per_step("alltoall", 8) == 7
    assert messages_per_step("torus", 8, dims=3) == pytest.approx(3)
    # Paper 001, section 2: P = 10000 sends 9999 messages in 1-D, "200" (2 x 99) on 100 x 100.
    assert messages_per_step("staged", 10000, dims=1) == 9999
    assert messages_per_step("staged", 10000, dims=2) == pytest.approx(198)
    assert words_per_step("staged", 16, 1024, dims=2) == pytest.approx(2 * 1024 * 3 / 4)
    assert words_per_step("hypercube", 8, 1024) == pytest.approx(1536)
    with pytest.raises(ValueError):
        messages_per_step("reference", 8)


def hypercube_record(ranks, mods="none", lookahead=1024, seconds=(0.5, 0.4, 0.6),
                     updates=1 << 20, rate=1e7):
    record = golden("mpi")
    record["algorithm"] = "hypercube"
    record["layout"]["ranks"] = ranks
    record["parameters"].update(mods=mods, lookahead=lookahead)
    record["value"]["value"] = rate
    record["metrics"] = [
        {"name": "update_rate", "unit": "updates/s", "samples": [rate] * len(seconds)},
        {"name": "time", "unit": "s", "samples": list(seconds)},
        {"name": "updates", "unit": "updates", "samples": [updates] * len(seconds)},
    ]
    steps = updates // ranks // lookahead
    stages = max(1, int(math.log2(ranks))) if ranks > 1 else 0
    record["counters"] = {
        "updates_executed": updates,
        "steps": [steps] * ranks,
        "stages": [stages] * ranks,
        # 30, 40, 50, ... µs per stage on successive ranks.
        "route_ns": [(30_000 + 10_000 * rank) * steps * stages for rank in range(ranks)],
        "bytes_sent": [4 * updates // ranks] * ranks,
    }
    return record


def test_t1_is_time_per_q_updates_on_one_rank():
    fit = fit_t1([hypercube_record(1)], 1024)
    assert fit.value_s == pytest.approx(0.5 * 1024 / (1 << 20))
    assert fit.procs == (1,)


def test_tc_is_the_median_over_ranks_of_one_stage():
    fit = fit_tc([hypercube_record(4)], 1024)
    assert fit.value_s == pytest.approx(45e-6)  # ranks at 30, 40, 50, 60 µs
    assert fit.procs == (4,)


def test_fits_pass_over_records_that_do_not_fit_the_definition():
    wrong = [
        hypercube_record(2, mods="prepost,late-update,late-wait,isend"),  # overlapped
        hypercube_record(2, lookahead=512),
        hypercube_record(1),  # no exchange
    ]
    reference = hypercube_record(2)
    reference["algorithm"] = "reference"
    failed = hypercube_record(2)
    failed["validation"]["verdict"] = "failed"
    hostile = hypercube_record(2)
    hostile["counters"].update(route_ns=["x", None], steps=[0, True])
    assert fit_tc(wrong + [reference, failed, hostile], 1024) is None
    assert fit_t1(wrong[:2] + [hypercube_record(2)], 1024) is None


def test_measured_points_and_bytes_per_update():
    records = [hypercube_record(1, rate=1e7), hypercube_record(2, rate=1.5e7),
               hypercube_record(2, rate=2.5e7), hypercube_record(4, lookahead=64)]
    points = measured_gups(records, "hypercube", 1024)
    assert sorted(points) == [1, 2]
    assert points[1] == pytest.approx([0.01]) and points[2] == pytest.approx([0.015, 0.025])
    assert measured_bytes_per_update(records, "hypercube") == (4, 4.0)
    assert measured_bytes_per_update(records, "torus") is None


def test_model_fitted_from_a_results_file(tmp_path, capsys):
    results = write_jsonl(tmp_path / "results.jsonl", [hypercube_record(1), hypercube_record(2)])
    status, out, err = run_main(capsys, "model", "ra", "--from", str(tmp_path),
                                "--procs", "1,2,4", "--json", "--topology", "fattree",
                                "--link-bandwidth", "1e9")
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    t1_s = 0.5 * 1024 / (1 << 20)
    assert rows[0]["t1_s"] == pytest.approx(t1_s)
    assert rows[0]["tc_s"] == pytest.approx(35e-6)  # ranks at 30 and 40 µs
    assert rows[0]["t1_source"] == "fitted from 1 record on 1 rank"
    assert rows[0]["tc_source"] == "fitted from 1 record on 2 ranks"
    assert [row["measured_gups"] for row in rows] == [0.01, 0.01, None]
    assert rows[1]["measured_bytes_per_update"] == 4.0
    assert rows[1]["bytes_per_update"] == 8.0
    assert results.exists()


def test_given_times_win_over_fitted_ones(tmp_path, capsys):
    write_jsonl(tmp_path / "results.jsonl", [hypercube_record(1), hypercube_record(2)])
    status, out, _ = run_main(capsys, "model", "ra", "--from", str(tmp_path / "results.jsonl"),
                              "--tc", "1e-5", "--procs", "2", "--json")
    assert status == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["procs"] for row in rows] == [1, 2]  # the measured ranks join --procs
    row = rows[1]
    assert row["tc_s"] == 1e-5 and row["tc_source"] == "given"
    assert row["t1_source"].startswith("fitted")


def test_nothing_to_fit_from_is_one_line_and_exit_2(tmp_path, capsys):
    write_jsonl(tmp_path / "results.jsonl", [golden("mpi")])
    status, out, err = run_main(capsys, "model", "ra", "--from", str(tmp_path), "--t1", "1e-4")
    assert status == 2 and out == ""
    assert err == [
        "hpcprobe: no 'ra mpi --algo hypercube --mods none' record on 2 or more ranks at "
        "look-ahead 1024 with route_ns, steps and stages to fit T_C from in "
        f"{tmp_path}; give --tc S or run with --measure"]


def test_invalid_lines_are_reported_and_the_rest_used(tmp_path, capsys):
    path = write_jsonl(tmp_path / "results.jsonl", [hypercube_record(1), hypercube_record(2)])
    with open(path, "a") as stream:
        stream.write("{not json\n")
    status, out, err = run_main(capsys, "model", "ra", "--from", str(path), "--procs", "2",
                                "--json")
    assert status == 1
    assert err == [f"{path}:3: invalid record: not JSON (Expecting property name enclosed "
                   "in double quotes at column 2)"]
    assert [json.loads(line)["procs"] for line in out.splitlines()] == [1, 2]


@pytest.mark.parametrize("argv, message", [
    (["--t1", "-5e-5", "--tc", "3e-5"], "--t1 must be a number of seconds > 0, not '-5e-5'"),
    (["--t1", "5e-5", "--tc", "-1"], "--tc must be a number of seconds >= 0, not '-1'"),
    (["--t1", "5e-5", "--tc", "0", "--procs", ""],
     "--procs is empty; give a comma list of whole numbers from 1 to 2^40, such as 1,4,16,64"),
    (["--t1", "5e-5", "--tc", "0", "--procs", "4,0"],
     "--procs takes a comma list of whole numbers from 1 to 2^40, such as 1,4,16,64; "
     "'0' is not one"),
    (["--t1", "5e-5", "--tc", "0", "--topology", "torus:8by8", "--link-bandwidth", "1e9"],
     "topology 'torus:8by8' is malformed: give sizes joined by 'x' (such as torus:8x8x16) or "
     "a dimension count (such as torus:3d); allowed: torus:AxBxC, torus:Nd, mesh:AxBxC, "
     "mesh:Nd or fattree"),
    (["--t1", "5e-5", "--tc", "0", "--topology", "dragonfly", "--link-bandwidth", "1e9"],
     "unknown topology 'dragonfly' (allowed: torus:AxBxC, torus:Nd, mesh:AxBxC, mesh:Nd or "
     "fattree)"),
    (["--t1", "5e-5", "--tc", "0", "--topology", "torus:3d"],
     "--topology needs --link-bandwidth B/S (bytes/s per link and direction)"),
    (["--t1", "5e-5", "--tc", "0", "--topology", "torus:3d", "--link-bandwidth", "-1"],
     "--link-bandwidth must be a number of bytes/s > 0, not '-1'"),
    (["--t1", "5e-5", "--tc", "0", "--bytes-per-update", "8"],
     "--bytes-per-update applies with --topology only (the bottleneck bound needs a network)"),
    (["--t1", "5e-5"], "no value for --tc: give --tc S, or records to fit from with "
                       "--from FILE|DIR, or --measure"),
    (["--t1", "5e-5", "--tc", "0", "--np", "4"],
     "--np applies with --measure only (it launches the runs T_1 and T_C are fitted from)"),
    (["--measure", "--np", "1"], "--np 1 is too few for --measure: T_C is fitted from an "
                                 "exchange between ranks (allowed: 2 or more)"),
    (["--t1", "5e-5", "--tc", "0", "--algo", "hypercub"],
     "unknown algorithm 'hypercub' (allowed: reference, alltoall, hypercube, torus, staged); "
     "did you mean 'hypercube'?"),
])
def test_bad_model_input_is_one_line_and_exit_2(capsys, argv, message):
    status, out, err = run_main(capsys, "model", "ra", *argv)
    assert status == 2 and out == ""
    assert err == [f"hpcprobe: {message}"]


def test_model_needs_a_subject(capsys):
    status, _, err = run_main(capsys, "model", "gups")
    assert status == 2
    assert err == ["hpcprobe: unknown model 'gups' (allowed: ra)"]


def test_measure_fits_from_two_real_runs(tmp_path, capsys):
    status, out, err = run_main(capsys, "model", "ra", "--measure", "--out", str(tmp_path),
                                "--quiet", "--procs", "2,64", "--json")
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["procs"] for row in rows] == [1, 2, 64]  # 1 and 2 were measured
    assert rows[0]["t1_source"] == "fitted from 1 record on 1 rank"
    assert rows[0]["tc_source"] == "fitted from 1 record on 2 ranks"
    assert rows[0]["t1_s"] > 0 and rows[0]["tc_s"] > 0
    assert rows[0]["measured_gups"] > 0 and rows[1]["measured_gups"] > 0
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(r["layout"]["ranks"], r["parameters"]["mods"]) for r in records] == [
        (1, "prepost,late-update,late-wait,isend"), (2, "none")]


def test_overlapped_form_hides_the_exchange_up_to_the_crossover():
    model = HypercubeModel(10e-6, 2e-6, 1024)
    # Below P* = 2^(T_1/T_C) = 32 the exchange is hidden: T_P is T_1 alone.
    assert model.overlapped_step_time_s(2) == 10e-6
    assert model.overlapped_step_time_s(32) == pytest.approx(10e-6)
    assert model.hiding_crossover_procs() == pytest.approx(32.0)
    # Past it the exchange sets the pace, still faster than the lock-step T_1 + T_C·log2 P.
    assert model.overlapped_step_time_s(64) == pytest.approx(12e-6)
    assert model.step_time_s(64) == pytest.approx(22e-6)
    assert model.overlapped_gups(64) == pytest.approx(64 * 1024 / 12e-6 / 1e9)
    assert HypercubeModel(10e-6, 0.0, 1024).hiding_crossover_procs() is None


def test_fits_ignore_overlapped_records():
    from hpcprobe.families.ra.model_fit import mpi_records
    lockstep = {"benchmark": "ra", "variant": "mpi", "algorithm": "hypercube", "status": "ok",
                "validation": {"verdict": "passed"}, "layout": {"ranks": 2},
                "parameters": {"overlap": "off"}}
    overlapped = {**lockstep, "parameters": {"overlap": "on"}}
    assert mpi_records([lockstep, overlapped], "hypercube") == [lockstep]
