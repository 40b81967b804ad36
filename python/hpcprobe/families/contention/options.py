"""The command lines of `hpcprobe contention` and `hpcprobe topology` (docs/cli.md,
docs/kernels/contention.md): their parsers, and the checks that refuse an option of another
variant with one line before anything is launched. The topology options and `hpcprobe
simulate`'s command line, which the congestion family shares, are netsim/cli.py.

Benchmark options go to hpcprobe-bench as typed (it validates the values and answers with
its own one line); the simulator's are checked here, since only hpcprobe uses them.
"""

import argparse
from typing import Tuple

from hpcprobe.cli_types import (
    CliParser,
    add_launch_options,
    choice,
)
from hpcprobe.errors import UsageError
from hpcprobe.netsim.cli import add_topology_options, network_of
from hpcprobe.launch.kernels import variants

# The variants come from `hpcprobe-bench list` (contention_variants()); these are offered
# when the bench cannot be asked (launch/kernels.py).
CONTENTION_VARIANTS = ("wocon", "wicon", "stress-link", "equidistant")
TOPOLOGY_ACTIONS = ("show", "route")
PAIRINGS = ("nn", "nn-torus", "rnd")
AXIS_VARIANTS = ("wicon", "stress-link", "equidistant")
_ALL = CONTENTION_VARIANTS
# (attribute, option, metavar, the variants that take it, help): passed to the bench.
CONTENTION_VALUE_OPTIONS = (
    ("sizes", "--sizes", "LIST", _ALL,
     "message sizes, increasing (bench default 16,64,256,1K,4K,16K,64K,256K,1M)"),
    ("repeat", "--repeat", "R", _ALL, "timed repetitions per size (bench default 5)"),
    ("warmup", "--warmup", "W", _ALL, "untimed repetitions before them (bench default 1)"),
    ("messages", "--messages", "M", _ALL,
     "messages per burst or ping-pongs per destination (bench default 50)"),
    ("pairs", "--pairs", "nn|nn-torus|rnd", ("wicon",),
     "partners differ by one, are grid neighbours, or a seeded random matching (default rnd)"),
    ("seed", "--seed", "S", ("wicon",), "seed of --pairs rnd (default 1)"),
    ("axis", "--axis", "K", AXIS_VARIANTS, "the axis (0 = x; default the longest)"),
    ("max_pairs", "--max-pairs", "K", ("stress-link",), "stop after K pairs (default all)"),
    ("distance", "--distance", "LIST", ("equidistant",),
     "hop distances: N, A..B or a list (default 1 to the largest)"),
)


def contention_variants() -> Tuple[str, ...]:
    return variants("contention", CONTENTION_VARIANTS)


def add_contention_parser(subparsers) -> CliParser:
    parser = subparsers.add_parser(
        "contention", help="network contention (Bhatele & Kale, Quantifying Network "
                           "Contention on Large Parallel Machines): wocon, wicon, "
                           "stress-link, equidistant")
    found = contention_variants()
    parser.add_argument("variant", nargs="?", type=choice("variant", found),
                        metavar="{" + ",".join(found) + "}")
    for attribute, option, metavar, words, text in CONTENTION_VALUE_OPTIONS:
        where = "" if words == _ALL else f"{', '.join(words)}: "
        parser.add_argument(option, dest=attribute, metavar=metavar, help=where + text)
    add_topology_options(parser)
    parser.add_argument("--no-verify", action="store_true", help="skip the message checks")
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser


def add_topology_parser(subparsers) -> CliParser:
    parser = subparsers.add_parser("topology", help="where the ranks sit; hops and routes")
    parser.add_argument("action", nargs="?", type=choice("action", TOPOLOGY_ACTIONS),
                        metavar="{show,route}")
    parser.add_argument("ends", nargs="*", metavar="NODE",
                        help="route: two nodes, as an index or coordinates x,y,z")
    add_topology_options(parser)
    parser.add_argument("--json", action="store_true", help="JSON instead of tables")
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser


# --- checks ------------------------------------------------------------------------------

def check_contention(args: argparse.Namespace) -> None:
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe contention' (allowed: "
                         f"{', '.join(contention_variants())})")
    for attribute, option, _, words, _ in CONTENTION_VALUE_OPTIONS:
        if getattr(args, attribute) is not None and args.variant not in words:
            raise UsageError(f"{option} applies to 'hpcprobe contention {'|'.join(words)}' "
                             f"only, not to 'contention {args.variant}'")


def check_topology(args: argparse.Namespace) -> None:
    if args.action is None:
        raise UsageError("missing action for 'hpcprobe topology' (allowed: show, route)")
    if args.action == "show" and args.ends:
        raise UsageError(f"unexpected argument '{args.ends[0]}' for 'hpcprobe topology show' "
                         "(route takes two nodes)")
    for attribute, option in (("out", "--out"), ("quiet", "--quiet")):
        if getattr(args, attribute):
            raise UsageError(f"{option} does not apply to 'hpcprobe topology': it writes no "
                             "record and prints only the topology")
    if args.action == "route":
        if len(args.ends) != 2:
            raise UsageError("'hpcprobe topology route' takes two nodes, each an index or "
                             "coordinates such as 0,0,0 and 3,5,7")
        if network_of(args) is None:
            raise UsageError("'hpcprobe topology route' needs the network: --torus DIMS or "
                             "--mesh DIMS")
        for attribute, option in (("np", "--np"), ("coords", "--coords"),
                                  ("ranks_per_node", "--ranks-per-node"),
                                  ("launcher", "--launcher"), ("time_budget", "--time-budget"),
                                  ("launcher_arg", "--launcher-arg")):
            if getattr(args, attribute):
                raise UsageError(f"{option} applies to 'hpcprobe topology show' only (route "
                                 "launches nothing)")


