"""The report sections of the communication and HPCC families on synthetic records: the
rank-pair heat map draws node boundaries from the same-node matrix; compare of two
synthetic hpcc-suite result sets (records only, no HPCC file) gives paper 003's balance
ratios computed by hand; strings of the new families' records reach the page escaped."""

import base64
import copy
import csv
import io
import json
import re
import xml.etree.ElementTree as ElementTree

from helpers import DATA, golden, run_hpcprobe, write_jsonl
from pytest import approx

from hpcprobe.families.comm.report import node_order

GB = 1e9


def data_record(name):
    return copy.deepcopy(json.loads((DATA / name).read_text()))


def pairs_record(values, same, **changes):
    """A pairs record on len(values) ranks with this bandwidth and same-node matrix."""
    record = data_record("pairs-bandwidth.json")
    size = len(values)
    record["layout"].update(ranks=size, nodes=len({tuple(row) for row in same}))
    record["matrices"] = [
        {"name": "bandwidth", "row_name": "src_rank", "column_name": "dst_rank", "unit": "B/s",
         "statistic": "median", "values": values},
        {"name": "same_node", "row_name": "rank", "column_name": "rank", "unit": "1",
         "statistic": "last", "values": same}]
    flat = [v for row in values for v in row if v is not None]
    record["metrics"] = [{"name": "pair_bandwidth", "unit": "B/s", "samples": flat}]
    record.update(changes)
    return record


# Ranks 0 and 2 on one node, 1 and 3 on the other (a round-robin placement over 2 nodes).
ROUND_ROBIN_SAME = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]]
ROUND_ROBIN_BW = [[None if i == j else (8 * GB if (i - j) % 2 == 0 else 1 * GB)
                   for j in range(4)] for i in range(4)]


def section_html(html, section_id):
    return re.search(f'<h2 id="{section_id}[^"]*">.*?(?=<h2 |</main>)', html, re.S).group(0)


def svgs(html):
    return [base64.b64decode(data).decode() for data in
            re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)]


def test_node_order_groups_ranks_by_node_from_the_same_node_matrix():
    assert node_order(ROUND_ROBIN_SAME, 4) == ([0, 2, 1, 3], [2])
    block = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    assert node_order(block, 4) == ([0, 1, 2, 3], [2])
    assert node_order([[1] * 3] * 3, 3) == ([0, 1, 2], [])
    assert node_order(None, 3) == ([0, 1, 2], [])


def test_the_heat_map_of_two_nodes_draws_the_node_boundary(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", [pairs_record(ROUND_ROBIN_BW, ROUND_ROBIN_SAME)])
    out = tmp_path / "r.html"
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(out))
    assert completed.returncode == 0, completed.stderr
    html = section_html(out.read_text(), "communication")
    assert "2 nodes, red lines between them (from the same-node matrix)" in html
    (svg,) = [svg for svg in svgs(html) if "Rank pairs: bandwidth" in svg]
    ids = {element.get("id") for element in ElementTree.fromstring(svg).iter()}
    assert {"node-boundary-1-row", "node-boundary-1-column"} <= ids
    assert not any(str(i).startswith("node-boundary-2") for i in ids)
    (link,) = re.findall(r'href="(r-data/rank-pairs-bandwidth[a-z0-9-]*\.csv)"', html)
    rows = list(csv.reader(io.StringIO((tmp_path / link).read_text())))
    assert rows[0] == ["source", "destination", "GB/s"]
    assert [row[:2] for row in rows[1:5]] == [["0", "0"], ["0", "2"], ["0", "1"], ["0", "3"]]
    assert [float(row[2]) if row[2] else None for row in rows[1:5]] == [None, 8.0, 1.0, 1.0]


def test_one_node_has_no_boundary_and_hostile_strings_are_escaped(tmp_path):
    hostile = "<script>alert(1)</script>"
    same = [[1] * 4 for _ in range(4)]
    pairs = pairs_record(ROUND_ROBIN_BW, same)
    pairs["parameters"]["placement"] = "file"
    pairs["parameters"]["placement_file"] = f"/x/{hostile}"
    comm = data_record("comm-pingpong.json")
    comm["parameters"]["function"] = hostile
    beff = data_record("beff-hpcc.json")
    beff["parameters"]["placement"] = hostile
    hpl = hpcc_record("hpl", "mpi", "flop_rate", "flop/s", 1e9, 2,
                      panel_factorization=hostile, n=100, nb=16, p=1, q=2)
    contention = golden("mpi")
    contention.update(benchmark="contention", variant="wicon", algorithm="exchange")
    contention["parameters"] = {"pairs": hostile, "topology_kind": "torus",
                                "topology_dims": hostile}
    contention["series"] = [{"name": "message_time_mean", "x_name": "message_bytes",
                             "x_unit": "B", "unit": "s", "statistic": "mean", "x": [8, 1024],
                             "y": [1e-6, 2e-6]}]
    write_jsonl(tmp_path / "results.jsonl", [pairs, comm, beff, hpl, contention])
    out = tmp_path / "r.html"
    completed = run_hpcprobe("report", str(tmp_path), "-o", str(out))
    assert completed.returncode == 0, completed.stderr
    html = out.read_text()
    assert "<script" not in html.lower()
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5
    for svg in svgs(html):
        assert "<script" not in svg
        ids = {element.get("id") for element in ElementTree.fromstring(svg).iter()}
        assert not any(str(i).startswith("node-boundary") for i in ids)
    assert "ranks grouped by node: one node" in html


def hpcc_record(benchmark, variant, metric, unit, value, ranks, **parameters):
    """A record of an HPCC kernel with one headline sample."""
    record = golden("mpi")
    record.update(benchmark=benchmark, variant=variant, algorithm="synthetic",
                  parameters=parameters, series=[], counters={})
    record["layout"] = {"ranks": ranks, "threads_per_rank": 1, "nodes": 1,
                        "ranks_per_node_max": ranks}
    record["value"] = {"metric": metric, "statistic": "median", "value": value, "unit": unit}
    record["metrics"] = [{"name": metric, "unit": unit, "samples": [value]}]
    return record


def hpcc_system(directory, hpl, dgemm, fft, ptrans, copy_rate, ring_bw, ring_latency, gups):
    """One system's hpcc-suite records on 4 ranks (rates in SI units), plus records on
    other P that the balance must not mix in: HPL on 2 ranks, PTRANS on 8 (no HPL)."""
    directory.mkdir()
    ra = golden("mpi")
    ra["value"]["value"] = gups * GB
    ra["metrics"][0]["samples"] = [gups * GB]
    stream = data_record("stream-star.json")
    stream["layout"].update(ranks=4, ranks_per_node_max=4)
    for entry in stream["series"]:
        entry["x"], entry["y"] = [0, 1, 2, 3], [copy_rate] * 4
    beff = data_record("beff-hpcc.json")
    beff["layout"].update(ranks=4, ranks_per_node_max=4)
    for metric in beff["metrics"]:
        if metric["name"] == "random_ring_bandwidth":
            metric["samples"] = [ring_bw]
        elif metric["name"] == "random_ring_latency":
            metric["samples"] = [ring_latency]
    write_jsonl(directory / "results.jsonl", [
        hpcc_record("hpl", "mpi", "flop_rate", "flop/s", hpl / 3, 2, n=100),
        hpcc_record("ptrans", "mpi", "bandwidth", "B/s", ptrans * 7, 8, n=100),
        ra, stream, beff,
        hpcc_record("dgemm", "star", "flop_rate", "flop/s", dgemm, 4, n=100),
        hpcc_record("fft", "mpi", "flop_rate", "flop/s", fft, 4, m=1024, log2_m=10),
        hpcc_record("ptrans", "mpi", "bandwidth", "B/s", ptrans, 4, n=100),
        hpcc_record("hpl", "mpi", "flop_rate", "flop/s", hpl, 4, n=100)])
    return directory


# By hand (paper 003, section 4.1.2), P = 4:
# X: HPL 0.2 Tflop/s; EP-DGEMM 4 x 10 Gflop/s / 200 Gflop/s = 0.2; FFT 4 / 200 = 0.02;
#    PTRANS 8 GB/s / 200 Gflop/s = 0.04 B/flop; STREAM Copy 4 x 5 GB/s / 200 = 0.1;
#    random ring 1 GB/s x 4 / 200 = 0.02; 1 / 2 µs = 0.5; RandomAccess 0.1 GUP/s / 200 = 5e-4.
# Y: HPL 0.4; 40 / 400 = 0.1; 4 / 400 = 0.01; 32 / 400 = 0.08; 4 x 2 / 400 = 0.02;
#    0.5 x 4 / 400 = 0.005; 1 / 4 µs = 0.25; 0.8 / 400 = 2e-3.
BALANCE_X = [0.2, 1, 0.2, 0.02, 0.04, 0.1, 0.02, 0.5, 5e-4]
BALANCE_Y = [0.4, 1, 0.1, 0.01, 0.08, 0.02, 0.005, 0.25, 2e-3]
KIVIAT_X = [0.5, 1, 1, 1, 0.5, 1, 1, 1, 0.25]
KIVIAT_Y = [1, 1, 0.5, 0.5, 1, 0.2, 0.25, 0.5, 1]


def test_compare_of_two_hpcc_suite_runs_gives_paper_003s_balance(tmp_path):
    x = hpcc_system(tmp_path / "x", 2e11, 10e9, 4e9, 8e9, 5e9, 1e9, 2e-6, 0.1)
    y = hpcc_system(tmp_path / "y", 4e11, 10e9, 4e9, 32e9, 2e9, 0.5e9, 4e-6, 0.8)
    completed = run_hpcprobe("compare", str(x), str(y), "--names", "X,Y", "--format", "csv")
    assert completed.returncode == 0, completed.stderr
    assert "HPCC StarSTREAM_Copy,HPCC's,5,2,0.4" in completed.stdout  # the per-copy mean
    lines = completed.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"Balance'))
    rows = list(csv.reader(lines[start + 2:start + 11]))
    assert [row[0] for row in rows][-3:] == ["RandRing BW×P/G-HPL", "1/RandRing latency",
                                             "G-RandomAccess/G-HPL"]
    for row, x_value, y_value in zip(rows, BALANCE_X, BALANCE_Y):
        assert float(row[2]) == approx(x_value, rel=1e-3), row
        assert float(row[3]) == approx(y_value, rel=1e-3), row
    start = next(i for i, line in enumerate(lines) if line.startswith("Kiviat"))
    kiviat = list(csv.reader(lines[start + 2:start + 11]))
    assert [float(row[1]) for row in kiviat] == approx(KIVIAT_X, rel=1e-3)
    assert [float(row[2]) for row in kiviat] == approx(KIVIAT_Y, rel=1e-3)


def test_the_report_shows_the_hpcc_table_and_the_balance_per_p(tmp_path):
    x = hpcc_system(tmp_path / "x", 2e11, 10e9, 4e9, 8e9, 5e9, 1e9, 2e-6, 0.1)
    out = tmp_path / "r.html"
    completed = run_hpcprobe("report", str(x), "-o", str(out))
    assert completed.returncode == 0, completed.stderr
    html = section_html(out.read_text(), "hpcc")
    headings = re.findall(r"<th>([^<]*)</th>", html)
    assert headings[:5] == ["test", "key", "P = 2", "P = 4", "P = 8"]
    assert headings.count("P = 4") == 2  # the balance: only P with HPL, 2 and 4
    assert "<td>HPL_Tflops</td>" in html and "<td>RandomlyOrderedRingBandwidth_GBytes</td>" in html
    assert "<figcaption>Balance normalised to the best system" in html  # P = 4 alone
    assert "<figcaption>HPL: where rank 0" not in html  # synthetic HPL has no breakdown

