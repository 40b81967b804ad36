"""hpcprobe comm --format imb|osu against a hand-built IMB-MPI1 or OSU micro-benchmarks,
on the same MPI and the same binding: per function and size, the median time per call
over interleaved rounds and hpcprobe's as a ratio of the peer's (target: within 5 %).

Both sides are read from their text output with the same regular expressions (the ones
test_comm_peer_formats.py applies), so the ratio compares what the layouts print.

Usage: python comm_peer.py imb|osu PEER ROUNDS NP JSON_OUT
  PEER: the IMB-MPI1 binary (imb) or the directory holding osu_latency, osu_allreduce and
  osu_alltoall (osu). Run from the repository root with the venv's python."""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ra_results import met_text, target_met, target_text, write_json

# (function, message size in bytes): the cases the comparison used.
CASES = (("pingpong", 8), ("pingpong", 1 << 20), ("allreduce", 8), ("allreduce", 1 << 20),
         ("alltoall", 1 << 20))
TARGET = (0.95, 1.05)
IMB_NAMES = {"pingpong": "PingPong", "allreduce": "Allreduce", "alltoall": "Alltoall"}
OSU_PROGRAMS = {"pingpong": "osu_latency", "allreduce": "osu_allreduce",
                "alltoall": "osu_alltoall"}
# OSU 7 reduces MPI_CHAR unless told; hpcprobe's (and IMB's) reductions are MPI_FLOAT sums.
OSU_OPTIONS = {"allreduce": ["-T", "mpi_float"]}
IMB_BLOCK = re.compile(r"^# Benchmarking (\w+)\s*$", re.M)
IMB_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)(?:\s+(\d+\.\d+))?"
                     r"(?:\s+(\d+\.\d+))?$", re.M)
OSU_ROW = re.compile(r"^(\d+)\s+(\d+\.\d+)", re.M)
MPIEXEC = [str(Path(sys.executable).parent / "mpiexec")]
BIND = ["-bind-to", "core"]   # what hpcprobe passes MPICH's hydra for one rank per core


def imb_times(text):
    """{(function, size): µs per call}: t (PingPong) or t_avg (collectives), per block."""
    times, blocks = {}, list(IMB_BLOCK.finditer(text))
    for index, block in enumerate(blocks):
        end = blocks[index + 1].start() if index + 1 < len(blocks) else len(text)
        function = block.group(1).lower()
        for row in IMB_ROW.finditer(text, block.end(), end):
            columns = [c for c in row.groups()[2:] if c is not None]
            # PingPong: t, Mbytes/sec; collectives: t_min, t_max, t_avg.
            value = columns[0] if function == "pingpong" else columns[2]
            times[(function, int(row.group(1)))] = float(value)
    return times


def osu_times(text, function):
    return {(function, int(m.group(1))): float(m.group(2)) for m in OSU_ROW.finditer(text)}


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return done.stdout


def hpcprobe_round(layout, np, out, timing):
    functions = sorted({function for function, _ in CASES})
    sizes = ",".join(str(size) for size in sorted({size for _, size in CASES}))
    text = run([str(Path(sys.executable).parent / "hpcprobe"), "comm", *functions, "--sizes",
                sizes, "--format", layout, "--timing", timing, "--np", str(np),
                "--out", str(out)])
    verdicts = [json.loads(line)["validation"]["verdict"]
                for line in (out / "results.jsonl").read_text().splitlines()]
    if layout == "imb":
        return imb_times(text), verdicts
    times = {}
    for block in text.split("\n\n"):
        match = re.search(r"^# osu_(\w+) layout: hpcprobe comm (\w+)", block, re.M)
        if match:
            times.update(osu_times(block, match.group(2)))
    return times, verdicts


def peer_round(layout, peer, np):
    if layout == "imb":
        with tempfile.NamedTemporaryFile("w", suffix=".msglen", delete=False) as lengths:
            lengths.write("\n".join(str(s) for s in sorted({s for _, s in CASES})) + "\n")
        names = sorted({IMB_NAMES[f] for f, _ in CASES})
        text = run(MPIEXEC + BIND + ["-n", str(np), peer, *names, "-msglen", lengths.name,
                                     "-npmin", str(np)])
        os.unlink(lengths.name)
        return imb_times(text)
    times = {}
    for function, size in CASES:
        program = str(Path(peer, OSU_PROGRAMS[function]))
        text = run(MPIEXEC + BIND + ["-n", str(np), program, "-m", f"{size}:{size}",
                                     *OSU_OPTIONS.get(function, [])])
        times.update({key: value for key, value in osu_times(text, function).items()
                      if key == (function, size)})
    return times


def main():
    layout, peer, rounds, np, json_out = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4]), sys.argv[5]
    # The peer; hpcprobe timed as the peer times; hpcprobe's own policy, for the why.
    sides = ("peer", layout, "hpcprobe")
    times = {side: {case: [] for case in CASES} for side in sides}
    verdicts = []
    with tempfile.TemporaryDirectory() as work:
        for r in range(rounds):  # rotate which goes first
            for side in sides[r % 3:] + sides[:r % 3]:
                if side == "peer":
                    got = peer_round(layout, peer, np)
                else:
                    got, checked = hpcprobe_round(layout, np, Path(work, f"{side}{r}"), side)
                    verdicts += checked
                for case in CASES:
                    times[side][case].append(got[case])
    print(f"{'function':<11}{'bytes':>9}{'peer us':>10}{'as peer us':>12}{'ratio':>8}"
          f"{'met':>5}{'own us':>10}{'own ratio':>11}  target")
    rows = []
    for case in CASES:
        a, b, c = (statistics.median(times[side][case]) for side in sides)
        met = target_met(TARGET, b / a)
        rows.append({"function": case[0], "bytes": case[1], "peer_median_us": a,
                     "hpcprobe_median_us": b, "ratio": b / a, "met": met,
                     "own_policy_median_us": c, "own_policy_ratio": c / a,
                     **{f"{side}_us": times[side][case] for side in sides}})
        print(f"{case[0]:<11}{case[1]:>9}{a:>10.3f}{b:>12.3f}{b / a:>8.3f}{met_text(met):>5}"
              f"{c:>10.3f}{c / a:>11.3f}  {target_text(TARGET)}")
    print(f"ratio: hpcprobe comm --format {layout} (timed as {layout}) / {layout}; own ratio: "
          f"the same with --timing hpcprobe; medians of {rounds} interleaved rounds, {np} ranks")
    print(f"validation: {verdicts.count('passed')} of {len(verdicts)} hpcprobe records passed")
    write_json(json_out, {"layout": layout, "peer": peer, "ranks": np, "rounds": rounds,
                          "rows": rows, "verdicts": verdicts})


if __name__ == "__main__":
    main()
