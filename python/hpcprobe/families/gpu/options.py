"""The command line of `hpcprobe gpu stream|ra|copy|info` (docs/cli.md, docs/kernels/gpu.md),
built from the bench's description of its gpu family (describe.py, cli_described.py): the
variants, --algo, every option with its help, default and grammar, the check that refuses
an option of another variant with one line, and the hpcprobe-bench options it becomes.

Only what the bench does not have is declared here: --devices, how many ranks `gpu
stream` launches, and the launch options, which `gpu info` (it launches nothing) refuses."""

import argparse
from typing import List

from hpcprobe import describe
from hpcprobe.cli_described import (add_algo_option, add_described_options,
                                    add_variant_argument, check_described,
                                    described_bench_options)
from hpcprobe.cli_types import LAUNCH_ATTRIBUTES, CliParser, add_launch_options, is_count
from hpcprobe.errors import UsageError

FAMILY = "gpu"
# (attribute, option) of hpcprobe's own options that only a launch takes.
_LAUNCH_ONLY = LAUNCH_ATTRIBUTES + (("devices", "--devices"),)


def devices_option(text: str) -> str:
    """--devices: "all" or a count >= 1, kept as text."""
    if text != "all" and not (is_count(text) and int(text) >= 1):
        raise UsageError(f"--devices must be all or a whole number >= 1, not '{text}'")
    return text


def add_gpu_parser(subparsers) -> CliParser:
    family = describe.family(FAMILY)
    parser = subparsers.add_parser(
        "gpu", help="GPU nodes: device memory bandwidth (BabelStream), RandomAccess on a "
                    "device table, host-device copies; info: the devices of this node")
    add_variant_argument(parser, family)
    add_algo_option(parser, family)
    add_described_options(parser, family)
    parser.add_argument("--devices", type=devices_option, metavar="all|N",
                        help="stream: one rank per device, on every device of this node or "
                             "the first N (asked of 'hpcprobe-bench gpu info')")
    add_launch_options(parser, default_np="1; stream --devices: one per device",
                       hpcc_summary=False)
    return parser


def _launching(family: describe.Family) -> str:
    return "|".join(v for v in family.variants() if family.kernels_of(v)[0].options)


def _refuse_for_info(args: argparse.Namespace, family: describe.Family) -> None:
    for attribute, option in _LAUNCH_ONLY:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{option} applies to 'hpcprobe gpu {_launching(family)}', not "
                             f"to 'gpu {args.variant}' (it asks this node's devices and "
                             "launches nothing)")
    if args.launcher_arg:
        raise UsageError(f"--launcher-arg applies to 'hpcprobe gpu {_launching(family)}', not "
                         f"to 'gpu {args.variant}' (it launches nothing)")


def check_gpu(args: argparse.Namespace) -> None:
    """The variant is given and each option belongs to it; --devices goes alone."""
    family = describe.family(FAMILY)
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe gpu' (allowed: "
                         f"{', '.join(family.variants())})")
    check_described(args, family, args.variant)
    if not family.kernels_of(args.variant)[0].options:
        _refuse_for_info(args, family)
    elif args.devices is not None:
        if args.variant != "stream":
            raise UsageError(f"--devices applies to 'hpcprobe gpu stream' only, not to "
                             f"'gpu {args.variant}'")
        device = family.option("device")
        for given, option in ((args.np, "--np"), (getattr(args, device.dest), device.name)):
            if given is not None:
                raise UsageError(f"--devices chooses the ranks and their devices; leave out "
                                 f"{option}")


def gpu_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe gpu` arguments, passed on as typed."""
    return described_bench_options(args, describe.family(FAMILY), args.variant)
