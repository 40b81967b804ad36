"""The command lines of `hpcprobe comm`, `beff` and `pairs`, and `--placement`
(docs/cli.md), built from the bench's description of its comm, beff and pairs families
(describe.py, cli_described.py): the functions (comm's variants), every option with its
help, default and grammar, the check that refuses an option of another function with one
line, and the hpcprobe-bench options they become.

Only what the bench does not have is declared here: comm's function words and --format,
and the launch options. hpcprobe gives the bench some of its options itself: --functions
(from the function words), --timing (by default the one of the layout --format prints),
and --placement with --placement-by (launch/placement.py: the launcher places the ranks
where it can). Checks that need the launch (enough ranks, a --timing that fixes its
repetitions) are the bench's own one line.
"""

import argparse
import os
from typing import Any, List, Tuple

from hpcprobe import describe
from hpcprobe.cli_described import (add_option, bench_values, check_described,
                                    described_bench_options, user_options, variants_taking)
from hpcprobe.cli_types import add_launch_options, choice, unknown
from hpcprobe.errors import UsageError
from hpcprobe.families.comm.peer_formats import PEER_FORMATS
from hpcprobe.launch.placement import ORDERS, PLACEMENT, PLACEMENT_BY, read_placement

COMM_COMMANDS = ("comm", "beff", "pairs")
COMM_HELP = {
    "comm": "IMB-style MPI functions (PingPong ... Barrier) over message sizes",
    "beff": "HPCC's b_eff: ping-pong latency/bandwidth over pairs, natural and random rings",
    "pairs": "bandwidth of every ordered rank pair, and which pairs share a node",
}
# Attributes of the described options hpcprobe gives the bench itself, not as typed:
# the functions from the words, the timing from --format, the placement through the
# launcher (launch/placement.py), which says who placed the ranks.
FUNCTIONS, TIMING = "functions", "timing"
_GIVEN_BY_HPCPROBE = (FUNCTIONS, TIMING, PLACEMENT, PLACEMENT_BY)
BUFFERS = "buffers"  # read: --buffers device without functions runs those that take it
COMM_OUTPUT_FORMATS = ("table",) + PEER_FORMATS


def _has(family: describe.Family, dest: str) -> bool:
    return any(option.dest == dest for option in family.options)


def every_function_variant(family: describe.Family) -> str:
    """comm's variant that runs several functions: the one taking --functions ('all')."""
    return variants_taking(family, family.option(FUNCTIONS).name)[0]


def comm_functions() -> Tuple[str, ...]:
    """The functions `hpcprobe comm` takes: the bench's comm variants but `all`."""
    family = describe.family("comm")
    every = every_function_variant(family)
    return tuple(variant for variant in family.variants() if variant != every)


def device_functions() -> Tuple[str, ...]:
    """The functions whose buffers can live on a GPU (those taking --buffers)."""
    family = describe.family("comm")
    return tuple(variant for variant in variants_taking(family, family.option(BUFFERS).name)
                 if variant in comm_functions())


def default_ranks(cores: int) -> int:
    """Ranks without --np: one per core, at least the two these benchmarks need."""
    return max(2, cores)


def _add_described(parser: Any, family: describe.Family) -> None:
    """The family's described options but those hpcprobe gives itself; --placement as
    add_placement_option's."""
    for option in user_options(family):
        if option.dest not in _GIVEN_BY_HPCPROBE:
            add_option(parser, family, option)
    if _has(family, TIMING):
        add_option(parser, family, family.option(TIMING),
                   prefix="by default the tool whose layout --format prints; ")


def add_placement_option(parser: Any, command: str = "comm") -> None:
    """--placement, as the bench describes it (`hpcprobe run`: as comm's); hpcprobe
    hands it to the launcher where it can, and tells the bench who placed the ranks."""
    family = describe.family(command)
    add_option(parser, family, family.option(PLACEMENT),
               prefix="passed to the launcher where it can, else the bench reorders the "
                      "ranks; ")


def add_comm_parser(subparsers: Any, command: str) -> Any:
    """The parser of `hpcprobe comm`, `beff` or `pairs`."""
    family = describe.family(command)
    parser = subparsers.add_parser(command, help=COMM_HELP[command])
    if command == "comm":
        # Checked after the options (check_comm): "--seed 1" is an unknown option,
        # not an unknown function "1".
        parser.add_argument("functions", nargs="*", metavar="FUNCTION",
                            help="any of " + ", ".join(comm_functions()) + " (default all)")
        parser.add_argument("--format", default="table", type=choice("format", COMM_OUTPUT_FORMATS),
                            help="print the figures in hpcprobe's tables, or in IMB-MPI1's or "
                                 "OSU's layout (osu-full: with min, max and iterations; "
                                 "osu-tail: with P50/P90/P99)")
    _add_described(parser, family)
    add_placement_option(parser, command)
    add_launch_options(parser, default_np="number of CPU cores, at least 2",
                       hpcc_summary=command == "beff")
    return parser


def check_placement_spec(spec: str) -> None:
    """An order, or a file that exists: hpcprobe reads it before the launch, for the
    launcher's arguments (launch/placement.py)."""
    if spec in ORDERS:
        return
    if not spec or not os.path.isfile(spec):
        name = describe.family("comm").option(PLACEMENT).name
        raise UsageError(f"{name} {spec or repr(spec)}: no such file (allowed: "
                         f"{', '.join(ORDERS)}, or a file of lines 'RANK HOST [CPU]')")


def check_comm(args: argparse.Namespace) -> None:
    """--placement (comm, beff, pairs, run); the functions named; each option one the
    chosen variant takes."""
    if args.placement is not None:
        check_placement_spec(args.placement)
        if args.np is not None and args.placement not in ORDERS and args.np > 1:
            read_placement(args.placement, args.np)  # the file must cover every rank
    if args.command == "run":
        return
    if args.command == "comm":
        allowed = comm_functions()
        for name in args.functions:
            if name not in allowed:
                raise unknown("function", name, allowed)
    check_described(_typed(args), describe.family(args.command), comm_bench_variant(args))


def _typed(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments without those hpcprobe gives the bench itself (the function words
    share --functions' attribute)."""
    return argparse.Namespace(**{name: value for name, value in vars(args).items()
                                 if name not in _GIVEN_BY_HPCPROBE})


def on_device(args: argparse.Namespace) -> bool:
    """--buffers device was asked for."""
    return getattr(args, BUFFERS, None) == "device"


def _functions(args: argparse.Namespace) -> List[str]:
    """The functions named, or with --buffers device and none named, those that take it."""
    if not args.functions and on_device(args):
        return list(device_functions())
    return list(args.functions)


def comm_bench_variant(args: argparse.Namespace) -> str:
    """comm: the function when one is named, else `all`; beff and pairs: their one."""
    family = describe.family(args.command)
    if not _has(family, FUNCTIONS):
        return family.variants()[0]
    functions = _functions(args)
    return functions[0] if len(functions) == 1 else every_function_variant(family)


def comm_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from the arguments, passed on as typed, in the bench's
    order; then --functions and --timing as hpcprobe chooses them."""
    family = describe.family(args.command)
    variant = comm_bench_variant(args)
    chosen = {}
    if _has(family, FUNCTIONS) and len(_functions(args)) > 1:
        chosen[FUNCTIONS] = ",".join(_functions(args))
    if _has(family, TIMING):
        chosen[TIMING] = comm_timing(args)
    return described_bench_options(_typed(args), family, variant) + list(
        bench_values(family, variant, chosen))


def comm_timing(args: argparse.Namespace) -> str:
    """--timing as given, else the policy of the tool whose layout --format prints."""
    timing = describe.family("comm").option(TIMING)
    given = getattr(args, timing.dest, None)
    if given:
        return given
    layout = getattr(args, "format", "table")
    return layout.split("-")[0] if layout != "table" else str(timing.default)
