"""The congestion family with the real hpcprobe-bench: 1-3 ranks are refused in one line
(each role needs 2), 4 ranks run every canary beside every congestor at tiny sizes with
every sample kept, congestor traffic counted per node, and the CIFs; congestors that move
nothing and a damaged canary message fail validation; `--congestor none` is the explicit
baseline; the record reads back as a table, a report section and a comparison."""

import pytest
from helpers import run_hpcprobe
from integration import run_bench

from hpcprobe.families.congestion.cif import cif_rows
from hpcprobe.results import read_records

TINY = ("--samples", "20", "--bandwidth-samples", "3", "--bandwidth-bytes", "4K",
        "--congestor-bytes", "64", "--warmup", "2", "--quiet")


def run_records(tmp_path, np_, *options, rc=0, extra_env=()):
    out = tmp_path / "results.jsonl"
    done = run_bench("congestion", "load", *TINY, "--out", str(out), *options, np=np_,
                     timeout=120, extra_env=extra_env)
    assert done.returncode == rc, done.stderr
    if rc == 2:
        return done
    found = read_records(out)
    assert found.problems == []
    return found.records


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_fewer_than_four_ranks_are_refused_in_one_line(tmp_path, ranks):
    done = run_records(tmp_path, ranks, rc=2)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "at least 4 ranks" in lines[0]
    results = tmp_path / "results.jsonl"  # --out is checked writable: it may exist, empty
    assert not results.exists() or results.read_text() == ""


@pytest.mark.parametrize("congestor", ["incast", "put-incast", "get-bcast", "alltoall"])
def test_every_pattern_runs_on_four_ranks(tmp_path, congestor):
    (record,) = run_records(tmp_path, 4, "--congestor", congestor)
    assert record["validation"]["verdict"] == "passed"
    params, counters = record["parameters"], record["counters"]
    assert params["role_unit"] == "rank" and params["canary_ranks"] == 2
    assert sum(counters["rank_congestor"]) == 2
    key = "congestor_bytes_" + congestor.replace("-", "_")
    assert sum(counters[key]) > 0 and counters["congestor_wrong_messages"] == 0
    names = {m["name"]: m for m in record["metrics"]}
    for canary in ("latency", "bandwidth", "allreduce"):
        kept = 3 if canary == "bandwidth" else 20
        for condition in ("isolated", congestor.replace("-", "_")):
            assert len(names[f"{canary}_{condition}"]["samples"]) == 2 * kept
    assert {row.congestor for row in cif_rows(record)} == {congestor}
    assert record["value"]["metric"] == "cif_bandwidth_" + congestor.replace("-", "_")
    assert any("roles are split per rank" in note for note in record["notes"])


def test_congestors_that_move_nothing_fail_validation(tmp_path):
    (record,) = run_records(tmp_path, 4, "--congestor", "incast,alltoall", "--canary", "latency",
                            rc=1, extra_env={"HPCPROBE_INJECT_FAULT": "mute:1"})
    assert record["validation"]["verdict"] == "failed"
    assert "moved 0 bytes: incast, alltoall" in record["validation"]["detail"]


@pytest.mark.parametrize("canary", ["latency", "bandwidth", "allreduce"])
def test_a_damaged_canary_message_fails_validation(tmp_path, canary):
    (record,) = run_records(tmp_path, 4, "--canary", canary, "--congestor", "incast", rc=1,
                            extra_env={"HPCPROBE_INJECT_FAULT": "corrupt:1"})
    assert record["validation"]["verdict"] == "failed"
    assert record["counters"]["canary_wrong_messages"] >= 1


def test_congestor_none_is_the_quiet_baseline(tmp_path):
    (record,) = run_records(tmp_path, 5, "--congestor", "none")
    assert record["validation"]["verdict"] == "passed"
    assert record["parameters"]["congestors"] == "none"
    assert not any(key.startswith("congestor_bytes") for key in record["counters"])
    assert any("explicit baseline" in note for note in record["notes"])
    assert [row.congestor for row in cif_rows(record)] == ["none"] * 3


def test_the_command_prints_the_cif_table_and_the_report_has_the_section(tmp_path):
    done = run_hpcprobe("congestion", "--np", "4", *TINY[:-1], "--congestor", "get-bcast",
                        "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "CIF per canary and congestor" in done.stdout and "get-bcast" in done.stdout
    report = tmp_path / "report.html"
    done = run_hpcprobe("report", str(tmp_path / "run"), "--output", str(report))
    assert done.returncode == 0, done.stderr
    html = report.read_text()
    assert "Congestion under load" in html
    assert "bandwidth canary: isolated against congested" in html
    done = run_hpcprobe("compare", str(tmp_path / "run"), str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "cif_bandwidth_get_bcast" in done.stdout
