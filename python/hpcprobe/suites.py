"""Suites: fixed lists of benchmark launches for `hpcprobe run --suite NAME`."""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from hpcprobe.errors import UsageError

QUICK_REPEAT = 3
QUICK_BUDGET_S = 300.0
# --scale chooses the RandomAccess table size (log2 of 64-bit words): "default" is
# what `make run` measures, "tiny" proves the whole path works in seconds (tests, CI).
SCALES: Dict[str, int] = {"default": 24, "tiny": 14}


@dataclass(frozen=True)
class SuiteStep:
    """One launch of a suite; `algorithm` is the --algo it passes, if any."""

    benchmark: str
    variant: str
    bench_options: Tuple[str, ...]
    time_budget_s: float
    algorithm: Optional[str] = None

    @property
    def name(self) -> str:
        words = (self.benchmark, self.variant, self.algorithm)
        return " ".join(word for word in words if word)


def _quick(table_log2: int) -> List[SuiteStep]:
    options = ("--table-log2", str(table_log2), "--repeat", str(QUICK_REPEAT))
    steps = [
        SuiteStep("ra", variant, options, QUICK_BUDGET_S)
        for variant in ("single", "star", "mpi")
    ]
    # After HPCC's reference algorithm, Plimpton et al.'s hypercube: the optimised rate.
    hypercube = options + ("--algo", "hypercube")
    return steps + [SuiteStep("ra", "mpi", hypercube, QUICK_BUDGET_S, "hypercube")]


_SUITES = {"quick": _quick}
SUITE_NAMES = tuple(_SUITES)


def suite_steps(name: str, scale: str = "default") -> List[SuiteStep]:
    if name not in _SUITES:
        raise UsageError(f"unknown suite '{name}' (allowed: {', '.join(SUITE_NAMES)})")
    if scale not in SCALES:
        raise UsageError(f"unknown scale '{scale}' (allowed: {', '.join(SCALES)})")
    return _SUITES[name](SCALES[scale])


def describe_suite(name: str) -> str:
    """One line for `hpcprobe list`."""
    steps = suite_steps(name)
    scales = ", ".join(f"{scale} 2^{log2}" for scale, log2 in SCALES.items())
    return (
        f"{name}: {', '.join(step.name for step in steps)}; {QUICK_REPEAT} repetitions each, "
        f"table words per --scale: {scales}; budget {QUICK_BUDGET_S:g} s each"
    )
