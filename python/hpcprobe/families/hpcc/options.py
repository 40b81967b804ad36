"""What the command lines of `hpcprobe dgemm|hpl|ptrans|fft` (docs/cli.md,
docs/kernels/hpl.md, dgemm.md, ptrans.md, fft.md; parsers.py) take, from the bench's
description of those families (describe.py, cli_described.py): the checks that refuse an
option of another variant or of another of these commands with one line, the
hpcprobe-bench options they become, and the ranks they launch. The bench checks
the values again, and what needs several of them together (--nb at most --n, a grid of
the launched ranks) is its one line.

Only what the bench does not have is declared here: each command's help line and what
--np defaults to; the launch options are cli_types'."""

import argparse
import re
from typing import Dict, List, Optional, Tuple

from hpcprobe import describe
from hpcprobe.cli_described import check_described, described_bench_options, user_options
from hpcprobe.errors import UsageError

# The dense commands, each a family of the bench; their variants and options are the bench's.
HPCC_HELP = {
    "dgemm": "HPCC DGEMM: C <- beta C + alpha A B through the BLAS (single: one rank; star: all)",
    "hpl": "HPL: LU solve of a random dense system on a PxQ grid (HPCC's HPL_Tflops)",
    "ptrans": "HPCC PTRANS: C <- A^T + C on a PxQ block-cyclic grid",
    "fft": "HPCC FFT: 1-D complex FFT of 2^k points (single, star, or distributed: mpi)",
}
HPCC_FAMILIES = tuple(HPCC_HELP)
# The variant that runs on one rank; the others run one rank per core.
ONE_RANK_VARIANT = "single"


def _grid(family: describe.Family) -> Optional[describe.Option]:
    """The process grid option, where the command has one (hpl, ptrans)."""
    try:
        return family.option("grid")
    except KeyError:
        return None


def grid_ranks(args: argparse.Namespace, family: describe.Family) -> Optional[int]:
    """P*Q of the process grid given (hpl, ptrans), which is how many ranks it needs;
    None when none is given or it is not PxQ (the bench says what is wrong)."""
    grid = _grid(family)
    text = getattr(args, grid.dest, None) if grid is not None else None
    match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", text or "")
    return int(match.group(1)) * int(match.group(2)) if match else None


def default_np(args: argparse.Namespace, family: describe.Family, cores: int) -> int:
    """Ranks to launch without --np: P*Q of --grid; one for single; else one per core."""
    ranks = grid_ranks(args, family)
    if ranks is not None:
        return ranks
    return 1 if args.variant == ONE_RANK_VARIANT else max(1, cores)


def default_np_text(family: describe.Family) -> str:
    """What --np defaults to (default_np above), naming the bench's --grid."""
    variants = family.variants()
    text = "number of CPU cores"
    if ONE_RANK_VARIANT in variants:
        others = " and ".join(v for v in variants if v != ONE_RANK_VARIANT)
        text = f"1; {others}: number of CPU cores"
    grid = _grid(family)
    return text + (f"; {grid.name} PxQ: P*Q" if grid is not None else "")


def foreign_options(name: str) -> Dict[str, Tuple[describe.Option, Tuple[str, ...]]]:
    """The options of the other dense commands that `name` does not take, with the
    commands that take them."""
    own = {o.name for o in user_options(describe.family(name))}
    found: Dict[str, Tuple[describe.Option, Tuple[str, ...]]] = {}
    for other in HPCC_FAMILIES:
        for option in user_options(describe.family(other)):
            if option.name not in own:
                first, takers = found.get(option.name, (option, ()))
                found[option.name] = (first, takers + (other,))
    return found


def check_hpcc(args: argparse.Namespace) -> None:
    """The variant is given (hpl and ptrans have one, which is taken), each option
    belongs to the command and its variant."""
    family = describe.family(args.command)
    for option, takers in foreign_options(family.name).values():
        if getattr(args, option.dest, None) not in (None, False):
            raise UsageError(f"{option.name} applies to 'hpcprobe {'|'.join(takers)}' only, "
                             f"not to '{family.name}'")
    variants = family.variants()
    if args.variant is None and len(variants) == 1:
        args.variant = variants[0]
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe {family.name}' (allowed: "
                         f"{', '.join(variants)})")
    check_described(args, family, args.variant)


def hpcc_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options from `hpcprobe dgemm|hpl|ptrans|fft` arguments, as typed."""
    return described_bench_options(args, describe.family(args.command), args.variant)
