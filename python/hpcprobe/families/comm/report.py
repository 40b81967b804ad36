"""The communication section of a report (papers 002 and 003, IMB): per configuration
(ranks, nodes, placement) the time per call against message size of every IMB function
(median, with bars up to the p99) and the bandwidths, each function's t_min/t_avg/t_max
over ranks beside the median and p99 over samples; HPCC's b_eff keys; the rank-pair
bandwidth heat map with node boundaries and the intra- against inter-node summary; and
the placements side by side (compare's placement view, placement_view.py).

Also what tells two of the family's records apart in `hpcprobe compare`.
Records are untrusted input: numbers are checked before use, strings shown as text."""

import statistics
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.analysis.compare import comparison_rows, comparison_table
from hpcprobe.analysis.placement_view import placement_columns, placement_of
from hpcprobe.hpcc_summary.beff import BEFF_KEYS, beff_figures
from hpcprobe.families.comm.tables import (buffers_text, device_buffers, find_matrix,
                                           pairs_coverage, pairs_samples_text)
from hpcprobe.units import binary_size
from hpcprobe.records import series_points
from hpcprobe.records import numbers
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import (Record, newest_first, number, of_benchmark, parameter, plain,
                                    ranks, section_of, verdict_cell)
from hpcprobe.report.registry import ReportSection
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.samples import metric_samples
from hpcprobe.units import GIGA, MEGA, MICRO, format_number

MAX_CONFIGS = 2      # comm configurations drawn, the newest
MAX_BEFF_COLUMNS = 4
MAX_HEATMAPS = 2
MAX_HEATMAP_RANKS = 256
POINT_TO_POINT = ("pingpong", "pingping", "sendrecv", "exchange")
# Functions with a figure of all five curves (paper 003 reports these); every function's
# five at its headline size are in the table.
DETAIL_FUNCTIONS = ("pingpong", "allreduce", "alltoall", "bcast")
PERCENTILE_CURVES = (("t_min", "time_min"), ("t_avg", "time_avg"), ("t_max", "time_max"),
                     ("median", "time_median"), ("p99", "time_p99"))


def compare_label(record: Record) -> str:
    """comm: the size of its headline (1 MiB unless the sizes stop below) and
    --off-cache; pairs: the message size; beff: nothing (HPCC's fixed sizes)."""
    parameters = section_of(record, "parameters")
    if record.get("benchmark") == "comm":
        size = number(parameters.get("headline_size_bytes"))
        label = f"at {binary_size(size)}" if size is not None else ""
        return label + (", off-cache" if parameters.get("off_cache") is True else "") + _device(
            record)
    if record.get("benchmark") == "pairs":
        size = number(parameters.get("message_bytes"))
        return (f"{binary_size(size)} messages" if size is not None else "") + _device(record)
    return ""


def _device(record: Record) -> str:
    """", device buffers, staged" and the like; "" for host buffers."""
    return f", {buffers_text(record, short=True)}" if device_buffers(record) else ""


def _placement(record: Record) -> str:
    return placement_of(record) or "not recorded"


def _where(record: Record) -> str:
    """e.g. "4 ranks on 2 nodes, placement round-robin" (", device buffers, staged" with
    --buffers device: such records are a configuration of their own, never drawn
    among the host curves)."""
    nodes = number(section_of(record, "layout").get("nodes"))
    on = f" on {int(nodes)} node(s)" if nodes is not None else ""
    return f"{ranks(record)} ranks{on}, placement {_placement(record)}{_device(record)}"


def _short(record: Record) -> str:
    """e.g. "4 ranks, 2 nodes, round-robin" (figure titles are cut at 60 characters)."""
    nodes = number(section_of(record, "layout").get("nodes"))
    on = f", {int(nodes)} node{'s' if nodes != 1 else ''}" if nodes is not None else ""
    device = ", device" if device_buffers(record) else ""
    return f"{ranks(record)} ranks{on}, {plain(_placement(record), 16)}{device}"


def _configurations(records: Sequence[Record]) -> List[Tuple[str, List[Record]]]:
    """The comm records by where they ran, the newest configuration first, each in the
    records' order."""
    groups: Dict[str, List[Record]] = {}
    for record in records:
        groups.setdefault(_where(record), []).append(record)
    newest = {where: max(str(r.get("finished_at", "")) for r in group)
              for where, group in groups.items()}
    return sorted(groups.items(), key=lambda item: newest[item[0]], reverse=True)


def _function(record: Record) -> str:
    return plain(parameter(record, "function") or record.get("variant"), 30)


def _us(values: Sequence[Optional[float]]) -> List[Optional[float]]:
    return [None if value is None else value / MICRO for value in values]


def _time_figure(sink: FigureSink, group: Sequence[Record], what: str) -> Optional[Block]:
    curves = []
    for record in group:
        median, p99 = series_points(record, "time_median"), series_points(record, "time_p99")
        sizes = [size for size in median if size > 0]  # a log axis; 0 B is in the table
        values = _us([median[size] for size in sizes])
        if sizes:
            curves.append(Curve(_function(record), sizes, values, low=values,
                                high=_us([p99.get(size) for size in sizes])))
    if not curves:
        return None
    return sink.line(f"{what}: time per call ({_short(group[0])})", "message size (bytes)",
                     "µs per call", curves, log_x=2, log_y=True,
                     caption="points: the median over the samples (each the slowest rank's "
                             "mean over a batch of calls); bars up to the p99; 0-byte calls "
                             "in the tables")


def _bandwidth_figure(sink: FigureSink, group: Sequence[Record]) -> Optional[Block]:
    curves = []
    for record in group:
        bandwidth = series_points(record, "bandwidth")
        sizes = [size for size in bandwidth if size > 0]
        if sizes:
            curves.append(Curve(_function(record), sizes,
                                [None if bandwidth[s] is None else bandwidth[s] / MEGA
                                 for s in sizes]))
    if not curves:
        return None
    return sink.line(f"Bandwidth against message size ({_short(group[0])})", "message size (bytes)",
                     "MB/s", curves, log_x=2, log_y=True,
                     caption="MB/s = 10^6 B/s from t_max, as IMB counts each function's bytes")


def _detail_figure(sink: FigureSink, record: Record) -> Optional[Block]:
    curves = []
    for name, series in PERCENTILE_CURVES:
        points = series_points(record, series)
        sizes = [size for size in points if size > 0]
        if sizes:
            curves.append(Curve(name, sizes, _us([points[size] for size in sizes]),
                                line=":" if name.startswith("t_") else "-"))
    if not curves:
        return None
    return sink.line(f"{_function(record)}: percentiles ({_short(record)})", "message size (bytes)",
                     "µs per call", curves, log_x=2, log_y=True,
                     caption="t_min / t_avg / t_max: over ranks of each rank's mean time per "
                             f"call; median and p99: over the samples; {verdict_cell(record)}")


def _headline_rows(group: Sequence[Record]) -> List[List[object]]:
    rows = []
    for record in group:
        curves = {name: series_points(record, series) for name, series in PERCENTILE_CURVES}
        size = number(parameter(record, "headline_size_bytes"))
        if size not in curves["t_avg"]:
            size = max(curves["t_avg"], default=None)
        bandwidth = series_points(record, "bandwidth").get(size) if size is not None else None
        rows.append([_function(record), binary_size(size)] + [
            format_number(curves[name].get(size) if size is not None else None, MICRO)
            for name, _ in PERCENTILE_CURVES] + [format_number(bandwidth, MEGA),
                                                 verdict_cell(record)])
    return rows


def _comm(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = of_benchmark(records, "comm")
    if not found:
        return [Paragraph("absent: IMB functions: no comm records (`hpcprobe comm all` or "
                          "`hpcprobe run --suite comm`)", "absent")]
    blocks: List[Block] = []
    configurations = _configurations(found)
    for number_, (where, group) in enumerate(configurations[:MAX_CONFIGS]):
        p2p = [r for r in group if r.get("variant") in POINT_TO_POINT]
        collective = [r for r in group if r.get("variant") not in POINT_TO_POINT]
        blocks += [_time_figure(sink, p2p, "Point to point") if p2p else None,
                   _time_figure(sink, collective, "Collectives") if collective else None,
                   _bandwidth_figure(sink, group)]
        blocks.append(Table.of(f"IMB functions at their headline size ({where})", (
            "function", "size", "t_min µs", "t_avg µs", "t_max µs", "median µs", "p99 µs",
            "MB/s", "validation"), _headline_rows(group),
            "the headline size: 1 MiB (paper 003's) unless the sizes stop below it; every "
            "size is in the figures' CSV files" + _staged_caption(group)))
        if number_ == 0:
            blocks += [_detail_figure(sink, record) for record in group
                       if record.get("variant") in DETAIL_FUNCTIONS]
    if len(configurations) > MAX_CONFIGS:
        blocks.append(Paragraph(f"comm records of {len(configurations)} configurations; the "
                                f"newest {MAX_CONFIGS} are drawn"))
    return [block for block in blocks if block is not None]


def _staged_caption(group: Sequence[Record]) -> str:
    staged = any(parameter(record, "device_transfer") == "staged" for record in group)
    return ("; device buffers staged through pinned host memory: the times include the "
            "copies, they are not the MPI's own" if staged else "")


def _beff(records: Sequence[Record]) -> List[Block]:
    found = newest_first(of_benchmark(records, "beff"))
    if not found:
        return [Paragraph("absent: b_eff: no beff records (`hpcprobe beff`)", "absent")]
    shown = found[:MAX_BEFF_COLUMNS]
    figures = [beff_figures(record) for record in shown]
    rows: List[List[object]] = []
    for key, _, _, divisor in BEFF_KEYS:
        rows.append([key] + [format_number(f[key], divisor) for f in figures])
    rows.append(["validation"] + [verdict_cell(record) for record in shown])
    blocks: List[Block] = [Table.of("b_eff: HPCC's keys", ["key"] + [
        f"{_where(record)} ({index})" for index, record in enumerate(shown, 1)], rows,
        "HPCC's names, units (µs, GB/s = 10^9 B/s) and reductions (hpcc_summary/beff.py): "
        "ping-pong over pairs (min / avg / max over pairs), rings with every rank exchanging "
        "at once (random: the geometric mean over the orderings)")]
    if len(found) > len(shown):
        blocks.append(Paragraph(f"{len(found)} beff records; the newest {len(shown)} shown"))
    return blocks


def node_order(same: Optional[List[List[Optional[float]]]], size: int) -> Tuple[
        List[int], List[int]]:
    """The ranks node by node (each node's ranks in rank order, nodes by their lowest
    rank) and the positions where a new node starts, from the same-node matrix; the
    ranks in order and no boundary without one."""
    if same is None or len(same) != size:
        return list(range(size)), []
    node = []
    for i in range(size):
        row = same[i]
        first = next((j for j in range(i) if j < len(row) and row[j]), i)
        node.append(node[first] if first != i else i)
    order = sorted(range(size), key=lambda i: (node[i], i))
    return order, [k for k in range(1, size) if node[order[k]] != node[order[k - 1]]]


def _heatmap(sink: FigureSink, record: Record) -> List[Block]:
    matrix = find_matrix(record, "bandwidth")
    size = len(matrix or [])
    if not matrix or any(len(row) != size for row in matrix):
        return [Paragraph(f"pairs on {_where(record)}: no square bandwidth matrix", "absent")]
    if size > MAX_HEATMAP_RANKS:
        return [Paragraph(f"pairs on {_where(record)}: {size} ranks, more than the "
                          f"{MAX_HEATMAP_RANKS} a heat map draws; the summary is below")]
    same = find_matrix(record, "same_node")
    order, starts = node_order(same, size)
    values = [[None if matrix[i][j] is None else matrix[i][j] / GIGA for j in order]
              for i in order]
    if same is None or len(same) != size:
        nodes = "no same-node matrix: the nodes are unknown"
    else:
        nodes = (f"{len(starts) + 1} nodes, red lines between them (from the same-node matrix)"
                 if starts else "one node")
    coverage = pairs_coverage(record)
    unmeasured = f"; blank off the diagonal: not measured ({coverage})" if coverage else ""
    return [sink.heatmap(f"Rank pairs: bandwidth ({_short(record)})", values,
                         [str(i) for i in order], starts, "GB/s",
                         caption=f"{binary_size(number(parameter(record, 'message_bytes')))} "
                                 f"messages, all pairs of a round at once, "
                                 f"{pairs_samples_text(record)}; ranks grouped by node: "
                                 f"{nodes}{unmeasured}; {verdict_cell(record)}")]


def _spread(values: List[float]) -> List[object]:
    if not values:
        return [0, None, None, None]
    return [len(values), format_number(min(values), GIGA),
            format_number(statistics.fmean(values), GIGA), format_number(max(values), GIGA)]


def _pairs(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_benchmark(records, "pairs"))
    if not found:
        return [Paragraph("absent: rank pairs: no pairs records (`hpcprobe pairs`)", "absent")]
    blocks: List[Block] = []
    for record in found[:MAX_HEATMAPS]:
        blocks += _heatmap(sink, record)
    rows = []
    for record in found:
        intra = numbers(metric_samples(record, "intra_node_bandwidth"))
        inter = numbers(metric_samples(record, "inter_node_bandwidth"))
        ratio = (statistics.fmean(inter) / statistics.fmean(intra)
                 if intra and inter and statistics.fmean(intra) > 0 else None)
        rows.append([_where(record), binary_size(number(parameter(record, "message_bytes"))),
                     *_spread(intra), *_spread(inter), format_number(ratio),
                     pairs_coverage(record) or "every pair", verdict_cell(record)])
    blocks.append(Table.of("Rank pairs: within and across nodes", (
        "run", "messages", "intra pairs", "min GB/s", "mean GB/s", "max GB/s", "inter pairs",
        "min GB/s", "mean GB/s", "max GB/s", "inter / intra (means)", "measured",
        "validation"), rows,
        "GB/s = 10^9 B/s per ordered pair, the median of its samples; intra-node: the two "
        "ranks share a node; measured: every pair, or the sample of a run past its time "
        "budget"))
    return blocks


def _placements(records: Sequence[Record]) -> List[Block]:
    columns, _ = placement_columns(records)
    if len(columns) < 2:
        found = ", ".join(column.name for column in columns) or "none"
        return [Paragraph(f"absent: placements side by side: the records name one placement "
                          f"({found}); run the suite again with `--placement round-robin` "
                          "(or block, or a file) into the same directory", "absent")]
    table = comparison_table(columns, comparison_rows(columns))
    table.title = "Placements side by side (`hpcprobe compare --by placement`)"
    return [table]


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the communication section for one machine's records."""
    return (_comm(records, sink) + _beff(records) + _pairs(records, sink)
            + _placements(records))


SECTION = ReportSection("communication",
                        "Communication: IMB functions, b_eff rings, rank pairs",
                        ("comm", "beff", "pairs"), 30, section, compare_label)
