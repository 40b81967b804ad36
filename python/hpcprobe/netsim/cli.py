"""The command line of `hpcprobe simulate` (docs/cli.md, docs/kernels/contention.md), which
the contention family and the congestion family share: the topology options every
network-placing command takes, the simulator's parser and its checks. Shared, so that
neither family imports the other: a family adds its own patterns through
add_simulate_parser's `extra_patterns` and checks and runs them itself."""

import argparse
from typing import Optional, Sequence, Tuple

from hpcprobe.cli_types import (CliParser, byte_sizes, choice, distance_list, nonnegative_int,
                                nonnegative_seconds, positive_int, positive_number)
from hpcprobe.errors import UsageError
from hpcprobe.netsim.network import Network, make_network, parse_shape
from hpcprobe.netsim.patterns import PATTERNS, RA_PATTERNS
from hpcprobe.netsim.tree import Tree, parse_tree

# Where the ranks sit (every variant, `topology show`).
TOPOLOGY_VALUE_OPTIONS = (
    ("torus", "--torus", "DIMS", "a torus of these sizes, e.g. 8x8x16"),
    ("mesh", "--mesh", "DIMS", "a mesh (no wraparound links)"),
    ("wrap", "--wrap", "LIST", "wraparound per dimension, e.g. 0,0,1 (with --torus/--mesh)"),
    ("ranks_per_node", "--ranks-per-node", "N",
     "emulate nodes of N consecutive ranks (default: the real nodes)"),
    ("coords", "--coords", "FILE|slurm",
     "coordinates from a CSV of rank,x,y,... or Slurm's SLURM_TOPOLOGY_ADDR"),
)
DEFAULT_SIZES = (32, 1024, 16384)  # paper 004's Table 1
MAX_LOOKAHEAD = 32768


def add_topology_options(parser: CliParser) -> None:
    for attribute, option, metavar, text in TOPOLOGY_VALUE_OPTIONS:
        parser.add_argument(option, dest=attribute, metavar=metavar, help=text)


def _lookahead(text: str) -> int:
    value = positive_int("--lookahead")(text)
    if value > MAX_LOOKAHEAD:
        raise UsageError(f"--lookahead must be at most {MAX_LOOKAHEAD}, not '{text}'")
    return value


def _grid(text: str) -> Tuple[int, ...]:
    shape = parse_shape(text)
    if shape is None:
        raise UsageError(f"--grid takes sizes joined by 'x' such as 4x4x2, not '{text}'")
    return shape


def add_simulate_parser(subparsers, extra_patterns: Sequence[str] = ()) -> CliParser:
    """The simulator's parser; `extra_patterns` are those a family above adds (and
    checks and runs itself)."""
    parser = subparsers.add_parser("simulate",
                                   help="predict contention on a torus, mesh or two-level tree")
    found = tuple(PATTERNS) + tuple(extra_patterns)
    parser.add_argument("pattern", nargs="?", type=choice("pattern", found),
                        metavar="PATTERN", help=", ".join(found))
    add_topology_options(parser)
    parser.add_argument("--sizes", type=byte_sizes("--sizes"), metavar="LIST",
                        help="message sizes (default 32,1024,16384: Table 1)")
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
    parser.add_argument("--seed", type=nonnegative_int("--seed"), metavar="S",
                        help="wicon-rnd: the matching's seed (default 1)")
    parser.add_argument("--axis", type=nonnegative_int("--axis"), metavar="K",
                        help="stress-link, equidistant, wicon-nn-torus (default the longest)")
    parser.add_argument("--distance", type=distance_list, metavar="LIST",
                        help="equidistant: hop distances (default 1 to the largest)")
    parser.add_argument("--max-pairs", type=positive_int("--max-pairs"), metavar="K",
                        help="stress-link: stop after K pairs")
    parser.add_argument("--lookahead", type=_lookahead, metavar="Q",
                        help="ra-*: updates per rank per step (default 1024)")
    parser.add_argument("--grid", type=_grid, metavar="AxBxC",
                        help="ra-torus: the virtual grid (default as MPI_Dims_create)")
    parser.add_argument("--compare", nargs="+", metavar="FILE|DIR",
                        help="contention records to put beside their prediction")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    return parser


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
    ("seed", "--seed", ("wicon-rnd",)),
    ("axis", "--axis", ("stress-link", "equidistant", "wicon-nn-torus")),
    ("distance", "--distance", ("equidistant",)),
    ("max_pairs", "--max-pairs", ("stress-link",)),
    ("lookahead", "--lookahead", RA_PATTERNS),
    ("grid", "--grid", ("ra-torus",)),
    ("sizes", "--sizes", tuple(p for p in PATTERNS if p not in RA_PATTERNS)),
)


def check_simulate(args: argparse.Namespace) -> None:
    if args.compare:
        given = [option for attribute, option, _, _ in TOPOLOGY_VALUE_OPTIONS
                 if getattr(args, attribute) is not None]
        given += [option for attribute, option, _ in _SIM_ONLY
                  if getattr(args, attribute) is not None]
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
    for attribute, option, patterns in _SIM_ONLY:
        if getattr(args, attribute) is not None and args.pattern not in patterns:
            raise UsageError(f"{option} applies to 'hpcprobe simulate {'|'.join(patterns)}' "
                             f"only, not to '{args.pattern}'")
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
