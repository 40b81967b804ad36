"""The HPCC summary keys of HPL, DGEMM, PTRANS and FFT, and those HPCC prints about the
machine and its build (HPCC 1.5 src/io.c, HPCC_Finalize): summary.py puts them in
HPCC's order with the RandomAccess, STREAM and b_eff keys.

Each function takes the records of its benchmark and returns (key, text) pairs; a key
whose value no record measured is left out rather than invented (block.py prints HPCC's
"not run" value for it). Keys that describe how HPCC itself was built and that have no
counterpart here are printed with HPCC's own "not applicable" value, -1 (HPCC does the
same, e.g. MemProc=-1). Formats are block.py's: `decimal` where HPCC has `%g`."""

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.hpcc_summary.block import decimal, exponent, integer
from hpcprobe.report.common import last_of as last
from hpcprobe.samples import metric_median
from hpcprobe.units import GIGA, TERA
from hpcprobe.records import number, parameter, section_of

Record = Dict[str, Any]
Entry = Tuple[str, str]
EntriesFn = Callable[[Sequence[Record]], List[Entry]]

NOT_APPLICABLE = "-1"
# The lines around the key=value pairs, which parsers of HPCC's output look for.
BEGIN_LINE = "Begin of Summary section."
END_LINE = "End of Summary section."
# The benchmarks HPCC has; records of others (mem, ...) are not in its summary.
HPCC_BENCHMARKS = ("hpl", "dgemm", "ptrans", "ra", "stream", "fft", "beff")


# HPCC's %g and %e keys (block.py says why %g's become fixed point).
g, e = decimal, exponent


def entry(key: str, value: Optional[float], fmt: Callable[[float], str]) -> List[Entry]:
    return [] if value is None else [(key, fmt(value))]


def headline(record: Optional[Record]) -> Optional[float]:
    return None if record is None else number(section_of(record, "value").get("value"))


def scaled(value: Optional[float], divisor: float) -> Optional[float]:
    return None if value is None else value / divisor


# --- the machine: C type sizes and IEEE arithmetic (LAPACK's dlamch/slamch) -------------
# Both come from the metadata of the binary that measured (hpcprobe-bench writes them),
# never from the Python that reads the records: a key no record describes is left out.

# HPCC's sizeof_* keys, in its order.
C_TYPES = ("char", "short", "int", "long", "void_ptr", "size_t", "float", "double", "s64Int",
           "u64Int", "struct_double_double")


def _binary_metadata(records: Sequence[Record], key: str) -> Tuple[bool, Any]:
    """(found, value) of metadata `key` in the first record that has it."""
    for record in records:
        metadata = section_of(record, "metadata")
        if key in metadata:
            return True, metadata[key]
    return False, None


def sizeof_entries(records: Sequence[Record]) -> List[Entry]:
    _, sizes = _binary_metadata(records, "c_type_sizes_bytes")
    if not isinstance(sizes, dict):
        return []
    found = [(name, number(sizes.get(name))) for name in C_TYPES]
    return [(f"sizeof_{name}", integer(size)) for name, size in found if size is not None]


def _machine(digits: int, min_exp: int, max_exp: int) -> Dict[str, float]:
    """dlamch's values for binary floating point with `digits` mantissa bits."""
    eps = 2.0 ** -digits
    tiny = 2.0 ** (min_exp - 1)
    huge = (2.0 - 2.0 ** (1 - digits)) * 2.0 ** (max_exp - 1)
    return {"EPS": eps, "SFMIN": tiny, "BASE": 2.0, "PREC": 2 * eps, "MLEN": float(digits),
            "RND": 1.0, "EMIN": float(min_exp), "RMIN": tiny, "EMAX": float(max_exp),
            "RMAX": huge}


# The bounds of a float.h model that _machine can evaluate (binary IEEE-like formats).
_MODEL_LIMITS = {"mantissa_digits": (2, 113), "min_exponent": (-16381, -1),
                 "max_exponent": (2, 16384)}


def binary_arithmetic(records: Sequence[Record], kind: str) -> Optional[Dict[str, float]]:
    """dlamch's values for `kind` ("double", "float") as the measuring binary's float.h
    has it; None when no record says, or says something that is not a binary model."""
    _, model = _binary_metadata(records, "floating_point")
    fields = model.get(kind) if isinstance(model, dict) else None
    if not isinstance(fields, dict) or fields.get("radix") != 2:
        return None
    values = {}
    for name, (low, high) in _MODEL_LIMITS.items():
        value = fields.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            return None
        values[name] = value
    return _machine(values["mantissa_digits"], values["min_exponent"], values["max_exponent"])


# The unit of the error the C verifiers record (0x1p-53 in core/kernels: binary64's eps).
DOUBLE_EPS = 2.0 ** -53


def machine_entries(hpl: Optional[Record], records: Sequence[Record]) -> List[Entry]:
    double, single = binary_arithmetic(records, "double"), binary_arithmetic(records, "float")
    entries: List[Entry] = []
    if double is not None:
        entries += [(f"HPL_dMACH_{name}", e(value)) for name, value in double.items()]
    if single is not None:
        entries += [(f"HPL_sMACH_{name}", e(value)) for name, value in single.items()]
    entries += entry("dweps", double and double["EPS"], e)
    entries += entry("sweps", single and single["EPS"], e)
    procs = None if hpl is None else number(section_of(hpl, "layout").get("ranks"))
    return entries + entry("HPLMaxProcs", procs, integer) + entry("HPLMinProcs", procs, integer)


# --- HPL ------------------------------------------------------------------------------

def hpl_entries(records: Sequence[Record]) -> List[Entry]:
    hpl = last(records, "hpl")
    if hpl is None:
        return machine_entries(None, records)
    norms = [("HPL_RnormI", "rnorm_inf"), ("HPL_Anorm1", "anorm_1"),
             ("HPL_AnormI", "anorm_inf"), ("HPL_Xnorm1", "xnorm_1"),
             ("HPL_XnormI", "xnorm_inf"), ("HPL_BnormI", "bnorm_inf")]
    entries = [*entry("HPL_Tflops", scaled(headline(hpl), TERA), g),
               *entry("HPL_time", metric_median(hpl, "time"), g),
               *entry("HPL_eps", (binary_arithmetic([hpl], "double") or {}).get("EPS"), g)]
    for key, name in norms:
        entries += entry(key, number(parameter(hpl, name)), g)
    for key, name in (("HPL_N", "n"), ("HPL_NB", "nb"), ("HPL_nprow", "p"),
                      ("HPL_npcol", "q"), ("HPL_depth", "lookahead_depth")):
        entries += entry(key, number(parameter(hpl, name)), integer)
    # The panel factorization halves the panel (nbdiv 2) down to 16 columns (nbmin), both
    # recursive and right-looking (R); the broadcast is MPI_Ibcast, which has no HPL
    # topology number; processes are mapped row-major (R).
    entries += [("HPL_nbdiv", "2"), ("HPL_nbmin", "16"), ("HPL_cpfact", "R"),
                ("HPL_crfact", "R"), ("HPL_ctop", NOT_APPLICABLE), ("HPL_order", "R")]
    return entries + machine_entries(hpl, records)


# --- DGEMM, PTRANS ----------------------------------------------------------------------

def dgemm_entries(records: Sequence[Record]) -> List[Entry]:
    star, single = last(records, "dgemm", "star"), last(records, "dgemm", "single")
    sized = star or single
    return [*entry("DGEMM_N", number(parameter(sized, "n")), integer),
            *entry("StarDGEMM_Gflops", scaled(headline(star), GIGA), g),
            *entry("SingleDGEMM_Gflops", scaled(headline(single), GIGA), g)]


def ptrans_entries(records: Sequence[Record]) -> List[Entry]:
    ptrans = last(records, "ptrans")
    if ptrans is None:
        return []
    validation = section_of(ptrans, "validation")
    residual = number(validation.get("error")) if validation.get("verdict") != "skipped" else None
    return [*entry("PTRANS_GBs", scaled(headline(ptrans), GIGA), g),
            *entry("PTRANS_time", metric_median(ptrans, "time"), g),
            *entry("PTRANS_residual", residual, g),
            *entry("PTRANS_n", number(parameter(ptrans, "n")), integer),
            *entry("PTRANS_nb", number(parameter(ptrans, "nb")), integer),
            *entry("PTRANS_nprow", number(parameter(ptrans, "p")), integer),
            *entry("PTRANS_npcol", number(parameter(ptrans, "q")), integer)]


# --- FFT --------------------------------------------------------------------------------

def _fft_error(record: Optional[Record]) -> Optional[float]:
    """HPCC's MPIFFT_maxErr: the largest |x - ifft(fft(x))/m| (the record keeps it scaled
    by eps ln m)."""
    if record is None or section_of(record, "validation").get("verdict") == "skipped":
        return None
    scaled_error = number(section_of(record, "validation").get("error"))
    m = number(parameter(record, "m"))
    if scaled_error is None or not m or m < 2:
        return None
    return scaled_error * DOUBLE_EPS * math.log(m)


# HPCC's forward-transform phases (FFT/pzfft1d.c: MPIFFT_time<i> is timings[i+1] -
# timings[i]) and the `fft mpi` record's metric of the same step of the six-step
# algorithm. time0 (HPCC's setup inside the call) is done when hpcprobe plans, outside
# the timed transform, and time6 (the inverse's scaling) a forward transform skips in
# both: neither has a metric, and block.py prints HPCC's 0 for them.
MPIFFT_PHASE_METRICS = {1: "transpose1_time", 2: "fft1_twiddle_time", 3: "transpose2_time",
                        4: "fft2_time", 5: "transpose3_time"}


def _fft_phase_entries(mpi: Optional[Record]) -> List[Entry]:
    if mpi is None:
        return []
    return [found for phase, metric in MPIFFT_PHASE_METRICS.items()
            for found in entry(f"MPIFFT_time{phase}", metric_median(mpi, metric), g)]


def fft_entries(records: Sequence[Record]) -> List[Entry]:
    star, single, mpi = (last(records, "fft", variant) for variant in ("star", "single", "mpi"))
    procs = None if mpi is None else number(section_of(mpi, "layout").get("ranks"))
    return [*entry("FFT_N", number(parameter(star or single, "m")), integer),
            *entry("StarFFT_Gflops", scaled(headline(star), GIGA), g),
            *entry("SingleFFT_Gflops", scaled(headline(single), GIGA), g),
            *entry("MPIFFT_N", number(parameter(mpi, "m")), integer),
            *entry("MPIFFT_Gflops", scaled(headline(mpi), GIGA), g),
            *entry("MPIFFT_maxErr", _fft_error(mpi), g),
            *entry("MPIFFT_Procs", procs, integer),
            *_fft_phase_entries(mpi)]


# --- the build switches HPCC prints last ------------------------------------------------

def openmp_entries(records: Sequence[Record]) -> List[Entry]:
    """HPCC's M_OPENMP and omp_* keys from the measuring binary's OpenMP (M_OPENMP -1 and
    the omp_* 0, as HPCC prints them, when it was built without); none when no record
    says. STREAM's records come first: theirs is the OpenMP that a benchmark of the run
    used."""
    streams = [record for record in records if record.get("benchmark") == "stream"]
    found, openmp = _binary_metadata(streams + list(records), "openmp")
    keys = (("M_OPENMP", "version"), ("omp_get_num_threads", "num_threads"),
            ("omp_get_max_threads", "max_threads"), ("omp_get_num_procs", "num_procs"))
    if not found:
        return []
    if not isinstance(openmp, dict):
        return [(key, NOT_APPLICABLE if key == "M_OPENMP" else "0") for key, _ in keys]
    return [found for key, name in keys for found in
            entry(key, number(openmp.get(name)), integer)]


def trailer_entries(records: Sequence[Record]) -> List[Entry]:
    """FFTE's tuning (no FFTE here) and memory-allocation switches (-1: not applicable),
    the binary's OpenMP, then HPCC's CPS_ compile switches as this run's counterparts."""
    ffts = [record for record in records if record.get("benchmark") == "fft"]
    fftw = any(section_of(r, "parameters").get("fft_engine") == "fftw" for r in ffts)
    hypercube = any(r.get("benchmark") == "ra" and r.get("algorithm") == "hypercube"
                    for r in records)
    entries = [(key, NOT_APPLICABLE) for key in ("FFTEnblk", "FFTEnp", "FFTEl2size")]
    entries += openmp_entries(records)
    entries += [("MemProc", g(-1)), ("MemSpec", NOT_APPLICABLE), ("MemVal", g(-1))]
    return entries + [("CPS_HPCC_FFT_235", "0"), ("CPS_HPCC_FFTW_ESTIMATE", "0"),
                      ("CPS_HPCC_MEMALLCTR", "0"), ("CPS_HPL_USE_GETPROCESSTIMES", "0"),
                      ("CPS_RA_SANDIA_NOPT", "1" if hypercube else "0"),
                      ("CPS_RA_SANDIA_OPT2", "0"), ("CPS_USING_FFTW", "1" if fftw else "0")]
