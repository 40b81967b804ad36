"""The main job's GPU steps (Family.main_steps): `gpu stream`, `gpu ra --algo atomic` and
`gpu copy`, each on one rank driving device 0, added only when `hpcprobe-bench gpu info`
lists a device on the node hpcprobe runs on. Without one the main job is unchanged and
the reason is one note ("no GPU: gpu steps left out (...)") in run.json and the log."""

from typing import List, Optional, Tuple

from hpcprobe.cli_described import ALGO_OPTION, bench_values
from hpcprobe.describe import load_description
from hpcprobe.errors import HpcprobeError
from hpcprobe.families.gpu.info import GpuInfo, ask_gpu_info
from hpcprobe.families.gpu.options import FAMILY
from hpcprobe.suite.step import SuiteStep

GPU_STEP_BUDGET_S = 600.0
# Per scale. default: the bench's STREAM arrays (>= 4x the L2), a RandomAccess table of
# a quarter of the free device memory rather than HPCC's half (the replay that verifies it
# doubles the time), copies of 8 B to 256 MiB with pinned and pageable host memory; tiny:
# sizes that take well under a second on any device, for a quick look at a GPU node.
_SIZES = {
    "default": {
        "stream": {"repeat": "10"},
        "ra": {"memory_fraction": "0.25", "repeat": "3"},
        "copy": {"max_bytes": "256M", "host_memory": "both", "repeat": "5"},
    },
    "tiny": {
        "stream": {"array_bytes": "4M", "repeat": "3"},
        "ra": {"table_log2": "16", "repeat": "2"},
        "copy": {"max_bytes": "1M", "host_memory": "pinned", "repeat": "3"},
    },
}


def gpu_steps(scale: str, bench: Optional[str] = None) -> List[SuiteStep]:
    """The three steps at `scale`, their options by attribute and named as `bench`
    describes them. The copies are the bench's kinds: host to device and back, within the
    device, and to a peer where device 0 can reach one directly (asking for p2p where it
    cannot would be refused)."""
    family = load_description(bench).family(FAMILY)
    sizes = _SIZES.get(scale, _SIZES["default"])

    def options(variant: str) -> Tuple[str, ...]:
        return bench_values(family, variant, {"device": "0", **sizes[variant]})

    return [SuiteStep("gpu", "stream", options("stream"), GPU_STEP_BUDGET_S, ranks=1),
            SuiteStep("gpu", "ra", (ALGO_OPTION, "atomic") + options("ra"),
                      GPU_STEP_BUDGET_S, "atomic", ranks=1),
            SuiteStep("gpu", "copy", options("copy"), GPU_STEP_BUDGET_S, ranks=1)]


def no_gpu_note(why: str) -> str:
    return f"no GPU: gpu steps left out ({why})"


def gpu_main_steps(scale: str, ranks: int, bench: str,
                   info: Optional[GpuInfo] = None) -> Tuple[List[SuiteStep], str]:
    """(steps, note): the GPU steps when this node has a device, else none and why. Any
    failure to ask (a bench without `gpu`, a hung driver) leaves them out too: the rest
    of the main job does not depend on a GPU."""
    del ranks  # each step drives one device from one rank, whatever the run's ranks
    if info is None:
        try:
            info = ask_gpu_info(bench)
        except HpcprobeError as error:
            return [], no_gpu_note(error.message)
    if not info.devices:
        return [], no_gpu_note(info.why)
    try:
        return gpu_steps(scale, bench), ""
    except HpcprobeError as error:  # a bench that does not describe itself
        return [], no_gpu_note(error.message)

