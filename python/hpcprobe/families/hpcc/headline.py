"""The processor and HPCC's balance on the run's headline: DGEMM and FFT per rank, HPL
over every rank, and paper 003's balance ratios (balance.py) of the same records, each
as good as the worst verdict among the records of that P."""

from typing import List, Optional, Sequence

from hpcprobe.hpcc_summary.balance import COLUMNS, balance_of, balance_records, keys_from_records
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries
from hpcprobe.limits.headline import fraction_of
from hpcprobe.suite.headline import (Figure, metric_figure, record_verdict, with_limit,
                                     worst_verdict)
from hpcprobe.report.common import Record, last_of, int_parameter, ranks

GROUP = "processor"
# What a user reads HPL's efficiency against: HPL over the DGEMM rate of its ranks.
HPL_TARGET = 0.85
# G-HPL itself is HPL's figure above; G-HPL/G-HPL is 1 by definition.
_NOT_SHOWN = ("G-HPL", "G-HPL/G-HPL")
_UNITS = {column.name: column.unit for column in COLUMNS}


def _processor(records: Sequence[Record]) -> List[Optional[Figure]]:
    figures = []
    star = last_of(records, "dgemm", "star")
    if star is not None:
        figures.append(with_limit(metric_figure(star, GROUP, "dgemm.star", f"DGEMM star, per "
                                                f"rank ({ranks(star)} at once)", "flop_rate"),
                                  fraction_of(records, star)))
    hpl = last_of(records, "hpl", "mpi")
    if hpl is not None:
        figures.append(with_limit(metric_figure(hpl, GROUP, "hpl", f"HPL, {ranks(hpl)} ranks "
                                                f"(N = {int_parameter(hpl, 'n')})", "flop_rate"),
                                  fraction_of(records, hpl)))
    if hpl is not None and star is not None:
        figures.append(_hpl_over_dgemm(hpl, star, figures))
    for variant, words in (("single", "one core"), ("star", "per rank, all at once"),
                           ("mpi", "distributed")):
        record = last_of(records, "fft", variant)
        if record is not None:
            figures.append(with_limit(metric_figure(record, GROUP, f"fft.{variant}",
                                                    f"FFT {variant}, {words}", "flop_rate"),
                                      fraction_of(records, record)))
    return figures


def hpl_needed(order: float, efficiency: float, target: float = HPL_TARGET) -> Optional[float]:
    """The N at which HPL would reach `target` of the DGEMM rate, from one run at `order`
    and `efficiency`: HPL loses to its panels and exchanges a share that falls as 1/N
    (efficiency = 1 / (1 + k/N)); None when it already does."""
    if not (0 < efficiency < target) or order <= 0:
        return None
    k = order * (1 / efficiency - 1)
    return k / (1 / target - 1)


def _hpl_over_dgemm(hpl: Record, star: Record, figures: Sequence) -> Optional[Figure]:
    """HPL over the DGEMM rate of as many ranks (per rank, from dgemm star), and, below
    HPL_TARGET, the N it would need (issue 40: users read HPL's efficiency first)."""
    by_key = {figure.key: figure for figure in figures if figure is not None}
    if "hpl" not in by_key or "dgemm.star" not in by_key:
        return None
    ratio = by_key["hpl"].value / (by_key["dgemm.star"].value * ranks(hpl))
    needed = hpl_needed(float(int_parameter(hpl, "n") or 0), ratio)
    words = (f"; {HPL_TARGET:g} needs N ≈ {needed:,.0f}" if needed is not None else
             f", at least {HPL_TARGET:g}" if ratio >= HPL_TARGET else "")
    return Figure(GROUP, "hpl.over_dgemm", f"HPL ÷ DGEMM of its ranks{words}", "1", (ratio,),
                  worst_verdict([record_verdict(hpl), record_verdict(star)]))


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
