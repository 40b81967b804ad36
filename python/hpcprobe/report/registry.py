"""The report sections the families registered, each with the benchmarks it shows.

A section is a function `section(records, sink) -> [blocks]` over the family's (merged)
records of one machine, plus those of the benchmarks in its `reads` (the HPCC table
reads RandomAccess, STREAM and b_eff records); `compare_label(record) -> str` says what
tells two of its records apart in `hpcprobe compare` besides benchmark, variant,
algorithm and metric; `algorithm_options` are the family's options that change the
algorithm a record ran (report/settings.py): records that differ in one are never one row
of `hpcprobe compare`, whatever the label says. A section whose function is None yet
still gets its records listed in the report's generic table, as do records of benchmarks
no family names.

This module imports no family: each family's package describes its section, and the
family registry (hpcprobe/families/__init__.py) registers them when it is imported, as
launch/registry.py collects the launchers. `place` orders the sections on the page.
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.report.blocks import Block
from hpcprobe.report.plots import FigureSink
from hpcprobe.report.settings import AlgorithmOption, SettingKey, setting_key

Record = Dict
SectionBuilder = Callable[[Sequence[Record], FigureSink], List[Block]]


@dataclass(frozen=True)
class ReportSection:
    name: str
    title: str
    benchmarks: Tuple[str, ...]
    place: int
    section: Optional[SectionBuilder] = None
    compare_label: Optional[Callable[[Record], str]] = None
    reads: Tuple[str, ...] = ()
    algorithm_options: Tuple[AlgorithmOption, ...] = ()


_SECTIONS: List[ReportSection] = []


def register_section(section: ReportSection) -> None:
    """Add a family's section (once; the page orders them by `place`)."""
    if all(known.name != section.name for known in _SECTIONS):
        _SECTIONS.append(section)
        _SECTIONS.sort(key=lambda known: known.place)


def sections() -> Tuple[ReportSection, ...]:
    return tuple(_SECTIONS)


def family_of(benchmark: object) -> Optional[ReportSection]:
    for family in _SECTIONS:
        if benchmark in family.benchmarks:
            return family
    return None


def compare_label(record: Record) -> str:
    family = family_of(record.get("benchmark"))
    if family is None or family.compare_label is None:
        return ""
    return family.compare_label(record)


def algorithm_setting(record: Record) -> SettingKey:
    """The values of the options of its family that change the algorithm (() when the
    family declares none): equal for records that ran the same algorithm."""
    family = family_of(record.get("benchmark"))
    return () if family is None else setting_key(record, family.algorithm_options)
