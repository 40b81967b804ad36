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
from typing import Dict, List, Mapping, Sequence, Tuple

from hpcprobe.cli_described import ALGO_OPTION, bench_step_options
from hpcprobe.report.common import Record, last_of, number, of_benchmark, parameter, section_of
from hpcprobe.samples import metric_median
from hpcprobe.suite.step import SuiteStep

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

# Per scale, by the bench option's attribute (cli_described.bench_values): DGEMM's order
# and the FFT's log2 size (2^20 complex points: 16 MiB, planned by FFTW_MEASURE in
# seconds; 2^22 took 29 s to plan here).
_DENSE = {
    "default": {"dgemm": {"n": "2000", "repeat": "3"}, "fft": {"log2": "20", "repeat": "3"}},
    "tiny": {"dgemm": {"n": "200", "repeat": "2"}, "fft": {"log2": "12", "repeat": "2"}},
}
# Per scale, the interconnect steps' (benchmark, variant, bench options by attribute);
# their names come from the bench's description (describe.py).
_INTERCONNECT: Dict[str, Tuple[Tuple[str, str, Mapping[str, str]], ...]] = {
    "default": (("comm", "all", {"functions": "pingpong,allreduce", "sizes": "8,1M"}),
                ("beff", "hpcc", {}),
                ("pairs", "bandwidth", {"size": "1M", "repeat": "5", "sample_time": "0.02",
                                        "matrix_time": "10"})),
    "tiny": (("comm", "all", {"functions": "pingpong,allreduce", "sizes": "8,4K",
                              "time_per_size": "0.002"}),
             ("beff", "hpcc", {"latency_pairs_time": "1", "bandwidth_pairs_time": "1"}),
             ("pairs", "bandwidth", {"size": "64K", "repeat": "3", "sample_time": "0.001",
                                     "matrix_time": "1"})),
}
_TINY_STREAM = {"array_bytes": "1M", "repeat": "3"}
_TINY_LATENCY_MAX = "1M"
_TINY_HPL = {"n": "400", "nb": "32"}
# The latency sweep: every rank at once, from 4K, one working set per doubling.
_LATENCY = {"copies": "all", "min_bytes": "4K", "points_per_octave": "1"}
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
    size = _pow2_at_least(LATENCY_OVER_LLC * llc_bytes(records))
    return bench_step_options("mem", "latency", {"max_bytes": str(size)})


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
        return bench_step_options("hpl", "mpi", {"n": str(HPL_MIN_N)})
    memory, nodes = _node_memory(records)
    return bench_step_options("hpl", "mpi", {"n": str(hpl_order(rate, ranks, memory, nodes))})


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
            return bench_step_options(
                "ra", variant, {"table_log2": str(log2 + (extra if global_table else 0))})
        return options

    return [SuiteStep("ra", "single", (), BUDGET_S, sized=table("single", False)),
            SuiteStep("ra", "star", (), BUDGET_S, sized=table("star", False)),
            # Plimpton et al.'s hypercube: the fastest compliant algorithm on every count
            # of ranks measured (docs/kernels/ra.md).
            SuiteStep("ra", "mpi", (ALGO_OPTION, "hypercube"), BUDGET_S, "hypercube",
                      sized=table("mpi", True))]


def _interconnect_steps(scale: str, ranks: int) -> List[SuiteStep]:
    """comm, b_eff and pairs need two ranks: on one they run on two (sharing a core)."""
    pair_ranks = None if ranks >= 2 else 2
    return [SuiteStep(benchmark, variant,
                      bench_step_options(benchmark, variant, values), BUDGET_S,
                      ranks=pair_ranks)
            for benchmark, variant, values in _INTERCONNECT[scale]]


def main_steps(scale: str, ranks: int) -> List[SuiteStep]:
    """The main job's launches in order: memory, processor, interconnect, RandomAccess."""
    dense = _DENSE[scale]
    tiny = scale == "tiny"
    # More ranks than cores (a laptop, a test) share cores: the user asked for them, and
    # the records say so; with a rank per core the flag changes nothing.
    shared = ("oversubscribe",)
    stream = _TINY_STREAM if tiny else {}
    latency = bench_step_options("mem", "latency", {
        **_LATENCY, "min_time": "0.002" if tiny else "0.005", "repeat": "3"}, shared)

    def latency_sized(records: Sequence[Record]) -> Tuple[str, ...]:
        if tiny:
            return bench_step_options("mem", "latency", {"max_bytes": _TINY_LATENCY_MAX})
        return latency_options(records)

    def hpl_sized(records: Sequence[Record]) -> Tuple[str, ...]:
        if tiny:
            return bench_step_options("hpl", "mpi", _TINY_HPL)
        return hpl_options(records, ranks)

    return [
        SuiteStep("stream", "single", bench_step_options("stream", "single", stream), BUDGET_S),
        SuiteStep("stream", "star", bench_step_options("stream", "star", stream, shared),
                  BUDGET_S),
        SuiteStep("mem", "latency", latency, BUDGET_S, sized=latency_sized),
        SuiteStep("dgemm", "star", bench_step_options("dgemm", "star", dense["dgemm"]),
                  BUDGET_S),
        SuiteStep("hpl", "mpi", (), BUDGET_S, sized=hpl_sized),
        SuiteStep("fft", "single", bench_step_options("fft", "single", dense["fft"]), BUDGET_S),
        SuiteStep("fft", "star", bench_step_options("fft", "star", dense["fft"]), BUDGET_S),
    ] + _interconnect_steps(scale, ranks) + _ra_steps(scale, ranks)


def describe_main(steps: Sequence[SuiteStep]) -> str:
    return (f"{', '.join(step.name for step in steps)}; sized from the nodes found: STREAM "
            "at 4x the last-level cache, latency to 8x it, HPL's N for about "
            f"{HPL_TARGET_S:g} s at the DGEMM rate measured, RandomAccess tables of 8x the "
            "cache per rank; with a GPU on the node (hpcprobe-bench gpu info), gpu stream, "
            "gpu ra atomic and gpu copy on device 0; then the headline table and report.html; "
            "tiny: seconds in all")
