"""`hpcprobe simulate PATTERN` and `hpcprobe simulate --compare RESULTS`: the contention
simulator's prediction for a named network and pattern, or for the network, placement and
pairs a measured contention record assumed, beside what it measured
(docs/kernels/contention.md)."""

import argparse
import json
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from hpcprobe.netsim import patterns
from hpcprobe.netsim.cli import DEFAULT_SIZES
from hpcprobe.errors import EXIT_OK, EXIT_VALIDATION_FAILED, UsageError
from hpcprobe.launching import read_record_inputs, stderr_line, stdout_console
from hpcprobe.records import number
from hpcprobe.records import series_points
from hpcprobe.tables import titled_table
from hpcprobe.cluster.network_text import NetworkText, parse_network_text
from hpcprobe.netsim.network import Network, default_axis
from hpcprobe.netsim.tree import Tree
from hpcprobe.netsim.patterns import Machine, Phase
from hpcprobe.results import shown_problems
from hpcprobe.sanitize import plain
from hpcprobe.netsim.simulate import BGP_LINK_BANDWIDTH, PAPER_FLIT_BYTES, LinkModel, simulate
from hpcprobe.units import MICRO, format_number

Record = Dict[str, Any]


def link_model(args: argparse.Namespace) -> LinkModel:
    return LinkModel(
        BGP_LINK_BANDWIDTH if args.link_bandwidth is None else args.link_bandwidth,
        PAPER_FLIT_BYTES if args.flit_bytes is None else args.flit_bytes,
        args.hop_latency or 0.0, args.uplink_bandwidth)


def cluster_network(record: Record) -> Optional[NetworkText]:
    """The emulated cluster's network a record ran on (metadata.cluster_network)."""
    metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    return parse_network_text(metadata.get("cluster_network"))


def record_link_model(record: Record, args: Optional[argparse.Namespace] = None) -> LinkModel:
    """The link model for a record: its emulated cluster's link rates and per-link delay
    when it ran on one (shaped), else the defaults (BG/P); options given override."""
    given = {name: getattr(args, name, None) for name in
             ("link_bandwidth", "flit_bytes", "hop_latency", "uplink_bandwidth")}
    network = cluster_network(record)
    if network is not None and network.link_bytes_per_s > 0:
        base = LinkModel(network.link_bytes_per_s, PAPER_FLIT_BYTES, network.link_delay_s,
                         network.uplink_bytes_per_s or None)
    else:
        base = LinkModel()
    return LinkModel(
        base.bandwidth if given["link_bandwidth"] is None else given["link_bandwidth"],
        base.flit_bytes if given["flit_bytes"] is None else given["flit_bytes"],
        base.hop_latency_s if given["hop_latency"] is None else given["hop_latency"],
        base.uplink_bandwidth if given["uplink_bandwidth"] is None else given["uplink_bandwidth"])


def _axis(args: argparse.Namespace, network: Network) -> int:
    if args.axis is None:
        return default_axis(network.dims)
    if args.axis >= len(network.dims):
        raise UsageError(f"--axis {args.axis} is not a dimension of {network.spec} (allowed: "
                         f"0..{len(network.dims) - 1})")
    return args.axis


def _distances(args: argparse.Namespace, network: Network, axis: int) -> List[int]:
    size, ring = network.dims[axis], network.rings[axis]
    most = size // 2 if ring else size - 1
    if most == 0:
        raise UsageError(f"equidistant pairs nodes along axis {axis}, which has one node "
                         "(allowed: an axis with 2 or more; see --axis)")
    wanted = args.distance or list(range(1, most + 1))
    if wanted[-1] > most:
        raise UsageError(f"--distance {wanted[-1]} is beyond axis {axis}: no two nodes are more "
                         f"than {most} hops apart along it (allowed: 1..{most})")
    return wanted


def build_phases(args: argparse.Namespace, machine: Machine) -> List[Phase]:
    """The phases of args.pattern on `machine`; UsageError for a pattern that does not
    fit it."""
    network, name = machine.network, args.pattern
    lookahead = args.lookahead or patterns.HPCC_LOOKAHEAD
    try:
        if name == "wocon":
            if network.nodes < 2:
                raise ValueError("wocon measures between nodes: give a network of 2 or more")
            return patterns.wocon(machine)
        if name in ("stress-link", "equidistant", "wicon-nn-torus"):
            axis = _axis(args, network)
            if name == "stress-link":
                if network.dims[axis] < 2:
                    raise ValueError(f"stress-link needs 2 or more nodes along axis {axis}")
                return patterns.stress_link(machine, axis, args.max_pairs)
            if name == "equidistant":
                return patterns.equidistant(machine, axis, _distances(args, network, axis))
            return patterns.wicon_nn_torus(machine, axis)
        simple = {"wicon-nn": lambda: patterns.wicon_nn(machine),
                  "wicon-rnd": lambda: patterns.wicon_rnd(machine, args.seed or 1),
                  "alltoall": lambda: patterns.alltoall(machine),
                  "ra-alltoall": lambda: patterns.ra_alltoall(machine, lookahead),
                  "ra-hypercube": lambda: patterns.ra_hypercube(machine, lookahead),
                  "ra-torus": lambda: patterns.ra_torus(machine, lookahead, args.grid)}
        return simple[name]()
    except ValueError as error:
        raise UsageError(str(error)) from None


def _ranks_per_node(args: argparse.Namespace) -> int:
    text = args.ranks_per_node or "1"
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 1024:
        raise UsageError(f"--ranks-per-node must be a whole number from 1 to 1024, not '{text}'")
    return int(text)


def _us(value: Optional[float]) -> str:
    return format_number(value, MICRO)


def _latency_table(result: Dict[str, Any]) -> Any:
    rows = []
    for row in result["latency"]:
        contended, alone = row.get("mean_s"), row.get("uncontended_mean_s")
        size = "per message" if row["bytes"] is None else str(row["bytes"])
        rows.append([size, _us(contended), _us(row.get("min_s")), _us(row.get("max_s")), _us(alone),
                     format_number(contended / alone if contended and alone else None)])
    title = (f"predicted µs per message (eq. 1, B = {result['link_bandwidth_bytes_per_s']:.4g} "
             f"B/s, L_f = {result['flit_bytes']:g} B, t_hop = {result['hop_latency_s']:g} s)")
    caption = ("mean/min/max over the messages that cross the network; uncontended: each "
               "alone; the ratio is what sharing links costs")
    if result.get("step_time_s") is not None:
        caption += f"; one step of the stages takes {_us(result['step_time_s'])} µs"
    return titled_table(title, caption, ["bytes", "mean µs", "min µs", "max µs",
                                         "uncontended µs", "contended / uncontended"], rows)


def _phase_table(result: Dict[str, Any], sizes: Sequence[int]) -> Any:
    watched = any("watched" in p for p in result["phase_results"])
    rows = []
    for phase in result["phase_results"]:
        cells = [plain(phase["name"]), str(phase["messages"]),
                 format_number(phase["avg_hops"]), str(phase["max_link_load"])]
        if watched:
            cells += [_us(x) for x in phase["watched"]["latency_s"]]
        else:
            cells += [_us(row.get("mean_s")) for row in phase["latency"]]
        rows.append(cells)
    if watched:
        heads = [f"{size} B µs (middle pair)" for size in sizes]
    else:
        heads = [f"{row['bytes']} B mean µs" if row["bytes"] is not None else "mean µs"
                 for row in result["phase_results"][0]["latency"]]
    caption = ("watched: the middle pair's first message (Figure 11)" if watched else
               "mean over the phase's messages that cross the network")
    return titled_table("per phase", caption,
                        ["phase", "messages", "avg hops", "max link load"] + heads, rows)


def print_result(result: Dict[str, Any], sizes: Sequence[int]) -> None:
    console = stdout_console()
    console.print(f"hpcprobe simulate {plain(result['pattern'])} on {plain(result['network'])}, "
                  f"{result['ranks']} ranks on {result['nodes']} nodes; {result['links']} links",
                  highlight=False)
    console.print(f"{result['messages']} messages ({result['network_messages']} cross the "
                  f"network) in {result['phases']} phase(s); hops: mean "
                  f"{format_number(result['avg_hops'])}, max {result['max_hops']}; messages per "
                  f"link: max {result['max_link_load']}, mean "
                  f"{format_number(result['mean_link_load'])}; links used "
                  f"{result['links_used']}; {result['elapsed_s']:.3g} s", highlight=False)
    console.print(_latency_table(result))
    if result.get("phase_results"):
        console.print(_phase_table(result, sizes))


def command_simulate(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if args.compare:
        return command_compare(args)
    machine = Machine.block(args.network, _ranks_per_node(args))
    sizes = args.sizes or list(DEFAULT_SIZES)
    result = simulate(machine, build_phases(args, machine), link_model(args), sizes)
    result = {"pattern": args.pattern, "ranks_per_node": _ranks_per_node(args), **result}
    if args.json:
        print(json.dumps(result))
    else:
        print_result(result, sizes)
    return EXIT_OK


# --- --compare ---------------------------------------------------------------------------

def _ints(record: Record, name: str, length: Optional[int] = None) -> List[int]:
    counters = record.get("counters") if isinstance(record.get("counters"), dict) else {}
    values = counters.get(name)
    if not isinstance(values, list) or any(
            isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise ValueError(f"counters.{name} is missing or not whole numbers")
    if length is not None and len(values) != length:
        raise ValueError(f"counters.{name} has {len(values)} entries, not {length}")
    return values


def _cluster_machine(record: Record, network: NetworkText) -> Optional[Machine]:
    """On an emulated tree or flat switch: the tree, each rank at its node's place (a
    tree's nodes are numbered leaf by leaf, as its (leaf, host) grid is row-major)."""
    if network.kind not in ("tree", "flat"):
        return None
    tree = Tree.of(*network.dims) if network.kind == "tree" else Tree.of(1, network.dims[0])
    ranks = int(number((record.get("layout") or {}).get("ranks")) or 0)
    rank_node = np.array(_ints(record, "rank_node", ranks), dtype=np.int64)
    if rank_node.min(initial=0) < 0 or rank_node.max(initial=0) >= tree.nodes:
        raise ValueError(f"its ranks' nodes are outside the cluster's {tree.spec}")
    return Machine(tree, rank_node, rank_node)


def machine_from_record(record: Record) -> Machine:
    """The network and placement a contention record assumed (on an emulated cluster,
    the cluster's own network). ValueError: why not."""
    network = cluster_network(record)
    machine = _cluster_machine(record, network) if network is not None else None
    if machine is not None:
        return machine
    params = record.get("parameters") if isinstance(record.get("parameters"), dict) else {}
    kind, dims_text = params.get("topology_kind"), params.get("topology_dims")
    if kind not in ("torus", "mesh", "mixed") or not isinstance(dims_text, str):
        raise ValueError(f"its topology is {plain(kind)}: the simulator models tori, meshes "
                         "and the emulated cluster's trees")
    dims = tuple(int(d) for d in dims_text.split("x") if d.isdigit())
    wrap_text = params.get("topology_wrap")
    wrap = tuple(w == "1" for w in wrap_text.split(",")) if isinstance(wrap_text, str) else ()
    if not dims or len(wrap) != len(dims) or math.prod(dims) > (1 << 24):
        raise ValueError(f"its dims '{plain(dims_text)}' and wrap are not a valid grid")
    network = Network(dims, wrap)
    ranks = int(number((record.get("layout") or {}).get("ranks")) or 0)
    rank_node = np.array(_ints(record, "rank_node", ranks), dtype=np.int64)
    nodes = int(rank_node.max()) + 1 if ranks else 0
    coords = np.array(_ints(record, "node_coords", nodes * len(dims)), dtype=np.int64)
    coords = coords.reshape(nodes, len(dims))
    if rank_node.min(initial=0) < 0 or (coords < 0).any() or (coords >= np.array(dims)).any():
        raise ValueError("its ranks' nodes or coordinates are outside the grid")
    return Machine(network, network.index(coords)[rank_node], rank_node)


def phases_from_record(record: Record, machine: Machine) -> List[Tuple[str, Phase, Any]]:
    """(name, phase, the measured series: size -> seconds) of each phase it ran."""
    n = len(_ints(record, "pair_rank_a"))
    a = np.array(_ints(record, "pair_rank_a"), dtype=np.int64)
    b = np.array(_ints(record, "pair_rank_b", n), dtype=np.int64)
    if n and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= machine.ranks):
        raise ValueError("its pairs name ranks outside the run")
    variant = record.get("variant")
    if variant == "wocon":
        return [("wocon", Phase("wocon", a, b, sequential=True),
                 series_points(record, "message_time_mean"))]
    if variant == "wicon":
        return [("wicon", patterns.pair_phase("wicon", a, b),
                 series_points(record, "message_time_mean"))]
    group = np.array(_ints(record, "pair_phase", n), dtype=np.int64)
    found = []
    for value in sorted(set(group.tolist())):
        if variant == "stress-link":
            keep = group <= value
            name, measured = f"{value} pair(s)", f"middle_pair_time_pairs_{value}"
        else:
            keep = group == value
            name, measured = f"distance {value}", f"message_time_distance_{value}"
        phase = patterns.pair_phase(name, a[keep], b[keep], watch=0 if variant == "stress-link"
                                    else None)
        found.append((name, phase, series_points(record, measured)))
    return found


def compare_record(record: Record, model: LinkModel) -> Dict[str, Any]:
    """Measured beside predicted, per phase and size, with `model` (record_link_model)."""
    machine = machine_from_record(record)
    rows = []
    for name, phase, measured in phases_from_record(record, machine):
        sizes = [int(x) for x in measured] or list(DEFAULT_SIZES)
        result = simulate(machine, [phase], model, sizes)
        predicted = (result["phase_results"][0]["watched"]["latency_s"]
                     if phase.watch is not None and result.get("phase_results") else
                     [row["mean_s"] for row in result["latency"]])
        for size, guess in zip(sizes, predicted):
            rows.append({"phase": name, "bytes": size, "measured_s": measured.get(float(size)),
                         "predicted_s": guess, "avg_hops": result["avg_hops"],
                         "max_link_load": result["max_link_load"]})
    return {"benchmark": "contention", "variant": record.get("variant"),
            "started_at": record.get("started_at"), "network": machine.network.spec,
            "link_bandwidth_bytes_per_s": model.bandwidth,
            "uplink_bandwidth_bytes_per_s": model.uplink_bandwidth,
            "flit_bytes": model.flit_bytes, "hop_latency_s": model.hop_latency_s, "rows": rows}


def command_compare(args: argparse.Namespace) -> int:
    found, unreadable = read_record_inputs(args.compare)
    for problem in shown_problems(found):
        stderr_line(problem)
    compared = []
    for record in found.records:
        if record.get("benchmark") != "contention":
            continue
        try:
            compared.append(compare_record(record, record_link_model(record, args)))
        except ValueError as error:
            stderr_line(f"hpcprobe: no prediction for contention {plain(record.get('variant'))} "
                        f"of {plain(record.get('started_at'))}: {error}")
    if args.json:
        print(json.dumps({"records": compared}))
    else:
        for item in compared:
            stdout_console().print(_compare_table(item))
    if unreadable:
        return 2
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK


def _compare_table(item: Dict[str, Any]) -> Any:
    rows = []
    for row in item["rows"]:
        measured, predicted = row["measured_s"], row["predicted_s"]
        rows.append([plain(row["phase"]), str(row["bytes"]), format_number(row["avg_hops"]),
                     str(row["max_link_load"]), _us(measured), _us(predicted),
                     format_number(measured / predicted if measured and predicted else None)])
    title = (f"hpcprobe simulate --compare: contention {plain(item['variant'])} of "
             f"{plain(item['started_at'])} on {item['network']}")
    uplink = item["uplink_bandwidth_bytes_per_s"]
    caption = (f"predicted: eq. 1 with B = {item['link_bandwidth_bytes_per_s']:.4g} B/s"
               + (f", uplinks {uplink:.4g} B/s" if uplink else "")
               + f", L_f = {item['flit_bytes']:g} B, t_hop = {item['hop_latency_s']:.3g} s, "
               "each link's bandwidth shared by its messages; measured: the benchmark's time "
               "per message (wocon: one way; the others: a burst each way / messages)")
    return titled_table(title, caption, ["phase", "bytes", "avg hops", "max link load",
                                         "measured µs", "predicted µs", "measured / predicted"],
                        rows)

