"""The table `show` (and `ra mpi|single`) prints: every `ra mpi` and `ra single` figure as a
fraction of this machine's ceiling for the same table and ranks (`ra ceiling`)."""

from typing import List, Sequence

from rich.console import RenderableType
from rich.table import Table

from hpcprobe.families.ra.report import _gups, ceiling_fraction, ceiling_for, compare_label
from hpcprobe.report.common import Record, int_parameter, ranks
from hpcprobe.sanitize import plain


def _measured(record: Record) -> bool:
    return record.get("benchmark") == "ra" and record.get("variant") in ("mpi", "single")


def ra_tables(records: Sequence[Record]) -> List[RenderableType]:
    """One table of the mpi/single records that have a ceiling ([] when none has)."""
    rows = []
    for record in records:
        ceiling = ceiling_for(record, records) if _measured(record) else None
        fraction = None if ceiling is None else ceiling_fraction(record, records)
        if ceiling is None or fraction is None:
            continue
        rows.append((plain(record.get("variant")), plain(record.get("algorithm")),
                     plain(compare_label(record) or "—"), str(ranks(record)),
                     f"2^{int_parameter(record, 'table_log2')}",
                     f"{_gups(record)[0]:.4g}", f"{_gups(ceiling)[0]:.4g}", f"{fraction:.3f}"))
    if not rows:
        return []
    table = Table(title="RandomAccess against this machine's ceiling (ra ceiling: every rank "
                        "updating the part it owns, no messages)")
    for name in ("variant", "algorithm", "setting", "ranks", "table", "GUPS",
                 "ceiling GUPS", "of ceiling"):
        table.add_column(name, justify="right" if name in ("GUPS", "ceiling GUPS",
                                                            "of ceiling") else "left")
    for row in rows:
        table.add_row(*row)
    return [table]
