"""The main job (`hpcprobe run`, `make run`): processor, memory, interconnect and
RandomAccess in a few minutes, every step validated, sized from what the run finds.

Steps are sized from the records measured before them in the same run, so that the sizes
follow the nodes the ranks run on (not the machine hpcprobe was started on):
- STREAM runs first, at the bench's own size (4x the last-level cache); its record names
  that cache, which sizes the latency sweep (to 8x it) and the RandomAccess tables.
- DGEMM star runs before HPL, whose N is chosen so that HPL takes about HPL_TARGET_S at
  HPL_EFFICIENCY of the DGEMM rate just measured (a time-boxed N), and at most a matrix
  of 1/8 of the nodes' memory.
- The interconnect steps need two ranks; on one they run on two (sharing a core).
"""

import math
from typing import List, Sequence, Tuple

from hpcprobe import describe
from hpcprobe.cli_described import ALGO_OPTION, bench_values
from hpcprobe.report.common import Record, last_of, number, of_benchmark, parameter, section_of
from hpcprobe.stats import metric_median
from hpcprobe.suite_step import SuiteStep

BUDGET_S = 600.0
HPL_TARGET_S = 15.0
HPL_EFFICIENCY = 0.8
HPL_MEMORY_SHARE = 8       # the matrix takes at most 1/8 of the nodes' memory
HPL_MIN_N = 1000
# The cache the steps size from when STREAM could not say (its record failed).
FALLBACK_LLC_BYTES = 32 << 20
LATENCY_OVER_LLC = 8       # the latency sweep ends in DRAM, 8x the last-level cache
RA_TABLE_OVER_LLC = 8      # a RandomAccess table per rank of 8x the last-level cache...
RA_MEMORY_SHARE = 8        # ...and at most 1/8 of a node's memory over its ranks

# Per scale: DGEMM's order, the FFT's log2 size (2^20 complex points: 16 MiB, planned by
# FFTW_MEASURE in seconds; 2^22 took 29 s to plan here), the comm sizes and time per size,
# b_eff's and pairs' options, the tiny sizes of the steps sized from records.
_FIXED = {
    "default": {
        "dgemm": ("--n", "2000", "--repeat", "3"),
        "fft": ("--log2", "20", "--repeat", "3"),
        "comm": ("--functions", "pingpong,allreduce", "--sizes", "8,1M"),
        "beff": (),
        "pairs": ("--size", "1M", "--repeat", "1"),
    },
    "tiny": {
        "dgemm": ("--n", "200", "--repeat", "2"),
        "fft": ("--log2", "12", "--repeat", "2"),
        "comm": ("--functions", "pingpong,allreduce", "--sizes", "8,4K",
                 "--time-per-size", "0.002"),
        "beff": ("--latency-pairs-time", "1", "--bandwidth-pairs-time", "1"),
        "pairs": ("--size", "64K", "--repeat", "1"),
    },
}
_TINY_STREAM = ("--array-bytes", "1M", "--repeat", "3")
_TINY_LATENCY_MAX = "1M"
_TINY_HPL = ("--n", "400", "--nb", "32")
_TINY_RA_LOG2 = 14


def llc_bytes(records: Sequence[Record]) -> float:
    """The last-level cache of the nodes, as the STREAM records found it."""
    for record in reversed(of_benchmark(records, "stream")):
        found = number(parameter(record, "llc_bytes"))
        if found:
            return found
    return float(FALLBACK_LLC_BYTES)


def _pow2_at_least(value: float) -> int:
    return 1 << max(0, math.ceil(math.log2(max(value, 1.0))))


def _node_memory(records: Sequence[Record]) -> Tuple[float, int]:
    """(memory of one node in bytes, nodes) from the latest record that says."""
    for record in reversed(records):
        metadata = section_of(record, "metadata")
        memory = number(metadata.get("memory_bytes_per_node"))
        hosts = metadata.get("hosts")
        if memory:
            return memory, len(hosts) if isinstance(hosts, list) and hosts else 1
    return 0.0, 1


def latency_options(records: Sequence[Record]) -> Tuple[str, ...]:
    return ("--max-bytes", str(_pow2_at_least(LATENCY_OVER_LLC * llc_bytes(records))))


def hpl_order(dgemm_rate_per_rank: float, ranks: int, node_bytes: float, nodes: int) -> int:
    """HPL's N for about HPL_TARGET_S: 2/3 N^3 flop at HPL_EFFICIENCY of the ranks' DGEMM
    rate, no larger than a matrix of 1/HPL_MEMORY_SHARE of the nodes' memory."""
    flops = HPL_TARGET_S * HPL_EFFICIENCY * dgemm_rate_per_rank * ranks
    by_time = (1.5 * flops) ** (1.0 / 3.0)
    by_memory = math.sqrt(node_bytes * nodes / HPL_MEMORY_SHARE / 8.0) if node_bytes else by_time
    return max(HPL_MIN_N, int(min(by_time, by_memory)) // 8 * 8)


def hpl_options(records: Sequence[Record], ranks: int) -> Tuple[str, ...]:
    dgemm = last_of(records, "dgemm", "star")
    rate = metric_median(dgemm, "flop_rate") if dgemm is not None else None
    if not rate:  # DGEMM failed: HPL still runs, at the smallest time-boxed size
        return ("--n", str(HPL_MIN_N))
    memory, nodes = _node_memory(records)
    return ("--n", str(hpl_order(rate, ranks, memory, nodes)))


def ra_log2(records: Sequence[Record], ranks: int) -> int:
    """log2 of the words of one rank's table: 8x the last-level cache, at most 1/8 of a
    node's memory shared by the ranks on it."""
    words = _pow2_at_least(RA_TABLE_OVER_LLC * llc_bytes(records) / 8)
    memory, nodes = _node_memory(records)
    per_node = max(1, math.ceil(ranks / nodes))
    while memory and words > 1024 and 8 * words * per_node > memory / RA_MEMORY_SHARE:
        words //= 2
    return int(math.log2(words))


def _ra_steps(scale: str, ranks: int) -> List[SuiteStep]:
    extra = int(math.floor(math.log2(ranks)))  # mpi: one table over every rank's memory

    def table(variant: str, global_table: bool):
        def options(records: Sequence[Record]) -> Tuple[str, ...]:
            log2 = _TINY_RA_LOG2 if scale == "tiny" else ra_log2(records, ranks)
            # Named as the bench describes its table size (describe.py).
            return bench_values(describe.family("ra"), variant,
                                {"table_log2": str(log2 + (extra if global_table else 0))})
        return options

    return [SuiteStep("ra", "single", (), BUDGET_S, sized=table("single", False)),
            SuiteStep("ra", "star", (), BUDGET_S, sized=table("star", False)),
            # Plimpton et al.'s hypercube: the fastest compliant algorithm on every count
            # of ranks measured (docs/kernels/ra.md).
            SuiteStep("ra", "mpi", (ALGO_OPTION, "hypercube"), BUDGET_S, "hypercube",
                      sized=table("mpi", True))]


def main_steps(scale: str, ranks: int) -> List[SuiteStep]:
    """The main job's launches in order: memory, processor, interconnect, RandomAccess."""
    fixed = _FIXED[scale]
    tiny = scale == "tiny"
    # More ranks than cores (a laptop, a test) share cores: the user asked for them, and
    # the records say so; with a rank per core the flag changes nothing.
    stream = (_TINY_STREAM if tiny else ()) + ("--oversubscribe",)
    latency = ("--oversubscribe", "--copies", "all", "--min-bytes", "4K",
               "--points-per-octave", "1", "--min-time", "0.002" if tiny else "0.005",
               "--repeat", "3")
    pair_ranks = None if ranks >= 2 else 2

    def latency_sized(records: Sequence[Record]) -> Tuple[str, ...]:
        return ("--max-bytes", _TINY_LATENCY_MAX) if tiny else latency_options(records)

    def hpl_sized(records: Sequence[Record]) -> Tuple[str, ...]:
        return _TINY_HPL if tiny else hpl_options(records, ranks)

    return [
        SuiteStep("stream", "single", stream[:-1], BUDGET_S),
        SuiteStep("stream", "star", stream, BUDGET_S),
        SuiteStep("mem", "latency", latency, BUDGET_S, sized=latency_sized),
        SuiteStep("dgemm", "star", fixed["dgemm"], BUDGET_S),
        SuiteStep("hpl", "mpi", (), BUDGET_S, sized=hpl_sized),
        SuiteStep("fft", "single", fixed["fft"], BUDGET_S),
        SuiteStep("fft", "star", fixed["fft"], BUDGET_S),
        SuiteStep("comm", "all", fixed["comm"], BUDGET_S, ranks=pair_ranks),
        SuiteStep("beff", "hpcc", fixed["beff"], BUDGET_S, ranks=pair_ranks),
        SuiteStep("pairs", "bandwidth", fixed["pairs"], BUDGET_S, ranks=pair_ranks),
    ] + _ra_steps(scale, ranks)


def describe_main(steps: Sequence[SuiteStep]) -> str:
    return (f"{', '.join(step.name for step in steps)}; sized from the nodes found: STREAM "
            "at 4x the last-level cache, latency to 8x it, HPL's N for about "
            f"{HPL_TARGET_S:g} s at the DGEMM rate measured, RandomAccess tables of 8x the "
            "cache per rank; with a GPU on the node (hpcprobe-bench gpu info), gpu stream, "
            "gpu ra atomic and gpu copy on device 0; then the headline table and report.html; "
            "tiny: seconds in all")
