"""HPCC 1.5's whole summary block: every key HPCC_Finalize prints (src/io.c), in its
order, the number format of each, and what is printed for a key that no record measured.

Formats. HPCC prints rates, times and residuals with `%g`, which gives "1e-05" or "12":
parsers that want a decimal point (Ramble's and PerfKitBenchmarker's hpcc parsers match
`[0-9]+\\.[0-9]+`) then read nothing, or only the "1" of "1.5e-05". Those keys are
printed by `decimal`: fixed point, always with a point, never an exponent, and with at
least the six significant digits of `%g`. Counts stay integers, as HPCC prints them.
The keys HPCC prints with `%e` (MPI_Wtick and the machine constants) keep `%e`: its
mantissa always has a point ("1.000000e-06"), and no parser reads them as rates.

Keys that did not run. HPCC prints every key whether its test ran or not; what it
prints for one that did not run is the value HPCC_Init sets before the tests: -1 for
counts, rates and times (`HPL_Tflops` is -1000 Gflop/s × 10^-3), "-" for HPL's
algorithm letters, 1 for `STREAM_Threads`, 0 for the MPIFFT phase times, 0 for the
`CPS_` switches. `HPL_BnormI` HPCC leaves unset; it gets -1 as its sibling norms. Where
HPCC always knows a value and a record does not say (type sizes, machine constants,
`MPI_Wtick`, `CommWorldProcs`, OpenMP of records written before hpcprobe-bench recorded
them), -1 is printed, in the key's own format.
"""

import math
from typing import Dict, List, Sequence, Tuple

Entry = Tuple[str, str]

DECIMAL = "decimal"    # HPCC's %g
INTEGER = "integer"    # HPCC's %d and 64-bit integers
EXPONENT = "exponent"  # HPCC's %e
TEXT = "text"          # HPCC's %c and %s

# %g's precision: the significant digits HPCC prints, which fixed point must keep.
SIGNIFICANT_DIGITS = 6


def decimal(value: float) -> str:
    """`value` in fixed point with a decimal point, at least SIGNIFICANT_DIGITS
    significant digits and no trailing zeros past the first decimal: 1.0123e-05 gives
    "0.000010123", 12 gives "12.0"."""
    if not math.isfinite(value):
        return "%g" % value  # nan, inf: what HPCC prints, not a number to any parser
    if value == 0:
        return "0.0"
    magnitude = math.floor(math.log10(abs(value)))
    places = max(1, SIGNIFICANT_DIGITS - 1 - magnitude)
    whole, _, fraction = ("%.*f" % (places, value)).partition(".")
    return f"{whole}.{fraction.rstrip('0') or '0'}"


def exponent(value: float) -> str:
    return "%e" % value


def integer(value: float) -> str:
    return str(int(value))


def _keys(kind: str, names: str) -> List[Tuple[str, str]]:
    return [(name, kind) for name in names.split()]


def _mpi_randomaccess(infix: str) -> List[Tuple[str, str]]:
    kinds = (("N", INTEGER), ("time", DECIMAL), ("CheckTime", DECIMAL), ("Errors", INTEGER),
             ("ErrorsFraction", DECIMAL), ("ExeUpdates", INTEGER), ("GUPs", DECIMAL),
             ("TimeBound", DECIMAL), ("Algorithm", INTEGER))
    return [(f"MPIRandomAccess{infix}_{name}", kind) for name, kind in kinds]


MACH_NAMES = ("EPS", "SFMIN", "BASE", "PREC", "MLEN", "RND", "EMIN", "RMIN", "EMAX", "RMAX")
# The phases of HPCC's distributed FFT that it prints (MPIFFT_TIMING_COUNT - 1 of them).
MPIFFT_PHASES = 7

# (key, format) of every key of HPCC 1.5's block, in its order.
HPCC_KEYS: Tuple[Tuple[str, str], ...] = (
    *_keys(INTEGER, "VersionMajor VersionMinor VersionMicro"),
    *_keys(TEXT, "VersionRelease LANG"),
    *_keys(INTEGER, "Success sizeof_char sizeof_short sizeof_int sizeof_long sizeof_void_ptr "
                    "sizeof_size_t sizeof_float sizeof_double sizeof_s64Int sizeof_u64Int "
                    "sizeof_struct_double_double CommWorldProcs"),
    *_keys(EXPONENT, "MPI_Wtick"),
    *_keys(DECIMAL, "HPL_Tflops HPL_time HPL_eps HPL_RnormI HPL_Anorm1 HPL_AnormI HPL_Xnorm1 "
                    "HPL_XnormI HPL_BnormI"),
    *_keys(INTEGER, "HPL_N HPL_NB HPL_nprow HPL_npcol HPL_depth HPL_nbdiv HPL_nbmin"),
    *_keys(TEXT, "HPL_cpfact HPL_crfact HPL_ctop HPL_order"),
    *[(f"HPL_{kind}MACH_{name}", EXPONENT) for kind in "ds" for name in MACH_NAMES],
    *_keys(EXPONENT, "dweps sweps"),
    *_keys(INTEGER, "HPLMaxProcs HPLMinProcs DGEMM_N"),
    *_keys(DECIMAL, "StarDGEMM_Gflops SingleDGEMM_Gflops PTRANS_GBs PTRANS_time PTRANS_residual"),
    *_keys(INTEGER, "PTRANS_n PTRANS_nb PTRANS_nprow PTRANS_npcol"),
    *_mpi_randomaccess("_LCG"),
    *_mpi_randomaccess(""),
    *_keys(INTEGER, "RandomAccess_LCG_N"),
    *_keys(DECIMAL, "StarRandomAccess_LCG_GUPs SingleRandomAccess_LCG_GUPs"),
    *_keys(INTEGER, "RandomAccess_N"),
    *_keys(DECIMAL, "StarRandomAccess_GUPs SingleRandomAccess_GUPs"),
    *_keys(INTEGER, "STREAM_VectorSize STREAM_Threads"),
    *_keys(DECIMAL, "StarSTREAM_Copy StarSTREAM_Scale StarSTREAM_Add StarSTREAM_Triad "
                    "SingleSTREAM_Copy SingleSTREAM_Scale SingleSTREAM_Add SingleSTREAM_Triad"),
    *_keys(INTEGER, "FFT_N"),
    *_keys(DECIMAL, "StarFFT_Gflops SingleFFT_Gflops"),
    *_keys(INTEGER, "MPIFFT_N"),
    *_keys(DECIMAL, "MPIFFT_Gflops MPIFFT_maxErr"),
    *_keys(INTEGER, "MPIFFT_Procs"),
    *_keys(DECIMAL, "MaxPingPongLatency_usec RandomlyOrderedRingLatency_usec "
                    "MinPingPongBandwidth_GBytes NaturallyOrderedRingBandwidth_GBytes "
                    "RandomlyOrderedRingBandwidth_GBytes MinPingPongLatency_usec "
                    "AvgPingPongLatency_usec MaxPingPongBandwidth_GBytes "
                    "AvgPingPongBandwidth_GBytes NaturallyOrderedRingLatency_usec"),
    *_keys(INTEGER, "FFTEnblk FFTEnp FFTEl2size M_OPENMP omp_get_num_threads "
                    "omp_get_max_threads omp_get_num_procs"),
    *_keys(DECIMAL, "MemProc"),
    *_keys(INTEGER, "MemSpec"),
    *_keys(DECIMAL, "MemVal"),
    *[(f"MPIFFT_time{phase}", DECIMAL) for phase in range(MPIFFT_PHASES)],
    *_keys(INTEGER, "CPS_HPCC_FFT_235 CPS_HPCC_FFTW_ESTIMATE CPS_HPCC_MEMALLCTR "
                    "CPS_HPL_USE_GETPROCESSTIMES CPS_RA_SANDIA_NOPT CPS_RA_SANDIA_OPT2 "
                    "CPS_USING_FFTW"),
)
KEY_FORMATS: Dict[str, str] = dict(HPCC_KEYS)

# The version of the summary format written (HPCC 1.5.0's), which parsers look at.
FORMAT_VERSION = (("VersionMajor", "1"), ("VersionMinor", "5"), ("VersionMicro", "0"),
                  ("VersionRelease", "f"))
_NOT_RUN_BY_FORMAT = {DECIMAL: decimal(-1), INTEGER: "-1", EXPONENT: exponent(-1), TEXT: "-"}
# HPCC_Init's values that are not -1 (src/io.c); Success is 0 until a run says otherwise.
_NOT_RUN_KEYS = {**dict(FORMAT_VERSION), "LANG": "C", "Success": "0", "STREAM_Threads": "1",
                 **{f"MPIFFT_time{phase}": decimal(0) for phase in range(MPIFFT_PHASES)},
                 **{key: "0" for key, _ in HPCC_KEYS if key.startswith("CPS_")}}


def not_run(key: str) -> str:
    """What HPCC prints for `key` when its test did not run."""
    return _NOT_RUN_KEYS.get(key, _NOT_RUN_BY_FORMAT[KEY_FORMATS[key]])


def whole_block(measured: Sequence[Entry]) -> List[Entry]:
    """Every key of HPCC_KEYS once, in HPCC's order: its measured text where `measured`
    has one (the last, if several), else what HPCC prints when its test did not run."""
    found = dict(measured)
    return [(key, found.get(key, not_run(key))) for key, _ in HPCC_KEYS]
