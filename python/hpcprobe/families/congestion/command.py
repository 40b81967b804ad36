"""`hpcprobe congestion` (docs/kernels/congestion.md): one launch of hpcprobe-bench
congestion load, then the CIF tables of its record."""

import argparse
import os
from typing import Sequence

from hpcprobe import describe
from hpcprobe.families.congestion.options import FAMILY, congestion_bench_options, the_variant
from hpcprobe.families.congestion.tables import congestion_tables
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.launching import LaunchContext, stdout_console

# Canaries beside four congestors, each run to its samples: minutes on a slow network.
CONGESTION_BUDGET_S = 1800.0


def command_congestion(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=allocation_cores(os.environ))
    variant = the_variant(describe.family(FAMILY))
    launch = context.launch(FAMILY, variant, congestion_bench_options(args), CONGESTION_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    console = stdout_console()
    for table in congestion_tables(outcome.found.records):
        console.print(table)
    return outcome.exit_status
