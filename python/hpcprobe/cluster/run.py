"""`hpcprobe launch --cluster NAME --np P [--ppn K] [--time-budget S] -- PROGRAM ARGS…`:
any MPI program on a cluster's hosts. Its output passes straight through; it is watched
as the runner watches a benchmark (every process found by parentage, hpcprobe their
subreaper), so a time budget or a signal stops it on every host.

`hpcprobe cluster exec --name NAME [--host H] -- COMMAND…`: a command on the cluster's
head (its login node) or one host, with the settings a launch there gets (MPI's
transport, what the records say of the cluster), hydra's host file and launcher (so a
plain `mpiexec` reaches the hosts; Open MPI's is refused: exec_env.py) and, with `up
--slurm`, SLURM_CONF: so `salloc`, `sbatch` and `srun` reach the cluster's controller."""

import argparse
import os
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_types import CliParser, positive_int, positive_seconds
import hpcprobe.cluster.cgroups as cgroups
import hpcprobe.cluster.system as system
from hpcprobe.cluster.exec_env import exec_env
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


def _command_words(words: Sequence[str], missing: str) -> List[str]:
    """The command after an optional `--`; UsageError `missing` when there is none."""
    words = list(words)
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        raise UsageError(missing)
    return words


def check_launch(args: argparse.Namespace) -> None:
    args.program = _command_words(args.program, "missing program: hpcprobe launch --cluster "
                                                "NAME --np P -- PROGRAM ARGS…")


def check_exec(args: argparse.Namespace) -> None:
    args.exec_command = _command_words(args.exec_command, "missing command: hpcprobe "
                                       "cluster exec --name NAME [--host H] -- COMMAND ARGS…")


def _exit_status(status: int) -> int:
    if status < 0:
        return 128 - status
    return status if status <= 255 else EXIT_RUNTIME_FAILURE


def command_exec(name: str, host_key: Optional[str], command: List[str]) -> int:
    """Become the command, in the host's namespaces: it keeps the terminal (a shell or
    `salloc` on the login node is interactive), its signals and its exit status."""
    cluster = load_cluster(name)
    system.require_privileges("cluster exec")  # nsenter into the hosts
    launcher = ClusterLauncher(cluster)
    launcher.require_up()
    host = cluster.head if host_key is None else cluster.host(host_key)
    env = dict(os.environ, **launcher.env)
    # A plain mpiexec there reaches the hosts (hydra) or is refused (docs/cluster.md).
    env.update(exec_env(cluster, launcher.flavour, launcher.executable,
                        launcher.enter_program, env))
    if cluster.slurm_conf:  # salloc, srun and sinfo find the cluster's controller
        env["SLURM_CONF"] = cluster.slurm_conf
    argv = ["nsenter", "-t", str(host.holder_pid), "--net", "--uts", "--mount",
            f"--wd={os.getcwd()}", "--", *command]
    cgroups.join(host)  # a throttled host's command is throttled too
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as error:
        raise HpcprobeError(f"cannot run nsenter: {error}") from None
    return EXIT_RUNTIME_FAILURE  # not reached: exec replaced this process


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
    return _exit_status(status)
