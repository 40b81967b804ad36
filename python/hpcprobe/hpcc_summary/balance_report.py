"""Paper 003's balance as report blocks: the ratios of each system (or configuration)
with the inputs it lacks, and the Kiviat chart of the ratios each normalised to the best
(balance.py computes them). `hpcprobe compare` and the report's HPCC section
both show them."""

from typing import Dict, List, Optional

from hpcprobe.analysis.compare import Column as CompareColumn
from hpcprobe.hpcc_summary.balance import (COLUMNS, Balance, keys_from_records, normalise,
                                           summary_keys_of)
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries
from hpcprobe.report.blocks import Figure, Paragraph, Table
from hpcprobe.report.plots import FigureSink

Record = Dict

MIN_KIVIAT_AXES = 3


def balance_table_blocks(found: Dict[str, Balance], caption: str) -> List:
    """The ratios of each system, then a line per system naming the inputs it lacks."""
    names = list(found)
    rows = [[column.name, column.unit] + [
        None if found[name].values[column.name] is None
        else f"{found[name].values[column.name]:.4g}" for name in names] for column in COLUMNS]
    blocks: List = [Table.of("Balance (paper 003, Table 2): HPCC's global figures / G-HPL",
                             ["ratio", "unit", *names], rows, caption)]
    for name in names:
        missing = sorted({key for keys in found[name].missing.values() for key in keys})
        if missing:
            blocks.append(Paragraph(f"{name}: missing inputs {', '.join(missing)}; the ratios "
                                    "that need them are left out", "absent"))
    return blocks


def kiviat_table_blocks(found: Dict[str, Balance]) -> List:
    """The normalised ratios as a table, or a line saying why there are too few."""
    names = list(found)
    axes, normalised = normalise(found)
    if len(axes) < MIN_KIVIAT_AXES:
        return [Paragraph(f"no Kiviat chart: it needs {MIN_KIVIAT_AXES} or more balance ratios "
                          f"that every system has (have {len(axes)})", "absent")]
    return [Table.of("Kiviat: each ratio over the best system's (best = 1)", ["ratio", *names],
                     [[axis] + [f"{normalised[name][i]:.3g}" for name in names]
                      for i, axis in enumerate(axes)])]


def balance_blocks(found: Dict[str, Balance]) -> List:
    return balance_table_blocks(found, "from HPCC's summary keys (hpcc_summary/summary.py "
                                       "for records: those on the most ranks with an HPL "
                                       "record)") + \
        kiviat_table_blocks(found)


def kiviat_figure(found: Dict[str, Balance], sink: FigureSink,
                  caption: str = "paper 003, Figure 5: each ratio over G-HPL, then over the "
                                 "best system") -> Optional[Figure]:
    axes, normalised = normalise(found)
    if len(axes) < MIN_KIVIAT_AXES:
        return None
    return sink.kiviat("Balance normalised to the best system", axes, normalised, caption)


def records_column(name: str, records: Optional[List[Record]] = None) -> CompareColumn:
    """A column of `hpcprobe compare` whose HPCC rows and balance come from its records."""
    return CompareColumn(name, list(records or []),
                         summary_keys_of=lambda merged: summary_keys_of(
                             merged, hpcc_summary_entries),
                         balance_keys_of=lambda merged: keys_from_records(
                             merged, hpcc_summary_entries))
