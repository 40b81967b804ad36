"""`hpcprobe ra sweep`: `ra mpi` over look-aheads Q, as in Plimpton et al.'s Table 4.

One 1-rank baseline at Q = 1024 gives GUPS_1; then one launch per Q on P ranks. The
parallel efficiency of each point is GUPS_P(Q) / (P × GUPS_1). Look-aheads over 1024
are run with --allow-noncompliant (their records say `compliant: false`).
"""

import argparse
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.table import Table
from rich.text import Text

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK
from hpcprobe.cli_described import ALGO_OPTION
from hpcprobe.families.ra.options import (MPI, SWEEP_ALGORITHM, bench_option, bench_value,
                                          mpi_values, passed_options)
from hpcprobe.launching import LaunchContext, stderr_line, stdout_console
from hpcprobe.families.ra.model_fit import gups_of, ranks_of
from hpcprobe.records import number
from hpcprobe.output_files import write_text_atomically
from hpcprobe.runner import LaunchOutcome
from hpcprobe.sanitize import plain
from hpcprobe.units import format_number
from hpcprobe.launch.limits import allocation_cores

Record = Dict[str, Any]

BASELINE_LOOKAHEAD = 1024
HPCC_MAX_LOOKAHEAD = 1024
# A step at small Q exchanges Q updates at a time: a full table takes long, so a sweep
# measures a 2^20-word table for at most 5 s per point unless told otherwise. The bench
# records the updates it executed, so the rate stays honest.
DEFAULT_TABLE_LOG2 = "20"
DEFAULT_TIME_LIMIT_S = "5"
POINT_BUDGET_S = 600.0
SUMMARY_FILE = "ra-sweep.json"
# Options (by attribute) the sweep sets itself for each point.
_SWEEP_OWNED = ("lookahead", "allow_noncompliant")
# The baseline runs on one rank, where a torus grid of P ranks would not fit.
_NOT_FOR_BASELINE = _SWEEP_OWNED + ("grid", "dims")


@dataclass(frozen=True)
class SweepPoint:
    """One look-ahead of the sweep, from its record (None where the record lacks it)."""

    lookahead: int
    procs: Optional[int]
    gups: Optional[float]
    efficiency_percent: Optional[float]
    compliant: Optional[bool]
    verdict: Optional[str]
    updates_executed: Optional[int]


def efficiency_percent(gups: Optional[float], procs: Optional[int],
                       baseline_gups: Optional[float]) -> Optional[float]:
    """100 · GUPS_P / (P · GUPS_1); None when any input is missing or GUPS_1 is 0."""
    if gups is None or not procs or not baseline_gups:
        return None
    return 100.0 * gups / (procs * baseline_gups)


def _verdict(record: Record) -> Optional[str]:
    validation = record.get("validation")
    verdict = validation.get("verdict") if isinstance(validation, dict) else None
    return verdict if isinstance(verdict, str) else None


def _updates_executed(record: Record) -> Optional[int]:
    counters = record.get("counters")
    count = number(counters.get("updates_executed")) if isinstance(counters, dict) else None
    return int(count) if count is not None and count.is_integer() else None


def sweep_point(lookahead: int, record: Optional[Record],
                baseline_gups: Optional[float]) -> SweepPoint:
    """The point of look-ahead Q from its record (None: the launch wrote none)."""
    if record is None:
        return SweepPoint(lookahead, None, None, None, None, None, None)
    gups, procs = gups_of(record), ranks_of(record)
    compliant = record.get("compliant")
    return SweepPoint(
        lookahead, procs, gups, efficiency_percent(gups, procs, baseline_gups),
        compliant if isinstance(compliant, bool) else None, _verdict(record),
        _updates_executed(record),
    )


def _defaults(args: argparse.Namespace) -> List[str]:
    values = {}
    if bench_value(args, "table_log2") is None and bench_value(args, "memory_fraction") is None:
        values["table_log2"] = DEFAULT_TABLE_LOG2
    if bench_value(args, "time_limit") is None:
        values["time_limit"] = DEFAULT_TIME_LIMIT_S
    return list(mpi_values(values))


def _point(args: argparse.Namespace, lookahead: int) -> List[str]:
    """--algo and the look-ahead of a launch, --allow-noncompliant over HPCC's 1024."""
    options = [ALGO_OPTION, args.algo or SWEEP_ALGORITHM,
               *mpi_values({"lookahead": str(lookahead)})]
    if lookahead > HPCC_MAX_LOOKAHEAD:
        options.append(bench_option("allow_noncompliant").name)
    return options


def point_options(args: argparse.Namespace, lookahead: int) -> List[str]:
    """hpcprobe-bench options of the launch at look-ahead Q."""
    algorithm = args.algo or SWEEP_ALGORITHM
    return (_point(args, lookahead) + passed_options(args, algorithm, _SWEEP_OWNED)
            + _defaults(args))


def baseline_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options of the 1-rank baseline (Q = 1024, no torus grid)."""
    algorithm = args.algo or SWEEP_ALGORITHM
    return (_point(args, BASELINE_LOOKAHEAD) + passed_options(args, algorithm, _NOT_FOR_BASELINE)
            + _defaults(args))


def sweep_summary(algorithm: str, procs: int, baseline: SweepPoint,
                  points: Sequence[SweepPoint], results_path: Path) -> Dict[str, Any]:
    """The JSON object written to SUMMARY_FILE."""
    return {
        "algorithm": algorithm,
        "procs": procs,
        "efficiency": "gups / (procs * baseline.gups), in percent",
        "baseline": asdict(baseline),
        "points": [asdict(point) for point in points],
        "results": str(results_path),
    }


def _cell(value: Optional[float], spec: str) -> str:
    return "—" if value is None else format(value, spec)


def sweep_table(algorithm: str, procs: int, baseline: SweepPoint,
                points: Sequence[SweepPoint]) -> Table:
    table = Table(
        title=f"hpcprobe ra sweep: {plain(algorithm)} on {procs} ranks",
        caption=(f"efficiency = GUPS / (ranks × {format_number(baseline.gups)} GUPS, "
                 f"1 rank at Q = {baseline.lookahead})"))
    for heading in ("Q", "ranks", "GUPS", "efficiency (%)", "compliant", "validation"):
        table.add_column(heading, justify="left" if heading == "validation" else "right")
    for point in points:
        compliant = {True: "yes", False: "no", None: "—"}[point.compliant]
        table.add_row(*[Text(cell) for cell in (
            str(point.lookahead), _cell(point.procs, "d"), format_number(point.gups),
            _cell(point.efficiency_percent, ".3g"), compliant, plain(point.verdict or "—"))])
    return table


def _last_record(outcome: LaunchOutcome) -> Optional[Record]:
    return outcome.found.records[-1] if outcome.found.records else None


class _Sweep:
    """The launches of one sweep and what they gave."""

    def __init__(self, args: argparse.Namespace, user_argv: Sequence[str]) -> None:
        self.args = args
        self.algorithm = args.algo or SWEEP_ALGORITHM
        self.context = LaunchContext(args, user_argv, default_np=allocation_cores(os.environ))
        self.steps = len(args.lookaheads) + 1
        self.failures: Dict[str, int] = {}

    def _run(self, step: int, options: List[str], np: int, label: str) -> LaunchOutcome:
        launch = self.context.launch("ra", MPI, options, POINT_BUDGET_S, np=np)
        outcome = self.context.run(launch, step, self.steps, label=label)
        if outcome.exit_status != EXIT_OK:
            self.failures[label] = outcome.exit_status
        return outcome

    def baseline(self) -> Tuple[Optional[Record], int]:
        """The baseline's record (None if it wrote none) and its exit status."""
        label = f"ra mpi {self.algorithm} Q={BASELINE_LOOKAHEAD} on 1 rank (baseline)"
        outcome = self._run(1, baseline_options(self.args), 1, label)
        return _last_record(outcome), outcome.exit_status

    def points(self, baseline_gups: Optional[float]) -> Optional[List[SweepPoint]]:
        """One point per look-ahead; None when the bench refused its input."""
        found = []
        for step, lookahead in enumerate(self.args.lookaheads, 2):
            label = f"ra mpi {self.algorithm} Q={lookahead} on {self.context.np} ranks"
            outcome = self._run(step, point_options(self.args, lookahead),
                                self.context.np, label)
            if outcome.exit_status == EXIT_BAD_INPUT:
                return None  # every other point would be refused the same way
            found.append(sweep_point(lookahead, _last_record(outcome), baseline_gups))
        return found

    def exit_status(self) -> int:
        if not self.failures:
            return EXIT_OK
        listed = ", ".join(f"'{name}' (exit status {status})"
                           for name, status in self.failures.items())
        stderr_line(f"hpcprobe: {len(self.failures)} of {self.steps} sweep launches failed: "
                    f"{listed}")
        return max(self.failures.values())


def command_ra_sweep(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    sweep = _Sweep(args, user_argv)
    baseline_record, status = sweep.baseline()
    if status == EXIT_BAD_INPUT:
        return status
    baseline = sweep_point(BASELINE_LOOKAHEAD, baseline_record, None)
    points = sweep.points(baseline.gups)
    if points is None:
        return EXIT_BAD_INPUT
    summary = sweep_summary(sweep.algorithm, sweep.context.np, baseline, points,
                            sweep.context.results_path)
    summary_path = sweep.context.out_dir / SUMMARY_FILE
    write_text_atomically(summary_path, json.dumps(summary, indent=2) + "\n")
    stdout_console().print(sweep_table(sweep.algorithm, sweep.context.np, baseline, points))
    if not args.quiet:
        stderr_line(f"records: {sweep.context.results_path}; summary: {summary_path}")
    return sweep.exit_status()
