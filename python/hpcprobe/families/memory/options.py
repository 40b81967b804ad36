"""The command lines of `hpcprobe stream` and `hpcprobe mem` (docs/cli.md,
docs/kernels/memory.md), built from the bench's description of its stream and mem
families (describe.py, cli_described.py): the variants, every option with its help,
default and grammar, the check that refuses an option of another variant with one line,
and the hpcprobe-bench options they become.

Only what the bench does not have is declared here: each command's help line, what --np
defaults to, which command takes --hpcc-summary, and the launch options."""

import argparse
from typing import List

from hpcprobe import describe
from hpcprobe.cli_described import (add_algo_option, add_described_options,
                                    add_variant_argument, check_described,
                                    described_bench_options)
from hpcprobe.cli_types import CliParser, add_launch_options
from hpcprobe.errors import UsageError

# The memory commands, each a family of the bench (docs/kernels/memory.md): HPCC's STREAM,
# and paper 002's kernels; their variants and options are the bench's.
MEMORY_HELP = {
    "stream": ("STREAM Copy/Scale/Add/Triad: one rank alone (single) or every rank at once "
               "(star), HPCC's Single/StarSTREAM"),
    "mem": ("time per access against stride or block size (stride), and pointer-chase "
            "latency against working set (latency); one copy against many"),
}
# The command whose records give HPCC's summary keys (HPCC has no benchmark like mem's).
SUMMARY_FAMILY = "stream"


def default_np_text(family: describe.Family) -> str:
    """What --np defaults to (tables.default_ranks), naming the bench's options."""
    copies = family.option("copies").name
    if family.name != SUMMARY_FAMILY:
        return f"1; {copies} all: number of CPU cores; {copies} N: N"
    return (f"1; star and {copies} all: number of CPU cores (/ "
            f"{family.option('threads').name}); {copies} N: N")


def add_memory_parser(subparsers, family: str) -> CliParser:
    described = describe.family(family)
    parser = subparsers.add_parser(family, help=MEMORY_HELP[family])
    add_variant_argument(parser, described)
    add_algo_option(parser, described)
    add_described_options(parser, described)
    add_launch_options(parser, default_np=default_np_text(described))
    return parser


def check_memory(args: argparse.Namespace) -> None:
    """The variant is given, each option belongs to it, --hpcc-summary only to stream."""
    family = describe.family(args.command)
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe {family.name}' (allowed: "
                         f"{', '.join(family.variants())})")
    check_described(args, family, args.variant)
    if args.hpcc_summary and family.name != SUMMARY_FAMILY:
        raise UsageError(f"--hpcc-summary applies to 'hpcprobe ra', 'hpcprobe "
                         f"{SUMMARY_FAMILY}' and 'hpcprobe run', not to '{family.name}' "
                         "(HPCC has no such benchmark)")


def memory_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe stream|mem` arguments, passed on as typed."""
    return described_bench_options(args, describe.family(args.command), args.variant)

