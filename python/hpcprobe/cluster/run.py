"""`hpcprobe launch --cluster NAME --np P [--ppn K] [--time-budget S] -- PROGRAM ARGS…`:
any MPI program on a cluster's hosts. Its output passes straight through; it is watched
as the runner watches a benchmark (every process found by parentage, hpcprobe their
subreaper), so a time budget or a signal stops it on every host."""

import argparse
import os
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_types import CliParser, positive_int, positive_seconds
import hpcprobe.cluster.system as system
from hpcprobe.cluster.launcher import ClusterLauncher
from hpcprobe.cluster.spec import check_name
from hpcprobe.cluster.store import load_cluster
from hpcprobe.errors import EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.runner import supervise


def add_launch_parser(subparsers) -> CliParser:
    launch = subparsers.add_parser("launch", help="run an MPI program on a cluster's hosts")
    launch.add_argument("--cluster", required=True, type=check_name, metavar="NAME")
    launch.add_argument("--np", required=True, type=positive_int("--np"), metavar="P")
    launch.add_argument("--ppn", type=positive_int("--ppn"), metavar="K",
                        help="ranks per host (default: the hosts' cores)")
    launch.add_argument("--time-budget", type=positive_seconds("--time-budget"),
                        metavar="S", help="stop the program (on every host) after S seconds")
    launch.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS")
    return launch


def check_launch(args: argparse.Namespace) -> None:
    program = list(args.program)
    if program[:1] == ["--"]:
        program = program[1:]
    if not program:
        raise UsageError("missing program: hpcprobe launch --cluster NAME --np P -- "
                         "PROGRAM ARGS…")
    args.program = program


def run_supervised(argv: List[str], extra_env: Dict[str, str],
                   budget_s: Optional[float]) -> Tuple[int, Optional[str]]:
    """(exit status, why it was stopped or None) of `argv` run to its end or stopped."""
    env = dict(os.environ, **extra_env)
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, env=env,
                                   start_new_session=True)
    except OSError as error:
        raise HpcprobeError(f"cannot start {argv[0]!r}: {error}") from None
    stopped = supervise(process, budget_s)
    return process.returncode, stopped


def command_launch(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    cluster = load_cluster(args.cluster)
    system.require_privileges("launch")  # nsenter into the hosts
    launcher = ClusterLauncher(cluster, args.ppn)
    launcher.require_up()
    argv = launcher.command(args.np, [], args.program)
    status, stopped = run_supervised(argv, launcher.env, args.time_budget)
    if stopped == "budget":
        raise HpcprobeError(f"'{args.program[0]}' exceeded its time budget of "
                            f"{args.time_budget:g} s on cluster {args.cluster} and was "
                            "stopped on every host")
    if stopped == "orphaned":
        raise HpcprobeError(f"'{args.program[0]}' lost a launcher process on cluster "
                            f"{args.cluster} and was stopped on every host")
    if status < 0:
        return 128 - status
    return status if status <= 255 else EXIT_RUNTIME_FAILURE
