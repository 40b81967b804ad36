"""From a checked request to the full description of a cluster (model.py), before
anything exists: names, addresses, coordinates, links, and the routes of each host.

Names (docs/cluster.md): host i is `NAME-h<i>` in namespace `hpcprobe-NAME-h<i>`; the
head, where mpiexec runs, is `NAME-head`; the switches of a flat or tree cluster are
bridges in the namespace `hpcprobe-NAME-fabric`. Everything the cluster makes lives in
these namespaces, so deleting them removes it all, and `down` finds them by name.
"""

import ipaddress
from datetime import datetime, timezone
from typing import List, Optional, Sequence

import hpcprobe.cluster.routing as routing
from hpcprobe.cluster.model import HEAD_ID, Cluster, Endpoint, Host, Link, Switch
from hpcprobe.cluster.spec import ClusterRequest

NAMESPACE_PREFIX = "hpcprobe-"
FABRIC_INTERFACE = "fab0"
# On a torus or mesh the host's address sits on one end of a veth pair of its own (this
# kernel may lack the dummy device); the other end is this one, unused.
FABRIC_PEER = "fab0p"
HEAD_INTERFACE = "head"
AXES = "xyz"
# Routes of a torus or mesh host that UCX reads and the kernel never uses (launcher.py).
UCX_ROUTE_TABLE = 200


def namespace_prefix(name: str) -> str:
    return f"{NAMESPACE_PREFIX}{name}-"


def fabric_namespace(name: str) -> str:
    return namespace_prefix(name) + "fabric"


def _hosts(request: ClusterRequest, subnet: ipaddress.IPv4Network,
           cpus: Sequence[int]) -> List[Host]:
    hosts = []
    per_host = request.cores_per_node
    # Each host gets CPUs of its own where the machine has enough; otherwise all share.
    own_cpus = len(cpus) >= per_host * request.nodes
    for index in range(request.nodes):
        if request.topology.kind == "tree":
            coords = divmod(index, request.topology.dims[1])
        elif request.topology.grid:
            coords = routing.coordinates(index, request.topology.dims)
        else:
            coords = (index,)
        hosts.append(Host(
            id=f"h{index}", name=f"{request.name}-h{index}", node_id=index,
            namespace=namespace_prefix(request.name) + f"h{index}",
            address=str(subnet.network_address + 1 + index), coordinates=tuple(coords),
            cores=per_host,
            cpus=tuple(cpus[index * per_host:(index + 1) * per_host]) if own_cpus else (),
        ))
    return hosts


def _head(name: str, subnet: ipaddress.IPv4Network) -> Host:
    return Host(id=HEAD_ID, name=f"{name}-head", node_id=-1,
                namespace=namespace_prefix(name) + HEAD_ID,
                address=str(subnet.broadcast_address - 1))


def _switch_links(request: ClusterRequest, hosts: List[Host], head: Host,
                  fabric: str) -> List[Link]:
    """Flat and tree: each host on its switch, the leaves on the root, the head on the
    top switch (unshaped)."""
    tree = request.topology.kind == "tree"
    links = []
    for host in hosts:
        switch = f"leaf{host.coordinates[0]}" if tree else "sw"
        links.append(Link(f"{host.id}-{switch}", "host", (
            Endpoint(host.id, host.namespace, FABRIC_INTERFACE),
            Endpoint(switch, fabric, host.id)),
            request.link_rate_bit_per_s, request.link_delay_s))
    if tree:
        for leaf in range(request.topology.dims[0]):
            links.append(Link(f"leaf{leaf}-root", "uplink", (
                Endpoint(f"leaf{leaf}", fabric, f"leaf{leaf}up"),
                Endpoint("root", fabric, f"leaf{leaf}dn")),
                request.uplink_rate_bit_per_s, request.link_delay_s))
    top = "root" if tree else "sw"
    links.append(Link(f"{HEAD_ID}-{top}", "head", (
        Endpoint(HEAD_ID, head.namespace, FABRIC_INTERFACE),
        Endpoint(top, fabric, HEAD_ID)), None))
    return links


def _grid_links(request: ClusterRequest, hosts: List[Host], head: Host) -> List[Link]:
    """Torus and mesh: one link between neighbours, named by its lower end first (the
    end from which it leads in the positive direction); the head hangs off host 0."""
    torus = request.topology.kind == "torus"
    links = []
    for axis, lower, upper in routing.neighbour_pairs(request.topology.dims, torus):
        a, b = hosts[lower], hosts[upper]
        links.append(Link(f"{a.id}-{b.id}", request.topology.kind, (
            Endpoint(a.id, a.namespace, f"{AXES[axis]}p"),
            Endpoint(b.id, b.namespace, f"{AXES[axis]}m")),
            request.link_rate_bit_per_s, request.link_delay_s))
    links.append(Link(f"{HEAD_ID}-{hosts[0].id}", "head", (
        Endpoint(HEAD_ID, head.namespace, FABRIC_INTERFACE),
        Endpoint(hosts[0].id, hosts[0].namespace, HEAD_INTERFACE)), None))
    return links


def _switches(request: ClusterRequest, fabric: str) -> List[Switch]:
    if request.topology.kind == "flat":
        return [Switch("sw", "switch", fabric, "sw")]
    if request.topology.kind == "tree":
        leaves = [Switch(f"leaf{leaf}", "leaf", fabric, f"leaf{leaf}")
                  for leaf in range(request.topology.dims[0])]
        return leaves + [Switch("root", "root", fabric, "root")]
    return []


def plan_cluster(request: ClusterRequest, subnet: ipaddress.IPv4Network,
                 cpus: Sequence[int]) -> Cluster:
    """The cluster `request` asks for, on `subnet`, its hosts given `cpus` to share."""
    hosts = _hosts(request, subnet, cpus)
    head = _head(request.name, subnet)
    switches = _switches(request, fabric_namespace(request.name))
    if request.topology.grid:
        links = _grid_links(request, hosts, head)
    else:
        links = _switch_links(request, hosts, head, fabric_namespace(request.name))
    namespaces = [host.namespace for host in hosts] + [head.namespace]
    if switches:
        namespaces.append(fabric_namespace(request.name))
    return Cluster(
        name=request.name, topology=request.topology, subnet=str(subnet),
        fabric_interface=FABRIC_INTERFACE, hosts=hosts, head=head, switches=switches,
        links=links, namespaces=namespaces,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"))


def _next_hop(cluster: Cluster, source: Host, target: Host) -> Optional[Link]:
    path = cluster.path(source.id, target.id)
    return path[0] if path else None


def _via(link: Link, source: Host, cluster: Cluster) -> str:
    """`via ADDRESS dev IF onlink`: the neighbour's address, reached on our link end."""
    ours, theirs = link.ends if link.ends[0].node == source.id else link.ends[::-1]
    return f"via {cluster.host(theirs.node).address} dev {ours.interface} onlink"


def route_lines(cluster: Cluster, host: Host) -> List[str]:
    """`ip -batch` lines of a torus or mesh host's routes (none on a flat or tree
    cluster: the switches deliver): to every other host and to the head, the first link
    of the dimension-order path; and the routes UCX alone reads (launcher.py)."""
    if not cluster.topology.grid:
        return []
    if host.id == HEAD_ID:
        first = cluster.hosts[0]
        return [f"route replace {cluster.subnet} via {first.address} dev "
                f"{FABRIC_INTERFACE} onlink"]
    lines = []
    for target in cluster.hosts:
        link = _next_hop(cluster, host, target)
        if link is not None:
            lines.append(f"route replace {target.address}/32 {_via(link, host, cluster)}")
            lines.append(f"route replace {target.address}/32 dev {FABRIC_INTERFACE} "
                         f"table {UCX_ROUTE_TABLE}")
    to_head = _next_hop(cluster, host, cluster.hosts[0])
    head_route = _via(to_head, host, cluster) if to_head else f"dev {HEAD_INTERFACE}"
    lines.append(f"route replace {cluster.head.address}/32 {head_route}")
    return lines
