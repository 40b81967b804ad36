"""Shared test helpers: golden records, running the CLI, writing JSON Lines."""

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional

from hpcprobe.hpcc_summary.keys import BEGIN_LINE, END_LINE
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries

# This folder (the tests' data and stand-ins), and the repository's root.
TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[1]
DATA = TESTS / "data"

Record = Dict[str, Any]


def stand_in_bench(path: Path) -> Path:
    """An hpcprobe-bench at `path` that runs nothing (exit 99; the tests' launchers are
    fake_bench.py) but describes itself as the real bench does: hpcprobe's parsers and
    suites are built from that description (describe.py)."""
    from hpcprobe.launch import find_bench
    real = shlex.quote(find_bench(dict(os.environ)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n[ \"$1\" = describe ] && exec {real} \"$@\"\nexit 99\n")
    path.chmod(0o755)
    return path


def made_up_option(name: str, help_text: str, kernels, default: str, high: int):
    """An int option from 1 to `high` that the test adds to a description, taken by
    `kernels` (their ids): what a new option in a C table would describe."""
    from hpcprobe import describe
    return describe.Option(
        name=name, type="int", grammar="a whole number in decimal", default=default,
        default_computed=False, min=1, max=high, min_exclusive=False, max_exclusive=False,
        count_max=None, choices=None, help=help_text, common=False, kernels=tuple(kernels))


def record_of(name: str) -> Record:
    """A fresh copy of the hand-written record data/<name>.json."""
    return copy.deepcopy(json.loads((DATA / f"{name}.json").read_text()))


def golden(variant: str) -> Record:
    """A fresh copy of the hand-written record data/ra-<variant>.json."""
    return record_of(f"ra-{variant}")


# The hand-written records of the memory families.
MEMORY_RECORDS = ("stream-star", "stream-single", "mem-stride", "mem-latency")


def write_jsonl(path: Path, records: Iterable[Record]) -> Path:
    with open(path, "a", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record) + "\n")
    return path


def read_jsonl(path: Path) -> List[Record]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run_hpcprobe(*args: str, env: Optional[Mapping[str, str]] = None,
                 timeout: float = 120, cwd: Optional[Path] = None,
                 ) -> subprocess.CompletedProcess:
    """`python -m hpcprobe ARGS` with the interpreter running the tests."""
    return subprocess.run(
        [sys.executable, "-m", "hpcprobe", *args], capture_output=True, text=True,
        env=dict(os.environ if env is None else env), timeout=timeout, cwd=cwd,
    )


def stderr_lines(completed: subprocess.CompletedProcess) -> List[str]:
    return [line for line in completed.stderr.splitlines() if line.strip()]


# Keys of the HPCC summary that describe the machine's arithmetic and HPCC's build, the
# same in every block: tests about the measured keys leave them out.
CONSTANT_HPCC_KEY = re.compile(r"^(Version\w+|LANG|sizeof_\w+|HPL_[ds]MACH_\w+|dweps|sweps|"
                               r"FFTE\w+|M_OPENMP|omp_\w+|Mem(Proc|Spec|Val)|CPS_\w+)=")


def measured_summary(text: str, records: Iterable[Record]) -> str:
    """An HPCC summary text with only the keys that `records` measured, less the constant
    ones. (The block holds every key of HPCC 1.5, those no record measured with HPCC's
    "not run" value: test_hpcc_summary.py checks those.)"""
    measured = {key for key, _ in hpcc_summary_entries(list(records))}
    lines = text.splitlines()
    begin, end = lines.index(BEGIN_LINE), lines.index(END_LINE)
    block = [line for line in lines[begin + 1:end] if not CONSTANT_HPCC_KEY.match(line)
             and line.split("=", 1)[0] in measured]
    return "".join(line + "\n" for line in lines[:begin + 1] + block + lines[end:])
