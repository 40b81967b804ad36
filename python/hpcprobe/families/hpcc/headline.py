"""The processor and HPCC's balance on the run's headline: DGEMM and FFT per rank, HPL
over every rank, and paper 003's balance ratios (balance.py) of the same records, each
as good as the worst verdict among the records of that P."""

from typing import List, Optional, Sequence

from hpcprobe.hpcc_summary.balance import COLUMNS, balance_of, balance_records, keys_from_records
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries
from hpcprobe.suite.headline import Figure, metric_figure, record_verdict, worst_verdict
from hpcprobe.report.common import Record, last_of, int_parameter, ranks

GROUP = "processor"
# G-HPL itself is HPL's figure above; G-HPL/G-HPL is 1 by definition.
_NOT_SHOWN = ("G-HPL", "G-HPL/G-HPL")
_UNITS = {column.name: column.unit for column in COLUMNS}


def _processor(records: Sequence[Record]) -> List[Optional[Figure]]:
    figures = []
    star = last_of(records, "dgemm", "star")
    if star is not None:
        figures.append(metric_figure(star, GROUP, "dgemm.star", f"DGEMM star, per rank "
                                     f"({ranks(star)} at once)", "flop_rate"))
    hpl = last_of(records, "hpl", "mpi")
    if hpl is not None:
        figures.append(metric_figure(hpl, GROUP, "hpl", f"HPL, {ranks(hpl)} ranks (N = "
                                     f"{int_parameter(hpl, 'n')})", "flop_rate"))
    for variant, words in (("single", "one core"), ("star", "per rank, all at once"),
                           ("mpi", "distributed")):
        record = last_of(records, "fft", variant)
        if record is not None:
            figures.append(metric_figure(record, GROUP, f"fft.{variant}",
                                         f"FFT {variant}, {words}", "flop_rate"))
    return figures


def _balance(records: Sequence[Record]) -> List[Figure]:
    keys = keys_from_records(records, hpcc_summary_entries)
    if not keys.get("HPL_Tflops"):
        return []
    verdict = worst_verdict([record_verdict(r) for r in balance_records(records)])
    figures = []
    for name, value in balance_of(keys).values.items():
        if value is None or name in _NOT_SHOWN:
            continue
        figures.append(Figure("balance", f"balance.{name}", name,
                              _UNITS[name], (value,), verdict))
    return figures


def hpcc_headline(records: Sequence[Record]) -> List[Figure]:
    return [figure for figure in _processor(records) if figure is not None] + _balance(records)
