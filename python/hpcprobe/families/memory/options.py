"""The options of `hpcprobe stream` and `hpcprobe mem` (docs/kernels/memory.md) and
which variant takes which: the parsers, their checks, and the launch (tables.py) use them."""

import argparse
from typing import Tuple

from hpcprobe.cli_types import CliParser, add_launch_options, choice
from hpcprobe.errors import UsageError
from hpcprobe.launch.kernels import variants


def memory_variants(family: str) -> Tuple[str, ...]:
    return variants(family, FALLBACK_VARIANTS[family])


# The memory families (docs/kernels/memory.md): HPCC's STREAM, and paper 002's kernels.
# Their variants come from `hpcprobe-bench list` (memory_variants()); these are offered
# when the bench cannot be asked (launch/kernels.py).
FALLBACK_VARIANTS = {"stream": ("single", "star"), "mem": ("stride", "latency")}
# (attribute, option, metavar, the variants that take it, help): passed to hpcprobe-bench
# as typed, which validates the values (sizes: bytes, or K, M, G binary suffixes).
_ALL_MEMORY = ("single", "star", "stride", "latency")
MEMORY_VALUE_OPTIONS = (
    ("array_bytes", "--array-bytes", "SIZE", ("single", "star"),
     "bytes per array (bench default: 4x the node's last-level caches)"),
    ("threads", "--threads", "T", ("single", "star"),
     "OpenMP threads per rank (bench default: OMP_NUM_THREADS, else 1)"),
    ("sweep", "--sweep", "stride|block", ("stride",),
     "time per access against stride (default) or against block size"),
    ("build_variant", "--build-variant", "O3|O0", ("stride",),
     "the kernel compiled with -O3 (default) or -O0"),
    ("buffer_bytes", "--buffer-bytes", "SIZE", ("stride",),
     "the stride sweep's buffer (bench default: 4x the last-level caches)"),
    ("min_stride", "--min-stride", "SIZE", ("stride",), "smallest stride, a power of two >= 8"),
    ("max_stride", "--max-stride", "SIZE", ("stride",), "largest stride, a power of two"),
    ("min_bytes", "--min-bytes", "SIZE", ("stride", "latency"),
     "smallest block or working set"),
    ("max_bytes", "--max-bytes", "SIZE", ("stride", "latency"),
     "largest block or working set (latency: 2G, less if memory is short)"),
    ("points_per_octave", "--points-per-octave", "N", ("latency",),
     "working sets per doubling"),
    ("seed", "--seed", "N", ("latency",), "seed of the random cycle"),
    ("min_time", "--min-time", "S", ("stride", "latency"), "seconds per timed sample, at least"),
    ("hugepages", "--hugepages", "on|off", _ALL_MEMORY,
     "ask for transparent huge pages or not"),
    ("repeat", "--repeat", "N", _ALL_MEMORY,
     "timed repetitions (stream: iterations, the first a warm-up)"),
    ("copies", "--copies", "one|all|N", _ALL_MEMORY,
     "one: rank 0 alone; N or all (every rank): after one alone, N at once "
     "(default: one; stream star: all)"),
)
MEMORY_FLAG_OPTIONS = (("oversubscribe", "--oversubscribe"), ("no_verify", "--no-verify"))
MEMORY_HELP = {
    "stream": ("STREAM Copy/Scale/Add/Triad: one rank alone (single) or every rank at once "
               "(star), HPCC's Single/StarSTREAM"),
    "mem": ("time per access against stride or block size (stride), and pointer-chase "
            "latency against working set (latency); one copy against many"),
}
MEMORY_DEFAULT_NP = {
    "stream": "1; star and --copies all: number of CPU cores (/ --threads); --copies N: N",
    "mem": "1; --copies all: number of CPU cores; --copies N: N",
}


def add_memory_parser(subparsers, family: str) -> CliParser:
    variants = memory_variants(family)
    parser = subparsers.add_parser(family, help=MEMORY_HELP[family])
    parser.add_argument("variant", nargs="?", type=choice("variant", variants),
                        metavar="{" + ",".join(variants) + "}")
    for attribute, option, metavar, words, text in MEMORY_VALUE_OPTIONS:
        taken = [word for word in words if word in variants]
        if taken:
            where = "" if len(taken) == len(variants) else f"{', '.join(taken)}: "
            parser.add_argument(option, dest=attribute, metavar=metavar, help=where + text)
    parser.add_argument("--oversubscribe", action="store_true",
                        help="allow more copies (x threads) than cores")
    parser.add_argument("--no-verify", action="store_true", help="skip verification")
    add_launch_options(parser, default_np=MEMORY_DEFAULT_NP[family])
    return parser


def check_memory(args: argparse.Namespace) -> None:
    """The variant is given, each option belongs to it, --hpcc-summary only to stream."""
    family, variants = args.command, memory_variants(args.command)
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe {family}' (allowed: "
                         f"{', '.join(variants)})")
    for attribute, option, _, words, _ in MEMORY_VALUE_OPTIONS:
        if getattr(args, attribute, None) is not None and args.variant not in words:
            taken = "|".join(word for word in words if word in variants)
            raise UsageError(f"{option} applies to 'hpcprobe {family} {taken}' only, not to "
                             f"'{family} {args.variant}'")
    if args.hpcc_summary and family == "mem":
        raise UsageError("--hpcc-summary applies to 'hpcprobe ra', 'hpcprobe stream' and "
                         "'hpcprobe run', not to 'mem' (HPCC has no such benchmark)")
