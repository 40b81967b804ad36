"""`cluster up`, `down` and `fault`: making a planned cluster real, removing it again
(also after a partial `up` or a crash: everything is found by its name), and changing
one link while a run goes on."""

import ipaddress
import os
from pathlib import Path
from typing import List, Mapping, Optional

import hpcprobe.cluster.cgroups as cgroups
import hpcprobe.cluster.shaping as shaping
import hpcprobe.cluster.system as system
from hpcprobe.cluster.model import Cluster, Host, Link
from hpcprobe.cluster.plan import (FABRIC_INTERFACE, FABRIC_PEER, namespace_prefix,
                                   plan_cluster, route_lines)
from hpcprobe.cluster.exec_env import exec_dir, remove_exec_dir
from hpcprobe.cluster.slurm import remove_slurm_dir, require_slurm, slurm_dir, start_slurm
from hpcprobe.cluster.spec import ClusterRequest
from hpcprobe.cluster.store import (cluster_dir, cluster_file, cluster_names, create_cluster_file,
                                    read_cluster, remove_cluster_file, save_cluster)
from hpcprobe.errors import HpcprobeError, UsageError

# Subnets 10.N.0.0/16 a cluster may take, the first free one.
SUBNET_SECOND_OCTETS = range(100, 250)


def _sysctl_words(grid: bool) -> List[str]:
    # No IPv6 (its link-local chatter would cross the shaped links and their counters),
    # no reverse-path filter (torus routes are asymmetric), forwarding where hosts route.
    words = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
             "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"]
    return words + (["net.ipv4.ip_forward=1"] if grid else [])


def _choose_subnet(env: Mapping[str, str]) -> ipaddress.IPv4Network:
    taken = system.root_networks()
    for name in cluster_names(env):
        try:
            taken.append(ipaddress.IPv4Network(read_cluster(cluster_file(name, env)).subnet))
        except (HpcprobeError, ValueError):
            continue
    for octet in SUBNET_SECOND_OCTETS:
        subnet = ipaddress.IPv4Network(f"10.{octet}.0.0/16")
        if not any(subnet.overlaps(other) for other in taken):
            return subnet
    raise HpcprobeError("no free 10.N.0.0/16 subnet for another cluster (N = 100-249)")


def _make_namespaces(cluster: Cluster) -> None:
    for namespace in cluster.namespaces:
        system.run(["ip", "netns", "add", namespace])
        system.run(["ip", "netns", "exec", namespace, "sysctl", "-q", "-w",
                    *_sysctl_words(cluster.topology.grid)])
        system.run(["ip", "-n", namespace, "link", "set", "lo", "up"])
    for switch in cluster.switches:
        system.run(["ip", "-n", switch.namespace, "link", "add", switch.bridge, "type",
                    "bridge"])
        system.run(["ip", "-n", switch.namespace, "link", "set", switch.bridge, "up"])


def _make_link(cluster: Cluster, link: Link) -> None:
    """The veth pair made straight in the two namespaces (never in the root one)."""
    a, b = link.ends
    system.run(["ip", "-n", a.namespace, "link", "add", a.interface, "type", "veth",
                "peer", "name", b.interface, "netns", b.namespace])
    bridges = {switch.id: switch.bridge for switch in cluster.switches}
    for end in link.ends:
        if end.node in bridges:
            system.run(["ip", "-n", end.namespace, "link", "set", end.interface, "master",
                        bridges[end.node]])
        system.run(["ip", "-n", end.namespace, "link", "set", end.interface, "up"])
    for command in shaping.link_commands(link):
        system.run(command)


def _make_fabric_pair(host: Host) -> None:
    """Torus, mesh: the veth pair of the host's own that carries its address (plan.py)."""
    system.run(["ip", "-n", host.namespace, "link", "add", FABRIC_INTERFACE, "type",
                "veth", "peer", "name", FABRIC_PEER])
    for interface in (FABRIC_INTERFACE, FABRIC_PEER):
        system.run(["ip", "-n", host.namespace, "link", "set", interface, "up"])


def _address(cluster: Cluster, host: Host) -> None:
    """The host's (or head's) one fabric address: on its link to the switch (flat, tree:
    the whole subnet is on the switch), or alone (torus, mesh: routes lead to it)."""
    prefix = 32 if cluster.topology.grid else ipaddress.IPv4Network(cluster.subnet).prefixlen
    system.run(["ip", "-n", host.namespace, "addr", "add", f"{host.address}/{prefix}",
                "dev", FABRIC_INTERFACE])


def apply_routes(cluster: Cluster, host: Host) -> None:
    lines = route_lines(cluster, host)
    if lines:
        system.run(["ip", "-n", host.namespace, "-batch", "-"], "\n".join(lines) + "\n")


def _build(cluster: Cluster, env: Mapping[str, str]) -> None:
    _make_namespaces(cluster)
    if cluster.topology.grid:
        for host in cluster.hosts:
            _make_fabric_pair(host)
    for link in cluster.links:
        _make_link(cluster, link)
    for host in [*cluster.hosts, cluster.head]:
        _address(cluster, host)
        apply_routes(cluster, host)
    cgroups.make_cgroups(cluster)  # before any process starts on a host
    for host in [*cluster.hosts, cluster.head]:
        host.holder_pid = system.start_holder(host)
        save_cluster(cluster, env)  # each holder on file as soon as it runs
    mount = cgroups.head_view_command(cluster, cgroup_view(cluster.name, env))
    if mount:
        system.run(mount)
        save_cluster(cluster, env)


def cgroup_view(name: str, env: Mapping[str, str]) -> Path:
    """Where the head's mount namespace sees the hosts' cgroups (cgroups.py)."""
    return cluster_dir(env) / f"{name}.cgroup"


def _refuse_existing(name: str, env: Mapping[str, str]) -> None:
    left = system.namespaces(namespace_prefix(name))
    if left:
        raise UsageError(f"cluster '{name}' has namespaces already ({', '.join(left[:3])} "
                         f"…); remove them with 'hpcprobe cluster down --name {name}'")


def cluster_up(request: ClusterRequest, env: Optional[Mapping[str, str]] = None) -> Cluster:
    """Make the cluster `request` describes and write its file; on any failure (or a
    signal) remove what was made and raise."""
    env = os.environ if env is None else env
    system.require_privileges("cluster up")
    if cluster_file(request.name, env).exists():
        raise UsageError(f"cluster '{request.name}' exists ({cluster_file(request.name, env)}"
                         f"); remove it first with 'hpcprobe cluster down --name "
                         f"{request.name}'")
    _refuse_existing(request.name, env)
    if request.link_delay_s > 0 and not system.netem_available():
        raise UsageError("--link-delay needs tc's netem qdisc, which this kernel lacks "
                         "(CONFIG_NET_SCH_NETEM); use --link-delay 0 (docs/cluster.md)")
    if request.slurm:
        require_slurm()
    cluster = plan_cluster(request, _choose_subnet(env), sorted(os.sched_getaffinity(0)))
    create_cluster_file(cluster, env)
    try:
        _build(cluster, env)
        if request.slurm:
            cluster.slurm_conf = str(start_slurm(cluster, env))
        cluster.status = "up"
        save_cluster(cluster, env)
    except BaseException as error:
        remove_cluster(request.name, env)
        if isinstance(error, HpcprobeError):
            raise HpcprobeError(f"cluster up failed: {error.message}; everything it had "
                                "made is removed") from None
        raise
    return cluster


def remove_cluster(name: str, env: Optional[Mapping[str, str]] = None) -> List[str]:
    """Stop every process on the cluster's hosts, delete its namespaces (and with them
    every link and bridge), its cgroups and its file. What was removed, for the message."""
    env = os.environ if env is None else env
    found = system.namespaces(namespace_prefix(name))
    groups = cgroups.found_cgroups(name)
    pids = [pid for namespace in found for pid in system.namespace_pids(namespace)]
    pids += [pid for top in groups for pid in cgroups.cgroup_pids(top)]
    holders: List[int] = []
    if cluster_file(name, env).exists():
        try:
            cluster = read_cluster(cluster_file(name, env))
            holders = [host.holder_pid for host in [*cluster.hosts, cluster.head]
                       if host.holder_pid and system.holder_alive(host)]
        except HpcprobeError:
            pass  # a damaged file: the namespaces are found by name all the same
    system.kill_all(dict.fromkeys(pids + holders))
    for namespace in found:
        system.run(["ip", "netns", "del", namespace])
    for top in groups:
        cgroups.remove_cgroups(top)
    cgroups.remove_view(cgroup_view(name, env))
    removed = [f"{len(found)} namespaces", f"{len(set(pids))} processes"] + [
        f"cgroup {top}" for top in groups]
    if remove_exec_dir(name, env):
        removed.append(f"{exec_dir(name, env)}")
    if remove_slurm_dir(name, env):
        removed.append(f"{slurm_dir(name, env)}")
    if remove_cluster_file(name, env):
        removed.append(f"{cluster_file(name, env)}")
    return removed


def cluster_down(name: str, env: Optional[Mapping[str, str]] = None) -> List[str]:
    env = os.environ if env is None else env
    system.require_privileges("cluster down")
    if (not cluster_file(name, env).exists() and not system.namespaces(namespace_prefix(name))
            and not cgroups.found_cgroups(name)):
        raise UsageError(f"no cluster '{name}': no {cluster_file(name, env)} and no "
                         f"namespace {namespace_prefix(name)}*")
    return remove_cluster(name, env)
