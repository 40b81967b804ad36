"""`hpcprobe study list` and `hpcprobe study NAME`: the papers' tables and figures as
sweeps (docs/studies.md).

`study NAME` plans the points (--plan prints them and stops), runs them in order in its
directory (default results/studies/NAME-SCALE, so that a second run resumes the first),
and ends with the table in the paper's layout beside the paper's own rows, study.json,
study-table.json and report.html (the table, the notes and the figure first, then the
families' sections of the records)."""

import argparse
import json
import os
from pathlib import Path
from typing import List, Sequence

from hpcprobe.cli_types import (CliParser, add_launcher_options, choice, int_list, positive_int,
                                positive_seconds)
from hpcprobe.cluster import load_cluster, machine_share
from hpcprobe.errors import EXIT_OK, EXIT_RUNTIME_FAILURE, UsageError
from hpcprobe.launch.limits import MAX_RANKS, allocation_cores
from hpcprobe.launching import LaunchContext, bind_ranks, stderr_line, stdout_console
from hpcprobe.output_files import write_text_atomically
from hpcprobe.report.build import build_report
from hpcprobe.report.render import data_dir_for, render_template, rich_table, write_files
from hpcprobe.results import RecordSet
from hpcprobe.signals import StopSignal
from hpcprobe.study.declare import STUDY_SCALES, Study, StudyContext
from hpcprobe.study.engine import StudyRun, all_ranks, budget_cut, plan_points
from hpcprobe.study.listing import list_tables, plan_table
from hpcprobe.study.registry import find_study, item_for
from hpcprobe.study.state import DONE, StudyState, read_state
from hpcprobe.study.table import left_out_lines, notes_lines, section, tables

TABLE_FILE = "study-table.json"
REPORT_FILE = "report.html"
STUDIES_PARENT = Path("results") / "studies"


def add_study_parser(subparsers) -> CliParser:
    study = subparsers.add_parser(
        "study", help="reproduce a table or figure of the papers as a sweep of launches "
        "(`hpcprobe study list` names them)")
    study.add_argument("name", metavar="NAME|list",
                       help="the study (e.g. plimpton-table2), or list")
    study.add_argument("--np", type=int_list("--np", 1, MAX_RANKS, "1,2,4,8"),
                       metavar="LIST", help="rank counts of the sweep (default: the study's)")
    study.add_argument("--nodes", type=int_list("--nodes", 1, 100000, "2,4"), metavar="LIST",
                       help="node counts, for the interconnect studies (default: the study's)")
    study.add_argument("--scale", default="default", type=choice("scale", STUDY_SCALES),
                       help="default, or tiny (seconds a point; for tests)")
    study.add_argument("--time-budget", type=positive_seconds("--time-budget"), metavar="S",
                       help="seconds the whole study may take (default: the study's); "
                       "points that do not fit are left out and named")
    study.add_argument("--plan", action="store_true",
                       help="print the launches and their predicted times; launch nothing")
    study.add_argument("--restart", action="store_true",
                       help="start afresh rather than resume the earlier run in --out")
    study.add_argument("--out", metavar="DIR", help="the study's directory (default: "
                       "results/studies/NAME-SCALE; a run there resumes the earlier one)")
    study.add_argument("--cluster", metavar="NAME",
                       help="run on the emulated cluster NAME (docs/cluster.md)")
    study.add_argument("--ppn", type=positive_int("--ppn"), metavar="K",
                       help="ranks per node (default 1): with --cluster, per host; in a "
                       "Slurm allocation, srun's --ntasks-per-node")
    add_launcher_options(study)
    return study


def check_study(args: argparse.Namespace) -> None:
    if args.name == "list":
        return
    if args.nodes and args.np:
        raise UsageError("give --np (rank counts) or --nodes (node counts of --ppn ranks "
                         "each), not both")
    study = find_study(args.name)
    if args.nodes and not study.interconnect:
        raise UsageError(f"--nodes is for the interconnect studies; {study.name} sweeps "
                         "ranks on one node (give --np)")
    if args.ppn and not args.cluster and not os.environ.get("SLURM_JOB_ID"):
        raise UsageError("--ppn is for --cluster (ranks per emulated host) or a Slurm "
                         "allocation (srun's --ntasks-per-node)")


def study_context(args: argparse.Namespace) -> StudyContext:
    shared = None
    if args.cluster:  # emulated: its hosts run on this machine's CPUs
        shared = machine_share(load_cluster(args.cluster), os.cpu_count() or 1)
    return StudyContext(args.scale, tuple(args.np or ()), tuple(args.nodes or ()),
                        args.ppn or 1, allocation_cores(os.environ), bool(args.cluster),
                        shared)


def command_study(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    console = stdout_console()
    if args.name == "list":
        for table in list_tables():
            console.print(rich_table(table))
        return EXIT_OK
    study = find_study(args.name)
    context = study_context(args)
    default_ranks = context.rank_counts((1,))[0]
    planned = plan_points(study, context, default_ranks)
    budget = args.time_budget or study.budget_s
    if args.plan:
        console.print(rich_table(plan_table(study, planned, budget,
                                            budget_cut(planned, budget))))
        return EXIT_OK
    return _run(study, args, user_argv, planned, budget, default_ranks)


def _launch_args(args: argparse.Namespace, out_dir: Path, ranks: int) -> argparse.Namespace:
    """What LaunchContext reads, from the study's own options (its --time-budget is the
    study's, not one launch's)."""
    return argparse.Namespace(np=ranks, out=str(out_dir), launcher=args.launcher,
                              launcher_arg=list(args.launcher_arg), time_budget=None,
                              cluster=args.cluster, ppn=args.ppn if args.cluster else None,
                              quiet=args.quiet)


def _placer(args: argparse.Namespace):
    """One rank per core where the ranks fit the cores (as `run` binds its memory and
    processor launches); a sweep above the cores runs unbound, oversubscribed. Under
    srun with --ppn, a point of P ranks runs on ceil(P / ppn) nodes, ppn ranks each."""
    cores = os.cpu_count() or 1

    def place(step, launch):
        if args.ppn and args.cluster is None and launch.launcher.name == "srun":
            nodes = -(-launch.np // args.ppn)
            launch.launcher_args = [f"--nodes={nodes}", f"--ntasks-per-node={args.ppn}",
                                    *launch.launcher_args]
            return launch
        if args.cluster is None and launch.np <= cores and step.benchmark in _bound():
            return bind_ranks(launch)
        return launch
    return place


def _bound() -> Sequence[str]:
    from hpcprobe.families import FAMILIES
    return tuple(benchmark for family in FAMILIES for benchmark in family.bound)


def _run(study: Study, args, user_argv, planned, budget: float, default_ranks: int) -> int:
    out_dir = Path(args.out) if args.out else STUDIES_PARENT / f"{study.name}-{args.scale}"
    ranks = all_ranks(planned, default_ranks)
    launch = LaunchContext(_launch_args(args, out_dir, max(ranks)), user_argv, max(ranks))
    for count in ranks:  # every rank count checked before anything starts
        launch._check_ranks(count)
    earlier = None if args.restart else read_state(out_dir, study.name)
    if earlier is not None and earlier.scale != args.scale:
        raise UsageError(f"{out_dir} holds a --scale {earlier.scale} run of {study.name}; "
                         "give another --out or --restart")
    state = StudyState(study.name, args.scale, budget, earlier.points if earlier else [])
    run = StudyRun(study, planned, launch, state, _placer(args))
    resumed = sum(point.status == DONE for point in run.state.points)
    if resumed:
        stderr_line(f"resuming {out_dir}: {resumed} of {len(planned)} points measured by "
                    "the earlier run")
    try:
        run.run_all()
    except StopSignal as stop:
        run.stopped(stop)
        _finish(study, run, out_dir)
        raise
    run.state.write(out_dir)
    return _finish(study, run, out_dir)


def _finish(study: Study, run: StudyRun, out_dir: Path) -> int:
    """The table beside the paper's, the notes, what was left out; the files."""
    item, measured = item_for(study), run.measured()
    rows = study.rows(measured)
    notes = study.notes(measured) if study.notes else []
    console = stdout_console()
    for table in tables(study, item, rows):
        console.print(rich_table(table))
    for line in notes_lines(notes):
        console.print(line)
    for line in left_out_lines(run.state):
        stderr_line(f"hpcprobe: {line}")
    _write_table(out_dir, study, rows, notes, run.state)
    html = _write_report(out_dir, study, item, rows, notes, run)
    stderr_line(f"study: {out_dir / 'study.json'}; report: {html}")
    failed = [point for point in run.state.points if point.status in ("failed", "stopped")]
    return EXIT_RUNTIME_FAILURE if failed else EXIT_OK


def _write_table(out_dir: Path, study: Study, rows: List[dict], notes, state: StudyState):
    data = {"study": study.name, "paper": study.paper, "item": study.item,
            "scale": state.scale, "budget_s": state.budget_s, "rows": rows,
            "notes": [{"what": a, "measured": b, "paper": c} for a, b, c in notes],
            "points": [{"key": p.key, "status": p.status, "why": p.why,
                        "elapsed_s": p.elapsed_s, "predicted_s": p.predicted_s}
                       for p in state.points]}
    write_text_atomically(out_dir / TABLE_FILE, json.dumps(data, indent=1, default=str) + "\n")


def _write_report(out_dir: Path, study: Study, item, rows, notes, run: StudyRun) -> Path:
    html_path = out_dir / REPORT_FILE
    records = [record for entry in run.measured() for record in entry.records]
    page, sink = build_report(RecordSet(records), [str(run.launch_context.results_path)],
                              data_dir_for(html_path).name, title=f"hpcprobe study "
                              f"{study.name}")
    page.sections.insert(0, section(study, item, rows, notes, run.state, sink))
    write_files(html_path, render_template("report.html.j2", page=page), sink.files)
    return html_path
