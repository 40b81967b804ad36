"""What a person sees while benchmarks run: a live rich display on a terminal, plain
lines (`[1/3] ra single ...`, `done in 3.2 s`) in CI logs, nothing with --quiet.

Both show the current benchmark and, once something is known, an estimate: how long
this benchmark took before in the same command (a suite run with --repeat, a sweep), and
how long the rest of the command will take (steps never run yet counted at the mean of
those that ran)."""

import statistics
import sys
import threading
from typing import Dict, List, Optional, Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
from rich.text import Text


def _seconds(value: float) -> str:
    return f"{value:.1f} s"


def budget_text(seconds: float) -> str:
    """A time budget as users typed it: 30 -> "30 s", 2.5 -> "2.5 s"."""
    return f"{seconds:g} s"


def duration_text(seconds: float) -> str:
    """A rough duration: "40 s", "2.5 min", "1.2 h"."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class DurationEstimates:
    """How long launches took, by key (a suite step), to estimate the ones to come."""

    def __init__(self) -> None:
        self._by_key: Dict[str, List[float]] = {}
        self._all: List[float] = []

    def add(self, key: str, seconds: float) -> None:
        self._by_key.setdefault(key, []).append(seconds)
        self._all.append(seconds)

    def seed(self, durations: Dict[str, float]) -> None:
        """Durations from an earlier run, to estimate the steps before they first run."""
        for key, seconds in durations.items():
            self.add(key, seconds)

    def estimate(self, key: str) -> Optional[float]:
        """The median of this key's earlier durations; None for a key never run."""
        known = self._by_key.get(key)
        return statistics.median(known) if known else None

    def remaining(self, keys: Sequence[str]) -> Optional[float]:
        """Seconds for `keys`, each at its estimate or else at the mean of all so far;
        None before anything ran."""
        if not self._all:
            return None
        mean = statistics.fmean(self._all)
        return sum(self.estimate(key) or mean for key in keys)


def estimate_text(estimate_s: Optional[float], left_s: Optional[float]) -> str:
    """"estimate 12 s, about 3.1 min left in all", or "" when nothing is known."""
    words = []
    if estimate_s is not None:
        words.append(f"estimate {duration_text(estimate_s)}")
    if left_s is not None:
        words.append(f"about {duration_text(left_s)} left in all")
    return ", ".join(words)


class ProgressReporter:
    """Silent reporter (--quiet); the base of the others."""

    def __init__(self, console: Optional[Console] = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)

    def begin(self, step: int, steps: int, name: str, budget_s: float,
              estimate_s: Optional[float] = None, left_s: Optional[float] = None) -> None:
        """A benchmark starts: step of steps, with this time budget; estimate_s: how long
        it should take, left_s: the whole command (None: not known yet)."""

    def update(self, elapsed_s: float) -> None:
        """Called about five times a second while the benchmark runs."""

    def output_line(self, line: str) -> None:
        """A line the benchmark printed."""

    def end(self, succeeded: bool, elapsed_s: float) -> None:
        """The benchmark finished (or was stopped)."""


class PlainProgress(ProgressReporter):
    """Lines only, for logs: no cursor movement, no colours."""

    def __init__(self, console: Optional[Console] = None) -> None:
        super().__init__(console)
        self._lock = threading.Lock()

    def _print(self, line: str) -> None:
        with self._lock:
            self.console.print(Text(line), soft_wrap=True)

    def begin(self, step: int, steps: int, name: str, budget_s: float,
              estimate_s: Optional[float] = None, left_s: Optional[float] = None) -> None:
        self._print(f"[{step}/{steps}] {name} ...")
        # On a line of its own: scripts that read the step lines see them unchanged.
        estimate = estimate_text(estimate_s, left_s)
        if estimate:
            self._print(f"  {estimate}")

    def output_line(self, line: str) -> None:
        self._print(line)

    def end(self, succeeded: bool, elapsed_s: float) -> None:
        self._print(("done in " if succeeded else "failed after ") + _seconds(elapsed_s))


class LiveProgress(ProgressReporter):
    """A rich progress bar of elapsed time against the budget, output scrolling above."""

    def __init__(self, console: Optional[Console] = None) -> None:
        super().__init__(console)
        self._progress: Optional[Progress] = None
        self._task = None
        self._budget_s = 0.0
        self._left_s: Optional[float] = None
        self._estimate_s: Optional[float] = None

    def begin(self, step: int, steps: int, name: str, budget_s: float,
              estimate_s: Optional[float] = None, left_s: Optional[float] = None) -> None:
        # The bar fills towards the estimate when there is one, else the budget.
        self._budget_s = min(estimate_s, budget_s) if estimate_s else budget_s
        self._left_s = left_s
        self._estimate_s = estimate_s
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[{task.fields[step]}] {task.description}"),
            BarColumn(),
            TextColumn("{task.fields[elapsed]} {task.fields[target]}"),
            TextColumn("{task.fields[left]}"),
            console=self.console,
            transient=True,
        )
        self._progress.start()
        target = (f"of ~{duration_text(estimate_s)} (budget {budget_text(budget_s)})"
                  if estimate_s else f"of {budget_text(budget_s)} budget")
        self._task = self._progress.add_task(
            name, total=self._budget_s, step=f"{step}/{steps}", elapsed=_seconds(0),
            target=target, left=self._left_text(0.0),
        )

    def _left_text(self, elapsed_s: float) -> str:
        if self._left_s is None:
            return ""
        return f"· all: ~{duration_text(max(0.0, self._left_s - elapsed_s))} left"

    def update(self, elapsed_s: float) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task, completed=min(elapsed_s, self._budget_s),
                elapsed=_seconds(elapsed_s), left=self._left_text(elapsed_s),
            )

    def output_line(self, line: str) -> None:
        self.console.print(Text(line), soft_wrap=True)

    def end(self, succeeded: bool, elapsed_s: float) -> None:
        """One line per step stays on the terminal: its verdict and time, and the time
        the rest should take (the estimate of this step taken out)."""
        if self._progress is not None:
            task = self._progress.tasks[0]
            self._progress.stop()
            self._progress = None
            verdict = "done in" if succeeded else "failed after"
            line = f"[{task.fields['step']}] {task.description}: {verdict} {_seconds(elapsed_s)}"
            if self._left_s is not None:
                rest = max(0.0, self._left_s - (self._estimate_s or elapsed_s))
                line += f" · about {duration_text(rest)} left"
            self.console.print(Text(line))


def make_progress(quiet: bool) -> ProgressReporter:
    """Live display only when both stdout and stderr are terminals (not CI)."""
    if quiet:
        return ProgressReporter()
    if sys.stdout.isatty() and sys.stderr.isatty():
        return LiveProgress()
    return PlainProgress()
