"""What `hpcprobe cluster up` is asked for, checked before anything is made: the
cluster's name, its topology, link rates and delays. Every mistake is one UsageError."""

import re
from dataclasses import dataclass
from math import prod
from typing import Optional, Tuple

from hpcprobe.errors import UsageError

# A name is part of namespace, interface-free file and host names (NAME-h0): short, and
# nothing a shell, a path or a host name could misread.
NAME_PATTERN = re.compile(r"[a-z][a-z0-9]{0,15}")
MAX_NODES = 256  # addresses, namespaces and routes stay small; hydra copes
MAX_CORES_PER_NODE = 1024
TOPOLOGY_KINDS = ("flat", "tree", "torus", "mesh")
MAX_GRID_DIMS = 3

# tc's units: bit-based and byte-based ("bps" is bytes per second in tc, as here).
_RATE_UNITS = {
    "bit": 1.0, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
    "bps": 8.0, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "tbps": 8e12,
}
MIN_RATE_BIT_PER_S = 8e3
MAX_RATE_BIT_PER_S = 1e12
_DELAY_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
MAX_DELAY_S = 1.0
_NUMBER = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)"


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise UsageError(f"cluster name '{name}' must be 1-16 lower-case letters and digits, "
                         "starting with a letter (it becomes part of host and namespace names)")
    return name


def parse_rate(option: str, text: str) -> float:
    """"400mbit" -> 4e8 bit/s (tc's units: bit, kbit … tbit; bps, kbps … in bytes)."""
    match = re.fullmatch(_NUMBER + r"\s*([a-z]+)", text.strip().lower())
    unit = _RATE_UNITS.get(match.group(2)) if match else None
    value = float(match.group(1)) * unit if match and unit else 0.0
    if not MIN_RATE_BIT_PER_S <= value <= MAX_RATE_BIT_PER_S:
        raise UsageError(f"{option} must be a rate such as 400mbit or 1gbit (units "
                         f"{', '.join(_RATE_UNITS)}; 8kbit to 1tbit), not '{text}'")
    return value


def parse_delay(option: str, text: str) -> float:
    """"20us" -> 2e-5 s; "0" -> 0."""
    match = re.fullmatch(_NUMBER + r"\s*(ns|us|µs|ms|s)?", text.strip().lower())
    value = -1.0
    if match and (match.group(2) or float(match.group(1)) == 0):
        value = float(match.group(1)) * _DELAY_UNITS[match.group(2) or "s"]
    if not 0 <= value <= MAX_DELAY_S:
        raise UsageError(f"{option} must be a delay such as 20us, 1ms or 0 (units ns, us, "
                         f"ms, s; at most 1s), not '{text}'")
    return value


@dataclass(frozen=True)
class Topology:
    """`kind` flat, tree (dims = leaves, hosts per leaf), torus or mesh (dims = grid)."""

    kind: str
    dims: Tuple[int, ...] = ()

    @property
    def nodes(self) -> Optional[int]:
        return prod(self.dims) if self.dims else None

    @property
    def grid(self) -> bool:
        return self.kind in ("torus", "mesh")

    def __str__(self) -> str:
        return self.kind + (":" + "x".join(map(str, self.dims)) if self.dims else "")


def _dims(text: str, count: Tuple[int, int]) -> Optional[Tuple[int, ...]]:
    words = text.split("x")
    if not count[0] <= len(words) <= count[1] or not all(w.isascii() and w.isdigit()
                                                         for w in words):
        return None
    dims = tuple(int(w) for w in words)
    return dims if all(d >= 1 for d in dims) else None


def parse_topology(text: str) -> Topology:
    """"flat", "tree:LxH", "torus:AxB[xC]", "mesh:AxB[xC]" (a grid may also be 1-D)."""
    kind, _, rest = text.partition(":")
    dims = None
    if kind == "flat" and not rest:
        return Topology("flat")
    if kind == "tree":
        dims = _dims(rest, (2, 2))
    elif kind in ("torus", "mesh"):
        dims = _dims(rest, (1, MAX_GRID_DIMS))
    if dims is None:
        raise UsageError(f"--topology must be flat, tree:LxH (L leaf switches of H hosts), "
                         f"torus:AxB[xC] or mesh:AxB[xC], not '{text}'")
    return Topology(kind, dims)


@dataclass(frozen=True)
class ClusterRequest:
    """A checked `cluster up`: rates in bit/s, delays in s."""

    name: str
    nodes: int
    topology: Topology
    link_rate_bit_per_s: float
    link_delay_s: float
    uplink_rate_bit_per_s: float
    cores_per_node: int
    slurm: bool = False   # also start Slurm (slurm.py)


def check_request(request: ClusterRequest, uplink_given: bool) -> ClusterRequest:
    """The cross-option rules; the request itself when they hold."""
    check_name(request.name)
    if not 1 <= request.nodes <= MAX_NODES:
        raise UsageError(f"--nodes must be from 1 to {MAX_NODES}, not {request.nodes}")
    expected = request.topology.nodes
    if expected is not None and expected != request.nodes:
        shape = "x".join(map(str, request.topology.dims))
        raise UsageError(f"--nodes {request.nodes} does not match --topology "
                         f"{request.topology} ({shape} = {expected} hosts)")
    if uplink_given and request.topology.kind != "tree":
        raise UsageError("--uplink-rate applies to --topology tree:LxH only")
    if not 1 <= request.cores_per_node <= MAX_CORES_PER_NODE:
        raise UsageError(f"--cores-per-node must be from 1 to {MAX_CORES_PER_NODE}, "
                         f"not {request.cores_per_node}")
    return request
