"""Real emulated clusters (root, ip, tc): hosts, names, addresses, switches, routed tori,
MPI across them, faults, and clean-up after `down`, a failed `up` and a killed one.

Each test's cluster is removed in a fixture finaliser, whatever the test did. Where root
or the tools are missing, these tests fail and say why: they never skip. Sizes are tiny:
the machine may have 2 CPUs shared with others.
"""

import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest
from clusters import (LINK_RATE_BIT_PER_S, RUN, assert_left_as_before, down, hpcprobe, launch,
                      snapshot, topology, up)
from helpers import stderr_lines

from hpcprobe.cluster import load_cluster
from hpcprobe.cluster import system as cluster_system
from hpcprobe.launch import find_bench


RECEIVER = """
import json, socket, sys
address, port, count, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((address, port))
s.setsockopt(socket.IPPROTO_IP, 12, 1)  # IP_RECVTTL: each datagram's TTL on arrival
s.settimeout(wait)
print("ready", flush=True)
ttls = []
try:
    while len(ttls) < count:
        data, ancillary, flags, sender = s.recvmsg(64, 64)
        ttls += [item[2][0] for item in ancillary if item[1] == 2]  # IP_TTL
except socket.timeout:
    pass
print(json.dumps(ttls), flush=True)
"""
SENDER = """
import socket, sys, time
address, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 64)
for _ in range(count):
    s.sendto(b"x", (address, port))
    time.sleep(0.001)
"""



def hostname(host) -> str:
    return cluster_system.run(["nsenter", "-t", str(host.holder_pid), "--uts", "--",
                               "hostname"]).strip()


def ipv4_addresses(namespace: str) -> List[str]:
    entries = json.loads(cluster_system.run(["ip", "-n", namespace, "-j", "-4", "addr"]))
    return [a["local"] for entry in entries for a in entry.get("addr_info", [])]


def udp_ttls(cluster, source, target, count=5, port=9999) -> List[int]:
    """Send `count` datagrams from host `source` to `target`; the TTL of each that
    arrived (sent with 64, one less per forwarding host)."""
    src, dst = cluster.host(source), cluster.host(target)
    receiver = subprocess.Popen(
        ["ip", "netns", "exec", dst.namespace, sys.executable, "-c", RECEIVER, dst.address,
         str(port), str(count), "2"], stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout.readline().strip() == "ready"
        cluster_system.run(["ip", "netns", "exec", src.namespace, sys.executable, "-c", SENDER,
                            dst.address, str(port), str(count)])
        return json.loads(receiver.stdout.readline())
    finally:
        receiver.kill()
        receiver.wait()


def sent_packets(end) -> int:
    """Packets the root qdisc of a link end has sent (its egress: one direction)."""
    qdiscs = json.loads(cluster_system.run(["tc", "-n", end.namespace, "-s", "-j", "qdisc",
                                            "show", "dev", end.interface]))
    return sum(q["packets"] for q in qdiscs if q.get("root"))


def test_flat_hosts_have_their_names_and_cluster_addresses_only(flat2, cluster_env):
    assert [hostname(host) for host in flat2.hosts] == [f"{flat2.name}-h0", f"{flat2.name}-h1"]
    assert hostname(flat2.head) == f"{flat2.name}-head"
    network = ipaddress.IPv4Network(flat2.subnet)
    for host in [*flat2.hosts, flat2.head]:
        assert [a for a in ipv4_addresses(host.namespace) if a != "127.0.0.1"] == [host.address]
        assert ipaddress.IPv4Address(host.address) in network
    assert ipv4_addresses(f"hpcprobe-{flat2.name}-fabric") == ["127.0.0.1"]
    root = json.loads(cluster_system.run(["ip", "-j", "-4", "addr"]))
    assert not any(ipaddress.IPv4Address(a["local"]) in network
                   for entry in root for a in entry.get("addr_info", []))
    bridges = json.loads(cluster_system.run(["ip", "-n", f"hpcprobe-{flat2.name}-fabric", "-j",
                                             "link", "show", "type", "bridge"]))
    assert [b["ifname"] for b in bridges] == ["sw"]


def test_an_existing_name_is_refused_with_one_line(flat2, cluster_env):
    before = snapshot()
    completed = hpcprobe(cluster_env, "cluster", "up", "--name", flat2.name, "--nodes", "2")
    assert completed.returncode == 2
    assert len(stderr_lines(completed)) == 1 and "exists" in completed.stderr
    assert snapshot() == before


def test_ranks_see_their_hosts_names(flat2, cluster_env):
    seen = topology(cluster_env, flat2, 4, 2)
    assert seen["node_hosts"] == [host.name for host in flat2.hosts]
    assert seen["rank_node"] == [0, 0, 1, 1]


def test_pairs_inter_node_below_the_link_intra_node_far_above(flat2, cluster_env, tmp_path):
    results = tmp_path / "pairs.jsonl"
    completed = launch(cluster_env, flat2, 4, 2, find_bench(os.environ), "pairs", "--size",
                       "1M", "--messages", "4", "--repeat", "1", "--quiet", "--out",
                       str(results))
    assert completed.returncode == 0, completed.stderr
    record = json.loads(results.read_text().splitlines()[-1])
    samples = {m["name"]: m["samples"] for m in record["metrics"]}
    assert record["metadata"]["hosts"] == [host.name for host in flat2.hosts]
    link_bytes_per_s = LINK_RATE_BIT_PER_S / 8
    inter, intra = samples["inter_node_bandwidth"], samples["intra_node_bandwidth"]
    assert max(inter) <= 1.05 * link_bytes_per_s, inter  # TCP through the shaped link
    assert sorted(intra)[len(intra) // 2] >= 10 * max(inter), (intra, inter)


def test_four_flat_hosts_launch_and_down_leaves_nothing(cluster_env):
    before = snapshot()
    name = f"{RUN}d"
    try:
        cluster = up(cluster_env, name, "--nodes", "4")
        assert [hostname(host) for host in cluster.hosts] == [f"{name}-h{i}" for i in range(4)]
        assert topology(cluster_env, cluster, 4, 1)["node_hosts"] == [h.name for h in
                                                                       cluster.hosts]
        holders = [host.holder_pid for host in [*cluster.hosts, cluster.head]]
    finally:
        down(cluster_env, name)
    assert_left_as_before(before, name, cluster_env)
    assert not any(cluster_system.alive(pid) for pid in holders)


def test_tree_crosses_an_uplink_only_between_leaves(make_cluster, cluster_env):
    cluster = make_cluster("t", "--nodes", "4", "--topology", "tree:2x2", "--link-rate",
                           "400mbit", "--uplink-rate", "200mbit")
    uplink = cluster.link("leaf0-root").ends[0]  # leaf0's egress towards the root
    start = sent_packets(uplink)
    assert udp_ttls(cluster, "h0", "h1", count=20) == [64] * 20  # switched, not routed
    assert sent_packets(uplink) - start < 5
    assert udp_ttls(cluster, "h0", "h2", count=20) == [64] * 20
    assert sent_packets(uplink) - start >= 20
    assert topology(cluster_env, cluster, 4, 1)["node_hosts"] == [h.name for h in cluster.hosts]


def test_torus_2x2_routes_through_one_host_and_runs_mpi(make_cluster, cluster_env):
    cluster = make_cluster("r", "--nodes", "4", "--topology", "torus:2x2")
    assert len([link for link in cluster.links if link.kind == "torus"]) == 4
    assert udp_ttls(cluster, "h0", "h3") == [63] * 5  # (0,0) to (1,1): forwarded by h2
    assert udp_ttls(cluster, "h0", "h1") == [64] * 5
    seen = topology(cluster_env, cluster, 4, 1)
    assert seen["node_hosts"] == [host.name for host in cluster.hosts]


def test_torus_4x2_message_crosses_its_path_and_is_forwarded_by_its_hosts(make_cluster):
    cluster = make_cluster("q", "--nodes", "8", "--topology", "torus:4x2")
    for target in cluster.hosts[1:]:
        hops = cluster.hops("h0", target.id)
        assert udp_ttls(cluster, "h0", target.id) == [64 - (hops - 1)] * 5, target.id
    path = cluster.path("h0", "h5")  # (0,0) -> (2,1): +x, +x, +y
    assert [link.id for link in path] == ["h0-h2", "h2-h4", "h4-h5"]
    ends = {link.id: link.ends[0] for link in cluster.links if link.kind == "torus"}
    start = {link: sent_packets(end) for link, end in ends.items()}
    udp_ttls(cluster, "h0", "h5", count=40)
    crossed = {link for link, end in ends.items() if sent_packets(end) - start[link] >= 40}
    assert crossed == {link.id for link in path}


def test_link_loss_drops_about_that_fraction(make_cluster, cluster_env):
    cluster = make_cluster("l", "--nodes", "2", "--link-rate", "400mbit")
    assert len(udp_ttls(cluster, "h0", "h1", count=5)) == 5  # neighbours known first
    completed = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--link",
                         "h0-sw", "loss", "20%")
    assert completed.returncode == 0, completed.stderr
    assert load_cluster(cluster.name, cluster_env).link("h0-sw").fault.loss_fraction == 0.2
    arrived = len(udp_ttls(cluster, "h0", "h1", count=400, port=9998))
    assert 0.65 * 400 <= arrived <= 0.92 * 400
    completed = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--link",
                         f"{cluster.name}-h0-sw", "up")
    assert completed.returncode == 0, completed.stderr
    assert len(udp_ttls(cluster, "h0", "h1", count=100, port=9997)) == 100


def test_link_down_ends_a_running_launch_and_up_restores(make_cluster, cluster_env):
    cluster = make_cluster("x", "--nodes", "2", "--link-rate", "400mbit")
    bench = find_bench(os.environ)
    running = subprocess.Popen(
        [sys.executable, "-m", "hpcprobe", "launch", "--cluster", cluster.name, "--np", "2",
         "--ppn", "1", "--time-budget", "6", "--", bench, "comm", "pingpong", "--sizes", "1M",
         "--time-per-size", "3"], env=cluster_env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while len(cluster_system.namespace_pids(cluster.hosts[1].namespace)) < 3:  # holder,
        assert time.monotonic() < deadline and running.poll() is None   # proxy, rank
        time.sleep(0.1)
    started = time.monotonic()
    completed = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--link",
                         "h1-sw", "down")
    assert completed.returncode == 0, completed.stderr
    _, stderr = running.communicate(timeout=30)
    assert running.returncode == 3
    assert "exceeded its time budget of 6 s" in stderr
    assert time.monotonic() - started < 6 + 10  # the budget, and the stop's grace
    for host in [*cluster.hosts, cluster.head]:  # nothing left but the holders
        assert cluster_system.namespace_pids(host.namespace) == [host.holder_pid]
    completed = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--link",
                         "h1-sw", "up")
    assert completed.returncode == 0, completed.stderr
    completed = launch(cluster_env, cluster, 2, 1, bench, "comm", "pingpong", "--sizes", "1K",
                       "--time-per-size", "0.05")
    assert completed.returncode == 0, completed.stderr


def test_delay_needs_netem(make_cluster, cluster_env):
    has_netem = cluster_system.netem_available()
    name = f"{RUN}n"
    options = ["--nodes", "2", "--link-delay", "50us"]
    if has_netem:
        cluster = make_cluster("n", *options)
        assert cluster.links[0].delay_s == pytest.approx(50e-6)
        return
    before = snapshot()
    completed = hpcprobe(cluster_env, "cluster", "up", "--name", name, *options)
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        "hpcprobe: --link-delay needs tc's netem qdisc, which this kernel lacks "
        "(CONFIG_NET_SCH_NETEM); use --link-delay 0 (docs/cluster.md)"]
    assert snapshot() == before


def test_a_failing_up_removes_what_it_made(cluster_env, tmp_path):
    fake_tc = tmp_path / "bin" / "tc"
    fake_tc.parent.mkdir()
    fake_tc.write_text("#!/bin/sh\necho 'RTNETLINK answers: injected failure' >&2\nexit 2\n")
    fake_tc.chmod(0o755)
    env = dict(cluster_env, PATH=f"{fake_tc.parent}:{os.environ['PATH']}")
    before = snapshot()
    name = f"{RUN}e"
    completed = hpcprobe(env, "cluster", "up", "--name", name, "--nodes", "2")
    assert completed.returncode == 3
    lines = stderr_lines(completed)
    assert len(lines) == 1 and "injected failure" in lines[0] and "removed" in lines[0], lines
    assert_left_as_before(before, name, cluster_env)


def recorded_holders(path: Path) -> List[int]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []  # not written yet, or being replaced
    return [h["holder_pid"] for h in [*data["hosts"], data["head"]] if h["holder_pid"]]


@pytest.mark.parametrize("when", ["namespaces made", "holders starting"])
def test_down_cleans_up_after_a_killed_up(cluster_env, when):
    before = snapshot()
    name = f"{RUN}k"
    path = Path(cluster_env["HPCPROBE_CLUSTER_DIR"]) / f"{name}.json"
    process = subprocess.Popen([sys.executable, "-m", "hpcprobe", "cluster", "up", "--name",
                                name, "--nodes", "16", "--topology", "torus:4x4"],
                               env=cluster_env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while (len(cluster_system.namespaces(f"hpcprobe-{name}-")) < 10 if when == "namespaces made"
           else not recorded_holders(path)):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)  # no chance to clean up after itself
    process.wait()
    holders = recorded_holders(path)
    assert cluster_system.namespaces(f"hpcprobe-{name}-")
    down(cluster_env, name)
    assert_left_as_before(before, name, cluster_env)
    assert not any(cluster_system.alive(pid) for pid in holders)


@pytest.mark.parametrize("how, says", [
    ("user", "hpcprobe cluster up needs root"),
    ("path", "hpcprobe cluster up needs ip, tc, nsenter"),
])
def test_without_root_or_tools_one_line_and_nothing_made(cluster_env, how, says):
    before = snapshot()
    env = dict(cluster_env)
    argv = [sys.executable, "-m", "hpcprobe", "cluster", "up", "--name", f"{RUN}p",
            "--nodes", "2"]
    if how == "user":
        # As uid 65534 as far as hpcprobe can tell. Not setpriv: an unprivileged user
        # may not be able to read a checkout (mktemp -d makes it 0700).
        argv = [sys.executable, "-c", "import os, sys; os.geteuid = lambda: 65534; "
                "from hpcprobe.cli import main; sys.exit(main(sys.argv[1:]))", *argv[3:]]
    else:
        env["PATH"] = "/nonexistent"
    completed = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert completed.returncode == 2, completed.stderr
    lines = stderr_lines(completed)
    assert len(lines) == 1 and says in lines[0], lines
    assert snapshot() == before


# --- every family with --cluster ----------------------------------------------------------

