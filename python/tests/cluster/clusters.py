"""What the emulated-cluster tests share (conftest.py has their fixtures): hpcprobe run
against a cluster directory of the test run, `up`/`down`, a launch, and the check that
`down` left the machine as it found it. Names are unique to this run: other runs may have
clusters of their own."""

import json
import os
from pathlib import Path
from typing import Dict, List

from helpers import run_hpcprobe

from hpcprobe.cluster import Cluster, cgroups, load_cluster
from hpcprobe.cluster import system as cluster_system
from hpcprobe.launch import find_bench

RUN = f"pt{os.getpid() % 100000}"
LINK_RATE_BIT_PER_S = 400e6


def hpcprobe(env, *args, timeout=120):
    return run_hpcprobe(*args, env=env, timeout=timeout)


def snapshot() -> Dict[str, List[str]]:
    """What `down` must leave as it found: namespaces, the root namespace's links."""
    links = json.loads(cluster_system.run(["ip", "-j", "link", "show"]))
    return {"netns": cluster_system.namespaces(),
            "root links": sorted(link["ifname"] for link in links)}


def assert_left_as_before(before, name, env):
    after = snapshot()
    prefix = f"hpcprobe-{name}-"
    assert [ns for ns in after["netns"] if ns.startswith(prefix)] == []
    assert set(before["netns"]) <= set(after["netns"])  # nothing of others removed
    assert after["root links"] == before["root links"]
    assert not (Path(env["HPCPROBE_CLUSTER_DIR"]) / f"{name}.json").exists()
    assert not cgroups.found_cgroups(name)  # the hosts' cgroups too
    assert not (Path(env["HPCPROBE_CLUSTER_DIR"]) / f"{name}.cgroup").exists()


def up(env, name, *options) -> Cluster:
    completed = hpcprobe(env, "cluster", "up", "--name", name, *options)
    assert completed.returncode == 0, completed.stderr
    return load_cluster(name, env)


def down(env, name):
    completed = hpcprobe(env, "cluster", "down", "--name", name)
    assert completed.returncode == 0, completed.stderr


def launch(env, cluster, np, ppn, *program, budget=60, timeout=120):
    return hpcprobe(env, "launch", "--cluster", cluster.name, "--np", str(np), "--ppn",
                    str(ppn), "--time-budget", str(budget), "--", *program, timeout=timeout)


def topology(env, cluster, np, ppn):
    completed = launch(env, cluster, np, ppn, find_bench(os.environ), "topology", "show")
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])

