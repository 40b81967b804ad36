"""The commands of no family, once their arguments are valid: `run` (a suite of launches
over the families), `show`; report.py, compare.py and tools.py hold `report`, `compare`,
`sysinfo` and `list`. They reach the families through the registry (families/__init__.py),
and may use a family's parts directly where a suite needs them (HPCC's sizing, the
communication family's --placement)."""

import argparse
import os
import sys
from typing import Dict, List, Sequence

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_RUNTIME_FAILURE, EXIT_VALIDATION_FAILED
from hpcprobe.families import FAMILIES
from hpcprobe.families.comm.command import check_run_placement, place_launch
from hpcprobe.families.hpcc.command import (hpcc_suite_steps, suite_problems,
                                           write_hpcc_summary)
from hpcprobe.launching import (LaunchContext, bind_ranks, print_records, read_record_inputs,
                                stderr_line, stdout_console)
from hpcprobe.repeat import launch_label, merge_steps, rounds, write_merged
from hpcprobe.report.build import statistics_table
from hpcprobe.report.render import rich_table
from hpcprobe.results import RecordSet, shown_problems
from hpcprobe.runner import Launch
from hpcprobe.show import records_json, records_table, write_csv
from hpcprobe.suite_step import SuiteStep
from hpcprobe.suites import suite_steps
from hpcprobe.launch.limits import allocation_cores

# The benchmarks whose suite launches bind one rank per core (where the launcher can).
_BOUND_BENCHMARKS = tuple(benchmark for family in FAMILIES for benchmark in family.bound)


def print_family_tables(records: RecordSet) -> None:
    """The tables of every family that has records here (memory, contention, comm)."""
    console = stdout_console()
    for family in FAMILIES:
        if family.tables is not None:
            for table in family.tables(records.records):
                console.print(table)


def _suite_launch(context: LaunchContext, step: SuiteStep) -> Launch:
    launch = context.launch(step.benchmark, step.variant, step.bench_options,
                            step.time_budget_s, np=step.ranks)
    launch = bind_ranks(launch) if step.benchmark in _BOUND_BENCHMARKS else launch
    return place_launch(launch, context.args.placement)


def command_run(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=allocation_cores(os.environ))
    if args.suite == "hpcc":
        steps = hpcc_suite_steps(args, context)
    else:
        steps = suite_steps(args.suite, args.scale)
    check_run_placement(args.placement, [step.ranks or context.np for step in steps])
    found = RecordSet()  # this run's records only: others may share the directory
    failures: Dict[str, int] = {}
    launches = rounds(steps, args.repeat)
    context.plan([step.name for _, step in launches])
    by_step: Dict[str, List] = {step.name: [] for step in steps}
    for number, (round_number, step) in enumerate(launches, 1):
        launch = _suite_launch(context, step)
        label = launch_label(step, round_number, args.repeat)
        outcome = context.run(launch, number, len(launches), label=label, key=step.name)
        by_step[step.name] += outcome.found.records
        found.extend(outcome.found)
        if outcome.exit_status != EXIT_OK:
            failures[label] = outcome.exit_status
    shown = found
    if args.repeat > 1:
        shown = _merge_rounds(context, by_step, failures)
    else:
        print_records(found, title=f"hpcprobe run --suite {args.suite}: {context.out_dir}")
    print_family_tables(shown)
    if (args.hpcc_summary or args.suite == "hpcc") and (found.records or failures):
        write_hpcc_summary(found, context.out_dir, suite_problems(by_step, failures))
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
    for problem in shown_problems(found):
        stderr_line(problem)
    if args.format == "json":
        print(records_json(found.records))
    elif args.format == "csv":
        write_csv(found.records, sys.stdout)
    elif found.records:
        stdout_console().print(records_table(found.records))
        print_family_tables(found)
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK
