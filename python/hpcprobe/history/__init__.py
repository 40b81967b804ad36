"""The history database (docs/history.md): every run's figures by host, figure, run and
time, in one SQLite file; `hpcprobe history` prints their trends."""

from hpcprobe.history.db import (SCHEMA_VERSION, Figure, History, Point, open_history,
                                 utc_now)
from hpcprobe.history.figures import figures_of
from hpcprobe.history.paths import history_path

__all__ = ["SCHEMA_VERSION", "Figure", "History", "Point", "figures_of", "history_path",
           "open_history", "utc_now"]
