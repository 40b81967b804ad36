"""The command line of `hpcprobe peak [flops|bandwidth|clock] [single|star]` (docs/cli.md,
docs/kernels/peak.md), built from the bench's description of its peak family
(describe.py, cli_described.py): every option with its help, default and grammar, and the
check that refuses an option of another kernel with one line. The bench names a kernel
in two words joined by "-" (`flops-single`); `clock` is one word.

Without a kernel word, `hpcprobe peak` runs every kernel (suite/peak_steps.py) with its
own options, so it then takes only the launch options."""

import argparse
from typing import List, Optional

from hpcprobe import describe
from hpcprobe.cli_described import (add_described_options, check_described,
                                    described_bench_options, user_options)
from hpcprobe.cli_types import CliParser, add_launch_options, choice
from hpcprobe.errors import UsageError

FAMILY = "peak"
KERNELS = ("flops", "bandwidth", "clock")
VARIANTS = ("single", "star")


def add_peak_parser(subparsers) -> CliParser:
    parser = subparsers.add_parser(
        "peak", help="the machine's own limits: measured clock, theoretical and empirical "
                     "flop rates, each cache level's and memory's bandwidth, the DIMMs' and "
                     "links' stated rates; no kernel word: all of them")
    parser.add_argument("kernel", nargs="?", type=choice("kernel", KERNELS),
                        metavar="{" + ",".join(KERNELS) + "}")
    parser.add_argument("variant", nargs="?", type=choice("variant", VARIANTS),
                        metavar="{" + ",".join(VARIANTS) + "}",
                        help="flops, bandwidth: single (one core alone, the default) or "
                             "star (every rank at once)")
    add_described_options(parser, describe.family(FAMILY))
    add_launch_options(parser, default_np="single: 1; star and clock: a rank per core",
                       hpcc_summary=False)
    return parser


def bench_variant(kernel: str, variant: Optional[str]) -> str:
    """The bench's variant: "flops-single", "bandwidth-star", "clock"."""
    return kernel if kernel == "clock" else f"{kernel}-{variant or 'single'}"


def check_peak(args: argparse.Namespace) -> None:
    """Each option belongs to the kernel given; without one (every kernel, each with its
    own options), none of the bench's options and no --np."""
    family = describe.family(FAMILY)
    if args.kernel is None:
        _refuse_options(args, family)
        return
    if args.kernel == "clock" and args.variant is not None:
        raise UsageError(f"'peak clock' has no variant (it runs on every rank), not "
                         f"'{args.variant}'")
    check_described(args, family, bench_variant(args.kernel, args.variant))


def _refuse_options(args: argparse.Namespace, family: describe.Family) -> None:
    for option in user_options(family):
        if getattr(args, option.dest, None) not in (None, False):
            raise UsageError(f"{option.name} applies to one kernel ('hpcprobe peak "
                             f"flops|bandwidth|clock ... {option.name} ...'); without a "
                             "kernel word every launch takes its own")
    if args.np is not None:
        raise UsageError("--np applies to one kernel; without a kernel word each launch "
                         "takes its own ranks (single: 1, star and clock: a rank per core)")


def peak_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe peak KERNEL [VARIANT]` arguments, as typed."""
    return described_bench_options(args, describe.family(FAMILY),
                                   bench_variant(args.kernel, args.variant))
