"""run.json: what `hpcprobe run` planned and what became of each step, written beside
results.jsonl at the end of the run (and when it is interrupted), so that a later run can
find the earlier run of the same machine, build and suite (to compare its headline, and to
estimate its own steps' durations) and a reader can see what is missing and why.

run.json files are read as untrusted input: anything malformed makes that directory
not an earlier run, never an error."""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.analysis.merge import MACHINE_FIELDS
from hpcprobe.output_files import write_text_atomically
from hpcprobe.report.common import Record, section_of
from hpcprobe.results import RecordSet, read_records
from hpcprobe.records import number

MANIFEST_FILE = "run.json"
FORMAT = "hpcprobe-run-1"
MAX_MANIFEST_BYTES = 1 << 20
# Directories looked at for an earlier run, newest first: enough for a year of daily
# runs, few enough to cost nothing.
MAX_EARLIER_SCANNED = 400
# What a run's step became.
DONE, FAILED, STOPPED, NOT_RUN = "done", "failed", "stopped", "not run"


@dataclass
class StepOutcome:
    """One launch: `name` as shown (with its round), `step` the suite step it repeats."""

    name: str
    step: str
    status: str = NOT_RUN
    exit_status: Optional[int] = None
    elapsed_s: Optional[float] = None
    why: str = ""
    # The plan's prediction when the step was launched (plan.py), its model time at the
    # default rates (what a later run calibrates by), and its ranks.
    predicted_s: Optional[float] = None
    model_s: Optional[float] = None
    ranks: Optional[int] = None


@dataclass
class RunManifest:
    """The run: suite, scale, ranks, repeat, and every planned launch's outcome."""

    suite: str
    scale: str
    ranks: int
    repeat: int
    steps: List[StepOutcome] = field(default_factory=list)
    stopped_by: Optional[str] = None
    # Lines about the plan itself, e.g. steps a family left out ("no GPU: ...").
    notes: List[str] = field(default_factory=list)

    def identity(self) -> Tuple[str, str, int]:
        return self.suite, self.scale, self.ranks

    def missing(self) -> List[str]:
        """A line per launch that measured nothing or failed, saying why."""
        return [f"{step.name}: {step.status}" + (f" ({step.why})" if step.why else "")
                for step in self.steps if step.status != DONE]

    def durations(self) -> Dict[str, float]:
        """Seconds per suite step, of the launches that finished (the last of a step's
        rounds)."""
        return {step.step: step.elapsed_s for step in self.steps
                if step.status == DONE and step.elapsed_s is not None}

    def write(self, out_dir: Path) -> Path:
        path = out_dir / MANIFEST_FILE
        body = {"format": FORMAT, **asdict(self)}
        write_text_atomically(path, json.dumps(body, indent=1, allow_nan=False) + "\n")
        return path


def _step(entry: Any) -> Optional[StepOutcome]:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None
    status = entry.get("status")
    exit_status = entry.get("exit_status")
    known = status if status in (DONE, FAILED, STOPPED, NOT_RUN) else NOT_RUN
    ranks = entry.get("ranks")
    return StepOutcome(entry["name"], str(entry.get("step") or entry["name"]), known,
                       exit_status if isinstance(exit_status, int) else None,
                       number(entry.get("elapsed_s")), str(entry.get("why") or "")[:300],
                       number(entry.get("predicted_s")), number(entry.get("model_s")),
                       ranks if isinstance(ranks, int) and ranks > 0 else None)


def read_manifest(out_dir: Path) -> Optional[RunManifest]:
    """The run.json of `out_dir`, or None when it is missing or not one."""
    path = out_dir / MANIFEST_FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        return None
    suite, scale, ranks, repeat = (body.get(name) for name in ("suite", "scale", "ranks",
                                                              "repeat"))
    if not (isinstance(suite, str) and isinstance(scale, str) and isinstance(ranks, int)
            and isinstance(repeat, int)):
        return None
    steps = [step for step in map(_step, body.get("steps") or []) if step is not None]
    return RunManifest(suite, scale, ranks, repeat, steps)


def machine_of(records: Sequence[Record]) -> Optional[Tuple[str, ...]]:
    """The machine and build the records come from (hosts, CPU, ... commit), as the
    first record says; None without records."""
    for record in records:
        metadata = section_of(record, "metadata")
        hosts = metadata.get("hosts")
        host_text = ",".join(sorted(str(h) for h in hosts)) if isinstance(hosts, list) else ""
        return (host_text,) + tuple(str(metadata.get(name)) for name in MACHINE_FIELDS[1:])
    return None


@dataclass
class EarlierRun:
    path: Path
    manifest: RunManifest
    records: RecordSet


def _records_of(path: Path) -> Optional[RecordSet]:
    try:
        return read_records(path / "results.jsonl")
    except OSError:
        return None


def _written_at(path: Path) -> float:
    try:
        return (path / MANIFEST_FILE).stat().st_mtime
    except OSError:
        return -1.0


def earlier_runs(out_dir: Path) -> List[Path]:
    """The other directories beside `out_dir` with a run.json, the newest run.json
    first."""
    here = out_dir.resolve()
    try:
        siblings = sorted(here.parent.iterdir(), key=lambda p: p.name, reverse=True)
    except OSError:
        return []
    found = [path for path in siblings[:MAX_EARLIER_SCANNED]
             if path.resolve() != here and _written_at(path) >= 0]
    return sorted(found, key=_written_at, reverse=True)


def find_earlier(out_dir: Path, manifest: RunManifest,
                 machine: Optional[Tuple[str, ...]]) -> Optional[EarlierRun]:
    """The newest earlier run beside `out_dir` of the same suite, scale and ranks, whose
    records come from the same machine and build as `machine`."""
    if machine is None:
        return None
    for path in earlier_runs(out_dir):
        other = read_manifest(path)
        if other is None or other.identity() != manifest.identity():
            continue
        records = _records_of(path)
        if records is not None and records.records and machine_of(records.records) == machine:
            return EarlierRun(path, other, records)
    return None


def earlier_run(out_dir: Path, manifest: RunManifest) -> Optional[EarlierRun]:
    """The newest earlier run of the same suite, scale and ranks, on any machine (the
    plan's rates and calibration: the machine is not known before anything ran)."""
    for path in earlier_runs(out_dir):
        other = read_manifest(path)
        if other is not None and other.identity() == manifest.identity():
            records = _records_of(path)
            return EarlierRun(path, other, records if records is not None else RecordSet())
    return None


def earlier_durations(out_dir: Path, manifest: RunManifest) -> Dict[str, float]:
    """Step durations of the newest earlier run of the same suite, scale and ranks (the
    machine is not known before anything ran: the estimate is only an estimate)."""
    for path in earlier_runs(out_dir):
        other = read_manifest(path)
        if other is not None and other.identity() == manifest.identity():
            return other.durations()
    return {}
