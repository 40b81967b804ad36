"""What a screen shows and writes: the node table, the bad links, the drain lines, and
screen.json (format "hpcprobe-screen-1", docs/screen.md)."""

import dataclasses
import json
import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from rich.table import Table

from hpcprobe.output_files import write_text_atomically
from hpcprobe.sanitize import visible
from hpcprobe.screen.links import OWN_LINK

SCREEN_FILE = "screen.json"
FORMAT = "hpcprobe-screen-1"


def _number(value: Optional[float], unit: str = "") -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.3g} {unit}".strip()


def node_table(nodes: Sequence, checks: Sequence[str]) -> Table:
    """One row per node: its status, each check's figure with its ratio to the peers'
    median, and the reason."""
    table = Table(title="hpcprobe screen: nodes")
    for column in ("host", "status", *checks, "reason"):
        table.add_column(column)
    for node in nodes:
        by_check = {verdict.check: verdict for verdict in node.checks}
        cells = []
        for check in checks:
            verdict = by_check.get(check)
            if verdict is None:
                cells.append("")
                continue
            ratio = "" if verdict.ratio is None else f" ×{verdict.ratio:.2f}"
            cells.append(f"{_number(verdict.value, verdict.unit)}{ratio} {verdict.status}")
        table.add_row(visible(node.host), node.status, *cells, visible(node.reason))
    return table


def link_table(links: Sequence) -> Optional[Table]:
    """The bad links alone (None when there is none)."""
    bad = [link for link in links if link.status == "bad"]
    if not bad:
        return None
    table = Table(title="hpcprobe screen: bad links")
    for column in ("a", "b", "check", "value", "ratio", "reason"):
        table.add_column(column)
    for link in bad:
        table.add_row(visible(link.a), "its own link" if link.b == OWN_LINK else visible(link.b),
                      link.check, _number(link.value),
                      "" if link.ratio is None else f"{link.ratio:.2f}", visible(link.reason))
    return table


def _plain(value):
    """Dataclasses as dicts, non-finite numbers as null (JSON has no NaN)."""
    if dataclasses.is_dataclass(value):
        return {key: _plain(item) for key, item in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def screen_data(hosts: Sequence[str], checks: Sequence[str], thresholds, nodes, links,
                pairs, drain: Sequence[str], elapsed_s: float,
                repeated: Sequence[str], notes: Sequence[str]) -> Dict:
    return {"format": FORMAT, "hosts": list(hosts), "checks": list(checks),
            "thresholds": _plain(thresholds), "nodes": _plain(list(nodes)),
            "links": _plain(list(links)),
            "pairs": [{"a": p.a, "b": p.b, "check": p.check, "value": p.value,
                       "unit": p.unit} for p in pairs],
            "drain": list(drain), "elapsed_s": elapsed_s, "repeated": list(repeated),
            "notes": list(notes)}


def write_screen(out_dir: Path, data: Dict) -> Path:
    path = out_dir / SCREEN_FILE
    write_text_atomically(path, json.dumps(_plain(data), indent=1) + "\n")
    return path


def summary_lines(nodes: Sequence, links: Sequence) -> List[str]:
    counts: Dict[str, int] = {}
    for node in nodes:
        counts[node.status] = counts.get(node.status, 0) + 1
    states: Dict[str, int] = {}
    for link in links:
        states[link.status] = states.get(link.status, 0) + 1
    parts = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    link_parts = ", ".join(f"{count} {status}" for status, count in sorted(states.items()))
    return [f"screen: {len(nodes)} nodes: {parts or 'none'}; {len(links)} links: "
            f"{link_parts or 'none'}"]
