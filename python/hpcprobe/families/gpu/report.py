"""The GPU section of a report: BabelStream's rates per kernel against the device's nominal
bandwidth, RandomAccess on the device, and the copies (a table, and bandwidth against size
for the newest few). Strings from the records (the device name above all) become cells
and titles as plain text; the template escapes them."""

from typing import List, Sequence

from hpcprobe.families.gpu.tables import (COPY_HEADINGS, RA_HEADINGS, STREAM_OPS, best_and_median,
                                          binary_size, copy_row, device_text, of_variant, ra_row)
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import Record, newest_first, number, parameter, verdict_cell
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.report.registry import ReportSection
from hpcprobe.units import GIGA, format_number

# A results directory may hold many records: the tables list the newest few, the
# figures draw fewer.
MAX_ROWS = 12
MAX_CURVES = 8
MAX_BAR_SERIES = 4


def compare_label(record: Record) -> str:
    """What tells two gpu records apart besides variant and algorithm."""
    words = [device_text(record)]
    variant = record.get("variant")
    if variant == "ra":
        words.append(f"table {binary_size(number(parameter(record, 'table_bytes')))}")
    elif variant == "copy" and isinstance(parameter(record, "host_memory"), str):
        words.append(f"{parameter(record, 'host_memory')} host memory")
    elif variant == "stream":
        words.append(f"arrays {binary_size(number(parameter(record, 'array_bytes')))}")
    return ", ".join(words)


def _gb(value):
    return None if value is None else value / GIGA


def _stream(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_variant(records, "stream"))
    if not found:
        return [Paragraph("absent: device memory bandwidth: no gpu stream records "
                          "(`hpcprobe gpu stream`)", "absent")]
    rows = []
    for record in found[:MAX_ROWS]:
        best = [best_and_median(record, f"{op}_bandwidth")[0] for op in STREAM_OPS]
        nominal = number(parameter(record, "nominal_bandwidth"))
        triad = best[STREAM_OPS.index("triad")]
        share = f"{100 * triad / nominal:.3g} %" if triad is not None and nominal else None
        rows.append([device_text(record), binary_size(number(parameter(record, "array_bytes"))),
                     *[format_number(value, GIGA) for value in best],
                     format_number(nominal, GIGA), share, verdict_cell(record)])
    table = Table.of("Device memory bandwidth (BabelStream's kernels, best iteration, GB/s)",
                     ("device", "arrays", *[op.capitalize() for op in STREAM_OPS], "nominal",
                      "Triad of nominal", "validation"), rows,
                     "GB/s = 10^9 B/s; Copy, Mul, Dot count 2 arrays, Add and Triad 3; nominal: "
                     "memory clock x bus width x 2")
    series = {device_text(record): [_gb(best_and_median(record, f"{op}_bandwidth")[0])
                                    for op in STREAM_OPS] for record in found[:MAX_BAR_SERIES]}
    figure = sink.bars("GPU memory bandwidth per kernel", "GB/s",
                       [op.capitalize() for op in STREAM_OPS], series,
                       caption="the newest gpu stream records, best iteration")
    return [figure, table]


def _ra(records: Sequence[Record]) -> List[Block]:
    found = newest_first(of_variant(records, "ra"))
    if not found:
        return [Paragraph("absent: RandomAccess on a device: no gpu ra records "
                          "(`hpcprobe gpu ra`)", "absent")]
    rows = [[device_text(record), *ra_row(record)] for record in found[:MAX_ROWS]]
    return [Table.of("RandomAccess on the device (GUPS = 10^9 updates/s)",
                     ("device", *RA_HEADINGS), rows,
                     "HPCC's rules: 4 updates per table word, look-ahead 1 per generator "
                     "stream; verified by replay with atomic XOR, at most 1 % wrong words")]


def _copy_curve(record: Record) -> Curve:
    entry = next((s for s in record.get("series") or [] if isinstance(s, dict)
                  and s.get("name") == "bandwidth"), {})
    points = [(number(x), number(y)) for x, y in zip(entry.get("x") or [], entry.get("y") or [])]
    points = [(x, y) for x, y in points if x is not None and x > 0]
    name = f"{copy_row(record)[0]}, {device_text(record)}"
    return Curve(name, [x for x, _ in points], [_gb(y) for _, y in points])


def _copies(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_variant(records, "copy"))
    if not found:
        return [Paragraph("absent: host-device copies: no gpu copy records "
                          "(`hpcprobe gpu copy`)", "absent")]
    rows = [[device_text(record), *copy_row(record)] for record in found[:MAX_ROWS]]
    table = Table.of("Copies between host and device", ("device", *COPY_HEADINGS), rows,
                     "GB/s at the largest size (median), µs at the smallest (the record's "
                     "latency); device to device counts each byte read and written")
    curves = [_copy_curve(record) for record in found[:MAX_CURVES]]
    figure = sink.line("GPU copies: bandwidth against size", "bytes", "GB/s",
                       [curve for curve in curves if curve.x], log_x=2,
                       caption=f"the newest {min(len(found), MAX_CURVES)} copy records, the "
                       "median at each size")
    return [figure, table]


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the GPU section for its (merged) records."""
    if len(of_variant(records, "copy")) > MAX_ROWS or len(records) > 3 * MAX_ROWS:
        note = [Paragraph(f"{len(records)} gpu records; the newest are shown, the statistics "
                          "at the end list them all")]
    else:
        note = []
    return _stream(records, sink) + _ra(records) + _copies(records, sink) + note


SECTION = ReportSection("gpu", "GPU: device memory, RandomAccess, copies", ("gpu",), 50,
                        section, compare_label)
