"""`hpcprobe contention wocon|wicon|stress-link|equidistant` and `hpcprobe topology
show|route` (docs/kernels/contention.md); the tables of the records are tables.py's.

Records are untrusted input: every number is checked before use and every string is shown
as plain text.
"""

import argparse
import json
import os
import subprocess
from typing import Any, Dict, List, Sequence

import numpy as np

from hpcprobe import describe
from hpcprobe.families.contention.options import (ROUTE, contention_bench_options,
                                                  topology_bench_options)
from hpcprobe.netsim.cli import network_of
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.launch import find_bench
from hpcprobe.launching import LaunchContext, choose_launcher, stderr_line, stdout_console
from hpcprobe.output_files import write_text_atomically
from hpcprobe.cluster import ClusterLauncher
from hpcprobe.records import number, numbers
from hpcprobe.tables import titled_table
from hpcprobe.netsim.network import Network
from hpcprobe.families.contention.tables import contention_tables
from hpcprobe.runner import bench_error_lines, stop_launch
from hpcprobe.sanitize import plain
from hpcprobe.signals import StopSignal
from hpcprobe.launch.limits import allocation_cores

Record = Dict[str, Any]

CONTENTION_BUDGET_S = 3600.0
TOPOLOGY_BUDGET_S = 120.0
MAX_NODE_ROWS = 4096


# --- launching ---------------------------------------------------------------------------

def command_contention(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=allocation_cores(os.environ))
    options = contention_bench_options(args)
    launch = context.launch("contention", args.variant,
                            options + _cluster_topology(context, args), CONTENTION_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    console = stdout_console()
    for table in contention_tables(outcome.found.records):
        console.print(table)
    return outcome.exit_status


def _cluster_topology(context: LaunchContext, args: argparse.Namespace) -> List[str]:
    """On an emulated torus or mesh, the network and each rank's coordinates come from
    the cluster (a coordinates file in the output directory), unless given. A tree's
    hosts sit on its (leaf, host) grid, given as a mesh: the pairings then take their
    axes from it (axis 0 across leaves, 1 within one), and the record's
    `cluster_network` says it was a tree, for `simulate --compare`."""
    launcher = context.launcher
    family = describe.family("contention")
    network = {kind: family.option(kind) for kind in ("torus", "mesh")}
    coords = family.option("coords")
    if not isinstance(launcher, ClusterLauncher) or any(
            getattr(args, option.dest, None) for option in (*network.values(), coords)):
        return []
    topology = launcher.cluster.topology
    if not topology.grid and topology.kind != "tree":
        return []
    axes = "xyzuvwst"[:len(topology.dims)]
    lines = ["rank," + ",".join(axes)] + [
        f"{rank}," + ",".join(map(str, host.coordinates))
        for rank, host in enumerate(launcher.rank_hosts(context.np))]
    path = context.out_dir / "cluster.coords"
    write_text_atomically(path, "\n".join(lines) + "\n")
    kind = "mesh" if topology.kind == "tree" else topology.kind
    return [network[kind].name, "x".join(map(str, topology.dims)), coords.name, str(path)]


def _topology_json(args: argparse.Namespace) -> Dict[str, Any]:
    """Run `hpcprobe-bench topology show` under the launcher; its one JSON line. The
    bench's own line when it refuses the input is relayed as is (exit status 2)."""
    launcher = choose_launcher(args)
    program = [find_bench(os.environ), "topology", args.action, *topology_bench_options(args)]
    np_default = allocation_cores(os.environ)
    env = dict(os.environ)
    if isinstance(launcher, ClusterLauncher):
        np_default = launcher.default_np
        env.update(launcher.env)
    argv = launcher.command(args.np or np_default, list(args.launcher_arg), program)
    budget = args.time_budget or TOPOLOGY_BUDGET_S
    try:  # its own session, so a hung launch is stopped with every rank it started
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True, env=env)
    except OSError as error:
        raise HpcprobeError(f"cannot start {argv[0]!r}: {error}") from None
    try:
        out, err = process.communicate(timeout=budget)
    except (StopSignal, KeyboardInterrupt):
        stop_launch(process)
        raise
    except subprocess.TimeoutExpired:
        stop_launch(process)
        process.communicate()
        raise HpcprobeError(f"'hpcprobe-bench topology show' did not finish in {budget:g} s "
                            "and was stopped (hung rank?)") from None
    lines = bench_error_lines(err.decode("utf-8", "replace").splitlines())
    if process.returncode == EXIT_BAD_INPUT and lines:
        raise RelayedError(lines[0], EXIT_BAD_INPUT)
    if process.returncode != EXIT_OK:
        raise HpcprobeError(f"'hpcprobe-bench topology show' failed (exit status "
                            f"{process.returncode}): {lines[0] if lines else 'no message'}",
                            EXIT_RUNTIME_FAILURE)
    found = [line for line in out.decode("utf-8", "replace").splitlines()
             if line.startswith("{")]
    try:
        info = json.loads(found[-1])
    except (IndexError, ValueError):
        info = None
    if not isinstance(info, dict):
        raise HpcprobeError("'hpcprobe-bench topology show' printed no JSON object")
    return info


def _node_rows(info: Dict[str, Any]) -> List[List[str]]:
    ranks = [int(n) for n in numbers(info.get("rank_node"))]
    coords = info.get("node_coords") if isinstance(info.get("node_coords"), list) else []
    hosts = info.get("node_hosts") if isinstance(info.get("node_hosts"), list) else []
    places = info.get("node_addresses") if isinstance(info.get("node_addresses"), list) else []
    nodes = int(number(info.get("nodes")) or 0)
    rows = []
    for node in range(min(nodes, MAX_NODE_ROWS)):
        where = places[node] if node < len(places) else (
            ",".join(str(int(c)) for c in numbers(coords[node])) if node < len(coords) else "—")
        members = [r for r, n in enumerate(ranks) if n == node]
        listed = ", ".join(map(str, members[:8])) + (" …" if len(members) > 8 else "")
        rows.append([str(node), plain(hosts[node]) if node < len(hosts) else "—", where,
                     f"{len(members)}: {listed}"])
    return rows


class RelayedError(HpcprobeError):
    """The bench's own one-line refusal, to be shown as it is."""


def command_topology(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if args.action == ROUTE:
        return command_route(args)
    try:
        info = _topology_json(args)
    except RelayedError as error:
        stderr_line(error.message)
        return error.exit_status
    if args.json:
        print(json.dumps(info))
        return EXIT_OK
    dims = plain(info.get("dims_text") or "")
    title = (f"hpcprobe topology show: {plain(info.get('kind'))} {dims}".rstrip()
             + f", {info.get('nodes')} node(s), {info.get('ranks')} rank(s), up to "
             f"{info.get('ranks_per_node')} per node ({plain(info.get('ranks_per_node_source'))})")
    caption = (f"coordinates: {plain(info.get('coordinate_source'))}"
               + (f" {plain(info.get('coordinate_file'))}" if info.get("coordinate_file") else "")
               + ("; dims inferred from the largest coordinates" if info.get("dims_inferred")
                  else "")
               + (f"; wraparound per dimension {info.get('wrap')}" if info.get("wrap") else ""))
    where = "switch path" if info.get("kind") == "tree" else "coordinates"
    stdout_console().print(titled_table(title, caption, ["node", "host", where, "ranks"],
                                  _node_rows(info)))
    return EXIT_OK


def _node(text: str, network: Network) -> int:
    """A node index, or coordinates x,y,... inside the network."""
    words = text.split(",")
    try:
        values = [int(word) for word in words]
    except ValueError:
        values = []
    if len(values) == 1 and 0 <= values[0] < network.nodes:
        return values[0]
    if len(values) == len(network.dims) and all(0 <= v < d for v, d in zip(values, network.dims)):
        return int(network.index(np.array([values]))[0])
    raise UsageError(f"node '{text}' is not in {network.spec} (allowed: an index "
                     f"0..{network.nodes - 1} or coordinates such as "
                     f"{','.join(['0'] * len(network.dims))})")


def command_route(args: argparse.Namespace) -> int:
    network = network_of(args)
    a, b = (_node(text, network) for text in args.ends)
    path = network.route(a, b)
    coords = [network.coords(np.array([n]))[0].tolist() for n in path]
    steps = network.offsets(np.array([a]), np.array([b]))[0].tolist()
    result = {"network": network.spec, "from": a, "to": b, "hops": len(path) - 1,
              "steps": steps, "route": coords}
    if args.json:
        print(json.dumps(result))
        return EXIT_OK
    text = " → ".join("(" + ",".join(map(str, c)) + ")" for c in coords)
    print(f"{network.spec}: node {a} → node {b}: {len(path) - 1} hop(s), steps per dimension "
          f"{steps} (dimension order, the short way round)")
    print(f"route: {text}")
    return EXIT_OK
