"""`hpcprobe simulate congestion` and the congestion records of `simulate --compare`:
the shared network simulator's command line (netsim/cli.py, netsim/report.py: the parser,
checks and command contention's patterns use) with the congestion pattern added. The model
is model.py's."""

import argparse
import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from hpcprobe import describe
from hpcprobe.cli_described import add_option
from hpcprobe.cli_grammars import parse_size
from hpcprobe.cli_types import CliParser
from hpcprobe.cluster.network_text import NetworkText, network_text
from hpcprobe.cluster.store import load_cluster
from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.families.congestion.cif import CONGESTORS, cif_row, conditions_of
from hpcprobe.families.congestion.model import Prediction, predict, rank_roles, roles_summary
from hpcprobe.families.congestion.options import FAMILY
from hpcprobe.netsim import cli as contention_options
from hpcprobe.netsim.network import Network
from hpcprobe.netsim.patterns import Machine
from hpcprobe.netsim.simulate import PAPER_FLIT_BYTES, LinkModel
from hpcprobe.netsim.report import (cluster_network, command_simulate as
                                                          contention_simulate, link_model,
                                                          record_link_model)
from hpcprobe.netsim.tree import Tree
from hpcprobe.tables import titled_table
from hpcprobe.launching import read_record_inputs, stdout_console
from hpcprobe.report.common import parameter, section_of
from hpcprobe.sanitize import plain
from hpcprobe.records import number, numbers
from hpcprobe.units import format_number

PATTERN = "congestion"
# The bench's congestion options that are the model's inputs, by attribute: their flags,
# help, grammar and defaults are the bench's description (describe.py).
_MODELLED = ("congestor", "congestor_fraction", "bandwidth_bytes")
# The simulator's options (netsim/cli.py) the congestion model does not read.
_NOT_MODELLED = ("sizes", "axis", "distance", "max_pairs", "lookahead", "grid", "coords")
_HOST_NUMBER = re.compile(r".*-h([0-9]{1,6})")


def _modelled() -> List[describe.Option]:
    family = describe.family(FAMILY)
    return [family.option(dest) for dest in _MODELLED]


def add_simulate_parser(subparsers) -> CliParser:
    parser = contention_options.add_simulate_parser(subparsers, extra_patterns=(PATTERN,))
    parser.add_argument("--cluster", metavar="NAME",
                        help="congestion: the emulated cluster NAME's network and link rates")
    for option in _modelled():
        add_option(parser, describe.family(FAMILY), option, prefix="congestion: ")
    return parser


def check_simulate(args: argparse.Namespace) -> None:
    own = [("cluster", "--cluster")] + [(o.dest, o.name) for o in _modelled()]
    if args.pattern != PATTERN:
        for attribute, option in own:
            if getattr(args, attribute) is not None:
                raise UsageError(f"{option} applies to 'hpcprobe simulate congestion' only")
        contention_options.check_simulate(args)
        return
    refused = [(dest, contention_options.option_name(dest)) for dest in _NOT_MODELLED]
    for attribute, option in refused + [("compare", "--compare")]:
        if getattr(args, attribute) is not None:
            raise UsageError(f"{option} does not apply to 'hpcprobe simulate congestion' "
                             "(allowed: --torus/--mesh/--tree or --cluster, --ranks-per-node, "
                             f"{', '.join(name for _, name in own[1:])}, --seed, and the link "
                             "model)")
    if args.congestor == "none":
        raise UsageError("--congestor none leaves nothing to predict for 'hpcprobe simulate "
                         "congestion' (name congestors, or leave it out for all)")
    given = [o for o in ("torus", "mesh", "tree") if getattr(args, o)]
    if bool(args.cluster) == bool(given):
        raise UsageError("'hpcprobe simulate congestion' needs the network: --torus DIMS, "
                         "--mesh DIMS, --tree LxH, or --cluster NAME (one of them)")


def _model_inputs(args: argparse.Namespace) -> Tuple[List[str], float, int]:
    """(congestors, fraction, bandwidth canary bytes): as given, else the bench's defaults."""
    congestor, fraction, size = _modelled()
    names = args.congestor or congestor.default or "all"
    congestors = list(congestor.choices or ()) if names == "all" else names.split(",")
    return (congestors, float(args.congestor_fraction or fraction.default or 0),
            parse_size(args.bandwidth_bytes or size.default or "") or 0)


def _default_bandwidth_bytes() -> int:
    return parse_size(describe.family(FAMILY).option("bandwidth_bytes").default or "") or 0


def _cluster_network(name: str) -> NetworkText:
    try:
        return network_text(load_cluster(name))
    except (OSError, ValueError) as error:
        raise UsageError(f"--cluster {name}: {error}") from None


def network_of_text(text: NetworkText) -> Network:
    if text.kind == "tree":
        return Tree.of(*text.dims)
    if text.kind == "flat":
        return Tree.of(1, text.dims[0])
    return Network(tuple(text.dims), tuple([text.kind == "torus"] * len(text.dims)))


def _model_of_text(text: NetworkText, args: argparse.Namespace) -> LinkModel:
    if text.link_bytes_per_s <= 0:
        raise UsageError("the cluster's links are not shaped: give --link-bandwidth")
    return LinkModel(args.link_bandwidth or text.link_bytes_per_s,
                     args.flit_bytes if args.flit_bytes is not None else PAPER_FLIT_BYTES,
                     args.hop_latency if args.hop_latency is not None else text.link_delay_s,
                     args.uplink_bandwidth or text.uplink_bytes_per_s)


def _prediction_table(title: str, predictions: Sequence[Prediction],
                      measured: Optional[Dict[str, Any]] = None) -> Any:
    rows = []
    for p in predictions:
        row = [p.congestor, str(p.max_link_load), format_number(p.isolated_s * 1e6),
               format_number(p.congested_s * 1e6), f"{p.cif:.3f}"]
        if measured is not None:
            got = measured.get(p.congestor)
            row += [f"{got:.3f}" if got else "—",
                    format_number(got / p.cif if got and p.cif else None)]
        rows.append(row)
    headings = ["congestor", "most flows on a link", "alone µs", "beside µs", "predicted CIF"]
    if measured is not None:
        headings += ["measured CIF", "measured / predicted"]
    caption = ("bandwidth canary: eq. 1 per ring message at its max-min fair rate among every "
               "flow on its links; a sample waits for its message out and in")
    return titled_table(title, caption, headings, rows)


def simulate_congestion(args: argparse.Namespace) -> int:
    if args.cluster:
        text = _cluster_network(args.cluster)
        network, model = network_of_text(text), _model_of_text(text, args)
    else:
        network, model = contention_options.network_of(args), link_model(args)
    per_node = int(args.ranks_per_node or 1)
    machine = Machine.block(network, per_node)
    congestors, fraction, bandwidth_bytes = _model_inputs(args)
    try:
        roles = rank_roles(machine, fraction)
    except ValueError as error:
        raise UsageError(str(error)) from None
    found = predict(machine, roles, congestors, args.seed if args.seed is not None else 1, model,
                    bandwidth_bytes)
    result = {"pattern": PATTERN, "network": network.spec, "ranks": machine.ranks,
              **roles_summary(roles, machine), "link_bandwidth_bytes_per_s": model.bandwidth,
              "uplink_bandwidth_bytes_per_s": model.uplink_bandwidth,
              "predictions": [{"congestor": p.congestor, "cif": p.cif,
                               "isolated_s": p.isolated_s, "congested_s": p.congested_s,
                               "max_link_load": p.max_link_load} for p in found]}
    if args.json:
        print(json.dumps(result))
        return EXIT_OK
    stdout_console().print(_prediction_table(
        f"hpcprobe simulate congestion on {network.spec}: {result['canary_ranks']} canary and "
        f"{result['congestor_ranks']} congestor ranks", found))
    return EXIT_OK


# --- --compare ---------------------------------------------------------------------------

def _counter_ints(record: Dict[str, Any], name: str) -> List[int]:
    return [int(v) for v in numbers(section_of(record, "counters").get(name))]


def _record_machine(record: Dict[str, Any], text: NetworkText) -> Machine:
    """Each rank at its host's place: hosts of an emulated cluster are NAME-h<index>."""
    network = network_of_text(text)
    hosts = section_of(record, "metadata").get("hosts")
    hosts = hosts if isinstance(hosts, list) else []
    places = []
    for host in hosts:
        match = _HOST_NUMBER.fullmatch(host) if isinstance(host, str) else None
        if match is None or int(match.group(1)) >= network.nodes:
            raise ValueError(f"host {plain(host)} is not one of the cluster's NAME-h<index>")
        places.append(int(match.group(1)))
    rank_node = _counter_ints(record, "rank_node")
    if not rank_node or max(rank_node) >= len(places) or min(rank_node) < 0:
        raise ValueError("counters.rank_node is missing or names no host of the record")
    position = np.array([places[n] for n in rank_node], dtype=np.int64)
    return Machine(network, position, np.array(rank_node, dtype=np.int64))


def compare_congestion(record: Dict[str, Any], args: argparse.Namespace) -> Dict[str, Any]:
    text = cluster_network(record)
    if text is None:
        raise ValueError("it did not run on an emulated cluster (no metadata.cluster_network)")
    machine = _record_machine(record, text)
    roles = np.array(_counter_ints(record, "rank_congestor"), dtype=np.int64)
    if len(roles) != machine.ranks or set(roles.tolist()) != {0, 1}:
        raise ValueError("counters.rank_congestor is missing or does not give both roles")
    seed = int(number(parameter(record, "seed")) or 0)
    size = number(parameter(record, "bandwidth_bytes")) or _default_bandwidth_bytes()
    congestors = [c for c in conditions_of(record) if c in CONGESTORS]
    model = record_link_model(record, args)
    found = predict(machine, roles, congestors, seed, model, size)
    measured = {c: cif_row(record, "bandwidth", c).cif_mean for c in congestors}
    return {"started_at": record.get("started_at"), "network": machine.network.spec,
            "predictions": found, "measured": measured}


def _compare(args: argparse.Namespace) -> int:
    found, _ = read_record_inputs(args.compare)
    results = []
    for record in found.records:
        if record.get("benchmark") != PATTERN:
            continue
        try:
            results.append(compare_congestion(record, args))
        except ValueError as error:
            stdout_console().print(f"no prediction for the congestion record of "
                                   f"{plain(record.get('started_at'))}: {plain(str(error))}",
                                   highlight=False)
    for item in results:
        if args.json:
            print(json.dumps({"benchmark": PATTERN, "started_at": item["started_at"],
                              "network": item["network"], "measured_cif": item["measured"],
                              "predicted_cif": {p.congestor: p.cif for p in item["predictions"]}}))
        else:
            stdout_console().print(_prediction_table(
                f"hpcprobe simulate --compare: congestion of {plain(item['started_at'])} on "
                f"{item['network']}", item["predictions"], item["measured"]))
    if any(r.get("benchmark") != PATTERN for r in found.records) or not results:
        return contention_simulate(args, [])
    return EXIT_OK


def command_simulate(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if args.compare:
        return _compare(args)
    if args.pattern == PATTERN:
        return simulate_congestion(args)
    return contention_simulate(args, user_argv)
