"""study.json: what became of each point of a study, written after every point so that a
study killed at any moment resumes where it stopped (its done points' records are read
back from results.jsonl by their launch ids, and only the others run again).

study.json is read as untrusted input: anything malformed makes it no earlier run (the
study starts afresh and says so), never an error."""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from hpcprobe.output_files import write_text_atomically

STATE_FILE = "study.json"
FORMAT = "hpcprobe-study-1"
MAX_STATE_BYTES = 1 << 20
# What became of a point.
DONE, FAILED, STOPPED, LEFT_OUT, NOT_RUN = "done", "failed", "stopped", "left out", "not run"
STATUSES = (DONE, FAILED, STOPPED, LEFT_OUT, NOT_RUN)


@dataclass
class PointState:
    """One point: `launch_ids` name its launches' records in results.jsonl."""

    key: str
    value: Any
    status: str = NOT_RUN
    launch_ids: List[str] = field(default_factory=list)
    elapsed_s: Optional[float] = None
    predicted_s: Optional[float] = None
    why: str = ""


@dataclass
class StudyState:
    study: str
    scale: str
    budget_s: float
    points: List[PointState] = field(default_factory=list)
    stopped_by: Optional[str] = None

    def point(self, key: str) -> Optional[PointState]:
        return next((point for point in self.points if point.key == key), None)

    def write(self, directory: Path) -> Path:
        path = directory / STATE_FILE
        data = {"format": FORMAT, **asdict(self)}
        write_text_atomically(path, json.dumps(data, indent=1, default=str) + "\n")
        return path


def _point(raw: Any) -> Optional[PointState]:
    if not isinstance(raw, dict) or not isinstance(raw.get("key"), str):
        return None
    ids = raw.get("launch_ids")
    status = raw.get("status")
    if status not in STATUSES or not isinstance(ids, list) \
            or not all(isinstance(one, str) for one in ids):
        return None
    elapsed = raw.get("elapsed_s")
    elapsed = float(elapsed) if isinstance(elapsed, (int, float)) else None
    return PointState(raw["key"], raw.get("value"), status, list(ids), elapsed)


def read_state(directory: Path, study: str) -> Optional[StudyState]:
    """The earlier run of `study` in `directory`, or None (none there, or unreadable)."""
    path = directory / STATE_FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_STATE_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT \
            or data.get("study") != study or not isinstance(data.get("points"), list):
        return None
    points = [_point(raw) for raw in data["points"]]
    if any(point is None for point in points):
        return None
    scale, budget = data.get("scale"), data.get("budget_s")
    if not isinstance(scale, str) or not isinstance(budget, (int, float)):
        return None
    return StudyState(study, scale, float(budget), points)


def records_by_launch(records: List[Dict[str, Any]]) -> Dict[str, List[Dict[str, Any]]]:
    """Records grouped by the launch that wrote them (metadata.launch_id)."""
    grouped: Dict[str, List[Dict[str, Any]]] = {}
    for record in records:
        metadata = record.get("metadata")
        launch_id = metadata.get("launch_id") if isinstance(metadata, dict) else None
        if isinstance(launch_id, str):
            grouped.setdefault(launch_id, []).append(record)
    return grouped
