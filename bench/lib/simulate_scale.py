"""bench/simulate_scale: times of the contention simulator (docs/benchmarks.md)."""

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter

import numpy as np

from hpcprobe.netsim import patterns
from hpcprobe.netsim.network import make_network
from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.routing import link_ends, link_loads
from hpcprobe.netsim.simulate import LinkModel, simulate

TORI = ("8x8x8", "16x16x16", "32x32x32", "64x32x32")
RANKS_PER_NODE = 4


def timed(function, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), times, result


def one_torus(dims, runs):
    machine = Machine.block(make_network("torus", dims), RANKS_PER_NODE)

    def run():
        return simulate(machine, patterns.wicon_rnd(machine, seed=1), LinkModel())
    seconds, times, result = timed(run, runs)
    return {"torus": dims, "nodes": result["nodes"], "messages": result["messages"],
            "median_s": seconds, "runs_s": times, "nodes_per_s": result["nodes"] / seconds,
            "messages_per_s": result["messages"] / seconds, "avg_hops": result["avg_hops"],
            "max_link_load": result["max_link_load"], "mean_link_load": result["mean_link_load"]}


def walked(network, src, dst):
    counts = Counter()
    for a, b in zip(src.tolist(), dst.tolist()):
        path = network.route(a, b)
        counts.update(zip(path, path[1:]))
    return counts


def peer(runs):
    """The vectorised loads against walking every route, on the paper's 8^3 example."""
    machine = Machine.block(make_network("torus", "8x8x8"), RANKS_PER_NODE)
    (phase,) = patterns.wicon_rnd(machine, seed=1)
    src, dst = machine.rank_position[phase.src], machine.rank_position[phase.dst]
    network = machine.network
    fast, _, loads = timed(lambda: link_loads(network, src, dst), runs)
    slow, _, counts = timed(lambda: walked(network, src, dst), max(1, runs // 2))
    valid, start, end = link_ends(network)
    mine = Counter({(int(start[i]), int(end[i])): int(loads[i])
                    for i in zip(*np.nonzero(loads))})
    return {"messages": int(len(src)), "vectorised_s": fast, "walked_s": slow,
            "speedup": slow / fast, "same_loads": mine == counts}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = [one_torus(dims, args.runs) for dims in TORI]
    first, last = rows[0], rows[-1]
    exponent = math.log(last["median_s"] / first["median_s"]) / math.log(
        last["messages"] / first["messages"])
    print(f"{'torus':>10} {'nodes':>7} {'messages':>9} {'median s':>9} {'nodes/s':>10} "
          f"{'msgs/s':>10} {'time x':>7} {'msgs x':>7} {'avg hops':>8} {'max load':>8}")
    for previous, row in zip([None] + rows, rows):
        grow = row["median_s"] / previous["median_s"] if previous else 1.0
        more = row["messages"] / previous["messages"] if previous else 1.0
        print(f"{row['torus']:>10} {row['nodes']:>7} {row['messages']:>9} "
              f"{row['median_s']:>9.4f} {row['nodes_per_s']:>10.3g} {row['messages_per_s']:>10.3g} "
              f"{grow:>7.2f} {more:>7.1f} {row['avg_hops']:>8.2f} {row['max_link_load']:>8}")
    print(f"time grows as messages^{exponent:.2f} from {first['torus']} to {last['torus']} "
          "(1 = linear)")
    check = peer(args.runs)
    print(f"peer, {check['messages']} messages on 8x8x8: vectorised {check['vectorised_s']:.4f} s, "
          f"every route walked in Python {check['walked_s']:.3f} s: {check['speedup']:.0f}x; "
          f"same loads on every link: {check['same_loads']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump({"rows": rows, "exponent": exponent, "peer": check}, stream, indent=1)
        print(f"raw numbers: {args.json}")
    return 0 if check["same_loads"] and last["median_s"] < 60 else 1


if __name__ == "__main__":
    sys.exit(main())
