"""`hpcprobe gpu stream|ra|copy|info` (docs/kernels/gpu.md): ask `hpcprobe-bench gpu info`
first (no device: one line naming what is missing, exit status 2, nothing launched), then
one launch and the family's tables (with --devices over several devices: one launch per
device, then all at once); `info` prints the devices and launches nothing."""

import argparse
import os
from typing import List, Sequence, Tuple

from hpcprobe import describe
from hpcprobe.cli_described import bench_values
from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.families.gpu.info import GpuInfo, ask_gpu_info, require_device
from hpcprobe.families.gpu.options import FAMILY, gpu_bench_options
from hpcprobe.families.gpu.tables import gpu_tables, info_table
from hpcprobe.launch import find_bench
from hpcprobe.launching import LaunchContext, stdout_console
from hpcprobe.results import RecordSet

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


def device_launches(args: argparse.Namespace, info: GpuInfo,
                    options: Sequence[str]) -> List[Tuple[int, List[str], str]]:
    """(ranks, bench options, label) of each launch. With --devices over several devices:
    each device alone (its own record, one rank with --device I), then all of them at once
    (one rank per device, the sum); otherwise the one launch the options ask for."""
    ranks = ranks_for(args, info)
    if args.devices is None or ranks < 2:
        return [(args.np or ranks, list(options), f"gpu {args.variant}")]
    family = describe.family(FAMILY)
    each = [(1, [*bench_values(family, args.variant, {"device": str(index)}), *options],
             f"gpu {args.variant}, device {index}") for index in range(ranks)]
    return each + [(ranks, list(options), f"gpu {args.variant}, {ranks} devices at once")]


def command_gpu(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    info = require_device(ask_gpu_info(find_bench(os.environ)))
    console = stdout_console()
    if args.variant == "info":
        console.print(info_table(info.devices, info.build))
        return EXIT_OK
    launches = device_launches(args, info, gpu_bench_options(args))
    context = LaunchContext(args, user_argv, default_np=launches[-1][0])
    found, status = RecordSet(), EXIT_OK
    for number, (np, options, label) in enumerate(launches, 1):
        launch = context.launch("gpu", args.variant, options, GPU_DEFAULT_BUDGET_S, np=np)
        outcome = context.run(launch, number, len(launches), label=label)
        found.extend(outcome.found)
        status = status or outcome.exit_status
    for table in gpu_tables(found.records):
        console.print(table)
    return status
