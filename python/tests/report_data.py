"""A results directory for report tests: real records from the bench of every family
(the quick, memory, hpcc and comm suites at --scale tiny, the comm suite again with
another placement, rank pairs on 4 ranks, every contention variant on 4 ranks, congestion
on 4 ranks, a short
look-ahead sweep, the mapping modes, the model's two runs), a synthetic comm record, a
record of an unknown benchmark with a schema 1.2 field, one corrupt line, and a host
name that tries to inject a script."""

import copy
import json
from pathlib import Path
from typing import Dict, List

from helpers import golden, run_hpcprobe, write_jsonl

HOSTILE_HOST = "<script>alert('pwned')</script>&node"
CORRUPT_LINE = '{"schema_version": "1.1", "benchmark": '
RUNS = (
    ("run", "--suite", "quick", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "memory", "--scale", "tiny", "--np", "2"),
    ("ra", "sweep", "--np", "2", "--lookahead", "16,1024,2048", "--table-log2", "12",
     "--time-limit", "1"),
    ("ra", "modes", "--threads", "2", "--table-log2", "12", "--repeat", "2"),
    ("model", "ra", "--measure", "--np", "2"),
    ("run", "--suite", "hpcc", "--scale", "tiny", "--np", "2"),
    ("fft", "single", "--fft", "internal", "--log2", "10", "--np", "1"),
    ("run", "--suite", "comm", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "comm", "--scale", "tiny", "--np", "2", "--placement", "round-robin"),
    ("pairs", "--np", "4", "--size", "4K", "--repeat", "1"),
    *(("contention", variant, "--np", "4", "--torus", "4", "--ranks-per-node", "1", "--sizes",
       "8,1024", "--repeat", "2", *extra) for variant, extra in (
        ("wocon", ()), ("wicon", ("--pairs", "nn")), ("wicon", ("--pairs", "rnd")),
        ("stress-link", ()), ("equidistant", ()))),
    ("congestion", "--np", "4", "--samples", "20", "--bandwidth-samples", "3",
     "--bandwidth-bytes", "4K", "--congestor-bytes", "64", "--congestor", "incast,alltoall"),
)


def synthetic(benchmark: str, variant: str, **changes) -> Dict:
    record = golden("mpi")
    record.update(benchmark=benchmark, variant=variant, algorithm="synthetic", **changes)
    return record


def extra_records() -> List[Dict]:
    comm = synthetic("comm", "pingpong")
    comm["value"] = {"metric": "latency", "statistic": "median", "value": 1.5e-6, "unit": "s"}
    comm["metrics"] = [{"name": "latency", "unit": "s", "samples": [1.5e-6, 1.6e-6, 1.4e-6]}]
    future = synthetic("quantum", "entangle", schema_version="1.2",
                       matrices=[{"name": "coupling", "row_name": "qubit",
                                  "column_name": "qubit", "unit": "1",
                                  "values": [[0, 1], [1, None]]}])
    hostile = golden("single")
    hostile["metadata"] = copy.deepcopy(hostile["metadata"])
    hostile["metadata"]["hosts"] = [HOSTILE_HOST]
    hostile["notes"] = ["<img src=x onerror=alert(1)> note"]
    return [comm, future, hostile]


def make_results(directory: Path) -> Path:
    """Run the real benchmarks into `directory` and add the synthetic lines."""
    for argv in RUNS:
        completed = run_hpcprobe(*argv, "--out", str(directory), "--quiet", timeout=600)
        assert completed.returncode == 0, (argv, completed.stderr[-2000:])
    results = directory / "results.jsonl"
    write_jsonl(results, extra_records())
    with open(results, "a", encoding="utf-8") as stream:
        stream.write(CORRUPT_LINE + "\n")
    write_jsonl(results, [golden("star")])  # a valid record after the corrupt line
    return results


def corrupt_line_number(results: Path) -> int:
    lines = results.read_text().splitlines()
    return lines.index(CORRUPT_LINE) + 1


def load(results: Path) -> List[Dict]:
    return [json.loads(line) for line in results.read_text().splitlines()
            if line != CORRUPT_LINE]
