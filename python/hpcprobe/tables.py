"""The terminal tables that `show`, `run` and every family's commands print: a title, a
table and a caption, each cell shown as plain text (records are untrusted input)."""

from typing import Optional, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from hpcprobe.sanitize import plain
from hpcprobe.units import MISSING, format_number

MAX_TITLE_CHARS = 120
MAX_CAPTION_CHARS = 600


def cell(value: Optional[float], divisor: float = 1.0) -> str:
    """A table cell: `value` / `divisor` as format_number writes it, MISSING for None."""
    return MISSING if value is None else format_number(value, divisor)


def titled_table(title: str, caption: str, headings: Sequence[str],
                 rows: Sequence[Sequence[str]],
                 title_chars: int = MAX_TITLE_CHARS) -> RenderableType:
    """The title, the table and the caption, each title and caption on lines of their
    own (as the table's they would wrap at a narrow table's width)."""
    table = Table()
    for index, heading in enumerate(headings):
        table.add_column(heading, justify="left" if index == 0 else "right")
    for row in rows:
        table.add_row(*[Text(plain(cell)) for cell in row])
    return Group(Text(plain(title, title_chars), style="italic"), table,
                 Text(plain(caption, MAX_CAPTION_CHARS), style="dim"), Text(""))
