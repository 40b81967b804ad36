"""The command lines of `hpcprobe contention` and `hpcprobe topology` (docs/cli.md,
docs/kernels/contention.md), built from the bench's description of its contention and
topology families (describe.py, cli_described.py): the variants, every option with its
help, default and grammar, and the check that refuses an option of another variant with
one line before anything is launched. `hpcprobe simulate`'s command line, which the
congestion family shares, is netsim/cli.py.

Benchmark options go to hpcprobe-bench as typed (it validates them together and answers
with its own one line). Only what the bench does not have is declared here: `topology
route`, which hpcprobe answers itself from the network, and --json.
"""

import argparse
from typing import Tuple

from hpcprobe import describe
from hpcprobe.cli_described import (LAUNCH_GIVES, add_described_options,
                                    add_variant_argument, check_described,
                                    described_bench_options, user_options)
from hpcprobe.cli_types import CliParser, add_launch_options, choice
from hpcprobe.errors import UsageError
from hpcprobe.netsim.cli import network_of

# hpcprobe's own action of `hpcprobe topology`: a route on the network, launching nothing.
ROUTE = "route"
# The described topology options `topology route` reads (netsim/cli.py's network_of).
ROUTE_READS = ("torus", "mesh", "wrap")
# hpcprobe's options that only a launch takes (`topology route` refuses them).
_LAUNCH_ONLY = (("np", "--np"), ("launcher", "--launcher"),
                ("time_budget", "--time-budget"), ("launcher_arg", "--launcher-arg"))


def contention_variants() -> Tuple[str, ...]:
    return describe.family("contention").variants()


def topology_actions() -> Tuple[str, ...]:
    """The bench's topology variants (show), then hpcprobe's route."""
    return describe.family("topology").variants() + (ROUTE,)


def add_contention_parser(subparsers) -> CliParser:
    family = describe.family("contention")
    parser = subparsers.add_parser(
        "contention", help="network contention (Bhatele & Kale, Quantifying Network "
                           "Contention on Large Parallel Machines): "
                           + ", ".join(family.variants()))
    add_variant_argument(parser, family)
    add_described_options(parser, family)
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser


def add_topology_parser(subparsers) -> CliParser:
    family = describe.family("topology")
    actions = topology_actions()
    parser = subparsers.add_parser("topology", help="where the ranks sit; hops and routes")
    parser.add_argument("action", nargs="?", type=choice("action", actions),
                        metavar="{" + ",".join(actions) + "}",
                        help="; ".join(f"{k.variant}: {k.summary}" for k in family.kernels)
                        + f"; {ROUTE}: the hops between two nodes of the network, launching "
                          "nothing")
    parser.add_argument("ends", nargs="*", metavar="NODE",
                        help=f"{ROUTE}: two nodes, as an index or coordinates x,y,z")
    add_described_options(parser, family)
    parser.add_argument("--json", action="store_true", help="JSON instead of tables")
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser


# --- checks ------------------------------------------------------------------------------

def check_contention(args: argparse.Namespace) -> None:
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe contention' (allowed: "
                         f"{', '.join(contention_variants())})")
    check_described(args, describe.family("contention"), args.variant)


def check_topology(args: argparse.Namespace) -> None:
    if args.action is None:
        raise UsageError(f"missing action for 'hpcprobe topology' (allowed: "
                         f"{', '.join(topology_actions())})")
    for option in describe.load_description().common_options:
        if option.name in LAUNCH_GIVES and getattr(args, option.dest, None):
            raise UsageError(f"{option.name} does not apply to 'hpcprobe topology': it "
                             "writes no record and prints only the topology")
    if args.action == ROUTE:
        _check_route(args)
        return
    if args.ends:
        raise UsageError(f"unexpected argument '{args.ends[0]}' for 'hpcprobe topology "
                         f"{args.action}' ({ROUTE} takes two nodes)")
    check_described(args, describe.family("topology"), args.action)


def _check_route(args: argparse.Namespace) -> None:
    """Two nodes of a network given; nothing that only a launch reads."""
    if len(args.ends) != 2:
        raise UsageError(f"'hpcprobe topology {ROUTE}' takes two nodes, each an index or "
                         "coordinates such as 0,0,0 and 3,5,7")
    family = describe.family("topology")
    if network_of(args) is None:
        raise UsageError(f"'hpcprobe topology {ROUTE}' needs the network: "
                         f"{family.option('torus').name} DIMS or "
                         f"{family.option('mesh').name} DIMS")
    launched = [(o.dest, o.name) for o in user_options(family) if o.dest not in ROUTE_READS]
    for attribute, option in launched + list(_LAUNCH_ONLY):
        if getattr(args, attribute, None):
            raise UsageError(f"{option} applies to 'hpcprobe topology "
                             f"{'|'.join(family.variants())}' only ({ROUTE} launches nothing)")


def contention_bench_options(args: argparse.Namespace) -> list:
    return described_bench_options(args, describe.family("contention"), args.variant)


def topology_bench_options(args: argparse.Namespace) -> list:
    return described_bench_options(args, describe.family("topology"), args.action)
