"""`hpcprobe compare A B [C...]`: building the columns from the arguments, and writing
the comparison as a terminal table, CSV, Markdown or a self-contained HTML page."""

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from rich.console import Console
from rich.text import Text

from hpcprobe.analysis.compare import (Column, Regression, comparison_rows, comparison_table,
                                       regressions)
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED, HpcprobeError
from hpcprobe.analysis.placement_view import placement_columns
from hpcprobe.hpcc_summary.balance import Balance, balance_of, read_hpcc_file
from hpcprobe.hpcc_summary.balance_report import balance_blocks, kiviat_figure, records_column
from hpcprobe.launching import stderr_line, stdout_console
from hpcprobe.report.blocks import Paragraph, Table
from hpcprobe.report.plots import FigureSink
from hpcprobe.report.render import data_dir_for, render_template, rich_table, write_files
from hpcprobe.results import RecordSet, read_records, shown_problems
from hpcprobe.runner import RESULTS_FILE
from hpcprobe.sanitize import csv_cell, markdown_text, plain


def column_names(paths: Sequence[str]) -> List[str]:
    """A short name per SYSTEM argument: the directory's name (for DIR or
    DIR/results.jsonl), else the file's; made unique with #2, #3..."""
    names: List[str] = []
    for text in paths:
        path = Path(text)
        base = path.parent.name if path.name == "results.jsonl" else path.name
        base = plain(base or text, 40)
        name, count = base, 1
        while name in names:
            count += 1
            name = f"{base} #{count}"
        names.append(name)
    return names


def load_column(name: str, path_text: str, problems: RecordSet) -> Column:
    """An HPCC output file, else records (a FILE or DIR/results.jsonl); the lines that
    are not records are added to `problems` (printed once for all the inputs)."""
    path = Path(path_text)
    if path.is_file():
        keys = read_hpcc_file(path, path_text)
        if keys is not None:
            return Column(name, hpcc_keys=keys)
    if path.is_dir():
        path = path / RESULTS_FILE
    try:
        found = read_records(path)
    except OSError as error:
        raise HpcprobeError(f"cannot compare: {path}: cannot read: {error.strerror or error}",
                            EXIT_BAD_INPUT) from None
    problems.take_problems(found)
    if not found.records:
        raise HpcprobeError(f"cannot compare: no records in {path_text}", EXIT_BAD_INPUT)
    return records_column(name, found.records)


def balances(columns: Sequence[Column]) -> Dict[str, Balance]:
    return {column.name: balance_of(column.balance_keys()) for column in columns}


def regression_lines(found: Sequence[Regression], tolerance: float) -> List[Paragraph]:
    return [Paragraph(f"regression: {item.column}: {item.label}: {item.value:.4g} against the "
                      f"baseline's {item.baseline:.4g} ({item.change_percent:+.1f} %, "
                      f"tolerance {tolerance:g} %)", "failed") for item in found]


def _markdown(blocks: Sequence) -> str:
    def escape(text: str) -> str:
        return markdown_text(text, 400)
    lines: List[str] = []
    for block in blocks:
        if isinstance(block, Table):
            lines += [f"**{escape(block.title)}**", "",
                      "| " + " | ".join(escape(h) for h in block.headings) + " |",
                      "|" + "---|" * len(block.headings)]
            lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in block.rows]
            lines += ["", escape(block.caption), ""] if block.caption else [""]
        elif isinstance(block, Paragraph):
            lines += [f"- {escape(block.text)}", ""]
    return "\n".join(lines) + "\n"


def _csv(blocks: Sequence) -> str:
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    for block in blocks:
        if isinstance(block, Table):
            writer.writerow([csv_cell(block.title)])
            writer.writerow([csv_cell(h) for h in block.headings])
            writer.writerows([[csv_cell(c) for c in row] for row in block.rows])
            writer.writerow([])
    return stream.getvalue()


def _emit(args: argparse.Namespace, blocks: List, sink: FigureSink) -> None:
    if args.format == "table":
        stream = io.StringIO() if args.output else None
        console = stdout_console() if stream is None else Console(file=stream, width=160)
        for block in blocks:
            console.print(rich_table(block) if isinstance(block, Table)
                          else Text(plain(block.text, 600)))
        if stream is not None:
            write_files(Path(args.output), stream.getvalue(), {})
        return
    if args.format == "html":
        text = render_template("compare.html.j2", title="hpcprobe compare", blocks=blocks)
    else:
        text = _markdown(blocks) if args.format == "markdown" else _csv(blocks)
    if args.output:
        write_files(Path(args.output), text, sink.files)
    else:
        sys.stdout.write(text)


def placement_view(path_text: str, problems: RecordSet) -> List[Column]:
    """`--by placement`: one input's records, a column per placement (two at least)."""
    columns, unplaced = placement_columns(load_column("all", path_text, problems).records)
    if unplaced:
        stderr_line(f"hpcprobe: {unplaced} record(s) of {plain(path_text, 200)} record no "
                    "placement and are left out")
    if len(columns) < 2:
        found = ", ".join(column.name for column in columns) or "none"
        raise HpcprobeError(f"cannot compare by placement: {plain(path_text, 200)} holds "
                            f"records of {len(columns)} placement(s) ({found}); run the other "
                            "placement into the same --out DIR, or compare two runs",
                            EXIT_BAD_INPUT)
    return columns


def _load_inputs(args: argparse.Namespace,
                 problems: RecordSet) -> Tuple[List[Column], Optional[Column]]:
    """The columns to compare and the baseline (None without --baseline)."""
    if args.by == "placement":
        columns = placement_view(args.systems[0], problems)
    else:
        names = args.names or column_names(args.systems)
        columns = [load_column(name, text, problems) for name, text in zip(names, args.systems)]
    baseline = load_column("baseline", args.baseline, problems) if args.baseline else None
    return columns, baseline


def command_compare(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """Exit status: 0; 1 with --baseline when a metric regressed beyond the tolerance
    (each named on stderr); 2 for an input that cannot be read or holds no record."""
    problems = RecordSet()
    try:
        columns, baseline = _load_inputs(args, problems)
    finally:  # the lines that are not records, once for all inputs, also before an error
        for problem in shown_problems(problems):
            stderr_line(problem)
    sink = FigureSink(data_dir_for(Path(args.output or "compare.html")).name)
    found = balances(columns)
    blocks: List = [comparison_table(columns, comparison_rows(columns)), *balance_blocks(found)]
    figure = kiviat_figure(found, sink) if args.format == "html" else None
    blocks += [figure] if figure is not None else []
    regressed: List[Regression] = []
    if baseline is not None:
        regressed = regressions(baseline, columns, args.tolerance)
        blocks += regression_lines(regressed, args.tolerance) or [Paragraph(
            f"no regression beyond {args.tolerance:g} % against {plain(args.baseline, 200)}")]
    _emit(args, blocks, sink)
    for line in regression_lines(regressed, args.tolerance):
        stderr_line(f"hpcprobe: {line.text}")
    return EXIT_VALIDATION_FAILED if regressed else EXIT_OK
