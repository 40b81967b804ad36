"""The screen's use of the history database (hpcprobe/history): each node's baseline per
check, the screen's figures `screen.<check>` per host, and the trends of the nodes found
slow for the report. With --history off the screen runs without one and says so; a
history that cannot be read or written is one line on stderr, never a failed screen."""

import os
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.errors import HpcprobeError
from hpcprobe.history import Figure, history_path, open_history
from hpcprobe.launching import stderr_line

BASELINE_RUNS = 20
_HISTORY_ERRORS = (HpcprobeError, OSError, sqlite3.Error, ValueError, TypeError,
                   AttributeError)


def figure_name(check: str) -> str:
    return f"screen.{check}"


class ScreenHistory:
    def __init__(self, database, notes: List[str]) -> None:
        self.database = database
        self.notes = notes

    @classmethod
    def open(cls, option: Optional[str], notes: List[str]) -> "ScreenHistory":
        """--history PATH|off, else the history's own default ($HPCPROBE_HISTORY …)."""
        if option is not None and option.strip().lower() in ("off", ""):
            notes.append("history: off (--history off): peers alone judge")
            return cls(None, notes)
        path = Path(option) if option is not None else history_path(os.environ)
        if path is None:
            notes.append("history: off ($HPCPROBE_HISTORY): peers alone judge")
            return cls(None, notes)
        try:
            return cls(open_history(path), notes)
        except HpcprobeError as error:
            stderr_line(f"hpcprobe: {error}; screening without history")
            notes.append(f"history: {path} unusable: peers alone judge")
            return cls(None, notes)

    def baselines(self, hosts: Sequence[str],
                  checks: Sequence[str]) -> Dict[Tuple[str, str], List[float]]:
        """(host, check) -> the validated values of the node's last runs (read before
        this screen's own figures go in)."""
        if self.database is None:
            return {}
        found: Dict[Tuple[str, str], List[float]] = {}
        try:
            for host in hosts:
                for check in checks:
                    values = self.database.baseline(host, figure_name(check), BASELINE_RUNS)
                    if values:
                        found[(host, check)] = list(values)
        except _HISTORY_ERRORS as error:  # a history never fails the screen
            stderr_line(f"hpcprobe: history not read: {error}")
        return found

    def add(self, figures: Sequence, started: datetime, finished: datetime,
            launch_id: str = "") -> None:
        """The screen's figures as one run of the history (validated as judged)."""
        if self.database is None:
            return
        try:
            rows = [Figure(figure.host, figure_name(figure.check), figure.value,
                           figure.unit, figure.validated)
                    for figure in figures if figure.value is not None]
            self.database.add_run("screen", rows, started, finished, launch_id or None)
        except _HISTORY_ERRORS as error:  # a history never fails the screen
            stderr_line(f"hpcprobe: history not written: {error}")

    def trends(self, wanted: Sequence[Tuple[str, str]]) -> Dict[Tuple[str, str], list]:
        """(host, check) -> [(time, value)] of every stored `screen.<check>` figure of the
        host, oldest first: the report's history of the nodes found slow."""
        found: Dict[Tuple[str, str], list] = {}
        if self.database is None:
            return found
        try:
            for host, check in wanted:
                points = self.database.series(host=host, figure=figure_name(check))
                found[(host, check)] = [(point.time, point.value) for point in points]
        except _HISTORY_ERRORS as error:  # a history never fails the screen
            stderr_line(f"hpcprobe: history not read: {error}")
        return found
