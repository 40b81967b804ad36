"""The command line of `hpcprobe gpu stream|ra|copy|info` (docs/cli.md, docs/kernels/gpu.md):
its parser, the check that refuses an option of another variant with one line, and the
hpcprobe-bench options it becomes.

Words from a fixed list (--algo, --host-memory, --kinds) and counts are checked here, so a
typo is refused before the bench is asked anything; sizes, the device's index and the
table size go to the bench as typed (it checks them against the device and answers with
its own one line). --devices is hpcprobe's alone: how many ranks `gpu stream` launches."""

import argparse
from typing import Callable, Dict, List

from hpcprobe.cli_types import (CliParser, add_launch_options, checked_as_typed, choice,
                                float_option, is_count, nonnegative_int, positive_int,
                                suggestion)
from hpcprobe.errors import UsageError

GPU_VARIANTS = ("stream", "ra", "copy", "info")
RA_ALGORITHMS = ("atomic", "plain")
COPY_KINDS = ("h2d", "d2h", "d2d", "p2p")
HOST_MEMORY = ("pinned", "pageable", "both")
_LAUNCHED = ("stream", "ra", "copy")

# (attribute, option, metavar, the variants that take it, help): passed to the bench as typed.
GPU_VALUE_OPTIONS = (
    ("algo", "--algo", "atomic|plain", ("ra",),
     "atomic XOR updates (default) or plain read-modify-write (HPCC allows 1 %% of words wrong)"),
    ("device", "--device", "N", _LAUNCHED,
     "the device each rank drives (default: the node-local rank modulo the devices)"),
    ("array_bytes", "--array-bytes", "SIZE", ("stream",),
     "bytes per array (bench default: 4x the L2 or more, 3 arrays in --memory-fraction "
     "of free device memory)"),
    ("table_log2", "--table-log2", "L", ("ra",),
     "table of 2^L 64-bit words (bench default: the largest in --memory-fraction)"),
    ("memory_fraction", "--memory-fraction", "F", ("stream", "ra"),
     "share of free device memory the arrays or the table may take"),
    ("streams", "--streams", "S", ("ra",),
     "generator streams, one device thread each (bench default: fills the device)"),
    ("kinds", "--kinds", "LIST", ("copy",),
     f"copies, a comma list of {', '.join(COPY_KINDS)} (default: every kind the node has)"),
    ("host_memory", "--host-memory", "|".join(HOST_MEMORY), ("copy",),
     "host buffers page-locked, pageable, or each (default: both)"),
    ("peer", "--peer", "N", ("copy",), "the other device of p2p copies"),
    ("max_bytes", "--max-bytes", "SIZE", ("copy",),
     "largest copy; sizes from 8 B, x4, and this one (default 1G)"),
    ("repeat", "--repeat", "N", _LAUNCHED, "timed repetitions"),
    ("warmup", "--warmup", "N", ("stream", "ra"), "untimed repetitions first"),
)
GPU_FLAG_OPTIONS = (("no_verify", "--no-verify", ("stream", "ra")),)
# Launch options `gpu info` does not take: it asks this node's devices, launching nothing.
_LAUNCH_ATTRIBUTES = (("np", "--np"), ("out", "--out"), ("launcher", "--launcher"),
                      ("time_budget", "--time-budget"), ("cluster", "--cluster"),
                      ("ppn", "--ppn"), ("devices", "--devices"))


def name_list(option: str, allowed: List[str]) -> Callable[[str], str]:
    """argparse type: a comma list of names from `allowed`, each once; kept as text."""
    def parse(text: str) -> str:
        words = text.split(",")
        for index, word in enumerate(words):
            if word not in allowed:
                raise UsageError(f"{option} '{text}': unknown '{word}'"
                                 f"{suggestion(word, allowed)} (allowed: a comma list of "
                                 f"{', '.join(allowed)})")
            if word in words[:index]:
                raise UsageError(f"{option} '{text}' names '{word}' twice")
        return text
    return parse


def devices_option(text: str) -> str:
    """--devices: "all" or a count >= 1, kept as text."""
    if text != "all" and not (is_count(text) and int(text) >= 1):
        raise UsageError(f"--devices must be all or a whole number >= 1, not '{text}'")
    return text


_TYPES: Dict[str, Callable[[str], object]] = {
    "algo": choice("algorithm", RA_ALGORITHMS),
    "device": nonnegative_int("--device"),
    "peer": nonnegative_int("--peer"),
    "table_log2": positive_int("--table-log2"),
    "memory_fraction": float_option("--memory-fraction", "a share above 0 and at most 1",
                                    lambda value: 0 < value <= 1),
    "streams": positive_int("--streams"),
    "kinds": name_list("--kinds", list(COPY_KINDS)),
    "host_memory": choice("host memory", HOST_MEMORY),
    "repeat": positive_int("--repeat"),
    "warmup": nonnegative_int("--warmup"),
}


def _as_typed(attribute: str) -> Callable[[str], str]:
    return checked_as_typed(_TYPES, attribute)


def add_gpu_parser(subparsers) -> CliParser:
    parser = subparsers.add_parser(
        "gpu", help="GPU nodes: device memory bandwidth (BabelStream), RandomAccess on a "
                    "device table, host-device copies; info: the devices of this node")
    parser.add_argument("variant", nargs="?", type=choice("variant", GPU_VARIANTS),
                        metavar="{" + ",".join(GPU_VARIANTS) + "}")
    for attribute, option, metavar, variants, text in GPU_VALUE_OPTIONS:
        where = "" if variants == _LAUNCHED else f"{', '.join(variants)}: "
        parser.add_argument(option, dest=attribute, metavar=metavar, type=_as_typed(attribute),
                            help=where + text)
    parser.add_argument("--no-verify", action="store_true", help="stream, ra: skip the check")
    parser.add_argument("--devices", type=devices_option, metavar="all|N",
                        help="stream: one rank per device, on every device of this node or "
                             "the first N (asked of 'hpcprobe-bench gpu info')")
    add_launch_options(parser, default_np="1; stream --devices: one per device",
                       hpcc_summary=False)
    return parser


def _refuse_for_info(args: argparse.Namespace) -> None:
    for attribute, option in _LAUNCH_ATTRIBUTES:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{option} applies to 'hpcprobe gpu stream|ra|copy', not to "
                             "'gpu info' (it asks this node's devices and launches nothing)")
    if args.launcher_arg:
        raise UsageError("--launcher-arg applies to 'hpcprobe gpu stream|ra|copy', not to "
                         "'gpu info' (it launches nothing)")


def check_gpu(args: argparse.Namespace) -> None:
    """The variant is given and each option belongs to it; --devices goes alone."""
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe gpu' (allowed: {', '.join(GPU_VARIANTS)})")
    options = [(attribute, option, variants) for attribute, option, _, variants, _ in
               GPU_VALUE_OPTIONS] + list(GPU_FLAG_OPTIONS)
    for attribute, option, variants in options:
        if getattr(args, attribute, None) not in (None, False) and args.variant not in variants:
            taken = "|".join(variants)
            raise UsageError(f"{option} applies to 'hpcprobe gpu {taken}' only, not to "
                             f"'gpu {args.variant}'")
    if args.variant == "info":
        _refuse_for_info(args)
    elif args.devices is not None:
        if args.variant != "stream":
            raise UsageError(f"--devices applies to 'hpcprobe gpu stream' only, not to "
                             f"'gpu {args.variant}'")
        for attribute, option in (("np", "--np"), ("device", "--device")):
            if getattr(args, attribute) is not None:
                raise UsageError(f"--devices chooses the ranks and their devices; leave out "
                                 f"{option}")


def gpu_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe gpu` arguments, passed on as typed."""
    options: List[str] = []
    for attribute, option, *_ in GPU_VALUE_OPTIONS:
        value = getattr(args, attribute, None)
        if value is not None:
            options += [option, value]
    for attribute, option, _ in GPU_FLAG_OPTIONS:
        if getattr(args, attribute, False):
            options.append(option)
    return options
