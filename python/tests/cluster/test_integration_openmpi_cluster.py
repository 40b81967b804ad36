"""hpcprobe built with Open MPI (MPI=system) on an emulated cluster (docs/cluster.md):
mpirun from the head, its daemons started in the hosts by hpcprobe-enter-host, TCP
between hosts through the shaped links and shared memory within one.

`make pytest` installs Debian's Open MPI (as root) and builds that second venv
(build/venv-openmpi); where either is missing the tests fail and say so, never skip."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import REPO, run_hpcprobe
from integration import require_cluster_support

from hpcprobe.cluster import load_cluster

ROOT = REPO
OPENMPI_HPCPROBE = ROOT / "build" / "venv-openmpi" / "bin" / "hpcprobe"
NAME = f"o{os.getpid() % 100000}"
LINK_BYTES_PER_S = 50e6


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_cluster_support()
    if not os.access(OPENMPI_HPCPROBE, os.X_OK):
        pytest.fail(f"no {OPENMPI_HPCPROBE}: 'make pytest' builds it with Debian's Open MPI "
                    "(apt-get install openmpi-bin libopenmpi-dev, as root)")
    return dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path_factory.mktemp("clusters")))


@pytest.fixture(scope="module")
def flat2(env):
    done = run_hpcprobe("cluster", "up", "--name", NAME, "--nodes", "2", "--link-rate",
                        "400mbit", "--cores-per-node", "2", env=env)
    try:
        assert done.returncode == 0, done.stderr
        yield load_cluster(NAME, env)
    finally:
        run_hpcprobe("cluster", "down", "--name", NAME, env=env)


def openmpi_hpcprobe(env, *args, timeout=300):
    return subprocess.run([str(OPENMPI_HPCPROBE), *args], env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def records(out: Path):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_open_mpi_pingpong_crosses_the_link_between_hosts(flat2, env, tmp_path):
    out = tmp_path / "out"
    done = openmpi_hpcprobe(env, "comm", "pingpong", "--sizes", "1M", "--cluster", NAME,
                            "--ppn", "1", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    (record,) = records(out)
    metadata = record["metadata"]
    assert "Open MPI" in metadata["mpi_library"], metadata["mpi_library"]
    assert metadata["transport"].startswith("inter-node: tcp (Open MPI ob1, btl tcp) over fab0")
    assert metadata["hosts"] == [host.name for host in flat2.hosts]
    assert metadata["rank_hosts"] == [0, 1]
    assert record["validation"]["verdict"] == "passed", record["validation"]
    bandwidth = next(s for s in record["series"] if s["name"] == "bandwidth")["y"][-1]
    assert 0.6 * LINK_BYTES_PER_S < bandwidth <= 1.1 * LINK_BYTES_PER_S, bandwidth


def test_open_mpi_pairs_find_the_node_boundary(flat2, env, tmp_path):
    # 2 hosts x 2 ranks: the pairs within a host use shared memory, far above the link;
    # those between hosts stay below it.
    out = tmp_path / "out"
    done = openmpi_hpcprobe(env, "pairs", "--size", "1M", "--cluster", NAME, "--ppn", "2",
                            "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    (record,) = records(out)
    assert record["validation"]["verdict"] == "passed", record["validation"]
    assert record["metadata"]["rank_hosts"] == [0, 0, 1, 1]
    metric = {m["name"]: max(m["samples"]) for m in record["metrics"]}
    assert metric["inter_node_bandwidth"] <= 1.1 * LINK_BYTES_PER_S
    assert metric["intra_node_bandwidth"] > 10 * metric["inter_node_bandwidth"]
