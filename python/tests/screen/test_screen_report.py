"""The screen's section of report.html (hpcprobe/screen/report.py) on hand-made
screen.json documents: the heat map with the cells not ok marked, the pair matrix with
the bad link marked, the slow nodes' history, hostile names and malformed entries."""

import base64
import csv
import io
import re
from pathlib import Path
from typing import Dict, List

import pytest
from helpers import record_of, write_jsonl

from hpcprobe.report.plots import FigureSink
from hpcprobe.results import RecordSet
from hpcprobe.screen.report import (MAX_DRAWN_HOSTS, screen_section, write_screen_report)
from hpcprobe.screen.report_data import read_screen

HOSTS = ["n1", "n2", "n3", "n4"]
CHECKS = ["stream", "dgemm", "latency"]
FIGURES = {"stream": (2.0e10, "B/s"), "dgemm": (5.0e11, "flop/s"), "latency": (9.0e-8, "s")}
HOSTILE = "\x1b[31mred\u202eevil <script>alert(1)</script>\nline"
RAW_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                        "\u2066-\u2069]")
FIGURE = re.compile(r'<figure id="([^"]+)">\s*<img src="data:image/svg\+xml;base64,([^"]+)"')


def check(name: str, ratio: float, status: str = "ok") -> Dict:
    median, unit = FIGURES[name]
    return {"check": name, "value": ratio * median, "unit": unit, "median": median,
            "ratio": ratio, "z": 0.0, "history_ratio": None, "status": status,
            "reason": "" if status == "ok" else f"{name} at {ratio:.2f} of the median"}


def node(host: str, slow: Dict[str, float] = None, status: str = None) -> Dict:
    slow = slow or {}
    checks = [check(name, slow.get(name, 1.0), "slow" if name in slow else "ok")
              for name in CHECKS]
    return {"host": host, "status": status or ("slow" if slow else "ok"), "checks": checks,
            "reason": "; ".join(c["reason"] for c in checks if c["reason"])}


def screen_json(hosts=HOSTS, slow=None, bad=None) -> Dict:
    """A screen of `hosts`: the slow ones {host: {check: ratio}}, every pair measured at
    10 GB/s but the `bad` pair (a, b) at 2.5 GB/s, judged bad."""
    slow, pairs, links = slow or {}, [], []
    for i, a in enumerate(hosts):
        for b in hosts[i + 1:]:
            is_bad = {a, b} == set(bad or ())
            value = 2.5e9 if is_bad else 1.0e10
            pairs.append({"a": a, "b": b, "check": "pair-bandwidth", "value": value,
                          "unit": "B/s"})
            links.append({"a": a, "b": b, "check": "pair-bandwidth", "value": value,
                          "ratio": value / 1.0e10, "status": "bad" if is_bad else "ok",
                          "reason": "a quarter of the median" if is_bad else ""})
    return {"format": "hpcprobe-screen-1", "hosts": list(hosts), "checks": CHECKS + [
        "pair-bandwidth"], "thresholds": {"z": 3.5, "ratio": 0.85, "link_ratio": 0.6},
        "nodes": [node(host, slow.get(host)) for host in hosts], "links": links,
        "pairs": pairs, "elapsed_s": 42.0, "repeated": list(slow),
        "drain": [f'scontrol update NodeName={host} State=DRAIN Reason="hpcprobe screen: '
                  f'slow"' for host in slow]}


def figures_of(html: str) -> Dict[str, str]:
    """figure id -> its SVG text."""
    return {found.group(1): base64.b64decode(found.group(2)).decode("utf-8")
            for found in FIGURE.finditer(html)}


def csv_rows(out: Path, name: str) -> List[List[str]]:
    return list(csv.reader(io.StringIO((out / "report-data" / name).read_text())))


def screen_part(html: str) -> str:
    """The page's screen section, up to the next section's heading."""
    start = html.index('<h2 id="screen">')
    return html[start:html.index("<h2 ", start + 1)]


def test_the_heat_map_marks_the_slow_cell_and_the_pair_matrix_the_bad_link(tmp_path):
    data = screen_json(slow={"n3": {"stream": 0.5}}, bad=("n1", "n2"))
    html_path = write_screen_report(tmp_path, data, {})
    assert html_path == tmp_path / "report.html"
    html = html_path.read_text(encoding="utf-8")
    figures = figures_of(html)
    heat = figures["screen-each-node-s-checks-against-its-peers"]
    # n3 is row 2, stream column 0: boxed, and no other cell is
    assert re.findall(r'id="(slow-\d+-\d+)"', heat) == ["slow-2-0"]
    rows = csv_rows(tmp_path, "screen-each-node-s-checks-against-its-peers.csv")
    assert ["n3 · slow", "stream", "0.5", "slow"] in rows
    assert ["n1", "stream", "1.0", ""] in rows
    matrix = figures["screen-node-pairs-pair-bandwidth"]
    assert sorted(re.findall(r'id="(bad-link-[^"]*)"', matrix)) == [
        "bad-link-0", "bad-link-0-mirror"]
    pairs = csv_rows(tmp_path, "screen-node-pairs-pair-bandwidth.csv")
    assert ["n1", "n2", "2.5", "bad"] in pairs and ["n2", "n1", "2.5", "bad"] in pairs
    assert ["n1", "n3", "10.0", ""] in pairs and ["n1", "n1", "", ""] in pairs
    part = screen_part(html)
    assert "Bad links" in part and "<td>n1</td><td>n2</td><td>pair-bandwidth</td>" in part
    assert "Nodes not ok" in part and "<td>n3</td><td>slow</td>" in part
    assert "State=DRAIN" in part and "suspects repeated before a verdict: n3" in part
    # the screen's section comes first
    assert html.index('<h2 id="screen">') < html.index('<h2 id="statistics">')
    assert '<a href="#screen">' in html.split("</nav>")[0]


def test_a_healthy_screen_marks_nothing(tmp_path):
    html = write_screen_report(tmp_path, screen_json(), None).read_text(encoding="utf-8")
    figures = figures_of(html)
    assert not re.search(r'id="(slow|failed|suspect|unjudged|other|bad-link)-',
                         "".join(figures.values()))
    part = screen_part(html)
    assert "every node judged is ok" in part and "no bad link among 6 judged" in part
    assert "History:" not in part and "malformed" not in part


def test_the_slow_nodes_history_is_drawn_and_a_missing_one_said(tmp_path):
    data = screen_json(slow={"n3": {"stream": 0.5}, "n4": {"dgemm": 0.6}})
    history = {("n3", "screen.stream"): [(f"2026-11-{day:02d}T03:00:00Z", 2.0e10)
                                         for day in range(20, 25)]
               + [(1795650000.0, 1.0e10), ("not a time", 1.0), ("2026-11-26", "fast")],
               ("n1", "stream"): [("2026-11-20T03:00:00", 2.0e10)]}
    html = write_screen_report(tmp_path, data, history).read_text(encoding="utf-8")
    assert "history-n3-stream" in figures_of(html)
    rows = csv_rows(tmp_path, "history-n3-stream.csv")
    assert [row[0] for row in rows[1:]] == ["history"] * 6 + ["this screen"]
    assert rows[-2][1:3] == ["0.0", "10.0"]  # the newest point, in GB/s
    assert float(rows[1][1]) < -1  # days before it
    part = screen_part(html)
    assert "n4, dgemm: no history" in part
    assert not any(name.startswith("history-n1") for name in figures_of(html))


def test_hostile_names_are_text_on_the_page_in_the_figures_and_in_the_csv(tmp_path):
    evil, long = HOSTILE, "h" * 5000
    data = screen_json(hosts=["n1", "n2", evil, "n4"], slow={evil: {"stream": 0.4}},
                       bad=("n1", evil))
    data["nodes"].append(node(long))
    data["drain"] = [f"# refused: host name {evil}"]
    data["thresholds"][evil] = 1.0
    html = write_screen_report(tmp_path, data, {(evil, "stream"): [("2026-11-01", 1e10)]}
                               ).read_text(encoding="utf-8")
    assert RAW_HIDDEN.search(html) is None
    assert "<script" not in html.lower() and "&lt;script&gt;alert(1)" in html
    assert long not in html and "malformed entry left out" in html
    for name, svg in figures_of(html).items():
        assert RAW_HIDDEN.search(svg) is None, name
        assert "<script" not in svg.lower(), name
    assert any(name.startswith("history-x1b-31mred-u202eevil-script-alert")
               for name in figures_of(html))
    for path in (tmp_path / "report-data").iterdir():
        assert RAW_HIDDEN.search(path.read_text(encoding="utf-8")) is None, path.name
    heat = figures_of(html)["screen-each-node-s-checks-against-its-peers"]
    assert re.findall(r'id="(slow-\d+-\d+)"', heat) == ["slow-2-0"]


def test_malformed_entries_are_left_out_and_counted():
    data = screen_json(slow={"n2": {"dgemm": 0.5}})
    data["nodes"] += [1, "n9", {"host": 5, "status": "ok"}, {"host": "n1", "status": "ok"},
                      {"host": "n8"}, {"host": "n7", "status": "ok", "checks": "none"},
                      {"host": "n6", "status": "ok", "checks": [
                          {"check": "stream", "status": "ok", "ratio": float("nan")},
                          {"check": "stream", "status": "ok"}, {"status": "ok"}, None]}]
    data["links"] += [{"a": "n1", "status": "bad", "check": "pair-bandwidth"},
                      {"a": "n1", "b": "n1", "check": "pair-bandwidth", "status": "bad"}]
    data["pairs"] += [{"a": "n1", "b": "n2", "check": "pair-bandwidth", "value": "fast"},
                      {"a": "n1", "b": "n3", "check": "pair-bandwidth", "value": None},
                      {"a": "n1", "b": "n3", "check": "pair-bandwidth", "value": True}]
    data["hosts"] += [None, ""]
    data["drain"].append({"line": 1})
    data["thresholds"]["bad"] = "high"
    screen = read_screen(data)
    # 6 nodes, 2 cells (the repeated stream and the nameless), 1 'none' checks list,
    # 2 links, 2 pairs (the None value measured nothing: no error), 2 hosts, 1 drain
    assert screen.ignored == 6 + 2 + 1 + 2 + 2 + 2 + 1
    assert list(screen.nodes) == HOSTS + ["n7", "n6"]
    assert screen.nodes["n6"].checks["stream"].ratio is None
    assert screen.nodes["n2"].checks["dgemm"].status == "slow"
    assert "bad" not in screen.thresholds and screen.thresholds["z"] == 3.5
    assert screen.pair_value("pair-bandwidth", "n2", "n1") == 1.0e10
    section = screen_section(data, {("n2", "dgemm"): "not points", 5: []}, FigureSink("d"))
    texts = [getattr(block, "text", "") for block in section.blocks]
    assert "screen.json: 16 malformed entries left out" in texts
    assert "n2, dgemm: no history (a first screen, or the history off)" in texts


def test_what_is_not_a_screen_still_gives_a_section(tmp_path):
    for data in ([1, 2], {"format": "hpcprobe-screen-9", "nodes": "all", "hosts": 3}):
        section = screen_section(data, None, FigureSink("d"))
        texts = [getattr(block, "text", "") for block in section.blocks]
        assert "no node verdicts in screen.json" in texts
        assert any("this hpcprobe reads hpcprobe-screen-1" in text for text in texts)
    html = write_screen_report(tmp_path, "garbage", "no history").read_text(encoding="utf-8")
    assert "screen: no node checks to draw" in html


def test_an_unknown_status_is_marked_not_ok_and_a_failed_check_blank_but_boxed():
    data = screen_json()
    data["nodes"][0]["checks"][1].update(status="weird")
    data["nodes"][1]["checks"][2].update(status="failed", value=None, ratio=None)
    data["nodes"][1]["status"] = "failed"
    sink = FigureSink("d")
    section = screen_section(data, None, sink)
    heat = next(block for block in section.blocks if getattr(block, "figure_id", "") ==
                "screen-each-node-s-checks-against-its-peers")
    svg = base64.b64decode(heat.image_uri.split(",", 1)[1]).decode("utf-8")
    assert sorted(re.findall(r'id="((?:other|failed)-\d+-\d+)"', svg)) == [
        "failed-1-2", "other-0-1"]
    rows = list(csv.reader(io.StringIO(sink.files[
        "screen-each-node-s-checks-against-its-peers.csv"])))
    assert ["n2 · failed", "latency", "", "failed"] in rows


def test_a_large_screen_draws_the_slow_and_the_bad_link_ends_first():
    hosts = [f"node{i:03d}" for i in range(100)]
    data = screen_json(hosts=hosts, slow={"node099": {"latency": 1.8}},
                       bad=("node080", "node090"))
    sink = FigureSink("d")
    screen_section(data, None, sink)
    heat = list(csv.reader(io.StringIO(sink.files[
        "screen-each-node-s-checks-against-its-peers.csv"])))
    drawn = list(dict.fromkeys(row[0] for row in heat[1:]))
    assert len(drawn) == MAX_DRAWN_HOSTS and drawn[-1] == "node099 · slow"
    pairs = list(csv.reader(io.StringIO(sink.files["screen-node-pairs-pair-bandwidth.csv"])))
    assert ["node080", "node090", "2.5", "bad"] in pairs
    assert len({row[0] for row in pairs[1:]}) == MAX_DRAWN_HOSTS


def test_the_screens_records_follow_its_section(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", [record_of("stream-star")])
    html = write_screen_report(tmp_path, screen_json(), {}).read_text(encoding="utf-8")
    assert html.index('<h2 id="screen">') < html.index('<h2 id="memory"')
    assert "absent (no" not in html  # the families a screen does not run: no lines
    html = write_screen_report(tmp_path / "x", screen_json(), {}, records=RecordSet()
                               ).read_text(encoding="utf-8")
    assert '<h2 id="memory"' not in html


def test_the_heat_maps_colours_are_centred_on_the_median_within_limits():
    import numpy
    from hpcprobe.report.plots import _centred_norm

    for ratios, low, high in (([1.0, 1.02, numpy.nan], 0.8, 1.25), ([1.0, 0.5], 0.5, 2.0),
                              ([1.0, 0.01, 0.0], 0.25, 4.0), ([numpy.nan], 0.8, 1.25)):
        norm = _centred_norm(numpy.array(ratios), 1.0)
        assert (norm.vmin, norm.vcenter, norm.vmax) == (
            pytest.approx(low), 1.0, pytest.approx(high))
    assert _centred_norm(numpy.array([1.0]), None) is None


def test_each_pair_check_has_its_matrix_bandwidth_first_and_a_host_without_verdict_shows():
    data = screen_json(bad=("n2", "n4"))
    latency = [dict(pair, check="pair-latency", value=2e-6, unit="s") for pair in data["pairs"]]
    data["pairs"] = latency + data["pairs"]
    data["links"].insert(0, {"a": "n1", "b": "n3", "check": "pair-latency", "value": 8e-6,
                             "ratio": 4.0, "status": "bad", "reason": "slow link"})
    data["hosts"].append("n5")
    sink = FigureSink("d")
    section = screen_section(data, None, sink)
    ids = [block.figure_id for block in section.blocks if hasattr(block, "figure_id")]
    assert ids == ["screen-each-node-s-checks-against-its-peers",
                   "screen-node-pairs-pair-bandwidth", "screen-node-pairs-pair-latency"]
    assert "6 node pairs measured, 2 bad links" in section.blocks[0].text
    latency_rows = list(csv.reader(io.StringIO(sink.files[
        "screen-node-pairs-pair-latency.csv"])))
    assert ["n1", "n3", "2.0", "bad"] in latency_rows  # µs; the bad mark from its link
    assert ["n2", "n4", "2.0", ""] in latency_rows  # bad on bandwidth only
    heat = list(csv.reader(io.StringIO(sink.files[
        "screen-each-node-s-checks-against-its-peers.csv"])))
    assert ["n5 · no verdict", "stream", "", ""] in heat


def test_a_nodes_own_bad_link_boxes_each_of_its_pairs_and_is_no_host(tmp_path):
    data = screen_json()
    for pair in data["pairs"]:
        if "n4" in (pair["a"], pair["b"]):
            pair["value"] = 2.5e9
    data["links"].append({"a": "n4", "b": "*", "check": "pair-bandwidth", "value": 2.5e9,
                          "ratio": 0.25, "status": "bad", "reason": "its own link"})
    html = write_screen_report(tmp_path, data, {}).read_text(encoding="utf-8")
    matrix = figures_of(html)["screen-node-pairs-pair-bandwidth"]
    assert len(re.findall(r'id="(bad-link-\d+)"', matrix)) == 3  # n4's pairs with n1-n3
    assert read_screen(data).hosts == HOSTS  # "*" is no host
    assert "<td>n4</td><td>its own link</td><td>pair-bandwidth</td>" in screen_part(html)
