"""bench/screen: `hpcprobe screen` on an emulated cluster (docs/benchmarks.md#benchscreen).

On 8 emulated hosts of 1 core (400 Mbit/s, flat), RUNS rounds, each a screen without
faults and one with host h3 throttled to half (`cluster fault --host h3 cpu 0.5`) and
link h5-sw shaped to a quarter (`--link h5-sw rate 100mbit`), interleaved. A faulted run
passes when exactly h3 is slow and exactly h5's own link is bad; a clean run when no
node is slow and no link bad. Then the screen's time on 2, 4 and 8 hosts against the
plan's prediction, and the plan's prediction for 64, 512 and 4096 nodes (the default
budget, 300 s) with its pair rounds. History off: peers alone judge."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.screen.checks import DEFAULT_CHECKS
from hpcprobe.screen.plan import DEFAULT_BUDGET_S, pair_rounds, plan, screen_time_s

CLUSTER = "bscreen"
HOSTS = 8
THROTTLED, SLOW_LINK = "h3", "h5-sw"
TARGET_4096_S = 600.0
SCALES = (64, 512, 4096)


def hpcprobe(*words: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    program = Path(sys.executable).parent / "hpcprobe"
    return subprocess.run([str(program), *words], capture_output=True, text=True,
                          timeout=timeout, check=False)


def must(*words: str) -> None:
    done = hpcprobe(*words)
    if done.returncode != 0:
        sys.exit(f"[screen] hpcprobe {' '.join(words)} failed: {done.stderr.strip()}")


def screen(out: Path, nodes: Optional[int] = None) -> Dict:
    """One screen of the cluster: its outcome and time from screen.json."""
    words = ["screen", "--cluster", CLUSTER, "--history", "off", "--quiet",
             "--out", str(out)]
    if nodes is not None:
        words += ["--nodes", str(nodes)]
    started = time.monotonic()
    done = hpcprobe(*words)
    elapsed = time.monotonic() - started
    data = json.loads((out / "screen.json").read_text())
    return {"exit": done.returncode, "wall_s": elapsed, "elapsed_s": data.get("elapsed_s"),
            "slow": sorted(n["host"] for n in data["nodes"] if n["status"] != "ok"),
            "bad": sorted(f"{link['a']}|{link['b']}" for link in data["links"]
                          if link["status"] == "bad"),
            "repeated": data.get("repeated", [])}


def faults(on: bool) -> None:
    must("cluster", "fault", "--name", CLUSTER, "--host", THROTTLED,
         *(["cpu", "0.5"] if on else ["up"]))
    must("cluster", "fault", "--name", CLUSTER, "--link", SLOW_LINK,
         *(["rate", "100mbit"] if on else ["up"]))


def rounds(runs: int, folder: Path) -> Tuple[List[Dict], List[Dict]]:
    """Clean and faulted screens, interleaved."""
    clean, faulted = [], []
    for number in range(runs):
        clean.append(screen(folder / f"clean-{number}"))
        faults(True)
        try:
            faulted.append(screen(folder / f"faulted-{number}"))
        finally:
            faults(False)
        print(f"[screen] round {number + 1}: clean {clean[-1]['slow']} {clean[-1]['bad']}; "
              f"faulted {faulted[-1]['slow']} {faulted[-1]['bad']}", flush=True)
    return clean, faulted


def timings(folder: Path, clean: Sequence[Dict]) -> Dict[int, Dict]:
    """The screen's time on 2 and 4 hosts (one run each) and on 8 (the clean rounds'
    median), beside the plan's prediction for 1-core hosts."""
    found = {}
    for nodes in (2, 4):
        found[nodes] = screen(folder / f"nodes-{nodes}", nodes)
    found[HOSTS] = {"elapsed_s": statistics.median(run["elapsed_s"] for run in clean)}
    for nodes, run in found.items():
        run["predicted_s"] = screen_time_s(nodes, cores=1)
    return found


def report(clean: List[Dict], faulted: List[Dict], timed: Dict[int, Dict]) -> bool:
    throttled, link_end = f"{CLUSTER}-{THROTTLED}", f"{CLUSTER}-{SLOW_LINK[:-3]}"
    good_clean = sum(run["slow"] == [] and run["bad"] == [] for run in clean)
    good_faulted = sum(run["slow"] == [throttled] and run["bad"] == [f"{link_end}|*"]
                       for run in faulted)
    print(f"[screen] without faults: nothing flagged in {good_clean} of {len(clean)} runs")
    print(f"[screen] {THROTTLED} at cpu 0.5 and {SLOW_LINK} at a quarter: exactly "
          f"{throttled} slow and exactly {link_end}'s own link bad in {good_faulted} of "
          f"{len(faulted)} runs")
    for nodes, run in sorted(timed.items()):
        print(f"[screen] {nodes} hosts: {run['elapsed_s']:.1f} s, predicted "
              f"{run['predicted_s']:.1f} s ({run['elapsed_s'] / run['predicted_s']:.2f} x)")
    within = True
    for nodes in SCALES:
        launches = plan(nodes, 2, DEFAULT_CHECKS, DEFAULT_BUDGET_S)
        pairs = [f"{launch.check} {launch.rounds} of {launch.rounds_total} rounds"
                 for launch in launches if launch.rounds_total]
        total = sum(launch.predicted_s for launch in launches)
        within = within and (nodes != 4096 or total <= TARGET_4096_S)
        print(f"[screen] plan, {nodes} nodes of 2 cores: {total:.0f} s "
              f"({'; '.join(pairs)}; every pair would take {pair_rounds(nodes)} rounds)")
    print(f"[screen] load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return within and good_clean == len(clean) and good_faulted == len(faulted)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    must("cluster", "up", "--name", CLUSTER, "--nodes", str(HOSTS), "--link-rate",
         "400mbit", "--cores-per-node", "1")
    try:
        with tempfile.TemporaryDirectory(prefix="hpcprobe-bench-screen-") as folder:
            clean, faulted = rounds(args.runs, Path(folder))
            timed = timings(Path(folder), clean)
    finally:
        hpcprobe("cluster", "down", "--name", CLUSTER)
    passed = report(clean, faulted, timed)
    if args.json:
        args.json.write_text(json.dumps({"clean": clean, "faulted": faulted,
                                         "timed": {str(k): v for k, v in timed.items()}},
                                        indent=1) + "\n", encoding="utf-8")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
