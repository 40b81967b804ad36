"""Rendering: the HTML page (jinja2, every value escaped), the figures' CSV files beside
it, and a short summary for the terminal (rich).

Each file is written whole or not at all (output_files.py): the CSV files first, the
HTML that links them last, so a failure never leaves a page pointing at missing data."""

from pathlib import Path
from typing import Any, Dict

import jinja2
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from hpcprobe.output_files import make_directory, write_text_atomically
from hpcprobe.report.blocks import ReportPage, Table
from hpcprobe.sanitize import html_value, plain

TEMPLATES = Path(__file__).parent / "templates"


def environment() -> jinja2.Environment:
    # autoescape on for every template whatever its name: records are untrusted; and
    # every value shown, whoever built it, has its hidden characters made visible.
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, finalize=html_value)


def render_template(name: str, **values: Any) -> str:
    return environment().get_template(name).render(**values)


def data_dir_for(html_path: Path) -> Path:
    """report.html -> report-data/ beside it."""
    return html_path.with_name(html_path.stem + "-data")


def write_files(html_path: Path, html: str, files: Dict[str, str]) -> None:
    """Each CSV file in the data folder beside the HTML, then the HTML; HpcprobeError
    (exit status 4) when one cannot be written."""
    make_directory(html_path.parent)
    if files:
        folder = data_dir_for(html_path)
        make_directory(folder)
        for name, text in files.items():
            write_text_atomically(folder / name, text)
    write_text_atomically(html_path, html)


def _text(value: str, style: str = "") -> Text:
    """Text for the terminal: never markup, hidden characters visible."""
    return Text(plain(value, None), style=style)


def rich_table(table: Table) -> RichTable:
    shown = RichTable(title=_text(table.title), caption=_text(table.caption) if table.caption
                      else None)
    for index, heading in enumerate(table.headings):
        shown.add_column(_text(heading), justify="left" if index == 0 else "right")
    for row in table.rows:
        shown.add_row(*[_text(value) for value in row])
    return shown


def print_summary(page: ReportPage, html_path: Path, console: Console) -> None:
    """What the terminal shows: verdicts, failures, warnings, absent families, where."""
    console.print(rich_table(page.verdicts))
    for line in page.failures:
        console.print(_text(f"failed: {line}", style="red"))
    for line in page.warnings:
        console.print(_text(f"warning: {line}", style="yellow"))
    for line in page.absent:
        console.print(_text(line, style="dim"))
    sections = ", ".join(section.title for section in page.sections) or "none"
    console.print(_text(f"sections: {sections}"))
    console.print(_text(f"report: {html_path} (plot data in {data_dir_for(html_path)}/)"))
