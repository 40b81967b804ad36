"""Paper 003's balance of a system (its Figure 5 and Table 2): HPCC's global figures
divided by G-HPL, each column then normalised to the best system for a Kiviat chart.

Inputs come from HPCC's summary keys, so that one definition serves hpcprobe records
(through summary.py, which writes those keys for every family that measures them)
and HPCC's own output files (hpccoutf.txt). STREAM Copy from records is the sum of each
copy's best rate in a `stream star` record (the accumulated EP-STREAM of the paper);
from an HPCC file it is StarSTREAM_Copy × CommWorldProcs. From records, the keys of one
system come from the records of one number of ranks P (the most ranks with an HPL record),
so every ratio divides one run's figure by the same run's HPL.

A column whose inputs a system lacks is None for it, and `missing` says which inputs.
"""

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.errors import HpcprobeError
from hpcprobe.hpcc_summary.keys import BEGIN_LINE, END_LINE, HPCC_BENCHMARKS, EntriesFn
from hpcprobe.records import number
from hpcprobe.hpcc_summary.stream import stream_star_best
from hpcprobe.units import GIGA, TERA

Record = Dict
MAX_HPCC_FILE_BYTES = 64 << 20
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Column:
    """One balance figure: its name in the paper, unit, the HPCC keys it needs, and how
    it is computed from those keys' values (HPCC's units: Tflop/s, Gflop/s, GB/s, µs)."""

    name: str
    unit: str
    keys: Tuple[str, ...]
    compute: Callable[[Dict[str, float]], float]


def _procs(keys: Dict[str, float]) -> float:
    return keys["CommWorldProcs"]


def _hpl_flops(keys: Dict[str, float]) -> float:
    return keys["HPL_Tflops"] * TERA


COLUMNS = (
    Column("G-HPL", "TFLOP/s", ("HPL_Tflops",), lambda k: k["HPL_Tflops"]),
    Column("G-HPL/G-HPL", "1", ("HPL_Tflops",), lambda k: 1.0),
    Column("G-EP DGEMM/G-HPL", "1", ("StarDGEMM_Gflops", "CommWorldProcs", "HPL_Tflops"),
           lambda k: k["StarDGEMM_Gflops"] * GIGA * _procs(k) / _hpl_flops(k)),
    Column("G-FFT/G-HPL", "1", ("MPIFFT_Gflops", "HPL_Tflops"),
           lambda k: k["MPIFFT_Gflops"] * GIGA / _hpl_flops(k)),
    Column("G-PTRANS/G-HPL", "B/flop", ("PTRANS_GBs", "HPL_Tflops"),
           lambda k: k["PTRANS_GBs"] * GIGA / _hpl_flops(k)),
    Column("G-STREAM Copy/G-HPL", "B/flop", ("StarSTREAM_Copy", "CommWorldProcs", "HPL_Tflops"),
           lambda k: k["StarSTREAM_Copy"] * GIGA * _procs(k) / _hpl_flops(k)),
    Column("RandRing BW×P/G-HPL", "B/flop",
           ("RandomlyOrderedRingBandwidth_GBytes", "CommWorldProcs", "HPL_Tflops"),
           lambda k: k["RandomlyOrderedRingBandwidth_GBytes"] * GIGA * _procs(k) / _hpl_flops(k)),
    Column("1/RandRing latency", "1/µs", ("RandomlyOrderedRingLatency_usec",),
           lambda k: 1.0 / k["RandomlyOrderedRingLatency_usec"]),
    Column("G-RandomAccess/G-HPL", "updates/flop", ("MPIRandomAccess_GUPs", "HPL_Tflops"),
           lambda k: k["MPIRandomAccess_GUPs"] * GIGA / _hpl_flops(k)),
)


@dataclass
class Balance:
    """One system's balance: values by column name (None: inputs missing), and per
    column the HPCC keys it lacked."""

    values: Dict[str, Optional[float]] = field(default_factory=dict)
    missing: Dict[str, List[str]] = field(default_factory=dict)


def _usable(value: float) -> bool:
    return math.isfinite(value) and value > 0


def balance_of(keys: Dict[str, float]) -> Balance:
    found = Balance()
    for column in COLUMNS:
        lacking = [key for key in column.keys if not _usable(keys.get(key, math.nan))]
        found.missing[column.name] = lacking
        found.values[column.name] = None if lacking else column.compute(keys)
    return found


def _numbers(entries: Sequence[Tuple[str, str]]) -> Dict[str, float]:
    keys = {}
    for key, text in entries:
        try:
            value = float(text)
        except ValueError:
            continue
        if math.isfinite(value) and _KEY.match(key):
            keys[key] = value
    return keys


def record_ranks(record: Record) -> int:
    layout = record.get("layout")
    ranks = number(layout.get("ranks")) if isinstance(layout, dict) else None
    return int(ranks) if ranks is not None and ranks >= 1 else 1


def by_ranks(records: Sequence[Record]) -> Dict[int, List[Record]]:
    """The records of HPCC's benchmarks by their number of ranks P, fewest first, each
    group in the records' order: one P is one HPCC run's machine size."""
    groups: Dict[int, List[Record]] = {}
    for record in records:
        if record.get("benchmark") in HPCC_BENCHMARKS:
            groups.setdefault(record_ranks(record), []).append(record)
    return dict(sorted(groups.items()))


def balance_records(records: Sequence[Record]) -> List[Record]:
    """The records whose summary keys make one system's balance: those on the most ranks
    that have an HPL record (else on the most ranks). A results directory may hold runs
    on several P; dividing one run's figures by another's HPL would mean nothing."""
    groups = by_ranks(records)
    with_hpl = [p for p, group in groups.items() if any(r.get("benchmark") == "hpl"
                                                        for r in group)]
    chosen = max(with_hpl or groups or [0])
    return groups.get(chosen, [])


# `entries_of` below is summary.py's hpcc_summary_entries, which its caller passes: the
# summary block ends with the balance, so summary.py builds on this module, not the
# other way round.

def keys_from_records(records: Sequence[Record], entries_of: EntriesFn) -> Dict[str, float]:
    """HPCC's summary keys of the records (as `--hpcc-summary` computes them) on one P,
    chosen by balance_records."""
    return hpcc_keys_of(balance_records(records), entries_of)


def summary_keys_of(records: Sequence[Record], entries_of: EntriesFn) -> Dict[str, float]:
    """HPCC's summary keys of the records, as `--hpcc-summary` writes them (numbers)."""
    return _numbers(entries_of(records))


def hpcc_keys_of(records: Sequence[Record], entries_of: EntriesFn) -> Dict[str, float]:
    """HPCC's summary keys of the records; StarSTREAM_Copy made accumulated-exact (the
    per-copy mean times CommWorldProcs gives the sum over the stream star copies), for
    the balance of one P's records."""
    keys = summary_keys_of(records, entries_of)
    stars = [r for r in records if r.get("benchmark") == "stream" and r.get("variant") == "star"]
    copies = stream_star_best(stars[-1], "copy") if stars else []
    if copies and keys.get("CommWorldProcs"):
        keys["StarSTREAM_Copy"] = sum(copies) / GIGA / keys["CommWorldProcs"]
    return keys


def parse_hpcc_output(text: str, name: str) -> Dict[str, float]:
    """The key=value pairs between HPCC's Begin and End of Summary section lines."""
    lines = text.splitlines()
    try:
        start = lines.index(BEGIN_LINE)
        end = lines.index(END_LINE, start)
    except ValueError:
        raise HpcprobeError(f"{name}: no '{BEGIN_LINE}' ... '{END_LINE}' block (not an HPCC "
                            "output file, nor records)") from None
    pairs = [tuple(line.split("=", 1)) for line in lines[start + 1:end] if "=" in line]
    return _numbers([(key.strip(), value.strip()) for key, value in pairs])  # type: ignore


def normalise(balances: Dict[str, Balance]) -> Tuple[List[str], Dict[str, List[float]]]:
    """The Kiviat chart: the columns every system has, each divided by its best value
    (so the best is 1), and per system its values on those columns."""
    shared = [column.name for column in COLUMNS
              if all(balance.values.get(column.name) for balance in balances.values())]
    best = {name: max(balance.values[name] for balance in balances.values())  # type: ignore
            for name in shared}
    return shared, {system: [balance.values[name] / best[name]  # type: ignore[operator]
                             for name in shared] for system, balance in balances.items()}


def read_hpcc_file(path, name: str) -> Optional[Dict[str, float]]:
    """HPCC keys of `path` if it is an HPCC output file, None if it is not one."""
    try:
        if path.stat().st_size > MAX_HPCC_FILE_BYTES:
            return None
        with open(path, "rb") as stream:
            head = stream.read(MAX_HPCC_FILE_BYTES)
    except OSError as error:
        raise HpcprobeError(f"{name}: cannot read: {error.strerror or error}") from None
    text = head.decode("utf-8", errors="replace")
    if BEGIN_LINE not in text:
        return None
    return parse_hpcc_output(text, name)
