"""What each `hpcprobe` subcommand does, once its arguments are valid."""

import argparse
import os
import sys
from pathlib import Path
from typing import Dict, List, Sequence

from hpcprobe.commands.compare import command_compare
from hpcprobe.commands.tools import command_list, command_sysinfo
from hpcprobe.families.comm.command import check_run_placement, command_comm_family, place_launch
from hpcprobe.families.comm.tables import comm_tables
from hpcprobe.families.contention.command import (command_contention, command_topology,
                                                  contention_tables)
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_RUNTIME_FAILURE, EXIT_VALIDATION_FAILED
from hpcprobe.families.hpcc.options import HPCC_VARIANTS, default_np, hpcc_bench_options
from hpcprobe.families.hpcc.command import command_config, hpcc_suite_steps
from hpcprobe.families.hpcc.summary import hpcc_summary_text
from hpcprobe.launching import (
    LaunchContext,
    print_records,
    ra_bench_options,
    read_record_inputs,
    stderr_line,
    stdout_console,
)
from hpcprobe.families.memory.tables import (
    MEMORY_BENCHMARKS,
    binding_args,
    default_ranks,
    memory_bench_options,
    memory_tables,
    threads_per_rank,
)
from hpcprobe.families.ra.model_report import command_model
from hpcprobe.families.ra.multicore import command_ra_modes, command_ra_shared_table_study
from hpcprobe.families.comm.placement import PLACED_BENCHMARKS
from hpcprobe.repeat import launch_label, merge_steps, rounds, write_merged
from hpcprobe.report.build import statistics_table
from hpcprobe.commands.report import command_report
from hpcprobe.report.render import rich_table
from hpcprobe.results import RecordSet, file_size, read_records
from hpcprobe.runner import Launch
from hpcprobe.show import records_json, records_table, write_csv
from hpcprobe.families.contention.simulate_report import command_simulate
from hpcprobe.suites import SuiteStep, suite_steps
from hpcprobe.families.ra.sweep import command_ra_sweep

RA_DEFAULT_BUDGET_S = 3600.0
MEMORY_DEFAULT_BUDGET_S = 3600.0
HPCC_DEFAULT_BUDGET_S = 3600.0
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
    """The family tables of the records (memory, contention, communication)."""
    console = stdout_console()
    for table in (memory_tables(records.records) + contention_tables(records.records)
                  + comm_tables(records.records)):
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


def command_hpcc_family(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe dgemm|hpl|ptrans|fft`: one rank per core, bound where the launcher can."""
    ranks = default_np(args.command, args.variant, os.cpu_count() or 1)
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, args.variant, hpcc_bench_options(args),
                            HPCC_DEFAULT_BUDGET_S)
    outcome = context.run(bind_ranks(launch), 1, 1)
    print_records(outcome.found)
    if args.hpcc_summary and outcome.found.records:
        write_hpcc_summary(outcome.found, context.out_dir)
    return outcome.exit_status


_BOUND_BENCHMARKS = MEMORY_BENCHMARKS + tuple(HPCC_VARIANTS) + PLACED_BENCHMARKS


def _suite_launch(context: LaunchContext, step: SuiteStep) -> Launch:
    launch = context.launch(step.benchmark, step.variant, step.bench_options,
                            step.time_budget_s, np=step.ranks)
    launch = bind_ranks(launch) if step.benchmark in _BOUND_BENCHMARKS else launch
    return place_launch(launch, context.args.placement)


def command_run(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=os.cpu_count() or 1)
    if args.suite == "hpcc":
        steps = hpcc_suite_steps(args, context)
    else:
        steps = suite_steps(args.suite, args.scale)
    check_run_placement(args.placement, [step.ranks or context.np for step in steps])
    start_offset = file_size(context.results_path)
    failures: Dict[str, int] = {}
    launches = rounds(steps, args.repeat)
    context.plan([step.name for _, step in launches])
    by_step: Dict[str, List] = {step.name: [] for step in steps}
    for number, (round_number, step) in enumerate(launches, 1):
        launch = _suite_launch(context, step)
        label = launch_label(step, round_number, args.repeat)
        outcome = context.run(launch, number, len(launches), label=label, key=step.name)
        by_step[step.name] += outcome.found.records
        if outcome.exit_status != EXIT_OK:
            failures[label] = outcome.exit_status
    found = RecordSet()
    if context.results_path.exists():
        found = read_records(context.results_path, start_offset)
    shown = found
    if args.repeat > 1:
        shown = _merge_rounds(context, by_step, failures)
    else:
        print_records(found, title=f"hpcprobe run --suite {args.suite}: {context.out_dir}")
    print_memory_tables(shown)
    if (args.hpcc_summary or args.suite == "hpcc") and found.records:
        write_hpcc_summary(found, context.out_dir)
    if failures:
        listed = ", ".join(f"'{name}' (exit status {status})" for name, status in failures.items())
        stderr_line(f"hpcprobe: {len(failures)} of {len(launches)} benchmarks failed: {listed}")
        return max(failures.values())
    return EXIT_OK


def _merge_rounds(context: LaunchContext, by_step: Dict[str, List],
                  failures: Dict[str, int]) -> RecordSet:
    """Merge each step's records into merged.jsonl and print their statistics; each
    step that could not be merged is added to `failures` with exit status 3."""
    merged, refused = merge_steps(by_step)
    if merged:
        path = write_merged(context.out_dir, merged)
        stdout_console().print(rich_table(statistics_table(merged)))
        stderr_line(f"merged records: {path}")
    for name, line in refused.items():
        stderr_line(f"hpcprobe: {line}")
        failures[name] = EXIT_RUNTIME_FAILURE
    return RecordSet(merged)


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
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK


_COMMANDS = {
    "ra": command_ra,
    "stream": command_memory,
    "mem": command_memory,
    **{family: command_hpcc_family for family in HPCC_VARIANTS},
    "config": lambda args, argv: command_config(args),
    "run": command_run,
    "model": command_model,
    "contention": command_contention,
    "topology": command_topology,
    "simulate": command_simulate,
    "comm": command_comm_family,
    "beff": command_comm_family,
    "pairs": command_comm_family,
    "show": command_show,
    "report": command_report,
    "compare": command_compare,
    "sysinfo": lambda args, argv: command_sysinfo(),
    "list": lambda args, argv: command_list(),
}


def run_command(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    return _COMMANDS[args.command](args, user_argv)
