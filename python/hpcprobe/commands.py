"""What each `hpcprobe` subcommand does, once its arguments are valid."""

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from rich.console import Console

from hpcprobe.bench_tools import command_list, command_sysinfo
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED, HpcprobeError
from hpcprobe.hpcc_summary import hpcc_summary_text
from hpcprobe.launch import AnyLauncher, find_bench, resolve_launcher
from hpcprobe.progress import ProgressReporter, make_progress
from hpcprobe.results import RecordSet, file_size, read_records
from hpcprobe.runner import RESULTS_FILE, Launch, LaunchOutcome, run_launch
from hpcprobe.show import records_json, records_table, write_csv
from hpcprobe.suites import suite_steps

RA_DEFAULT_BUDGET_S = 3600.0
HPCC_SUMMARY_FILE = "hpcc-summary.txt"
# How many of a failed launch's stderr lines to repeat on the screen (all are logged).
STDERR_TAIL_LINES = 20
# Tables go to stdout; in a CI log there is no terminal width, so do not squeeze them.
_LOG_TABLE_WIDTH = 160

_RA_VALUE_OPTIONS = (
    ("table_log2", "--table-log2"), ("memory_fraction", "--memory-fraction"),
    ("rng", "--rng"), ("lookahead", "--lookahead"), ("repeat", "--repeat"),
    ("warmup", "--warmup"), ("time_limit", "--time-limit"), ("hugepages", "--hugepages"),
)
_RA_FLAG_OPTIONS = (("allow_noncompliant", "--allow-noncompliant"), ("no_verify", "--no-verify"))


def stdout_console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=_LOG_TABLE_WIDTH)
    return console


def stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def default_out_dir() -> Path:
    return Path("results") / datetime.now().strftime("%Y%m%d-%H%M%S")


def ra_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe ra` arguments, passed on as typed."""
    options: List[str] = []
    for attribute, option in _RA_VALUE_OPTIONS:
        value = getattr(args, attribute)
        if value is not None:
            options += [option, value]
    for attribute, option in _RA_FLAG_OPTIONS:
        if getattr(args, attribute):
            options.append(option)
    return options


class LaunchContext:
    """What every launch of one hpcprobe command shares: launcher, bench, directory."""

    def __init__(self, args: argparse.Namespace, user_argv: Sequence[str],
                 default_np: int) -> None:
        # Both are checked before anything starts or any directory is created.
        self.launcher: AnyLauncher = resolve_launcher(args.launcher, os.environ)
        self.bench_path = find_bench(os.environ)
        self.args = args
        self.user_argv = list(user_argv)
        self.np = args.np or default_np
        self.out_dir = Path(args.out) if args.out else default_out_dir()
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HpcprobeError(f"cannot write to {self.out_dir}: {error.strerror}") from None
        self.progress: ProgressReporter = make_progress(args.quiet)

    @property
    def results_path(self) -> Path:
        return self.out_dir / RESULTS_FILE

    def launch(self, benchmark: str, variant: str, options: Sequence[str],
               budget_s: float) -> Launch:
        return Launch(
            benchmark, variant, list(options), self.np, self.launcher,
            list(self.args.launcher_arg), self.bench_path, self.out_dir,
            self.args.time_budget or budget_s, self.user_argv,
        )

    def run(self, launch: Launch, step: int, steps: int) -> LaunchOutcome:
        self.progress.begin(step, steps, launch.name, launch.time_budget_s)
        outcome = run_launch(launch, self.progress)
        self.progress.end(outcome.exit_status == EXIT_OK, outcome.elapsed_s)
        report_outcome(outcome, self.args.quiet)
        return outcome


def report_outcome(outcome: LaunchOutcome, quiet: bool) -> None:
    """Problems, the bench's stderr where it helps, and hpcprobe's one-line verdict."""
    for problem in outcome.found.problems:
        stderr_line(problem)
    if outcome.exit_status == EXIT_BAD_INPUT:
        stderr_line(outcome.message or "")  # the bench's own line, relayed as is
        return
    if outcome.exit_status in (EXIT_OK, EXIT_VALIDATION_FAILED):
        if not quiet:
            for line in outcome.stderr_lines:
                stderr_line(line)
    else:
        for line in outcome.stderr_lines[-STDERR_TAIL_LINES:]:
            stderr_line(line)
    if outcome.message:
        stderr_line(f"hpcprobe: {outcome.message}")


def print_records(records: RecordSet, title: Optional[str] = None) -> None:
    if records.records:
        stdout_console().print(records_table(records.records, title=title))


def write_hpcc_summary(records: RecordSet, out_dir: Path) -> None:
    text = hpcc_summary_text(records.records)
    sys.stdout.write(text)
    sys.stdout.flush()
    (out_dir / HPCC_SUMMARY_FILE).write_text(text, encoding="utf-8")


def command_ra(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=1)
    launch = context.launch("ra", args.variant, ra_bench_options(args), RA_DEFAULT_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    print_records(outcome.found)
    if args.hpcc_summary and outcome.found.records:
        write_hpcc_summary(outcome.found, context.out_dir)
    return outcome.exit_status


def command_run(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    steps = suite_steps(args.suite, args.scale)
    context = LaunchContext(args, user_argv, default_np=os.cpu_count() or 1)
    start_offset = file_size(context.results_path)
    failures: Dict[str, int] = {}
    for number, step in enumerate(steps, 1):
        launch = context.launch(step.benchmark, step.variant, step.bench_options,
                                step.time_budget_s)
        outcome = context.run(launch, number, len(steps))
        if outcome.exit_status != EXIT_OK:
            failures[launch.name] = outcome.exit_status
    found = RecordSet()
    if context.results_path.exists():
        found = read_records(context.results_path, start_offset)
    print_records(found, title=f"hpcprobe run --suite {args.suite}: {context.out_dir}")
    if args.hpcc_summary and found.records:
        write_hpcc_summary(found, context.out_dir)
    if failures:
        listed = ", ".join(f"'{name}' (exit status {status})" for name, status in failures.items())
        stderr_line(f"hpcprobe: {len(failures)} of {len(steps)} benchmarks failed: {listed}")
        return max(failures.values())
    return EXIT_OK


def _read_show_inputs(files: Sequence[str]) -> "tuple[RecordSet, bool]":
    found = RecordSet()
    unreadable = False
    for name in files:
        path = Path(name)
        if path.is_dir():
            path = path / RESULTS_FILE
        try:
            found.extend(read_records(path))
        except OSError as error:
            stderr_line(f"{path}: cannot read: {error.strerror or error}")
            unreadable = True
    return found, unreadable


def command_show(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    found, unreadable = _read_show_inputs(args.files)
    for problem in found.problems:
        stderr_line(problem)
    if args.format == "json":
        print(records_json(found.records))
    elif args.format == "csv":
        write_csv(found.records, sys.stdout)
    elif found.records:
        stdout_console().print(records_table(found.records))
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK


_COMMANDS = {
    "ra": command_ra,
    "run": command_run,
    "show": command_show,
    "sysinfo": lambda args, argv: command_sysinfo(),
    "list": lambda args, argv: command_list(),
}


def run_command(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    return _COMMANDS[args.command](args, user_argv)
