"""A plain `mpiexec` inside `hpcprobe cluster exec` on a real emulated cluster (root, ip,
tc): its ranks run on the cluster's hosts, one a host with `-ppn 1` and by the host file's
slots without it; `down` removes the exec directory. test_exec_env.py has the refusal."""

from pathlib import Path

from clusters import hpcprobe


def exec_mpiexec(env, cluster, *words):
    done = hpcprobe(env, "cluster", "exec", "--name", cluster.name, "--", "mpiexec", *words,
                    timeout=90)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_plain_mpiexec_in_cluster_exec_reaches_every_host(make_cluster, cluster_env):
    cluster = make_cluster("x", "--nodes", "4", "--link-rate", "400mbit",
                           "--cores-per-node", "1")
    names = sorted(host.name for host in cluster.hosts)
    seen = exec_mpiexec(cluster_env, cluster, "-n", "4", "-ppn", "1", "hostname")
    assert sorted(seen) == names  # 4 ranks, 4 distinct hosts, none on the head
    # No -ppn: the host file's slots (1 core a host) place them the same way.
    assert sorted(exec_mpiexec(cluster_env, cluster, "-n", "4", "hostname")) == names
    directory = Path(cluster_env["HPCPROBE_CLUSTER_DIR"]) / f"{cluster.name}.exec"
    assert (directory / "hosts").is_file()
    done = hpcprobe(cluster_env, "cluster", "down", "--name", cluster.name)
    assert done.returncode == 0, done.stderr
    assert not directory.exists()
