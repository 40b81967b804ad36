"""Plots for reports: matplotlib figures rendered to SVG and embedded as data: URIs
(an <img> cannot run scripts, and the SVGs' ids cannot clash), each with its data as a
CSV file that the writer puts beside the HTML.

matplotlib's object API is used (no pyplot: no global state, no display needed). Labels
that come from records are plain text: "$" would start mathtext, so it is escaped.
"""

import base64
import csv
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.report.blocks import Figure
from hpcprobe.sanitize import csv_cell, plain

FIGURE_SIZE = (7.0, 3.8)
KIVIAT_SIZE = (6.0, 6.0)
HEATMAP_SIZE = (6.0, 5.2)
MAX_TICK_LABELS = 32
MAX_LABEL_CHARS = 60
Point = Optional[float]


def label(text: object) -> str:
    """Record text for a plot: one printable line, no mathtext."""
    return plain(text, MAX_LABEL_CHARS).replace("$", r"\$")


@dataclass
class Curve:
    """One line of a plot; `low`/`high` give an error bar per point (or None), and
    points where `hollow` is true are drawn unfilled (e.g. non-compliant runs)."""

    name: str
    x: Sequence[float]
    y: Sequence[Point]
    low: Optional[Sequence[Point]] = None
    high: Optional[Sequence[Point]] = None
    hollow: Optional[Sequence[bool]] = None
    line: str = "-"


@dataclass
class Marks:
    """Annotations: vertical lines (x, text) and horizontal segments (x0, x1, y, text)."""

    vertical: List[Tuple[float, str]] = field(default_factory=list)
    segments: List[Tuple[float, float, float, str]] = field(default_factory=list)


@dataclass(frozen=True)
class CellMark:
    """A marked cell of a grid: a box round it and a short word in it; `gid` names the
    box in the SVG (letters, digits and hyphens: it is an XML id)."""

    row: int
    column: int
    text: str
    gid: str


def _new_figure(size: Tuple[float, float]) -> Any:
    """A matplotlib figure (imported here: commands that draw nothing skip its ~1 s
    import)."""
    import matplotlib
    from matplotlib.figure import Figure as MplFigure

    matplotlib.rcParams.update({
        "svg.fonttype": "none",      # text as <text> (escaped by matplotlib), not paths
        "svg.hashsalt": "hpcprobe",  # the same data gives the same file
        "font.size": 9,
    })
    return MplFigure(figsize=size)


def power_text(value: float, _position: object = None) -> str:
    """Tick labels without mathtext (which is slow and reads worse here): 1, 512, 1K,
    64K, 2M, 1G for powers of two; %g for the rest."""
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if value >= 1 << shift and float(value).is_integer() and int(value) % (1 << shift) == 0:
            return f"{int(value) >> shift}{suffix}"
    return f"{value:g}"


def _log_axes(axes, log_x: Optional[int], log_y: bool) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # lazy: see _new_figure

    if log_x:
        axes.set_xscale("log", base=log_x)
        axes.xaxis.set_major_formatter(FuncFormatter(power_text))
        axes.xaxis.set_minor_formatter(NullFormatter())
    if log_y:
        axes.set_yscale("log")
        axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axes.yaxis.set_minor_formatter(NullFormatter())


def _any_positive(columns) -> bool:
    return any(_finite(value) and value > 0 for column in columns for value in column)


def _finite(value: Point) -> bool:
    return value is not None and math.isfinite(value)


def _svg_uri(figure: Any) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _csv_text(headings: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([csv_cell(heading) for heading in headings])
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return stream.getvalue()


def _error_bars(curve: Curve, xs: List[float], ys: List[float]) -> Optional[List[List[float]]]:
    if curve.low is None or curve.high is None:
        return None
    lows, highs = [], []
    for y, low, high in zip(curve.y, curve.low, curve.high):
        if _finite(y):
            lows.append(max(0.0, y - low) if _finite(low) else 0.0)
            highs.append(max(0.0, high - y) if _finite(high) else 0.0)
    return [lows, highs] if len(lows) == len(xs) else None


def _draw_curve(axes, curve: Curve) -> None:
    kept = [(x, y, bool(curve.hollow[index]) if curve.hollow else False)
            for index, (x, y) in enumerate(zip(curve.x, curve.y)) if _finite(y)]
    if not kept:
        return
    xs, ys = [x for x, _, _ in kept], [y for _, y, _ in kept]
    errors = _error_bars(curve, xs, ys)
    drawn = axes.errorbar(xs, ys, yerr=errors, fmt=curve.line + "o", markersize=4,
                          capsize=2, label=label(curve.name), linewidth=1.2)
    hollow = [(x, y) for x, y, flag in kept if flag]
    if hollow:
        colour = drawn[0].get_color()
        axes.plot([x for x, _ in hollow], [y for _, y in hollow], "o", markersize=7,
                  markerfacecolor="white", markeredgecolor=colour)


def _annotate(axes, marks: Marks) -> None:
    for x, text in marks.vertical:
        axes.axvline(x, color="grey", linestyle=":", linewidth=0.8)
        axes.annotate(label(text), (x, 1.0), xycoords=("data", "axes fraction"),
                      rotation=90, va="top", ha="right", fontsize=7, color="dimgrey")
    for x0, x1, y, text in marks.segments:
        axes.plot([x0, x1], [y, y], color="black", linewidth=2.5, alpha=0.35)
        axes.annotate(label(text), (math.sqrt(x0 * x1) if x0 > 0 else x0, y),
                      textcoords="offset points", xytext=(0, 4), ha="center", fontsize=7)


class FigureSink:
    """Makes the figures of one report and keeps their CSV files (name -> text)."""

    def __init__(self, data_dir: str) -> None:
        self.data_dir = data_dir
        self.files: Dict[str, str] = {}
        self._ids: Dict[str, int] = {}

    def _name(self, title: str) -> str:
        stem = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48] or "figure"
        self._ids[stem] = self._ids.get(stem, 0) + 1
        return stem if self._ids[stem] == 1 else f"{stem}-{self._ids[stem]}"

    def _finish(self, figure: Any, title: str, caption: str,
                headings: Sequence[str], rows: Sequence[Sequence[object]]) -> Figure:
        name = self._name(title)
        csv_name = f"{name}.csv"
        self.files[csv_name] = _csv_text(headings, rows)
        return Figure(name, title, _svg_uri(figure), f"{self.data_dir}/{csv_name}", caption)

    def line(self, title: str, x_label: str, y_label: str, curves: Sequence[Curve],
             log_x: Optional[int] = None, log_y: bool = False, marks: Optional[Marks] = None,
             caption: str = "") -> Figure:
        """Curves of y against x; log_x: the base of a logarithmic x axis."""
        figure = _new_figure(FIGURE_SIZE)
        # Fixed margins: a layout engine would measure every label, a draw of its own.
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.13, top=0.92)
        axes = figure.add_subplot()
        for curve in curves:
            _draw_curve(axes, curve)
        # A log axis needs a positive value to show (zeros and negatives are left out).
        _log_axes(axes, log_x if _any_positive(c.x for c in curves) else None,
                  log_y and _any_positive(c.y for c in curves))
        _annotate(axes, marks or Marks())
        axes.set_xlabel(label(x_label))
        axes.set_ylabel(label(y_label))
        axes.set_title(label(title))
        axes.grid(True, which="major", alpha=0.3)
        if any(curve.name for curve in curves):
            axes.legend(fontsize=7)
        rows = [(curve.name, x, y, *(_bounds(curve, index)))
                for curve in curves for index, (x, y) in enumerate(zip(curve.x, curve.y))]
        return self._finish(figure, title, caption,
                            ("curve", x_label, y_label, "ci95_low", "ci95_high"), rows)

    def bars(self, title: str, y_label: str, categories: Sequence[str],
             series: Dict[str, Sequence[Point]], errors: Optional[Dict[str, Sequence[
                 Tuple[Point, Point]]]] = None, caption: str = "") -> Figure:
        """Grouped bars: for each category one bar per series (None: no bar)."""
        figure = _new_figure(FIGURE_SIZE)
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.3, top=0.92)
        axes = figure.add_subplot()
        width = 0.8 / max(1, len(series))
        for number, (name, values) in enumerate(series.items()):
            positions = [index + (number - (len(series) - 1) / 2) * width
                         for index in range(len(categories))]
            heights = [value if _finite(value) else 0.0 for value in values]
            yerr = _bar_errors(values, (errors or {}).get(name))
            axes.bar(positions, heights, width, yerr=yerr, capsize=2, label=label(name))
        axes.set_xticks(range(len(categories)))
        axes.set_xticklabels([label(name) for name in categories], rotation=20, ha="right",
                             fontsize=7)
        axes.set_ylabel(label(y_label))
        axes.set_title(label(title))
        axes.grid(True, axis="y", alpha=0.3)
        if len(series) > 1:
            axes.legend(fontsize=7)
        rows = []
        for name, values in series.items():
            bounds = (errors or {}).get(name) or [(None, None)] * len(values)
            rows += [(category, name, value, low, high) for category, value, (low, high)
                     in zip(categories, values, bounds)]
        return self._finish(figure, title, caption,
                            ("category", "series", y_label, "ci95_low", "ci95_high"), rows)

    def kiviat(self, title: str, axes_names: Sequence[str], systems: Dict[str, Sequence[float]],
               caption: str = "") -> Figure:
        """A Kiviat (radar) chart: one closed polygon per system over `axes_names`,
        values already normalised (the best is 1)."""
        figure = _new_figure(KIVIAT_SIZE)
        figure.subplots_adjust(left=0.15, right=0.85, bottom=0.12, top=0.86)
        axes = figure.add_subplot(projection="polar")
        angles = [2 * math.pi * index / len(axes_names) for index in range(len(axes_names))]
        for name, values in systems.items():
            closed = list(values) + [values[0]]
            axes.plot(angles + [angles[0]], closed, "-o", markersize=3, label=label(name))
            axes.fill(angles + [angles[0]], closed, alpha=0.12)
        axes.set_xticks(angles)
        axes.set_xticklabels([label(name) for name in axes_names], fontsize=7)
        axes.set_ylim(0, 1.05)
        axes.set_title(label(title), pad=18)
        axes.legend(loc="lower right", bbox_to_anchor=(1.15, -0.12), fontsize=7)
        rows = [(name, axis, value) for name, values in systems.items()
                for axis, value in zip(axes_names, values)]
        return self._finish(figure, title, caption, ("system", "axis", "normalised"), rows)

    def heatmap(self, title: str, matrix: Sequence[Sequence[Point]], labels: Sequence[str],
                boundaries: Sequence[float], value_label: str, caption: str = "") -> Figure:
        """A square matrix as colours (row: source, column: destination; None: blank),
        `labels` naming rows and columns in the order drawn, and a line between row and
        column k-1 and k for each k in `boundaries` (node boundaries; ids
        node-boundary-N-row and -column in the SVG)."""
        import numpy  # here, as matplotlib in _new_figure: start-up of commands that draw nothing

        size = len(matrix)
        figure = _new_figure(HEATMAP_SIZE)
        figure.subplots_adjust(left=0.12, right=0.95, bottom=0.1, top=0.9)
        axes = figure.add_subplot()
        values = numpy.array([[numpy.nan if not _finite(v) else v for v in row]
                              for row in matrix], dtype=float).reshape(size, size)
        image = axes.imshow(values, cmap="viridis", interpolation="nearest", origin="upper")
        figure.colorbar(image, ax=axes, label=label(value_label), shrink=0.85)
        ticks = range(size) if size <= MAX_TICK_LABELS else range(0, size, -(-size // 16))
        axes.set_xticks(list(ticks))
        axes.set_xticklabels([label(labels[i]) for i in ticks], fontsize=6, rotation=90)
        axes.set_yticks(list(ticks))
        axes.set_yticklabels([label(labels[i]) for i in ticks], fontsize=6)
        for number, edge in enumerate(boundaries, 1):
            axes.axhline(edge - 0.5, color="red", linewidth=1.2).set_gid(
                f"node-boundary-{number}-row")
            axes.axvline(edge - 0.5, color="red", linewidth=1.2).set_gid(
                f"node-boundary-{number}-column")
        axes.set_xlabel("destination rank")
        axes.set_ylabel("source rank")
        axes.set_title(label(title))
        rows = [(labels[i], labels[j], matrix[i][j]) for i in range(size) for j in range(size)]
        return self._finish(figure, title, caption, ("source", "destination", value_label),
                            rows)


    def grid(self, title: str, matrix: Sequence[Sequence[Point]], rows: Sequence[str],
             columns: Sequence[str], value_label: str, marks: Sequence[CellMark] = (),
             centre: Optional[float] = None, axis_labels: Tuple[str, str] = ("", ""),
             caption: str = "") -> Figure:
        """A matrix of any shape as colours (None: blank), every row and column named,
        and `marks` drawn as a box and a word on their cells (each box's id in the SVG is
        its mark's gid). `centre`: a diverging colour map, symmetric around it on a log
        scale (for ratios); else viridis. axis_labels: (x, y)."""
        import numpy  # lazy, as in heatmap

        size, margins = _grid_layout(rows, columns)
        figure = _new_figure(size)
        figure.subplots_adjust(**margins)
        axes = figure.add_subplot()
        values = numpy.array([[v if _finite(v) else numpy.nan for v in row] for row in matrix],
                             dtype=float).reshape(len(rows), len(columns))
        image = axes.imshow(values, cmap="viridis" if centre is None else "coolwarm_r",
                            norm=_centred_norm(values, centre), interpolation="nearest",
                            aspect="auto", origin="upper")
        figure.colorbar(image, cax=_colour_bar_axes(figure, size, margins),
                        label=label(value_label))
        _grid_ticks(axes, rows, columns)
        _draw_marks(axes, marks, small=max(len(rows), len(columns)) > 2 * MAX_TICK_LABELS)
        axes.set_xlabel(label(axis_labels[0]))
        axes.set_ylabel(label(axis_labels[1]))
        axes.set_title(label(title))
        texts = {(mark.row, mark.column): mark.text for mark in marks}
        data = [(rows[i], columns[j], matrix[i][j], texts.get((i, j), ""))
                for i in range(len(rows)) for j in range(len(columns))]
        return self._finish(figure, title, caption, ("row", "column", value_label, "mark"),
                            data)


def _grid_layout(rows: Sequence[str], columns: Sequence[str]) -> Tuple[
        Tuple[float, float], Dict[str, float]]:
    """The figure's size (inches) and margins: a cell of about 0.2 inch, and room for the
    longest tick labels (6 pt: about 0.05 inch a character) and the axis labels."""
    longest = [max((len(label(name)) for name in names), default=0) for names in (rows, columns)]
    room = [0.45 + 0.05 * chars for chars in longest]
    size = (max(4.5, min(13.0, 2.6 + room[0] + 0.22 * len(columns))),
            max(3.0, min(13.0, 1.0 + room[1] + 0.18 * len(rows))))
    return size, {"left": min(0.5, room[0] / size[0]), "bottom": min(0.5, room[1] / size[1]),
                  "right": 1 - 1.3 / size[0], "top": 1 - 0.45 / size[1]}


def _colour_bar_axes(figure: Any, size: Tuple[float, float], margins: Dict[str, float]) -> Any:
    """The colour bar right of the grid, from its top, at most 3 inches tall (a tall grid
    must not stretch it off the page)."""
    width, height = size
    tall = min(margins["top"] - margins["bottom"], 3.0 / height)
    return figure.add_axes((1 - 1.1 / width, margins["top"] - tall, 0.15 / width, tall))


def _centred_norm(values: Any, centre: Optional[float]) -> Any:
    """Colours symmetric around `centre` on a log scale, reaching at least ±25 % and at
    most ×/÷ 4 (an outlier must not wash every other cell out); None without a centre."""
    if centre is None or centre <= 0:
        return None
    import numpy
    from matplotlib.colors import TwoSlopeNorm

    positive = values[numpy.isfinite(values) & (values > 0)]
    spread = float(numpy.max(numpy.abs(numpy.log(positive / centre)))) if positive.size else 0.0
    reach = min(4.0, max(1.25, math.exp(spread)))
    return TwoSlopeNorm(vcenter=centre, vmin=centre / reach, vmax=centre * reach)


def _grid_ticks(axes, rows: Sequence[str], columns: Sequence[str]) -> None:
    for names, set_ticks, set_labels, rotation in (
            (columns, axes.set_xticks, axes.set_xticklabels, 90),
            (rows, axes.set_yticks, axes.set_yticklabels, 0)):
        step = 1 if len(names) <= 2 * MAX_TICK_LABELS else -(-len(names) // MAX_TICK_LABELS)
        ticks = list(range(0, len(names), step))
        set_ticks(ticks)
        set_labels([label(names[i]) for i in ticks], fontsize=6, rotation=rotation)


def _draw_marks(axes, marks: Sequence[CellMark], small: bool) -> None:
    from matplotlib.patches import Rectangle  # lazy, as in _new_figure

    for mark in marks:
        box = Rectangle((mark.column - 0.5, mark.row - 0.5), 1.0, 1.0, fill=False,
                        edgecolor="black", linewidth=1.0 if small else 1.8)
        box.set_gid(re.sub(r"[^A-Za-z0-9-]", "-", mark.gid))
        axes.add_patch(box)
        # On a white ground: readable on the darkest and the lightest cell alike.
        axes.text(mark.column, mark.row, label(mark.text)[:8], ha="center", va="center",
                  fontsize=4 if small else 6, color="black",
                  bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.8,
                        "edgecolor": "none"})


def _bounds(curve: Curve, index: int) -> Tuple[Point, Point]:
    low = curve.low[index] if curve.low is not None else None
    high = curve.high[index] if curve.high is not None else None
    return low, high


def _bar_errors(values: Sequence[Point],
                bounds: Optional[Sequence[Tuple[Point, Point]]]) -> Optional[List[List[float]]]:
    if not bounds:
        return None
    lows, highs = [], []
    for value, (low, high) in zip(values, bounds):
        ok = _finite(value) and _finite(low) and _finite(high)
        lows.append(max(0.0, value - low) if ok else 0.0)  # type: ignore[operator]
        highs.append(max(0.0, high - value) if ok else 0.0)  # type: ignore[operator]
    return [lows, highs]


def roofline_figure(sink: FigureSink, title: str, peak: Optional[float],
                    bandwidths: Sequence[Tuple[str, float]],
                    points: Sequence[Tuple[str, float, float]], caption: str = "") -> Figure:
    """A roofline on log-log axes: a line per bandwidth (rate = intensity x bandwidth, up
    to `peak` when known), the peak as a horizontal line, and each (name, intensity,
    rate) point labelled with its name."""
    figure = _new_figure(FIGURE_SIZE)
    figure.subplots_adjust(left=0.1, right=0.98, bottom=0.13, top=0.92)
    axes = figure.add_subplot()
    xs = [x for _, x, _ in points if x > 0] + [1 / 256, 64.0]
    low, high = min(xs) / 2, max(xs) * 2
    for name, bandwidth in bandwidths:
        ends = [low, high if peak is None else max(low, min(high, peak / bandwidth))]
        axes.plot(ends, [x * bandwidth for x in ends], linewidth=1.2,
                  label=label(f"{name} load bandwidth"))
    if peak is not None:
        axes.axhline(peak, color="black", linewidth=1.2, label="flop peak (star)")
    for name, x, y in points:
        if x > 0 and y > 0:
            axes.plot([x], [y], "o", markersize=5, color="crimson")
            axes.annotate(label(name), (x, y), textcoords="offset points", xytext=(4, 4),
                          fontsize=7)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    highest = [y for _, _, y in points if y > 0] + ([peak] if peak else [])
    if highest:  # room above the peak line and the highest label
        axes.set_ylim(top=2 * max(highest))
    axes.set_xlabel("arithmetic intensity (flop or update per byte)")
    axes.set_ylabel("flop/s (RandomAccess: updates/s)")
    axes.set_title(label(title))
    axes.grid(True, which="major", alpha=0.3)
    if bandwidths or peak is not None:
        axes.legend(fontsize=7)
    rows = [("point", name, x, y) for name, x, y in points]
    rows += [("bandwidth", name, "", value) for name, value in bandwidths]
    rows += [("peak", "flop peak", "", peak)] if peak is not None else []
    return sink._finish(figure, title, caption, ("kind", "name", "intensity", "rate"), rows)
