"""Faults on real emulated hosts (root): a host throttled to half its cores' time runs a
busy loop about half as fast as its unthrottled neighbour, and as fast again once the
fault is lifted; every process started on a host (MPI's proxies and ranks) is in the
host's cgroup; a link reshaped to a quarter of its rate carries about a quarter; bad
input changes nothing; `down` removes the cgroups.

The machine running these may be shared and loaded (2 CPUs, other work): a loop there
gets a share of a CPU, which may be below the throttle, and would then run no faster
unthrottled. The tests therefore raise both hosts' cgroups' CPU weight for their short
loops, so that each loop has a CPU of its own but for the throttle."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clusters import RUN, down, hpcprobe, launch, snapshot, up
from helpers import stderr_lines

from hpcprobe.cluster import cgroups, load_cluster
from hpcprobe.cluster import system as cluster_system

LOOP_S = 1.5
LOOP = f"""
import time
count, end = 0, time.monotonic() + {LOOP_S}
while time.monotonic() < end:
    for _ in range(10000):
        count += 1
print(count)
"""
RECEIVER = """
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
first = c.recv(1 << 16)
start, received = time.monotonic(), 0
while True:
    data = c.recv(1 << 16)
    if not data:
        break
    received += len(data)
print(received / (time.monotonic() - start), flush=True)
"""
SENDER = """
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.sendall(b"x" * int(sys.argv[3]))
s.close()
"""


@pytest.fixture(scope="module")
def pair(cluster_env):
    """Two hosts of one core each, on a switch at 400 Mbit/s."""
    name = f"{RUN}u"
    cluster = up(cluster_env, name, "--nodes", "2", "--cores-per-node", "1", "--link-rate",
                 "400mbit")
    yield cluster
    down(cluster_env, name)
    assert not cgroups.found_cgroups(name)
    assert not (Path(cluster_env["HPCPROBE_CLUSTER_DIR"]) / f"{name}.cgroup").exists()


def fault(env, cluster, *words):
    return hpcprobe(env, "cluster", "fault", "--name", cluster.name, *words)


def weigh(cluster, heavy: bool) -> None:
    """Give the hosts' loops a CPU each on a loaded machine (see the module's text): the
    cluster's cgroup among the machine's, and its hosts' among themselves."""
    for path in [Path(cluster.hosts[0].cgroup).parent] + [Path(h.cgroup) for h in cluster.hosts]:
        if (path / "cpu.weight").exists():
            (path / "cpu.weight").write_text("10000" if heavy else "100")
        else:
            (path / "cpu.shares").write_text("262144" if heavy else "1024")


def loop_counts(env, cluster, repeats=3):
    """Each host's best count of a busy loop run at once on both, through `cluster exec`."""
    best = [0, 0]
    weigh(cluster, True)
    try:
        for _ in range(repeats):
            runs = [subprocess.Popen([sys.executable, "-m", "hpcprobe", "cluster", "exec",
                                      "--name", cluster.name, "--host", host.id, "--",
                                      sys.executable, "-c", LOOP], env=env,
                                     stdout=subprocess.PIPE, text=True)
                    for host in cluster.hosts]
            counts = [int(run.communicate(timeout=60)[0]) for run in runs]
            best = [max(b, c) for b, c in zip(best, counts)]
    finally:
        weigh(cluster, False)
    return best


def test_a_host_at_half_its_cpu_loops_half_as_fast_until_lifted(pair, cluster_env):
    completed = fault(cluster_env, pair, "--host", "h0", "cpu", "0.5")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == f"host h0 of {pair.name}: cpu 0.5 of its 1 cores' time"
    assert load_cluster(pair.name, cluster_env).hosts[0].cpu_fraction == 0.5
    try:
        throttled, free = loop_counts(cluster_env, pair)
    finally:
        completed = fault(cluster_env, pair, "--host", "h0", "cpu", "1")
    assert completed.returncode == 0, completed.stderr
    print(f"throttled/free {throttled / free:.3f} ({throttled} / {free})")
    assert 0.3 <= throttled / free <= 0.7  # unthrottled: 0.95-1.0
    lifted, free = loop_counts(cluster_env, pair)
    print(f"lifted/free {lifted / free:.3f} ({lifted} / {free})")
    assert 0.8 <= lifted / free <= 1.25
    assert load_cluster(pair.name, cluster_env).hosts[0].cpu_fraction == 1.0


def test_up_lifts_a_throttle(pair, cluster_env):
    quota = Path(pair.hosts[1].cgroup) / (
        "cpu.max" if (Path(pair.hosts[1].cgroup) / "cpu.max").exists() else "cpu.cfs_quota_us")
    unthrottled = quota.read_text()
    assert fault(cluster_env, pair, "--host", "h1", "cpu", "0.2").returncode == 0
    assert quota.read_text().split()[0] == "2000"  # 0.2 of a CPU in a 10 ms period
    completed = fault(cluster_env, pair, "--host", pair.hosts[1].name, "up")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == f"host h1 of {pair.name}: cpu unthrottled"
    assert quota.read_text() == unthrottled


def test_mpi_ranks_run_in_their_hosts_cgroups(pair, cluster_env):
    completed = launch(cluster_env, pair, 2, 1, "sh", "-c",
                       "echo $(hostname) $(cat /proc/self/cgroup)")
    assert completed.returncode == 0, completed.stderr
    lines = {line.split()[0]: line for line in completed.stdout.splitlines() if line.strip()}
    for host in pair.hosts:
        assert f"/hpcprobe-{pair.name}/{host.id}" in lines[host.name], lines


def transfer_rate(cluster, size: int, port: int) -> float:
    """Bytes per second of one TCP transfer from h0 to h1 (timed where it arrives)."""
    src, dst = cluster.hosts
    receiver = subprocess.Popen(["ip", "netns", "exec", dst.namespace, sys.executable, "-c",
                                 RECEIVER, dst.address, str(port)],
                                stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout.readline().strip() == "ready"
        cluster_system.run(["ip", "netns", "exec", src.namespace, sys.executable, "-c",
                            SENDER, dst.address, str(port), str(size)])
        return float(receiver.stdout.readline())
    finally:
        receiver.kill()
        receiver.wait()


def test_a_link_at_a_quarter_of_its_rate_carries_a_quarter(pair, cluster_env):
    clean = max(transfer_rate(pair, 8 << 20, 9100 + attempt) for attempt in range(2))
    completed = fault(cluster_env, pair, "--link", "h0-sw", "rate", "100mbit")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == f"link h0-sw of {pair.name}: rate 100 Mbit/s"
    try:
        reshaped = max(transfer_rate(pair, 4 << 20, 9200 + attempt) for attempt in range(2))
    finally:
        completed = fault(cluster_env, pair, "--link", "h0-sw", "up")
    assert completed.returncode == 0, completed.stderr
    print(f"reshaped/clean {reshaped / clean:.3f} ({reshaped * 8e-6:.1f} / "
          f"{clean * 8e-6:.1f} Mbit/s)")
    assert 0.6 * 100e6 / 8 <= reshaped <= 1.05 * 100e6 / 8
    assert 0.18 <= reshaped / clean <= 0.35
    assert load_cluster(pair.name, cluster_env).link("h0-sw").fault.rate_bit_per_s is None


def test_a_record_says_which_host_was_throttled_and_which_link_reshaped(pair, cluster_env,
                                                                       tmp_path):
    assert fault(cluster_env, pair, "--host", "h1", "cpu", "0.5").returncode == 0
    assert fault(cluster_env, pair, "--link", "h0-sw", "rate", "100mbit").returncode == 0
    try:
        completed = hpcprobe(cluster_env, "comm", "pingpong", "--sizes", "1K",
                             "--time-per-size", "0.05", "--cluster", pair.name, "--ppn", "1",
                             "--out", str(tmp_path), "--quiet", "--time-budget", "60")
    finally:
        assert fault(cluster_env, pair, "--host", "h1", "up").returncode == 0
        assert fault(cluster_env, pair, "--link", "h0-sw", "up").returncode == 0
    assert completed.returncode == 0, completed.stderr
    (record,) = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text()
                 .splitlines()]
    assert record["metadata"]["cluster_faults"] == "h1 cpu 0.5; h0-sw rate 100000000bit"


@pytest.mark.parametrize("words, says", [
    (["--host", "head", "cpu", "0.5"], "is its login node, not a host"),
    (["--host", "h7", "cpu", "0.5"], "has no host 'h7'"),
    (["--host", "h0", "cpu", "0"], "cpu takes a fraction of the host's cores' time"),
    (["--link", "h0-h7", "rate", "1mbit"], "has no link 'h0-h7'"),
])
def test_bad_faults_change_nothing(pair, cluster_env, words, says):
    path = Path(cluster_env["HPCPROBE_CLUSTER_DIR"]) / f"{pair.name}.json"
    before = (path.read_text(), snapshot(),
              [(Path(host.cgroup) / "cpu.cfs_quota_us").exists() and
               (Path(host.cgroup) / "cpu.cfs_quota_us").read_text() for host in pair.hosts])
    completed = fault(cluster_env, pair, *words)
    assert completed.returncode == 2, completed.stderr
    lines = stderr_lines(completed)
    assert len(lines) == 1 and says in lines[0], lines
    after = (path.read_text(), snapshot(),
             [(Path(host.cgroup) / "cpu.cfs_quota_us").exists() and
              (Path(host.cgroup) / "cpu.cfs_quota_us").read_text() for host in pair.hosts])
    assert after == before
    assert json.loads(after[0])["status"] == "up"


def test_down_stops_a_process_left_in_a_hosts_cgroup(make_cluster, cluster_env):
    cluster = make_cluster("g", "--nodes", "1")
    host = cluster.hosts[0]
    # In the host's cgroup but not its namespaces: found through the cgroup all the same.
    stray = subprocess.Popen(cgroups.joined(host, ["sleep", "60"]))
    deadline = time.monotonic() + 5
    while stray.pid not in cgroups.cgroup_pids(Path(host.cgroup).parent):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    down(cluster_env, cluster.name)
    assert stray.wait(timeout=5) == -9
    assert not cgroups.found_cgroups(cluster.name)
