"""The tables printed from contention records (by `hpcprobe contention`, `show` and `run`):
a summary per message size, latency against hops, and the pair curves.

Records are untrusted input: every number is checked before use and every string is shown
as plain text.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from rich.console import RenderableType

from hpcprobe.records import number
from hpcprobe.records import series_points
from hpcprobe.tables import titled_table
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.units import MICRO, format_number
from hpcprobe.records import parameter

Record = Dict[str, Any]
Points = Dict[float, Optional[float]]

MAX_HOP_COLUMNS = 12


def _us(value: Optional[float]) -> str:
    return format_number(value, MICRO)


def subject(record: Record) -> str:
    """The topology a record assumed, e.g. "torus 4x4 (row-major), up to 1 rank(s) per node
    (emulated)"."""
    kind, dims = parameter(record, "topology_kind"), parameter(record, "topology_dims")
    words = [plain(kind) if isinstance(kind, str) else "?"]
    if isinstance(dims, str) and dims:
        words.append(plain(dims))
    source = parameter(record, "coordinate_source")
    rpn = number(parameter(record, "ranks_per_node"))
    text = " ".join(words) + (f" ({plain(source)})" if isinstance(source, str) else "")
    if rpn is not None:
        text += f", up to {int(rpn)} rank(s) per node"
    if parameter(record, "ranks_per_node_source") == "option":
        text += " (emulated)"
    return text


def _title(record: Record, what: str) -> str:
    variant = plain(record.get("variant"))
    pairs = parameter(record, "pairs")
    extra = f" ({plain(pairs)} pairs)" if isinstance(pairs, str) else ""
    return f"hpcprobe contention {variant}{extra}: {what}"


def _caption(record: Record, text: str) -> str:
    return f"on {subject(record)}; validation {verdict_text(record)}; {text}"


SUMMARY_HEADINGS = ["bytes", "mean µs", "min µs", "max µs", "(max − min) / min %"]


def summary_rows(record: Record) -> List[List[str]]:
    """Per size: mean, min and max over the pairs of the time per message (µs), and the
    paper's % difference (max − min) / min."""
    mean = series_points(record, "message_time_mean")
    low = series_points(record, "message_time_min")
    high = series_points(record, "message_time_max")
    rows = []
    for size, value in mean.items():
        lo, hi = low.get(size), high.get(size)
        spread = 100 * (hi - lo) / lo if lo and hi is not None else None
        rows.append([str(int(size)), _us(value), _us(lo), _us(hi), format_number(spread)])
    return rows


def summary_table(record: Record) -> RenderableType:
    """Per size: mean, min and max over the pairs of the time per message."""
    rows = summary_rows(record)
    what = ("µs per message over the pairs" if record.get("variant") != "wocon" else
            "one-way µs from rank 0 to each node")
    return titled_table(_title(record, what), _caption(
                            record, "µs: the median over the repetitions; (max − min) / min is "
                            "the paper's % difference (Figures 3-6)"),
                  SUMMARY_HEADINGS, rows)


def pair_curves(record: Record) -> List[Tuple[float, Dict[float, List[float]]]]:
    """(bytes, {hops: [times]}) of each size's pair series (pair_time_b<bytes>, or
    time_by_hops_b<bytes> for runs with many pairs)."""
    curves = []
    for entry in record.get("series") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.startswith(("pair_time_b", "time_by_hops_b")):
            continue
        size = name.rsplit("_b", 1)[1]
        by_hops: Dict[float, List[float]] = {}
        for x, y in zip(_maybe_numbers(entry.get("x")), _maybe_numbers(entry.get("y"))):
            if x is not None and y is not None:
                by_hops.setdefault(x, []).append(y)
        if size.isascii() and size.isdigit():
            curves.append((float(size), by_hops))
    return curves


def _maybe_numbers(values: Any) -> List[Optional[float]]:
    return [number(value) for value in values] if isinstance(values, list) else []


def hops_table(record: Record) -> Optional[RenderableType]:
    """Per size, the mean time of the pairs at each hop count (Figures 3-6)."""
    curves = pair_curves(record)
    hops = sorted({h for _, by in curves for h in by})
    if not curves or len(hops) > MAX_HOP_COLUMNS:
        return None
    rows = [[str(int(size))] + [_us(float(np.mean(by[h]))) if h in by else "—" for h in hops]
            for size, by in curves]
    counts = {h: len(by[h]) for _, by in curves[:1] for h in by}
    caption = "pairs at each hop count: " + ", ".join(
        f"{int(h)} hops: {counts.get(h, 0)}" for h in hops)
    return titled_table(_title(record, "µs per message by hop count"), _caption(record, caption),
                  ["bytes"] + [f"{int(h)} hop(s)" for h in hops], rows)


def numbered_series(record: Record, prefix: str) -> List[Tuple[int, Points]]:
    """(N, x -> y) of the series named prefix + N (middle_pair_time_pairs_N,
    message_time_distance_N), in order of N."""
    found = []
    for entry in record.get("series") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.startswith(prefix) and name[len(prefix):].isascii() \
                and name[len(prefix):].isdigit():
            found.append((int(name[len(prefix):]), series_points(record, name)))
    return sorted(found, key=lambda item: item[0])


def _curves_table(record: Record, prefix: str, heading: str, what: str,
                  caption: str) -> Optional[RenderableType]:
    """Rows: sizes; columns: the series named prefix + N, in order of N."""
    found = numbered_series(record, prefix)
    if not found:
        return None
    sizes = sorted({x for _, points in found for x in points})
    rows = [[str(int(size))] + [_us(points.get(size)) for _, points in found] for size in sizes]
    if prefix.startswith("middle_pair") and len(found) > 1:
        for row, size in zip(rows, sizes):
            alone, crowded = found[0][1].get(size), found[-1][1].get(size)
            row.append(format_number(crowded / alone if alone and crowded else None))
    headings = ["bytes"] + [heading.format(n) for n, _ in found]
    if prefix.startswith("middle_pair") and len(found) > 1:
        headings.append(f"{found[-1][0]} / 1")
    return titled_table(_title(record, what), _caption(record, caption), headings, rows)


def record_tables(record: Record) -> List[RenderableType]:
    if record.get("benchmark") != "contention":
        return []
    variant = record.get("variant")
    if variant == "stress-link":
        table = _curves_table(record, "middle_pair_time_pairs_", "{} pair(s) µs",
                              "the middle pair's µs per message, pairs added around it",
                              "Figure 11: the middle pair's time as pairs around it load the "
                              "middle link; last column: all pairs / alone")
        return [table] if table else []
    if variant == "equidistant":
        table = _curves_table(record, "message_time_distance_", "{} hop(s) µs",
                              "µs per message, pairs n hops apart",
                              "Figure 13: the mean over the pairs, median over repetitions")
        return [table] if table else []
    hops = hops_table(record)
    return [summary_table(record)] + ([hops] if hops is not None else [])


def contention_tables(records: Sequence[Record]) -> List[RenderableType]:
    return [table for record in records for table in record_tables(record)]

