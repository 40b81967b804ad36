"""The result schema, reading JSON Lines as untrusted input, and `hpcprobe show`."""

import csv
import io
import json

import pytest
from helpers import golden, run_hpcprobe, write_jsonl

from hpcprobe import results
from hpcprobe.results import parse_record_line, read_records, schema_problem, shown_problems

VARIANTS = ["single", "star", "mpi"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_golden_records_validate(variant):
    assert schema_problem(golden(variant)) is None


def _drop_validation(record):
    del record["validation"]


def _mutations():
    return [
        ("missing field", _drop_validation, "'validation' is a required property"),
        ("wrong unit", lambda r: r["value"].update(unit="GUPS"), "value.unit"),
        ("wrong metric unit", lambda r: r["metrics"][1].update(unit="ms"), "metrics.1.unit"),
        ("bad verdict", lambda r: r["validation"].update(verdict="maybe"),
         "validation.verdict"),
        ("no ranks", lambda r: r["layout"].update(ranks=0), "layout.ranks"),
        ("unknown field", lambda r: r.update(extra=1), "'extra' was unexpected"),
        ("bad timestamp", lambda r: r.update(started_at="yesterday"), "started_at"),
        ("schema version", lambda r: r.update(schema_version="2.0"), "schema_version"),
        ("string sample", lambda r: r["metrics"][0]["samples"].append("fast"),
         "metrics.0.samples.3"),
    ]


@pytest.mark.parametrize("name, mutate, reason", _mutations(), ids=[m[0] for m in _mutations()])
def test_mutated_records_fail_with_a_reason(name, mutate, reason):
    record = golden("mpi")
    mutate(record)
    problem = schema_problem(record)
    assert problem is not None and reason in problem


def test_show_json_round_trips(tmp_path):
    records = [golden(variant) for variant in VARIANTS]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    completed = run_hpcprobe("show", str(path), "--format", "json")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == records


def test_show_accepts_a_results_directory(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", [golden("star")])
    completed = run_hpcprobe("show", str(tmp_path), "--format", "json")
    assert completed.returncode == 0
    assert json.loads(completed.stdout) == [golden("star")]


def test_show_csv_has_header_and_values(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [golden("mpi"), golden("star")])
    completed = run_hpcprobe("show", str(path), "--format", "csv")
    assert completed.returncode == 0, completed.stderr
    rows = list(csv.reader(io.StringIO(completed.stdout)))
    assert rows[0] == [
        "benchmark", "variant", "algorithm", "ranks", "threads_per_rank", "nodes", "metric",
        "unit", "value", "min", "median", "max", "verdict", "error", "tolerance",
        "compliant", "started_at"]
    assert rows[1] == [
        "ra", "mpi", "reference", "4", "1", "1", "update_rate", "updates/s", "13107200.0",
        "10240000.0", "13107200.0", "16384000.0", "passed", "0", "163.84", "true",
        "2025-01-15T10:00:00Z"]
    assert rows[2][:9] == ["ra", "star", "serial", "3", "1", "1", "update_rate_per_rank_mean",
                           "updates/s", "20000000.0"]
    assert len(rows) == 3


def test_show_table_scales_for_people(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [golden("mpi")])
    completed = run_hpcprobe("show", str(path))
    assert completed.returncode == 0
    assert "0.01311 GUPS" in completed.stdout
    assert "0.01024 / 0.01311 / 0.01638 GUPS" in completed.stdout
    assert "passed (0 ≤ 163.84 words)" in completed.stdout


def test_corrupted_lines_are_reported_and_valid_ones_still_shown(tmp_path):
    path = tmp_path / "results.jsonl"
    bad_verdict = golden("single")
    bad_verdict["validation"]["verdict"] = "maybe"
    write_jsonl(path, [golden("mpi")])
    with open(path, "a") as stream:
        stream.write('{"schema_version": "1.0", "benchm\n')   # line 2: truncated write
        stream.write(json.dumps(bad_verdict) + "\n")           # line 3: fails the schema
        stream.write("\n")                                     # line 4: empty
        stream.write('{"value": NaN}\n')                       # line 5: not JSON
        stream.write("[1, 2]\n")                               # line 6: not an object
    write_jsonl(path, [golden("star")])                        # line 7
    completed = run_hpcprobe("show", str(path), "--format", "json")
    assert completed.returncode == 1
    assert [record["variant"] for record in json.loads(completed.stdout)] == ["mpi", "star"]
    errors = completed.stderr.splitlines()
    assert errors[0].startswith(f"{path}:2: invalid record: not JSON (")
    assert errors[1].startswith(f"{path}:3: invalid record: validation.verdict: 'maybe'")
    assert errors[2] == f"{path}:4: invalid record: empty line"
    assert errors[3] == f"{path}:5: invalid record: not JSON (NaN is not a JSON number)"
    assert errors[4] == f"{path}:6: invalid record: not a JSON object"
    assert len(errors) == 5


def test_invalid_utf8_is_reported(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": "\xff"}\n')
    found = read_records(path)
    assert found.records == []
    assert found.problems == [f"{path}:1: invalid record: not UTF-8 text (byte 7)"]


def test_missing_file_is_exit_2(tmp_path):
    completed = run_hpcprobe("show", str(tmp_path / "nope.jsonl"))
    assert completed.returncode == 2
    assert "nope.jsonl: cannot read" in completed.stderr


def test_reading_from_an_offset_keeps_line_numbers(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [golden("single"), golden("star")])
    offset = path.stat().st_size
    with open(path, "a") as stream:
        stream.write("garbage\n")
    write_jsonl(path, [golden("mpi")])
    found = read_records(path, offset)
    assert [record["variant"] for record in found.records] == ["mpi"]
    assert found.problems == [f"{path}:3: invalid record: not JSON (Expecting value at column 1)"]


def test_limits_are_1_gib_per_file_and_64_mib_per_line():
    assert results.MAX_FILE_BYTES == 1 << 30
    assert results.MAX_LINE_BYTES == 64 << 20


def test_overlong_line_is_refused_and_reading_goes_on(tmp_path, monkeypatch):
    limit = len(json.dumps(golden("mpi"))) + 1
    monkeypatch.setattr(results, "MAX_LINE_BYTES", limit)
    path = tmp_path / "r.jsonl"
    path.write_text('{"x": "' + "y" * 3 * limit + '"}\n')
    write_jsonl(path, [golden("mpi")])
    found = read_records(path)
    assert found.problems == [f"{path}:1: invalid record: line longer than {limit} bytes"]
    assert [record["variant"] for record in found.records] == ["mpi"]


def test_oversized_file_is_refused(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "r.jsonl", [golden("mpi")])
    monkeypatch.setattr(results, "MAX_FILE_BYTES", 10)
    found = read_records(path)
    assert found.records == []
    assert found.problems == [
        f"{path}: invalid record file: {path.stat().st_size} bytes is more than the limit "
        "of 10 bytes"]


def test_strings_from_records_are_not_markup_or_formulas(tmp_path):
    record = golden("mpi")
    record["validation"]["error_unit"] = "[bold red]words[/]\x1b[2J"
    record["value"]["metric"] = "=HYPERLINK(\"x\")"
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    table = run_hpcprobe("show", str(path))
    assert "[bold red]words[/]\\x1b[2J" in table.stdout  # the escape shown, not obeyed
    assert "\x1b" not in table.stdout
    rows = list(csv.reader(io.StringIO(run_hpcprobe("show", str(path), "--format",
                                                    "csv").stdout)))
    assert rows[1][6] == "'=HYPERLINK(\"x\")"


def test_a_record_no_verifier_judged_is_refused_as_unvalidated(tmp_path):
    # hpcprobe-bench writes verdict "not_validated" when a driver never verified; such a
    # record is never taken for a measurement, whatever else it holds.
    record = golden("single")
    record["validation"] = {"verdict": "not_validated", "method": "none"}
    record["status"] = "failed"
    path = tmp_path / "results.jsonl"
    write_jsonl(path, [golden("star"), record])
    found = read_records(path)
    assert [r["variant"] for r in found.records] == ["star"]
    assert found.problems == [f"{path}:2: invalid record: unvalidated: no verifier ran for "
                              "this record (validation.verdict not_validated), so its figures "
                              "are not results"]


def test_a_nan_error_is_written_as_null_and_read_as_a_failure(tmp_path):
    record = golden("single")
    record["status"] = "failed"
    record["validation"].update(verdict="failed", error=None, per_repetition=[0, None])
    assert schema_problem(record) is None


@pytest.mark.parametrize("text, reason", [
    ("1e400", "number 1e400 is out of the range of a double"),
    ("-1e999", "number -1e999 is out of the range of a double"),
    ("9223372036854775808", "integer 9223372036854775808 is out of the signed 64-bit range"),
    ("-9223372036854775809", "integer -9223372036854775809 is out of the signed 64-bit range"),
    ("1" * 5000, f"integer {'1' * 39}… is out of the signed 64-bit range"),
])
def test_numbers_no_record_holds_are_refused(text, reason):
    line = json.dumps(golden("mpi")).replace('"updates_executed": 65536',
                                             f'"updates_executed": {text}')
    assert parse_record_line(line.encode() + b"\n") == (None, reason)


def test_the_int64_range_and_large_finite_doubles_are_read():
    record = golden("mpi")
    record["counters"]["updates_executed"] = -(1 << 63)
    record["counters"]["messages_sent"] = [(1 << 63) - 1]
    record["metrics"][3]["samples"] = [1.7e308, 5e-324]
    assert parse_record_line(json.dumps(record).encode()) == (record, None)


PARTIAL = "partial record (a write cut short, e.g. on a full disk); skipped"


def test_records_after_a_cut_short_one_on_its_line_are_read(tmp_path):
    path = tmp_path / "r.jsonl"
    single, star, mpi = (json.dumps(golden(v)) for v in ("single", "star", "mpi"))
    path.write_text(single[:50] + star[:300] + mpi + "\n" + single + "\n")
    found = read_records(path)
    assert [r["variant"] for r in found.records] == ["mpi", "single"]
    assert found.problems == [f"{path}:1: invalid record: {PARTIAL}"] * 2


def test_a_whole_record_that_lost_its_newline_is_read(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(golden("star")) + json.dumps(golden("mpi")) + "\n")
    found = read_records(path)
    assert [r["variant"] for r in found.records] == ["star", "mpi"]
    assert found.problems == []


def test_a_last_line_cut_short_is_a_partial_record(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [golden("mpi")])
    with open(path, "a") as stream:
        stream.write(json.dumps(golden("star"))[:-10])
    found = read_records(path)
    assert [r["variant"] for r in found.records] == ["mpi"]
    assert found.problems == [f"{path}:2: invalid record: {PARTIAL}"]


def test_a_line_that_is_json_is_never_split(tmp_path):
    # A valid JSON line fails with its own reason, even when a nested object starts as
    # a record does.
    path = tmp_path / "r.jsonl"
    path.write_text('{"x": {"schema_version": "1.0"}}\n')
    found = read_records(path)
    assert len(found.problems) == 1 and PARTIAL not in found.problems[0]


def test_problems_beyond_the_first_thousand_are_counted_not_kept(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("x\n" * 1500)
    found = read_records(path)
    assert len(found.problems) == results.MAX_KEPT_PROBLEMS
    assert found.problem_count == 1500
    shown = shown_problems(found)
    assert len(shown) == 21
    assert shown[-1] == "… and 1480 more invalid lines (not shown)"


def test_what_is_not_a_regular_file_is_refused_unopened(tmp_path):
    import os
    os.mkfifo(tmp_path / "fifo")  # opening it for reading would wait for a writer
    with pytest.raises(results.NotRegularFile, match="a FIFO, not a file of records"):
        read_records(tmp_path / "fifo")
    with pytest.raises(results.NotRegularFile, match="a directory"):
        read_records(tmp_path)


def test_reasons_show_the_hidden_characters_of_records(tmp_path):
    record = golden("mpi")
    record["parameters"]["\x1b[2J\u202e"] = {"nested": 1}
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    [problem] = read_records(path).problems
    assert "\x1b" not in problem and "\u202e" not in problem
    assert "\\x1b[2J\\u202e" in problem


def test_a_line_of_a_hundred_thousand_record_starts_is_split_in_one_pass(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(results.RECORD_START * 100_000 + b"\n")
    completed = run_hpcprobe("show", str(path), timeout=60)  # quadratic: hours
    assert completed.returncode == 1
    assert completed.stderr.splitlines()[-1] == "… and 99980 more invalid lines (not shown)"
