"""The memory family's figures per NUMA domain (docs/kernels/memory.md#numa): where a
node has more than one domain, STREAM star gives each domain's copies' mean best rate
(series `star_<kernel>_best_bandwidth_by_numa`, x the domain) and the mem sweeps' many-copy
phase each domain's mean time per access (series `time_per_access_many_numa<N>`).

These functions turn them into rows, for `hpcprobe show` (rich tables) and the report.
A record with one domain, or from before domains were recorded, has none: no rows.
Records are untrusted: every number is checked, series names are matched exactly.
"""

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.console import RenderableType

from hpcprobe.hpcc_summary.stream import STREAM_KERNELS
from hpcprobe.records import number, parameter, section_of, series_points
from hpcprobe.show import verdict_text
from hpcprobe.tables import cell, titled_table
from hpcprobe.units import GIGA, NANO, binary_size

Record = Dict[str, Any]

_SWEEP_HEADINGS = {"stride": "stride", "block": "block size"}
_MEM_SERIES = re.compile(r"time_per_access_many_numa(0|[1-9][0-9]{0,6})")


def numa_domains(record: Record) -> Optional[int]:
    """The record's `numa_domains` parameter: a whole number >= 1, else None (unknown)."""
    value = number(parameter(record, "numa_domains"))
    return int(value) if value is not None and value >= 1 and value == int(value) else None


def _domain(x: float) -> Optional[int]:
    return int(x) if x >= 0 and x == int(x) else None


def stream_domain_rows(record: Record) -> List[Tuple[int, Optional[int], Dict[str, float]]]:
    """(domain, copies, {kernel: mean best B/s per copy}) for each domain the record
    names, in its order; copies None when `copies_by_numa` does not match the domains."""
    per_kernel = {kernel: series_points(record, f"star_{kernel}_best_bandwidth_by_numa")
                  for kernel in STREAM_KERNELS}
    domains = [_domain(x) for x in per_kernel["triad"]]
    if not domains or None in domains:
        return []
    counts = domain_copies(record)
    rows = []
    for index, (x, domain) in enumerate(zip(per_kernel["triad"], domains)):
        rates = {kernel: per_kernel[kernel][x] for kernel in STREAM_KERNELS
                 if per_kernel[kernel].get(x) is not None}
        rows.append((domain, counts[index] if len(counts) == len(domains) else None, rates))
    return rows


def _sum(mean: Optional[float], copies: Optional[int]) -> Optional[float]:
    return None if mean is None or copies is None else mean * copies


def stream_numa_cells(record: Record) -> Tuple[List[str], List[List[str]]]:
    """Headings and rows (text) of STREAM star's per-domain table; no rows when none."""
    headings = ["NUMA domain", "copies"] + [f"{k.capitalize()} mean" for k in STREAM_KERNELS]
    headings.append("Triad sum")
    rows = []
    for domain, copies, rates in stream_domain_rows(record):
        rows.append([str(domain), "?" if copies is None else str(copies)]
                    + [cell(rates.get(kernel), GIGA) for kernel in STREAM_KERNELS]
                    + [cell(_sum(rates.get("triad"), copies), GIGA)])
    return headings, rows


def mem_domain_curves(record: Record) -> List[Tuple[int, Dict[float, Optional[float]]]]:
    """(domain, x -> mean s per access) of each domain's copies, by domain."""
    curves = []
    for entry in record.get("series") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        match = _MEM_SERIES.fullmatch(name) if isinstance(name, str) else None
        if match:
            curves.append((int(match.group(1)), series_points(record, name)))
    return sorted(curves, key=lambda curve: curve[0])


def mem_numa_cells(record: Record) -> Tuple[List[str], List[List[str]]]:
    """Headings and rows (text) of the sweep's per-domain table; no rows when none."""
    curves = mem_domain_curves(record)
    if not curves:
        return [], []
    one = series_points(record, "time_per_access_one")
    xs = list(one) or sorted({x for _, points in curves for x in points})
    headings = ["x", "1 copy ns/access"] + [f"domain {domain} ns/access" for domain, _ in curves]
    rows = [[binary_size(x), cell(one.get(x), NANO)]
            + [cell(points.get(x), NANO) for _, points in curves] for x in xs]
    return headings, rows


def domain_copies(record: Record) -> List[int]:
    """counters.copies_by_numa (the copies in each domain, in the series' order) when it
    is a list of whole numbers >= 0, else []."""
    counts = section_of(record, "counters").get("copies_by_numa")
    found = [number(count) for count in counts] if isinstance(counts, list) else []
    if any(count is None or count < 0 or count != int(count) for count in found):
        return []
    return [int(count or 0) for count in found]


def _copies_caption(record: Record) -> str:
    counts = domain_copies(record)
    return "; copies per domain: " + ", ".join(map(str, counts)) if counts else ""


def numa_tables(record: Record) -> List[RenderableType]:
    """The per-domain table of a stream or mem record; [] where it has none."""
    domains = numa_domains(record)
    title_end = (f"{domains} NUMA domains" if domains else "NUMA domains") + (
        f"; validation {verdict_text(record)}")
    if record.get("benchmark") == "stream":
        headings, rows = stream_numa_cells(record)
        caption = ("GB/s = 10^9 B/s: each copy's best with every copy running at once, "
                   "the mean over the domain's copies and (Triad) their sum")
        title = f"hpcprobe stream {record.get('variant')} per NUMA domain: {title_end}"
    elif record.get("benchmark") == "mem":
        headings, rows = mem_numa_cells(record)
        headings[:1] = [_SWEEP_HEADINGS.get(str(parameter(record, "sweep")), "working set")]
        caption = ("ns/access: 1 copy alone, then the mean of each domain's copies' medians "
                   "with every copy running at once" + _copies_caption(record))
        title = f"hpcprobe mem {record.get('variant')} per NUMA domain: {title_end}"
    else:
        return []
    return [titled_table(title, caption, headings, rows)] if rows else []


def report_rows(records: Sequence[Record]) -> List[List[Any]]:
    """The report's rows: one per record and domain, STREAM star's Triad and the mem
    sweeps' time at their largest point (the newest records first, as given)."""
    rows: List[List[Any]] = []
    for record in records:
        if record.get("benchmark") == "stream":
            for domain, copies, rates in stream_domain_rows(record):
                triad = rates.get("triad")
                rows.append(["stream " + str(record.get("variant")), domain, copies,
                             None if triad is None else f"{triad / GIGA:.4g} GB/s",
                             None if _sum(triad, copies) is None
                             else f"{(triad or 0) * (copies or 0) / GIGA:.4g} GB/s"])
        elif record.get("benchmark") == "mem":
            curves = mem_domain_curves(record)
            counts = domain_copies(record)
            for index, (domain, points) in enumerate(curves):
                last = max(points) if points else None
                value = points.get(last) if last is not None else None
                rows.append(["mem " + str(record.get("variant")), domain,
                             counts[index] if len(counts) == len(curves) else None,
                             None if value is None or last is None else
                             f"{value / NANO:.4g} ns at {binary_size(last)}", None])
    return rows
