"""What each `hpcprobe` subcommand does, once its arguments are valid."""

import argparse
import os
import sys
from pathlib import Path
from typing import Dict, Sequence

from hpcprobe.bench_tools import command_list, command_sysinfo
from hpcprobe.comm_commands import (
    check_run_placement,
    command_comm_family,
    place_launch,
    print_comm_tables,
)
from hpcprobe.compare import command_compare
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED
from hpcprobe.hpcc_summary import hpcc_summary_text
from hpcprobe.launching import (
    LaunchContext,
    print_records,
    ra_bench_options,
    read_record_inputs,
    stderr_line,
    stdout_console,
)
from hpcprobe.memory import (
    MEMORY_BENCHMARKS,
    binding_args,
    default_ranks,
    memory_bench_options,
    memory_tables,
    threads_per_rank,
)
from hpcprobe.model_report import command_model
from hpcprobe.multicore import command_ra_modes, command_ra_shared_table_study
from hpcprobe.placement import PLACED_BENCHMARKS
from hpcprobe.results import RecordSet, file_size, read_records
from hpcprobe.runner import Launch
from hpcprobe.show import records_json, records_table, write_csv
from hpcprobe.suites import SuiteStep, suite_steps
from hpcprobe.sweep import command_ra_sweep

RA_DEFAULT_BUDGET_S = 3600.0
MEMORY_DEFAULT_BUDGET_S = 3600.0
HPCC_SUMMARY_FILE = "hpcc-summary.txt"

__all__ = ["ra_bench_options", "run_command"]


def write_hpcc_summary(records: RecordSet, out_dir: Path) -> None:
    text = hpcc_summary_text(records.records)
    sys.stdout.write(text)
    sys.stdout.flush()
    (out_dir / HPCC_SUMMARY_FILE).write_text(text, encoding="utf-8")


# The words after `hpcprobe ra` that launch several benchmarks, and their commands.
_RA_STUDIES = {"sweep": command_ra_sweep, "shared-table-study": command_ra_shared_table_study,
               "modes": command_ra_modes}


def command_ra(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if args.variant in _RA_STUDIES:
        return _RA_STUDIES[args.variant](args, user_argv)
    context = LaunchContext(args, user_argv, default_np=1)
    launch = context.launch("ra", args.variant, ra_bench_options(args), RA_DEFAULT_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    print_records(outcome.found)
    if args.hpcc_summary and outcome.found.records:
        write_hpcc_summary(outcome.found, context.out_dir)
    return outcome.exit_status


def bind_ranks(launch: Launch, threads: int = 1, oversubscribe: bool = False) -> Launch:
    """Put the launcher's arguments that bind one rank per core first (where it has
    them; the bench pins the ranks of the others itself)."""
    binding = binding_args(launch.launcher, launch.np, threads, os.cpu_count() or 1,
                           oversubscribe, launch.launcher_args)
    launch.launcher_args = [*binding, *launch.launcher_args]
    return launch


def print_memory_tables(records: RecordSet) -> None:
    console = stdout_console()
    for table in memory_tables(records.records):
        console.print(table)


def command_memory(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe stream single|star` and `hpcprobe mem stride|latency`."""
    # Only stream runs threads (OpenMP); a mem copy is one thread.
    threads = threads_per_rank(args.threads, os.environ) if args.command == "stream" else 1
    ranks = default_ranks(args.variant, args.copies, threads, os.cpu_count() or 1)
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, args.variant, memory_bench_options(args),
                            MEMORY_DEFAULT_BUDGET_S)
    outcome = context.run(bind_ranks(launch, threads, args.oversubscribe), 1, 1)
    print_memory_tables(outcome.found)
    if args.hpcc_summary and outcome.found.records:
        write_hpcc_summary(outcome.found, context.out_dir)
    return outcome.exit_status


def _suite_launch(context: LaunchContext, step: SuiteStep) -> Launch:
    launch = context.launch(step.benchmark, step.variant, step.bench_options,
                            step.time_budget_s, np=step.ranks)
    if step.benchmark in MEMORY_BENCHMARKS + PLACED_BENCHMARKS:
        launch = bind_ranks(launch)
    return place_launch(launch, context.args.placement)


def command_run(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    steps = suite_steps(args.suite, args.scale)
    check_run_placement(args.placement, [step.ranks or args.np or os.cpu_count() or 1
                                         for step in steps])
    context = LaunchContext(args, user_argv, default_np=os.cpu_count() or 1)
    start_offset = file_size(context.results_path)
    failures: Dict[str, int] = {}
    for number, step in enumerate(steps, 1):
        launch = _suite_launch(context, step)
        outcome = context.run(launch, number, len(steps), label=step.name)
        if outcome.exit_status != EXIT_OK:
            failures[step.name] = outcome.exit_status
    found = RecordSet()
    if context.results_path.exists():
        found = read_records(context.results_path, start_offset)
    print_records(found, title=f"hpcprobe run --suite {args.suite}: {context.out_dir}")
    print_memory_tables(found)
    print_comm_tables(found)
    if args.hpcc_summary and found.records:
        write_hpcc_summary(found, context.out_dir)
    if failures:
        listed = ", ".join(f"'{name}' (exit status {status})" for name, status in failures.items())
        stderr_line(f"hpcprobe: {len(failures)} of {len(steps)} benchmarks failed: {listed}")
        return max(failures.values())
    return EXIT_OK


def command_show(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    found, unreadable = read_record_inputs(args.files)
    for problem in found.problems:
        stderr_line(problem)
    if args.format == "json":
        print(records_json(found.records))
    elif args.format == "csv":
        write_csv(found.records, sys.stdout)
    elif found.records:
        stdout_console().print(records_table(found.records))
        print_memory_tables(found)
        print_comm_tables(found)
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK


_COMMANDS = {
    "ra": command_ra,
    "stream": command_memory,
    "mem": command_memory,
    "run": command_run,
    "model": command_model,
    "comm": command_comm_family,
    "beff": command_comm_family,
    "pairs": command_comm_family,
    "compare": command_compare,
    "show": command_show,
    "sysinfo": lambda args, argv: command_sysinfo(),
    "list": lambda args, argv: command_list(),
}


def run_command(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    return _COMMANDS[args.command](args, user_argv)
