"""Hostile input to the commands that read records (`show`, `report`, `compare`): strings
that try to drive a terminal, a browser, a Markdown renderer or a spreadsheet; numbers
no record can hold; files that are not files; floods of garbage; outputs that cannot be
written. Each is one line on stderr and an exit status, never a traceback or a hang."""

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import DATA, golden, run_hpcprobe, stderr_lines, write_jsonl

# Terminal escapes (7- and 8-bit), bidi controls, HTML, a Markdown cell break, rich
# markup, a line break and a spreadsheet formula.
HOSTILE = ("\x1b[31mred\x9b31m\u202eevil\u202c <script>alert(1)</script> | [bold red]x[/] "
           "line\nbreak \u2066iso\u2069\u200f\u061c `code` *em*")
FORMULA = "=cmd|' /C calc'!A0"
# Characters no output may hold raw: C0 (but tab and newline, which outputs use), DEL,
# C1, and the bidi controls.
RAW_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                        "\u2066-\u2069]")


def hostile_record():
    """A valid record whose every free string is hostile (the headline's metric name
    starts a formula, and reaches the CSV and the report's warnings)."""
    record = golden("mpi")
    record["algorithm"] = "hypercube"
    record["parameters"]["mods"] = HOSTILE
    record["value"]["metric"] = FORMULA + HOSTILE
    record["notes"] = [HOSTILE]
    record["metadata"].update(hosts=[HOSTILE], cpu_model=HOSTILE, compiler=HOSTILE)
    record["validation"].update(error_unit=HOSTILE, method=HOSTILE, detail=HOSTILE)
    return record


def hostile_latency():
    """A memory latency record: its parameters name the report's curves and CSV rows."""
    record = json.loads((DATA / "mem-latency.json").read_text())
    record["parameters"]["hugepages"] = HOSTILE
    return record


@pytest.fixture
def systems(tmp_path):
    """Two systems of hostile records, the second twice as slow as the first."""
    paths = []
    for name, scale in (("fast", 1.0), ("slow", 0.5)):
        record = hostile_record()
        record["metrics"][0]["samples"] = [scale * s for s in record["metrics"][0]["samples"]]
        (tmp_path / name).mkdir()
        paths.append(write_jsonl(tmp_path / name / "results.jsonl",
                                 [record, hostile_latency()]).parent)
    return paths


def assert_nothing_hidden(text, where):
    found = RAW_HIDDEN.search(text)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}"


def assert_no_formula(rows, where):
    """Text cells that a spreadsheet would run start with '; numbers may be negative."""
    for row in rows:
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@"):
                assert re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", cell), (where, cell)


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_show_table_json_csv(systems):
    table = run_hpcprobe("show", str(systems[0]))
    assert table.returncode == 0, table.stderr
    assert_nothing_hidden(table.stdout + table.stderr, "show table")
    assert "\\x1b[31mred\\x9b31m\\u202eevil" in table.stdout  # shown, not obeyed
    shown = run_hpcprobe("show", str(systems[0]), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert_nothing_hidden(shown.stdout, "show json")
    assert json.loads(shown.stdout) == [hostile_record(), hostile_latency()]  # escapes only
    rows = csv_rows(run_hpcprobe("show", str(systems[0]), "--format", "csv").stdout)
    assert_nothing_hidden(json.dumps(rows, ensure_ascii=False), "show csv")
    assert rows[1][6].startswith("'" + FORMULA)
    assert_no_formula(rows, "show")


def test_report_html_csv_and_terminal(systems, tmp_path):
    out = tmp_path / "report.html"
    completed = run_hpcprobe("report", str(systems[0]), "-o", str(out))
    assert completed.returncode == 0, completed.stderr
    assert_nothing_hidden(completed.stdout + completed.stderr, "report terminal")
    assert "warning: ra mpi hypercube (mods \\x1b[31m" in completed.stdout
    assert "[bold red]x[/]" in completed.stdout  # text, not rich markup
    html = out.read_text(encoding="utf-8")
    assert_nothing_hidden(html, "report html")
    assert "<script" not in html.lower() and "&lt;script&gt;alert(1)" in html
    data = sorted((tmp_path / "report-data").iterdir())
    assert data, "the report wrote no CSV"
    assert any("\\x1b[31m" in path.read_text(encoding="utf-8") for path in data)
    for path in data:
        text = path.read_text(encoding="utf-8")
        assert_nothing_hidden(text, path.name)
        assert_no_formula(csv_rows(text), path.name)


@pytest.mark.parametrize("format_", ["table", "csv", "markdown", "html"])
def test_compare_every_format(systems, tmp_path, format_):
    out = tmp_path / f"compare.{format_}"
    completed = run_hpcprobe("compare", str(systems[1]), "--baseline", str(systems[0]),
                             "--format", format_, "-o", str(out))
    assert completed.returncode == 1, completed.stderr  # slow regressed against fast
    assert "hpcprobe: regression: slow: ra mpi hypercube (mods \\x1b[31m" in completed.stderr
    text = out.read_text(encoding="utf-8")
    assert_nothing_hidden(text + completed.stdout + completed.stderr, f"compare {format_}")
    assert "\\x1b" in text  # the hostile row is there, escaped
    if format_ in ("markdown", "html"):
        assert "<script" not in text.lower() and "&lt;script&gt;" in text
    if format_ == "csv":
        assert_no_formula(csv_rows(text), "compare csv")
    if format_ == "markdown":
        first_table = text.split("\n\n")[1].splitlines()
        pipes = {len(re.findall(r"(?<!\\)\|", line)) for line in first_table}
        assert len(first_table) >= 3 and len(pipes) == 1, "a record string broke a table row"


def test_compare_to_stdout_markdown(systems):
    completed = run_hpcprobe("compare", str(systems[0]), str(systems[1]), "--format",
                             "markdown")
    assert completed.returncode == 0, completed.stderr
    assert_nothing_hidden(completed.stdout, "compare markdown")
    assert "<script" not in completed.stdout.lower()
    assert "&lt;script&gt;" in completed.stdout


# Numbers: JSON allows them, no record holds them.
@pytest.mark.parametrize("number, reason", [
    ("1e400", "number 1e400 is out of the range of a double"),
    ("-1e999", "number -1e999 is out of the range of a double"),
    (str(2 ** 70), f"integer {2 ** 70} is out of the signed 64-bit range"),
])
def test_numbers_no_record_holds_are_refused_by_every_command(tmp_path, number, reason):
    good = golden("mpi")
    bad = golden("mpi")
    bad["metrics"][0]["samples"][0] = 271828.5  # a marker json.dumps writes as is
    path = tmp_path / "run" / "results.jsonl"
    path.parent.mkdir()
    write_jsonl(path, [good])
    with open(path, "a") as stream:
        stream.write(json.dumps(bad).replace("271828.5", number) + "\n")
    expected = [f"{path}:2: invalid record: {reason}"]
    shown = run_hpcprobe("show", str(path))
    assert (shown.returncode, stderr_lines(shown)) == (1, expected)
    report = run_hpcprobe("report", str(path), "-o", str(tmp_path / "r.html"), "--quiet")
    assert (report.returncode, stderr_lines(report)) == (1, expected)
    compare = run_hpcprobe("compare", str(path), str(path))
    assert compare.returncode == 0 and stderr_lines(compare) == expected * 2


def test_a_partial_line_gives_up_its_prefix_and_keeps_the_record_after_it(tmp_path):
    path = tmp_path / "results.jsonl"
    whole = json.dumps(golden("star"))
    path.write_text(whole[:100] + json.dumps(golden("mpi")) + "\n")
    completed = run_hpcprobe("show", str(path), "--format", "json")
    assert completed.returncode == 1
    assert [r["variant"] for r in json.loads(completed.stdout)] == ["mpi"]
    assert stderr_lines(completed) == [
        f"{path}:1: invalid record: partial record (a write cut short, e.g. on a full disk); "
        "skipped"]


# Files that are not files of records: refused unread, promptly.
def _not_a_file(tmp_path, kind):
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo"
    if kind == "empty dir":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty"
    return Path(kind)


@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/urandom", "fifo", "empty dir"])
@pytest.mark.parametrize("command", ["show", "report", "compare"])
def test_what_is_not_a_file_is_refused_in_one_line(tmp_path, kind, command):
    assert not kind.startswith("/dev/") or Path(kind).exists(), f"no {kind} on this machine"
    target = str(_not_a_file(tmp_path, kind))
    argv = {"show": ["show", target], "compare": ["compare", target, target],
            "report": ["report", target, "-o", str(tmp_path / "r.html")]}[command]
    completed = run_hpcprobe(*argv, timeout=30)
    assert completed.returncode == 2, completed.stderr
    lines = stderr_lines(completed)
    assert len(lines) == 1, lines
    assert "cannot read" in lines[0]
    assert not (tmp_path / "r.html").exists()


def test_a_flood_of_garbage_prints_21_lines_at_most(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text("".join(f"garbage {n}\n" for n in range(200_000)))
    write_jsonl(path, [golden("mpi")])
    completed = run_hpcprobe("show", str(path), "--format", "json", timeout=120)
    assert completed.returncode == 1
    lines = stderr_lines(completed)
    assert len(lines) == 21
    assert lines[19].startswith(f"{path}:20: invalid record: not JSON")
    assert lines[20] == "… and 199980 more invalid lines (not shown)"
    assert [r["variant"] for r in json.loads(completed.stdout)] == ["mpi"]


# Outputs that cannot be written: one line, exit status 4, nothing half-written.
@pytest.mark.parametrize("format_", ["table", "json", "csv"])
def test_show_into_a_full_disk(tmp_path, format_):
    assert Path("/dev/full").exists(), "this test writes to /dev/full (Linux)"
    path = write_jsonl(tmp_path / "results.jsonl", [golden("mpi")] * 50)
    with open("/dev/full", "w") as full:
        completed = subprocess.run([sys.executable, "-m", "hpcprobe", "show", str(path),
                                    "--format", format_], stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=60)
    assert completed.returncode == 4
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
    assert lines[0].startswith("hpcprobe: cannot write")


def test_a_closed_pipe_is_quiet(tmp_path):
    path = write_jsonl(tmp_path / "results.jsonl", [golden("mpi")] * 3000)  # > a pipe's buffer
    shown = subprocess.Popen([sys.executable, "-m", "hpcprobe", "show", str(path), "--format",
                              "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    shown.stdout.read(10)
    shown.stdout.close()  # as `| head` does
    stderr = shown.stderr.read().decode()
    assert shown.wait(timeout=60) == 3
    assert stderr == ""


def test_report_where_a_directory_cannot_be_made(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", [golden("mpi")])
    (tmp_path / "file").write_text("a file, not a directory")
    out = tmp_path / "file" / "report.html"
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(out), "--quiet")
    assert completed.returncode == 4
    assert stderr_lines(completed) == [f"hpcprobe: cannot write {out.parent}: File exists"]


def test_report_on_a_full_disk_leaves_the_old_files_whole(tmp_path, monkeypatch, capsys):
    from hpcprobe import output_files
    from hpcprobe.cli import main

    def full_disk(descriptor):
        raise OSError(28, "No space left on device")

    write_jsonl(tmp_path / "results.jsonl", [golden("mpi"), golden("star")])
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    out.write_text("the last report")
    monkeypatch.setattr(output_files.os, "fsync", full_disk)
    status = main(["report", str(tmp_path), "-o", str(out), "--quiet"])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert status == 4
    assert len(lines) == 1 and lines[0].startswith("hpcprobe: cannot write ")
    assert lines[0].endswith(": No space left on device")
    assert out.read_text() == "the last report"
    left = [path.name for path in out.parent.rglob("*") if path.is_file()]
    assert left == ["report.html"]  # no temporary file, no half-written CSV


def test_compare_output_where_a_directory_cannot_be_made(systems, tmp_path):
    (tmp_path / "file").write_text("a file, not a directory")
    out = tmp_path / "file" / "compare.md"
    completed = run_hpcprobe("compare", str(systems[0]), str(systems[1]), "--format",
                             "markdown", "-o", str(out))
    assert completed.returncode == 4
    assert stderr_lines(completed) == [f"hpcprobe: cannot write {out.parent}: File exists"]


def test_a_link_stays_a_link_and_a_fifo_is_written_in_place(tmp_path):
    import threading

    from hpcprobe.output_files import write_text_atomically
    target, link = tmp_path / "real.txt", tmp_path / "link.txt"
    target.write_text("old")
    link.symlink_to(target)
    write_text_atomically(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    fifo, received = tmp_path / "fifo", []
    os.mkfifo(fifo)  # as -o /dev/stdout: renaming over it would replace it
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_text_atomically(fifo, "through the pipe")
    reader.join(timeout=30)
    assert received == ["through the pipe"] and fifo.is_fifo()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fifo", "link.txt",
                                                                "real.txt"]
