"""The launches that measure the machine's own limits (docs/kernels/peak.md): the clock of
every core at once, the FMA peak on one core and on all (double and single precision),
and the load, copy and triad bandwidth of each cache level and of memory, on one core and
on all. `hpcprobe peak`, `hpcprobe run --suite peak` and, first and shorter, the main
job run them; the limits layer (hpcprobe/limits/) reads their records as ceilings.

Single-core launches run on one rank; the others on the run's ranks (a rank per core
where the run binds them)."""

from typing import Dict, List, Mapping

from hpcprobe.cli_described import bench_step_options
from hpcprobe.suite.step import SuiteStep

PEAK_BUDGET_S = 300.0
# Per scale and use, by the bench option's attribute (cli_described.bench_values).
# full: `hpcprobe peak` and the peak suite; main: the main job's share of its three
# minutes (a few seconds: the ceilings need medians, not HPCC's rigour); tiny: tests.
_OPTIONS: Dict[str, Dict[str, Dict[str, str]]] = {
    "full": {"clock": {"repeat": "5"},
             "flops": {"repeat": "5", "min_time": "0.2"},
             "bandwidth": {"repeat": "5", "min_time": "0.1"}},
    "main": {"clock": {"repeat": "3"},
             "flops": {"repeat": "3", "min_time": "0.1"},
             "bandwidth": {"repeat": "3", "min_time": "0.05"}},
    "tiny": {"clock": {"repeat": "2"},
             "flops": {"repeat": "2", "min_time": "0.01"},
             "bandwidth": {"repeat": "2", "min_time": "0.005", "levels": "l1,l2"}},
}
_SINGLE_PRECISION = {"precision": "single"}


def _step(variant: str, values: Mapping[str, str], label: str = "") -> SuiteStep:
    """A launch of `hpcprobe-bench peak VARIANT` ("flops-single": one rank)."""
    return SuiteStep("peak", variant, bench_step_options("peak", variant, values),
                     PEAK_BUDGET_S, label=label or None,
                     ranks=1 if variant.endswith("-single") else None)


def peak_steps(use: str = "full") -> List[SuiteStep]:
    """The launches of `use` (full, main or tiny), in order: the clock, the flop rates
    (double, then single precision), the bandwidths."""
    options = _OPTIONS[use]
    flops = options["flops"]
    single_precision = {**flops, **_SINGLE_PRECISION}
    return [
        _step("clock", options["clock"]),
        _step("flops-single", flops),
        _step("flops-star", flops),
        _step("flops-single", single_precision, "single precision"),
        _step("flops-star", single_precision, "single precision"),
        _step("bandwidth-single", options["bandwidth"]),
        _step("bandwidth-star", options["bandwidth"]),
    ]


def describe_peak(steps: List[SuiteStep]) -> str:
    return (f"{', '.join(step.name for step in steps)}: the clock, FMA peaks and each "
            "level's bandwidth, one core and every core (docs/kernels/peak.md)")
