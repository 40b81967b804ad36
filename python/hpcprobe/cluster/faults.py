"""`cluster fault --link A-B down|up|loss P%|delay T`: one link changed while a run
goes on. `down` takes both ends down (the kernel then drops the routes through them);
`up` brings them back with the link's own shaping and routes, clearing every fault;
`loss` and `delay` reshape both ends and stay until `up` (or another loss or delay)."""

import re
from dataclasses import dataclass
from typing import Mapping, Optional

import hpcprobe.cluster.shaping as shaping
import hpcprobe.cluster.system as system
from hpcprobe.cluster.build import apply_routes
from hpcprobe.cluster.model import Cluster, Link, LinkFault
from hpcprobe.cluster.spec import parse_delay
from hpcprobe.cluster.store import load_cluster, save_cluster
from hpcprobe.errors import UsageError

FAULT_WORDS = ("down", "up", "loss", "delay")


@dataclass(frozen=True)
class Fault:
    action: str                     # down, up, loss, delay
    loss_fraction: float = 0.0      # loss: 0 … 1
    delay_s: float = 0.0            # delay


def parse_fault(words: list) -> Fault:
    """["down"], ["up"], ["loss", "20%"], ["delay", "1ms"]."""
    usage = "a fault is down, up, loss P% (0-100) or delay T (such as 1ms)"
    if not words or words[0] not in FAULT_WORDS:
        raise UsageError(f"{usage}, not '{' '.join(words)}'")
    action = words[0]
    if action in ("down", "up"):
        if len(words) != 1:
            raise UsageError(f"'{action}' takes no value ({usage})")
        return Fault(action)
    if len(words) != 2:
        raise UsageError(f"'{action}' takes one value ({usage})")
    if action == "delay":
        return Fault(action, delay_s=parse_delay("delay", words[1]))
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?)%?", words[1])
    percent = float(match.group(1)) if match else -1.0
    if not 0 <= percent <= 100:
        raise UsageError(f"loss takes a percentage from 0 to 100 such as 20%, not "
                         f"'{words[1]}'")
    return Fault(action, loss_fraction=percent / 100)


def _set_state(link: Link, state: str) -> None:
    for end in link.ends:
        system.run(["ip", "-n", end.namespace, "link", "set", end.interface, state])


def _reshape(link: Link) -> None:
    for end in link.ends:
        try:
            system.run(shaping.clear_command(end))
        except system.CommandFailed:
            pass  # no qdisc of ours there (an unshaped link)
    for command in shaping.link_commands(link):
        system.run(command)


def _restore(cluster: Cluster, link: Link) -> None:
    """Up with the link's own shaping, and the routes the kernel dropped when it went
    down put back at both ends."""
    link.fault = LinkFault()
    _set_state(link, "up")
    _reshape(link)
    for end in link.ends:
        for host in [*cluster.hosts, cluster.head]:
            if host.id == end.node:
                apply_routes(cluster, host)


def apply_fault(name: str, link_name: str, fault: Fault,
                env: Optional[Mapping[str, str]] = None) -> Link:
    """Change the link and record it in the cluster's file; the link as it now is."""
    system.require_privileges("cluster fault")
    cluster = load_cluster(name, env)
    link = cluster.link(link_name)
    if fault.action == "delay" and fault.delay_s > 0 and not system.netem_available():
        raise UsageError("a delay fault needs tc's netem qdisc, which this kernel lacks "
                         "(CONFIG_NET_SCH_NETEM); loss and down work without it")
    if fault.action == "down":
        _set_state(link, "down")
        link.fault.down = True
    elif fault.action == "up":
        _restore(cluster, link)
    else:
        if fault.action == "loss":
            link.fault.loss_fraction = fault.loss_fraction
        else:
            link.fault.delay_s = fault.delay_s
        _reshape(link)
    save_cluster(cluster, env)
    return link
