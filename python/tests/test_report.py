"""`hpcprobe report` over a results directory with real records of every family on
main (RandomAccess, memory, HPCC, communication, contention, congestion), an unknown benchmark, a
schema 1.2 record, a corrupt line and a hostile host name; the page opened in headless
Chromium."""

import base64
import re
import xml.etree.ElementTree as ElementTree

import pytest
from browser import ARTIFACTS, chromium, visit
from helpers import run_hpcprobe, stderr_lines
from report_data import HOSTILE_HOST, corrupt_line_number, make_results


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return make_results(tmp_path_factory.mktemp("results"))


@pytest.fixture(scope="module")
def report(results, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    completed = run_hpcprobe("report", str(results.parent), "-o", str(out), timeout=300)
    return completed, out


def test_a_corrupt_line_is_reported_with_its_number_and_the_rest_read(results, report):
    completed, out = report
    assert completed.returncode == 1  # a line was not a record; the report is written
    number = corrupt_line_number(results)
    assert stderr_lines(completed) == [
        f"{results}:{number}: invalid record: not JSON (Expecting value at column 40)"]
    html = out.read_text()
    assert f"results.jsonl:{number}: invalid record" in html
    assert "ra star serial" in html  # the record after the corrupt line


def test_every_family_has_its_section_or_an_absent_line(report):
    _, out = report
    html = out.read_text()
    for title in ("RandomAccess (GUPS)", "Memory: STREAM, stride, latency",
                  "Communication: IMB functions, b_eff rings, rank pairs", "Network contention",
                  "Congestion under load",
                  "HPCC kernels: HPL, DGEMM, PTRANS, FFT", "Other benchmarks"):
        # one section per machine: the hostile and golden records name machines of their own
        assert re.search(f">{re.escape(title)}( — [^<]*)?</h2>", html), title
    # every family ran but the GPU's, which needs a device (none on the machines the
    # tests run on): its absence is said, once
    absent = re.findall(r"([^>]*): absent \(no ([a-z, ]+) records\)", html)
    assert absent == [("GPU: device memory, RandomAccess, copies", "gpu")], absent
    assert "no report section for this family yet" not in html
    for figure in ("RandomAccess GUPS against ranks", "RandomAccess GUPS against look-ahead Q",
                   "GUPS by mapping mode", "STREAM bandwidth per kernel",
                   "Time per access against stride", "Latency against working set",
                   "Many copies / one copy against working set",
                   "WOCON: latency against hops", "WICON: pairings against message size",
                   "Stressing a link: the middle pair", "Equidistant pairs (",
                   "Measured / predicted:", "Balance normalised to the best system",
                   "HPL: where rank 0", "FFT mpi: the phases", "Point to point: time per call",
                   "Collectives: time per call", "Bandwidth against message size",
                   "PingPong: percentiles", "Rank pairs: bandwidth (4 ranks"):
        assert f"<figcaption>{figure}" in html, figure
    for table in ("WICON: µs per message by pairing", "HPCC&#39;s summary keys, by test",
                  "Balance (paper 003, Table 2)", "b_eff: HPCC&#39;s keys",
                  "Rank pairs: within and across nodes",
                  "Placements side by side (`hpcprobe compare --by placement`)"):
        assert f'<div class="title">{table}' in html, table
    # the internal FFT's row names the instruction set it ran with
    assert re.search(r"<td>internal \((avx512|avx2|portable)\)</td>", html)
    assert "model: T_P = T_1 + T_C·log2 P with T_1 = " in html  # fitted from `model --measure`
    # records without a section are listed, never dropped: the 1.2 record; the synthetic
    # comm record is in its family's section
    assert "<td>quantum</td>" in html and "<td>pingpong</td>" in html


def test_plots_are_embedded_svg_with_their_data_beside_the_page(report):
    _, out = report
    html = out.read_text()
    images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    links = re.findall(r'<a href="(report-data/[a-z0-9-]+\.csv)">', html)
    assert len(images) == len(links) >= 8
    for image in images:
        ElementTree.fromstring(base64.b64decode(image))  # well-formed SVG
    for link in links:
        lines = (out.parent / link).read_text().splitlines()
        assert len(lines) >= 2, link  # a heading and data


def test_nothing_is_fetched_and_every_string_is_escaped(report):
    _, out = report
    html = out.read_text()
    assert "default-src 'none'; img-src data:" in html
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<script" not in html.lower() and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;&amp;node" in html
    assert HOSTILE_HOST not in html
    for image in re.findall(r'base64,([A-Za-z0-9+/=]+)"', html):
        assert b"<script" not in base64.b64decode(image)


def test_chromium_opens_the_report_without_console_errors(report):
    _, out = report
    visited = visit(chromium(), out, ARTIFACTS / "report.png")
    assert visited.console == [], visited.console
    assert visited.screenshot.stat().st_size > 10_000


def test_the_browser_check_sees_a_blocked_fetch(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                    "content=\"default-src 'none'\"></head><body>"
                    '<img src="https://example.invalid/x.png"></body></html>')
    visited = visit(chromium(), page, tmp_path / "bad.png", height=200)
    assert any("Content Security Policy" in line for line in visited.console)


def test_report_of_nothing_readable(tmp_path):
    (tmp_path / "results.jsonl").write_text("")
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(tmp_path / "r.html"))
    assert completed.returncode == 2
    assert stderr_lines(completed) == [f"hpcprobe: no records in {tmp_path}"]
    missing = run_hpcprobe("report", str(tmp_path / "nowhere"), "-o", str(tmp_path / "r.html"))
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr


def test_records_of_two_machines_get_a_section_each(tmp_path):
    from helpers import golden, write_jsonl
    first, second = golden("mpi"), golden("mpi")
    second["metadata"]["hosts"] = ["node002", "node003"]
    write_jsonl(tmp_path / "results.jsonl", [first, second])
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(tmp_path / "r.html"))
    assert completed.returncode == 0, completed.stderr
    titles = re.findall(r'<h2 id="randomaccess-\d">([^<]*)</h2>', (tmp_path / "r.html").read_text())
    assert titles == ["RandomAccess (GUPS) — node001, Example CPU @ 2.0GHz, commit 0123456789ab",
                      "RandomAccess (GUPS) — node002, node003, Example CPU @ 2.0GHz, commit "
                      "0123456789ab"]


def test_real_records_of_every_kind_merge_into_valid_records(results):
    from report_data import load

    from hpcprobe.analysis.merge import merge_records
    from hpcprobe.results import schema_problem
    for record in load(results):
        merged = merge_records([record, record, record])
        assert schema_problem(merged) is None, (record["benchmark"], record["variant"])
        for entry, original in zip(merged.get("series") or [], record.get("series") or []):
            if "samples" in original:
                assert [len(s) for s in entry["samples"]] == [3 * len(s)
                                                              for s in original["samples"]]
            else:
                assert entry["y"] == original["y"] or original["statistic"] == "last"


def test_mathtext_and_markup_in_record_strings_reach_plots_as_text(tmp_path):
    import json

    from helpers import DATA, write_jsonl
    latency = json.loads((DATA / "mem-latency.json").read_text())
    latency["parameters"]["hugepages"] = "$\\frac{1}{0$ <svg onload=alert(1)>"
    write_jsonl(tmp_path / "results.jsonl", [latency])
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(tmp_path / "r.html"))
    assert completed.returncode == 0, completed.stderr
    html = (tmp_path / "r.html").read_text()
    svgs = [base64.b64decode(image).decode() for image in
            re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)]
    assert any("$\\frac{1}{0$ &lt;svg onload=alert(1)&gt;" in svg for svg in svgs)
    assert not any("<svg onload" in svg for svg in svgs)
