"""Reading result records (JSON Lines) as untrusted input.

Nothing is skipped silently: every line that is not a valid record becomes a problem
`FILE:LINE: invalid record: REASON`, and the valid records are still returned.

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
import json
from datetime import datetime
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple

import jsonschema

from hpcprobe.resources import load_schema

try:
    import jsonschema_rs
except ImportError:  # a platform without its wheel: the same checks, slower
    jsonschema_rs = None

MAX_FILE_BYTES = 1 << 30
MAX_LINE_BYTES = 64 << 20
# Reasons quote parts of the record; a hostile record must not flood the terminal.
MAX_REASON_CHARS = 300
_SKIP_CHUNK_BYTES = 1 << 20

Record = Dict[str, Any]

# Versions with only optional additions over the schema file's newest, read with their
# new fields left unchecked (1.2 was read this way until the schema file listed it).
READER_VERSIONS: Tuple[str, ...] = ()


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
    problem = _unvalidated_problem(record) or schema_problem(record)
    if problem is not None:
        return None, problem
    return record, None


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
