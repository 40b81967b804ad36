"""`hpcprobe peak [flops|bandwidth|clock] [single|star]` (docs/kernels/peak.md): one launch
of the kernel asked for, or without a kernel word every launch of the peak suite
(suite/peak_steps.py: the clock, the flop rates in both precisions, the bandwidths, each
on one core and on every core), each rank bound to its core where the launcher can; then
the family's tables."""

import argparse
import os
from typing import List, Optional, Sequence, Tuple

from hpcprobe.errors import EXIT_OK
from hpcprobe.families.peak.options import FAMILY, bench_variant, peak_bench_options
from hpcprobe.families.peak.tables import peak_tables
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.launching import LaunchContext, bind_ranks, stdout_console
from hpcprobe.results import RecordSet
from hpcprobe.suite.peak_steps import PEAK_BUDGET_S, peak_steps

# (bench variant, bench options, ranks or None for the command's, label)
Planned = Tuple[str, Sequence[str], Optional[int], str]


def _launches(args: argparse.Namespace) -> List[Planned]:
    if args.kernel is not None:
        variant = bench_variant(args.kernel, args.variant)
        ranks = 1 if variant.endswith("-single") else None
        return [(variant, peak_bench_options(args), ranks, f"peak {variant}")]
    return [(step.variant, step.bench_options, step.ranks, step.name)
            for step in peak_steps("full")]


def command_peak(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    launches = _launches(args)
    cores = allocation_cores(os.environ)
    single = len(launches) == 1 and launches[0][2] == 1
    default_np = 1 if single else cores
    context = LaunchContext(args, user_argv, default_np=default_np)
    context.plan([label for *_, label in launches])
    found, status = RecordSet(), EXIT_OK
    for number, (variant, options, ranks, label) in enumerate(launches, 1):
        np = ranks if ranks is not None and args.np is None else None
        launch = context.launch(FAMILY, variant, options, PEAK_BUDGET_S, np=np)
        outcome = context.run(bind_ranks(launch), number, len(launches), label=label)
        found.extend(outcome.found)
        status = status or outcome.exit_status
    console = stdout_console()
    for table in peak_tables(found.records):
        console.print(table)
    return status
