"""What `hpcprobe dgemm|hpl|ptrans|fft`, `run --suite hpcc` and `config import-hpccinf`
do once their arguments are valid: one launch of a kernel; for the suite, find the sizing
(an imported file, --n, or the memory the launched ranks see) and turn it into the
suite's launches (suite.py); and HPCC's summary block where a command writes one."""

import argparse
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Sequence

from hpcprobe import describe
from hpcprobe.errors import EXIT_OK, HpcprobeError, UsageError
from hpcprobe.families.hpcc.suite import (DEFAULT_FRACTION, DEFAULT_NB, TINY_N, TINY_NB, HpccSizing,
                                          describe_sizing, hpcc_steps, parse_grid, read_config,
                                          sizing_from_hpccinf, sizing_from_memory, square_grid,
                                          write_config)
from hpcprobe.families.hpcc.options import default_np, hpcc_bench_options
from hpcprobe.families.hpcc.parsers import hpl_option
from hpcprobe.launching import LaunchContext, bind_ranks, print_records, stderr_line
from hpcprobe.suite.step import SuiteStep
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.hpcc_summary.write import write_launch_summary

SYSINFO_TIMEOUT_S = 120.0
HPCC_DEFAULT_BUDGET_S = 3600.0


def _launched_sysinfo(context: LaunchContext) -> Dict[str, Any]:
    """`hpcprobe-bench sysinfo` on the suite's ranks: the memory they see, and the nodes."""
    argv = context.launcher.command(context.np, list(context.args.launcher_arg),
                                    [context.bench_path, "sysinfo"])
    try:
        done = subprocess.run(argv, capture_output=True, timeout=SYSINFO_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        info = json.loads(done.stdout.decode("utf-8", "replace") or "null")
    except (OSError, subprocess.TimeoutExpired, ValueError):
        info = None
    if not isinstance(info, dict):
        raise HpcprobeError("cannot size the hpcc suite: 'hpcprobe-bench sysinfo' gave no "
                            "memory figure on the launched ranks (give --n N)")
    return info


def _sizing(args: argparse.Namespace, context: LaunchContext) -> HpccSizing:
    if args.config:
        sizing = read_config(Path(args.config))
    elif args.hpccinf:
        sizing, notes = sizing_from_hpccinf(Path(args.hpccinf))
        for note in notes:
            stderr_line(f"hpcprobe: {note}")
    elif args.n:
        sizing = HpccSizing(args.n, min(args.nb or DEFAULT_NB, args.n), 1, 1,
                            hpl_option("n").name)
    elif args.scale == "tiny":
        sizing = HpccSizing(TINY_N, TINY_NB, 1, 1, "--scale tiny")
    else:  # a plan (run --plan) brings the node it plans for; a run asks the ranks
        info = getattr(context, "node_info", None) or _launched_sysinfo(context)
        sizing = sizing_from_memory(float(info.get("memory_available_bytes_min_node") or 0),
                                    int(info.get("nodes") or 1), context.np,
                                    args.memory_fraction or DEFAULT_FRACTION,
                                    args.nb or DEFAULT_NB, None)
    p, q = parse_grid(args.grid, context.np) if args.grid else (sizing.p, sizing.q)
    if p * q != context.np:
        if args.config or args.hpccinf:
            raise UsageError(f"the grid {p}x{q} of {args.config or args.hpccinf} needs "
                             f"{p * q} ranks, not --np {context.np}")
        p, q = square_grid(context.np)
    nb = args.nb or sizing.nb
    if nb > sizing.n:
        raise UsageError(f"{hpl_option('nb').name} {nb} is larger than N = {sizing.n} "
                         "(allowed: 1..N)")
    return HpccSizing(sizing.n, nb, p, q, sizing.source, sizing.lookahead)


def hpcc_suite_steps(args: argparse.Namespace, context: LaunchContext) -> List[SuiteStep]:
    sizing = _sizing(args, context)
    stderr_line(f"hpcprobe: hpcc suite: {describe_sizing(sizing)}")
    return hpcc_steps(sizing)


def command_config(args: argparse.Namespace) -> int:
    sizing, notes = sizing_from_hpccinf(Path(args.file))
    for note in notes:
        stderr_line(f"hpcprobe: {note}")
    out = Path(args.out)
    write_config(sizing, out)
    print(f"{describe_sizing(sizing)}; written to {out}")
    print(f"run it: hpcprobe run --suite hpcc --np {sizing.ranks} --config {out}")
    return EXIT_OK


def command_hpcc_family(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    """`hpcprobe dgemm|hpl|ptrans|fft`: one rank per core (or P*Q of the grid given), bound
    where the launcher can."""
    ranks = default_np(args, describe.family(args.command), allocation_cores(os.environ))
    context = LaunchContext(args, user_argv, default_np=ranks)
    launch = context.launch(args.command, args.variant, hpcc_bench_options(args),
                            HPCC_DEFAULT_BUDGET_S)
    outcome = context.run(bind_ranks(launch), 1, 1)
    print_records(outcome.found)
    if args.hpcc_summary:
        write_launch_summary(outcome, launch, context.out_dir)
    return outcome.exit_status
