"""Paper 003's HPCC figures from the records of one rank count (Saini et al., Section 4.1):
accumulated random ring bandwidth and EP-STREAM Copy (a per-process figure times the
processes, Figs. 1-4), their ratios to HPL, HPL's efficiency against the theoretical peak
(the limits layer's, from `peak` records), and the balance ratios of Fig. 5 and Table 2
(hpcc_summary/balance.py's, one definition for `report` and the studies).

Records are untrusted input: a failed record or one that failed validation is not used,
and a figure whose inputs are missing or not numbers is None, never a guess."""

from typing import Dict, List, Optional, Sequence

from hpcprobe.hpcc_summary.balance import COLUMNS, Balance, balance_of, hpcc_keys_of
from hpcprobe.hpcc_summary.beff import beff_figures
from hpcprobe.hpcc_summary.stream import stream_star_best
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries
from hpcprobe.limits.ceilings import ceilings_of, machine_key
from hpcprobe.limits.limit import median_of
from hpcprobe.limits.records import flop_limits
from hpcprobe.records import Record, number, section_of
from hpcprobe.report.common import last_of
from hpcprobe.study.records import ranks_of

GIGA = 1e9


def hpl_rate(records: Sequence[Record]) -> Optional[float]:
    """G-HPL: the `hpl mpi` record's figure (flop/s)."""
    rate = number(section_of(last_of(records, "hpl", "mpi"), "value").get("value"))
    return rate if rate is not None and rate > 0 else None


def accumulated(per_process: Optional[float], processes: Optional[int]) -> Optional[float]:
    """The paper's accumulated figure: a per-process figure times the processes."""
    if per_process is None or processes is None or per_process <= 0 or processes < 1:
        return None
    return per_process * processes


def random_ring_accumulated(records: Sequence[Record]) -> Optional[float]:
    """HPCC's random ring bandwidth (per process, B/s) times the processes (Fig. 1)."""
    beff = last_of(records, "beff", "hpcc")
    if beff is None:
        return None
    per_process = beff_figures(beff)["RandomlyOrderedRingBandwidth_GBytes"]
    return accumulated(per_process, ranks_of(beff))


def stream_copy_accumulated(records: Sequence[Record]) -> Optional[float]:
    """EP-STREAM Copy times the processes (Fig. 3): the sum of the `stream star` copies'
    best rates, each copy one process's (B/s)."""
    star = last_of(records, "stream", "star")
    copies = stream_star_best(star, "copy") if star is not None else []
    if not copies or any(rate <= 0 for rate in copies):
        return None
    return sum(copies)


def ratio(numerator: Optional[float], denominator: Optional[float],
          scale: float = 1.0) -> Optional[float]:
    """numerator / denominator x scale; None when either is missing or not positive."""
    if numerator is None or denominator is None or numerator <= 0 or denominator <= 0:
        return None
    return numerator / denominator * scale


def hpl_efficiency(records: Sequence[Record]) -> Optional[float]:
    """HPL over the theoretical peak of the cores its ranks use (a fraction), the limits
    layer's figure: per-core peak (clock x flops per cycle, from a `peak flops` record of
    the same CPU model) times the cores in use (oversubscribed ranks share cores)."""
    hpl = last_of(records, "hpl", "mpi")
    peaks = [record for record in records if record.get("benchmark") == "peak"]
    if hpl is None or not peaks:
        return None
    # The peak ran on one rank, HPL on several (perhaps several hosts): match by CPU only.
    model = machine_key(hpl)[0]
    found = [ceilings for key, ceilings in ceilings_of(peaks).items() if key[0] == model]
    if not found:
        return None
    limits = flop_limits(hpl, found[-1], median_of(hpl, "flop_rate"), "hpl")
    return limits[0].fraction if limits else None


def balance(records: Sequence[Record]) -> Balance:
    """Fig. 5's and Table 2's ratios of one rank count's records (hpcc_summary/balance.py:
    HPCC's summary keys of the records, each global figure over G-HPL)."""
    return balance_of(hpcc_keys_of(list(records), hpcc_summary_entries))


BALANCE_NAMES = tuple(column.name for column in COLUMNS)


def normalised(values: Sequence[Dict[str, Optional[float]]]) -> List[Dict[str, Optional[float]]]:
    """Fig. 5's normalisation: each ratio over the best (largest) of it among the systems,
    here the rank counts. Unlike balance.normalise, which keeps only the ratios every
    system has, a ratio one row lacks stays None there and is normalised in the others."""
    best = {}
    for name in BALANCE_NAMES:
        found = [row[name] for row in values if row.get(name) is not None]
        best[name] = max(found) if found else None
    return [{name: (None if row.get(name) is None or not best[name]
                    else row[name] / best[name])  # type: ignore[operator]
             for name in BALANCE_NAMES} for row in values]
