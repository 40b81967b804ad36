"""The `hpcprobe cluster` commands (up, down, show, list, fault, exec): their parsers,
checks and what they print. `hpcprobe launch` and `cluster exec` run in run.py."""

import argparse
import json
import os
from typing import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hpcprobe.cli_types import CliParser, choice, positive_int
import hpcprobe.cluster.system as system
from hpcprobe.cluster.build import cluster_down, cluster_up
from hpcprobe.cluster.faults import (FAULT_WORDS, HOST_FAULT_WORDS, apply_fault,
                                     apply_host_fault, host_capacity, parse_fault,
                                     parse_host_fault)
from hpcprobe.cluster.model import Cluster, Host, Link
from hpcprobe.cluster.run import check_exec, command_exec
from hpcprobe.cluster.spec import (ClusterRequest, check_name, check_request, parse_delay,
                                   parse_rate, parse_topology)
from hpcprobe.cluster.store import cluster_file, cluster_names, load_cluster, read_cluster
from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.units import GIGA, KILO, MEGA, format_quantity

ACTIONS = ("up", "down", "show", "list", "fault", "exec")
FORMATS = ("table", "json")
DEFAULT_LINK_RATE = "1gbit"


def _add_up(actions) -> None:
    up = actions.add_parser("up", help="make an emulated cluster")
    up.add_argument("--name", required=True, type=check_name)
    up.add_argument("--nodes", required=True, type=positive_int("--nodes"), metavar="N")
    up.add_argument("--topology", default=parse_topology("flat"), type=parse_topology,
                    metavar="flat|tree:LxH|torus:AxB[xC]|mesh:AxB[xC]")
    up.add_argument("--link-rate", default=parse_rate("--link-rate", DEFAULT_LINK_RATE),
                    type=lambda text: parse_rate("--link-rate", text), metavar="RATE",
                    help=f"every host link (tc units: 400mbit, 1gbit …; default "
                         f"{DEFAULT_LINK_RATE})")
    up.add_argument("--link-delay", default=0.0, metavar="T",
                    type=lambda text: parse_delay("--link-delay", text),
                    help="added to every link, each way (20us, 1ms; needs netem; default 0)")
    up.add_argument("--uplink-rate", type=lambda text: parse_rate("--uplink-rate", text),
                    metavar="RATE", help="tree: each leaf's one uplink (default: --link-rate)")
    up.add_argument("--cores-per-node", type=positive_int("--cores-per-node"), metavar="K",
                    help="ranks per host by default (default: this machine's CPUs / N)")
    up.add_argument("--slurm", action="store_true",
                    help="also start Slurm: slurmctld on the head, a slurmd in every host "
                         "(Debian's slurm-wlm and munge)")


def _add_exec(actions) -> None:
    run = actions.add_parser("exec", help="run a command on the cluster's head (its login "
                                          "node) or one host, with its MPI and Slurm settings")
    run.add_argument("--name", required=True, type=check_name)
    run.add_argument("--host", metavar="HOST",
                     help="h0, NAME-h0 or a node id (default: the head)")
    run.add_argument("exec_command", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")


def add_cluster_parser(subparsers) -> CliParser:
    cluster = subparsers.add_parser("cluster", help="an emulated cluster of hosts "
                                    "(network namespaces, shaped links)")
    actions = cluster.add_subparsers(dest="cluster_action", parser_class=CliParser,
                                     metavar="|".join(ACTIONS))
    _add_up(actions)
    _add_exec(actions)
    down = actions.add_parser("down", help="remove a cluster and everything on it")
    down.add_argument("--name", required=True, type=check_name)
    show = actions.add_parser("show", help="print a cluster's description")
    show.add_argument("--name", required=True, type=check_name)
    show.add_argument("--format", default="table", type=choice("format", FORMATS))
    listing = actions.add_parser("list", help="the clusters there are")
    listing.add_argument("--format", default="table", type=choice("format", FORMATS))
    fault = actions.add_parser("fault", help="take a link down or up, degrade it, or "
                                             "throttle a host's CPU")
    fault.add_argument("--name", required=True, type=check_name)
    fault.add_argument("--link", metavar="A-B",
                       help="a link as 'cluster show' names it (h0-sw, leaf0-root, h0-h1)")
    fault.add_argument("--host", metavar="HOST", help="a host: h0, NAME-h0 or a node id")
    fault.add_argument("fault", nargs="+",
                       metavar="|".join(dict.fromkeys(FAULT_WORDS + HOST_FAULT_WORDS)))
    return cluster


def check_cluster(args: argparse.Namespace) -> None:
    """Everything about the input, before anything is made."""
    if args.cluster_action is None:
        raise UsageError(f"missing action for 'hpcprobe cluster' (allowed: "
                         f"{', '.join(ACTIONS)})")
    if args.cluster_action == "up":
        nodes = args.nodes
        args.request = check_request(ClusterRequest(
            name=args.name, nodes=nodes, topology=args.topology,
            link_rate_bit_per_s=args.link_rate, link_delay_s=args.link_delay,
            uplink_rate_bit_per_s=args.uplink_rate or args.link_rate,
            cores_per_node=args.cores_per_node or max(1, len(os.sched_getaffinity(0)) // nodes),
            slurm=args.slurm,
        ), uplink_given=args.uplink_rate is not None)
    if args.cluster_action == "fault":
        if (args.link is None) == (args.host is None):
            raise UsageError("cluster fault takes one of --link A-B (down, up, loss P%, "
                             "delay T, rate R) or --host H (cpu F, up)")
        parse = parse_fault if args.host is None else parse_host_fault
        args.parsed_fault = parse(args.fault)
    if args.cluster_action == "exec":
        check_exec(args)


def rate_text(rate_bit_per_s: float) -> str:
    """4e8 -> "400 Mbit/s": links are given in bits per second, as tc takes them."""
    for divisor, label in ((GIGA, "Gbit/s"), (MEGA, "Mbit/s"), (KILO, "kbit/s")):
        if rate_bit_per_s >= divisor:
            return f"{rate_bit_per_s / divisor:g} {label}"
    return f"{rate_bit_per_s:g} bit/s"


def _rate(link: Link) -> str:
    return "unshaped" if link.rate_bit_per_s is None else rate_text(link.rate_bit_per_s)


def _fault_text(link: Link) -> str:
    fault = link.fault
    words = (["down"] if fault.down else []) + (
        [f"loss {fault.loss_fraction * 100:g}%"] if fault.loss_fraction else []) + (
        [f"delay {format_quantity(fault.delay_s, 's')}"] if fault.delay_s is not None else []) + (
        [f"rate {rate_text(fault.rate_bit_per_s)}"] if fault.rate_bit_per_s is not None
        else [])
    return ", ".join(words)


def _hosts_table(cluster: Cluster) -> Table:
    table = Table(title=f"cluster {cluster.name}: {cluster.topology}, {len(cluster.hosts)} "
                  f"hosts, subnet {cluster.subnet}, {cluster.status}")
    for column in ("host", "name", "node", "address", "coordinates", "cores", "cpus",
                   "namespace", "holder", "fault"):
        table.add_column(column)
    for host in [*cluster.hosts, cluster.head]:
        alive = "" if system.holder_alive(host) else " (gone)"
        table.add_row(*(Text(str(value)) for value in (
            host.id, host.name, host.node_id if host.node_id >= 0 else "",
            host.address, ",".join(map(str, host.coordinates)),
            host.cores if host.node_id >= 0 else "",
            ",".join(map(str, host.cpus)) or "all", host.namespace,
            f"{host.holder_pid}{alive}",
            f"cpu {host.cpu_fraction:g}" if host.cpu_fraction < 1 else "")))
    return table


def _links_table(cluster: Cluster) -> Table:
    table = Table(title=f"links of {cluster.name} (each way; shaped on both ends)")
    for column in ("link", "kind", "rate", "delay", "ends", "fault"):
        table.add_column(column)
    for link in cluster.links:
        ends = "  ".join(f"{end.namespace}:{end.interface}" for end in link.ends)
        table.add_row(*(Text(value) for value in (
            link.id, link.kind, _rate(link), format_quantity(link.delay_s, "s"), ends,
            _fault_text(link))))
    return table


def _show(name: str, output_format: str) -> int:
    cluster = load_cluster(name)
    if output_format == "json":
        print(json.dumps(cluster.to_dict(), indent=1))
        return EXIT_OK
    console = Console(highlight=False, width=200)
    console.print(_hosts_table(cluster))
    console.print(_links_table(cluster))
    console.print(Text(f"described in {cluster_file(name)}"))
    return EXIT_OK


def _list(output_format: str) -> int:
    clusters = [read_cluster(cluster_file(name)) for name in cluster_names()]
    if output_format == "json":
        print(json.dumps([{"name": c.name, "topology": str(c.topology), "hosts": len(c.hosts),
                           "subnet": c.subnet, "status": c.status} for c in clusters]))
        return EXIT_OK
    table = Table(title="clusters")
    for column in ("name", "topology", "hosts", "subnet", "status"):
        table.add_column(column)
    for c in clusters:
        table.add_row(*(Text(str(v)) for v in (c.name, c.topology, len(c.hosts), c.subnet,
                                               c.status)))
    Console(highlight=False, width=200).print(table)
    return EXIT_OK


def command_cluster(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    action = args.cluster_action
    if action == "up":
        cluster = cluster_up(args.request)
        print(f"cluster {cluster.name} up: {len(cluster.hosts)} hosts ({cluster.topology}), "
              f"subnet {cluster.subnet}; 'hpcprobe cluster show --name {cluster.name}'")
        if cluster.slurm_conf:
            print(f"Slurm up (partition {cluster.name}, {cluster.slurm_conf}): 'hpcprobe "
                  f"cluster exec --name {cluster.name} -- salloc -N 2 hpcprobe run'")
    elif action == "down":
        removed = cluster_down(args.name)
        print(f"cluster {args.name} down: removed {', '.join(removed)}")
    elif action == "show":
        return _show(args.name, args.format)
    elif action == "list":
        return _list(args.format)
    elif action == "exec":
        return command_exec(args.name, args.host, args.exec_command)
    elif args.host is not None:
        host = apply_host_fault(args.name, args.host, args.parsed_fault)
        print(f"host {host.id} of {args.name}: {_cpu_text(args.name, host)}")
    else:
        link = apply_fault(args.name, args.link, args.parsed_fault)
        print(f"link {link.id} of {args.name}: {_fault_text(link) or 'up, as built'}")
    return EXIT_OK


def _cpu_text(name: str, host: Host) -> str:
    """What a host's cpu fault gives it, and, where hosts share this machine's CPUs, the
    share every host is capped at."""
    if host.cpu_fraction >= 1:
        return "cpu unthrottled"
    cluster = load_cluster(name)
    cpus = len(os.sched_getaffinity(0))
    capacity = host_capacity(cluster, host, cpus)
    said = f"cpu {host.cpu_fraction:g} of its {host.cores} cores' time"
    if capacity >= host.cores:
        return said
    return (f"{said}, of its share of this machine's {cpus} CPUs ({capacity:.3g} CPU): "
            f"{capacity * host.cpu_fraction:.3g} CPU; every host is capped at its share "
            "while one is throttled")
