"""Reading result records (JSON Lines) as untrusted input.

Nothing is skipped silently: every line that is not a valid record becomes a problem
`FILE:LINE: invalid record: REASON`, and the valid records are still returned. Only
regular files are read: a device (/dev/zero), a FIFO or a socket is refused unopened.

Numbers: a number a double cannot hold (1e400 would be read as infinity) and an integer
outside the signed 64-bit range hpcprobe-bench writes are refused, as NaN and Infinity
are (they are not JSON).

Partial records: an older hpcprobe-bench could leave a record cut short, without its
newline, on a full disk; the next run's record then went on the same line. A line that
is not JSON is split where a later record starts (`{"schema_version"`): the cut-short
part is reported as a partial record and the rest is read as records. A last line
without a newline that is not JSON is a partial record too.

Versions: a record of a version the schema file lists is checked against it as it is.
A record of a newer minor version this reader knows of (READER_VERSIONS: additions that
only add optional fields) is checked against the same schema with its objects left open
to fields the schema does not name, so the fields it adds are kept, unread; any other
version is refused with a message naming the versions this hpcprobe reads.

Speed: valid records are recognised by jsonschema-rs (compiled, so much faster than the
pure-Python jsonschema, which matters for results directories of thousands of records);
the reason a record is invalid always comes from jsonschema, so messages do not depend
on which is installed.
"""

import copy
import errno
import json
import math
import os
import stat
from datetime import datetime
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple

import jsonschema

from hpcprobe.resources import load_schema
from hpcprobe.sanitize import plain

try:
    import jsonschema_rs
except ImportError:  # a platform without its wheel: the same checks, slower
    jsonschema_rs = None

MAX_FILE_BYTES = 1 << 30
MAX_LINE_BYTES = 64 << 20
# Reasons quote parts of the record; a hostile record must not flood the terminal.
MAX_REASON_CHARS = 300
_SKIP_CHUNK_BYTES = 1 << 20
# A command prints this many problems, then how many more there were.
MAX_SHOWN_PROBLEMS = 20
MAX_KEPT_PROBLEMS = 1000
# hpcprobe-bench writes integers as int64.
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
# How every record hpcprobe-bench writes starts: where a cut-short line's next record is.
RECORD_START = b'{"schema_version"'
PARTIAL_RECORD = "partial record (a write cut short, e.g. on a full disk); skipped"

Record = Dict[str, Any]

# Versions with only optional additions over the schema file's newest, read with their
# new fields left unchecked (1.2 was read this way until the schema file listed it).
READER_VERSIONS: Tuple[str, ...] = ()


@dataclass
class RecordSet:
    """The valid records of one or more files, and one message per rejected line (the
    first MAX_KEPT_PROBLEMS; the others are counted: a file of a million garbage lines
    must not hold a million messages)."""

    records: List[Record] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    uncounted_problems: int = 0

    def add_problem(self, problem: str) -> None:
        if len(self.problems) < MAX_KEPT_PROBLEMS:
            self.problems.append(problem)
        else:
            self.uncounted_problems += 1

    @property
    def problem_count(self) -> int:
        return len(self.problems) + self.uncounted_problems

    def take_problems(self, other: "RecordSet") -> None:
        """Add `other`'s problems, kept and counted, to these."""
        for problem in other.problems:
            self.add_problem(problem)
        self.uncounted_problems += other.uncounted_problems

    def extend(self, other: "RecordSet") -> None:
        self.records.extend(other.records)
        self.take_problems(other)


def _is_rfc3339_date_time(text: object) -> bool:
    # jsonschema checks "date-time" only with an optional package installed; the
    # timestamps end up in CSV and tables, so check them here with the stdlib.
    if not isinstance(text, str):
        return True
    if len(text) < 20 or "T" not in text.upper():
        return False
    if not (text[-1] in "Zz" or text[-6] in "+-"):
        return False
    try:
        datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "Zz" else text)
    except ValueError:
        return False
    return True


def schema_versions() -> Tuple[str, ...]:
    """The versions the schema file lists."""
    return tuple(load_schema()["properties"]["schema_version"]["enum"])


def readable_versions() -> Tuple[str, ...]:
    return schema_versions() + tuple(v for v in READER_VERSIONS if v not in schema_versions())


def _opened(node: Any) -> Any:
    """`node` with every `additionalProperties: false` turned into true."""
    if isinstance(node, dict):
        return {key: True if key == "additionalProperties" and value is False else _opened(value)
                for key, value in node.items()}
    if isinstance(node, list):
        return [_opened(item) for item in node]
    return node


def _open_schema(version: str) -> Dict[str, Any]:
    """The schema for a newer minor version: its version allowed, and fields the schema
    does not name allowed anywhere (a minor version only adds optional fields)."""
    schema = _opened(copy.deepcopy(load_schema()))
    schema["properties"]["schema_version"] = {"const": version}
    return schema


@lru_cache(maxsize=None)
def _validators(version: Optional[str]) -> Tuple[Any, Any]:
    """(jsonschema validator, jsonschema-rs validator or None) for records of `version`
    (None: the schema file as it is)."""
    schema = load_schema() if version is None else _open_schema(version)
    validator_class = jsonschema.validators.validator_for(schema)
    format_checker = jsonschema.FormatChecker()
    format_checker.checks("date-time")(_is_rfc3339_date_time)
    fast = None
    if jsonschema_rs is not None:
        fast = jsonschema_rs.validator_for(schema, validate_formats=True,
                                           formats={"date-time": _is_rfc3339_date_time})
    return validator_class(schema, format_checker=format_checker), fast


class NotRegularFile(OSError):
    """A path that is not a regular file: reading it could block (a FIFO) or never end
    (/dev/zero)."""


class _NumberOutOfRange(ValueError):
    """A JSON number that hpcprobe-bench cannot have written."""


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; Python would accept them silently.
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    # Python reads 1e400 as inf, which passes the schema and breaks every statistic.
    value = float(text)
    if not math.isfinite(value):
        raise _NumberOutOfRange(f"number {_shorten(text, 40)} is out of the range of a double")
    return value


def _int64(text: str) -> int:
    # 20 characters hold every int64 ("-9223372036854775808"); longer is out of range,
    # and is not converted (int() of a million digits is slow).
    value = int(text) if len(text) <= 20 else None
    if value is None or not INT64_MIN <= value <= INT64_MAX:
        raise _NumberOutOfRange(f"integer {_shorten(text, 40)} is out of the signed 64-bit "
                                "range")
    return value


# Made once: json.loads with hooks would build a decoder per line.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                            parse_int=_int64)


def _shorten(text: str, max_chars: int = MAX_REASON_CHARS) -> str:
    if len(text) <= max_chars:
        return text
    return text[: max_chars - 1] + "…"


def _matrix_problem(record: Dict[str, Any]) -> Optional[str]:
    """A matrix (schema 1.2) whose rows differ in length: JSON Schema cannot say it."""
    for index, matrix in enumerate(record.get("matrices") or []):
        lengths = {len(row) for row in matrix["values"]}
        if len(lengths) > 1:
            return f"matrices.{index}.values: rows of different lengths {sorted(lengths)}"
    return None


def _version_problem(record: Any) -> Optional[str]:
    version = record.get("schema_version") if isinstance(record, dict) else None
    if version in readable_versions() or not isinstance(version, str):
        return None
    return _shorten(f"schema_version: {json.dumps(version)} is not a version this hpcprobe "
                    f"reads ({', '.join(readable_versions())}); a newer hpcprobe wrote it?")


def schema_problem(record: Any) -> Optional[str]:
    """Why `record` fails the result schema (the most relevant error), or None."""
    problem = _version_problem(record)
    if problem is not None:
        return problem
    version = record.get("schema_version") if isinstance(record, dict) else None
    newer = isinstance(version, str) and version not in schema_versions()
    slow, fast = _validators(version if newer else None)
    if fast is not None and fast.is_valid(record):
        return _matrix_problem(record)
    error = jsonschema.exceptions.best_match(slow.iter_errors(record))
    if error is None:
        return _matrix_problem(record)
    where = ".".join(str(part) for part in error.absolute_path) or "record"
    return _shorten(f"{where}: {error.message}")


def _decode(raw: bytes) -> Tuple[Any, Optional[str]]:
    """(the JSON value of a line, None), or (None, why it is not JSON)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 text (byte {error.start})"
    text = text.rstrip("\r\n")
    if not text.strip():
        return None, "empty line"
    try:
        return _DECODER.decode(text), None
    except json.JSONDecodeError as error:
        return None, f"not JSON ({error.msg} at column {error.colno})"
    except _NumberOutOfRange as error:
        return None, str(error)
    except (ValueError, RecursionError) as error:
        return None, _shorten(f"not JSON ({error})")


def _judge(value: Any) -> Tuple[Optional[Record], Optional[str]]:
    """(record, None) for a valid record, else (None, reason)."""
    if not isinstance(value, dict):
        return None, "not a JSON object"
    problem = _unvalidated_problem(value) or schema_problem(value)
    if problem is not None:
        return None, problem
    return value, None


def parse_record_line(raw: bytes) -> Tuple[Optional[Record], Optional[str]]:
    """(record, None) for a valid line, else (None, reason)."""
    value, reason = _decode(raw)
    return (None, reason) if reason is not None else _judge(value)


def _pieces(raw: bytes) -> List[bytes]:
    """`raw` cut before every record start but at its first byte (in one pass: a line
    of a million record starts must not be read a million times)."""
    starts = [0]
    found = raw.find(RECORD_START, 1)
    while found >= 0:
        starts.append(found)
        found = raw.find(RECORD_START, found + 1)
    return [raw[start:end] for start, end in zip(starts, starts[1:] + [len(raw)])]


def _line_records(raw: bytes) -> Iterator[Tuple[Optional[Record], Optional[str]]]:
    """(record, None) or (None, reason) for each record on one line: one, unless the
    line is not JSON and other records start inside it (see the module's docstring)."""
    value, reason = _decode(raw)
    pieces = [raw] if reason is None else _pieces(raw)
    for index, piece in enumerate(pieces):
        if len(pieces) > 1:
            value, reason = _decode(piece)
        # Not JSON and followed by a record, or last without a newline: cut short. A
        # piece that is a record, whole but for its newline, is a record.
        followed = index < len(pieces) - 1
        if reason is not None and (followed or (piece.strip() and not piece.endswith(b"\n"))):
            reason = PARTIAL_RECORD
        yield (None, reason) if reason is not None else _judge(value)


def _unvalidated_problem(record: Dict[str, Any]) -> Optional[str]:
    """A record that no verifier judged: refused, never taken for a measurement (the
    schema has no such verdict either; this says why in words)."""
    validation = record.get("validation")
    if isinstance(validation, dict) and validation.get("verdict") == "not_validated":
        return ("unvalidated: no verifier ran for this record (validation.verdict "
                "not_validated), so its figures are not results")
    return None


def _skip_rest_of_line(stream: BinaryIO) -> None:
    while True:
        chunk = stream.readline(_SKIP_CHUNK_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


def _lines(stream: BinaryIO) -> Iterator[Optional[bytes]]:
    """Each line of `stream`; None for a line longer than MAX_LINE_BYTES."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            _skip_rest_of_line(stream)
            yield None
        else:
            yield raw


def _count_lines_before(stream: BinaryIO, offset: int) -> int:
    """Lines in the first `offset` bytes, leaving `stream` at `offset`."""
    count = 0
    remaining = offset
    while remaining > 0:
        chunk = stream.read(min(remaining, _SKIP_CHUNK_BYTES))
        if not chunk:
            break
        count += chunk.count(b"\n")
        remaining -= len(chunk)
    return count


def _regular_file_size(path: Path) -> int:
    """The size of `path`, checked (before anything opens it) to be a regular file."""
    status = os.stat(path)
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise NotRegularFile(errno.EINVAL, f"{kind}, not a file of records; refused unread",
                             str(path))
    return status.st_size


def _open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading; O_NONBLOCK: should it have become a FIFO since it was
    checked, opening it does not wait for a writer (and it is refused)."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file; refused unread", str(path))
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_records(path: Path, start_offset: int = 0) -> RecordSet:
    """Records of the JSON Lines file `path`, from byte `start_offset` on.

    OSError propagates (a file that cannot be opened, NotRegularFile for one that is not
    a regular file, is the caller's to report).
    """
    found = RecordSet()
    size = _regular_file_size(path)
    if size > MAX_FILE_BYTES:
        found.add_problem(
            f"{plain(path, None)}: invalid record file: {size} bytes is more than the limit "
            f"of {MAX_FILE_BYTES} bytes"
        )
        return found
    with _open_regular(path) as stream:
        line_number = _count_lines_before(stream, start_offset)
        for raw in _lines(stream):
            line_number += 1
            if raw is None:
                found.add_problem(_problem(path, line_number,
                                               f"line longer than {MAX_LINE_BYTES} bytes"))
                continue
            for record, reason in _line_records(raw):
                if record is None:
                    found.add_problem(_problem(path, line_number, reason))
                else:
                    found.records.append(record)
    return found


def _problem(path: Path, line_number: int, reason: Optional[str]) -> str:
    # Reasons quote records (and names come from anywhere): shown, never obeyed.
    return plain(f"{path}:{line_number}: invalid record: {reason}", None)


def shown_problems(found: RecordSet) -> List[str]:
    """The problems a command prints: the first MAX_SHOWN_PROBLEMS, then one line saying
    how many more there were (a file of garbage must not flood the terminal)."""
    hidden = found.problem_count - MAX_SHOWN_PROBLEMS
    if hidden <= 0:
        return list(found.problems)
    return found.problems[:MAX_SHOWN_PROBLEMS] + [
        f"… and {hidden} more invalid line{'s' if hidden > 1 else ''} (not shown)"]


def file_size(path: Path) -> int:
    """Bytes in `path`, 0 when it does not exist yet."""
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        return 0
