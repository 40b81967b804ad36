"""`hpcprobe run --suite comm` (docs/kernels/comm.md): every comm function, HPCC's b_eff
and the rank-pair matrix, on the run's ranks (two at least). Default scale: the bench's
sizes (0 and 1 B to 4 MiB, 0.1 s per size; 4 MiB pair messages, the matrix within the
bench's time budget); tiny: sizes to 4 KiB, 2 ms per size, b_eff's ping-pong budgets 1 s,
64 KiB pair messages, 3 samples of 1 ms per pair, the matrix within 1 s."""

from typing import Dict, List, Mapping

from hpcprobe import describe
from hpcprobe.cli_described import bench_values
from hpcprobe.suite.step import SuiteStep

COMM_BUDGET_S = 1800.0
# Per scale and command, the bench options of its step, by attribute (describe.py).
_COMM_SIZES: Dict[str, Dict[str, Mapping[str, str]]] = {
    "default": {"comm": {}, "beff": {}, "pairs": {}},
    "tiny": {
        "comm": {"sizes": "0..4K", "time_per_size": "0.002"},
        "beff": {"latency_pairs_time": "1", "bandwidth_pairs_time": "1"},
        "pairs": {"size": "64K", "repeat": "3", "sample_time": "0.001", "matrix_time": "1"},
    },
}


def _step(command: str, variant: str, values: Mapping[str, str]) -> SuiteStep:
    options = bench_values(describe.family(command), variant, values)
    return SuiteStep(command, variant, options, COMM_BUDGET_S)


def comm_suite_steps(scale: str, ranks: int) -> List[SuiteStep]:
    sizes = _COMM_SIZES[scale]
    return [_step("comm", "all", sizes["comm"]), _step("beff", "hpcc", sizes["beff"]),
            _step("pairs", "bandwidth", sizes["pairs"])]


def describe_comm_suite(steps: List[SuiteStep]) -> str:
    return (
        f"{', '.join(step.name for step in steps)}; every comm function over 0 and 1 B .. "
        "4 MiB, HPCC's b_eff, the rank-pair bandwidth matrix (4 MiB messages), on the run's "
        f"ranks (2 or more; --placement applies); tiny: sizes to 4 KiB, 64 KiB pair "
        f"messages; budget {COMM_BUDGET_S:g} s each"
    )
