"""bench/report_scale: time `hpcprobe report` and `hpcprobe compare` over RECORDS
synthetic records made from real ones, against `hpcprobe show --format csv` on the same
records. See the header of bench/report_scale."""

import copy
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

RUNS = int(os.environ.get("RUNS", "3"))
RECORDS = int(os.environ.get("RECORDS", "10000"))
OUT = Path(os.environ.get("OUT", "/tmp"))
WORK = OUT / "report_scale"
HPCPROBE = [sys.executable, "-m", "hpcprobe"]
TARGET_S = 10.0
RA_RANKS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
ALGORITHMS = ("reference", "alltoall", "hypercube", "torus")
LOOKAHEADS = (1, 16, 256, 1024, 4096)
LAUNCHES = 3


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(*args: str) -> Tuple[float, float]:
    """Wall and CPU seconds of `hpcprobe ARGS` (CPU time is what a busy shared machine
    distorts least)."""
    cpu = _children_cpu_s()
    started = time.perf_counter()
    completed = subprocess.run([*HPCPROBE, *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        sys.exit(f"report_scale: hpcprobe {' '.join(args)} failed: {completed.stderr[-2000:]}")
    return elapsed, _children_cpu_s() - cpu


SOURCE_RUNS = (
    ("run", "--suite", "quick", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "memory", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "hpcc", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "comm", "--scale", "tiny", "--np", "2"),
    ("run", "--suite", "comm", "--scale", "tiny", "--np", "2", "--placement", "round-robin"),
    *(("contention", variant, "--np", "4", "--torus", "4", "--ranks-per-node", "1", "--sizes",
       "8,1024", *extra) for variant, extra in (
        ("wocon", ()), ("wicon", ("--pairs", "nn")), ("wicon", ("--pairs", "rnd")),
        ("stress-link", ()), ("equidistant", ()))),
)


def templates() -> Dict[str, Dict]:
    """One real record of each kind, from the tiny suites of every family."""
    source = WORK / "source"
    if not (source / "results.jsonl").exists():
        for argv in SOURCE_RUNS:
            run(*argv, "--out", str(source), "--quiet")
    found = {}
    for line in (source / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        parameters = record.get("parameters") or {}
        key = " ".join(str(part) for part in (
            record["benchmark"], record["variant"], record["algorithm"],
            parameters.get("pairs", ""), parameters.get("placement", ""),
            parameters.get("rng", "")))
        found.setdefault(key, record)
    return found


def jitter(record: Dict, rng: random.Random, scale: float) -> Dict:
    copied = copy.deepcopy(record)
    for metric in copied["metrics"]:
        metric["samples"] = [None if s is None else s * scale * rng.uniform(0.9, 1.1)
                             for s in metric["samples"]]
    for entry in copied.get("series") or []:
        entry["y"] = [None if y is None else y * rng.uniform(0.95, 1.05) for y in entry["y"]]
        entry.pop("samples", None)
    value = copied["value"]
    if isinstance(value.get("value"), (int, float)):
        value["value"] *= scale
    return copied


def ra_config(base: Dict, algorithm: str, ranks: int, lookahead: int) -> Dict:
    record = copy.deepcopy(base)
    record["algorithm"] = algorithm
    record["layout"] = dict(record["layout"], ranks=ranks, ranks_per_node_max=min(ranks, 2),
                            nodes=max(1, ranks // 2))
    record["parameters"] = dict(record["parameters"], lookahead=lookahead)
    record["compliant"] = lookahead <= 1024
    return record


def placed(base: Dict, ranks: int) -> Dict:
    """A communication record as if run on `ranks` ranks, two per node."""
    record = copy.deepcopy(base)
    record["layout"] = dict(record["layout"], ranks=ranks, ranks_per_node_max=2,
                            nodes=max(1, ranks // 2))
    return record


def configurations(kinds: Dict[str, Dict]) -> List[Dict]:
    mpi = next(kind for kind in kinds.values() if (kind["benchmark"], kind["variant"],
                                                   kind["algorithm"]) == ("ra", "mpi", "reference")
               and (kind.get("parameters") or {}).get("rng") != "lcg")
    configs = [ra_config(mpi, algorithm, ranks, 1024)
               for algorithm in ALGORITHMS for ranks in RA_RANKS]
    configs += [ra_config(mpi, "hypercube", ranks, q) for ranks in (64, 256) for q in LOOKAHEADS]
    configs += [kind for kind in kinds.values() if kind is not mpi]
    # comm on more ranks: the section draws the newest configurations, tables the rest
    configs += [placed(kind, ranks) for kind in kinds.values()
                if kind["benchmark"] == "comm" for ranks in (4, 8)]
    return configs


def synthetic(kinds: Dict[str, Dict], host: str, scale: float, seed: int) -> List[Dict]:
    rng = random.Random(seed)
    configs = configurations(kinds)
    records = []
    while len(records) < RECORDS:
        for config in configs:
            for launch in range(LAUNCHES):
                record = jitter(config, rng, scale)
                record["metadata"] = dict(record["metadata"], hosts=[host])
                record["started_at"] = f"2026-01-{1 + launch:02d}T10:00:00.000Z"
                records.append(record)
    return records[:RECORDS]


def write(path: Path, records: List[Dict]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    with open(path / "results.jsonl", "w", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record) + "\n")
    return path


def main() -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    kinds = templates()
    a = write(WORK / "a", synthetic(kinds, "node-a", 1.0, 1))
    b = write(WORK / "b", synthetic(kinds, "node-b", 1.3, 2))
    times: Dict[str, List[Tuple[float, float]]] = {"show": [], "report": [], "compare": []}
    commands = {"show": ("show", str(a), "--format", "csv"),
                "report": ("report", str(a), "-o", str(WORK / "report.html"), "--quiet"),
                "compare": ("compare", str(a), str(b), "--format", "csv", "-o",
                            str(WORK / "compare.csv"))}
    for round_number in range(RUNS):
        order = list(commands)
        order = order[round_number % 3:] + order[:round_number % 3]  # rotate: noise on all
        for name in order:
            times[name].append(run(*commands[name]))
    report(times)


def report(times: Dict[str, List[Tuple[float, float]]]) -> None:
    wall = {name: statistics.median(t for t, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    summary = {"records": RECORDS, "runs": RUNS, "wall_and_cpu_s": times, "median_wall_s": wall,
               "median_cpu_s": cpu, "ratio_report_over_show": wall["report"] / wall["show"],
               "ratio_compare_over_show": wall["compare"] / wall["show"], "target_s": TARGET_S,
               "met": {name: wall[name] < TARGET_S for name in ("report", "compare")}}
    (OUT / "report_scale.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{RECORDS} records, medians of {RUNS} runs (each a fresh `hpcprobe` process):")
    for name in ("show", "report", "compare"):
        target = "" if name == "show" else (
            f"  target < {TARGET_S:g} s: {'met' if wall[name] < TARGET_S else 'NOT met'}")
        print(f"  {name:8s} {wall[name]:6.2f} s wall, {cpu[name]:6.2f} s CPU{target}")
    print(f"  report / show  {summary['ratio_report_over_show']:.2f}")
    print(f"  compare / show {summary['ratio_compare_over_show']:.2f} "
          f"(compare reads 2 x {RECORDS} records)")
    print(f"JSON: {OUT / 'report_scale.json'}; records and outputs: {WORK}")


if __name__ == "__main__":
    main()
