"""The main job (`hpcprobe run`, `make run`): processor, memory, interconnect and
RandomAccess in a few minutes, every step validated, sized by the sizing layer.

Every size comes from the sizing layer of the bench (core/runtime/sizing.c), on the nodes
the ranks run on: STREAM arrays of 4x each rank's share of the caches, the latency sweep
to 4x the caches one core reaches, RandomAccess tables by the caches (--size-rule caches),
all under the main job's memory cap (MEMORY_CAP of each node's available memory). What is
chosen here is time, not size: HPL's N for its share of the budget at the DGEMM rate just
measured (no larger than the cap allows), and the time boxes of the steps whose work grows
faster than the ranks (b_eff's pair times, the pair matrix's budget).
The interconnect steps need two ranks; on one they run on two (sharing a core).
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.cli_described import ALGO_OPTION, bench_step_options
from hpcprobe.report.common import Record, last_of
from hpcprobe.samples import metric_median
from hpcprobe.suite.peak_steps import peak_steps
from hpcprobe.suite.step import SuiteStep

BUDGET_S = 600.0           # each launch is stopped past this (a hang, not the plan)
RUN_BUDGET_S = 180.0       # the main job's promise: the plan fits it at any P
MEMORY_CAP = 0.25          # of each node's available memory, over all its ranks
HPL_EFFICIENCY = 0.8       # what HPL's N assumes of the DGEMM rate before a run has shown it
HPL_MIN_N = 1000
HPL_NB = 192               # the bench's block size: N in whole blocks
# HPL's share of the budget: what the other steps leave, within these bounds.
HPL_MIN_S, HPL_MAX_S = 10.0, 60.0
# FFT: 2^20 complex points (16 MiB) per rank, not the caches' rule: FFTW_MEASURE plans
# for tens of seconds beyond that (2^22 took 29 s here).
FFT_LOG2 = "20"
# b_eff's ping-pong pairs grow as P^2 up to HPCC's 10 + 30 s; the main job gives them
# a few seconds (its record says so).
_BEFF = {"latency_pairs_time": "1", "bandwidth_pairs_time": "3"}

# Per scale, by the bench option's attribute (cli_described.bench_values).
_DENSE = {
    "default": {"dgemm": {"n": "2000", "repeat": "3"},
                "fft": {"log2": FFT_LOG2, "repeat": "3"}},
    "tiny": {"dgemm": {"n": "200", "repeat": "2"}, "fft": {"log2": "12", "repeat": "2"}},
}
# Per scale, the interconnect steps' (benchmark, variant, bench options by attribute);
# their names come from the bench's description (describe.py).
_INTERCONNECT: Dict[str, Tuple[Tuple[str, str, Mapping[str, str]], ...]] = {
    "default": (("comm", "all", {"functions": "pingpong,allreduce", "sizes": "8,1M"}),
                ("beff", "hpcc", _BEFF),
                ("pairs", "bandwidth", {"size": "1M", "repeat": "5", "sample_time": "0.02",
                                        "matrix_time": "10"})),
    "tiny": (("comm", "all", {"functions": "pingpong,allreduce", "sizes": "8,4K",
                              "time_per_size": "0.002"}),
             ("beff", "hpcc", {"latency_pairs_time": "1", "bandwidth_pairs_time": "1"}),
             ("pairs", "bandwidth", {"size": "64K", "repeat": "3", "sample_time": "0.001",
                                     "matrix_time": "1"})),
}
_TINY_STREAM = {"array_bytes": "1M", "repeat": "3"}
# STREAM: 5 iterations (4 timed, the first a warm-up) rather than its 10; the memory
# suite runs the 10.
_STREAM_REPEAT = {"repeat": "5"}
_TINY_LATENCY_MAX = "1M"
_TINY_HPL = {"n": "400", "nb": "32"}
# The latency sweep: every rank at once, from 4K, one working set per doubling.
_LATENCY = {"copies": "all", "min_bytes": "4K", "points_per_octave": "1"}
_TINY_RA_LOG2 = "14"
_CAP = {"memory_cap": str(MEMORY_CAP)}


@dataclass
class MainSizing:
    """What the plan decided for HPL: the largest N the memory cap allows (the sizing
    layer's, None when not known), HPL's seconds of the budget, and the DGEMM rate per
    rank to size by before (or without) one measured in the run."""

    hpl_max_n: Optional[int] = None
    hpl_target_s: float = 30.0
    dgemm_rate_hint: Optional[float] = None
    # HPL over the ranks' DGEMM rate: an earlier run's on this machine and rank count
    # (8 ranks sharing 2 cores reached about 0.2, where 0.8 made HPL take 270 s for
    # its 60), else HPL_EFFICIENCY.
    hpl_efficiency: float = HPL_EFFICIENCY


def hpl_order(dgemm_rate_per_rank: float, ranks: int, target_s: float,
              max_n: Optional[int], efficiency: float = HPL_EFFICIENCY) -> int:
    """HPL's N for about `target_s`: 2/3 N^3 flop at `efficiency` of the ranks' DGEMM
    rate, in whole blocks, no larger than `max_n`."""
    flops = target_s * efficiency * dgemm_rate_per_rank * ranks
    by_time = int((1.5 * flops) ** (1.0 / 3.0))
    order = min(by_time, max_n) if max_n else by_time
    return max(HPL_MIN_N, order // HPL_NB * HPL_NB)


def hpl_options(records: Sequence[Record], ranks: int, sizing: MainSizing) -> Tuple[str, ...]:
    dgemm = last_of(records, "dgemm", "star")
    rate = metric_median(dgemm, "flop_rate") if dgemm is not None else None
    rate = rate or sizing.dgemm_rate_hint
    if not rate:  # no DGEMM rate at all: HPL still runs, at the smallest time-boxed size
        return bench_step_options("hpl", "mpi", {"n": str(HPL_MIN_N), **_CAP})
    n = hpl_order(rate, ranks, sizing.hpl_target_s, sizing.hpl_max_n, sizing.hpl_efficiency)
    return bench_step_options("hpl", "mpi", {"n": str(n), **_CAP})


def _ra_steps(scale: str, ranks: int) -> List[SuiteStep]:
    extra = int(math.floor(math.log2(ranks)))  # mpi: one table over every rank's memory

    def table(variant: str, global_table: bool) -> Tuple[str, ...]:
        if scale == "tiny":
            log2 = int(_TINY_RA_LOG2) + (extra if global_table else 0)
            return bench_step_options("ra", variant, {"table_log2": str(log2), **_CAP})
        return bench_step_options("ra", variant, {"size_rule": "caches", **_CAP})

    return [SuiteStep("ra", "single", table("single", False), BUDGET_S),
            SuiteStep("ra", "star", table("star", False), BUDGET_S),
            # Plimpton et al.'s hypercube: the fastest compliant algorithm on every count
            # of ranks measured (docs/kernels/ra.md).
            SuiteStep("ra", "mpi", table("mpi", True) + (ALGO_OPTION, "hypercube"), BUDGET_S,
                      "hypercube")]


def _interconnect_steps(scale: str, ranks: int) -> List[SuiteStep]:
    """comm, b_eff and pairs need two ranks: on one they run on two (sharing a core)."""
    pair_ranks = None if ranks >= 2 else 2
    return [SuiteStep(benchmark, variant,
                      bench_step_options(benchmark, variant, values), BUDGET_S,
                      ranks=pair_ranks)
            for benchmark, variant, values in _INTERCONNECT[scale]]


def main_steps(scale: str, ranks: int, sizing: Optional[MainSizing] = None) -> List[SuiteStep]:
    """The main job's launches in order: the machine's limits (peak_steps: its ceilings,
    which every later figure is set beside), memory, processor, interconnect,
    RandomAccess."""
    dense, tiny = _DENSE[scale], scale == "tiny"
    sizing = sizing or MainSizing()
    # More ranks than cores (a laptop, a test) share cores: the user asked for them, and
    # the records say so; with a rank per core the flag changes nothing.
    shared = ("oversubscribe",)
    stream = {**(_TINY_STREAM if tiny else _STREAM_REPEAT), **_CAP}
    latency = bench_step_options("mem", "latency", {
        **_LATENCY, "min_time": "0.002" if tiny else "0.005", "repeat": "3", **_CAP,
        **({"max_bytes": _TINY_LATENCY_MAX} if tiny else {})}, shared)

    def hpl_sized(records: Sequence[Record]) -> Tuple[str, ...]:
        if tiny:
            return bench_step_options("hpl", "mpi", {**_TINY_HPL, **_CAP})
        return hpl_options(records, ranks, sizing)

    def dense_step(benchmark: str, variant: str) -> SuiteStep:
        return SuiteStep(benchmark, variant, bench_step_options(
            benchmark, variant, {**dense[benchmark], **_CAP}), BUDGET_S)

    return peak_steps("tiny" if tiny else "main") + [
        SuiteStep("stream", "single", bench_step_options("stream", "single", stream), BUDGET_S),
        SuiteStep("stream", "star", bench_step_options("stream", "star", stream, shared),
                  BUDGET_S),
        SuiteStep("mem", "latency", latency, BUDGET_S),
        dense_step("dgemm", "star"),
        SuiteStep("hpl", "mpi", (), BUDGET_S, sized=hpl_sized),
        dense_step("fft", "single"),
        dense_step("fft", "star"),
    ] + _interconnect_steps(scale, ranks) + _ra_steps(scale, ranks)


def describe_main(steps: Sequence[SuiteStep]) -> str:
    return (f"{', '.join(step.name for step in steps)}; first the machine's limits (clock, "
            "FMA peaks, each level's bandwidth); sized by the sizing layer on the "
            "nodes (STREAM arrays 4x each rank's share of the caches, latency to 4x a "
            "core's caches, RandomAccess tables by the caches) under a memory cap of "
            f"{MEMORY_CAP:g}; HPL's N for its share of the {RUN_BUDGET_S:g} s budget at the "
            "DGEMM rate measured; with a GPU on the node (hpcprobe-bench gpu info), gpu stream, "
            "gpu ra atomic and gpu copy on device 0; then the headline table and report.html; "
            "tiny: seconds in all")
