"""Suites: fixed lists of benchmark launches for `hpcprobe run --suite NAME`."""

from typing import Callable, Dict, List, Optional

from hpcprobe.cli_described import ALGO_OPTION, bench_step_options
from hpcprobe.errors import UsageError
from hpcprobe.families import FAMILIES
from hpcprobe.families.base import Suite
from hpcprobe.suite.main_job import describe_main, main_steps
from hpcprobe.suite.step import SuiteStep

QUICK_REPEAT = 3
QUICK_BUDGET_S = 300.0
# --scale chooses the RandomAccess table size (log2 of 64-bit words): "default" is
# what `make run` measures, "tiny" proves the whole path works in seconds (tests, CI).
SCALES: Dict[str, int] = {"default": 24, "tiny": 14}

# The memory suite (docs/kernels/memory.md). Its default scale keeps the bench's own
# sizes: STREAM arrays and stride buffers 4x the last-level caches, block sizes up to
# that, latency working sets up to 2 GiB (halved by the bench until the copies fit in
# half the available memory). On a 2-core VM (32 MiB L3) the whole suite took 70 s, the
# two latency runs (huge pages off, on) 26 s each; each run gets a generous budget.
MEMORY_BUDGET_S = 600.0
# --scale tiny: every size small, one-millisecond samples, two repetitions (the
# fewest the mem kernels take): seconds in all, for tests and CI. By the bench option's
# attribute (cli_described.bench_values).
_TINY_REPEAT = {"repeat": "2"}
_TINY_MIN_TIME = {"min_time": "0.001"}
_MEMORY_SIZES: Dict[str, Dict[str, Dict[str, str]]] = {
    "default": {
        "stream": {},
        "stride": {},
        "block": {},
        "latency": {},
    },
    "tiny": {
        "stream": {"array_bytes": "1M", **_TINY_REPEAT},
        "stride": {"buffer_bytes": "256K", "max_stride": "64K", **_TINY_MIN_TIME,
                   **_TINY_REPEAT},
        "block": {"max_bytes": "256K", **_TINY_MIN_TIME, **_TINY_REPEAT},
        "latency": {"max_bytes": "1M", **_TINY_MIN_TIME, **_TINY_REPEAT},
    },
}


def _quick(scale: str) -> List[SuiteStep]:
    values = {"table_log2": str(SCALES[scale]), "repeat": str(QUICK_REPEAT)}
    steps = [
        SuiteStep("ra", variant, bench_step_options("ra", variant, values), QUICK_BUDGET_S)
        for variant in ("single", "star", "mpi")
    ]
    # After HPCC's reference algorithm, Plimpton et al.'s hypercube: the optimised rate.
    hypercube = bench_step_options("ra", "mpi", values) + (ALGO_OPTION, "hypercube")
    return steps + [SuiteStep("ra", "mpi", hypercube, QUICK_BUDGET_S, "hypercube")]


def _memory(scale: str) -> List[SuiteStep]:
    """STREAM single and star, then paper 002's stride and block sweeps and the latency
    curve: every rank at once (--copies all, one rank per core) except the block sweeps,
    which compare the -O3 and -O0 builds on one rank alone."""
    sizes = _MEMORY_SIZES[scale]
    every = {"copies": "all"}

    def step(benchmark: str, variant: str, values: Dict[str, str], label: str = "",
             ranks: Optional[int] = None) -> SuiteStep:
        return SuiteStep(benchmark, variant, bench_step_options(benchmark, variant, values),
                         MEMORY_BUDGET_S, label=label or None, ranks=ranks)

    block = {"sweep": "block", "copies": "one", **sizes["block"]}
    return [
        step("stream", "single", sizes["stream"]),
        step("stream", "star", {**every, **sizes["stream"]}),
        step("mem", "stride", {"sweep": "stride", **every, **sizes["stride"]}),
        step("mem", "stride", {**block, "build_variant": "O3"}, "block O3", ranks=1),
        step("mem", "stride", {**block, "build_variant": "O0"}, "block O0", ranks=1),
        step("mem", "latency", {"hugepages": "off", **every, **sizes["latency"]},
             "hugepages off"),
        step("mem", "latency", {"hugepages": "on", **every, **sizes["latency"]},
             "hugepages on"),
    ]


# Then the suites the families own (the registry's Family.suites), in the registry's order.
FAMILY_SUITES: Dict[str, Suite] = {suite.name: suite for family in FAMILIES
                                   for suite in family.suites}
_SUITES: Dict[str, Callable[[str, int], List[SuiteStep]]] = {
    "main": main_steps, "quick": lambda scale, ranks: _quick(scale),
    "memory": lambda scale, ranks: _memory(scale),
    **{name: suite.steps for name, suite in FAMILY_SUITES.items()}}
SUITE_NAMES = tuple(_SUITES)
# `hpcprobe run` without --suite: the main job.
DEFAULT_SUITE = "main"


def suite_steps(name: str, scale: str = "default", ranks: int = 2) -> List[SuiteStep]:
    """The launches of suite `name` at `scale` for a run on `ranks` ranks."""
    if name not in _SUITES:
        raise UsageError(f"unknown suite '{name}' (allowed: {', '.join(SUITE_NAMES)})")
    if scale not in SCALES:
        raise UsageError(f"unknown scale '{scale}' (allowed: {', '.join(SCALES)})")
    return _SUITES[name](scale, ranks)


def _describe_quick(steps: List[SuiteStep]) -> str:
    scales = ", ".join(f"{scale} 2^{log2}" for scale, log2 in SCALES.items())
    return (
        f"RandomAccess only: {', '.join(step.name for step in steps)}; {QUICK_REPEAT} "
        "repetitions each, "
        f"table words per --scale: {scales}; budget {QUICK_BUDGET_S:g} s each"
    )


def _describe_memory(steps: List[SuiteStep]) -> str:
    return (
        f"{', '.join(step.name for step in steps)}; stream star, mem stride and mem "
        "latency with --copies all (one rank per core, each against one copy alone), the "
        "block sweeps on 1 rank; default scale: the bench's sizes (4x the last-level "
        "caches; latency working sets up to 2 GiB, less where memory is short); tiny: 1 MiB "
        "STREAM arrays, strides up to 64 KiB, blocks up to 256 KiB, latency up to 1 MiB, "
        f"1 ms samples, 2 repetitions; budget {MEMORY_BUDGET_S:g} s each"
    )


_DESCRIBE = {"main": describe_main, "quick": _describe_quick, "memory": _describe_memory,
             **{name: suite.describe for name, suite in FAMILY_SUITES.items()}}


def describe_suite(name: str) -> str:
    """One line for `hpcprobe list`."""
    return f"{name}: {_DESCRIBE[name](suite_steps(name))}"
