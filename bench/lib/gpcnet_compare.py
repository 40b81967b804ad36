"""GPCNeT's network_load_test beside `hpcprobe congestion` (bench/congestion): GPCNeT
launched on an emulated cluster, its printed tables read back, hpcprobe's records turned
into the same figures, and the three side by side with the issue's tolerances.

Figures, per canary ("latency", "bandwidth", "allreduce"), in GPCNeT's units (usec,
MiB/s/rank): `avg`, `p99` (the worst 1 %: the 99th percentile of times, the 1st of
rates, as GPCNeT's "99%" column is), `cif_avg`, `cif_p99` (congested over isolated for
times, isolated over congested for rates: above 1 is worse, as GPCNeT prints them).

hpcprobe's figures are computed here from the records' raw samples with that definition,
so a difference in the table is one of measurement, not of arithmetic.
"""

import re
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

CANARIES = ("latency", "bandwidth", "allreduce")
UNITS = {"latency": "usec", "bandwidth": "MiB/s/rank", "allreduce": "usec"}
TOLERANCE = {"avg": 0.15, "cif_avg": 0.25, "cif_p99": 0.25}  # issue 45: isolated, CIFs
SECTIONS = (("Key Results", "cif"), ("Isolated Network Tests", "isolated"),
            ("Isolated Congestion Tests", "isolated_congestors"),
            ("running with Congestion Tests", "congested"))
NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?X?$")
Figures = Dict[str, Dict[str, float]]  # canary -> avg, p99, cif_avg, cif_p99


def canary_of(name: str) -> Optional[str]:
    """GPCNeT's test name -> our canary ("RR Two-sided Lat (8 B)" -> "latency")."""
    words = name.lower()
    if "allreduce" in words:
        return "allreduce"
    if "bw" in words or "bandwidth" in words:
        return "bandwidth"
    if "lat" in words:
        return "latency"
    return None


def _cells(line: str) -> List[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _number(text: str) -> Optional[float]:
    text = text.strip()
    return float(text.rstrip("X")) if NUMBER.match(text) else None


def parse_gpcnet(text: str) -> Dict[str, Dict[str, Dict[str, float]]]:
    """GPCNeT's tables from its stdout: {section: {canary: {avg, p99}}} for "isolated",
    "congested" and "isolated_congestors" (rows by test name there), and {"cif": {canary:
    {cif_avg, cif_p99}}}. Lines that are not table rows (the launcher's, a banner) are
    skipped; a section seen twice keeps its last rows."""
    found: Dict[str, Dict[str, Dict[str, float]]] = {}
    section = None
    for line in text.splitlines():
        if not line.lstrip().startswith("|"):
            continue
        cells = _cells(line)
        if len(cells) == 1:  # a title row: a table we know, or one whose rows we skip
            section = next((key for title, key in SECTIONS if title in cells[0]), None)
            if section:
                found[section] = {}
            continue
        values = [_number(cell) for cell in cells[1:3]]
        if section is None or None in values:
            continue  # a header ("Name | Avg | 99%") or an unknown table
        key = cells[0] if section == "isolated_congestors" else canary_of(cells[0])
        if key:
            names = ("cif_avg", "cif_p99") if section == "cif" else ("avg", "p99")
            found[section][key] = dict(zip(names, values))
    return found


def gpcnet_figures(text: str) -> Figures:
    """Per canary: isolated avg and p99 and both CIFs; ValueError when the run printed no
    Key Results (it failed, or stopped early)."""
    tables = parse_gpcnet(text)
    if not tables.get("cif") or not tables.get("isolated"):
        raise ValueError("no GPCNeT 'Key Results' table in its output")
    return {canary: {**tables["isolated"].get(canary, {}), **tables["cif"].get(canary, {})}
            for canary in CANARIES if canary in tables["cif"]}


def _scale(canary: str, values: np.ndarray) -> np.ndarray:
    """SI samples (s, B/s) in GPCNeT's units (usec, MiB/s)."""
    return values / 2**20 if canary == "bandwidth" else values * 1e6


def _worst(canary: str, values: np.ndarray) -> float:
    return float(np.percentile(values, 1 if canary == "bandwidth" else 99))


def _ratio(canary: str, alone: float, loaded: float) -> float:
    return alone / loaded if canary == "bandwidth" else loaded / alone


def sample_figures(samples: Callable[[str, str], np.ndarray], condition: str,
                   canaries: Sequence[str] = CANARIES) -> Figures:
    """hpcprobe's figures for one congested condition; `samples(canary, condition)` gives
    the raw samples of a record (cif.samples)."""
    found: Figures = {}
    for canary in canaries:
        alone, loaded = samples(canary, "isolated"), samples(canary, condition)
        if alone.size == 0 or loaded.size == 0:
            continue
        alone, loaded = _scale(canary, alone), _scale(canary, loaded)
        found[canary] = {"avg": float(alone.mean()), "p99": _worst(canary, alone),
                         "cif_avg": _ratio(canary, float(alone.mean()), float(loaded.mean())),
                         "cif_p99": _ratio(canary, _worst(canary, alone),
                                           _worst(canary, loaded))}
    return found


def worst_of(per_condition: Sequence[Figures]) -> Figures:
    """The default mode runs one congestor at a time: per canary, the isolated figures
    and the largest CIF over its congestors."""
    found: Figures = {}
    for figures in per_condition:
        for canary, values in figures.items():
            kept = found.setdefault(canary, dict(values))
            for key in ("cif_avg", "cif_p99"):
                kept[key] = max(kept[key], values[key])
    return found


def medians(rounds: Sequence[Figures]) -> Figures:
    """Per canary and figure, the median over the rounds that have it."""
    found: Figures = {}
    for canary in CANARIES:
        keys = {key for figures in rounds for key in figures.get(canary, {})}
        for key in sorted(keys):
            values = [f[canary][key] for f in rounds if key in f.get(canary, {})]
            found.setdefault(canary, {})[key] = statistics.median(values)
    return found


def verdict(ours: Optional[float], theirs: Optional[float], tolerance: float) -> Tuple[str, str]:
    """(ratio text, "pass"/"FAIL"/"-") of ours/theirs against 1 +- tolerance."""
    if ours is None or theirs is None or theirs == 0:
        return "-", "-"
    ratio = ours / theirs
    return f"{ratio:.2f}", "pass" if abs(ratio - 1) <= tolerance else "FAIL"


ROWS = (("avg", "isolated avg"), ("p99", "isolated 99%"), ("cif_avg", "CIF avg"),
        ("cif_p99", "CIF 99%"))


def _text(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _judge(theirs: Optional[float], ours: Optional[float], spin: Optional[float],
           tolerance: Optional[float]) -> Tuple[str, str, str]:
    """(ratio, ratio with idle ranks spinning, verdict): pass where --mode gpcnet is within
    tolerance, "spin" where only its run with idle ranks spinning as GPCNeT's is (the
    difference is how idle ranks wait), FAIL otherwise; "" where not judged."""
    ratio, judged = verdict(ours, theirs, tolerance or 0.0)
    spin_ratio, spin_judged = verdict(spin, theirs, tolerance or 0.0)
    if tolerance is None:
        return ratio, spin_ratio, ""
    if judged != "pass" and spin_judged == "pass":
        judged = "spin"
    return ratio, spin_ratio, judged


def side_by_side(title: str, gpcnet: Figures, gpcnet_mode: Figures,
                 default_mode: Figures,
                 spin: Optional[Figures] = None) -> Tuple[List[str], bool]:
    """The lines of one cluster's table (medians over the rounds) and whether every
    judged figure of `congestion --mode gpcnet` is within tolerance of GPCNeT's, or
    explained: within it when idle ranks wait spinning as GPCNeT's do (`spin`, measured
    by `--idle-wait spin`). The isolated 99 % and the default mode are shown, not
    judged."""
    spin = spin or {}
    head = (f"{'':36s} {'GPCNeT':>10s} {'--mode gpcnet':>14s} {'ratio':>6s} "
            f"{'idle spin':>10s} {'ratio':>6s} {'tol':>5s} {'':5s} {'default mode*':>14s}")
    lines, passed = [title, head], True
    for canary in CANARIES:
        for key, label in ROWS:
            theirs = gpcnet.get(canary, {}).get(key)
            ours = gpcnet_mode.get(canary, {}).get(key)
            spun = spin.get(canary, {}).get(key)
            tolerance = TOLERANCE.get(key)
            ratio, spin_ratio, judged = _judge(theirs, ours, spun, tolerance)
            passed = passed and (tolerance is None or judged in ("pass", "spin"))
            unit = UNITS[canary] if key in ("avg", "p99") else "x"
            name = f"{canary} {label} ({unit})"
            tol = f"{tolerance * 100:.0f}%" if tolerance else ""
            lines.append(f"{name:36s} {_text(theirs):>10s} {_text(ours):>14s} {ratio:>6s} "
                         f"{_text(spun):>10s} {spin_ratio:>6s} {tol:>5s} {judged:5s} "
                         f"{_text(default_mode.get(canary, {}).get(key)):>14s}")
    lines.append("* default mode: one congestor at a time, canaries spread across leaves; "
                 "its CIF is the largest over the four congestors")
    lines.append("idle spin: --mode gpcnet --idle-wait spin (idle ranks wait in a blocking "
                 "MPI call, busy-polling, as GPCNeT's do); verdict 'spin': within tolerance "
                 "only so, the difference is how idle ranks wait")
    return lines, passed


def placement_lines(gpcnet: Figures, by_placement: Mapping[str, Figures],
                    default_mode: Figures,
                    default_packed: Optional[Figures] = None) -> List[str]:
    """The tree's bandwidth CIF (mean) by where the canaries sit: GPCNeT's random nodes,
    gpcnet mode's placements, the default mode's spread canaries (and packed on one
    leaf, where measured)."""
    def cif(figures: Figures) -> str:
        return _text(figures.get("bandwidth", {}).get("cif_avg"))

    rows = [("GPCNeT (random nodes)", gpcnet)]
    rows += [(f"--mode gpcnet --canary-placement {placement}", figures)
             for placement, figures in by_placement.items()]
    rows.append(("default mode (spread, worst congestor)", default_mode))
    if default_packed is not None:
        rows.append(("default mode --canary-placement packed", default_packed))
    lines = ["bandwidth CIF (avg) on the tree, by canary placement (medians):"]
    lines += [f"  {label:42s} {cif(figures):>6s}" for label, figures in rows]
    return lines


def run_gpcnet(hpcprobe: Sequence[str], cluster: str, gpcnet_bin: str, nodes: int = 10,
               budget_s: int = 1800, env: Optional[Mapping[str, str]] = None) -> str:
    """GPCNeT's network_load_test on `nodes` hosts of `cluster`, one rank each, through
    `hpcprobe launch --cluster` (a plain mpiexec would not know the hosts); its stdout.
    RuntimeError with the end of its output when it fails."""
    program = (Path(gpcnet_bin) / "network_load_test").resolve()
    if not program.is_file():
        raise RuntimeError(f"GPCNET_BIN: no network_load_test in {program.parent}")
    argv = [*hpcprobe, "launch", "--cluster", cluster, "--np", str(nodes), "--ppn", "1",
            "--time-budget", str(budget_s), "--", str(program)]
    # GPCNeT writes its *.dat tables into its working directory: a scratch one.
    with tempfile.TemporaryDirectory(prefix="hpcprobe-gpcnet-") as scratch:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=scratch,
                              timeout=budget_s + 120)
    if done.returncode != 0:
        raise RuntimeError(f"GPCNeT on {cluster} failed ({done.returncode}): "
                           f"{done.stderr[-1000:]}{done.stdout[-1000:]}")
    return done.stdout
