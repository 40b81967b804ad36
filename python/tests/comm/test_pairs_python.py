"""The rank-pair matrix on the Python side, without MPI: a sampled record's coverage in
the headline, the tables and the report (unmeasured cells shown as such, never as a
figure), and a full record saying nothing of sampling."""

import copy
import json

from helpers import DATA
from rich.console import Console

from hpcprobe.families.comm.headline import comm_headline
from hpcprobe.families.comm.tables import comm_tables, pairs_coverage, pairs_samples_text
from hpcprobe.results import parse_record_line


def full_record():
    return copy.deepcopy(json.loads((DATA / "pairs-bandwidth.json").read_text()))


def sampled_record(ranks_covered=True, node_pairs_covered=True):
    """The golden 3-rank record as a sampled run: 1,024 of 65,280 pairs stated; of its own
    matrix the pair 0 <-> 2 not measured (null in every matrix, out of the metrics)."""
    record = full_record()
    record["parameters"].update(
        sampled=True, pairs_measured=1024, pairs_total=65280, rounds_measured=8, rounds=255,
        covers_every_rank=ranks_covered, covers_every_node_pair=node_pairs_covered,
        samples_per_pair=5, sample_time_s=0.005,
        sampling="rounds in a seeded random order (seed 1), ...")
    median = record["matrices"][0]["values"]
    median[0][2] = median[2][0] = None
    low = [[None if v is None else v * 0.9 for v in row] for row in median]
    high = [[None if v is None else v * 1.5 for v in row] for row in median]
    record["matrices"] += [
        {"name": "bandwidth_min", "row_name": "src_rank", "column_name": "dst_rank",
         "unit": "B/s", "statistic": "min", "values": low},
        {"name": "bandwidth_max", "row_name": "src_rank", "column_name": "dst_rank",
         "unit": "B/s", "statistic": "max", "values": high}]
    measured = [v for row in median for v in row if v is not None]
    for metric in record["metrics"]:
        metric["samples"] = measured
    return record


def test_the_made_up_record_is_valid():
    assert parse_record_line(json.dumps(sampled_record()).encode())[1] is None


def test_headline_names_the_coverage_of_a_sampled_matrix():
    labels = [figure.label for figure in comm_headline([sampled_record()])]
    assert labels == [
        "rank pairs within a node, slowest pair (sampled: 1,024 of 65,280 pairs, every rank "
        "and node pair)",
        "rank pairs within a node, median pair (sampled: 1,024 of 65,280 pairs, every rank "
        "and node pair)"]


def test_headline_of_a_full_matrix_says_nothing_of_sampling():
    labels = [figure.label for figure in comm_headline([full_record()])]
    assert labels == ["rank pairs within a node, slowest pair",
                      "rank pairs within a node, median pair"]


def test_coverage_words():
    assert pairs_coverage(full_record()) == ""
    assert pairs_coverage(sampled_record(node_pairs_covered=False)).endswith(
        "every rank, not every node pair")
    assert pairs_coverage(sampled_record(False, False)).endswith("not every rank or node pair")
    assert pairs_samples_text(sampled_record()) == "the median of 5 samples of at least 5 ms"
    assert pairs_samples_text(full_record()) == "the median of the repetitions"


def test_tables_show_unmeasured_cells_as_such():
    console = Console(width=400, record=True)
    for table in comm_tables([sampled_record()]):
        console.print(table)
    text = console.export_text()
    cells = [line.replace("│", " ").split() for line in text.splitlines()]
    rows = {row[0]: row[1:] for row in cells if row and row[0] in ("0", "1", "2")}
    assert rows["0"] == ["—", "0.0694*", "?"]     # the diagonal, a figure, not measured
    assert rows["2"] == ["?", "1.03*", "—"]
    assert "? not measured" in text
    assert "sampled: 1,024 of 65,280 pairs, every rank and node pair" in text
    assert "widest spread of a pair (max − min) / median: 0.60" in text


def test_report_says_what_a_sampled_matrix_left_out(tmp_path):
    from hpcprobe.families.comm.report import _pairs
    from hpcprobe.report.plots import FigureSink
    blocks = _pairs([sampled_record()], FigureSink(str(tmp_path)))
    heatmap, table = blocks
    assert "blank off the diagonal: not measured (sampled: 1,024 of 65,280 pairs, every rank " \
           "and node pair)" in heatmap.caption
    assert "the median of 5 samples of at least 5 ms" in heatmap.caption
    assert "sampled: 1,024 of 65,280 pairs, every rank and node pair" in table.rows[0]
    full_heatmap, full_table = _pairs([full_record()], FigureSink(str(tmp_path)))
    assert "not measured" not in full_heatmap.caption and "every pair" in full_table.rows[0]
