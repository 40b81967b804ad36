"""The congestion section of a report (GPCNeT's method): the CIF table per canary and
congestor, and each canary's isolated against congested distributions (the samples'
quantiles), for the newest few records."""

from typing import List, Sequence

import numpy as np

from hpcprobe.families.congestion.cif import canaries_of, conditions_of, cif_rows, samples
from hpcprobe.families.congestion.tables import CIF_HEADINGS, cif_cells, roles_text
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import Record, newest_first, of_benchmark, ranks, verdict_cell
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.report.registry import ReportSection
from hpcprobe.sanitize import plain
from hpcprobe.units import MEGA, MICRO

MAX_SHOWN = 2
QUANTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9)


def compare_label(record: Record) -> str:
    """What tells two congestion records apart: their congestors."""
    conditions = conditions_of(record)
    return "congestors " + ",".join(conditions) if conditions else ""


def _title(record: Record) -> str:
    return f"{ranks(record)} ranks, {roles_text(record)}"


def _distribution(record: Record, canary: str, sink: FigureSink) -> Block:
    rate = canary == "bandwidth"
    scale = MEGA if rate else MICRO
    curves = []
    for condition in ["isolated"] + conditions_of(record):
        values = samples(record, canary, condition)
        if values.size:
            curves.append(Curve(condition, list(QUANTILES),
                                [float(v) / scale for v in np.percentile(values, QUANTILES)]))
    return sink.line(f"{canary} canary: isolated against congested", "percentile of the samples",
                     "MB/s" if rate else "µs", curves, log_y=not rate,
                     caption=f"every canary rank's samples pooled; {_title(record)}; "
                     f"{verdict_cell(record)}")


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_benchmark(records, "congestion"))
    if not found:
        return [Paragraph("absent: congestion under load: no congestion records "
                          "(`hpcprobe congestion`)", "absent")]
    blocks: List[Block] = []
    for record in found[:MAX_SHOWN]:
        rows = [cif_cells(row) for row in cif_rows(record)]
        blocks.append(Table.of(f"CIF per canary and congestor ({plain(_title(record))})",
                               CIF_HEADINGS, rows,
                               "congested / isolated for times, isolated / congested for "
                               "bandwidth, from the raw samples; 95 % bootstrap intervals"))
        blocks += [_distribution(record, canary, sink) for canary in canaries_of(record)]
    if len(found) > MAX_SHOWN:
        blocks.append(Paragraph(f"{len(found)} congestion records; the newest {MAX_SHOWN} "
                                "are shown, the statistics at the end list them all"))
    return blocks


SECTION = ReportSection("congestion", "Congestion under load", ("congestion",), 45, section,
                        compare_label)
