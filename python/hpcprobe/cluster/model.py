"""The description of one emulated cluster, as its file holds it (docs/cluster.md):
hosts, switches, links, and the routes between hosts. Pure data: nothing here touches
the system, so every other part of hpcprobe may read a cluster cheaply."""

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple

import hpcprobe.cluster.routing as routing
from hpcprobe.cluster.spec import Topology, parse_topology
from hpcprobe.errors import UsageError

FORMAT = "hpcprobe-cluster-1"
HEAD_ID = "head"


@dataclass
class Host:
    """A host (or the head, where mpiexec runs): its network, UTS and mount namespaces
    are those of `holder_pid`, a process kept asleep in them."""

    id: str                    # h0, h1 … (head: "head")
    name: str                  # its host name: NAME-h0 …
    node_id: int               # 0 … nodes-1 (head: -1)
    namespace: str             # its network namespace (ip netns)
    address: str               # its one address on the fabric
    coordinates: Tuple[int, ...] = ()
    cores: int = 1
    cpus: Tuple[int, ...] = ()  # the CPUs its processes may run on; () = all
    holder_pid: Optional[int] = None
    cgroup: str = ""           # its cpu cgroup (cgroups.py); "" = none (the head, or no
                               # cpu controller on this machine)
    cpu_fraction: float = 1.0  # `cluster fault --host … cpu F`: F of its cores' time


@dataclass(frozen=True)
class Switch:
    id: str          # sw (flat), leaf0 … and root (tree)
    kind: str        # switch, leaf, root
    namespace: str   # the cluster's fabric namespace
    bridge: str      # the bridge's interface name there


@dataclass(frozen=True)
class Endpoint:
    """One end of a link: the node (host or switch id) and the interface carrying it."""

    node: str
    namespace: str
    interface: str


@dataclass
class LinkFault:
    """What `cluster fault` changed on a link (cleared by `fault … up`)."""

    down: bool = False
    loss_fraction: float = 0.0
    delay_s: Optional[float] = None   # replaces the link's delay while set
    rate_bit_per_s: Optional[float] = None   # replaces the link's rate while set

    @property
    def active(self) -> bool:
        return (self.down or self.loss_fraction > 0 or self.delay_s is not None
                or self.rate_bit_per_s is not None)


@dataclass
class Link:
    """A veth pair, shaped on both ends (both directions) at the same rate and delay;
    `rate_bit_per_s` None: not shaped (the head's link, which carries only control)."""

    id: str                      # the ends' ids joined: h0-sw, leaf0-root, h0-h1
    kind: str                    # host, uplink, torus, mesh, head
    ends: Tuple[Endpoint, Endpoint]
    rate_bit_per_s: Optional[float]
    delay_s: float = 0.0
    fault: LinkFault = field(default_factory=LinkFault)

    @property
    def nodes(self) -> Tuple[str, str]:
        return self.ends[0].node, self.ends[1].node

    @property
    def effective_delay_s(self) -> float:
        return self.fault.delay_s if self.fault.delay_s is not None else self.delay_s

    @property
    def effective_rate_bit_per_s(self) -> Optional[float]:
        """The rate it is shaped to now: a `rate` fault's, else its own."""
        if self.fault.rate_bit_per_s is not None:
            return self.fault.rate_bit_per_s
        return self.rate_bit_per_s


@dataclass
class Cluster:
    name: str
    topology: Topology
    subnet: str
    fabric_interface: str
    hosts: List[Host]
    head: Host
    switches: List[Switch]
    links: List[Link]
    namespaces: List[str]        # every namespace it has, the fabric's included
    status: str = "building"     # building while `up` runs, then up
    created: str = ""
    slurm_conf: str = ""         # `up --slurm`: its slurm.conf (slurm.py); "" without
    cgroup_mount: str = ""       # the cpu cgroup hierarchy the hosts' cgroups are in
    head_cgroup_view: str = ""   # where the head's mount namespace sees that hierarchy

    @cached_property
    def _hosts_by_key(self) -> Dict[str, Host]:
        # Ids, names and node ids never change once planned (links' ends neither).
        return {key: host for host in [*self.hosts, self.head]
                for key in (host.id, host.name, str(host.node_id))}

    @cached_property
    def _links_by_ends(self) -> Dict[frozenset, Link]:
        return {frozenset(link.nodes): link for link in self.links}

    def host(self, key: str) -> Host:
        """A host by id (h3), host name (NAME-h3) or node id (3); the head by "head"."""
        if key in self._hosts_by_key:
            return self._hosts_by_key[key]
        raise UsageError(f"cluster {self.name} has no host '{key}' (hosts "
                         f"{self.hosts[0].id} … {self.hosts[-1].id}, or their names "
                         f"{self.hosts[0].name} …)")

    def _node_id(self, key: str) -> str:
        if any(key == switch.id for switch in self.switches):
            return key
        return self.host(key).id

    def link_between(self, a: str, b: str) -> Optional[Link]:
        """The link joining a and b (host ids, host names or switch ids), if any."""
        return self._links_by_ends.get(frozenset((self._node_id(a), self._node_id(b))))

    def link(self, spelling: str) -> Link:
        """A link named as `cluster show` names it (h0-sw, leaf0-root, h0-h1), its ends
        either way round, or with host names (NAME-h0-NAME-h1)."""
        for link in self.links:
            a, b = ({node, self._display(node)} for node in link.nodes)
            if spelling in {f"{x}-{y}" for x in a for y in b} | {f"{y}-{x}" for x in a
                                                                  for y in b}:
                return link
        raise UsageError(f"cluster {self.name} has no link '{spelling}' (links are named "
                         f"by their ends, as 'hpcprobe cluster show' lists them: "
                         f"{', '.join(link.id for link in self.links[:4])} …)")

    def _display(self, node: str) -> str:
        host = self._hosts_by_key.get(node)
        return host.name if host is not None else node

    def path(self, a: str, b: str) -> List[Link]:
        """The links a message from host a to host b crosses, in order."""
        source, target = self.host(a), self.host(b)
        if source.id == target.id:
            return []
        if self.topology.grid:
            visited = routing.route(source.node_id, target.node_id, self.topology.dims,
                                    self.topology.kind == "torus")
            return [self._must_link(f"h{x}", f"h{y}") for x, y in zip(visited, visited[1:])]
        up = self._uplinks(source)
        down = self._uplinks(target)
        while up and down and up[-1].id == down[-1].id:
            up, down = up[:-1], down[:-1]  # below the switch both paths share
        return up + list(reversed(down))

    def _uplinks(self, host: Host) -> List[Link]:
        """A host's links up its tree: to its switch, then (tree) its leaf's uplink."""
        if self.topology.kind == "flat":
            return [self._must_link(host.id, "sw")]
        leaf = f"leaf{host.coordinates[0]}"
        return [self._must_link(host.id, leaf), self._must_link(leaf, "root")]

    def _must_link(self, a: str, b: str) -> Link:
        link = self.link_between(a, b)
        if link is None:
            raise ValueError(f"cluster {self.name}: no link {a}-{b} (a damaged file?)")
        return link

    def hops(self, a: str, b: str) -> int:
        """Links crossed from host a to host b."""
        return len(self.path(a, b))

    def min_rate_on_path(self, a: str, b: str) -> Optional[float]:
        """The slowest shaped link (bit/s, as a `rate` fault left it) from host a to host
        b; None: none shaped."""
        rates = [link.effective_rate_bit_per_s for link in self.path(a, b)
                 if link.effective_rate_bit_per_s is not None]
        return min(rates) if rates else None

    def delay_on_path(self, a: str, b: str) -> float:
        """The delays added on the way from host a to host b, one way (s)."""
        return sum(link.effective_delay_s for link in self.path(a, b))

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data["topology"] = str(self.topology)
        return {"format": FORMAT, **data}


def _host(data: Dict[str, Any]) -> Host:
    return Host(**{**data, "coordinates": tuple(data["coordinates"]),
                   "cpus": tuple(data["cpus"])})


def _link(data: Dict[str, Any]) -> Link:
    ends = tuple(Endpoint(**end) for end in data["ends"])
    return Link(**{**data, "ends": ends, "fault": LinkFault(**data["fault"])})


def cluster_from_dict(data: Dict[str, Any]) -> Cluster:
    """The Cluster a file holds; ValueError (KeyError, TypeError) when it is not one."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} description (format {data.get('format')!r})")
    fields = {key: value for key, value in data.items() if key != "format"}
    return Cluster(**{
        **fields,
        "topology": parse_topology(data["topology"]),
        "hosts": [_host(host) for host in data["hosts"]],
        "head": _host(data["head"]),
        "switches": [Switch(**switch) for switch in data["switches"]],
        "links": [_link(link) for link in data["links"]],
    })
