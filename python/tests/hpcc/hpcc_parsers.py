"""HPCC 1.5's summary block as the tools that read hpccoutf.txt see it: its keys (written
down here from HPCC's output, independently of the code under test), the format HPCC
gives each, and the regular expressions of real HPCC-summary parsers, for the tests to
apply to hpcprobe's block."""

import re
from typing import Dict, List, Tuple

# Every key of the block Debian's hpcc 1.5.0 printed, in its order (src/io.c prints
# MPIFFT_time0..6 from a loop, after MemVal).
HPCC15_KEYS = """VersionMajor VersionMinor VersionMicro VersionRelease LANG Success sizeof_char
sizeof_short sizeof_int sizeof_long sizeof_void_ptr sizeof_size_t sizeof_float sizeof_double
sizeof_s64Int sizeof_u64Int sizeof_struct_double_double CommWorldProcs MPI_Wtick HPL_Tflops
HPL_time HPL_eps HPL_RnormI HPL_Anorm1 HPL_AnormI HPL_Xnorm1 HPL_XnormI HPL_BnormI HPL_N
HPL_NB HPL_nprow HPL_npcol HPL_depth HPL_nbdiv HPL_nbmin HPL_cpfact HPL_crfact HPL_ctop
HPL_order""".split() + [f"HPL_{k}MACH_{n}" for k in "ds" for n in (
    "EPS SFMIN BASE PREC MLEN RND EMIN RMIN EMAX RMAX".split())] + """dweps sweps HPLMaxProcs
HPLMinProcs DGEMM_N StarDGEMM_Gflops SingleDGEMM_Gflops PTRANS_GBs PTRANS_time
PTRANS_residual PTRANS_n PTRANS_nb PTRANS_nprow PTRANS_npcol""".split() + [
    f"MPIRandomAccess{lcg}_{k}" for lcg in ("_LCG", "") for k in (
        "N time CheckTime Errors ErrorsFraction ExeUpdates GUPs TimeBound Algorithm".split())
] + """RandomAccess_LCG_N StarRandomAccess_LCG_GUPs SingleRandomAccess_LCG_GUPs RandomAccess_N
StarRandomAccess_GUPs SingleRandomAccess_GUPs STREAM_VectorSize STREAM_Threads StarSTREAM_Copy
StarSTREAM_Scale StarSTREAM_Add StarSTREAM_Triad SingleSTREAM_Copy SingleSTREAM_Scale
SingleSTREAM_Add SingleSTREAM_Triad FFT_N StarFFT_Gflops SingleFFT_Gflops MPIFFT_N
MPIFFT_Gflops MPIFFT_maxErr MPIFFT_Procs MaxPingPongLatency_usec
RandomlyOrderedRingLatency_usec MinPingPongBandwidth_GBytes
NaturallyOrderedRingBandwidth_GBytes RandomlyOrderedRingBandwidth_GBytes
MinPingPongLatency_usec AvgPingPongLatency_usec MaxPingPongBandwidth_GBytes
AvgPingPongBandwidth_GBytes NaturallyOrderedRingLatency_usec FFTEnblk FFTEnp FFTEl2size M_OPENMP
omp_get_num_threads omp_get_max_threads omp_get_num_procs MemProc MemSpec MemVal""".split() + [
    f"MPIFFT_time{i}" for i in range(7)] + """CPS_HPCC_FFT_235 CPS_HPCC_FFTW_ESTIMATE
CPS_HPCC_MEMALLCTR CPS_HPL_USE_GETPROCESSTIMES CPS_RA_SANDIA_NOPT CPS_RA_SANDIA_OPT2
CPS_USING_FFTW""".split()

# The keys HPCC prints with %e, and with %c or %s; HPCC prints the rest of its numbers
# with %d when they are counts, else with %g (G_KEYS).
E_KEYS = {"MPI_Wtick", "dweps", "sweps", *(k for k in HPCC15_KEYS if "MACH_" in k)}
TEXT_KEYS = {"VersionRelease", "LANG", "HPL_cpfact", "HPL_crfact", "HPL_ctop", "HPL_order"}
G_KEYS = {key for key in HPCC15_KEYS if re.search(
    r"Tflops|Gflops|GBs|GUPs|STREAM_(Copy|Scale|Add|Triad)|_usec|_GBytes|time|Time|Fraction|"
    r"norm|HPL_eps|residual|maxErr|MemProc|MemVal", key)}

# The strict form of "a float with a decimal point": what a parser that requires the
# point reads, with an optional sign and exponent (e.g. "1.000000e-06").
POINT_FLOAT = re.compile(r"^(\w+)=(-?\d+\.\d*(?:[eE][-+]?\d+)?)$")
# What HPCC's %g would make an exponent or an integer: a %g key's value must be plain
# fixed point.
FIXED_POINT = re.compile(r"-?\d+\.\d+")

# Ramble's hpcc application (GoogleCloudPlatform/ramble,
# var/ramble/repos/builtin/applications/hpcc/application.py): its figures of merit,
# each read by `<key>=(?P<val>[0-9]+\.[0-9]+)`, searched inside the summary.
RAMBLE_KEYS = """HPL_Tflops StarDGEMM_Gflops SingleDGEMM_Gflops PTRANS_GBs MPIRandomAccess_GUPs
MPIRandomAccess_LCG_GUPs StarRandomAccess_GUPs SingleRandomAccess_GUPs StarSTREAM_Copy
StarSTREAM_Scale StarSTREAM_Add StarSTREAM_Triad SingleSTREAM_Copy SingleSTREAM_Scale
SingleSTREAM_Add SingleSTREAM_Triad StarFFT_Gflops SingleFFT_Gflops MPIFFT_Gflops
MaxPingPongLatency_usec RandomlyOrderedRingLatency_usec MinPingPongBandwidth_GBytes
NaturallyOrderedRingBandwidth_GBytes RandomlyOrderedRingBandwidth_GBytes""".split()
RAMBLE_VALUE = r"=(?P<val>[0-9]+\.[0-9]+)"

# PerfKitBenchmarker's hpcc benchmark (GoogleCloudPlatform/PerfKitBenchmarker,
# perfkitbenchmarker/linux_benchmarks/hpcc_benchmark.py, ParseOutput): every `key=value`
# through regex_util.ExtractAllFloatMetrics (its FLOAT_REGEX, Python's scanf recipe),
# then these keys again through `<key>=([0-9]*\.[0-9]*)`.
PKB_ALL = re.compile(r"(\w+)=([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)")
PKB_KEYS = ["HPL_Tflops", "SingleRandomAccess_GUPs", "SingleSTREAM_Copy", "SingleSTREAM_Scale",
            "SingleSTREAM_Add", "SingleSTREAM_Triad", "PTRANS_GBs"]
PKB_VALUE = r"=([0-9]*\.[0-9]*)"

BEGIN, END = "Begin of Summary section.", "End of Summary section."


def block_pairs(text: str) -> List[Tuple[str, str]]:
    """The key=value pairs between the Begin and End lines, which must each appear once,
    with no key=value line outside them."""
    lines = text.splitlines()
    assert lines.count(BEGIN) == 1 and lines.count(END) == 1, text
    begin, end = lines.index(BEGIN), lines.index(END)
    outside = [line for line in lines[:begin] + lines[end + 1:] if re.match(r"^\w+=", line)]
    assert outside == [], outside
    return [tuple(line.split("=", 1)) for line in lines[begin + 1:end]]  # type: ignore


def _formats_problems(pairs: List[Tuple[str, str]]) -> List[str]:
    problems = []
    for key, value in pairs:
        if key in G_KEYS:
            ok = POINT_FLOAT.match(f"{key}={value}") and FIXED_POINT.fullmatch(value)
        elif key in E_KEYS:
            ok = POINT_FLOAT.match(f"{key}={value}") and "e" in value
        elif key in TEXT_KEYS:
            ok = value != ""
        else:
            ok = re.fullmatch(r"-?\d+", value)
        if not ok:
            problems.append(f"{key}={value}")
    return problems


def _parser_problems(text: str, values: Dict[str, str]) -> List[str]:
    """Keys with a rate (non-negative: measured) that Ramble's or PerfKitBenchmarker's
    expressions miss or read other than as printed."""
    problems = []
    for key, value_re in [(k, RAMBLE_VALUE) for k in RAMBLE_KEYS] + [
            (k, PKB_VALUE) for k in PKB_KEYS]:
        if values[key].startswith("-"):
            continue  # HPCC's "not run" -1: no figure to read
        found = re.search(key + value_re, text)
        if found is None or found.group(1) != values[key]:
            problems.append(f"{key}={values[key]} read as {found and found.group(1)}")
    pkb = {key: float(value) for key, value, *_ in PKB_ALL.findall(text)}
    problems += [f"PerfKitBenchmarker read {key}={pkb.get(key)} for {value}"
                 for key, value in values.items()
                 if key not in TEXT_KEYS and pkb.get(key) != float(value)]
    return problems


def parsed_block(text: str) -> Dict[str, str]:
    """The block's values by key, after checking that it has every HPCC 1.5 key once in
    HPCC's order, each in its format, and that the parsers read every figure as printed."""
    pairs = block_pairs(text)
    assert [key for key, _ in pairs] == HPCC15_KEYS
    assert _formats_problems(pairs) == []
    values = dict(pairs)
    assert _parser_problems(text, values) == []
    return values
