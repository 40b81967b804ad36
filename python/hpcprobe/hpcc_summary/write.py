"""The HPCC summary file a command writes (`--hpcc-summary`, `run --suite hpcc`): HPCC's
block on stdout and in hpcc-summary.txt, then a "Not successful" line per reason its
Success is 0 (a step that failed or wrote no record)."""

import sys
from pathlib import Path
from typing import Dict, List, Sequence

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK
from hpcprobe.hpcc_summary.summary import hpcc_summary_text, unsuccessful_lines
from hpcprobe.output_files import write_text_atomically
from hpcprobe.results import RecordSet
from hpcprobe.runner import Launch

HPCC_SUMMARY_FILE = "hpcc-summary.txt"


def write_hpcc_summary(records: RecordSet, out_dir: Path,
                       step_problems: Sequence[str] = ()) -> None:
    """HPCC's block, then a "Not successful" line per reason Success is 0."""
    text = hpcc_summary_text(records.records, step_problems)
    text += "".join(line + "\n" for line in unsuccessful_lines(records.records, step_problems))
    sys.stdout.write(text)
    sys.stdout.flush()
    write_text_atomically(out_dir / HPCC_SUMMARY_FILE, text)


def step_problem(name: str, exit_status: int, records: Sequence) -> List[str]:
    """Why a step asked for did not deliver (for HPCC's Success), or nothing."""
    if exit_status != EXIT_OK:
        return [f"step '{name}' failed (exit status {exit_status})"]
    return [] if records else [f"step '{name}' wrote no record"]


def write_launch_summary(outcome, launch: Launch, out_dir: Path) -> None:
    """--hpcc-summary of one launch: with Success=0 naming it when it failed, unless it
    measured nothing because its input was refused (that one line is the answer)."""
    if outcome.found.records or outcome.exit_status not in (EXIT_OK, EXIT_BAD_INPUT):
        name = f"{launch.benchmark} {launch.variant}"
        write_hpcc_summary(outcome.found, out_dir,
                           step_problem(name, outcome.exit_status, outcome.found.records))


def suite_problems(by_step: Dict[str, List], failures: Dict[str, int]) -> List[str]:
    """Each failed launch of a suite, then each step that ran without failing and wrote
    nothing."""
    problems = [problem for label, status in failures.items()
                for problem in step_problem(label, status, [])]
    failed = {label.split(" (round ")[0] for label in failures}
    return problems + [problem for name, records in by_step.items() if name not in failed
                       for problem in step_problem(name, EXIT_OK, records)]
