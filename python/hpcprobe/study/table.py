"""A study's table in its paper's layout (rows: one row per axis value; columns: the axis
runs across, as in Plimpton's tables), the paper's own rows for its machine beside it in
the same layout, the notes (fitted constants beside the paper's), the points left out,
and the figure of the report (measured curves solid, the paper's dashed)."""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.report.blocks import Figure, Paragraph, Section, Table
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.study.declare import Study
from hpcprobe.study.papers import Column, Item, paper
from hpcprobe.study.state import StudyState

Row = Dict[str, Any]
# What a cell shows for a column only the paper has (hpcprobe has nothing to set beside it).
NOT_MEASURED = "n/a"


def cell_text(value: Any) -> str:
    """A figure as the table shows it: 4 significant digits, integers whole."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "—"
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def heading(column: Column) -> str:
    return f"{column.label} [{column.unit}]" if column.unit else column.label


def _value(column: Column, row: Row, measured: bool) -> str:
    if measured and column.source == "paper":
        return NOT_MEASURED
    return cell_text(row.get(column.key))


def layout_table(item: Item, rows: Sequence[Row], title: str, measured: bool,
                 caption: str = "") -> Table:
    """`rows` in the item's layout."""
    if item.layout == "rows":
        return Table.of(title, [heading(column) for column in item.columns],
                        [[_value(column, row, measured) for column in item.columns]
                         for row in rows], caption)
    axis = item.column(item.axis)
    across = [cell_text(row.get(item.axis)) for row in rows]
    lines = [[heading(column)] + [_value(column, row, measured) for row in rows]
             for column in item.columns if column.key != item.axis]
    return Table.of(title, [heading(axis) if axis else item.axis] + across, lines, caption)


def study_title(study: Study, item: Item) -> str:
    return f"{study.name}: {item.title} of {paper(study.paper).prefix} ({item.caption})"


def tables(study: Study, item: Item, rows: Sequence[Row]) -> List[Table]:
    """The measured table, then one per machine of the paper's own rows."""
    found = [layout_table(item, rows, f"{study.name}: measured here", True,
                          "model columns computed from this run's records; "
                          f"'{NOT_MEASURED}': a figure only the paper has")]
    for published in item.published:
        found.append(layout_table(item, published.rows, f"{study.name}: the paper's rows, "
                                  f"{published.machine}", False,
                                  f"copied from paper {study.paper} ({item.title}, "
                                  f"page {item.page or 'not printed in the text'})"))
    return found


def notes_lines(notes: Sequence[Tuple[str, str, str]]) -> List[str]:
    return [f"{what}: {mine} (paper: {theirs})" for what, mine, theirs in notes]


def left_out_lines(state: StudyState) -> List[str]:
    return [f"point {point.key}: {point.status}: {point.why}" for point in state.points
            if point.status != "done"]


def _numbers(rows: Sequence[Row], x: str, y: str) -> Tuple[List[float], List[float]]:
    xs, ys = [], []
    for row in rows:
        a, b = row.get(x), row.get(y)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and math.isfinite(a) and math.isfinite(b):
            xs.append(float(a))
            ys.append(float(b))
    return xs, ys


def figure(sink: FigureSink, study: Study, item: Item, rows: Sequence[Row]) -> Optional[Figure]:
    """The item's figure: each y column measured (solid) and per paper machine (dashed)."""
    spec = item.figure
    if spec is None:
        return None
    curves = []
    for key in spec.y:
        column = item.column(key)
        name = column.label if column else key
        xs, ys = _numbers(rows, spec.x, key)
        if xs:
            curves.append(Curve(f"{name} (here)", xs, ys))
        for published in item.published:
            pxs, pys = _numbers(published.rows, spec.x, key)
            if pxs:
                curves.append(Curve(f"{name} (paper: {published.machine[:40]})", pxs, pys,
                                    line="--"))
    if not curves:
        return None
    x_column = item.column(spec.x)
    units = sorted({item.column(key).unit for key in spec.y if item.column(key)})
    return sink.line(f"{study.name}: {item.title}", heading(x_column) if x_column else spec.x,
                     ", ".join(unit for unit in units if unit) or "value", curves,
                     log_x=2 if spec.log_x else None, log_y=spec.log_y,
                     caption="solid: measured here; dashed: the paper's published figures")


def section(study: Study, item: Item, rows: Sequence[Row], notes: Sequence[Tuple[str, str, str]],
            state: StudyState, sink: FigureSink) -> Section:
    """The study's section of its report.html, before the families' own."""
    found = Section("study", study_title(study, item))
    found.add(Paragraph(paper(study.paper).citation))
    for table in tables(study, item, rows):
        found.add(table)
    found.add(*(Paragraph(line) for line in notes_lines(notes)))
    found.add(*(Paragraph(line, "warning") for line in left_out_lines(state)))
    found.add(figure(sink, study, item, rows))
    return found
