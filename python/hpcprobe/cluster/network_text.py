"""The cluster's network in one line, as every record launched on it carries it
(`metadata.cluster_network`, from HPCPROBE_CLUSTER_NETWORK): its topology and the rate
and delay of its links, so `hpcprobe simulate --compare` can predict a record with the
network it really crossed, long after `cluster down`.

    tree:2x4 link_bytes_per_s=50000000 uplink_bytes_per_s=25000000 link_delay_s=0
    torus:4x2 link_bytes_per_s=50000000 link_delay_s=2e-05
    flat:4 link_bytes_per_s=50000000 link_delay_s=0

Rates are per link and direction (both ends of a link are shaped alike); a rate of 0
means the links are not shaped. The text comes back from result files, which are
untrusted: `parse_network_text` accepts exactly this form and nothing else.
"""

import re
from dataclasses import dataclass
from typing import Optional, Tuple

from hpcprobe.cluster.model import Cluster

_NUMBER = r"(0|[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)"
_PATTERN = re.compile(
    r"(flat|tree|torus|mesh):([0-9]+(?:x[0-9]+){0,2}) link_bytes_per_s=" + _NUMBER +
    r"(?: uplink_bytes_per_s=" + _NUMBER + r")? link_delay_s=" + _NUMBER)
MAX_TEXT = 256


@dataclass(frozen=True)
class NetworkText:
    kind: str                       # flat, tree, torus, mesh
    dims: Tuple[int, ...]           # flat: (hosts,); tree: (leaves, hosts per leaf)
    link_bytes_per_s: float         # 0: not shaped
    link_delay_s: float
    uplink_bytes_per_s: Optional[float] = None  # tree only

    def __str__(self) -> str:
        uplink = (f" uplink_bytes_per_s={self.uplink_bytes_per_s:.10g}"
                  if self.uplink_bytes_per_s is not None else "")
        return (f"{self.kind}:{'x'.join(map(str, self.dims))} "
                f"link_bytes_per_s={self.link_bytes_per_s:.10g}{uplink} "
                f"link_delay_s={self.link_delay_s:.10g}")


def _rate(cluster: Cluster, kinds: Tuple[str, ...]) -> float:
    rates = [link.rate_bit_per_s for link in cluster.links if link.kind in kinds]
    return (rates[0] or 0.0) / 8 if rates else 0.0


def network_text(cluster: Cluster) -> NetworkText:
    """The cluster's own description: its host links' rate and delay (all alike, as
    `cluster up` makes them), and a tree's uplink rate."""
    topology = cluster.topology
    dims = topology.dims or (len(cluster.hosts),)
    host_kinds = ("host", "torus", "mesh")
    delays = [link.delay_s for link in cluster.links if link.kind in host_kinds]
    uplink = _rate(cluster, ("uplink",)) if topology.kind == "tree" else None
    return NetworkText(topology.kind, tuple(dims), _rate(cluster, host_kinds),
                       delays[0] if delays else 0.0, uplink)


def parse_network_text(text: object) -> Optional[NetworkText]:
    """The NetworkText of a record's `cluster_network`; None for anything else."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    match = _PATTERN.fullmatch(text)
    if match is None:
        return None
    kind, dims_text, link, uplink, delay = match.groups()
    dims = tuple(int(d) for d in dims_text.split("x"))
    if min(dims) < 1 or (kind == "tree") != (uplink is not None) or (
            kind == "tree" and len(dims) != 2) or (kind == "flat" and len(dims) != 1):
        return None
    return NetworkText(kind, dims, float(link), float(delay),
                       float(uplink) if uplink is not None else None)
