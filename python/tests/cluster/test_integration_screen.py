"""`hpcprobe screen --cluster` on 4 emulated hosts (issue 43): every host named, each
with its battery figures; every host pair measured both ways; screen.json whole; no node
slow and no link bad; and one host of four throttled to half (`cluster fault cpu 0.5`)
named slow alone, repeated, with one drain line."""

import json
import time

from clusters import hpcprobe


def test_screen_names_every_host_of_four_and_every_pair(make_cluster, cluster_env, tmp_path):
    cluster = make_cluster("s4", "--nodes", "4", "--link-rate", "400mbit",
                           "--cores-per-node", "1")
    out = tmp_path / "screen"
    started = time.monotonic()
    completed = hpcprobe(cluster_env, "screen", "--cluster", cluster.name, "--out", str(out),
                         "--quiet", "--history", "off", timeout=600)
    elapsed = time.monotonic() - started
    data = json.loads((out / "screen.json").read_text())
    hosts = sorted(host.name for host in cluster.hosts)
    assert sorted(data["hosts"]) == hosts, completed.stderr
    assert [node["host"] for node in data["nodes"]] == data["hosts"]
    for node in data["nodes"]:
        checks = {check["check"]: check for check in node["checks"]}
        assert set(checks) == {"dgemm", "stream", "latency", "ra"}
        assert all(check["value"] > 0 and check["median"] > 0 for check in checks.values())
        assert node["status"] in ("ok", "slow"), node  # judged: 3 peers each
    bandwidth = {(p["a"], p["b"]) for p in data["pairs"] if p["check"] == "pair-bandwidth"}
    assert bandwidth == {(a, b) for a in hosts for b in hosts if a < b}
    rate = [p["value"] for p in data["pairs"] if p["check"] == "pair-bandwidth"]
    assert all(20e6 < value < 60e6 for value in rate), rate  # 400 Mbit/s links
    # Unthrottled: nothing to find (the verdicts' thresholds leave the noise of a shared
    # machine alone); a failure here names what was flagged.
    flagged = [node["host"] for node in data["nodes"] if node["status"] != "ok"] + \
        [(link["a"], link["b"], link["check"]) for link in data["links"]
         if link["status"] == "bad"]
    assert flagged == [], (flagged, completed.stdout)
    assert completed.returncode == 0, completed.stderr
    print(f"screen on 4 emulated hosts: {elapsed:.1f} s")


def test_screen_names_the_host_throttled_to_half_alone(make_cluster, cluster_env, tmp_path):
    """The issue's half: the four hosts of 1 core share this machine's 2 CPUs, so the
    fault caps every host at its share (half a CPU) and the throttled one at half of
    that, and weighs the cluster above the machine's other work (docs/cluster.md,
    Faults); without both its neighbours took the CPU it left and the fault was lost in
    the fleet's spread. Stream is left out: memory-bound, a CPU cap barely slows it."""
    cluster = make_cluster("t4", "--nodes", "4", "--link-rate", "400mbit",
                           "--cores-per-node", "1")
    throttled = next(host.name for host in cluster.hosts if host.id == "h2")
    fault = hpcprobe(cluster_env, "cluster", "fault", "--name", cluster.name, "--host", "h2",
                     "cpu", "0.5")
    assert fault.returncode == 0, fault.stderr
    out = tmp_path / "screen"
    completed = hpcprobe(cluster_env, "screen", "--cluster", cluster.name, "--out", str(out),
                         "--quiet", "--history", "off", "--checks",
                         "dgemm,ra,pair-bandwidth", timeout=900)
    data = json.loads((out / "screen.json").read_text())
    statuses = {node["host"]: node["status"] for node in data["nodes"]}
    assert statuses.pop(throttled) == "slow", (data["nodes"], completed.stdout)
    assert set(statuses.values()) == {"ok"}, (data["nodes"], completed.stdout)
    assert [link for link in data["links"] if link["status"] == "bad"] == []
    assert throttled in data["repeated"]
    drain = [line for line in data["drain"] if not line.startswith("#")]
    assert len(drain) == 1 and f"NodeName={throttled} " in drain[0], data["drain"]
    assert completed.returncode == 1
