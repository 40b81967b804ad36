"""The options of `hpcprobe dgemm|hpl|ptrans|fft` (docs/kernels/hpl.md, dgemm.md,
ptrans.md, fft.md) and which family takes which: the parser (parsers.py) and the launch
(command.py) both use them. Values are passed to hpcprobe-bench as typed; it checks them
and answers bad input with its own one line."""

import argparse
from typing import List, Tuple

from hpcprobe.errors import UsageError
from hpcprobe.launch.kernels import variants

# Their variants come from `hpcprobe-bench list` (hpcc_variants()); these are offered
# when the bench cannot be asked (launch/kernels.py).
FALLBACK_VARIANTS = {"dgemm": ("single", "star"), "hpl": ("mpi",), "ptrans": ("mpi",),
                     "fft": ("single", "star", "mpi")}
HPCC_FAMILIES = tuple(FALLBACK_VARIANTS)
_ALL = HPCC_FAMILIES
# (attribute, option, metavar, the families that take it, help)
HPCC_VALUE_OPTIONS = (
    ("n", "--n", "N", ("dgemm", "hpl", "ptrans"),
     "matrix order (default: sized from --memory-fraction as HPCC sizes it)"),
    ("nb", "--nb", "NB", ("hpl", "ptrans"), "block size (default 192, at most --n)"),
    ("grid", "--grid", "PxQ", ("hpl", "ptrans"),
     "process grid with P*Q = ranks (default: as square as the ranks allow, P <= Q)"),
    ("lookahead", "--lookahead", "0|1", ("hpl",), "look-ahead depth (default 1)"),
    ("log2", "--log2", "K", ("fft",), "transform m = 2^K points"),
    ("m", "--m", "M", ("fft",), "transform M points (a power of two)"),
    ("fft", "--fft", "fftw|internal", ("fft",),
     "local FFTs through FFTW3 (default when built with it) or the internal Stockham FFT"),
    ("memory_fraction", "--memory-fraction", "F", _ALL,
     "size from this fraction of the available memory (default 0.25)"),
    ("repeat", "--repeat", "R", _ALL, "timed repetitions (default 1)"),
    ("threads", "--threads", "T", ("dgemm", "hpl"), "BLAS threads per rank (default 1)"),
    ("seed", "--seed", "S", _ALL, "seed of the generated data"),
)
HPCC_FLAG_OPTIONS = (("no_verify", "--no-verify"),)
HPCC_HELP = {
    "dgemm": "HPCC DGEMM: C <- beta C + alpha A B through the BLAS (single: one rank; star: all)",
    "hpl": "HPL: LU solve of a random dense system on a PxQ grid (HPCC's HPL_Tflops)",
    "ptrans": "HPCC PTRANS: C <- A^T + C on a PxQ block-cyclic grid",
    "fft": "HPCC FFT: 1-D complex FFT of 2^k points (single, star, or distributed: mpi)",
}
HPCC_DEFAULT_NP = {
    "dgemm": "1; star: number of CPU cores", "hpl": "number of CPU cores",
    "ptrans": "number of CPU cores", "fft": "1; star and mpi: number of CPU cores",
}


def hpcc_variants(family: str) -> Tuple[str, ...]:
    return variants(family, FALLBACK_VARIANTS[family])


def default_variant(family: str) -> str:
    found = hpcc_variants(family)
    return found[0] if len(found) == 1 else ""


def default_np(family: str, variant: str, cores: int) -> int:
    return 1 if variant == "single" else max(1, cores)


def check_hpcc(args: argparse.Namespace) -> None:
    """The variant is given (hpl and ptrans have one), each option belongs to the family."""
    family, variants = args.command, hpcc_variants(args.command)
    if args.variant is None:
        args.variant = default_variant(family) or None
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe {family}' (allowed: "
                         f"{', '.join(variants)})")
    for attribute, option, _, families, _ in HPCC_VALUE_OPTIONS:
        if getattr(args, attribute, None) is not None and family not in families:
            raise UsageError(f"{option} applies to 'hpcprobe {'|'.join(families)}' only, not to "
                             f"'{family}'")
    if getattr(args, "threads", None) is not None and family not in ("dgemm", "hpl"):
        raise UsageError("--threads applies to 'hpcprobe dgemm|hpl' only")


def hpcc_bench_options(args: argparse.Namespace) -> List[str]:
    options: List[str] = []
    for attribute, option, *_ in HPCC_VALUE_OPTIONS:
        value = getattr(args, attribute, None)
        if value is not None:
            options += [option, value]
    for attribute, option in HPCC_FLAG_OPTIONS:
        if getattr(args, attribute, False):
            options.append(option)
    return options
