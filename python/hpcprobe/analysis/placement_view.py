"""The placement view of `hpcprobe compare` (`--by placement`): the records of one input
grouped by where their ranks ran, one column per placement (paper 002 section 4.4.2:
the same benchmarks with the ranks spread over the nodes or kept together).

A record's placement is its `placement` parameter, written by the communication
family (comm, beff, pairs; docs/kernels/comm.md): `block`, `round-robin`, `file` (with
`placement_file`) or `as-launched`. Records without one are left out, and said so.
Rows, ratios, balance and regressions are compare.py's, unchanged.
"""

from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.analysis.compare import Column
from hpcprobe.hpcc_summary.balance_report import records_column
from hpcprobe.report.common import Record, plain, section_of


def placement_of(record: Record) -> Optional[str]:
    """The record's placement as a column name, or None when it records none."""
    parameters = section_of(record, "parameters")
    placement = parameters.get("placement")
    if not isinstance(placement, str):
        return None
    if placement == "file" and isinstance(parameters.get("placement_file"), str):
        return plain(f"file {Path(parameters['placement_file']).name}", 40)
    return plain(placement, 40)


def placement_columns(records: Sequence[Record]) -> Tuple[List[Column], int]:
    """One column per placement, in the order they first appear, and how many records
    had no placement."""
    columns: Dict[str, Column] = {}
    unplaced = 0
    for record in records:
        name = placement_of(record)
        if name is None:
            unplaced += 1
            continue
        columns.setdefault(name, records_column(name)).records.append(record)
    return list(columns.values()), unplaced
