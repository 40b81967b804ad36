"""`hpcprobe run --suite hpcc`: every HPCC test in HPCC 1.5's order, all sized from one
HPL matrix order N as HPCC sizes them (docs/benchmarks.md, docs/cli.md), and
`hpcprobe config import-hpccinf FILE`, which reads N, NB and the grid from an HPCC input
file.

HPCC gives every test the memory of HPL's matrix: M = 8 N^2 / (P Q) bytes per rank. From
it: RandomAccess tables of the largest power of two of words in M (per rank; the mpi
table that times the ranks), STREAM arrays of M / 24 bytes' worth of doubles, DGEMM
matrices of order sqrt(M / 24), PTRANS of order N / 2, FFT vectors of the largest power
of two of complex points in M / 32 (per rank) and, distributed, in M / 64 per rank.
"""

import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.errors import UsageError
from hpcprobe.output_files import write_text_atomically
from hpcprobe.suite.step import SuiteStep

HPCC_BUDGET_S = 3600.0
DEFAULT_NB = 192
DEFAULT_FRACTION = 0.25
# --scale tiny: an order whose every test runs in well under a second (tests, CI).
TINY_N, TINY_NB = 400, 32
# Sizes below which a test measures nothing: RandomAccess and FFT need a few points.
_MIN_LOG2 = 4


@dataclass(frozen=True)
class HpccSizing:
    """HPL's order, block and grid, and where they came from."""

    n: int
    nb: int
    p: int
    q: int
    source: str
    lookahead: int = 1

    @property
    def ranks(self) -> int:
        return self.p * self.q

    @property
    def proc_bytes(self) -> float:
        return 8.0 * self.n * self.n / (self.p * self.q)


def square_grid(ranks: int) -> Tuple[int, int]:
    """HPL's advice: P <= Q, as square as the ranks allow."""
    p = max(d for d in range(1, int(math.isqrt(ranks)) + 1) if ranks % d == 0)
    return p, ranks // p


def parse_grid(text: str, ranks: int) -> Tuple[int, int]:
    match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", text)
    if not match:
        raise UsageError(f"--grid '{text}' is not a process grid (allowed: PxQ with P*Q = "
                         f"{ranks} ranks, e.g. 1x{ranks})")
    p, q = int(match.group(1)), int(match.group(2))
    if p * q != ranks:
        raise UsageError(f"--grid {text} has {p * q} processes but {ranks} ranks are launched "
                         f"(allowed: PxQ with P*Q = {ranks}, e.g. 1x{ranks})")
    return p, q


def _floor_log2(x: float) -> int:
    return max(0, math.floor(math.log2(x))) if x >= 1 else 0


def step_values(s: HpccSizing) -> Dict[str, Dict[str, str]]:
    """The bench option values of each test, by attribute (cli_described.bench_values),
    sized from N as HPCC sizes them."""
    m = s.proc_bytes
    grid = {"grid": f"{s.p}x{s.q}"}
    ra_local = max(_MIN_LOG2, _floor_log2(m / 8))
    fft_local = max(_MIN_LOG2, _floor_log2(m / 32))
    fft_mpi = max(_MIN_LOG2, _floor_log2(m / 64) + _floor_log2(s.ranks))
    dgemm_n = max(1, math.isqrt(int(m / 24)))
    stream_bytes = 8 * max(1024, int(m / 24))
    return {
        "ra_local": {"table_log2": str(ra_local)},
        "ra_mpi": {"table_log2": str(max(_MIN_LOG2, _floor_log2(m * s.ranks / 8)))},
        "ptrans": {"n": str(max(1, s.n // 2)), "nb": str(min(s.nb, max(1, s.n // 2))), **grid},
        "dgemm": {"n": str(dgemm_n)},
        "stream": {"array_bytes": str(stream_bytes)},
        "fft_local": {"log2": str(fft_local)},
        "fft_mpi": {"log2": str(fft_mpi)},
        "hpl": {"n": str(s.n), "nb": str(s.nb), "lookahead": str(s.lookahead), **grid},
    }


def hpcc_steps(s: HpccSizing) -> List[SuiteStep]:
    """Every HPCC test, in the order HPCC 1.5 runs them (b_eff before HPL)."""
    o = step_values(s)
    # HPCC's own generator: RandomAccess again with it (docs/kernels/ra.md).
    lcg = {"rng": "lcg"}

    def step(benchmark: str, variant: str, values: Dict[str, str], label: str = "") -> SuiteStep:
        return SuiteStep(benchmark, variant, bench_step_options(benchmark, variant, values),
                         HPCC_BUDGET_S, label=label or None)

    steps = [
        step("ra", "mpi", o["ra_mpi"]),
        step("ra", "star", o["ra_local"]),
        step("ra", "single", o["ra_local"]),
        step("ra", "mpi", {**o["ra_mpi"], **lcg}, "lcg"),
        step("ra", "star", {**o["ra_local"], **lcg}, "lcg"),
        step("ra", "single", {**o["ra_local"], **lcg}, "lcg"),
        step("ptrans", "mpi", o["ptrans"]),
        step("dgemm", "star", o["dgemm"]),
        step("dgemm", "single", o["dgemm"]),
        step("stream", "star", o["stream"]),
        step("stream", "single", o["stream"]),
        step("fft", "mpi", o["fft_mpi"]),
        step("fft", "star", o["fft_local"]),
        step("fft", "single", o["fft_local"]),
    ]
    # HPCC's LatencyBandwidth (b_eff) needs a pair of ranks; HPCC skips it on one.
    if s.ranks >= 2:
        steps.append(step("beff", "hpcc", {}))
    return steps + [step("hpl", "mpi", o["hpl"])]


def describe_sizing(s: HpccSizing) -> str:
    return (f"HPL N = {s.n}, NB = {s.nb}, grid {s.p}x{s.q} ({s.source}); "
            f"{8.0 * s.n * s.n / s.ranks / 2 ** 20:.1f} MiB per rank")


# --- hpccinf.txt -----------------------------------------------------------------------

def _numbers(line: str, count: int, what: str, where: str) -> List[int]:
    words = line.split()
    values = []
    for word in words[:count]:
        if not re.fullmatch(r"-?[0-9]+", word):
            break
        values.append(int(word))
    if len(values) < count:
        found = " ".join(words[:count]) or "nothing"
        raise UsageError(f"{where}: expected {count} whole number(s) ({what}), found '{found}'")
    return values


def parse_hpccinf(text: str, name: str) -> Dict[str, int]:
    """N, NB, P, Q, PMAP and the look-ahead depth of the first problem, grid and depth of an
    HPCC input file (HPL.dat's layout: lines 5-12, 24-25). Raises a UsageError naming the
    line that is wrong."""
    lines = text.splitlines()

    def field(number: int, count: int, what: str) -> List[int]:
        where = f"{name} line {number}"
        if len(lines) < number:
            raise UsageError(f"{where}: missing ({what}); an HPCC input file has the 31 lines "
                             "of HPL.dat's layout first")
        return _numbers(lines[number - 1], count, what, where)

    (ns,) = field(5, 1, "# of problem sizes")
    if ns < 1:
        raise UsageError(f"{name} line 5: # of problem sizes must be at least 1, not {ns}")
    n = field(6, 1, "Ns")[0]
    nbs = field(7, 1, "# of NBs")[0]
    nb = field(8, 1, "NBs")[0] if nbs >= 1 else 0
    pmap = field(9, 1, "PMAP process mapping")[0]
    (grids,) = field(10, 1, "# of process grids")
    p, q = field(11, 1, "Ps")[0], field(12, 1, "Qs")[0]
    depth = field(25, 1, "DEPTHs")[0] if field(24, 1, "# of lookahead depth")[0] >= 1 else 1
    problems = [(n < 1, 6, f"N must be at least 1, not {n}"),
                (nbs < 1 or nb < 1 or nb > n, 8, f"NB must be from 1 to N = {n}, not {nb}"),
                (pmap not in (0, 1), 9, f"PMAP must be 0 or 1, not {pmap}"),
                (grids < 1 or p < 1 or q < 1, 11, f"the grid must be at least 1x1, not {p}x{q}"),
                (depth < 0, 25, f"the look-ahead depth must be >= 0, not {depth}")]
    for bad, number, message in problems:
        if bad:
            raise UsageError(f"{name} line {number}: {message}")
    return {"n": n, "nb": nb, "p": p, "q": q, "pmap": pmap, "depth": depth}


def sizing_from_hpccinf(path: Path) -> Tuple[HpccSizing, List[str]]:
    """The sizing of an HPCC input file and what of it hpcprobe does differently."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    v = parse_hpccinf(text, str(path))
    notes = []
    if v["pmap"] == 1:
        notes.append("PMAP 1 (column-major) read: hpcprobe maps processes row-major")
    if v["depth"] > 1:
        notes.append(f"look-ahead depth {v['depth']} read: hpcprobe's HPL has depth 0 or 1; 1 "
                     "is used")
    return HpccSizing(v["n"], v["nb"], v["p"], v["q"], f"from {path}",
                      min(1, v["depth"])), notes


def write_config(sizing: HpccSizing, path: Path) -> None:
    """HpcprobeError (exit status 4) when it cannot be written."""
    write_text_atomically(path, json.dumps(asdict(sizing), indent=2) + "\n")


def read_config(path: Path) -> HpccSizing:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError:
        raise UsageError(f"{path} is not JSON (write one with 'hpcprobe config "
                         "import-hpccinf FILE')") from None
    keys = ("n", "nb", "p", "q")
    if not isinstance(data, dict) or not all(
            isinstance(data.get(key), int) and not isinstance(data.get(key), bool)
            and data[key] >= 1 for key in keys):
        raise UsageError(f"{path}: needs whole numbers >= 1 for {', '.join(keys)}")
    lookahead = data.get("lookahead", 1)
    return HpccSizing(data["n"], data["nb"], data["p"], data["q"], f"from {path}",
                      1 if lookahead not in (0, 1) else lookahead)


def sizing_from_memory(available_bytes: float, nodes: int, ranks: int, fraction: float,
                       nb: int, grid: Optional[Tuple[int, int]]) -> HpccSizing:
    """The largest N, a multiple of NB, whose matrix fits in `fraction` of the memory."""
    n = int(math.sqrt(fraction * available_bytes * max(1, nodes) / 8.0))
    n = max(nb, n - n % nb)
    p, q = grid or square_grid(ranks)
    return HpccSizing(n, nb, p, q, f"{fraction:g} of the available memory")


def tiny_hpcc_steps(scale: str, ranks: int) -> List[SuiteStep]:
    """HPCC's tests at --scale tiny on one rank; `run --suite hpcc` sizes them itself."""
    return hpcc_steps(HpccSizing(TINY_N, TINY_NB, 1, 1, "--scale tiny"))


def describe_hpcc_suite(steps: List[SuiteStep]) -> str:
    return (f"{', '.join(step.name for step in steps)}: every HPCC test in HPCC's order, "
            "sized from HPL's N (--n, --hpccinf, --config, or --memory-fraction, default "
            "0.25), then HPCC's summary block")
