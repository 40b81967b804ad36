"""What the commands share: for those that launch benchmarks (`ra`, `ra sweep`, `run`,
`model ra --measure`) the launcher, the bench and the output directory, bench options
from `hpcprobe ra` arguments and how an outcome is reported; for those that read records
(`show`, `model ra --from`) reading FILE or DIR arguments."""

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from rich.console import Console

from hpcprobe.cluster import ClusterLauncher, load_cluster
from hpcprobe.errors import (EXIT_BAD_INPUT, EXIT_IO_FAILURE, EXIT_OK, EXIT_VALIDATION_FAILED,
                             HpcprobeError, UsageError)
from hpcprobe.launch import AnyLauncher, check_rank_count, find_bench, resolve_launcher
from hpcprobe.launch.binding import binding_args
from hpcprobe.output_files import make_directory
from hpcprobe.progress import DurationEstimates, ProgressReporter, make_progress
from hpcprobe.results import RecordSet, read_records
from hpcprobe.sanitize import visible
from hpcprobe.runner import RESULTS_FILE, Launch, LaunchOutcome, run_launch
from hpcprobe.show import records_table

# How many of a failed launch's stderr lines to repeat on the screen (all are logged).
STDERR_TAIL_LINES = 20
# Tables go to stdout; in a CI log there is no terminal width, so do not squeeze them.
_LOG_TABLE_WIDTH = 160

def stdout_console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=_LOG_TABLE_WIDTH)
    return console


def stderr_line(text: str) -> None:
    """Lines to stderr, hidden characters shown as escapes: they may quote what a bench
    or a launcher printed, or a record."""
    print("\n".join(visible(line) for line in text.split("\n")), file=sys.stderr, flush=True)


def new_results_dir(parent: Path = Path("results")) -> Path:
    """A new directory under `parent` named for now (`20261125-031500`), with `-2`,
    `-3` ... for runs started in the same second: mkdir is atomic, so two runs never
    share one."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for number in range(1, 10000):
            path = parent / (stamp if number == 1 else f"{stamp}-{number}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
    except OSError as error:
        raise HpcprobeError(f"cannot write {parent}: {error.strerror}",
                            EXIT_IO_FAILURE) from None
    raise HpcprobeError(f"cannot make a new results directory under {parent}: "
                        f"{stamp}-2 … {stamp}-9999 all exist")


def choose_launcher(args: argparse.Namespace) -> AnyLauncher:
    """--launcher's, or with --cluster NAME the cluster's (checked to be up)."""
    cluster_name = getattr(args, "cluster", None)
    ppn = getattr(args, "ppn", None)
    if cluster_name is None:
        if ppn is not None:
            raise UsageError("--ppn is for --cluster (ranks per emulated host); with a "
                             "launcher of your own, pass its option by --launcher-arg")
        return resolve_launcher(args.launcher, os.environ)
    if args.launcher is not None:
        raise UsageError("--cluster NAME chooses the launcher itself; leave out --launcher")
    launcher = ClusterLauncher(load_cluster(cluster_name), ppn)
    launcher.require_up()
    return launcher


class LaunchContext:
    """What every launch of one hpcprobe command shares: launcher, bench, directory."""

    def __init__(self, args: argparse.Namespace, user_argv: Sequence[str],
                 default_np: int) -> None:
        # Both are checked before anything starts or any directory is created.
        self.launcher: AnyLauncher = choose_launcher(args)
        self.bench_path = find_bench(os.environ)
        self.args = args
        self.user_argv = list(user_argv)
        if isinstance(self.launcher, ClusterLauncher):
            default_np = self.launcher.default_np
        self.np = args.np or default_np
        self._check_ranks(self.np)
        self.out_dir = Path(args.out) if args.out else new_results_dir()
        make_directory(self.out_dir)
        self.progress: ProgressReporter = make_progress(args.quiet)
        self.estimates = DurationEstimates()
        # The keys of the launches this command will run, in order (see plan()).
        self.planned: List[str] = []

    def _check_ranks(self, np: int) -> None:
        """Refuse `np` ranks the launcher (or the cluster's hosts) cannot start."""
        check_rank_count(np, self.launcher.name, self.args.launcher_arg, os.environ)
        if isinstance(self.launcher, ClusterLauncher):
            self.launcher.hosts_for(np)

    def plan(self, keys: Sequence[str]) -> None:
        """Name the launches to come (a key per launch; repeated launches share a key),
        so that the progress display can estimate what is left."""
        self.planned = list(keys)

    @property
    def results_path(self) -> Path:
        return self.out_dir / RESULTS_FILE

    def launch(self, benchmark: str, variant: str, options: Sequence[str],
               budget_s: float, np: Optional[int] = None) -> Launch:
        """A launch on `np` ranks (default: the command's --np)."""
        if np and np != self.np:
            self._check_ranks(np)
        env = dict(self.launcher.env) if isinstance(self.launcher, ClusterLauncher) else {}
        return Launch(
            benchmark, variant, list(options), np or self.np, self.launcher,
            list(self.args.launcher_arg), self.bench_path, self.out_dir,
            self.args.time_budget or budget_s, self.user_argv, env,
        )

    def run(self, launch: Launch, step: int, steps: int,
            label: Optional[str] = None, key: Optional[str] = None) -> LaunchOutcome:
        """Run `launch` as step `step` of `steps`, shown as `label` (default its name);
        `key` (default the label) groups launches whose durations estimate each other."""
        key = key or label or launch.name
        estimate = self.estimates.estimate(key)
        rest = self.estimates.remaining(self.planned[step:]) if self.planned else None
        left = None if rest is None else rest + (estimate or 0.0)
        self.progress.begin(step, steps, label or launch.name, launch.time_budget_s,
                            estimate, left)
        outcome = run_launch(launch, self.progress)
        self.estimates.add(key, outcome.elapsed_s)
        self.progress.end(outcome.exit_status == EXIT_OK, outcome.elapsed_s)
        report_outcome(outcome, self.args.quiet)
        return outcome


def report_outcome(outcome: LaunchOutcome, quiet: bool) -> None:
    """Problems, the bench's stderr where it helps, and hpcprobe's one-line verdict."""
    for problem in outcome.found.problems:
        stderr_line(problem)
    if outcome.exit_status == EXIT_BAD_INPUT:
        stderr_line(outcome.message or "")  # the bench's own line, relayed as is
        return
    if outcome.exit_status in (EXIT_OK, EXIT_VALIDATION_FAILED):
        if not quiet:
            for line in outcome.stderr_lines:
                stderr_line(line)
    else:
        for line in outcome.stderr_lines[-STDERR_TAIL_LINES:]:
            stderr_line(line)
    if outcome.message:
        stderr_line(f"hpcprobe: {outcome.message}")


def read_record_inputs(names: Sequence[str]) -> Tuple[RecordSet, bool]:
    """The records of each FILE, or DIR/results.jsonl, and whether any could not be
    read (each unreadable one is reported on stderr)."""
    found = RecordSet()
    unreadable = False
    for name in names:
        path = Path(name)
        if path.is_dir():
            path = path / RESULTS_FILE
        try:
            found.extend(read_records(path))
        except OSError as error:
            stderr_line(f"{path}: cannot read: {error.strerror or error}")
            unreadable = True
    return found, unreadable


def print_records(records: RecordSet, title: Optional[str] = None) -> None:
    if records.records:
        stdout_console().print(records_table(records.records, title=title))


def bind_ranks(launch: Launch, threads: int = 1, oversubscribe: bool = False) -> Launch:
    """Put the launcher's arguments that bind one rank per core first (where it has
    them; the bench pins the ranks of the others itself)."""
    binding = binding_args(launch.launcher, launch.np, threads, os.cpu_count() or 1,
                           oversubscribe, launch.launcher_args)
    launch.launcher_args = [*binding, *launch.launcher_args]
    return launch
