"""The network-contention section of a report (paper 004): latency against hops without
contention (WOCON, Figures 3-6), near-neighbour against random pairs (WICON, Figure 9 and
Table 1), the middle pair of a stressed link (Figures 10-11), equidistant pairs (Figures
12-13), and the simulator's prediction beside the measurement (the code of `hpcprobe
simulate --compare`, with its default link model).

Each part draws the newest few records (a directory may hold thousands) and says
"absent" when the records it needs are not there."""

import statistics
from typing import Dict, List, Optional, Sequence, Tuple, TypeVar

from hpcprobe.families.contention.tables import (SUMMARY_HEADINGS, Points, numbered_series,
                                                  pair_curves, subject, summary_rows)
from hpcprobe.units import binary_size
from hpcprobe.records import series_points
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import (Record, newest_first, of_benchmark, parameter, plain, ranks,
                                    verdict_cell)
from hpcprobe.report.registry import ReportSection
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.netsim.simulate import BGP_LINK_BANDWIDTH, PAPER_FLIT_BYTES, LinkModel
from hpcprobe.netsim.report import (cluster_network, compare_record,
                                                          record_link_model)
from hpcprobe.units import MICRO, format_number

MAX_SHOWN = 2        # records of one kind drawn, the newest
MAX_CURVES = 9       # sizes or distances in one figure
MAX_PREDICTED = 4    # records put beside the simulator's prediction
GRID_KINDS = ("torus", "mesh", "mixed")
# The simulator's defaults (`hpcprobe simulate`): Blue Gene/P's link, the paper's flit.
DEFAULT_MODEL = LinkModel(BGP_LINK_BANDWIDTH, PAPER_FLIT_BYTES, 0.0)
Item = TypeVar("Item")


def compare_label(record: Record) -> str:
    """What tells two contention rows apart besides the variant: WICON's pairing."""
    pairs = parameter(record, "pairs")
    return f"{pairs} pairs" if isinstance(pairs, str) else ""


def _thin(items: Sequence[Item], limit: int) -> List[Item]:
    """At most `limit` items spread evenly, the first and the last among them."""
    if len(items) <= limit:
        return list(items)
    step = (len(items) - 1) / (limit - 1)
    return [items[round(index * step)] for index in range(limit)]


def _us(value: Optional[float]) -> Optional[float]:
    return None if value is None else value / MICRO


def _short(record: Record) -> str:
    """e.g. "torus 4x4, 16 ranks" (figure titles are cut at 60 characters)."""
    kind, dims = parameter(record, "topology_kind"), parameter(record, "topology_dims")
    words = [plain(kind, 12) if isinstance(kind, str) else "?"]
    if isinstance(dims, str) and dims:
        words.append(plain(dims, 20))
    return f"{' '.join(words)}, {ranks(record)} ranks"


def _run(record: Record) -> str:
    """e.g. "wicon (rnd pairs) on 4 ranks, torus 4 (row-major), ...": a table cell."""
    label = compare_label(record)
    return (f"{plain(record.get('variant'))}{f' ({plain(label)})' if label else ''} on "
            f"{ranks(record)} ranks, {subject(record)}")


def _of_variant(records: Sequence[Record], variant: str) -> List[Record]:
    return newest_first(of_benchmark(records, "contention", variant))


def _absent(variant: str, what: str, how: str) -> Paragraph:
    return Paragraph(f"absent: {what}: no contention {variant} records ({how})", "absent")


def _more(found: Sequence[Record], shown: int, what: str) -> List[Block]:
    if len(found) <= shown:
        return []
    return [Paragraph(f"{len(found)} {what} records; the newest {shown} are drawn, the "
                      "statistics at the end list them all")]


def _wocon(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = _of_variant(records, "wocon")
    if not found:
        return [_absent("wocon", "latency against hops", "`hpcprobe contention wocon "
                        "--torus DIMS`")]
    blocks: List[Block] = []
    rows = []
    for record in found[:MAX_SHOWN]:
        curves = []
        for size, by_hops in _thin(pair_curves(record), MAX_CURVES):
            hops = sorted(by_hops)
            curves.append(Curve(binary_size(size), hops,
                                [_us(statistics.fmean(by_hops[h])) for h in hops],
                                low=[_us(min(by_hops[h])) for h in hops],
                                high=[_us(max(by_hops[h])) for h in hops]))
        if curves:
            blocks.append(sink.line(
                f"WOCON: latency against hops ({_short(record)})", "hops", "µs per message",
                curves, log_y=True, caption="rank 0 to each other node in turn, no contention: "
                "the mean over the nodes that far, bars from their fastest to their slowest "
                f"(each the median over repetitions); {verdict_cell(record)}"))
        rows += [[_run(record)] + row for row in summary_rows(record)]
    blocks.append(Table.of("WOCON: one-way time over the destinations", ["run"] + SUMMARY_HEADINGS,
                           rows, "Figures 3-6: the spread from the nearest to the farthest node "
                           "is what hops cost without contention"))
    return blocks + _more(found, MAX_SHOWN, "wocon")


def _pairs_curve(record: Record, name: str) -> Curve:
    mean = series_points(record, "message_time_mean")
    low = series_points(record, "message_time_min")
    high = series_points(record, "message_time_max")
    sizes = list(mean)
    return Curve(name, sizes, [_us(mean[x]) for x in sizes],
                 low=[_us(low.get(x)) for x in sizes], high=[_us(high.get(x)) for x in sizes])


def _nn_rnd_blocks(modes: Dict[str, Record]) -> List[Block]:
    """Per size each pairing's mean time, and RND / NN (paper 004's Table 1 contrast)."""
    near = modes.get("nn-torus") or modes.get("nn")
    random = modes.get("rnd")
    means = {mode: series_points(record, "message_time_mean") for mode, record in modes.items()}
    sizes = sorted({size for points in means.values() for size in points})
    rows = []
    for size in sizes:
        row: List[object] = [int(size)] + [format_number(_us(points.get(size)))
                                           for points in means.values()]
        if near is not None and random is not None:
            a = series_points(random, "message_time_mean").get(size)
            b = series_points(near, "message_time_mean").get(size)
            row.append(format_number(a / b if a and b else None))
        rows.append(row)
    headings = ["bytes"] + [f"{plain(mode)} µs" for mode in means]
    blocks: List[Block] = []
    if near is not None and random is not None:
        headings.append(f"rnd / {'nn-torus' if near is modes.get('nn-torus') else 'nn'}")
    else:
        blocks.append(Paragraph("absent: RND against NN on this placement: run both `hpcprobe "
                                "contention wicon --pairs rnd` and `--pairs nn` (or nn-torus) "
                                "on the same ranks and topology", "absent"))
    table = Table.of("WICON: µs per message by pairing", headings, rows,
                     "the mean over the pairs (each the median over repetitions); Figure 9: "
                     "random pairs cross more links and share them")
    return [table] + blocks


def _wicon(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = _of_variant(records, "wicon")
    if not found:
        return [_absent("wicon", "near-neighbour against random pairs",
                        "`hpcprobe contention wicon --pairs nn` and `--pairs rnd`")]
    groups: Dict[Tuple[int, str], Dict[str, Record]] = {}  # placement -> pairing -> newest
    for record in found:
        modes = groups.setdefault((ranks(record), subject(record)), {})
        modes.setdefault(plain(parameter(record, "pairs"), 20), record)
    blocks: List[Block] = []
    for (_, where), modes in list(groups.items())[:MAX_SHOWN]:
        first = next(iter(modes.values()))
        curves = [_pairs_curve(record, f"{mode} pairs") for mode, record in modes.items()]
        blocks.append(sink.line(
            f"WICON: pairings against message size ({_short(first)})", "message size (bytes)",
            "µs per message", curves, log_x=2, log_y=True,
            caption=f"every pair at once on {where}; points: the mean over the pairs, bars: "
                    "the fastest and slowest pair"))
        blocks += _nn_rnd_blocks(modes)
    if len(groups) > MAX_SHOWN:
        blocks.append(Paragraph(f"wicon records on {len(groups)} placements; the newest "
                                f"{MAX_SHOWN} are drawn"))
    return blocks


def _ratio_column(series: List[Tuple[int, Points]], size: float) -> Optional[float]:
    """The last curve over the first at `size` (all pairs / alone, farthest / nearest)."""
    first, last = series[0][1].get(size), series[-1][1].get(size)
    return last / first if first and last is not None else None


def _stress(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = _of_variant(records, "stress-link")
    if not found:
        return [_absent("stress-link", "stressing a link", "`hpcprobe contention stress-link "
                        "--torus DIMS`")]
    blocks: List[Block] = []
    rows = []
    for record in found[:MAX_SHOWN]:
        phases = numbered_series(record, "middle_pair_time_pairs_")
        sizes = sorted({size for _, points in phases for size in points})
        pairs = [count for count, _ in phases]
        curves = [Curve(binary_size(size), pairs, [_us(points.get(size)) for _, points in phases])
                  for size in _thin(sizes, MAX_CURVES)]
        if curves:
            blocks.append(sink.line(
                f"Stressing a link: the middle pair ({_short(record)})",
                "pairs crossing the middle link", "µs per message (middle pair)", curves,
                log_y=True, caption="Figures 10-11: the middle pair alone (1), then with the "
                f"pairs around it added; {verdict_cell(record)}"))
        rows += [[_run(record), int(size), format_number(_us(phases[0][1].get(size))),
                  format_number(_us(phases[-1][1].get(size))), pairs[-1],
                  format_number(_ratio_column(phases, size))] for size in sizes]
    blocks.append(Table.of("Stressing a link: the middle pair alone and with every pair",
                           ("run", "bytes", "alone µs", "all pairs µs", "pairs", "all / alone"),
                           rows, "the middle pair's µs per message, median over repetitions"))
    return blocks + _more(found, MAX_SHOWN, "stress-link")


def _equidistant(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = _of_variant(records, "equidistant")
    if not found:
        return [_absent("equidistant", "equidistant pairs", "`hpcprobe contention equidistant "
                        "--torus DIMS`")]
    blocks: List[Block] = []
    rows = []
    for record in found[:MAX_SHOWN]:
        distances = numbered_series(record, "message_time_distance_")
        if not distances:
            continue
        curves = [Curve(f"{hops} hop(s)", list(points), [_us(y) for y in points.values()])
                  for hops, points in _thin(distances, MAX_CURVES)]
        blocks.append(sink.line(
            f"Equidistant pairs ({_short(record)})", "message size (bytes)", "µs per message",
            curves, log_x=2, log_y=True, caption="Figures 12-13: every node paired with the one "
            f"n hops away along one axis, all at once; the mean over the pairs; "
            f"{verdict_cell(record)}"))
        sizes = sorted({size for _, points in distances for size in points})
        rows += [[_run(record), int(size), distances[0][0],
                  format_number(_us(distances[0][1].get(size))), distances[-1][0],
                  format_number(_us(distances[-1][1].get(size))),
                  format_number(_ratio_column(distances, size))] for size in sizes]
    blocks.append(Table.of("Equidistant pairs: nearest and farthest", (
        "run", "bytes", "nearest (hops)", "nearest µs", "farthest (hops)", "farthest µs",
        "farthest / nearest"), rows, "µs per message, the mean over the pairs"))
    return blocks + _more(found, MAX_SHOWN, "equidistant")


def _prediction_blocks(record: Record, compared: Dict, sink: FigureSink,
                       draw: bool) -> List[Block]:
    rows: List[List[object]] = []
    by_phase: Dict[str, List[Tuple[float, Optional[float]]]] = {}
    for row in compared["rows"]:
        measured, predicted = row["measured_s"], row["predicted_s"]
        ratio = measured / predicted if measured and predicted else None
        rows.append([row["phase"], row["bytes"], format_number(row["avg_hops"]),
                     row["max_link_load"], format_number(_us(measured)),
                     format_number(_us(predicted)), format_number(ratio)])
        by_phase.setdefault(row["phase"], []).append((row["bytes"], ratio))
    blocks: List[Block] = [Table.of(f"Simulated against measured: {_run(record)}", (
        "phase", "bytes", "avg hops", "max link load", "measured µs", "predicted µs",
        "measured / predicted"), rows)]
    if draw and rows:
        curves = [Curve(phase, [x for x, _ in points], [y for _, y in points])
                  for phase, points in _thin(list(by_phase.items()), MAX_CURVES)]
        blocks.append(sink.line(
            f"Measured / predicted: {plain(record.get('variant'))} ({_short(record)})",
            "message size (bytes)", "measured / predicted", curves, log_x=2, log_y=True,
            caption="the simulator (paper 004's eq. 1 on the record's network, placement and "
                    "pairs) against the measurement; a flat line: the model has the shape"))
    return blocks


def _predicted(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_benchmark(records, "contention"))
    grids = [r for r in found if parameter(r, "topology_kind") in GRID_KINDS
             or cluster_network(r) is not None]
    if not grids:
        return [Paragraph("absent: simulated against measured: no contention record on a torus "
                          "or mesh (`--torus DIMS`, `--mesh DIMS`) or an emulated cluster "
                          "(the simulator models those)", "absent")]
    blocks: List[Block] = [Paragraph(
        f"predicted by `hpcprobe simulate --compare`: eq. 1 with, on an emulated cluster, its "
        f"links' rates and delay (the record's `cluster_network`), elsewhere the defaults, B = "
        f"{DEFAULT_MODEL.bandwidth:.4g} B/s per link (Blue Gene/P), L_f = "
        f"{DEFAULT_MODEL.flit_bytes:g} B; no software overhead: compare shapes and ratios, "
        "not microseconds; `--link-bandwidth` gives this machine's link")]
    shown = tried = 0
    for record in grids:
        if shown == MAX_PREDICTED:
            break
        tried += 1
        try:
            compared = compare_record(record, record_link_model(record))
        except ValueError as error:
            blocks.append(Paragraph(f"no prediction for {_run(record)}: {error}", "absent"))
            continue
        blocks += _prediction_blocks(record, compared, sink, shown < MAX_SHOWN)
        shown += 1
    if len(found) > len(grids):
        blocks.append(Paragraph(f"{len(found) - len(grids)} record(s) on a flat or tree "
                                "topology that is not an emulated cluster's: no prediction (the "
                                "simulator does not know that network's links)"))
    if len(grids) > tried:
        blocks.append(Paragraph(f"{len(grids)} records on a torus or mesh; the newest "
                                f"{MAX_PREDICTED} are put beside the prediction"))
    return blocks


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the contention section for its (merged) records."""
    return (_wocon(records, sink) + _wicon(records, sink) + _stress(records, sink)
            + _equidistant(records, sink) + _predicted(records, sink))


SECTION = ReportSection("contention", "Network contention", ("contention",), 40, section,
                        compare_label)
