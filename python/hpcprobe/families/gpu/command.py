"""`hpcprobe gpu stream|ra|copy|info` (docs/kernels/gpu.md): ask `hpcprobe-bench gpu info`
first (no device: one line naming what is missing, exit status 2, nothing launched), then
one launch and the family's tables; `info` prints the devices and launches nothing."""

import argparse
import os
from typing import Sequence

from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.families.gpu.info import GpuInfo, ask_gpu_info, require_device
from hpcprobe.families.gpu.options import gpu_bench_options
from hpcprobe.families.gpu.tables import gpu_tables, info_table
from hpcprobe.launch import find_bench
from hpcprobe.launching import LaunchContext, stdout_console

# Minutes at most on any device at the bench's sizes; the budget only catches a hang.
GPU_DEFAULT_BUDGET_S = 1800.0


def ranks_for(args: argparse.Namespace, info: GpuInfo) -> int:
    """Ranks to launch without --np: one per device with --devices (all, or the first
    N, which this node must have), else one."""
    if args.devices is None:
        return 1
    count = len(info.devices)
    if args.devices == "all":
        return count
    wanted = int(args.devices)
    if wanted > count:
        raise UsageError(f"--devices {wanted}: this node has {count} device"
                         f"{'' if count == 1 else 's'} ('hpcprobe gpu info')")
    return wanted


def command_gpu(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    info = require_device(ask_gpu_info(find_bench(os.environ)))
    console = stdout_console()
    if args.variant == "info":
        console.print(info_table(info.devices, info.build))
        return EXIT_OK
    context = LaunchContext(args, user_argv, default_np=ranks_for(args, info))
    launch = context.launch("gpu", args.variant, gpu_bench_options(args), GPU_DEFAULT_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    for table in gpu_tables(outcome.found.records):
        console.print(table)
    return outcome.exit_status
