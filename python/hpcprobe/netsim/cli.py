"""The command line of `hpcprobe simulate` (docs/cli.md, docs/kernels/contention.md), which
the contention family and the congestion family share: the topology options every
network-placing command takes (the bench's, from its description), the simulator's parser
and its checks. Shared, so that
neither family imports the other: a family adds its own patterns through
add_simulate_parser's `extra_patterns` and checks and runs them itself."""

import argparse
from typing import Any, Callable, Optional, Sequence, Tuple

from hpcprobe import describe
from hpcprobe.cli_grammars import argparse_type, expand_sizes, metavar
from hpcprobe.cli_types import (CliParser, choice, distance_list, nonnegative_seconds,
                                positive_number)
from hpcprobe.describe import Option
from hpcprobe.errors import UsageError
from hpcprobe.netsim.network import Network, make_network, parse_shape
from hpcprobe.netsim.patterns import PATTERNS, RA_PATTERNS
from hpcprobe.netsim.tree import Tree, parse_tree

# The bench's options whose meaning the simulator shares, by attribute, with the family
# that describes them: their flags, grammars and help are the bench's (describe.py), so a
# network is given to `simulate` as to `contention` and a look-ahead as to `ra`. The
# simulator reads each value as the converter gives it.
TOPOLOGY = ("torus", "mesh", "wrap", "ranks_per_node", "coords")
_DESCRIBED = {**{dest: "contention" for dest in TOPOLOGY + ("sizes", "seed", "axis",
                                                             "distance", "max_pairs")},
              "lookahead": "ra", "grid": "ra"}
DEFAULT_SIZES = (32, 1024, 16384)  # paper 004's Table 1


def described(dest: str) -> Option:
    """The bench option the simulator shares under attribute `dest`."""
    return describe.family(_DESCRIBED[dest]).option(dest)


def option_name(dest: str) -> str:
    return described(dest).name


def _add_described(parser: CliParser, dest: str, prefix: str = "",
                   convert: Callable[[str], Any] = str, default: str = "",
                   about: str = "") -> None:
    """The shared option: the bench's grammar and range, then `convert` of its text; its
    help the bench's unless `about` says what it means to the simulator."""
    option = described(dest)
    check = argparse_type(option, option.min, option.max)
    text = prefix + (about or option.help) + (f" (default {default})" if default else "")
    parser.add_argument(option.name, dest=option.dest, metavar=metavar(option),
                        type=lambda value: convert(check(value)), help=text.replace("%", "%%"))


def add_topology_options(parser: CliParser) -> None:
    for dest in TOPOLOGY:
        _add_described(parser, dest)


def add_simulate_parser(subparsers, extra_patterns: Sequence[str] = ()) -> CliParser:
    """The simulator's parser; `extra_patterns` are those a family above adds (and
    checks and runs itself)."""
    parser = subparsers.add_parser("simulate",
                                   help="predict contention on a torus, mesh or two-level tree")
    found = tuple(PATTERNS) + tuple(extra_patterns)
    parser.add_argument("pattern", nargs="?", type=choice("pattern", found),
                        metavar="PATTERN", help=", ".join(found))
    add_topology_options(parser)
    _add_described(parser, "sizes", convert=expand_sizes,
                   default=",".join(map(str, DEFAULT_SIZES)) + ": Table 1")
    parser.add_argument("--tree", metavar="LxH",
                        help="a two-level tree: L leaf switches of H hosts, one uplink each")
    parser.add_argument("--link-bandwidth", type=positive_number("--link-bandwidth", "bytes/s"),
                        metavar="B/S", help="per link and direction (default 425e6, BG/P)")
    parser.add_argument("--uplink-bandwidth",
                        type=positive_number("--uplink-bandwidth", "bytes/s"), metavar="B/S",
                        help="--tree: each uplink's, per direction (default the links')")
    parser.add_argument("--flit-bytes", type=_flit, metavar="B",
                        help="L_f of eq. 1 (default 32)")
    parser.add_argument("--hop-latency", type=nonnegative_seconds("--hop-latency"),
                        metavar="S", help="a fixed delay per hop (default 0, as eq. 1)")
    _add_described(parser, "seed", "wicon-rnd: ", int, "1", "the matching's seed")
    _add_described(parser, "axis", "stress-link, equidistant, wicon-nn-torus: ", int)
    _add_described(parser, "distance", "equidistant: ", distance_list)
    _add_described(parser, "max_pairs", "stress-link: ", int)
    _add_described(parser, "lookahead", "ra-*: ", int, "1024", "updates per rank per step")
    _add_described(parser, "grid", "ra-torus: ", _shape, "as MPI_Dims_create",
                   "the virtual grid, its sizes multiplying to the ranks")
    parser.add_argument("--compare", nargs="+", metavar="FILE|DIR",
                        help="contention records to put beside their prediction")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    return parser


def _shape(text: str) -> Tuple[int, ...]:
    return parse_shape(text) or ()


def _flit(text: str) -> float:
    return positive_number("--flit-bytes", "bytes")(text) if text != "0" else 0.0


# --- checks ------------------------------------------------------------------------------

def network_of(args: argparse.Namespace) -> Optional[Network]:
    """The --torus/--mesh network (with --wrap), the --tree (simulate), or None when
    none was given."""
    tree = getattr(args, "tree", None)
    if sum(bool(x) for x in (args.torus, args.mesh, tree)) > 1:
        raise UsageError("--torus, --mesh and --tree are alternatives (allowed: one, with "
                         "--wrap for a mixed grid)")
    if tree:
        if args.wrap is not None:
            raise UsageError("--wrap applies to --torus and --mesh; a tree has no wraparound")
        try:
            return Tree.of(*parse_tree(tree))
        except ValueError as error:
            raise UsageError(str(error)) from None
    if not (args.torus or args.mesh):
        if args.wrap is not None:
            raise UsageError("--wrap needs the dims: give --torus DIMS or --mesh DIMS with it")
        return None
    try:
        return make_network("torus" if args.torus else "mesh", args.torus or args.mesh,
                            args.wrap)
    except ValueError as error:
        raise UsageError(str(error)) from None


# Simulator options that only some patterns take.
_SIM_ONLY = (
    ("seed", ("wicon-rnd",)),
    ("axis", ("stress-link", "equidistant", "wicon-nn-torus")),
    ("distance", ("equidistant",)),
    ("max_pairs", ("stress-link",)),
    ("lookahead", RA_PATTERNS),
    ("grid", ("ra-torus",)),
    ("sizes", tuple(p for p in PATTERNS if p not in RA_PATTERNS)),
)


def check_simulate(args: argparse.Namespace) -> None:
    if args.compare:
        given = [option_name(dest) for dest in TOPOLOGY + tuple(d for d, _ in _SIM_ONLY)
                 if getattr(args, dest) is not None]
        given += ["--tree"] if args.tree is not None else []
        if args.pattern is not None or given:
            what = f"'{args.pattern}'" if args.pattern else given[0]
            raise UsageError(f"--compare takes the pattern and topology from the records; "
                             f"{what} does not go with it (allowed: --link-bandwidth, "
                             "--uplink-bandwidth, --flit-bytes, --hop-latency, --json)")
        return
    if args.pattern is None:
        raise UsageError(f"missing pattern for 'hpcprobe simulate' (allowed: "
                         f"{', '.join(PATTERNS)}), or --compare FILE|DIR")
    for dest, patterns in _SIM_ONLY:
        if getattr(args, dest) is not None and args.pattern not in patterns:
            raise UsageError(f"{option_name(dest)} applies to 'hpcprobe simulate "
                             f"{'|'.join(patterns)}' only, not to '{args.pattern}'")
    if args.coords is not None:
        raise UsageError("--coords applies to 'hpcprobe contention' and 'topology show'; the "
                         "simulator places nodes in row-major order (compare a measured "
                         "placement with --compare)")
    args.network = network_of(args)
    if args.network is None:
        raise UsageError("'hpcprobe simulate' needs the network: --torus DIMS, --mesh DIMS "
                         "or --tree LxH")
    if args.uplink_bandwidth is not None and not isinstance(args.network, Tree):
        raise UsageError("--uplink-bandwidth applies to --tree LxH only (a torus or mesh "
                         "has one link bandwidth: --link-bandwidth)")
