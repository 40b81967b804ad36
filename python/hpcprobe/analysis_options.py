"""The command-line options of `hpcprobe report` and `hpcprobe compare` (the parsers of
cli.py call these), and their checks."""

import argparse
from typing import Any

from hpcprobe.cli_types import choice, tolerance
from hpcprobe.errors import UsageError

COMPARE_FORMATS = ("table", "csv", "markdown", "html")
DEFAULT_TOLERANCE_PERCENT = 5.0


def add_report_parser(subparsers: Any) -> Any:
    report = subparsers.add_parser("report", help="one self-contained HTML report of records")
    report.add_argument("results", nargs="+", metavar="RESULTS",
                        help="results.jsonl files, or directories holding one")
    report.add_argument("-o", "--output", default="report.html", metavar="FILE",
                        help="the HTML file; plot data goes to FILE's stem + '-data/' beside it "
                             "(default report.html)")
    report.add_argument("--title", default="hpcprobe report", help="the page's title")
    report.add_argument("--quiet", action="store_true", help="no summary on the terminal")
    return report


def add_compare_parser(subparsers: Any) -> Any:
    compare = subparsers.add_parser(
        "compare", help="systems side by side: ratios, HPL-normalised balance, regressions")
    compare.add_argument("systems", nargs="+", metavar="SYSTEM",
                         help="one system each: a results.jsonl, a directory holding one, or "
                              "an HPCC output file (hpccoutf.txt)")
    compare.add_argument("--format", default="table", type=choice("format", COMPARE_FORMATS))
    compare.add_argument("-o", "--output", metavar="FILE", help="write there (default stdout)")
    compare.add_argument("--baseline", metavar="FILE|DIR",
                         help="records to check every SYSTEM against")
    compare.add_argument("--tolerance", type=tolerance, metavar="PCT",
                         help="a metric worse than the baseline by more than PCT percent is a "
                              f"regression (default {DEFAULT_TOLERANCE_PERCENT:g}%%)")
    compare.add_argument("--names", metavar="A,B,...",
                         help="column names for the systems (default: from the paths)")
    compare.add_argument("--by", choices=("system", "placement"), default="system",
                         help="placement: one SYSTEM's records, a column per placement they "
                              "ran with (comm, beff, pairs; docs/kernels/comm.md)")
    return compare


def check_compare(args: argparse.Namespace) -> None:
    if args.by == "placement" and (len(args.systems) != 1 or args.names is not None):
        raise UsageError("--by placement takes one SYSTEM (its records make a column per "
                         "placement, named by it) and no --names")
    if args.tolerance is not None and args.baseline is None:
        raise UsageError("--tolerance applies with --baseline only")
    if args.baseline is None and len(args.systems) < 2 and args.by == "system":
        raise UsageError("compare needs two systems or more, or one and --baseline FILE")
    if args.tolerance is None:
        args.tolerance = DEFAULT_TOLERANCE_PERCENT
    if args.names is not None:
        names = [name.strip() for name in args.names.split(",")]
        if len(names) != len(args.systems) or not all(names):
            raise UsageError(f"--names takes {len(args.systems)} non-empty names, one per "
                             f"system, not '{args.names}'")
        args.names = names
