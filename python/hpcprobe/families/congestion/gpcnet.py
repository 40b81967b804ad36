"""GPCNeT's "Key Results" layout for a congestion record of `--mode gpcnet`
(docs/kernels/congestion.md, "GPCNeT mode"): its "Isolated Network Tests" table, its
"Network Tests running with Congestion Tests - Key Results" table and the "Congestion
Impact Factor" block, each canary under GPCNeT's name, in its units (usec, MiB/s/rank),
computed as GPCNeT computes them from the record's raw samples:

- Avg: the mean of every canary rank's steps; for RR Two-sided BW+Sync, the mean over
  (rank, ring) of the ring's rate (its bytes over its time: the harmonic mean of its
  steps' rates), as GPCNeT averages its per-ring rates.
- 99%: the worst 1 % boundary of the steps: the 99th percentile of times, the 1st
  percentile of rates.
- CIF: congested over isolated for times, isolated over congested for rates, of the Avg
  and of the 99% (GPCNeT divides values it has rounded to 0.1 first; hpcprobe does not).

Records are untrusted input: numbers come through `numbers`, names from fixed tables.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from rich.console import RenderableType
from rich.text import Text

from hpcprobe.families.congestion.cif import canaries_of, cif, metric_name
from hpcprobe.records import numbers
from hpcprobe.report.common import parameter
from hpcprobe.samples import find_metric
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.tables import titled_table

Record = Dict[str, Any]

MIB = 1024.0 * 1024.0
MICRO = 1e-6
CONDITION = "gpcnet"
ISOLATED_TITLE = "Isolated Network Tests"
KEY_RESULTS_TITLE = "Network Tests running with Congestion Tests - Key Results"
CIF_TITLE = "Congestion Impact Factor"
VALUE_HEADINGS = ["Name", "Avg", "99%", "Units"]
CIF_HEADINGS = ["Name", "Avg", "99%"]


@dataclass(frozen=True)
class GpcnetFigures:
    """One canary under one condition, in GPCNeT's units; None where not measured."""

    avg: Optional[float]
    p99: Optional[float]


def is_gpcnet(record: Record) -> bool:
    return parameter(record, "mode") == "gpcnet"


def canary_name(record: Record, canary: str) -> Tuple[str, str]:
    """GPCNeT's name of a canary and its unit."""
    if canary == "bandwidth":
        size = parameter(record, "bandwidth_bytes")
        size_text = str(size) if isinstance(size, int) and size > 0 else "?"
        return f"RR Two-sided BW+Sync ({size_text} B)", "MiB/s/rank"
    if canary == "latency":
        return "RR Two-sided Lat (8 B)", "usec"
    return "Multiple Allreduce (8 B)", "usec"


def raw_samples(record: Record, canary: str, condition: str) -> np.ndarray:
    metric = find_metric(record, metric_name(canary, condition))
    values = numbers(metric.get("samples")) if isinstance(metric, dict) else []
    return np.array(values, dtype=float)


def _positive_int(record: Record, key: str) -> Optional[int]:
    value = parameter(record, key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def ring_rates(rates: np.ndarray, steps: Optional[int], kept: Optional[int]) -> np.ndarray:
    """Each (rank, ring)'s rate: its steps' bytes over their time, i.e. the harmonic mean
    of its steps' rates. Rings are `steps` consecutive samples of a rank's `kept`; where
    the record does not say, or thinned them, every step counts as its own ring."""
    if not steps or not kept or rates.size % kept or (rates <= 0).any():
        return rates[rates > 0]
    rings = []
    for rank in rates.reshape(-1, kept):
        for start in range(0, kept, steps):
            chunk = rank[start:start + steps]
            rings.append(chunk.size / float(np.sum(1.0 / chunk)))
    return np.array(rings, dtype=float)


def figures(record: Record, canary: str, condition: str) -> GpcnetFigures:
    values = raw_samples(record, canary, condition)
    if canary != "bandwidth":
        times = values[values > 0]
        if times.size == 0:
            return GpcnetFigures(None, None)
        return GpcnetFigures(float(times.mean()) / MICRO,
                             float(np.percentile(times, 99)) / MICRO)
    kept = _positive_int(record, "bandwidth_samples_kept_per_rank")
    taken = _positive_int(record, "bandwidth_samples")
    steps = _positive_int(record, "bandwidth_steps_per_ring") if kept == taken else None
    rings = ring_rates(values, steps, kept)
    rates = values[values > 0]
    if rings.size == 0 or rates.size == 0:
        return GpcnetFigures(None, None)
    return GpcnetFigures(float(rings.mean()) / MIB, float(np.percentile(rates, 1)) / MIB)


def impact(isolated: GpcnetFigures, congested: GpcnetFigures,
           rate: bool) -> Tuple[Optional[float], Optional[float]]:
    """The CIF of the Avg and of the 99%, oriented so above 1 is slower under load."""
    return cif(isolated.avg, congested.avg, rate), cif(isolated.p99, congested.p99, rate)


def _number(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.1f}"


def _factor(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.1f}X"


def layout_text(record: Record) -> str:
    """GPCNeT's preamble: ranks, nodes, and who runs what."""
    unit = "rank" if parameter(record, "role_unit") == "rank" else "node"
    canary, congestor = (parameter(record, f"{role}_units") for role in ("canary", "congestor"))
    groups = parameter(record, "congestor_groups")
    text = f"{canary} {unit}(s) running Network Tests, {congestor} {unit}(s) running " \
           "Congestion Tests"
    return text + (f" (groups {groups})" if isinstance(groups, str) else "")


def gpcnet_tables(record: Record) -> List[RenderableType]:
    """The three tables GPCNeT prints at the end of network_load_test."""
    isolated_rows, loaded_rows, cif_rows = [], [], []
    for canary in canaries_of(record):
        name, unit = canary_name(record, canary)
        alone, loaded = figures(record, canary, "isolated"), figures(record, canary, CONDITION)
        isolated_rows.append([name, _number(alone.avg), _number(alone.p99), unit])
        loaded_rows.append([name, _number(loaded.avg), _number(loaded.p99), unit])
        avg, p99 = impact(alone, loaded, canary == "bandwidth")
        cif_rows.append([name, _factor(avg), _factor(p99)])
    placement = parameter(record, "canary_placement")
    preamble = (f"hpcprobe congestion --mode gpcnet (GPCNeT's network_load_test layout): "
                f"{layout_text(record)}; canaries placed {placement}")
    return [
        Text(plain(preamble, 400), style="bold"),
        titled_table(ISOLATED_TITLE, "RR = random ring, Lat = latency, "
                     "BW = bandwidth, BW+Sync = bandwidth with barrier; Isolated Congestion "
                     "Tests: not measured (GPCNeT prints them only when built VERBOSE)",
                     VALUE_HEADINGS, isolated_rows),
        titled_table(KEY_RESULTS_TITLE, "the canaries beside all four congestor groups at "
                     "once", VALUE_HEADINGS, loaded_rows),
        titled_table(CIF_TITLE, "congested / isolated for times, isolated / congested for "
                     "bandwidth, unrounded; validation " + verdict_text(record),
                     CIF_HEADINGS, cif_rows),
    ]
