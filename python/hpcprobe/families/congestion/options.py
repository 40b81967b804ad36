"""The command line of `hpcprobe congestion` (docs/cli.md, docs/kernels/congestion.md),
built from the bench's description of its congestion family (describe.py,
cli_described.py): every option with its help, default and grammar, checked before
anything is launched and passed on as typed. The bench checks them again, and what needs
the nodes (buffers that fit their memory, enough ranks per role) is its one line."""

import argparse
from typing import List

from hpcprobe import describe
from hpcprobe.cli_described import (add_described_options, check_described,
                                    described_bench_options)
from hpcprobe.cli_types import CliParser, add_launch_options

FAMILY = "congestion"


def the_variant(family: describe.Family) -> str:
    """Its one variant (the bench runs it when none is named)."""
    return family.variants()[0]


def add_congestion_parser(subparsers) -> CliParser:
    family = describe.family(FAMILY)
    parser = subparsers.add_parser(
        "congestion", help="congestion under load (Chunduri et al., GPCNeT: Characterizing "
                           "Interference and Congestion on HPC Systems): canaries alone and "
                           "beside congestors; the Congestion Impact Factor")
    add_described_options(parser, family)
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser


def check_congestion(args: argparse.Namespace) -> None:
    family = describe.family(FAMILY)
    check_described(args, family, the_variant(family))


def congestion_bench_options(args: argparse.Namespace) -> List[str]:
    family = describe.family(FAMILY)
    return described_bench_options(args, family, the_variant(family))
