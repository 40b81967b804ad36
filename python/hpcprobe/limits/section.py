"""Where the limits show: the table "Against the machine's limits" (show, run, report),
the report's section "Limits and roofline", and limits.json of a run."""

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.limits.ceilings import ceiling_rows, ceilings_of
from hpcprobe.limits.findings import THRESHOLDS, finding_lines, threshold_rows
from hpcprobe.limits.limit import KNOWN, Limit
from hpcprobe.limits.records import RecordLimits, limits_of
from hpcprobe.limits.roofline import Roofline, rooflines
from hpcprobe.output_files import write_text_atomically
from hpcprobe.records import Record, section_of
from hpcprobe.report.blocks import Block, Paragraph, Section, Table
from hpcprobe.report.plots import FigureSink, roofline_figure
from hpcprobe.sanitize import json_text, plain
from hpcprobe.units import format_quantity

TITLE = "Against the machine's limits"
LIMITS_FILE = "limits.json"
LIMITS_SCHEMA = "hpcprobe-limits-v1"


def _who(found: RecordLimits) -> str:
    identity = found.identity
    words = " ".join(plain(identity.get(name)) for name in ("benchmark", "variant", "algorithm"))
    ranks = section_of(found.record, "layout").get("ranks")
    return f"{words}, {plain(ranks)} ranks" if ranks else words


def fraction_text(limit: Limit) -> str:
    fraction = limit.fraction
    return "—" if fraction is None else f"{fraction:.3g}"


def _row(found: RecordLimits, limit: Limit) -> List[str]:
    return [_who(found), limit.figure, format_quantity(limit.measured, limit.unit),
            limit.name, format_quantity(limit.limit, limit.unit), fraction_text(limit),
            "yes" if limit.finding else "", limit.source]


def limits_table(found: Sequence[RecordLimits]) -> Optional[Table]:
    """One row per known limit; the unknown ones and those that do not apply are named
    in the caption, their reasons once each. None when no limit is known."""
    rows, missing = [], {}
    for record_limits in found:
        for limit in record_limits.limits:
            if limit.status == KNOWN:
                rows.append(_row(record_limits, limit))
                continue
            who = " ".join(plain(record_limits.identity.get(name))
                           for name in ("benchmark", "variant"))
            named = missing.setdefault(f"{limit.status}, {limit.source}", [])
            if who not in named:
                named.append(who)
    if not rows:
        return None
    caption = ("fraction: measured / limit for rates, bound / measured for times (both at "
               "most 1 when the machine behaves); finding: below its threshold "
               "(docs/limits.md)")
    if missing:
        caption += "; not shown: " + "; ".join(f"{', '.join(who)} ({why})" for why, who in
                                               list(missing.items())[:12])
    return Table.of(TITLE, ("record", "figure", "measured", "limit", "limit value",
                            "fraction", "finding", "source"), rows, caption)


def _limit_json(limit: Limit) -> Dict[str, Any]:
    return {"figure": limit.figure, "limit": limit.name, "value": limit.limit,
            "unit": limit.unit, "measured": limit.measured, "fraction": limit.fraction,
            "status": limit.status, "source": limit.source, "finding": limit.finding,
            "reason": limit.reason or None}


def limits_data(records: Sequence[Record]) -> Dict[str, Any]:
    """What limits.json holds (docs/results.md#limitsjson)."""
    found = limits_of(records)
    machines = []
    for key, ceilings in ceilings_of(records).items():
        known = ceiling_rows(ceilings)
        if known or ceilings.links:
            machines.append({"cpu_model": key[0], "hosts": list(key[1]),
                             "ceilings": [{"name": c.name, "value": c.value, "unit": c.unit,
                                           "source": c.source} for c in known],
                             "links": dict(ceilings.links)})
    return {"schema": LIMITS_SCHEMA, "machines": machines,
            "thresholds": {check: fraction for check, (fraction, _) in THRESHOLDS.items()},
            "records": [dict(item.identity, limits=[_limit_json(limit) for limit in item.limits],
                             curve=[{"size": p.size, "time": p.measured, "bound": p.bound,
                                     "fraction": p.fraction, "bound_by": p.which}
                                    for p in item.curve]) for item in found],
            "findings": finding_lines(found)}


def write_limits(out_dir: Path, records: Sequence[Record]) -> Path:
    path = out_dir / LIMITS_FILE
    write_text_atomically(path, json_text(limits_data(records), indent=1) + "\n")
    return path


def _roofline_blocks(roofline: Roofline, sink: FigureSink, many: bool) -> List[Block]:
    where = f" — {roofline.machine[0]}, {', '.join(roofline.machine[1])}" if many else ""
    points = [(point.kernel, point.intensity, point.rate) for point in roofline.points]
    caption = ("ceilings: peak flops star (double) and each level's load bandwidth of peak "
               "bandwidth star; points at their compulsory traffic (docs/limits.md)")
    figure = roofline_figure(sink, f"Roofline{where}", roofline.peak, roofline.bandwidths,
                             points, caption)
    rows = [[point.kernel, f"{point.intensity:.4g}", format_quantity(point.rate, point.unit),
             point.source] for point in roofline.points]
    rows += [[f"{level} load bandwidth", "—", format_quantity(value, "B/s"),
              "peak bandwidth star"] for level, value in roofline.bandwidths]
    if roofline.peak is not None:
        rows.append(["flop peak", "—", format_quantity(roofline.peak, "flop/s"),
                     roofline.peak_source])
    table = Table.of(f"Roofline data{where}", ("kernel or ceiling", "intensity (per B)",
                                               "rate", "source"), rows)
    return [figure, table]


def limits_section(records: Sequence[Record], sink: FigureSink) -> Optional[Section]:
    """The report's "Limits and roofline": findings, the limits table, the roofline and
    its data, the thresholds; None when no record has a limit or a roofline point."""
    found = limits_of(records)
    lines = rooflines(records)
    table = limits_table(found)
    if table is None and not lines:
        return None
    section = Section("limits", "Limits and roofline", record_count=len(found))
    findings = finding_lines(found)
    section.add(Paragraph(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}: "
                          "figures below a stated fraction of their limit",
                          "warning" if findings else "note"))
    section.add(*[Paragraph(line, "warning") for line in findings])
    section.add(table)
    for roofline in lines:
        section.add(*_roofline_blocks(roofline, sink, len(lines) > 1))
    section.add(Table.of("Thresholds", ("a finding is", "when"), threshold_rows()))
    return section


__all__ = ["limits_section", "limits_table", "write_limits"]
