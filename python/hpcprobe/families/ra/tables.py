"""The table `show` (and `ra mpi|single`) prints: every `ra mpi` and `ra single` figure as a
fraction of this machine's ceiling for the same table and ranks (`ra ceiling`)."""

from typing import List, Sequence

from rich.console import RenderableType
from rich.table import Table

from hpcprobe.families.ra.multicore import relative
from hpcprobe.families.ra.report import ceiling_for, compare_label, median_gups
from hpcprobe.report.common import Record, int_parameter, ranks
from hpcprobe.sanitize import plain


def _measured(record: Record) -> bool:
    return record.get("benchmark") == "ra" and record.get("variant") in ("mpi", "single")


def ra_tables(records: Sequence[Record]) -> List[RenderableType]:
    """One table of the mpi/single records that have a ceiling ([] when none has)."""
    rows = []
    for record in records:
        ceiling = ceiling_for(record, records) if _measured(record) else None
        if ceiling is None:
            continue
        value, limit = median_gups(record)[0], median_gups(ceiling)[0]
        fraction = relative(value, limit)
        if fraction is None:
            continue
        rows.append((plain(record.get("variant")), plain(record.get("algorithm")),
                     plain(compare_label(record) or "—"), str(ranks(record)),
                     f"2^{int_parameter(record, 'table_log2')}",
                     f"{value:.4g}", f"{limit:.4g}", f"{fraction:.3f}"))
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
