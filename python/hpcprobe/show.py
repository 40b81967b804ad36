"""Presenting records: a table for people, JSON and CSV for programs.

Records are untrusted: every string goes through its sink's sanitiser (sanitize.py) and
is shown as plain text (never as rich markup), and nothing in a record is evaluated.
"""

import csv
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from rich.table import Table
from rich.text import Text

from hpcprobe.sanitize import csv_cell, json_text, plain
from hpcprobe.samples import headline_summary
from hpcprobe.units import MICRO, NANO, format_number, format_quantity, scale_for
from hpcprobe.records import section_of

Record = Dict[str, Any]

CSV_COLUMNS = (
    "benchmark", "variant", "algorithm", "ranks", "threads_per_rank", "nodes",
    "metric", "unit", "value", "min", "median", "max",
    "verdict", "error", "tolerance", "compliant", "started_at",
)
def verdict_text(record: Record) -> str:
    """e.g. "passed (0 ≤ 40.96 words)"; just "skipped" without numbers."""
    validation = section_of(record, "validation")
    verdict = plain(validation.get("verdict", "?"))
    error, tolerance = validation.get("error"), validation.get("tolerance")
    if error is None or tolerance is None:
        return verdict
    relation = "≤" if error <= tolerance else ">"
    unit = plain(validation.get("error_unit", ""))
    unit = "" if unit == "1" else unit  # dimensionless: a relative error, a count
    return f"{verdict} ({_count(error)} {relation} {_count(tolerance)} {unit})".replace(" )", ")")


def _count(value: float) -> str:
    """Counts in full with thousands separators: 1,342,177.28 must not read as 1.34e+06."""
    return f"{value:,.0f}" if value == int(value) or abs(value) >= 1000 else f"{value:.6g}"


def _is_nanoseconds(unit: str, value: Any) -> bool:
    # Times per memory access are nanoseconds: "0.0079 µs" would hide them.
    return (unit == "s" and isinstance(value, (int, float)) and not isinstance(value, bool)
            and 0 < abs(value) < MICRO)


def display_scale(unit: str, value: Any) -> Tuple[float, str]:
    """(divisor, label) to show `value` of `unit`: ns for sub-microsecond times."""
    return (NANO, "ns") if _is_nanoseconds(unit, value) else scale_for(unit, value)


def _quantity(value: Any, unit: str) -> str:
    if _is_nanoseconds(unit, value):
        return f"{format_number(value, NANO)} ns"
    return format_quantity(value, unit)


def _table_row(record: Record) -> List[Text]:
    headline = section_of(record, "value")
    layout = section_of(record, "layout")
    unit = str(headline.get("unit", ""))
    divisor, label = display_scale(unit, headline.get("value"))
    spread = headline_summary(record)
    cells = [
        record.get("benchmark"), record.get("variant"), record.get("algorithm"),
        layout.get("ranks"),
        _quantity(headline.get("value"), unit),
        f"{format_number(spread.min, divisor)} / {format_number(spread.median, divisor)} / "
        f"{format_number(spread.max, divisor)} {label}".rstrip(),
        verdict_text(record),
        "yes" if record.get("compliant") else "no",
    ]
    return [Text(plain(cell)) for cell in cells]


def records_table(records: Sequence[Record], title: Optional[str] = None) -> Table:
    table = Table(title=title)
    for heading in ("benchmark", "variant", "algorithm", "ranks"):
        table.add_column(heading)
    table.add_column("value", justify="right")
    table.add_column("min / median / max", justify="right")
    table.add_column("validation")
    table.add_column("compliant")
    for record in records:
        table.add_row(*_table_row(record))
    return table


def records_json(records: Sequence[Record]) -> str:
    return json_text(list(records), indent=2)


def csv_row(record: Record) -> List[Any]:
    headline = section_of(record, "value")
    layout = section_of(record, "layout")
    validation = section_of(record, "validation")
    spread = headline_summary(record)
    row = [
        record.get("benchmark"), record.get("variant"), record.get("algorithm"),
        layout.get("ranks"), layout.get("threads_per_rank"), layout.get("nodes"),
        headline.get("metric"), headline.get("unit"), headline.get("value"),
        spread.min, spread.median, spread.max,
        validation.get("verdict"), validation.get("error"), validation.get("tolerance"),
        record.get("compliant"), record.get("started_at"),
    ]
    return [csv_cell(value) for value in row]


def write_csv(records: Sequence[Record], stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in records:
        writer.writerow(csv_row(record))
