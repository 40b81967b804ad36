"""The history database: every run's figures, keyed by host, figure, run and time, in one
SQLite file (Python's sqlite3; the schema is docs/history.md's).

Each run goes in as ONE transaction (BEGIN IMMEDIATE ... COMMIT): a writer killed
half-way leaves nothing of its run. The file is in WAL mode and a writer that finds it
busy waits (busy_timeout) rather than failing, so concurrent runs lose nothing. A file
that is not an hpcprobe history, is of a newer schema, or is corrupt is refused in one
line naming the file and what to do (exit status 4)."""

import math
import numbers
import sqlite3
from time import monotonic, sleep
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from hpcprobe import __version__
from hpcprobe.errors import EXIT_IO_FAILURE, HpcprobeError

SCHEMA_VERSION = 1
# PRAGMA application_id: marks the file as an hpcprobe history ("hphi").
APPLICATION_ID = 0x68706869
# How long a writer waits for another to finish before giving up.
BUSY_TIMEOUT_S = 60.0
# The time stamps of the database: UTC, milliseconds, so that text order is time order.
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

# The figures `hpcprobe screen` stores, one per node and check (screen/history_link.py).
SCREEN_FIGURES = "screen.*"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, "
    "finished_at TEXT NOT NULL, command TEXT NOT NULL, launch_id TEXT, "
    "hpcprobe_version TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS figures (run_id INTEGER NOT NULL REFERENCES runs(id), "
    "host TEXT NOT NULL, figure TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, "
    "validated INTEGER NOT NULL CHECK (validated IN (0, 1)), time TEXT NOT NULL)",
    # Only the screen's figures are indexed: a node's baseline is read per host at
    # every screen (4096 nodes: 16k lookups), while an index over every figure made each
    # run's commit rewrite a leaf page per figure (bench/history: 1000 runs 3.1 s against
    # 0.5 s without). The queries name the condition (_screen_term) so SQLite uses it.
    f"CREATE INDEX IF NOT EXISTS figures_screen ON figures (figure, host, time) "
    f"WHERE figure GLOB '{SCREEN_FIGURES}'",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)

Moment = Union[str, datetime]


@dataclass(frozen=True)
class Figure:
    """One figure of a run on one host; `time` (None: the run's start) when measured."""

    host: str
    figure: str
    value: float
    unit: str
    validated: bool
    time: Optional[str] = None


class Point(NamedTuple):
    """One stored figure, as `series` returns it (a tuple: 10^5 of them are made fast)."""

    run_id: int
    time: str
    host: str
    figure: str
    value: float
    unit: str
    validated: bool


def utc_now() -> str:
    return format_time(datetime.now(timezone.utc))


def format_time(moment: datetime) -> str:
    """The database's form of `moment` (a naive one is taken as UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime(TIME_FORMAT)[:-4] + "Z"  # microseconds -> milliseconds


def parse_time(text: object) -> Optional[datetime]:
    """An ISO 8601 time ("2026-11-29T05:00:00.123Z", "+01:00", or naive: UTC) or None."""
    if not isinstance(text, str) or not 10 <= len(text) <= 40:
        return None
    try:
        # Python 3.9's fromisoformat does not read "Z".
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def canonical_time(moment: Moment) -> str:
    """`moment` (text or datetime) in the database's form; HpcprobeError if not a time."""
    parsed = moment if isinstance(moment, datetime) else parse_time(moment)
    if parsed is None:
        raise HpcprobeError(f"not a time: {moment!r} (allowed: ISO 8601, e.g. "
                            "2026-11-29T05:00:00Z)")
    return format_time(parsed)


def _reason(path: Path, error: sqlite3.Error) -> str:
    """One line for what SQLite said about `path`, and what to do."""
    said = str(error) or type(error).__name__
    if "locked" in said or "busy" in said:
        return (f"history {path}: busy for over {BUSY_TIMEOUT_S:.0f} s (another hpcprobe "
                "writing?); try again")
    if isinstance(error, sqlite3.OperationalError):
        return (f"history {path}: {said}; set HPCPROBE_HISTORY to a file you can write, "
                "or to off")
    return (f"history {path} is not a readable hpcprobe history ({said}); move it away "
            "(the next run starts a new one) or set HPCPROBE_HISTORY to another file")


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    """SQLite's errors as one-line HpcprobeErrors (exit status 4)."""
    try:
        yield
    except sqlite3.Error as error:
        raise HpcprobeError(_reason(path, error), EXIT_IO_FAILURE) from None


def _refuse(path: Path, what: str) -> HpcprobeError:
    return HpcprobeError(f"history {path} {what}; move it away (the next run starts a new "
                         "one) or set HPCPROBE_HISTORY to another file", EXIT_IO_FAILURE)


def _identity(connection: sqlite3.Connection) -> Tuple[int, int, int]:
    """(application_id, user_version, number of schema objects), read in one snapshot
    (another process may be making the file meanwhile); reading them is what finds a
    file that is not SQLite at all."""
    own = not connection.in_transaction
    if own:
        connection.execute("BEGIN")
    try:
        application = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        objects = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    finally:
        if own and connection.in_transaction:
            connection.execute("COMMIT")
    return application, version, objects


def _check_identity(path: Path, identity: Tuple[int, int, int]) -> bool:
    """Whether the file is empty (to be made a history); refuses one not ours or newer."""
    application, version, objects = identity
    if application == 0 and version == 0 and objects == 0:
        return True
    if application != APPLICATION_ID:
        raise _refuse(path, "is an SQLite file but not an hpcprobe history")
    if version > SCHEMA_VERSION:
        raise _refuse(path, f"is of schema {version}, newer than this hpcprobe reads "
                      f"({SCHEMA_VERSION}): use a newer hpcprobe,")
    if version < 1:
        raise _refuse(path, f"has no schema version (user_version {version})")
    return False


def _switch_to_wal(connection: sqlite3.Connection) -> None:
    """WAL mode, waiting for others: SQLite answers a switch that meets another process's
    switch with "locked" at once, without calling the busy handler, so it is retried here
    (seen with three processes making one file) until BUSY_TIMEOUT_S."""
    deadline, pause = monotonic() + BUSY_TIMEOUT_S, 0.001
    while connection.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            connection.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            if monotonic() > deadline:
                raise
            sleep(pause)
            pause = min(2 * pause, 0.1)


def _create(path: Path, connection: sqlite3.Connection) -> None:
    """Make an empty file a history: WAL first (outside a transaction), then the schema
    in one transaction, checked again inside it (another process may have just made it)."""
    _switch_to_wal(connection)
    connection.execute("BEGIN IMMEDIATE")
    try:
        if _check_identity(path, _identity(connection)):
            for statement in _SCHEMA:
                connection.execute(statement)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def open_history(path: Union[str, Path], create: bool = True) -> "History":
    """The history at `path`, made (and its folder) when absent and `create`."""
    path = Path(path)
    if path.is_dir():
        raise HpcprobeError(f"history {path} is a directory; set HPCPROBE_HISTORY to a "
                            "file, or to off", EXIT_IO_FAILURE)
    if not path.exists():
        if not create:
            raise HpcprobeError(f"no history at {path} (runs add to it as they finish)",
                                EXIT_IO_FAILURE)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HpcprobeError(f"cannot make the folder of history {path}: "
                                f"{error.strerror or error}", EXIT_IO_FAILURE) from None
    with _guarded(path):
        # isolation_level None: no implicit transactions, each is begun here explicitly.
        connection = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # WAL's usual setting: a commit is atomic and survives a killed process; no
            # fsync per commit (a power cut may lose the last runs, never half of one).
            connection.execute("PRAGMA synchronous = NORMAL")
            if _check_identity(path, _identity(connection)):
                _create(path, connection)
        except BaseException:
            connection.close()
            raise
    return History(path, connection)


def _screen_term(figure: str) -> str:
    """The partial index's condition, for a query of one screen figure: SQLite uses the
    index only where the query's text implies its condition (a bound value does not)."""
    if figure.startswith(SCREEN_FIGURES[:-1]):
        return f" AND figure GLOB '{SCREEN_FIGURES}'"
    return ""


def _row(figure: Figure, default_time: str,
         times: Dict[str, str]) -> Tuple[str, str, float, str, int, str]:
    """The figure's columns; `times` caches canonical times (a run's figures share few)."""
    value = figure.value
    # Any real number (numpy's too) but bool, which would be stored as 0 or 1.
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            value):
        raise HpcprobeError(f"figure {figure.figure!r} of {figure.host!r}: value {value!r} "
                            "is not a finite number")
    time = default_time
    if figure.time is not None:
        time = times.get(figure.time) or times.setdefault(figure.time,
                                                           canonical_time(figure.time))
    return (str(figure.host), str(figure.figure), float(value), str(figure.unit),
            1 if figure.validated else 0, time)


class History:
    """An open history file (open_history); close it, or use it in a `with`."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._connection = connection

    def __enter__(self) -> "History":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def add_run(self, command: str, figures: Sequence[Figure], started_at: Moment,
                finished_at: Moment, launch_id: Optional[str] = None) -> int:
        """Store one run and all its figures in one transaction; its run id."""
        started, finished = canonical_time(started_at), canonical_time(finished_at)
        times: Dict[str, str] = {}
        rows = [_row(figure, started, times) for figure in figures]
        with _guarded(self.path):
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                run_id = self._connection.execute(
                    "INSERT INTO runs (started_at, finished_at, command, launch_id, "
                    "hpcprobe_version) VALUES (?, ?, ?, ?, ?)",
                    (started, finished, command, launch_id, __version__)).lastrowid
                self._connection.executemany(
                    "INSERT INTO figures (run_id, host, figure, value, unit, validated, "
                    "time) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, *row) for row in rows])
                self._connection.execute("COMMIT")
            except BaseException:
                if self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                raise
        return int(run_id)

    def series(self, host: Optional[str] = None, figure: Optional[str] = None,
               since: Optional[Moment] = None, glob: bool = False,
               by_figure: bool = False) -> List[Point]:
        """The stored figures, oldest first (`by_figure`: by host and figure, then
        oldest first); host and figure exact (with `glob`: SQLite GLOB patterns, * and
        ?), since: from that time on."""
        match = "GLOB" if glob else "="
        where, values = [], []
        for column, wanted in (("host", host), ("figure", figure)):
            if wanted is not None:
                where.append(f"{column} {match} ?")
                values.append(wanted)
        if since is not None:
            where.append("time >= ?")
            values.append(canonical_time(since))
        if figure is not None and not glob and _screen_term(figure):
            where.append(_screen_term(figure)[len(" AND "):])
        sql = ("SELECT run_id, time, host, figure, value, unit, validated FROM figures"
               + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY " + ("host, figure, " if by_figure else "")
               + "time, run_id, rowid")
        with _guarded(self.path):
            rows = self._connection.execute(sql, values).fetchall()
        return [Point(run_id, time, host_, figure_, value, unit, validated == 1)
                for run_id, time, host_, figure_, value, unit, validated in rows]

    def baseline(self, host: str, figure: str, last: int = 20,
                 before: Optional[Moment] = None) -> List[float]:
        """The validated values of `figure` on `host` of the last `last` figures before
        `before` (default: now), oldest first."""
        until = utc_now() if before is None else canonical_time(before)
        with _guarded(self.path):
            rows = self._connection.execute(
                "SELECT value FROM figures WHERE host = ? AND figure = ? AND validated = 1 "
                f"AND time < ?{_screen_term(figure)} ORDER BY time DESC, run_id DESC, "
                "rowid DESC LIMIT ?",
                (host, figure, until, max(0, int(last)))).fetchall()
        return [value for (value,) in reversed(rows)]

    def run_count(self) -> int:
        with _guarded(self.path):
            return int(self._connection.execute("SELECT count(*) FROM runs").fetchone()[0])
