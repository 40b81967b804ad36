"""The memory section of a report (paper 002 §4.1-4.3, paper 003's EP-STREAM): STREAM's
rates, the stride and block-size curves, the latency curve with its plateaus named after
the caches, and the many- vs one-copy ratio curves."""

import statistics
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.hpcc_summary.stream import STREAM_KERNELS, stream_single_best, stream_star_best
from hpcprobe.families.memory.numa import report_rows
from hpcprobe.families.memory.tables import cache_names, sysfs_caches
from hpcprobe.units import binary_size
from hpcprobe.records import series_points
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import (Record, newest_first, parameter, plain, ranks, verdict_cell)
from hpcprobe.report.registry import ReportSection
from hpcprobe.report.plots import Curve, FigureSink, Marks
from hpcprobe.units import GIGA, NANO, format_number

# A results directory may hold hundreds of curves; each figure shows the newest few.
MAX_CURVES = 8
_SWEEPS = (("stride", "stride", "stride (bytes)"), ("block", "block size", "block size (bytes)"),
           ("latency", "working set", "working set (bytes)"))


def _kind(record: Record) -> str:
    if record.get("variant") == "latency":
        return "latency"
    return "block" if parameter(record, "sweep") == "block" else "stride"


def compare_label(record: Record) -> str:
    """What tells two memory rows apart besides variant and algorithm."""
    words = []
    if record.get("benchmark") == "mem":
        words.append(f"{_kind(record)} sweep")
    for name in ("build_variant", "hugepages", "copies_requested"):
        value = parameter(record, name)
        if isinstance(value, str):
            words.append(f"{name.replace('_', ' ')} {value}")
    return ", ".join(words)


def _curve_name(record: Record) -> str:
    words = [plain(parameter(record, "build_variant") or ""),
             f"huge pages {plain(parameter(record, 'hugepages'))}"
             if _kind(record) == "latency" else "", f"{ranks(record)} ranks"]
    return ", ".join(word for word in words if word)


def _stream(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    streams = [r for r in records if r.get("benchmark") == "stream"]
    if not streams:
        return [Paragraph("absent: no STREAM records (`hpcprobe stream single|star`)", "absent")]
    rows, single, star = [], {}, {}
    for record in newest_first(streams):
        for kernel in STREAM_KERNELS:
            best = stream_single_best(record, kernel)
            copies = stream_star_best(record, kernel)
            mean = statistics.fmean(copies) if copies else None
            rows.append([record.get("variant"), ranks(record), kernel.capitalize(),
                         _gb_text(best), _gb_text(min(copies) if copies else None),
                         _gb_text(mean), _gb_text(max(copies) if copies else None),
                         _gb_text(sum(copies) if copies else None),
                         None if mean is None or not best else f"{mean / best:.3g}",
                         verdict_cell(record)])
            single.setdefault(kernel, _gb(best))
            if copies:
                star.setdefault(kernel, _gb(mean))
    table = Table.of("STREAM (best of the timed iterations, GB/s = 10^9 B/s)", (
        "variant", "ranks", "kernel", "single", "star min", "star mean", "star max", "star sum",
        "star mean / single", "validation"), rows,
        "single: one copy alone; star: every copy at once, per copy; 1 = no contention")
    series = {"single (one copy alone)": [single.get(k) for k in STREAM_KERNELS]}
    if star:
        series["star (mean per copy, all at once)"] = [star.get(k) for k in STREAM_KERNELS]
    figure = sink.bars("STREAM bandwidth per kernel", "GB/s",
                       [k.capitalize() for k in STREAM_KERNELS], series,
                       caption="the newest STREAM records")
    return [figure, table]


def _gb(value: Optional[float]) -> Optional[float]:
    return None if value is None else value / GIGA


def _gb_text(value: Optional[float]) -> str:
    return format_number(value, GIGA)


def _cache_marks(record: Record) -> List[Tuple[float, str]]:
    return [(size, f"{level} {binary_size(size)}") for level, size in sysfs_caches(record)]


def _curves(record: Record, with_many: bool) -> List[Curve]:
    one = series_points(record, "time_per_access_one")
    curves = [Curve(f"{_curve_name(record)}: one copy", list(one),
                    [None if y is None else y / NANO for y in one.values()])]
    many = series_points(record, "time_per_access_many")
    if with_many and many:
        curves.append(Curve(f"{_curve_name(record)}: all copies (mean)", list(many),
                            [None if y is None else y / NANO for y in many.values()], line="--"))
    return curves


def _plateau_marks(record: Record) -> Marks:
    marks = Marks(vertical=_cache_marks(record))
    plateaus = list(series_points(record, "plateau_latency").items())
    one = list(series_points(record, "time_per_access_one"))
    names = cache_names([size for size, _ in plateaus[:-1]], sysfs_caches(record)) + [None]
    start = one[0] if one else 1.0
    for index, ((size, latency), cache) in enumerate(zip(plateaus, names)):
        if latency is None:
            continue
        end = size if index < len(plateaus) - 1 else (one[-1] if one else size)
        named = "memory" if index == len(plateaus) - 1 else (cache[0] if cache else "?")
        marks.segments.append((start, end, latency / NANO, f"{named} {latency / NANO:.3g} ns"))
        start = size
    return marks


def _sweep_figures(records: Sequence[Record], kind: str, sink: FigureSink) -> List[Block]:
    _, words, x_label = next(entry for entry in _SWEEPS if entry[0] == kind)
    found = newest_first([r for r in records if r.get("benchmark") == "mem" and _kind(r) == kind])
    if not found:
        return [Paragraph(f"absent: no {words} curve (`hpcprobe mem "
                          f"{'latency' if kind == 'latency' else 'stride --sweep ' + kind}`)",
                          "absent")]
    shown = found[:MAX_CURVES]
    blocks: List[Block] = []
    if kind == "latency":
        for record in shown[:2]:
            blocks.append(sink.line(
                f"Latency against working set ({_curve_name(record)})", x_label, "ns per access",
                _curves(record, True), log_x=2, log_y=True, marks=_plateau_marks(record),
                caption="pointer chase, median of the repetitions; grey lines: sysfs caches; "
                        f"bars: plateaus found ({verdict_cell(record)})"))
    else:
        curves = [curve for record in shown for curve in _curves(record, kind == "stride")]
        blocks.append(sink.line(f"Time per access against {words}", x_label, "ns per access",
                                curves, log_x=2, log_y=True,
                                marks=Marks(vertical=_cache_marks(shown[0]))
                                if kind == "block" else None,
                                caption="read+write kernel, median of the repetitions"))
    if len(found) > len(shown) or (kind == "latency" and len(found) > 2):
        blocks.append(Paragraph(f"{len(found)} {words} records; the figure shows the newest; "
                                "the ratio table below lists them all"))
    return blocks


def _ratios(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first([r for r in records if series_points(r, "many_over_one_ratio")])
    if not found:
        return [Paragraph("absent: no many- vs one-copy ratio curves (`--copies all`)", "absent")]
    blocks: List[Block] = []
    rows = []
    by_kind: Dict[str, List[Record]] = {}
    for record in found:
        by_kind.setdefault(_kind(record), []).append(record)
        ratio = [v for v in series_points(record, "many_over_one_ratio").values() if v is not None]
        rows.append([record.get("variant"), _kind(record), _curve_name(record),
                     parameter(record, "copies"), None if not ratio else f"{min(ratio):.3g}",
                     None if not ratio else f"{statistics.median(ratio):.3g}",
                     None if not ratio else f"{max(ratio):.3g}", verdict_cell(record)])
    for kind, group in by_kind.items():
        _, words, x_label = next(entry for entry in _SWEEPS if entry[0] == kind)
        curves = [Curve(_curve_name(r), list(series_points(r, "many_over_one_ratio")),
                        list(series_points(r, "many_over_one_ratio").values()))
                  for r in group[:MAX_CURVES]]
        blocks.append(sink.line(f"Many copies / one copy against {words}", x_label,
                                "time ratio (1 = no contention)", curves, log_x=2,
                                caption="the copies' mean time per access at once / one copy's "
                                        "alone (paper 002's dual- vs single-core ratio)"))
    blocks.append(Table.of("Contention ratios (many copies / one copy)", (
        "variant", "sweep", "curve", "copies", "min", "median", "max", "validation"), rows))
    return blocks


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the memory section for its (merged) records."""
    blocks = _stream(records, sink)
    for kind, _, _ in _SWEEPS:
        blocks += _sweep_figures(records, kind, sink)
    return blocks + _ratios(records, sink) + _numa(records)


def _numa(records: Sequence[Record]) -> List[Block]:
    """Per NUMA domain, where a node had more than one: nothing otherwise."""
    with_domains = [record for record in newest_first(records) if report_rows([record])]
    rows = report_rows(with_domains[:MAX_CURVES])
    if not rows:
        return []
    return [Table.of("Per NUMA domain (the copies pinned in each)", (
        "kernel", "NUMA domain", "copies", "mean per copy", "sum"), rows,
        "STREAM star: Triad, each copy's best at once; mem: the domain's copies' mean time "
        "per access at the largest point")]


SECTION = ReportSection("memory", "Memory: STREAM, stride, latency", ("stream", "mem"), 20,
                        section, compare_label)
