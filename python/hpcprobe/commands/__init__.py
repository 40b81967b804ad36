"""The commands of no family, once their arguments are valid: `show` here; run.py holds
`run` (a suite of launches over the families), report.py, compare.py and tools.py hold
`report`, `compare`, `sysinfo` and `list`. They reach the families through the registry
(families/__init__.py), and may use a family's parts directly where a suite needs them
(HPCC's sizing, the communication family's --placement)."""

import argparse
import sys
from typing import Sequence

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED
from hpcprobe.families import FAMILIES
from hpcprobe.launching import read_record_inputs, stderr_line, stdout_console
from hpcprobe.limits.records import limits_of
from hpcprobe.limits.section import limits_table
from hpcprobe.report.render import rich_table
from hpcprobe.results import RecordSet, shown_problems
from hpcprobe.show import records_json, records_table, write_csv


# `show --format NAME` in another tool's layout: the families' text formats by name.
TEXT_FORMATS = {name: text for family in FAMILIES for name, text in family.text_formats}


def print_family_tables(records: RecordSet) -> None:
    """The tables of every family that has records here (memory, contention, comm), then
    the records against the machine's limits."""
    console = stdout_console()
    for family in FAMILIES:
        if family.tables is not None:
            for table in family.tables(records.records):
                console.print(table)
    print_limits_table(records.records)


def print_limits_table(records: Sequence) -> None:
    """"Against the machine's limits" (hpcprobe.limits), when a record here has one."""
    table = limits_table(limits_of(records))
    if table is not None:
        stdout_console().print(rich_table(table))


def command_show(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    found, unreadable = read_record_inputs(args.files)
    for problem in shown_problems(found):
        stderr_line(problem)
    if args.format == "json":
        print(records_json(found.records))
    elif args.format == "csv":
        write_csv(found.records, sys.stdout)
    elif args.format in TEXT_FORMATS:
        text = TEXT_FORMATS[args.format](found.records)
        if not text:
            stderr_line(f"show --format {args.format}: no record here is of a benchmark that "
                        "this layout prints (imb and osu print comm's records)")
            return EXIT_BAD_INPUT
        print(text)
    elif found.records:
        stdout_console().print(records_table(found.records))
        print_family_tables(found)
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK
