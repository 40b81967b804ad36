"""What the sizing layer (core/runtime/sizing.c) chooses for a node: `hpcprobe-bench sizes
--json`, for this machine or a described one (`--node cores=...`), for P ranks on each of
M nodes under a memory cap. Python chooses no size from the node itself: the plan reads
every default size, its rule and the memory it takes from here (docs/sizing.md)."""

import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence

from hpcprobe.cli_grammars import parse_size
from hpcprobe.errors import HpcprobeError
from hpcprobe.launch.kernels import run_bench_query


@dataclass(frozen=True)
class SizeEntry:
    """A kernel's default size: the option that gives it by hand, its value, how a value
    becomes bytes per rank (bytes_per_unit x the value, 2^value or value^2, by `scale`),
    and the rule that chose it."""

    kernel: str
    option: str
    value: int
    scale: str
    bytes_per_unit: float
    rule: str
    capped: bool

    def bytes_per_rank(self, value: Optional[float] = None) -> float:
        v = float(self.value if value is None else value)
        units = 2.0 ** v if self.scale == "log2" else v * v if self.scale == "square" else v
        return units * self.bytes_per_unit


@dataclass(frozen=True)
class NodeSizes:
    """The node the sizes are for, the cap, and each kernel's default size."""

    node: Dict[str, Any]
    memory_cap: float
    cap_bytes_per_node: float
    entries: Dict[str, SizeEntry]

    def entry(self, benchmark: str, variant: str) -> Optional[SizeEntry]:
        return self.entries.get(f"{benchmark} {variant}")

    @property
    def cores(self) -> int:
        return int(self.node.get("cores") or 1)


def _entry(data: Mapping[str, Any]) -> SizeEntry:
    return SizeEntry(str(data["kernel"]), str(data["option"]), int(data["value"]),
                     str(data["scale"]), float(data["bytes_per_rank_per_unit"]),
                     str(data["size_rule"]), bool(data["capped"]))


def parse_sizes(text: str) -> NodeSizes:
    """The bench's answer; HpcprobeError when it is not what `sizes --json` writes."""
    try:
        data = json.loads(text)
        entries = {entry.kernel: entry for entry in map(_entry, data["sizes"])}
        return NodeSizes(dict(data["node"]), float(data["memory_cap"]),
                         float(data["memory_cap_bytes_per_node"]), entries)
    except (ValueError, KeyError, TypeError) as error:
        raise HpcprobeError(f"'hpcprobe-bench sizes --json' gave no sizes ({error})") from None


def query_sizes(ranks: int, memory_cap: float, nodes: Optional[int] = None,
                node_spec: Optional[str] = None) -> NodeSizes:
    """The sizes for `ranks` ranks over `nodes` nodes like this machine, or like the node
    `node_spec` describes (its own nodes= when `nodes` is None; the bench refuses a bad
    description in one line)."""
    args = ["--json", "--ranks", str(ranks), "--memory-cap", f"{memory_cap:g}"]
    if nodes is not None:
        args += ["--nodes", str(nodes)]
    if node_spec is not None:
        args += ["--node", node_spec]
    return parse_sizes(run_bench_query("sizes", args=args))


def option_value(options: Sequence[str], name: str) -> Optional[str]:
    """The value a step's bench options give `name` (`--x V` or `--x=V`), else None."""
    for index, option in enumerate(options):
        if option == name and index + 1 < len(options):
            return options[index + 1]
        if option.startswith(name + "="):
            return option[len(name) + 1:]
    return None


def given_value(entry: SizeEntry, options: Sequence[str]) -> Optional[float]:
    """The step's own size for the entry's option, as the entry counts it."""
    text = option_value(options, entry.option)
    if text is None:
        return None
    value = parse_size(text) if entry.scale == "linear" else None
    if value is None:
        try:
            value = int(text)
        except ValueError:
            return None
    return float(value) if math.isfinite(value) else None
