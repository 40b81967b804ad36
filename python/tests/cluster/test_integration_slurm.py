"""hpcprobe under a real Slurm on an emulated cluster (`cluster up --slurm`,
docs/cluster.md): Debian's slurmctld on the head, a slurmd in each host, and salloc,
srun and hpcprobe's own srun launcher placing ranks on the emulated hosts.

Needs root, iproute2, slurm-wlm and munge: where they are missing the tests fail with
that reason (CI is root, and `make pytest` installs Slurm), never skip."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_hpcprobe, stderr_lines
from integration import slurm_cluster, slurm_env

from hpcprobe.cluster import load_cluster
from hpcprobe.cluster import system as cluster_system

NAME = f"s{os.getpid() % 100000}"
# The venv's hpcprobe (CI does not put the venv on PATH).
HPCPROBE = str(Path(sys.executable).parent / "hpcprobe")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return slurm_env(tmp_path_factory.mktemp("clusters"))


@pytest.fixture(scope="module")
def slurm2(env):
    """Two hosts at 400 Mbit/s with Slurm, removed after the tests whatever happens."""
    with slurm_cluster(NAME, env, "--link-rate", "400mbit") as done:
        assert "Slurm up" in done.stdout
        yield load_cluster(NAME, env)


def cluster_exec(env, *command, timeout=300):
    return run_hpcprobe("cluster", "exec", "--name", NAME, "--", *command, env=env,
                        timeout=timeout)


def records(out: Path):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def daemons(cluster):
    """(command name, host name) of every Slurm and munge daemon in the cluster."""
    found = []
    for host in [*cluster.hosts, cluster.head]:
        for pid in cluster_system.namespace_pids(host.namespace):
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if comm in ("slurmctld", "slurmd", "munged"):
                found.append((comm, host.name))
    return sorted(found)


def test_slurm_runs_a_controller_on_the_head_and_a_slurmd_per_host(slurm2, env):
    assert daemons(slurm2) == sorted([("munged", slurm2.head.name),
                                      ("slurmctld", slurm2.head.name),
                                      *[("slurmd", host.name) for host in slurm2.hosts]])
    done = cluster_exec(env, "srun", "-N", "2", "-n", "2", "hostname")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == [host.name for host in slurm2.hosts]


def test_a_plain_mpiexec_in_an_allocation_takes_the_allocations_hosts(slurm2, env):
    # cluster exec's host file would name every host: inside salloc hydra asks Slurm
    # (and starts its proxies with srun). Not -N 1: hydra 5.0.2 cannot parse a nodelist
    # of one host named like NAME-h0 ("node list format not recognized"), with or
    # without cluster exec.
    done = cluster_exec(env, "salloc", "-N", "2", "mpiexec", "-n", "2", "hostname",
                        timeout=60)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == [host.name for host in slurm2.hosts]


def test_slurm_tasks_run_in_their_hosts_cgroups(slurm2, env):
    # slurmd started in its host's cgroup (`cluster fault --host … cpu` throttles it): its
    # steps, and their tasks, are its children.
    done = cluster_exec(env, "srun", "-N", "2", "-n", "2", "sh", "-c",
                        "echo $(hostname) $(cat /proc/self/cgroup)")
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    for host in slurm2.hosts:
        assert f"/hpcprobe-{slurm2.name}/{host.id}" in lines[host.name], lines


def test_hpcprobe_inside_salloc_uses_srun_and_records_the_job_and_hosts(slurm2, env,
                                                                         tmp_path):
    # What a user does on a real machine: an allocation, then hpcprobe with no launcher
    # option. It finds the allocation and launches with srun (the records' step ids),
    # on both hosts, across the shaped link (the link check would fail a record that
    # did not cross it).
    out = tmp_path / "out"
    done = cluster_exec(env, "salloc", "-N", "2", "-n", "2", HPCPROBE, "comm", "pingpong",
                        "allreduce", "--sizes", "1M", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    found = records(out)
    assert [r["variant"] for r in found] == ["pingpong", "allreduce"]
    for record in found:
        metadata = record["metadata"]
        assert record["validation"]["verdict"] == "passed", record["validation"]
        assert metadata["slurm_job_id"].isdigit() and metadata["slurm_step_id"].isdigit()
        assert metadata["hosts"] == [host.name for host in slurm2.hosts]
        assert metadata["rank_hosts"] == [0, 1]
        assert metadata["cluster"] == NAME
    assert len({r["metadata"]["slurm_job_id"] for r in found}) == 1
    bandwidth = next(s for s in found[0]["series"] if s["name"] == "bandwidth")["y"][-1]
    assert 30e6 < bandwidth <= 1.1 * 50e6, bandwidth


def test_a_study_inside_salloc_runs_each_point_as_its_own_step(slurm2, env, tmp_path):
    # A study in one allocation (issue 42): every point is an srun step of the
    # allocation with its own rank count, P = 1 on one host, P = 2 across both.
    out = tmp_path / "study"
    done = cluster_exec(env, "salloc", "-N", "2", "-n", "2", HPCPROBE, "study",
                        "plimpton-table2", "--scale", "tiny", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    found = records(out)
    assert sorted((r["algorithm"], r["layout"]["ranks"]) for r in found) == [
        ("hypercube", 1), ("hypercube", 2), ("reference", 1), ("reference", 2)]
    for record in found:
        assert record["validation"]["verdict"] == "passed", record["validation"]
    assert len({r["metadata"]["slurm_job_id"] for r in found}) == 1
    assert len({r["metadata"]["slurm_step_id"] for r in found}) == 4
    assert {tuple(r["metadata"]["hosts"]) for r in found if r["layout"]["ranks"] == 2} == {
        tuple(host.name for host in slurm2.hosts)}
    table = json.loads((out / "study-table.json").read_text())
    assert [point["status"] for point in table["points"]] == ["done", "done"]
    assert [row["procs"] for row in table["rows"] if "procs" in row][:2] == [1, 2]


def test_a_study_with_ppn_inside_salloc_runs_ppn_ranks_on_each_node(env, tmp_path):
    # --nodes 1,2 --ppn 2 in an allocation: srun's --nodes and --ntasks-per-node put the
    # points' 2 and 4 ranks on 1 and 2 nodes, two on each.
    name = f"{NAME}p"
    with slurm_cluster(name, env, "--link-rate", "400mbit", "--cores-per-node", "2"):
        out = tmp_path / "study"
        done = run_hpcprobe("cluster", "exec", "--name", name, "--", "salloc", "-N", "2",
                            "--ntasks-per-node", "2", HPCPROBE, "study", "plimpton-table2",
                            "--scale", "tiny", "--nodes", "1,2", "--ppn", "2", "--out",
                            str(out), "--quiet", env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        layouts = sorted((r["layout"]["ranks"], len(r["metadata"]["hosts"]),
                          tuple(r["metadata"]["rank_hosts"])) for r in records(out))
        assert layouts == [(2, 1, (0, 0)), (2, 1, (0, 0)), (4, 2, (0, 0, 1, 1)),
                           (4, 2, (0, 0, 1, 1))]


def test_screen_inside_salloc_screens_the_allocations_nodes(slurm2, env, tmp_path):
    # `screen` in an allocation, with no --cluster: the nodes come from Slurm, each check
    # is an srun step of one task a node. Two nodes are fewer peers than a verdict needs
    # (3): every node is 'unjudged' and the screen fails safe (exit 1), never 'ok'.
    out = tmp_path / "screen"
    done = cluster_exec(env, "salloc", "-N", "2", HPCPROBE, "screen", "--checks",
                        "dgemm,pair-latency", "--time-budget", "60", "--out", str(out),
                        "--quiet", "--history", "off", timeout=300)
    hosts = [host.name for host in slurm2.hosts]
    data = json.loads((out / "screen.json").read_text())
    assert sorted(data["hosts"]) == hosts, done.stderr
    for node in data["nodes"]:
        (check,) = node["checks"]
        assert check["check"] == "dgemm" and check["value"] > 0, node
        assert node["status"] == "unjudged", node
    assert [(p["a"], p["b"]) for p in data["pairs"] if p["check"] == "pair-latency"] == [
        tuple(hosts)]
    found = records(out)
    assert found and len({r["metadata"]["slurm_job_id"] for r in found}) == 1
    assert all(r["metadata"]["slurm_step_id"].isdigit() for r in found)
    assert {tuple(r["metadata"]["hosts"]) for r in found} == {tuple(hosts)}
    assert done.returncode == 1, done.stderr


def test_exec_runs_on_a_host_and_refuses_what_is_not_there(slurm2, env):
    done = run_hpcprobe("cluster", "exec", "--name", NAME, "--host", "h1", "--", "hostname",
                        env=env)
    assert done.returncode == 0 and done.stdout.strip() == slurm2.hosts[1].name
    done = run_hpcprobe("cluster", "exec", "--name", NAME, "--", "false", env=env)
    assert done.returncode == 1
    for argv, says in ((["--host", "h9", "--", "true"], "has no host 'h9'"),
                       (["--"], "missing command")):
        done = run_hpcprobe("cluster", "exec", "--name", NAME, *argv, env=env)
        lines = stderr_lines(done)
        assert done.returncode == 2 and len(lines) == 1 and says in lines[0], lines


def test_down_stops_every_daemon_and_removes_the_slurm_directory(env):
    name = f"{NAME}d"
    done = run_hpcprobe("cluster", "up", "--name", name, "--nodes", "2", "--topology",
                        "tree:2x1", "--slurm", env=env, timeout=180)
    try:
        assert done.returncode == 0, done.stderr
        cluster = load_cluster(name, env)
        directory = Path(env["HPCPROBE_CLUSTER_DIR"]) / f"{name}.slurm"
        assert (directory / "topology.conf").read_text().splitlines() == [
            f"SwitchName=leaf0 Nodes={name}-h0", f"SwitchName=leaf1 Nodes={name}-h1",
            "SwitchName=root Switches=leaf0,leaf1"]
        pids = [pid for host in [*cluster.hosts, cluster.head]
                for pid in cluster_system.namespace_pids(host.namespace)]
        assert len(daemons(cluster)) == 4
    finally:
        done = run_hpcprobe("cluster", "down", "--name", name, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not directory.exists()
    assert not any(cluster_system.alive(pid) for pid in pids)
    assert cluster_system.namespaces(f"hpcprobe-{name}-") == []
    left = subprocess.run(["pgrep", "-f", str(directory)], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
