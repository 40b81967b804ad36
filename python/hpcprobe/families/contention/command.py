"""`hpcprobe contention wocon|wicon|stress-link|equidistant` and `hpcprobe topology
show|route` (docs/kernels/contention.md), and the tables printed from contention records
(also by `hpcprobe show`).

Records are untrusted input: every number is checked before use and every string is shown
as plain text.
"""

import argparse
import json
import os
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from rich.console import RenderableType

from hpcprobe.families.contention.options import (
    CONTENTION_VALUE_OPTIONS,
    TOPOLOGY_VALUE_OPTIONS,
    bench_options,
    network_of,
)
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.launch import find_bench, resolve_launcher
from hpcprobe.launching import LaunchContext, stderr_line, stdout_console
from hpcprobe.families.memory.tables import number, numbers, series_points, titled_table
from hpcprobe.families.contention.network import Network
from hpcprobe.runner import bench_error_lines, stop_process_group
from hpcprobe.show import plain, verdict_text
from hpcprobe.units import MICRO, format_number

Record = Dict[str, Any]
Points = Dict[float, Optional[float]]

CONTENTION_BUDGET_S = 3600.0
TOPOLOGY_BUDGET_S = 120.0
MAX_HOP_COLUMNS = 12
MAX_NODE_ROWS = 4096
_TOPOLOGY_OPTIONS = tuple((attribute, option) for attribute, option, *_ in TOPOLOGY_VALUE_OPTIONS)
_BENCH_OPTIONS = tuple((attribute, option) for attribute, option, *_ in
                       CONTENTION_VALUE_OPTIONS) + _TOPOLOGY_OPTIONS


# --- launching ---------------------------------------------------------------------------

def command_contention(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    context = LaunchContext(args, user_argv, default_np=os.cpu_count() or 1)
    options = bench_options(args, _BENCH_OPTIONS)
    if args.no_verify:
        options.append("--no-verify")
    launch = context.launch("contention", args.variant, options, CONTENTION_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    console = stdout_console()
    for table in contention_tables(outcome.found.records):
        console.print(table)
    return outcome.exit_status


def _topology_json(args: argparse.Namespace) -> Dict[str, Any]:
    """Run `hpcprobe-bench topology show` under the launcher; its one JSON line. The
    bench's own line when it refuses the input is relayed as is (exit status 2)."""
    launcher = resolve_launcher(args.launcher, os.environ)
    program = [find_bench(os.environ), "topology", "show", *bench_options(args, _TOPOLOGY_OPTIONS)]
    argv = launcher.command(args.np or os.cpu_count() or 1, list(args.launcher_arg), program)
    budget = args.time_budget or TOPOLOGY_BUDGET_S
    try:  # its own session, so a hung launch is stopped with every rank it started
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as error:
        raise HpcprobeError(f"cannot start {argv[0]!r}: {error}") from None
    try:
        out, err = process.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        stop_process_group(process)
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
    if args.action == "route":
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


# --- tables ------------------------------------------------------------------------------

def _param(record: Record, name: str) -> Any:
    section = record.get("parameters")
    return section.get(name) if isinstance(section, dict) else None


def _us(value: Optional[float]) -> str:
    return format_number(value, MICRO)


def subject(record: Record) -> str:
    """The topology a record assumed, e.g. "torus 4x4 (row-major), up to 1 rank(s) per node
    (emulated)"."""
    kind, dims = _param(record, "topology_kind"), _param(record, "topology_dims")
    words = [plain(kind) if isinstance(kind, str) else "?"]
    if isinstance(dims, str) and dims:
        words.append(plain(dims))
    source = _param(record, "coordinate_source")
    rpn = number(_param(record, "ranks_per_node"))
    text = " ".join(words) + (f" ({plain(source)})" if isinstance(source, str) else "")
    if rpn is not None:
        text += f", up to {int(rpn)} rank(s) per node"
    if _param(record, "ranks_per_node_source") == "option":
        text += " (emulated)"
    return text


def _title(record: Record, what: str) -> str:
    variant = plain(record.get("variant"))
    pairs = _param(record, "pairs")
    extra = f" ({plain(pairs)} pairs)" if isinstance(pairs, str) else ""
    return f"hpcprobe contention {variant}{extra}: {what}"


def _caption(record: Record, text: str) -> str:
    return f"on {subject(record)}; validation {verdict_text(record)}; {text}"


SUMMARY_HEADINGS = ["bytes", "mean µs", "min µs", "max µs", "(max − min) / min %"]


def summary_rows(record: Record) -> List[List[str]]:
    """Per size: mean, min and max over the pairs of the time per message (µs), and the
    paper's % difference (max − min) / min."""
    mean = series_points(record, "message_time_mean")
    low = series_points(record, "message_time_min")
    high = series_points(record, "message_time_max")
    rows = []
    for size, value in mean.items():
        lo, hi = low.get(size), high.get(size)
        spread = 100 * (hi - lo) / lo if lo and hi is not None else None
        rows.append([str(int(size)), _us(value), _us(lo), _us(hi), format_number(spread)])
    return rows


def summary_table(record: Record) -> RenderableType:
    """Per size: mean, min and max over the pairs of the time per message."""
    rows = summary_rows(record)
    what = ("µs per message over the pairs" if record.get("variant") != "wocon" else
            "one-way µs from rank 0 to each node")
    return titled_table(_title(record, what), _caption(
                            record, "µs: the median over the repetitions; (max − min) / min is "
                            "the paper's % difference (Figures 3-6)"),
                  SUMMARY_HEADINGS, rows)


def pair_curves(record: Record) -> List[Tuple[float, Dict[float, List[float]]]]:
    """(bytes, {hops: [times]}) of each size's pair series (pair_time_b<bytes>, or
    time_by_hops_b<bytes> for runs with many pairs)."""
    curves = []
    for entry in record.get("series") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.startswith(("pair_time_b", "time_by_hops_b")):
            continue
        size = name.rsplit("_b", 1)[1]
        by_hops: Dict[float, List[float]] = {}
        for x, y in zip(_maybe_numbers(entry.get("x")), _maybe_numbers(entry.get("y"))):
            if x is not None and y is not None:
                by_hops.setdefault(x, []).append(y)
        if size.isascii() and size.isdigit():
            curves.append((float(size), by_hops))
    return curves


def _maybe_numbers(values: Any) -> List[Optional[float]]:
    return [number(value) for value in values] if isinstance(values, list) else []


def hops_table(record: Record) -> Optional[RenderableType]:
    """Per size, the mean time of the pairs at each hop count (Figures 3-6)."""
    curves = pair_curves(record)
    hops = sorted({h for _, by in curves for h in by})
    if not curves or len(hops) > MAX_HOP_COLUMNS:
        return None
    rows = [[str(int(size))] + [_us(float(np.mean(by[h]))) if h in by else "—" for h in hops]
            for size, by in curves]
    counts = {h: len(by[h]) for _, by in curves[:1] for h in by}
    caption = "pairs at each hop count: " + ", ".join(
        f"{int(h)} hops: {counts.get(h, 0)}" for h in hops)
    return titled_table(_title(record, "µs per message by hop count"), _caption(record, caption),
                  ["bytes"] + [f"{int(h)} hop(s)" for h in hops], rows)


def numbered_series(record: Record, prefix: str) -> List[Tuple[int, Points]]:
    """(N, x -> y) of the series named prefix + N (middle_pair_time_pairs_N,
    message_time_distance_N), in order of N."""
    found = []
    for entry in record.get("series") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.startswith(prefix) and name[len(prefix):].isascii() \
                and name[len(prefix):].isdigit():
            found.append((int(name[len(prefix):]), series_points(record, name)))
    return sorted(found, key=lambda item: item[0])


def _curves_table(record: Record, prefix: str, heading: str, what: str,
                  caption: str) -> Optional[RenderableType]:
    """Rows: sizes; columns: the series named prefix + N, in order of N."""
    found = numbered_series(record, prefix)
    if not found:
        return None
    sizes = sorted({x for _, points in found for x in points})
    rows = [[str(int(size))] + [_us(points.get(size)) for _, points in found] for size in sizes]
    if prefix.startswith("middle_pair") and len(found) > 1:
        for row, size in zip(rows, sizes):
            alone, crowded = found[0][1].get(size), found[-1][1].get(size)
            row.append(format_number(crowded / alone if alone and crowded else None))
    headings = ["bytes"] + [heading.format(n) for n, _ in found]
    if prefix.startswith("middle_pair") and len(found) > 1:
        headings.append(f"{found[-1][0]} / 1")
    return titled_table(_title(record, what), _caption(record, caption), headings, rows)


def record_tables(record: Record) -> List[RenderableType]:
    if record.get("benchmark") != "contention":
        return []
    variant = record.get("variant")
    if variant == "stress-link":
        table = _curves_table(record, "middle_pair_time_pairs_", "{} pair(s) µs",
                              "the middle pair's µs per message, pairs added around it",
                              "Figure 11: the middle pair's time as pairs around it load the "
                              "middle link; last column: all pairs / alone")
        return [table] if table else []
    if variant == "equidistant":
        table = _curves_table(record, "message_time_distance_", "{} hop(s) µs",
                              "µs per message, pairs n hops apart",
                              "Figure 13: the mean over the pairs, median over repetitions")
        return [table] if table else []
    hops = hops_table(record)
    return [summary_table(record)] + ([hops] if hops is not None else [])


def contention_tables(records: Sequence[Record]) -> List[RenderableType]:
    return [table for record in records for table in record_tables(record)]

