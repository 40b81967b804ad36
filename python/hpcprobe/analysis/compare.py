"""`hpcprobe compare`: records of several columns side by side, with ratios to the first,
paper 003's balance per column, and regressions against a baseline.

A Column is any named set of records (plus HPCC summary keys). The systems view makes
one column per SYSTEM argument; a placement view (two records of one benchmark that
differ only in where the ranks ran) makes one column per placement from the records of
one input and reuses everything below: rows, ratios, balance and regressions only ever
see columns.

Rows: each record's headline and its other rate metrics (unit ending in "/s"), keyed
by benchmark, variant, algorithm, the family's compare label (report/registry.py),
metric and the values of every option that changes the algorithm (the family's
algorithm_options: RandomAccess's --owner, --overlap, --mods, --dims), so that records of
two algorithms never share a row; plus one row per HPCC summary key that is a rate or a
latency. Within a column, records of one configuration are merged first; of several
configurations for one key (say, 2 and 4 ranks) the one on the most ranks is shown, with
its rank count.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.analysis.merge import merged_groups
from hpcprobe.analysis.stats import SampleStats, describe
from hpcprobe.report.blocks import Table
from hpcprobe.report.common import Record, newest_first, plain, ranks, section_of
from hpcprobe.report.registry import algorithm_setting, compare_label
from hpcprobe.show import display_scale
from hpcprobe.units import format_number

RowKey = Tuple[str, ...]
KeysOf = Callable[[List[Record]], Dict[str, float]]
# HPCC keys worth comparing: rates (higher is better) and latencies and times (lower).
_HPCC_HIGHER = re.compile(r"(GUPs|Gflops|Tflops|GBs|GBytes|STREAM_(Copy|Scale|Add|Triad))$")
_HPCC_LOWER = re.compile(r"(usec|_time)$")


def _no_keys(records: List[Record]) -> Dict[str, float]:
    return {}


@dataclass
class Column:
    """One column of a comparison: a name, its records, and HPCC summary keys that did
    not come from records (an HPCC output file). `summary_keys_of` and `balance_keys_of`
    compute HPCC's keys from merged records (the HPCC family's records_column() gives
    them); without them a column of records has no HPCC rows."""

    name: str
    records: List[Record] = field(default_factory=list)
    hpcc_keys: Dict[str, float] = field(default_factory=dict)
    summary_keys_of: KeysOf = field(default=_no_keys, repr=False)
    balance_keys_of: KeysOf = field(default=_no_keys, repr=False)
    _merged: Optional[List[Record]] = field(default=None, repr=False)

    @property
    def merged(self) -> List[Record]:
        """The records, merged per configuration (computed once)."""
        if self._merged is None:
            self._merged = merged_groups(self.records)
        return self._merged

    def keys(self) -> Dict[str, float]:
        """HPCC summary keys for the rows: from the file, else computed from all the merged
        records (each key from the last record that gives it), as `--hpcc-summary` writes
        them."""
        return self.hpcc_keys or self.summary_keys_of(self.merged)

    def balance_keys(self) -> Dict[str, float]:
        """HPCC summary keys for the balance: from the file, else from the merged records
        of one run's size (balance_records: the most ranks with HPL)."""
        return self.hpcc_keys or self.balance_keys_of(self.merged)


@dataclass
class Cell:
    value: float
    stats: Optional[SampleStats]
    ranks: Optional[int]


@dataclass
class Row:
    key: RowKey
    label: str
    unit: str
    higher_is_better: bool
    cells: List[Optional[Cell]]

    def ratio(self, index: int) -> Optional[float]:
        """Column `index` over the first column (None where either is missing or 0)."""
        first, other = self.cells[0], self.cells[index]
        if first is None or other is None or not first.value:
            return None
        return other.value / first.value


def _metric_rows(record: Record) -> List[Tuple[RowKey, str, str, bool, List]]:
    headline = section_of(record, "value").get("metric")
    found = []
    for metric in record.get("metrics") or []:
        name, unit = metric.get("name"), str(metric.get("unit"))
        if name != headline and not unit.endswith("/s"):
            continue
        higher = metric.get("higher_is_better", unit != "s")
        key = (str(record.get("benchmark")), str(record.get("variant")),
               str(record.get("algorithm")), compare_label(record), str(name),
               json.dumps(algorithm_setting(record)))
        label = " ".join(plain(part) for part in key[:3]) + (
            f" ({plain(key[3])})" if key[3] else "") + f": {plain(name)}"
        found.append((key, label, unit, bool(higher), metric.get("samples") or []))
    return found


def _record_cells(column: Column) -> Dict[RowKey, Tuple[str, str, bool, Cell]]:
    cells: Dict[RowKey, Tuple[str, str, bool, Cell]] = {}
    for record in newest_first(column.merged):
        for key, label, unit, higher, samples in _metric_rows(record):
            held = cells.get(key)
            if held is not None and ranks(record) <= (held[3].ranks or 0):
                continue  # the row shows the record on the most ranks
            stats = describe(samples)
            if stats.median is not None:
                cells[key] = (label, unit, higher, Cell(stats.median, stats, ranks(record)))
    return cells


def _hpcc_cells(column: Column) -> Dict[RowKey, Tuple[str, str, bool, Cell]]:
    cells = {}
    for key, value in column.keys().items():
        higher = bool(_HPCC_HIGHER.search(key))
        if higher or _HPCC_LOWER.search(key):
            cells[("hpcc", key)] = (f"HPCC {key}", "HPCC's", higher, Cell(value, None, None))
    return cells


def comparison_rows(columns: Sequence[Column]) -> List[Row]:
    """Every row any column has, in order of first appearance, records before HPCC."""
    per_column = [{**_record_cells(column), **_hpcc_cells(column)} for column in columns]
    order: List[RowKey] = []
    for cells in per_column:
        order += [key for key in cells if key not in order]
    order.sort(key=lambda key: key[0] == "hpcc")
    rows = []
    for key in order:
        label, unit, higher, _ = next(cells[key] for cells in per_column if key in cells)
        rows.append(Row(key, label, unit, higher,
                        [cells[key][3] if key in cells else None for cells in per_column]))
    return rows


@dataclass(frozen=True)
class Regression:
    column: str
    label: str
    value: float
    baseline: float
    change_percent: float


def regressions(baseline: Column, columns: Sequence[Column],
                tolerance_percent: float) -> List[Regression]:
    """Rows where a column is worse than the baseline by more than the tolerance."""
    found = []
    for column in columns:
        for row in comparison_rows([baseline, column]):
            ratio = row.ratio(1)
            if ratio is None:
                continue
            change = 100.0 * (ratio - 1.0)
            worse = -change if row.higher_is_better else change
            if worse > tolerance_percent:
                found.append(Regression(column.name, row.label, row.cells[1].value,  # type: ignore
                                        row.cells[0].value, change))  # type: ignore[union-attr]
    return found


def _cell_text(row: Row, index: int, divisor: float) -> str:
    cell = row.cells[index]
    if cell is None:
        return "—"
    text = format_number(cell.value, divisor)
    notes = [f"P={cell.ranks}"] if cell.ranks is not None else []
    if cell.stats is not None and (cell.stats.multimodal or (cell.stats.cv or 0) >= 0.10):
        notes.append("unstable")
    return text + (f" ({', '.join(notes)})" if notes else "")


def comparison_table(columns: Sequence[Column], rows: Sequence[Row]) -> Table:
    headings = ["metric", "unit", columns[0].name]
    for column in columns[1:]:
        headings += [column.name, f"{column.name} / {columns[0].name}"]
    cells = []
    for row in rows:
        first = next(cell.value for cell in row.cells if cell is not None)
        divisor, unit = (1.0, row.unit) if row.key[0] == "hpcc" else display_scale(row.unit, first)
        line = [row.label, unit, _cell_text(row, 0, divisor)]
        for index in range(1, len(columns)):
            ratio = row.ratio(index)
            line += [_cell_text(row, index, divisor), "—" if ratio is None else f"{ratio:.3g}"]
        cells.append(line)
    return Table.of("Side by side (median of the samples; ratio to the first)", headings, cells,
                    "higher is better for rates, lower for times; P: ranks of the record shown; "
                    "unstable: CV >= 10 % or several modes")
