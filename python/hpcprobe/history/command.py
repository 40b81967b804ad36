"""`hpcprobe history [--host H] [--figure F] [--since T] [--file PATH]`: each figure's
trend per host from the history database, and the figures whose last value moved.

A last value has moved when it lies beyond median ± 3 × 1.4826·MAD of the same host's
and figure's earlier validated values (beyond ± 10 % of the median where their MAD is
0); with fewer than 3 earlier values there is too little to judge."""

import argparse
import re
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from itertools import groupby
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.history.db import Point, format_time, open_history, parse_time
from hpcprobe.history.paths import HISTORY_VARIABLE, history_path
from hpcprobe.launching import stdout_console
from hpcprobe.tables import titled_table
from hpcprobe.units import format_quantity

# MAD -> standard deviation of a normal distribution.
MAD_SCALE = 1.4826
MOVED_SPREADS = 3.0
# Where the earlier values' MAD is 0 (all equal): a move beyond this fraction.
MOVED_FRACTION = 0.10
MIN_EARLIER = 3
_AGO = re.compile(r"([0-9]{1,6})([mhdw])")
_AGO_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_GLOB_CHARACTERS = ("*", "?")


def since_time(text: str) -> str:
    """--since: an ISO 8601 date or time (UTC unless it says), or an age: 30m, 12h, 7d,
    2w ago."""
    age = _AGO.fullmatch(text)
    if age is not None:
        delta = timedelta(**{_AGO_UNITS[age.group(2)]: int(age.group(1))})
        return format_time(datetime.now(timezone.utc) - delta)
    moment = parse_time(text)
    if moment is None:
        raise UsageError(f"--since must be a time (2026-11-29, 2026-11-29T05:00:00Z) or an "
                         f"age (30m, 12h, 7d, 2w), not '{text}'")
    return format_time(moment)


def add_history_parser(subparsers: Any) -> Any:
    history = subparsers.add_parser(
        "history", help="each figure's trend per host from the history of every run, and "
        "the figures that moved beyond their spread")
    history.add_argument("--host", metavar="H", help="this host only (* and ? match any)")
    history.add_argument("--figure", metavar="F",
                         help="this figure only, e.g. stream.star.openmp.star_triad_bandwidth "
                         "(* and ? match any: 'stream.*')")
    history.add_argument("--since", metavar="T", type=since_time,
                         help="from this time on: 2026-11-29, 2026-11-29T05:00:00Z, or an "
                         "age: 30m, 12h, 7d, 2w")
    history.add_argument("--file", metavar="PATH",
                         help=f"the history file (default ${HISTORY_VARIABLE}, else "
                         "$XDG_DATA_HOME/hpcprobe/history.sqlite)")
    return history


@dataclass(frozen=True)
class Trend:
    """One host's figure over the runs: `status` is moved, steady, too few (earlier
    values to judge by) or not validated (the last value)."""

    host: str
    figure: str
    unit: str
    count: int
    first: str
    last: str
    median: float
    spread: float  # 1.4826 × MAD of the earlier validated values (0 with too few)
    last_value: float
    status: str


def moved(last: float, earlier: Sequence[float]) -> Tuple[str, float, float]:
    """(status, median, spread) of `last` against the `earlier` validated values."""
    if len(earlier) < MIN_EARLIER:
        middle = statistics.median(list(earlier) + [last])
        return "too few", middle, 0.0
    middle = statistics.median(earlier)
    spread = MAD_SCALE * statistics.median(abs(value - middle) for value in earlier)
    allowed = MOVED_SPREADS * spread if spread > 0 else MOVED_FRACTION * abs(middle)
    return ("moved" if abs(last - middle) > allowed else "steady"), middle, spread


def trends(points: Sequence[Point]) -> List[Trend]:
    """One Trend per (host, figure, unit), sorted by host then figure."""
    def key(point: Point) -> Tuple[str, str, str]:
        return point.host, point.figure, point.unit

    found = []
    for (host, figure, unit), group in groupby(sorted(points, key=key), key=key):
        series = list(group)  # sorted() is stable: still oldest first
        last = series[-1]
        earlier = [point.value for point in series[:-1] if point.validated]
        status, middle, spread = moved(last.value, earlier)
        if not last.validated:
            status = "not validated"
        found.append(Trend(host, figure, unit, len(series), series[0].time, last.time,
                           middle, spread, last.value, status))
    return found


def _short(time: str) -> str:
    return time[:16].replace("T", " ")  # to the minute, UTC


def trend_rows(found: Sequence[Trend]) -> List[List[str]]:
    return [[trend.host, trend.figure, str(trend.count), _short(trend.first),
             _short(trend.last), format_quantity(trend.median, trend.unit),
             format_quantity(trend.spread, trend.unit),
             format_quantity(trend.last_value, trend.unit), trend.status]
            for trend in found]


def _chosen_file(args: argparse.Namespace) -> Path:
    if args.file:
        return Path(args.file)
    path = history_path()
    if path is None:
        raise UsageError(f"the history is off (${HISTORY_VARIABLE}); name a file with "
                         "--file PATH")
    return path


def _pattern(text: Optional[str]) -> bool:
    return text is not None and any(mark in text for mark in _GLOB_CHARACTERS)


def command_history(args: argparse.Namespace, argv: Sequence[str]) -> int:
    path = _chosen_file(args)
    with open_history(path, create=False) as history:
        points = history.series(args.host, args.figure, args.since,
                                glob=_pattern(args.host) or _pattern(args.figure),
                                by_figure=True)
    console = stdout_console()
    if not points:
        asked = ", ".join(f"{name} {value}" for name, value in (
            ("host", args.host), ("figure", args.figure), ("since", args.since)) if value)
        console.print(f"no figures in history {path}" + (f" for {asked}" if asked else ""),
                      markup=False, highlight=False)
        return EXIT_OK
    found = trends(points)
    caption = (f"moved: the last value beyond median ± {MOVED_SPREADS:g} × spread "
               f"({MAD_SCALE}·MAD) of the earlier validated values, or ± "
               f"{MOVED_FRACTION:.0%} where their MAD is 0; too few: under {MIN_EARLIER} "
               "earlier values; times UTC")
    console.print(titled_table(
        f"history {path}: {len(found)} figures, {len(points)} values "
        f"({sum(trend.status == 'moved' for trend in found)} moved)", caption,
        ["host", "figure", "runs", "first", "last", "median", "spread", "last value",
         "verdict"], trend_rows(found)))
    return EXIT_OK
