"""From records to a ReportPage: the verdicts and warnings that go at the top, the
machines, the statistics of every headline, one section per family present, an "absent"
line per family missing, and a generic table for records no section shows.

Records of one machine and configuration are merged first (analysis/merge.py): their
samples are pooled, so a curve point or a bar is the median over every launch."""

from collections import Counter
from datetime import datetime, timezone
from typing import Dict, List, Sequence, Tuple

from hpcprobe.analysis.merge import MACHINE_FIELDS, merged_groups
from hpcprobe.analysis.stats import FEW_SAMPLES
from hpcprobe.report.blocks import Paragraph, ReportPage, Section, Table
from hpcprobe.report.common import (Record, ci_text, cv_text, headline_metric, headline_stats,
                                    headline_unit, merged_count, plain, ranks, section_of,
                                    threads, value_text, verdict_cell)
from hpcprobe.limits.section import limits_section
from hpcprobe.report.plots import FigureSink
from hpcprobe.report.registry import ReportSection, compare_label, family_of
from hpcprobe.report.registry import sections as registered_sections
from hpcprobe.results import RecordSet, shown_problems
from hpcprobe.show import display_scale
from hpcprobe.units import format_number

MAX_LISTED_NOTES = 50
MAX_NOTE_CHARS = 300


def describe_record(record: Record) -> str:
    """e.g. "ra mpi hypercube (Q=4096) on 4 ranks"."""
    words = " ".join(plain(record.get(name)) for name in ("benchmark", "variant", "algorithm"))
    label = compare_label(record)
    shape = f"{ranks(record)} ranks" + (f" × {threads(record)} threads"
                                        if threads(record) > 1 else "")
    return f"{words}{f' ({label})' if label else ''} on {shape}"


def _stat_row(record: Record) -> List[object]:
    stats = headline_stats(record)
    divisor, unit = display_scale(headline_unit(record), stats.median)
    modes = len(stats.modes) if stats.modes else 0
    return [describe_record(record), headline_metric(record), unit, stats.count,
            merged_count(record), value_text(stats, divisor),
            None if stats.mad is None else format_number(stats.mad, divisor),
            ci_text(stats, divisor), stats.ci_method, cv_text(stats), modes]


def statistics_table(records: Sequence[Record]) -> Table:
    return Table.of("Statistics of every headline", (
        "run", "metric", "unit", "samples", "launches", "median", "MAD", "95 % CI",
        "CI of", "CV", "modes"), [_stat_row(record) for record in records],
        "samples pooled over the launches of one configuration; several medians: the samples "
        "fall into modes, each reported with its count")


def _verdicts(records: Sequence[Record]) -> Tuple[Table, List[str]]:
    counts: Dict[str, Counter] = {}
    failures = []
    for record in records:
        name = plain(record.get("benchmark"))
        verdict = str(section_of(record, "validation").get("verdict"))
        tally = counts.setdefault(name, Counter())
        tally[verdict] += 1
        tally["non-compliant"] += record.get("compliant") is False
        tally["records"] += merged_count(record)
        if verdict == "failed" or record.get("status") == "failed":
            failures.append(f"{describe_record(record)}: validation {verdict_cell(record)}")
    rows = [[name, tally["records"], tally["passed"], tally["failed"], tally["skipped"],
             tally["non-compliant"]] for name, tally in sorted(counts.items())]
    return Table.of("Validation", ("benchmark", "records", "passed", "failed", "skipped",
                                   "non-compliant"), rows,
                    "per configuration (launches of one configuration merged), records: launches"
                    ), failures


def _warnings(records: Sequence[Record]) -> List[str]:
    """Unstable or multimodal headlines one by one; too few samples in one line; the
    records' notes, each once with how many configurations carry it."""
    found, few = [], 0
    for record in records:
        stats = headline_stats(record)
        if stats.count < FEW_SAMPLES:
            few += 1
        for warning in stats.warnings:
            if "too few" not in warning:
                found.append(f"{describe_record(record)}, {plain(headline_metric(record))}: "
                             f"{warning}")
    if few:
        found.append(f"{few} configuration{'s' if few > 1 else ''} with fewer than {FEW_SAMPLES} "
                     "samples: spread unknown (more repetitions, or `hpcprobe run --repeat K`)")
    notes: Counter = Counter()
    for record in records:
        for note in record.get("notes") or []:
            if not plain(note).startswith("merged from"):
                notes[plain(note, MAX_NOTE_CHARS)] += 1
    for note, count in notes.most_common(MAX_LISTED_NOTES):
        found.append(f"note ({count} configuration{'s' if count > 1 else ''}): {note}")
    if len(notes) > MAX_LISTED_NOTES:
        found.append(f"{len(notes) - MAX_LISTED_NOTES} more distinct notes not listed")
    return found


def machines_table(records: Sequence[Record]) -> Table:
    machines: Dict[Tuple, List[object]] = {}
    for record in records:
        metadata = section_of(record, "metadata")
        row = [", ".join(plain(h) for h in metadata.get("hosts") or [])] + [
            metadata.get(name) for name in MACHINE_FIELDS[1:]] + [metadata.get("os")]
        key = tuple(plain(value) for value in row)
        machines.setdefault(key, row + [0])[-1] += merged_count(record)  # type: ignore
    return Table.of("System", ("hosts", "CPU", "cores per node", "memory per node (B)",
                               "compiler", "flags", "MPI", "hpcprobe", "commit", "OS",
                               "records"), list(machines.values()),
                    "from each record's metadata; more than one row: the records come from "
                    "different machines or builds")


def _generic_section(section_id: str, title: str, records: Sequence[Record],
                     why: str) -> Section:
    rows = []
    for record in records:
        stats = headline_stats(record)
        divisor, unit = display_scale(headline_unit(record), stats.median)
        rows.append([record.get("benchmark"), record.get("variant"), record.get("algorithm"),
                     ranks(record), headline_metric(record), unit, value_text(stats, divisor),
                     ci_text(stats, divisor), stats.count, merged_count(record),
                     verdict_cell(record), len(record.get("series") or [])])
    section = Section(section_id, title, record_count=len(records))
    section.add(Paragraph(why), Table.of("Records", (
        "benchmark", "variant", "algorithm", "ranks", "metric", "unit", "median", "95 % CI",
        "samples", "launches", "validation", "curves"), rows))
    return section


def _machine(record: Record) -> Tuple[str, ...]:
    metadata = section_of(record, "metadata")
    hosts = metadata.get("hosts")
    first = ", ".join(plain(host) for host in hosts) if isinstance(hosts, list) else ""
    return (plain(first, 300),) + tuple(plain(metadata.get(name), 300)
                                        for name in MACHINE_FIELDS[1:])


def _sections_per_machine(family: ReportSection, records: Sequence[Record],
                          sink: FigureSink) -> List[Section]:
    """The family's section, one per machine and build when its records come from
    several (their curves must not mix). The section gets its machine's records of the
    family and of the benchmarks it also reads, in the order read."""
    machines: Dict[Tuple[str, ...], List[Record]] = {}
    for record in records:
        if record.get("benchmark") in family.benchmarks + family.reads:
            machines.setdefault(_machine(record), []).append(record)
    owned = {machine: sum(r.get("benchmark") in family.benchmarks for r in group)
             for machine, group in machines.items()}
    shown = [machine for machine, count in owned.items() if count]
    sections = []
    for number, machine in enumerate(shown, 1):
        title, section_id = family.title, family.name
        if len(shown) > 1:
            title += f" — {machine[0]}, {machine[1]}, commit {machine[8]}"
            section_id += f"-{number}"
        section = Section(section_id, title, record_count=owned[machine])
        section.add(*family.section(machines[machine], sink))
        sections.append(section)
    return sections


def _family_sections(records: Sequence[Record], sink: FigureSink) -> Tuple[
        List[Section], List[str]]:
    sections, absent = [], []
    for family in registered_sections():
        mine = [record for record in records if record.get("benchmark") in family.benchmarks]
        if not mine:
            absent.append(f"{family.title}: absent (no {', '.join(family.benchmarks)} records)")
        elif family.section is None:
            sections.append(_generic_section(
                family.name, family.title, mine, "this hpcprobe has no report section for this "
                "family yet; its records are listed as they are"))
        else:
            sections += _sections_per_machine(family, records, sink)
    unknown = [record for record in records if family_of(record.get("benchmark")) is None]
    if unknown:
        sections.append(_generic_section(
            "other-benchmarks", "Other benchmarks", unknown, "benchmarks this hpcprobe does not "
            "know (a newer hpcprobe wrote them?), listed as they are"))
    return sections, absent


def build_report(found: RecordSet, inputs: Sequence[str], data_dir: str,
                 title: str = "hpcprobe report") -> Tuple[ReportPage, FigureSink]:
    """The page for the records of `found` and the figures' CSV files."""
    records = merged_groups(found.records)
    sink = FigureSink(data_dir)
    sections, absent = _family_sections(records, sink)
    limits = limits_section(records, sink)
    if limits is not None:
        sections.append(limits)
    verdicts, failures = _verdicts(records)
    summary = [f"{len(found.records)} records in {len(records)} configurations"]
    page = ReportPage(
        title=title, generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        inputs=[plain(name, 300) for name in inputs] + summary,
        problems=[plain(problem, 400) for problem in shown_problems(found)],
        problem_count=found.problem_count, verdicts=verdicts,
        failures=failures, warnings=_warnings(records), machines=machines_table(records),
        statistics=statistics_table(records), sections=sections, absent=absent,
        data_dir=data_dir)
    return page, sink


__all__ = ["build_report", "describe_record"]
