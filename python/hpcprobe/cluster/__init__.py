"""Emulated clusters: hosts in network namespaces joined by shaped veth links (a flat
switch, a two-level tree, a torus or a mesh), described by one JSON file, and MPI
launched across them (docs/cluster.md).

A shared layer: it imports no family. What the rest of hpcprobe uses:

    load_cluster(name) -> Cluster        hosts, switches, links; path(a, b),
                                         link_between(a, b), min_rate_on_path(a, b) …
    ClusterLauncher(cluster, ppn)        a launcher: command(np, launcher_args, argv),
                                         env (add it to the launch's), rank_hosts(np)
    cluster_launch(cluster, np, ppn, argv) -> ClusterLaunch(argv, env, rank_hosts)
    apply_fault(name, link, parse_fault(words))            a link down, loss, rate …
    apply_host_fault(name, host, parse_host_fault(words))  a host's CPU throttled
    machine_share(cluster, cpus)         the CPUs of this machine its hosts get together

The commands (`hpcprobe cluster …`, `hpcprobe launch`) are in command.py and run.py.
"""

from hpcprobe.cluster.build import cluster_down, cluster_up, remove_cluster
from hpcprobe.cluster.faults import (Fault, apply_fault, apply_host_fault, machine_share,
                                     parse_fault, parse_host_fault)
from hpcprobe.cluster.launcher import (TRANSPORT, ClusterLaunch, ClusterLauncher,
                                       cluster_launch)
from hpcprobe.cluster.model import Cluster, Endpoint, Host, Link, LinkFault, Switch
from hpcprobe.cluster.spec import ClusterRequest, Topology, parse_topology
from hpcprobe.cluster.store import cluster_dir, cluster_file, cluster_names, load_cluster

__all__ = [
    "TRANSPORT", "Cluster", "ClusterLaunch", "ClusterLauncher", "ClusterRequest", "Endpoint",
    "Fault", "Host", "Link", "LinkFault", "Switch", "Topology", "apply_fault",
    "apply_host_fault", "cluster_dir",
    "cluster_down", "cluster_file", "cluster_launch", "cluster_names", "cluster_up",
    "load_cluster", "machine_share", "parse_fault", "parse_host_fault", "parse_topology",
    "remove_cluster",
]
