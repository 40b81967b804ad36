"""The command lines of `hpcprobe comm`, `beff` and `pairs`, and `--placement`
(docs/cli.md): the parsers, their checks, and the hpcprobe-bench
options they become. Values the bench validates (sizes, times) go to it
as typed; what only hpcprobe uses (function names, placement files) is checked here."""

import argparse
import os
from typing import Any, List, Optional, Sequence, Tuple

from hpcprobe.cli_types import add_launch_options, choice, unknown
from hpcprobe.errors import UsageError
from hpcprobe.launch.kernels import variants
from hpcprobe.families.comm.peer_formats import PEER_FORMATS
from hpcprobe.launch.placement import ORDERS, read_placement

# IMB-MPI1's order (docs/kernels/comm.md); PingPong and PingPing need two ranks. The
# functions come from `hpcprobe-bench list` (comm_functions()); these are offered when the
# bench cannot be asked (launch/kernels.py).
COMM_FUNCTIONS = ("pingpong", "pingping", "sendrecv", "exchange", "allreduce", "reduce",
                  "reduce_scatter", "allgather", "allgatherv", "gather", "scatter",
                  "alltoall", "alltoallv", "bcast", "barrier")
TWO_RANK_FUNCTIONS = ("pingpong", "pingping")
# --buffers device: the functions (and `pairs`) whose buffers can live on a GPU; `hpcprobe
# comm --buffers device` without functions runs these.
DEVICE_FUNCTIONS = ("pingpong", "allreduce", "alltoall")
BUFFERS = ("host", "device")
COMM_COMMANDS = ("comm", "beff", "pairs")
# The bench variant each command runs (comm: a function, or `all`).
BENCH_VARIANTS = {"beff": "hpcc", "pairs": "bandwidth"}
COMM_HELP = {
    "comm": "IMB-style MPI functions (PingPong ... Barrier) over message sizes",
    "beff": "HPCC's b_eff: ping-pong latency/bandwidth over pairs, natural and random rings",
    "pairs": "bandwidth of every ordered rank pair, and which pairs share a node",
}
# (attribute, option, metavar, the commands that take it, help): passed as typed.
COMM_VALUE_OPTIONS = (
    ("sizes", "--sizes", "LIST", ("comm",),
     "message sizes in bytes: SIZE or A..B (A, 2A, 4A ... B) items, comma separated, "
     "increasing; K, M, G suffixes (default 0..4M)"),
    ("time_per_size", "--time-per-size", "S", ("comm",),
     "seconds of timed calls per size, after a warm-up (default 0.1)"),
    ("seed", "--seed", "N", ("beff",), "seed of the random ring orderings (default 1)"),
    ("latency_pairs_time", "--latency-pairs-time", "S", ("beff",),
     "seconds for the latency ping-pong pairs; fewer pairs on many ranks (HPCC: 10)"),
    ("bandwidth_pairs_time", "--bandwidth-pairs-time", "S", ("beff",),
     "seconds for the bandwidth ping-pong pairs (HPCC: 30)"),
    ("size", "--size", "SIZE", ("pairs",), "message size (default 4M)"),
    ("messages", "--messages", "N", ("pairs",), "timed messages per transfer (default 4)"),
    ("repeat", "--repeat", "N", ("pairs",),
     "runs of the whole schedule; the matrix holds each pair's median (default 3)"),
)
COMM_FLAG_OPTIONS = (
    ("off_cache", "--off-cache", "rotate buffers through twice the last-level cache"),
    ("check", "--check", "check the data of every timed call (default: one call per size)"),
    ("np_sweep", "--np-sweep", "also on 2, 4, 8 ... ranks (sub-communicators), like IMB's "
                               "-npmin 2"),
)


# comm --timing: whose repetition and timing policy (docs/kernels/comm.md); by default
# the one of the tool whose layout --format prints.
TIMINGS = ("hpcprobe", "imb", "osu")
COMM_OUTPUT_FORMATS = ("table",) + PEER_FORMATS


def comm_functions() -> Tuple[str, ...]:
    """The functions `hpcprobe comm` takes: the bench's comm variants but `all`."""
    return tuple(name for name in variants("comm", ("all",) + COMM_FUNCTIONS) if name != "all")


def default_ranks(cores: int) -> int:
    """Ranks without --np: one per core, at least the two these benchmarks need."""
    return max(2, cores)


def _add_bench_options(parser: Any, command: str) -> None:
    for attribute, option, metavar, commands, text in COMM_VALUE_OPTIONS:
        if command in commands:
            parser.add_argument(option, dest=attribute, metavar=metavar, help=text)
    if command == "comm":
        for attribute, option, text in COMM_FLAG_OPTIONS:
            parser.add_argument(option, dest=attribute, action="store_true", help=text)
        parser.add_argument("--format", default="table", type=choice("format", COMM_OUTPUT_FORMATS),
                            help="print the figures in hpcprobe's tables, or in IMB-MPI1's or "
                                 "OSU's layout (osu-full: with min, max and iterations; "
                                 "osu-tail: with P50/P90/P99)")
        parser.add_argument("--timing", type=choice("timing", TIMINGS),
                            help="repeat and time each size as hpcprobe, IMB-MPI1 or OSU does "
                                 "(default: the tool whose layout --format prints, else "
                                 "hpcprobe)")


def _add_buffers_option(parser: Any, command: str) -> None:
    if command in ("comm", "pairs"):
        parser.add_argument("--buffers", type=choice("buffers", BUFFERS), metavar="host|device",
                            help="where the messages live: host memory (default) or the GPU "
                                 "(each rank the node-local rank %% devices); device: MPI "
                                 "gets the device pointers when it is CUDA-aware, else each "
                                 "call is staged through pinned host memory and the times "
                                 "include the copies (comm: " + ", ".join(DEVICE_FUNCTIONS)
                                 + ")")


def add_placement_option(parser: Any) -> None:
    parser.add_argument("--placement", metavar="block|round-robin|FILE",
                        help="where the ranks run: consecutive ranks on one node (block), on "
                             "different nodes in turn (round-robin), or per a file of lines "
                             "'RANK HOST [CPU]'; passed to the launcher where it can")


def add_comm_parser(subparsers: Any, command: str) -> Any:
    """The parser of `hpcprobe comm`, `beff` or `pairs`."""
    parser = subparsers.add_parser(command, help=COMM_HELP[command])
    if command == "comm":
        # Checked after the options (check_comm): "--seed 1" is an unknown option,
        # not an unknown function "1".
        parser.add_argument("functions", nargs="*", metavar="FUNCTION",
                            help="any of " + ", ".join(comm_functions()) + " (default all)")
    _add_bench_options(parser, command)
    _add_buffers_option(parser, command)
    add_placement_option(parser)
    add_launch_options(parser, default_np="number of CPU cores, at least 2",
                       hpcc_summary=command == "beff")
    return parser


def check_placement_spec(spec: str) -> None:
    """An order, or a file that exists (it is read for each launch's rank count)."""
    if spec in ORDERS:
        return
    if not spec or not os.path.isfile(spec):
        raise UsageError(f"--placement {spec or repr(spec)}: no such file (allowed: "
                         f"{', '.join(ORDERS)}, or a file of lines 'RANK HOST [CPU]')")


def check_comm(args: argparse.Namespace) -> None:
    """--placement (comm, beff, pairs, run); ranks enough for the benchmark."""
    if args.placement is not None:
        check_placement_spec(args.placement)
        if args.np is not None and args.placement not in ORDERS and args.np > 1:
            read_placement(args.placement, args.np)  # the file must cover every rank
    if args.command == "run":
        return
    if args.command == "comm":
        _check_functions(args.functions, args.np)
        _check_timing(args)
        _check_device_functions(args)
    if args.command in ("beff", "pairs") and args.np == 1:
        raise UsageError(f"{args.command} measures between ranks: it needs --np 2 or more, not 1")


def _check_timing(args: argparse.Namespace) -> None:
    """IMB and OSU fix their repetitions and check as they do: hpcprobe's budget and
    --check belong to its own policy (the bench refuses them too)."""
    timing = comm_timing(args)
    for attribute, option in (("time_per_size", "--time-per-size"), ("check", "--check")):
        if timing != "hpcprobe" and getattr(args, attribute, None):
            raise UsageError(f"{option} does not apply to --timing {timing} (it repeats and "
                             f"checks as {timing} does; allowed with --timing hpcprobe)")


def on_device(args: argparse.Namespace) -> bool:
    """--buffers device was asked for."""
    return getattr(args, "buffers", None) == "device"


def _check_device_functions(args: argparse.Namespace) -> None:
    """--buffers device: only the functions that take it (the bench refuses the others)."""
    other = [name for name in args.functions if name not in DEVICE_FUNCTIONS]
    if on_device(args) and other:
        raise UsageError(f"--buffers device applies to {', '.join(DEVICE_FUNCTIONS)}, not "
                         f"to comm {other[0]}")


def _functions(args: argparse.Namespace) -> List[str]:
    """The functions named, or with --buffers device and none named, those that take it."""
    if not args.functions and on_device(args):
        return list(DEVICE_FUNCTIONS)
    return list(args.functions)


def _check_functions(functions: Sequence[str], np: Optional[int]) -> None:
    allowed = comm_functions()
    for name in functions:
        if name not in allowed:
            raise unknown("function", name, allowed)
    if np == 1:
        named = [name for name in functions if name in TWO_RANK_FUNCTIONS]
        if named:
            raise UsageError(f"comm {named[0]} needs at least 2 ranks, --np 1 given (allowed: "
                             "--np 2 or more)")


def comm_bench_variant(args: argparse.Namespace) -> str:
    """comm: the function when one is named, else `all`; beff and pairs: their variant."""
    if args.command != "comm":
        return BENCH_VARIANTS[args.command]
    functions = _functions(args)
    return functions[0] if len(functions) == 1 else "all"


def comm_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from the arguments, passed on as typed."""
    options: List[str] = []
    for attribute, option, *_ in COMM_VALUE_OPTIONS:
        value = getattr(args, attribute, None)
        if value is not None:
            options += [option, value]
    for attribute, option, _ in COMM_FLAG_OPTIONS:
        if getattr(args, attribute, False):
            options.append(option)
    if args.command == "comm" and len(_functions(args)) > 1:
        options += ["--functions", ",".join(_functions(args))]
    if args.command == "comm":
        options += ["--timing", comm_timing(args)]
    if getattr(args, "buffers", None):
        options += ["--buffers", args.buffers]
    return options


def comm_timing(args: argparse.Namespace) -> str:
    """--timing as given, else the policy of the tool whose layout --format prints."""
    if getattr(args, "timing", None):
        return args.timing
    layout = getattr(args, "format", "table")
    return layout.split("-")[0] if layout != "table" else "hpcprobe"
