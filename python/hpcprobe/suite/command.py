"""`hpcprobe run [--suite NAME]`: a suite's launches in order (the main job by default),
then, whatever happened to them, run.json (each step's outcome), report.html and, for the
main job, the headline table beside an earlier run of the same machine and build.

A step that fails does not stop the run. A signal (Ctrl-C, Slurm's SIGTERM) stops the
launch in progress with everything it started; the records measured so far, those of the
stopped launch included, still make the report, which names every step that is missing
and why, and hpcprobe then exits as the signal asks."""

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from rich.table import Table as RichTable
from rich.text import Text

from hpcprobe.analysis.merge import merged_groups
from hpcprobe.commands import print_family_tables, print_limits_table
from hpcprobe.errors import EXIT_OK, EXIT_RUNTIME_FAILURE, HpcprobeError
from hpcprobe.families import FAMILIES
from hpcprobe.launch.placement import check_run_placement, place_launch
from hpcprobe.hpcc_summary.write import suite_problems, write_hpcc_summary
from hpcprobe.suite.headline import Figure, headline_table, moved_figures
from hpcprobe.launch.limits import allocation_cores
from hpcprobe.limits.section import write_limits
from hpcprobe.launching import (LaunchContext, bind_ranks, print_records, stderr_line,
                                stdout_console)
from hpcprobe.suite.repeat import launch_label, merge_steps, rounds, write_merged
from hpcprobe.report.blocks import Table
from hpcprobe.report.build import build_report, statistics_table
from hpcprobe.report.render import data_dir_for, render_template, rich_table, write_files
from hpcprobe.results import RecordSet
from hpcprobe.suite.manifest import (DONE, FAILED, NOT_RUN, STOPPED, EarlierRun, RunManifest,
                                   StepOutcome, earlier_durations, find_earlier, machine_of)
from hpcprobe.runner import Launch, own_records
from hpcprobe.signals import StopSignal
from hpcprobe.launch import find_bench
from hpcprobe.suite.node_sizes import NodeSizes
from hpcprobe.suite.planning import RESULTS_PARENT, SuitePlan, make_plan
from hpcprobe.suite.step import SuiteStep
from hpcprobe.suite.suites import DEFAULT_SUITE, FAMILY_SUITES, suite_steps

REPORT_FILE = "report.html"
# The benchmarks whose suite launches bind one rank per core (where the launcher can).
_BOUND_BENCHMARKS = tuple(benchmark for family in FAMILIES for benchmark in family.bound)


def headline_figures(records: Sequence) -> List[Figure]:
    """Every family's headline figures of `records` (merged per configuration first, so
    that a step run in several rounds pools its samples)."""
    merged = merged_groups(list(records))
    return [figure for family in FAMILIES if family.headline is not None
            for figure in family.headline(merged)]


@dataclass
class SuiteRun:
    """What the run has so far: its records, its failed launches, each step's records."""

    context: LaunchContext
    manifest: RunManifest
    steps: List[SuiteStep]
    found: RecordSet = field(default_factory=RecordSet)
    failures: Dict[str, int] = field(default_factory=dict)
    by_step: Dict[str, List] = field(default_factory=dict)
    # The launch in progress: (launch, its step, its outcome in the manifest).
    current: Optional[Tuple[Launch, SuiteStep, StepOutcome]] = None
    plan: Optional[SuitePlan] = None

    def launch(self, step: SuiteStep) -> Launch:
        context = self.context
        launch = context.launch(step.benchmark, step.variant, step.options(self.found.records),
                                step.time_budget_s, np=step.ranks)
        launch = bind_ranks(launch) if step.benchmark in _BOUND_BENCHMARKS else launch
        return place_launch(launch, context.args.placement)

    def run_all(self) -> None:
        args = self.context.args
        for number, (_, step) in enumerate(rounds(self.steps, args.repeat), 1):
            outcome_of = self.manifest.steps[number - 1]
            if self.plan is not None:  # the prediction at launch, with what is known now
                self.plan.predict_at_launch(step, outcome_of,
                                            headline_figures(self.found.records),
                                            self.found.records)
            launch = self.launch(step)
            self.current = (launch, step, outcome_of)
            outcome = self.context.run(launch, number, len(self.manifest.steps),
                                       label=outcome_of.name, key=step.name)
            self.current = None
            self.by_step.setdefault(step.name, []).extend(outcome.found.records)
            self.found.extend(outcome.found)
            outcome_of.elapsed_s = round(outcome.elapsed_s, 3)
            outcome_of.exit_status = outcome.exit_status
            if outcome.exit_status == EXIT_OK:
                outcome_of.status = DONE
            else:
                outcome_of.status = FAILED
                outcome_of.why = (outcome.message or f"exit status {outcome.exit_status}")[:300]
                self.failures[outcome_of.name] = outcome.exit_status

    def stopped(self, signal_name: str) -> None:
        """Keep what the launch in progress measured before the stop; name every launch
        the stop cut short or left out."""
        if self.current is not None:
            launch, step, outcome_of = self.current
            kept = own_records(launch.results_path, 0, launch.launch_id)
            self.found.extend(kept)
            self.by_step.setdefault(step.name, []).extend(kept.records)
            outcome_of.status = STOPPED
            outcome_of.why = f"stopped by {signal_name}"
        self.manifest.stopped_by = signal_name
        for later in self.manifest.steps:
            if later.status == NOT_RUN:
                later.why = f"the run was stopped by {signal_name}"


def _family_main_steps(steps: List[SuiteStep], scale: str, np: int, bench: str,
                       quiet: bool) -> Tuple[List[SuiteStep], List[str]]:
    """The main job's steps and those the families add where the node has what they need
    (a GPU); a family that adds none says why in one note, shown once and kept in run.json."""
    notes = []
    for family in FAMILIES:
        if family.main_steps is not None:
            extra, note = family.main_steps(scale, np, bench)
            steps = steps + extra
            if note:
                notes.append(note)
                if not quiet:
                    stderr_line(f"hpcprobe: note: {note}")
    return steps, notes


@dataclass
class _PlanContext:
    """What a suite's sizing needs of a launch context when nothing is launched: the
    ranks, and the node the plan is for (families/hpcc/command.py)."""

    np: int
    node_info: Dict


def _suite_plan(args: argparse.Namespace, np: int, out_dir: Path, context=None):
    """The suite's plan (planning.py); its steps from the suite's own builder, sized on
    the launched ranks when `context` is given, else on the planned node."""
    suite = args.suite or DEFAULT_SUITE
    owned = FAMILY_SUITES.get(suite)
    identity = RunManifest(suite, args.scale, np, args.repeat)
    holder: Dict[str, NodeSizes] = {}

    def steps_of() -> List[SuiteStep]:
        if owned is not None and owned.sized_steps is not None:
            node = holder["sizes"].node
            return owned.sized_steps(args, context or _PlanContext(np, {
                "memory_available_bytes_min_node": node.get("memory_available_bytes"),
                "nodes": node.get("nodes")}))
        return suite_steps(suite, args.scale, np)

    plan = make_plan(args, suite, np, steps_of, out_dir, identity, holder, headline_figures)
    notes: List[str] = [] if plan.note is None else [plan.note]
    if plan.note is not None and not args.quiet:
        stderr_line(f"hpcprobe: note: {plan.note}")
    if suite == DEFAULT_SUITE:
        steps, family_notes = _family_main_steps(
            plan.steps, args.scale, np, find_bench(os.environ),
            args.quiet or getattr(args, "plan", False))
        notes += family_notes
        plan.extend(steps[len(plan.steps):])
    return plan, notes


def _plan(args: argparse.Namespace, context: LaunchContext) -> SuiteRun:
    plan, notes = _suite_plan(args, context.np, context.out_dir, context)
    steps = plan.steps
    check_run_placement(args.placement, [step.ranks or context.np for step in steps])
    launches = rounds(steps, args.repeat)
    manifest = RunManifest(plan.suite, args.scale, context.np, args.repeat, [
        StepOutcome(launch_label(step, number, args.repeat), step.name)
        for number, step in launches], notes=notes)
    context.plan([step.name for _, step in launches])
    context.estimates.seed(earlier_durations(context.out_dir, manifest))
    return SuiteRun(context, manifest, steps, plan=plan)


def _headline(run: SuiteRun, earlier: Optional[EarlierRun]):
    figures = headline_figures(run.found.records)
    if not figures:
        return None, []
    if earlier is None:
        return headline_table(figures), []
    before = {figure.key: figure for figure in headline_figures(earlier.records.records)}
    return (headline_table(figures, before, earlier.path.name),
            moved_figures(figures, before))


def headline_rich(table: Table) -> RichTable:
    """The headline for the terminal: subsystem and figure left-aligned, never wrapped,
    a rule between subsystems."""
    shown = RichTable(title=Text(table.title), caption=Text(table.caption))
    for index, heading in enumerate(table.headings):
        shown.add_column(Text(heading), justify="left" if index < 2 else "right",
                         no_wrap=index < 2, min_width=len("interconnect") if index == 0 else None)
    for index, row in enumerate(table.rows):
        next_group = index + 1 < len(table.rows) and table.rows[index + 1][0] != ""
        shown.add_row(*[Text(value) for value in row], end_section=next_group)
    return shown


def write_run_report(run: SuiteRun) -> Path:
    """run.json and report.html in the run's directory; prints the main job's headline."""
    context, manifest = run.context, run.manifest
    manifest.write(context.out_dir)
    earlier = find_earlier(context.out_dir, manifest, machine_of(run.found.records))
    table, moved = _headline(run, earlier)
    html_path = context.out_dir / REPORT_FILE
    title = f"hpcprobe run --suite {manifest.suite}: {context.out_dir.name}"
    page, sink = build_report(run.found, [str(context.results_path)],
                              data_dir_for(html_path).name, title=title)
    page.headline, page.missing = table, manifest.missing()
    write_files(html_path, render_template("report.html.j2", page=page), sink.files)
    limits_path = write_limits(context.out_dir, merged_groups(list(run.found.records)))
    if manifest.suite == DEFAULT_SUITE and table is not None and not context.args.quiet:
        stdout_console().print(headline_rich(table))
        print_limits_table(merged_groups(list(run.found.records)))
    for line in page.missing:
        stderr_line(f"hpcprobe: missing: {line}")
    if earlier is not None:
        stderr_line(f"compared with the earlier run {earlier.path}: " + (
            f"moved beyond their spread: {'; '.join(moved)}" if moved else
            "nothing moved beyond its spread"))
    stderr_line(f"report: {html_path}")
    stderr_line(f"limits: {limits_path}")
    return html_path


def _print_results(run: SuiteRun) -> None:
    args, context = run.context.args, run.context
    shown = run.found
    if args.repeat > 1:
        shown = _merge_rounds(context, run.by_step, run.failures)
    elif run.manifest.suite != DEFAULT_SUITE:
        print_records(run.found, title=f"hpcprobe run --suite {run.manifest.suite}: "
                      f"{context.out_dir}")
    if run.manifest.suite != DEFAULT_SUITE:
        print_family_tables(shown)
    owned = FAMILY_SUITES.get(run.manifest.suite)
    if (args.hpcc_summary or (owned is not None and owned.hpcc_summary)) and (
            run.found.records or run.failures):
        write_hpcc_summary(run.found, context.out_dir, suite_problems(run.by_step, run.failures))


def command_plan(args: argparse.Namespace) -> int:
    """`run --plan`: the plan of the suite, printed (a table, or JSON); nothing launched
    and no directory made."""
    np = args.np or allocation_cores(os.environ)
    out_dir = Path(args.out) if args.out else RESULTS_PARENT / "plan"
    plan, _ = _suite_plan(args, np, out_dir)
    plan.print(args.json, stdout_console())
    return EXIT_OK


def _print_beside_plan(run: SuiteRun) -> None:
    """Each step's prediction at its launch beside what it took (stderr)."""
    steps = [step for step in run.manifest.steps if step.predicted_s is not None]
    if not steps or run.context.args.quiet:
        return
    rows = [[step.name, f"{step.predicted_s:.1f} s",
             "-" if step.elapsed_s is None else f"{step.elapsed_s:.1f} s",
             "-" if not step.elapsed_s else f"{step.elapsed_s / step.predicted_s:.2f}"]
            for step in steps]
    predicted = sum(step.predicted_s for step in steps)
    took = sum(step.elapsed_s or 0.0 for step in steps)
    rows.append(["total", f"{predicted:.1f} s", f"{took:.1f} s",
                 f"{took / predicted:.2f}" if predicted else "-"])
    table = Table("the plan beside the run", ["step", "predicted", "took", "took / predicted"],
                  rows, "predicted: the plan's model at each launch (docs/main-job.md#the-plan)")
    stdout_console().print(rich_table(table))


def command_run(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if getattr(args, "plan", False):
        return command_plan(args)
    context = LaunchContext(args, user_argv, default_np=allocation_cores(os.environ))
    run = _plan(args, context)
    try:
        run.run_all()
    except StopSignal as stop:
        run.stopped(stop.name)
        try:
            write_run_report(run)
        except HpcprobeError as error:  # the stop's own message follows: say this first
            stderr_line(f"hpcprobe: {error.message}")
        raise
    _print_results(run)
    _print_beside_plan(run)
    write_run_report(run)
    if run.failures:
        listed = ", ".join(f"'{name}' (exit status {status})"
                           for name, status in run.failures.items())
        stderr_line(f"hpcprobe: {len(run.failures)} of {len(run.manifest.steps)} benchmarks "
                    f"failed: {listed}")
        return max(run.failures.values())
    return EXIT_OK


def _merge_rounds(context: LaunchContext, by_step: Dict[str, List],
                  failures: Dict[str, int]) -> RecordSet:
    """Merge each step's records into merged.jsonl and print their statistics; each
    step that could not be merged is added to `failures` with exit status 3."""
    merged, refused = merge_steps(by_step)
    if merged:
        path = write_merged(context.out_dir, merged)
        stdout_console().print(rich_table(statistics_table(merged)))
        stderr_line(f"merged records: {path}")
    for name, line in refused.items():
        stderr_line(f"hpcprobe: {line}")
        failures[name] = EXIT_RUNTIME_FAILURE
    return RecordSet(merged)
