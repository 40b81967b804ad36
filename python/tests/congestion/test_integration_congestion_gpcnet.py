"""`hpcprobe congestion --mode gpcnet` with the real hpcprobe-bench on one host (10 ranks,
oversubscribed, split per rank as the default mode splits one node): the record says
which mode ran, its conditions are `isolated` and `gpcnet`, GPCNeT's split (2 canary
ranks, 4 groups of 2), every congestor moved bytes, validation passed, and the command
prints GPCNeT's Key Results layout. Too few ranks, and options of the other mode, are
refused in one line; a damaged canary message or congestors that move nothing fail
validation."""

import json
import os

import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.families.congestion import gpcnet

TINY = ("--samples", "20", "--bandwidth-samples", "8", "--bandwidth-bytes", "4K",
        "--congestor-bytes", "64", "--warmup", "2")


def test_gpcnet_mode_on_one_node_records_and_prints_gpcnets_layout(tmp_path):
    out = tmp_path / "run"
    done = run_hpcprobe("congestion", "--mode", "gpcnet", "--np", "10", *TINY, "--out",
                        str(out), timeout=180)
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    params, counters = record["parameters"], record["counters"]
    assert params["mode"] == "gpcnet" and params["canary_placement"] == "random"
    assert params["role_unit"] == "rank" and params["canary_ranks"] == 2
    assert params["congestor_groups"] == "alltoall:2,incast:2,put-incast:2,get-bcast:2"
    assert sorted(counters["rank_group"]) == [-1, -1, 0, 0, 1, 1, 2, 2, 3, 3]
    names = {m["name"] for m in record["metrics"]}
    for canary in ("latency", "bandwidth", "allreduce"):
        assert {f"{canary}_isolated", f"{canary}_gpcnet", f"cif_{canary}_gpcnet"} <= names
    for congestor in ("alltoall", "incast", "put_incast", "get_bcast"):
        assert sum(counters[f"congestor_bytes_{congestor}"]) > 0
    assert record["validation"]["verdict"] == "passed"
    assert any("gpcnet mode" in note for note in record["notes"])
    for title in (gpcnet.ISOLATED_TITLE, gpcnet.KEY_RESULTS_TITLE, gpcnet.CIF_TITLE):
        assert title in done.stdout
    assert "RR Two-sided BW+Sync (4096 B)" in done.stdout
    assert "MiB/s/rank" in done.stdout and "usec" in done.stdout
    assert params["idle_wait"] == "sleep"


def test_idle_ranks_may_wait_spinning_as_gpcnets_do(tmp_path):
    out = tmp_path / "run"
    done = run_hpcprobe("congestion", "--mode", "gpcnet", "--np", "10", *TINY,
                        "--idle-wait", "spin", "--quiet", "--out", str(out), timeout=180)
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["parameters"]["idle_wait"] == "spin"
    assert record["validation"]["verdict"] == "passed"
    bad = run_hpcprobe("congestion", "--idle-wait", "nap", "--quiet", "--out", str(out))
    assert bad.returncode == 2
    (line,) = stderr_lines(bad)
    assert "idle wait 'nap'" in line and "allowed: sleep, spin" in line


@pytest.mark.parametrize("options, words", [
    (("--np", "4"), "--mode gpcnet needs at least 10 nodes, or 10 ranks on one node"),
    (("--np", "10", "--congestor", "incast"), "--congestor is not allowed with --mode gpcnet"),
    (("--np", "10", "--congestor-fraction", "0.5"),
     "--congestor-fraction is not allowed with --mode gpcnet")])
def test_gpcnet_mode_refuses_in_one_line(tmp_path, options, words):
    done = run_hpcprobe("congestion", "--mode", "gpcnet", *options, *TINY, "--quiet",
                        "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    (line,) = stderr_lines(done)
    assert words in line and "allowed:" in line


@pytest.mark.parametrize("canary, fault, words", [
    ("latency", "corrupt:1", "wrong canary"), ("bandwidth", "corrupt:1", "wrong canary"),
    ("allreduce", "corrupt:1", "wrong canary"),
    ("latency", "mute:1", "moved 0 bytes: alltoall, incast, put-incast, get-bcast")])
def test_gpcnet_mode_validation_fails_on_damage(tmp_path, canary, fault, words):
    out = tmp_path / "run"
    done = run_hpcprobe("congestion", "--mode", "gpcnet", "--np", "10", "--canary", canary,
                        *TINY, "--quiet", "--out", str(out), timeout=180,
                        env=dict(os.environ, HPCPROBE_INJECT_FAULT=fault))
    assert done.returncode == 1, done.stderr
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["validation"]["verdict"] == "failed"
    assert words in record["validation"]["detail"]
