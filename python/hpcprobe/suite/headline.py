"""The headline of a run: one figure per line, grouped by subsystem, each with its
validation verdict, its spread and, when an earlier run of the same machine and build is
known, its ratio to that run and whether it moved beyond its spread.

Families say which figures their records give (Family.headline, families/*/headline.py);
this layer only holds the figures, compares two runs and lays out the table, so that it
imports no family."""

import math
import statistics
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.report.blocks import Table
from hpcprobe.report.common import Record, plain, section_of
from hpcprobe.samples import find_metric, find_series, metric_samples
from hpcprobe.records import finite, number
from hpcprobe.units import MICRO, NANO, format_number, scale_for

# The groups of the table, in this order; a family's figure names one of them.
SUBSYSTEMS = ("processor", "memory", "interconnect", "RandomAccess", "balance")
# Below this relative change a figure never counts as moved: a figure measured once has
# no spread of its own, and two quiet runs of this VM differ by a few per cent.
MIN_MOVE = 0.05
VERDICTS = ("passed", "failed", "skipped")


@dataclass(frozen=True)
class Figure:
    """One line of the headline: `key` names it across runs (e.g. "stream.single.triad"),
    `samples` are in SI base units (`unit`); `verdict` is the validation of the records
    it comes from ("unvalidated" when they say none)."""

    subsystem: str
    key: str
    label: str
    unit: str
    samples: Tuple[float, ...]
    verdict: str
    higher_is_better: bool = True
    best_of: bool = False  # the best sample, not the median (STREAM's convention)
    # What the value cell says of a figure with no samples (a cache level the latency
    # sweep did not find: "not seen"); such a figure is never compared.
    shown: str = ""
    # The figure's fraction of its limit (hpcprobe.limits: measured / limit for rates,
    # bound / measured for times); None where it has none.
    of_limit: Optional[float] = None

    @property
    def value(self) -> float:
        if not self.samples:
            return math.nan
        if self.best_of:
            return max(self.samples) if self.higher_is_better else min(self.samples)
        return statistics.median(self.samples)

    @property
    def spread(self) -> Optional[float]:
        """Half the range from the 10th to the 90th percentile of the samples, over
        their median (a lone outlier of thousands of PingPong samples does not make it);
        None for fewer than two samples."""
        if len(self.samples) < 2 or not self.value:
            return None
        deciles = statistics.quantiles(self.samples, n=10, method="inclusive")
        return (deciles[-1] - deciles[0]) / 2 / abs(self.value)


def with_limit(figure: Optional[Figure], fraction: Optional[float]) -> Optional[Figure]:
    """The figure with its fraction of its limit (None: no figure, or no limit)."""
    if figure is None or fraction is None:
        return figure
    return replace(figure, of_limit=fraction)


def record_verdict(record: Record) -> str:
    verdict = section_of(record, "validation").get("verdict")
    return verdict if verdict in VERDICTS else "unvalidated"


def worst_verdict(verdicts: Sequence[str]) -> str:
    """Fails safe: any failure fails, anything unvalidated leaves it unvalidated."""
    for verdict in ("failed", "unvalidated", "skipped"):
        if verdict in verdicts:
            return verdict
    return "passed" if verdicts else "unvalidated"


def metric_figure(record: Record, subsystem: str, key: str, label: str, metric: str,
                  scale: float = 1.0, best_of: bool = False) -> Optional[Figure]:
    """A figure from a metric's samples (times `scale`: a per-rank mean times the ranks
    is their sum), their median or with `best_of` their best; None when the record
    lacks it."""
    entry = find_metric(record, metric)
    samples = tuple(finite(metric_samples(record, metric)))
    if entry is None or not samples:
        return None
    unit = str(entry.get("unit", ""))
    higher = entry.get("higher_is_better", unit != "s")
    return Figure(subsystem, key, label, unit, tuple(s * scale for s in samples),
                  record_verdict(record), bool(higher), best_of)


def _curve(record: Record, name: str) -> Dict:
    return find_series(record, name) or {}


def series_xs(record: Record, name: str) -> List[float]:
    return finite(_curve(record, name).get("x") or [])


def series_samples(record: Record, name: str, x: float) -> Tuple[float, ...]:
    """Curve `name` at x: its samples there when it keeps them, else its value; empty
    when the curve has no such point."""
    curve = _curve(record, name)
    ys, kept = curve.get("y") or [], curve.get("samples") or []
    for index, at in enumerate(curve.get("x") or []):
        if number(at) != x or index >= len(ys):
            continue
        samples = tuple(finite(kept[index])) if index < len(kept) and isinstance(
            kept[index], list) else ()
        value = number(ys[index])
        return samples or (() if value is None else (value,))
    return ()


def point_figure(record: Record, subsystem: str, key: str, label: str, name: str, x: float,
                 unit: str, higher_is_better: bool) -> Optional[Figure]:
    samples = series_samples(record, name, x)
    if not samples:
        return None
    return Figure(subsystem, key, label, unit, samples, record_verdict(record),
                  higher_is_better)


@dataclass(frozen=True)
class Change:
    """A figure against the same figure of an earlier run."""

    ratio: float
    moved: bool


def change(now: Figure, before: Figure) -> Optional[Change]:
    """None when the earlier value is 0 or the units differ; `moved` when the ratio is
    further from 1 than the larger spread of the two (at least MIN_MOVE)."""
    if not (now.samples and before.samples) or not before.value or now.unit != before.unit:
        return None
    ratio = now.value / before.value
    allowed = max(MIN_MOVE, now.spread or 0.0, before.spread or 0.0)
    return Change(ratio, abs(ratio - 1.0) > allowed)


def _value_text(figure: Figure) -> Tuple[str, str]:
    if figure.unit == "s" and 0 < abs(figure.value) < MICRO:  # cache latencies
        return format_number(figure.value, NANO), "ns"
    divisor, label = scale_for(figure.unit, figure.value)
    return format_number(figure.value, divisor), label


def _change_text(found: Optional[Change], figure: Figure) -> Tuple[str, str]:
    if found is None:
        return "—", ""
    better = (found.ratio > 1) == figure.higher_is_better
    word = ("better" if better else "worse") if found.moved else ""
    return f"{found.ratio:.3g}", word


def ordered(figures: Sequence[Figure]) -> List[Figure]:
    """By subsystem (SUBSYSTEMS' order), each group in the order given."""
    rank = {name: index for index, name in enumerate(SUBSYSTEMS)}
    return sorted(figures, key=lambda figure: rank.get(figure.subsystem, len(rank)))


def headline_rows(figures: Sequence[Figure],
                  earlier: Optional[Dict[str, Figure]] = None) -> List[List[str]]:
    """One row per figure: subsystem (on its group's first row), figure, value, unit,
    its fraction of its limit ("—" where none), validation, spread, and with `earlier`
    the ratio to it and "better"/"worse" when it moved beyond its spread."""
    rows, group = [], None
    for figure in ordered(figures):
        value, unit = _value_text(figure) if figure.samples else (figure.shown or "—", "")
        spread = "—" if figure.spread is None else f"±{100 * figure.spread:.2g} %"
        of_limit = "—" if figure.of_limit is None else f"{figure.of_limit:.3g}"
        row = [figure.subsystem if figure.subsystem != group else "", plain(figure.label),
               value, unit, of_limit, figure.verdict, spread]
        group = figure.subsystem
        if earlier is not None:
            before = earlier.get(figure.key)
            row += list(_change_text(None if before is None else change(figure, before),
                                     figure))
        rows.append(row)
    return rows


HEADINGS = ("subsystem", "figure", "value", "unit", "of limit", "validation", "spread")


BALANCE_NOTE = ("balance: HPCC's global figures over G-HPL, as Saini et al. compare systems "
                "('Performance evaluation of supercomputers using HPCC and IMB benchmarks')")


def headline_table(figures: Sequence[Figure], earlier: Optional[Dict[str, Figure]] = None,
                   earlier_name: str = "") -> Table:
    headings = list(HEADINGS)
    notes = ["spread: half the 10-90 % range of the samples over their median",
             "of limit: the figure's fraction of its limit (rates: measured / limit; times: "
             "bound / measured), the table against the machine's limits names it"]
    if earlier is not None:
        headings += [f"÷ {earlier_name}", "moved"]
        notes.append("moved: the ratio is further from 1 than either run's spread (at least "
                     f"{100 * MIN_MOVE:g} %)")
    if any(figure.subsystem == "balance" for figure in figures):
        notes.append(BALANCE_NOTE)
    return Table.of("The machine at a glance", headings, headline_rows(figures, earlier),
                    "; ".join(notes))


def moved_figures(figures: Sequence[Figure], earlier: Dict[str, Figure]) -> List[str]:
    """The labels of the figures that moved beyond their spread against `earlier`."""
    found = []
    for figure in figures:
        before = earlier.get(figure.key)
        result = None if before is None else change(figure, before)
        if result is not None and result.moved:
            found.append(f"{figure.label} ×{result.ratio:.3g}")
    return found
