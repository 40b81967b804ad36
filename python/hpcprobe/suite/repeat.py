"""`hpcprobe run --repeat K`: each benchmark of the suite launched K times, in rounds
(round 1 runs every step, then round 2, ...) so that slow drift on a shared machine falls
on every step alike, and the K records of each step merged (analysis/merge.py).

Every launch's own record stays in results.jsonl; the merged records go to merged.jsonl
beside it. A step whose launches cannot merge (another machine, or a configuration the
bench sized differently, say from the memory free at the time) is named with the field
that differs, and the run's exit status is then 3.
"""

import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from hpcprobe.analysis.merge import MergeRefused, merge_records
from hpcprobe.errors import HpcprobeError
from hpcprobe.output_files import write_bytes_atomically
from hpcprobe.suite.step import SuiteStep

MERGED_FILE = "merged.jsonl"
Record = Dict


def rounds(steps: Sequence[SuiteStep], repeat: int) -> List[Tuple[int, SuiteStep]]:
    """(round, step) in launch order: all steps of round 1, then of round 2, ..."""
    return [(number, step) for number in range(1, repeat + 1) for step in steps]


def launch_label(step: SuiteStep, number: int, repeat: int) -> str:
    return step.name if repeat == 1 else f"{step.name} (round {number} of {repeat})"


def merge_steps(records_by_step: Dict[str, List[Record]]) -> Tuple[List[Record],
                                                                    Dict[str, str]]:
    """The merged record of each step that wrote records, and by step name a line for
    each step whose records could not be merged."""
    merged: List[Record] = []
    refused: Dict[str, str] = {}
    for name, records in records_by_step.items():
        if not records:
            continue
        try:
            merged.append(merge_records(records))
        except MergeRefused as why:
            refused[name] = (f"cannot merge the {len(records)} records of '{name}': {why}; "
                             "each is kept in results.jsonl")
    return merged, refused


def write_merged(out_dir: Path, merged: Sequence[Record]) -> Path:
    """Add the merged records to merged.jsonl: the file is rewritten whole (it holds a
    record per step and run), so a full disk never leaves a record cut short in it."""
    path = out_dir / MERGED_FILE
    try:
        lines = "".join(json.dumps(record, allow_nan=False) + "\n" for record in merged)
        before = path.read_bytes() if path.exists() else b""
    except (OSError, ValueError) as error:
        raise HpcprobeError(f"cannot write {path}: {error}") from None
    write_bytes_atomically(path, before + lines.encode("utf-8"))
    return path
