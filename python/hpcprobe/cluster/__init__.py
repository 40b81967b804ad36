"""Emulated clusters: hosts in network namespaces joined by shaped veth links (a flat
switch, a two-level tree, a torus or a mesh), described by one JSON file, and MPI
launched across them (docs/cluster.md).

A shared layer: it imports no family. What the rest of hpcprobe uses:

    load_cluster(name) -> Cluster        hosts, switches, links; path(a, b),
                                         link_between(a, b), min_rate_on_path(a, b) …

The commands (`hpcprobe cluster …`) are in command.py.
"""

from hpcprobe.cluster.build import cluster_down, cluster_up, remove_cluster
from hpcprobe.cluster.faults import Fault, apply_fault, parse_fault
from hpcprobe.cluster.model import Cluster, Endpoint, Host, Link, LinkFault, Switch
from hpcprobe.cluster.spec import ClusterRequest, Topology, parse_topology
from hpcprobe.cluster.store import cluster_dir, cluster_file, cluster_names, load_cluster

__all__ = [
    "Cluster", "ClusterRequest", "Endpoint",
    "Fault", "Host", "Link", "LinkFault", "Switch", "Topology", "apply_fault", "cluster_dir",
    "cluster_down", "cluster_file", "cluster_names", "cluster_up",
    "load_cluster", "parse_fault", "parse_topology", "remove_cluster",
]
