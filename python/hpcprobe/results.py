"""Reading result records (JSON Lines) as untrusted input.

Nothing is skipped silently: every line that is not a valid record becomes a problem
`FILE:LINE: invalid record: REASON`, and the valid records are still returned.
"""

import json
from datetime import datetime
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple

import jsonschema

from hpcprobe.resources import load_schema

MAX_FILE_BYTES = 1 << 30
MAX_LINE_BYTES = 64 << 20
# Reasons quote parts of the record; a hostile record must not flood the terminal.
MAX_REASON_CHARS = 300
_SKIP_CHUNK_BYTES = 1 << 20

Record = Dict[str, Any]


@dataclass
class RecordSet:
    """The valid records of one or more files, and one message per rejected line."""

    records: List[Record] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)

    def extend(self, other: "RecordSet") -> None:
        self.records.extend(other.records)
        self.problems.extend(other.problems)


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


@lru_cache(maxsize=None)
def _validator() -> Any:
    schema = load_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    format_checker = jsonschema.FormatChecker()
    format_checker.checks("date-time")(_is_rfc3339_date_time)
    return validator_class(schema, format_checker=format_checker)


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; Python would accept them silently.
    raise ValueError(f"{name} is not a JSON number")


def _shorten(text: str) -> str:
    if len(text) <= MAX_REASON_CHARS:
        return text
    return text[: MAX_REASON_CHARS - 1] + "…"


def _matrix_problem(record: Dict[str, Any]) -> Optional[str]:
    """A matrix (schema 1.2) whose rows differ in length: JSON Schema cannot say it."""
    for index, matrix in enumerate(record.get("matrices") or []):
        lengths = {len(row) for row in matrix["values"]}
        if len(lengths) > 1:
            return f"matrices.{index}.values: rows of different lengths {sorted(lengths)}"
    return None


def schema_problem(record: Any) -> Optional[str]:
    """Why `record` fails the result schema (the most relevant error), or None."""
    error = jsonschema.exceptions.best_match(_validator().iter_errors(record))
    if error is None:
        return _matrix_problem(record)
    where = ".".join(str(part) for part in error.absolute_path) or "record"
    return _shorten(f"{where}: {error.message}")


def parse_record_line(raw: bytes) -> Tuple[Optional[Record], Optional[str]]:
    """(record, None) for a valid line, else (None, reason)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 text (byte {error.start})"
    text = text.rstrip("\r\n")
    if not text.strip():
        return None, "empty line"
    try:
        record = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        return None, f"not JSON ({error.msg} at column {error.colno})"
    except (ValueError, RecursionError) as error:
        return None, _shorten(f"not JSON ({error})")
    if not isinstance(record, dict):
        return None, "not a JSON object"
    problem = schema_problem(record)
    if problem is not None:
        return None, problem
    return record, None


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


def read_records(path: Path, start_offset: int = 0) -> RecordSet:
    """Records of the JSON Lines file `path`, from byte `start_offset` on.

    OSError propagates (a file that cannot be opened is the caller's to report).
    """
    found = RecordSet()
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        found.problems.append(
            f"{path}: invalid record file: {size} bytes is more than the limit of "
            f"{MAX_FILE_BYTES} bytes"
        )
        return found
    with open(path, "rb") as stream:
        line_number = _count_lines_before(stream, start_offset)
        for raw in _lines(stream):
            line_number += 1
            if raw is None:
                found.problems.append(
                    f"{path}:{line_number}: invalid record: line longer than "
                    f"{MAX_LINE_BYTES} bytes"
                )
                continue
            record, reason = parse_record_line(raw)
            if record is None:
                found.problems.append(f"{path}:{line_number}: invalid record: {reason}")
            else:
                found.records.append(record)
    return found


def file_size(path: Path) -> int:
    """Bytes in `path`, 0 when it does not exist yet."""
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        return 0
