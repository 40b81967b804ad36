"""What a report section is made of: paragraphs, tables and figures, all plain data.

Sections build these from records; the HTML template and the terminal summary render
them. Every string in them is text (never markup): the template escapes it.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from hpcprobe.sanitize import plain

# Cells are cut to this many characters: a hostile record must not flood the page.
MAX_CELL_CHARS = 200


def cell(value: Any) -> str:
    """A table cell: one line of printable text."""
    return "—" if value is None else plain(value, MAX_CELL_CHARS)


@dataclass
class Paragraph:
    """A line of text; `kind` is note, warning or absent (styled accordingly)."""

    text: str
    kind: str = "note"


@dataclass
class Table:
    title: str
    headings: List[str]
    rows: List[List[str]]
    caption: str = ""

    @classmethod
    def of(cls, title: str, headings: Sequence[str], rows: Sequence[Sequence[Any]],
           caption: str = "") -> "Table":
        return cls(title, list(headings), [[cell(value) for value in row] for row in rows],
                   caption)


@dataclass
class Figure:
    """A plot: its SVG as a data: URI, and the CSV file (beside the HTML) of its data."""

    figure_id: str
    title: str
    image_uri: str
    csv_name: str
    caption: str = ""


Block = Union[Paragraph, Table, Figure]


@dataclass
class Section:
    section_id: str
    title: str
    blocks: List[Block] = field(default_factory=list)
    record_count: int = 0

    def add(self, *blocks: Optional[Block]) -> None:
        self.blocks.extend(block for block in blocks if block is not None)


@dataclass
class ReportPage:
    """Everything the template shows."""

    title: str
    generated_at: str
    inputs: List[str]
    problems: List[str]
    problem_count: int
    verdicts: Table
    failures: List[str]
    warnings: List[str]
    machines: Table
    statistics: Table
    sections: List[Section]
    absent: List[str]
    data_dir: str
    extra: Dict[str, Any] = field(default_factory=dict)
    # A run's report (hpcprobe run): its headline table, and its steps that measured
    # nothing or failed, each saying why.
    headline: Optional[Table] = None
    missing: List[str] = field(default_factory=list)
