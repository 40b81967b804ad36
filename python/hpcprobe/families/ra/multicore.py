"""`hpcprobe ra shared-table-study` and `hpcprobe ra modes`: threads on one node's table,
after Garg & Sabharwal (sections 3.2 and 3.3).

shared-table-study is their Table 2. (a) T threads update one shared table without
synchronisation, so read-modify-write races lose updates: for each number of updates per
table word, one launch of R repetitions gives R error rates (wrong words / table words),
their mean, sample standard deviation and std/mean. (b) The median GUPS of T threads
under each synchronisation, relative to one thread without any.

modes runs the mapping modes of their Table 1 on one node at one total table size: mode 1
(T ranks, one thread each), 5 and 6 (one rank, T threads on a shared table), 7 and 8 (one
rank, T threads as a pipeline), each relative to mode 1.

Threads racing without synchronisation may fail validation: that is what (a) measures, so
such a record is kept and its verdict shown. Any other run that fails validation (one
thread, or a sync) makes the exit status 1 once every run is done; a launch that crashes
or is refused stops the study with its own exit status, keeping the records written.
"""

import argparse
import json
import os
import statistics
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.table import Table
from rich.text import Text

from hpcprobe.errors import EXIT_OK, EXIT_VALIDATION_FAILED
from hpcprobe.cli_described import ALGO_OPTION
from hpcprobe.families.ra.options import (MODE1_ALGORITHM, MODE1_ONLY, MODE_ALGORITHMS, MPI,
                                          PIPELINE_ALGORITHM, SHARED_ALGORITHM, bench_option,
                                          bench_value, mpi_values, passed_options)
from hpcprobe.launching import LaunchContext, stderr_line, stdout_console
from hpcprobe.records import number
from hpcprobe.output_files import write_text_atomically
from hpcprobe.sanitize import plain
from hpcprobe.samples import metric_median
from hpcprobe.units import GIGA, MICRO, format_number
from hpcprobe.records import section_of

Record = Dict[str, Any]

HPCC_UPDATES_PER_WORD = 4
STUDY_TABLE_LOG2 = "20"
MODES_TABLE_LOG2 = "24"
STUDY_REPEAT = 5
MODES_REPEAT = 3
RUN_BUDGET_S = 600.0
# Error rates are printed in units of 10⁻⁶, as in the paper's Table 2(a).
ERROR_RATE_SCALE = MICRO
STUDY_FILE = "ra-shared-table-study.json"
MODES_FILE = "ra-modes.json"
# Options (by attribute) each study sets itself for every launch.
_STUDY_OWNED = ("threads", "sync", "roles", "repeat", "table_log2", "updates_per_word",
                "allow_noncompliant")
_MODES_OWNED = ("threads", "sync", "roles", "repeat", "table_log2", "mapping_mode")
# Garg & Sabharwal's Table 1: table, generator, 1024 look-ahead per core (C) or node (N).
MODE_LAYOUT = {1: "C C C", 5: "N C C", 6: "N C N", 7: "N N C", 8: "N N N"}


@dataclass(frozen=True)
class RateSummary:
    """Mean, sample standard deviation (ddof 1) and std/mean of error rates; None where
    undefined: no rates, a single rate (no std), or a mean of 0 (no ratio)."""

    mean: Optional[float]
    std: Optional[float]
    ratio: Optional[float]


def error_rates(wrong_words: Sequence[float], table_words: Optional[int]) -> List[float]:
    """Wrong words per table word, one per repetition ([] without a table size)."""
    if not table_words:
        return []
    return [words / table_words for words in wrong_words]


def summarize_rates(rates: Sequence[float]) -> RateSummary:
    if not rates:
        return RateSummary(None, None, None)
    mean = statistics.fmean(rates)
    std = statistics.stdev(rates) if len(rates) > 1 else None
    ratio = std / mean if std is not None and mean != 0 else None
    return RateSummary(mean, std, ratio)


def relative(value: Optional[float], baseline: Optional[float]) -> Optional[float]:
    """value / baseline; None when either is missing or the baseline is 0."""
    if value is None or not baseline:
        return None
    return value / baseline


def wrong_words(record: Optional[Record]) -> List[float]:
    """Wrong table words of each timed repetition (the record's validation)."""
    samples = section_of(record, "validation").get("per_repetition")
    values = [number(sample) for sample in samples] if isinstance(samples, list) else []
    return [value for value in values if value is not None]


def table_words(record: Optional[Record]) -> Optional[int]:
    words = number(section_of(record, "parameters").get("table_words"))
    return int(words) if words is not None and words >= 1 and words.is_integer() else None


def gups(record: Optional[Record]) -> Optional[float]:
    """Median over the repetitions, in GUPS."""
    rate = metric_median(record, "update_rate") if record else None
    return None if rate is None else rate / GIGA


def verdict(record: Optional[Record]) -> Optional[str]:
    text = section_of(record, "validation").get("verdict")
    return text if isinstance(text, str) else None


@dataclass(frozen=True)
class ErrorRow:
    """Table 2(a): one number of updates per table word."""

    updates_per_word: int
    table_words: Optional[int]
    wrong_words: List[float]
    rates: RateSummary
    verdict: Optional[str]


@dataclass(frozen=True)
class RunRow:
    """Table 2(b), or one mapping mode: a launch's median rate against a baseline."""

    name: str
    mode: Optional[int]
    algorithm: Optional[str]
    ranks: int
    threads: int
    sync: Optional[str]
    gups: Optional[float]
    relative: Optional[float]
    wrong_words: Optional[float]  # the worst repetition's
    verdict: Optional[str]


def error_row(updates_per_word: int, record: Optional[Record]) -> ErrorRow:
    words, size = wrong_words(record), table_words(record)
    return ErrorRow(updates_per_word, size, words, summarize_rates(error_rates(words, size)),
                    verdict(record))


def run_row(name: str, mode: Optional[int], ranks: int, threads: int, sync: Optional[str],
            record: Optional[Record], baseline_gups: Optional[float]) -> RunRow:
    rate, algorithm = gups(record), (record or {}).get("algorithm")
    return RunRow(name, mode, algorithm if isinstance(algorithm, str) else None, ranks, threads,
                  sync, rate, relative(rate, baseline_gups),
                  number(section_of(record, "validation").get("error")), verdict(record))


class _Stopped(Exception):
    """A launch crashed or was refused; the study ends with its exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Launches:
    """The `ra mpi` launches of one study, in order, and what went wrong."""

    def __init__(self, args: argparse.Namespace, user_argv: Sequence[str], steps: int) -> None:
        self.args = args
        self.context = LaunchContext(args, user_argv, default_np=1)
        self.steps = steps
        self.step = 0
        self.failed_validation: List[str] = []

    def run(self, label: str, options: List[str], np: int = 1,
            races_allowed: bool = False) -> Optional[Record]:
        """The launch's record (None if it wrote none); raises _Stopped when it failed
        other than by validation."""
        self.step += 1
        launch = self.context.launch("ra", MPI, options, RUN_BUDGET_S, np=np)
        outcome = self.context.run(launch, self.step, self.steps, label=label)
        if outcome.exit_status not in (EXIT_OK, EXIT_VALIDATION_FAILED):
            raise _Stopped(outcome.exit_status)
        if outcome.exit_status == EXIT_VALIDATION_FAILED and not races_allowed:
            self.failed_validation.append(label)
        return outcome.found.records[-1] if outcome.found.records else None

    def finish(self, name: str, summary: Dict[str, Any], tables: Sequence[Table]) -> int:
        """Write the summary file, print the tables (or JSON), return the exit status."""
        path = self.context.out_dir / name
        write_text_atomically(path, json.dumps(summary, indent=2) + "\n")
        if self.args.json:
            print(json.dumps(summary), flush=True)
        else:
            console = stdout_console()
            for table in tables:
                console.print(table)
        if not self.args.quiet:
            stderr_line(f"records: {self.context.results_path}; summary: {path}")
        if not self.failed_validation:
            return EXIT_OK
        listed = ", ".join(f"'{label}'" for label in self.failed_validation)
        stderr_line(f"hpcprobe: {len(self.failed_validation)} run(s) that races cannot "
                    f"explain failed validation: {listed}")
        return EXIT_VALIDATION_FAILED


def thread_count(args: argparse.Namespace) -> int:
    """--threads, else every CPU core and at least 2 (one thread shares nothing)."""
    given = bench_value(args, "threads")
    return int(given) if given is not None else max(2, os.cpu_count() or 1)


def _common(args: argparse.Namespace, table_log2: str, repeat: int) -> List[str]:
    given = bench_value(args, "repeat")
    return list(mpi_values({"table_log2": bench_value(args, "table_log2") or table_log2,
                            "repeat": given or str(repeat)}))


def shared_options(args: argparse.Namespace, threads: int, sync: str,
                   updates_per_word: int = HPCC_UPDATES_PER_WORD) -> List[str]:
    """hpcprobe-bench options of one shared-table-study launch."""
    options = [ALGO_OPTION, SHARED_ALGORITHM, *mpi_values({
        "threads": str(threads), "sync": sync, "updates_per_word": str(updates_per_word)})]
    options += _common(args, STUDY_TABLE_LOG2, STUDY_REPEAT)
    if updates_per_word != HPCC_UPDATES_PER_WORD or bench_value(args, "allow_noncompliant"):
        options.append(bench_option("allow_noncompliant").name)
    return options + passed_options(args, SHARED_ALGORITHM, _STUDY_OWNED)


def mode_options(args: argparse.Namespace, mode: int, threads: int) -> List[str]:
    """hpcprobe-bench options of mapping mode `mode` (1, 5, 6, 7 or 8) with T = `threads`."""
    skip: Tuple[str, ...] = _MODES_OWNED
    algorithm = MODE_ALGORITHMS.get(mode, args.mode1_algo or MODE1_ALGORITHM)
    values = {"threads": str(threads) if mode != 1 else "1"}
    if algorithm == SHARED_ALGORITHM:
        values["sync"] = modes_sync(args)
    elif algorithm == PIPELINE_ALGORITHM and bench_value(args, "roles") is not None:
        values["roles"] = bench_value(args, "roles")
    if mode != 1:
        skip += MODE1_ONLY
    values["mapping_mode"] = str(mode)
    options = [ALGO_OPTION, algorithm, *mpi_values(values)]
    options += _common(args, MODES_TABLE_LOG2, MODES_REPEAT)
    return options + passed_options(args, algorithm, skip)


def modes_sync(args: argparse.Namespace) -> str:
    return bench_value(args, "sync") or "atomic"


def updates_text(count: int) -> str:
    """2^25 -> "32M", as the paper writes update counts."""
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift}{suffix}"
    return str(count)


def _cell(value: Optional[float], divisor: float = 1.0, missing: str = "—") -> str:
    return missing if value is None else format_number(value, divisor)


def _table(title: str, caption: str, headings: Sequence[str],
           rows: Sequence[Sequence[Any]]) -> Table:
    table = Table(title=title, caption=caption)
    for index, heading in enumerate(headings):
        text_column = index == 0 or heading == "validation"
        table.add_column(heading, justify="left" if text_column else "right")
    for row in rows:
        table.add_row(*[Text(plain(cell)) for cell in row])
    return table


def error_table(threads: int, sync: str, rows: Sequence[ErrorRow]) -> Table:
    cells = []
    for row in rows:
        updates = "—" if row.table_words is None else updates_text(
            row.updates_per_word * row.table_words)
        cells.append((updates, row.updates_per_word,
                      _cell(row.rates.mean, ERROR_RATE_SCALE),
                      _cell(row.rates.std, ERROR_RATE_SCALE, "n/a"),
                      _cell(row.rates.ratio, missing="n/a"),
                      ", ".join(f"{words:.0f}" for words in row.wrong_words) or "—",
                      row.verdict or "—"))
    return _table(
        f"hpcprobe ra shared-table-study (a): errors of {threads} threads, sync {sync}",
        "error rate = wrong words / table words; std: sample standard deviation over the "
        "repetitions; n/a: one repetition, or a mean of 0",
        ("updates", "per word", "mean error rate (10⁻⁶)", "std (10⁻⁶)", "std/mean",
         "wrong words", "validation"), cells)


def run_table(title: str, caption: str, rows: Sequence[RunRow]) -> Table:
    cells = [(row.name, row.algorithm or "—", f"{row.ranks} × {row.threads}", row.sync or "—",
              _cell(row.gups), _cell(row.relative), _cell(row.wrong_words),
              row.verdict or "—") for row in rows]
    return _table(title, caption, ("run", "algorithm", "ranks × threads", "sync", "GUPS",
                                   "relative", "wrong words", "validation"), cells)


def racing(threads: int, sync: str) -> bool:
    """Threads sharing the table with nothing to keep their updates apart: a failed
    validation is what such a run measures."""
    return threads > 1 and sync == "none"


def _error_runs(launches: _Launches, args: argparse.Namespace,
                threads: int, sync: str) -> List[ErrorRow]:
    rows = []
    for per_word in args.updates_per_words:
        label = f"ra mpi shared {threads} threads sync {sync}, {per_word} updates/word"
        record = launches.run(label, shared_options(args, threads, sync, per_word),
                              races_allowed=racing(threads, sync))
        rows.append(error_row(per_word, record))
    return rows


def _sync_runs(launches: _Launches, args: argparse.Namespace, threads: int) -> List[RunRow]:
    label = "ra mpi shared 1 thread sync none (serial baseline)"
    record = launches.run(label, shared_options(args, 1, "none"))
    baseline = run_row("serial, 1 thread", None, 1, 1, "none", record, gups(record))
    rows = [baseline]
    for sync in args.syncs:
        label = f"ra mpi shared {threads} threads sync {sync}"
        record = launches.run(label, shared_options(args, threads, sync),
                              races_allowed=racing(threads, sync))
        rows.append(run_row(f"shared, {threads} threads", None, 1, threads, sync, record,
                            baseline.gups))
    return rows


def command_ra_shared_table_study(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    threads, sync = thread_count(args), args.sync_a or "none"
    steps = len(args.updates_per_words) + 1 + len(args.syncs)
    launches = _Launches(args, user_argv, steps)
    try:
        errors = _error_runs(launches, args, threads, sync)
        runs = _sync_runs(launches, args, threads)
    except _Stopped as stopped:
        return stopped.status
    summary = {
        "threads": threads,
        "error_rate": "wrong words / table words, one per repetition",
        "errors": {"sync": sync, "rows": [asdict(row) for row in errors]},
        "relative": "median GUPS / median GUPS of the serial baseline",
        "syncs": [asdict(row) for row in runs],
        "results": str(launches.context.results_path),
    }
    tables = [error_table(threads, sync, errors), run_table(
        "hpcprobe ra shared-table-study (b): synchronisation against one thread",
        "relative = median GUPS / median GUPS of 1 thread without synchronisation; "
        "wrong words: the worst repetition", runs)]
    return launches.finish(STUDY_FILE, summary, tables)


def command_ra_modes(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    threads = thread_count(args)
    launches = _Launches(args, user_argv, len(args.modes))
    records = []
    try:
        for mode in args.modes:
            shape = f"{threads} ranks" if mode == 1 else f"1 rank, {threads} threads"
            races = mode in (5, 6) and racing(threads, modes_sync(args))
            records.append(launches.run(f"ra mpi mode {mode} ({shape})",
                                        mode_options(args, mode, threads),
                                        threads if mode == 1 else 1, races))
    except _Stopped as stopped:
        return stopped.status
    baseline = next((gups(record) for mode, record in zip(args.modes, records) if mode == 1),
                    None)
    rows = [run_row(f"mode {mode} ({MODE_LAYOUT[mode]})", mode,
                    threads if mode == 1 else 1, 1 if mode == 1 else threads,
                    modes_sync(args) if mode in (5, 6) else None, record, baseline)
            for mode, record in zip(args.modes, records)]
    summary = {"threads": threads, "relative": "median GUPS / median GUPS of mode 1",
               "modes": [asdict(row) for row in rows],
               "results": str(launches.context.results_path)}
    table = run_table(
        f"hpcprobe ra modes: {threads} cores of one node, one table size",
        "mode (table, generator, look-ahead: C per core, N per node); relative = median GUPS "
        "/ median GUPS of mode 1; wrong words: the worst repetition", rows)
    return launches.finish(MODES_FILE, summary, [table])
