"""bench/history: the history database at 1000 runs (docs/benchmarks.md).

Inserts 1000 runs, each 6 records over 8 hosts of 2 ranks (46 figures: each record's
headline and its 8 hosts' sums), figures_of each record and one transaction per run,
into one open history; then times the trend query of `hpcprobe history` over all of
them (series + trends) and over one host. Each is timed RUNS times on a fresh file
(median printed) against the 1 s target. Apart: what one launch pays (history/hook.py's
keep_launch: open the file, one run, close, which checkpoints the WAL), per run."""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

from hpcprobe.history import figures_of, open_history
from hpcprobe.history.command import trends
from hpcprobe.history.hook import keep_launch

TARGET_S = 1.0
# Runs stored the way launches store them, for the cost of one launch's.
LAUNCHES = 100
HOSTS = [f"node{number:03d}" for number in range(8)]
RANKS_PER_HOST = 2
# (benchmark, variant, algorithm, headline metric, per-rank series, unit, typical value)
KINDS = (
    ("dgemm", "star", "blas", "flop_rate", "best_flop_rate", "flop/s", 4e10),
    ("stream", "star", "openmp", "star_triad_bandwidth", "star_triad_best_bandwidth", "B/s",
     8e9),
    ("stream", "star", "openmp", "star_copy_bandwidth", "star_copy_best_bandwidth", "B/s",
     7e9),
    ("ra", "star", "serial", "update_rate", "update_rate_per_rank", "updates/s", 2e7),
    ("mem", "latency", "chase", "latency", "latency_per_rank", "s", 9e-8),
    ("gpu", "stream", "cuda", "triad_bandwidth", "triad_bandwidth_per_rank", "B/s", 3e12),
)


def record(kind: tuple, day: int, rng: random.Random) -> Dict:
    benchmark, variant, algorithm, metric, series, unit, typical = kind
    ranks = len(HOSTS) * RANKS_PER_HOST
    ys = [typical * rng.uniform(0.95, 1.05) / ranks for _ in range(ranks)]
    return {
        "benchmark": benchmark, "variant": variant, "algorithm": algorithm,
        "started_at": f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T"
                      f"{rng.randrange(24):02d}:00:00.000Z",
        "value": {"metric": metric, "statistic": "median", "value": sum(ys), "unit": unit},
        "validation": {"verdict": "passed"},
        "metadata": {"hosts": HOSTS, "rank_hosts": [rank // RANKS_PER_HOST
                                                    for rank in range(ranks)]},
        "series": [{"name": series, "x_name": "rank", "unit": unit,
                    "x": list(range(ranks)), "y": ys}],
    }


def runs_of_records(count: int) -> List[List[Dict]]:
    rng = random.Random(43)
    return [[record(kind, run * 300 // count, rng) for kind in KINDS] for run in range(count)]


def insert(path: Path, runs: List[List[Dict]]) -> None:
    """Every run, one transaction each, into one open history."""
    with open_history(path) as history:
        for number, records in enumerate(runs):
            stamp = records[0]["started_at"]
            history.add_run("hpcprobe bench", [figure for record in records
                                               for figure in figures_of(record)],
                            stamp, stamp, f"bench-{number}")


def launches(path: Path, runs: List[List[Dict]]) -> None:
    """Every run as a launch stores it: opening and closing the file each time."""
    env = {"HPCPROBE_HISTORY": str(path)}
    for number, records in enumerate(runs):
        stamp = records[0]["started_at"]
        if keep_launch(["hpcprobe", "bench"], records, stamp, stamp, f"bench-{number}",
                       env) is None:
            sys.exit(f"[history] run {number} was not written")


def timed(function: Callable[[], object], runs: int) -> Dict[str, List[float]]:
    """Wall and CPU seconds (this process's) of each of `runs` calls: on a loaded
    machine the wall time is mostly waiting for a core."""
    wall, cpu = [], []
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return {"wall_s": wall, "cpu_s": cpu}


def measure(run_count: int, repeats: int, folder: Path) -> Dict:
    runs = runs_of_records(run_count)
    files = iter(folder / f"history-{number}.sqlite" for number in range(repeats))
    insert_s = timed(lambda: insert(next(files), runs), repeats)
    path = folder / "history-0.sqlite"
    with open_history(path) as history:
        figures = len(history.series())
        stored_runs = history.run_count()
        all_s = timed(lambda: trends(history.series()), repeats)
        host_s = timed(lambda: trends(history.series(host=HOSTS[3])), repeats)
    launch_s = timed(lambda: launches(folder / "launches.sqlite", runs[:LAUNCHES]),
                     1)["wall_s"][0]
    return {"load_average": os.getloadavg(), "cores": os.cpu_count(), "runs": stored_runs,
            "figures": figures, "hosts": len(HOSTS),
            "insert_s": insert_s, "trend_all_s": all_s, "trend_one_host_s": host_s,
            "per_launch_s": launch_s / LAUNCHES}


def report(result: Dict) -> bool:
    print(f"[history] {result['runs']} runs, {result['figures']} figures over "
          f"{result['hosts']} hosts ({result['figures'] / result['runs']:.0f} a run)")
    within = True
    for key, what in (("insert_s", f"insert {result['runs']} runs (one transaction each)"),
                      ("trend_all_s", "trend query, every host and figure"),
                      ("trend_one_host_s", "trend query, one host")):
        median = statistics.median(result[key]["wall_s"])
        cpu = statistics.median(result[key]["cpu_s"])
        within = within and median < TARGET_S
        print(f"[history] {what}: median {median:.3f} s of {len(result[key]['wall_s'])} "
              f"(CPU {cpu:.3f} s), {median / TARGET_S:.2f} × the {TARGET_S:g} s target")
    print(f"[history] load average {result['load_average'][0]:.1f} on {result['cores']} "
          "cores")
    print(f"[history] one launch's run (open, insert, close): {result['per_launch_s']:.4f} s "
          f"(mean of {LAUNCHES})")
    return within


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="times each is timed")
    parser.add_argument("--history-runs", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="write every time there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hpcprobe-bench-history-") as folder:
        result = measure(args.history_runs, args.runs, Path(folder))
    within = report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
