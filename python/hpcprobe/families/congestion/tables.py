"""The tables printed from congestion records (by `hpcprobe congestion`, `show` and
`run`): the CIF per canary and congestor with its interval (a `--mode gpcnet` record:
GPCNeT's Key Results layout instead, gpcnet.py), and the traffic each congestor moved.

Records are untrusted input: numbers come through cif.py's checks, strings are shown as
plain text.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.console import RenderableType

from hpcprobe.families.congestion.cif import CifRow, cif_rows, congestor_bytes
from hpcprobe.families.congestion.gpcnet import gpcnet_tables, is_gpcnet
from hpcprobe.tables import titled_table
from hpcprobe.report.common import parameter
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.units import MEGA, MICRO, format_number

Record = Dict[str, Any]

CIF_HEADINGS = ["canary", "congestor", "isolated mean", "congested mean", "isolated p99",
                "congested p99", "CIF mean [95 % CI]", "CIF p99 [95 % CI]"]


def value_text(value: Optional[float], unit: str) -> str:
    """µs for times, MB/s for rates."""
    if unit == "B/s":
        return format_number(value, MEGA) + " MB/s" if value is not None else "—"
    return format_number(value, MICRO) + " µs" if value is not None else "—"


def cif_text(value: Optional[float], interval: Optional[Tuple[float, float]]) -> str:
    if value is None:
        return "—"
    if interval is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def cif_cells(row: CifRow) -> List[str]:
    return [row.canary, row.congestor, value_text(row.isolated.mean, row.unit),
            value_text(row.congested.mean, row.unit), value_text(row.isolated.p99, row.unit),
            value_text(row.congested.p99, row.unit), cif_text(row.cif_mean, row.cif_mean_ci),
            cif_text(row.cif_p99, row.cif_p99_ci)]


def roles_text(record: Record) -> str:
    """e.g. "2 canary node(s) (2 ranks), 6 congestor node(s) (6 ranks)"."""
    unit = "rank" if parameter(record, "role_unit") == "rank" else "node"
    parts = []
    for role in ("canary", "congestor"):
        units, ranks = parameter(record, f"{role}_units"), parameter(record, f"{role}_ranks")
        if isinstance(units, int) and isinstance(ranks, int):
            parts.append(f"{units} {role} {unit}(s) ({ranks} ranks)")
    return ", ".join(parts) or "roles unknown"


def cif_table(record: Record) -> RenderableType:
    rows = [cif_cells(row) for row in cif_rows(record)]
    title = f"hpcprobe congestion: CIF per canary and congestor ({roles_text(record)})"
    caption = ("CIF = congested / isolated for times, isolated / congested for bandwidth, "
               "from the raw samples (every canary rank's); intervals: percentile bootstrap; "
               f"validation {verdict_text(record)}")
    return titled_table(title, caption, CIF_HEADINGS, rows)


def traffic_table(record: Record) -> Optional[RenderableType]:
    found = congestor_bytes(record)
    if not found:
        return None
    rows = []
    for congestor, (total, per_node) in found.items():
        busy = sum(1 for value in per_node if value > 0)
        rows.append([plain(congestor), format_number(total / MEGA), str(busy),
                     format_number(max(per_node) / MEGA if per_node else None)])
    return titled_table("congestor traffic", "bytes the congestor ranks moved while the "
                        "canaries ran (0 for an asked congestor fails validation)",
                        ["congestor", "MB moved", "nodes that moved bytes", "most on one node MB"],
                        rows)


def congestion_tables(records: Sequence[Record]) -> List[RenderableType]:
    tables: List[RenderableType] = []
    for record in records:
        if record.get("benchmark") != "congestion":
            continue
        if is_gpcnet(record):  # GPCNeT's layout, names and units (gpcnet.py)
            tables += gpcnet_tables(record)
        else:
            tables.append(cif_table(record))
        traffic = traffic_table(record)
        if traffic is not None:
            tables.append(traffic)
    return tables
