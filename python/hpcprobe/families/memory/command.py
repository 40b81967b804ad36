"""`hpcprobe stream single|star` and `hpcprobe mem stride|latency`: one launch, each rank
bound to its cores where the launcher can, and the family's tables."""

import argparse
import os
from typing import Sequence

from hpcprobe import describe
from hpcprobe.hpcc_summary.write import write_launch_summary
from hpcprobe.families.memory.options import memory_bench_options
from hpcprobe.families.memory.tables import default_ranks, memory_tables, threads_per_rank
from hpcprobe.launching import LaunchContext, bind_ranks, stdout_console
from hpcprobe.launch.limits import allocation_cores

MEMORY_DEFAULT_BUDGET_S = 3600.0


def _threads(args: argparse.Namespace, family: describe.Family) -> int:
    """OpenMP threads per rank where the family takes --threads (stream; test_memory.py's
    OMP_NUM_THREADS test fails should it lose them); a mem copy is one thread."""
    try:
        option = family.option("threads")
    except KeyError:
        return 1
    return threads_per_rank(getattr(args, option.dest, None), os.environ)


def command_memory(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe stream single|star` and `hpcprobe mem stride|latency`."""
    family = describe.family(args.command)
    threads = _threads(args, family)
    ranks = default_ranks(args.variant, getattr(args, family.option("copies").dest), threads,
                          allocation_cores(os.environ))
    oversubscribe = getattr(args, family.option("oversubscribe").dest)
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, args.variant, memory_bench_options(args),
                            MEMORY_DEFAULT_BUDGET_S)
    outcome = context.run(bind_ranks(launch, threads, oversubscribe), 1, 1)
    console = stdout_console()
    for table in memory_tables(outcome.found.records):
        console.print(table)
    if args.hpcc_summary:
        write_launch_summary(outcome, launch, context.out_dir)
    return outcome.exit_status
