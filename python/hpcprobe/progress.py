"""What a person sees while benchmarks run: a live rich display on a terminal, plain
lines (`[1/3] ra single ...`, `done in 3.2 s`) in CI logs, nothing with --quiet."""

import sys
import threading
from typing import Optional

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
from rich.text import Text


def _seconds(value: float) -> str:
    return f"{value:.1f} s"


def budget_text(seconds: float) -> str:
    """A time budget as users typed it: 30 -> "30 s", 2.5 -> "2.5 s"."""
    return f"{seconds:g} s"


class ProgressReporter:
    """Silent reporter (--quiet); the base of the others."""

    def __init__(self, console: Optional[Console] = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)

    def begin(self, step: int, steps: int, name: str, budget_s: float) -> None:
        """A benchmark starts: step of steps, with this time budget."""

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

    def begin(self, step: int, steps: int, name: str, budget_s: float) -> None:
        self._print(f"[{step}/{steps}] {name} ...")

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

    def begin(self, step: int, steps: int, name: str, budget_s: float) -> None:
        self._budget_s = budget_s
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[{task.fields[step]}] {task.description}"),
            BarColumn(),
            TextColumn("{task.fields[elapsed]} of {task.fields[budget]} budget"),
            console=self.console,
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            name, total=budget_s, step=f"{step}/{steps}", elapsed=_seconds(0),
            budget=budget_text(budget_s),
        )

    def update(self, elapsed_s: float) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task, completed=min(elapsed_s, self._budget_s),
                elapsed=_seconds(elapsed_s),
            )

    def output_line(self, line: str) -> None:
        self.console.print(Text(line), soft_wrap=True)

    def end(self, succeeded: bool, elapsed_s: float) -> None:
        if self._progress is not None:
            description = self._progress.tasks[0].description
            self._progress.stop()
            self._progress = None
            verdict = "done in" if succeeded else "failed after"
            self.console.print(Text(f"{description}: {verdict} {_seconds(elapsed_s)}"))


def make_progress(quiet: bool) -> ProgressReporter:
    """Live display only when both stdout and stderr are terminals (not CI)."""
    if quiet:
        return ProgressReporter()
    if sys.stdout.isatty() and sys.stderr.isatty():
        return LiveProgress()
    return PlainProgress()
