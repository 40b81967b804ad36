"""The families a report knows, each with its section (one line per family).

A family's section is a function `section(records, sink) -> [blocks]` over the family's
(merged) records of one machine, in a module of report/families/, plus those of the
benchmarks in its `reads` (the HPCC table reads RandomAccess, STREAM and b_eff records);
`compare_label(record) -> str` says what tells two of its records apart in `hpcprobe
compare` besides benchmark, variant, algorithm and metric. A family whose section is None
yet still gets its records listed in the report's generic table, as do records of
benchmarks no family names.
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.report.blocks import Block
from hpcprobe.families.comm import report as communication
from hpcprobe.families.contention import report as contention
from hpcprobe.families.hpcc import report as hpcc
from hpcprobe.families.memory import report as memory
from hpcprobe.families.ra import report as ra
from hpcprobe.report.plots import FigureSink

Record = Dict
SectionBuilder = Callable[[Sequence[Record], FigureSink], List[Block]]


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    benchmarks: Tuple[str, ...]
    section: Optional[SectionBuilder] = None
    compare_label: Optional[Callable[[Record], str]] = None
    reads: Tuple[str, ...] = ()


FAMILIES = (
    Family("randomaccess", "RandomAccess (GUPS)", ("ra",), ra.section, ra.compare_label),
    Family("memory", "Memory: STREAM, stride, latency", ("stream", "mem"), memory.section,
           memory.compare_label),
    Family("communication", "Communication: IMB functions, b_eff rings, rank pairs",
           ("comm", "beff", "pairs"), communication.section, communication.compare_label),
    Family("contention", "Network contention", ("contention",), contention.section,
           contention.compare_label),
    Family("hpcc", "HPCC kernels: HPL, DGEMM, PTRANS, FFT", ("hpl", "dgemm", "ptrans", "fft"),
           hpcc.section, hpcc.compare_label, reads=("ra", "stream", "beff")),
)


def family_of(benchmark: object) -> Optional[Family]:
    for family in FAMILIES:
        if benchmark in family.benchmarks:
            return family
    return None


def compare_label(record: Record) -> str:
    family = family_of(record.get("benchmark"))
    if family is None or family.compare_label is None:
        return ""
    return family.compare_label(record)
