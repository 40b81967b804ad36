"""`hpcprobe comm`, `beff` and `pairs`: one launch each, one rank per core (bound by the
launcher where it can), the placement asked for, and their tables; and the placement of
the launches of `hpcprobe run --placement`."""

import argparse
import os
from typing import Sequence

from hpcprobe.families.comm.options import comm_bench_options, comm_bench_variant, default_ranks
from hpcprobe.families.comm.peer_formats import peer_text
from hpcprobe.families.comm.tables import comm_tables
from hpcprobe.hpcc_summary.write import write_launch_summary
from hpcprobe.launching import LaunchContext, bind_ranks, print_records, stdout_console
from hpcprobe.results import RecordSet
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.launch.placement import check_run_placement, place_launch

COMM_DEFAULT_BUDGET_S = 3600.0


def print_comm_tables(records: RecordSet) -> None:
    console = stdout_console()
    for table in comm_tables(records.records):
        console.print(table)


def command_comm_family(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe comm [FUNCTION...]`, `hpcprobe beff`, `hpcprobe pairs`."""
    ranks = default_ranks(allocation_cores(os.environ))
    check_run_placement(args.placement, [args.np or ranks])  # before any directory exists
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, comm_bench_variant(args), comm_bench_options(args),
                            COMM_DEFAULT_BUDGET_S)
    launch = place_launch(bind_ranks(launch), args.placement)
    outcome = context.run(launch, 1, 1)
    layout = getattr(args, "format", "table")
    if layout != "table":  # nothing else on stdout: the peer's parsers read it whole
        text = peer_text(layout, outcome.found.records)
        if text:
            print(text)
    else:
        print_records(outcome.found)
        print_comm_tables(outcome.found)
    if getattr(args, "hpcc_summary", False):
        write_launch_summary(outcome, launch, context.out_dir)
    return outcome.exit_status
