"""`hpcprobe screen`: the battery on every node at once, the node pairs, the verdicts
(screen/verdicts.py), the tables, screen.json and the drain lines (docs/screen.md).

Where the nodes come from: --cluster NAME (its hosts), a Slurm allocation
(SLURM_JOB_NUM_NODES; srun gets --nodes and --ntasks-per-node), else this machine alone,
one node. --nodes N takes the first N of them (with --plan, any N: a prediction)."""

import argparse
import os
import socket
from dataclasses import dataclass
from typing import List, Mapping, Sequence, Tuple

from hpcprobe.cli_types import (CliParser, add_launcher_options, float_option, positive_int,
                                positive_seconds)
from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.launching import stdout_console
from hpcprobe.report.blocks import Table as ReportTable
from hpcprobe.report.render import rich_table
from hpcprobe.screen.checks import ALL_CHECKS, DEFAULT_CHECKS, battery_check
from hpcprobe.screen.plan import DEFAULT_BUDGET_S, plan, plan_rows


def add_screen_parser(subparsers) -> CliParser:
    screen = subparsers.add_parser(
        "screen", help="which node of an allocation is slow and which link is bad: a "
        "short battery on every node at once, node pairs, verdicts against the peers and "
        "each node's history, drain lines")
    screen.add_argument("--nodes", type=positive_int("--nodes"), metavar="N",
                        help="screen the first N nodes (default: all of the allocation "
                        "or cluster; with --plan, any N)")
    screen.add_argument("--checks", metavar="LIST", type=check_list,
                        help=f"comma-separated, of {', '.join(ALL_CHECKS)} (default: "
                        f"{','.join(DEFAULT_CHECKS)})")
    screen.add_argument("--time-budget", type=positive_seconds("--time-budget"), metavar="S",
                        default=DEFAULT_BUDGET_S, help="seconds the screen may take, "
                        f"repeats of suspects aside (default {DEFAULT_BUDGET_S:g})")
    screen.add_argument("--repeat-suspects", type=_nonnegative_int, default=1, metavar="K",
                        help="times a suspect node's slow checks (and a pair check that "
                        "found a bad link) are repeated before it is called slow (or the "
                        "link bad) (default 1; 0: a suspect is called slow at once)")
    screen.add_argument("--threshold-z", type=float_option(
        "--threshold-z", "a number > 0", lambda value: value > 0), metavar="Z",
        help="robust z-score beyond which a figure is an outlier (default 3.5)")
    screen.add_argument("--threshold-ratio", type=float_option(
        "--threshold-ratio", "a number in (0, 1)", lambda value: 0 < value < 1),
        metavar="R", help="ratio to the peers' median below which a figure is slow "
        "(default 0.85)")
    screen.add_argument("--plan", action="store_true",
                        help="print the launches and the predicted time; launch nothing")
    screen.add_argument("--history", metavar="PATH|off",
                        help="the history database (default $HPCPROBE_HISTORY, else "
                        "~/.local/share/hpcprobe/history.sqlite); off: none")
    screen.add_argument("--out", metavar="DIR", help="directory for screen.json and the "
                        "records (default results/DATE-TIME)")
    screen.add_argument("--cluster", metavar="NAME",
                        help="screen the hosts of the emulated cluster NAME (docs/cluster.md)")
    add_launcher_options(screen)
    return screen


def _nonnegative_int(text: str) -> int:
    if not text.isdigit():
        raise UsageError(f"--repeat-suspects must be a whole number >= 0, not '{text}'")
    return int(text)


def check_list(text: str) -> List[str]:
    """--checks: known names, each available in this build (else one line why not)."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if not names:
        raise UsageError(f"--checks must name at least one of {', '.join(ALL_CHECKS)}")
    for name in names:
        if name not in ALL_CHECKS:
            raise UsageError(f"unknown check '{name}' for --checks (allowed: "
                             f"{', '.join(ALL_CHECKS)})")
        check = battery_check(name)
        if check is not None and check.missing:
            raise UsageError(f"check '{name}' cannot judge nodes yet: {check.missing} "
                             f"(available: {', '.join(DEFAULT_CHECKS)})")
    return list(dict.fromkeys(names))


def check_screen(args: argparse.Namespace) -> None:
    if args.cluster and args.launcher:
        raise UsageError("--cluster NAME chooses the launcher itself; leave out --launcher")


@dataclass(frozen=True)
class Layout:
    nodes: int
    cores: int   # per node: the battery's ranks per node
    where: str
    # The host names the records will give, where known before launching (a node whose
    # launch fails must still be named: "failed", never left out); () in an allocation.
    hosts: Tuple[str, ...] = ()


def layout_of(args: argparse.Namespace, env: Mapping[str, str]) -> Layout:
    """The nodes to screen and their cores; --nodes beyond them refused (but by --plan)."""
    if args.cluster:
        from hpcprobe.cluster import load_cluster
        hosts = load_cluster(args.cluster, env).hosts
        found, cores, where = len(hosts), hosts[0].cores, f"cluster {args.cluster}"
        names = tuple(host.name for host in hosts)
    elif env.get("SLURM_JOB_ID"):
        found = _count(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or "1")
        cores, where = max(1, allocation_cores(env) // found), "the Slurm allocation"
        names = ()
    else:
        found, cores, where = 1, os.cpu_count() or 1, "this machine"
        names = (socket.gethostname(),)
    nodes = args.nodes or found
    if nodes > found and not args.plan:
        raise UsageError(f"--nodes {nodes}: {where} has {found} node"
                         f"{'s' if found > 1 else ''} (give --plan to predict a larger "
                         "screen)")
    return Layout(nodes, cores, where, names[:nodes])


def _count(text: str) -> int:
    """SLURM_JOB_NUM_NODES as a count (Slurm writes a plain number)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"SLURM_JOB_NUM_NODES must be a node count, not '{text}'")
    return int(text)


def command_screen(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    checks = args.checks or list(DEFAULT_CHECKS)
    layout = layout_of(args, os.environ)
    if args.plan:
        launches = plan(layout.nodes, layout.cores, checks, args.time_budget)
        console = stdout_console()
        console.print(rich_table(_plan_table(launches, layout)))
        console.print(f"predicted: {sum(launch.predicted_s for launch in launches):.0f} s "
                      f"for {layout.nodes} nodes of {layout.cores} cores "
                      f"(budget {args.time_budget:g} s; repeats of suspects aside)")
        return EXIT_OK
    from hpcprobe.screen.run import run_screen
    return run_screen(args, user_argv, layout, checks)


def _plan_table(launches, layout: Layout):
    rows = plan_rows(launches)
    columns = ("check", "ranks", "per node", "predicted", "pairs")
    return ReportTable(f"hpcprobe screen --plan: {layout.nodes} nodes ({layout.where})",
                       list(columns), [[row[column] for column in columns] for row in rows])
