"""`hpcprobe stream single|star` and `hpcprobe mem stride|latency`: one launch, each rank
bound to its cores where the launcher can, and the family's tables."""

import argparse
import os
from typing import Sequence

from hpcprobe.hpcc_summary.write import write_launch_summary
from hpcprobe.families.memory.tables import (default_ranks, memory_bench_options, memory_tables,
                                             threads_per_rank)
from hpcprobe.launching import LaunchContext, bind_ranks, stdout_console
from hpcprobe.launch.limits import allocation_cores

MEMORY_DEFAULT_BUDGET_S = 3600.0


def command_memory(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe stream single|star` and `hpcprobe mem stride|latency`."""
    # Only stream runs threads (OpenMP); a mem copy is one thread.
    threads = threads_per_rank(args.threads, os.environ) if args.command == "stream" else 1
    ranks = default_ranks(args.variant, args.copies, threads, allocation_cores(os.environ))
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, args.variant, memory_bench_options(args),
                            MEMORY_DEFAULT_BUDGET_S)
    outcome = context.run(bind_ranks(launch, threads, args.oversubscribe), 1, 1)
    console = stdout_console()
    for table in memory_tables(outcome.found.records):
        console.print(table)
    if args.hpcc_summary:
        write_launch_summary(outcome, launch, context.out_dir)
    return outcome.exit_status
