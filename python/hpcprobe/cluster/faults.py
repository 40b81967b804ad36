"""`cluster fault --link A-B down|up|loss P%|delay T|rate R` and `cluster fault --host H
cpu F|up`: one link or host changed while a run goes on. `down` takes both ends down (the
kernel then drops the routes through them); `up` brings them back with the link's own
shaping and routes, clearing every fault; `loss`, `delay` and `rate` reshape both ends
and stay until `up` (or another of the same). `cpu F` throttles a host to F of its
cores' time through its cgroup (cgroups.py); `cpu 1` or `up` lifts it."""

import os
import re
from dataclasses import dataclass
from typing import Dict, Mapping, Optional

import hpcprobe.cluster.cgroups as cgroups
import hpcprobe.cluster.shaping as shaping
import hpcprobe.cluster.system as system
from hpcprobe.cluster.build import apply_routes
from hpcprobe.cluster.model import Cluster, Host, Link, LinkFault
from hpcprobe.cluster.spec import parse_delay, parse_rate
from hpcprobe.cluster.store import load_cluster, save_cluster
from hpcprobe.errors import UsageError

FAULT_WORDS = ("down", "up", "loss", "delay", "rate")
HOST_FAULT_WORDS = ("cpu", "up")
MIN_CPU_FRACTION = 0.01


@dataclass(frozen=True)
class Fault:
    action: str                     # down, up, loss, delay, rate; a host's: cpu, up
    loss_fraction: float = 0.0      # loss: 0 … 1
    delay_s: float = 0.0            # delay
    rate_bit_per_s: float = 0.0     # rate
    cpu_fraction: float = 1.0       # cpu: 0.01 … 1


def parse_fault(words: list) -> Fault:
    """["down"], ["up"], ["loss", "20%"], ["delay", "1ms"], ["rate", "100mbit"]."""
    usage = "a fault is down, up, loss P% (0-100), delay T (such as 1ms) or rate R (such " \
            "as 100mbit)"
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
    if action == "rate":
        return Fault(action, rate_bit_per_s=parse_rate("rate", words[1]))
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?)%?", words[1])
    percent = float(match.group(1)) if match else -1.0
    if not 0 <= percent <= 100:
        raise UsageError(f"loss takes a percentage from 0 to 100 such as 20%, not "
                         f"'{words[1]}'")
    return Fault(action, loss_fraction=percent / 100)


def parse_host_fault(words: list) -> Fault:
    """["cpu", "0.5"], ["up"]."""
    usage = (f"a host's fault is cpu F (a fraction of its cores' time, {MIN_CPU_FRACTION:g} "
             "to 1; 1 lifts it) or up")
    if not words or words[0] not in HOST_FAULT_WORDS:
        raise UsageError(f"{usage}, not '{' '.join(words)}'")
    if words[0] == "up":
        if len(words) != 1:
            raise UsageError(f"'up' takes no value ({usage})")
        return Fault("up")
    if len(words) != 2:
        raise UsageError(f"'cpu' takes one value ({usage})")
    match = re.fullmatch(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", words[1])
    fraction = float(words[1]) if match else -1.0
    if not MIN_CPU_FRACTION <= fraction <= 1:
        raise UsageError(f"cpu takes a fraction of the host's cores' time from "
                         f"{MIN_CPU_FRACTION:g} to 1 such as 0.5, not '{words[1]}'")
    return Fault("cpu", cpu_fraction=fraction)


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
        elif fault.action == "rate":
            link.fault.rate_bit_per_s = fault.rate_bit_per_s
        else:
            link.fault.delay_s = fault.delay_s
        _reshape(link)
    save_cluster(cluster, env)
    return link


def apply_host_fault(name: str, host_key: str, fault: Fault,
                     env: Optional[Mapping[str, str]] = None) -> Host:
    """Throttle (or free) one host's CPU and record it in the cluster's file; the host."""
    system.require_privileges("cluster fault")
    cluster = load_cluster(name, env)
    host = cluster.host(host_key)
    if host.node_id < 0:
        raise UsageError(f"the head of {name} is its login node, not a host; a host fault "
                         f"takes one of {cluster.hosts[0].id} … {cluster.hosts[-1].id}")
    if not host.cgroup:
        raise UsageError(f"host {host.id} of {name} has no cgroup to throttle: this machine "
                         "had no cpu cgroup controller (v1 or v2) that hpcprobe could write "
                         "when the cluster was made")
    host.cpu_fraction = 1.0 if fault.action == "up" else fault.cpu_fraction
    limits = cpu_limits(cluster, len(os.sched_getaffinity(0)))
    for each in cluster.hosts:
        cgroups.set_cpu_limit(each, limits[each.id])
    cgroups.weigh(cluster, any(each.cpu_fraction < 1 for each in cluster.hosts))
    save_cluster(cluster, env)
    return host


def host_capacity(cluster: Cluster, host: Host, machine_cpus: int) -> float:
    """The CPUs' time a host gets while every host is busy: its cores where it has CPUs
    of its own or the machine has one for every core of the cluster, else its share of
    the machine, cores x CPUs / the cluster's cores."""
    cores = sum(each.cores for each in cluster.hosts)
    if host.cpus or machine_cpus >= cores:
        return float(host.cores)
    return host.cores * machine_cpus / cores


def machine_share(cluster: Cluster, machine_cpus: int) -> float:
    """The CPUs of this machine the cluster's hosts get together while all are busy."""
    return sum(host_capacity(cluster, host, machine_cpus) for host in cluster.hosts)


def cpu_limits(cluster: Cluster, machine_cpus: int) -> Dict[str, Optional[float]]:
    """Each host's CPU cap (None: none). A throttled host gets its fraction of its
    capacity. While one is throttled, hosts that share the machine's CPUs are all capped
    at their share: otherwise the time the throttled host leaves goes to whichever
    neighbour shares its CPU, and the fleet's spread hides the fault, which on separate
    nodes would be the only difference between them."""
    throttled = any(host.cpu_fraction < 1 for host in cluster.hosts)
    limits: Dict[str, Optional[float]] = {}
    for host in cluster.hosts:
        cpus = host_capacity(cluster, host, machine_cpus) * host.cpu_fraction
        limits[host.id] = cpus if throttled and cpus < host.cores else None
    return limits
