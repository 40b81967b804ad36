"""`hpcprobe report RESULTS... -o report.html`."""

import argparse
from pathlib import Path
from typing import Sequence

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED, HpcprobeError
from hpcprobe.launching import read_record_inputs, stderr_line, stdout_console
from hpcprobe.report.build import build_report
from hpcprobe.report.render import data_dir_for, print_summary, render_template, write_files
from hpcprobe.results import shown_problems


def command_report(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """Exit status: 0 (records that failed validation are shown at the top, not an
    error of the report); 1 when a line was not a valid record (reported, the others
    used); 2 when an input cannot be read or holds no record."""
    found, unreadable = read_record_inputs(args.results)
    for problem in shown_problems(found):
        stderr_line(problem)
    if not found.records and not found.problems:
        if unreadable:
            return EXIT_BAD_INPUT  # each input that cannot be read is named above
        raise HpcprobeError(f"no records in {', '.join(args.results)}", EXIT_BAD_INPUT)
    html_path = Path(args.output)
    page, sink = build_report(found, args.results, data_dir_for(html_path).name,
                              title=args.title)
    write_files(html_path, render_template("report.html.j2", page=page), sink.files)
    if not args.quiet:
        print_summary(page, html_path, stdout_console())
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK
