"""A real Slurm on an emulated cluster (`cluster up --slurm`, docs/cluster.md): Debian's
slurm-wlm and munge, the controller (slurmctld) and munged on the head, one slurmd in
every host under the host's own name, so that salloc, sbatch and srun place ranks on the
emulated hosts and hpcprobe's srun launcher and Slurm handling run for real.

Everything lives in one directory of the cluster's own (`<cluster dir>/NAME.slurm`, 0700):
slurm.conf, cgroup.conf, topology.conf (a tree's switches), a munge key made for this
cluster, the daemons' sockets, pid, log, state and spool files. The daemons run in the
cluster's namespaces, so `cluster down` stops them with every other process there; the
directory goes with the cluster's file.

Choices that make slurmd start in a namespace on a machine without systemd:
- `CgroupPlugin=cgroup/v1`: slurmd will not start without a cgroup plugin, and this kind
  of machine mounts cgroup v1 hierarchies under a tmpfs;
- `ProctrackType=proctrack/linuxproc`, `TaskPlugin=task/none`: tasks are tracked by
  parentage and not confined (the hosts share this machine's CPUs already);
- `MpiDefault=pmi2`, which PyPI's MPICH accepts under srun.
"""

import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import List, Mapping, Optional

from hpcprobe.cluster.cgroups import joined
from hpcprobe.cluster.model import Cluster, Host
from hpcprobe.cluster.store import cluster_dir
from hpcprobe.errors import HpcprobeError, UsageError

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("srun", "salloc", "sbatch", "sinfo", "scontrol")
MUNGE_KEY_BYTES = 1024
READY_TIMEOUT_S = 60.0
# The ports inside the cluster's own namespaces: nothing else listens there.
SLURMCTLD_PORT = 6817
SLURMD_PORT = 6818


def slurm_dir(name: str, env: Optional[Mapping[str, str]] = None) -> Path:
    return cluster_dir(env) / f"{name}.slurm"


def require_slurm() -> None:
    """One line naming what is missing, before anything is made."""
    missing = [program for program in DAEMONS + CLIENTS if shutil.which(program) is None]
    if missing:
        raise UsageError(f"--slurm needs Slurm and munge ({', '.join(missing)} not found; "
                         "on Debian: apt-get install slurm-wlm munge)")


def _node_line(host: Host) -> str:
    return (f"NodeName={host.name} NodeAddr={host.address} NodeHostname={host.name} "
            f"CPUs={host.cores} State=UNKNOWN")


def slurm_conf(cluster: Cluster, directory: Path) -> str:
    """slurm.conf for `cluster`, its files under `directory`."""
    d = str(directory)
    tree = cluster.topology.kind == "tree"
    lines = [
        "# Written by hpcprobe cluster up --slurm; removed by cluster down.",
        f"ClusterName={cluster.name}",
        f"SlurmctldHost={cluster.head.name}({cluster.head.address})",
        "AuthType=auth/munge", "CredType=cred/munge",
        f"AuthInfo=socket={d}/munge.socket",
        "SlurmUser=root", "SlurmdUser=root",
        f"SlurmctldPort={SLURMCTLD_PORT}", f"SlurmdPort={SLURMD_PORT}",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool/%n",
        f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmdPidFile={d}/slurmd-%n.pid",
        f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd-%n.log",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "MpiDefault=pmi2", "SwitchType=switch/none",
        "SchedulerType=sched/backfill", "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU", "ReturnToService=2",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
        "SlurmctldTimeout=30", "SlurmdTimeout=30", "InactiveLimit=0", "KillWait=5",
        f"TopologyPlugin=topology/{'tree' if tree else 'none'}",
        *[_node_line(host) for host in cluster.hosts],
        f"PartitionName={cluster.name} Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]
    return "\n".join(lines) + "\n"


def topology_conf(cluster: Cluster) -> str:
    """A tree's switches as Slurm's topology/tree plugin reads them (its
    SLURM_TOPOLOGY_ADDR then names root.leafL.host for every task)."""
    leaves: dict = {}
    for host in cluster.hosts:
        leaves.setdefault(host.coordinates[0], []).append(host.name)
    lines = [f"SwitchName=leaf{leaf} Nodes={','.join(names)}"
             for leaf, names in sorted(leaves.items())]
    lines.append(f"SwitchName=root Switches={','.join(f'leaf{leaf}' for leaf in sorted(leaves))}")
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _in_host(host: Host, argv: List[str]) -> List[str]:
    """argv run in the host's (or head's) network, UTS and mount namespaces."""
    return ["nsenter", "-t", str(host.holder_pid), "--net", "--uts", "--mount", "--", *argv]


def _start(argv: List[str], what: str, log: Path) -> None:
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=READY_TIMEOUT_S)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise HpcprobeError(f"{what} did not start (exit status {done.returncode}: {tail}; "
                            f"log {log})")


def _wait_ready(cluster: Cluster, conf: Path, env: Optional[Mapping[str, str]]) -> None:
    """Until every slurmd has registered (sinfo shows them idle)."""
    argv = _in_host(cluster.head, ["sinfo", "-h", "-N", "-o", "%N %t"])
    child_env = {**os.environ, "SLURM_CONF": str(conf)}
    deadline = time.monotonic() + READY_TIMEOUT_S
    states = ""
    while time.monotonic() < deadline:
        done = subprocess.run(argv, env=child_env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=READY_TIMEOUT_S)
        states = done.stdout
        idle = {line.split()[0] for line in states.splitlines()
                if len(line.split()) == 2 and line.split()[1] == "idle"}
        if done.returncode == 0 and idle >= {host.name for host in cluster.hosts}:
            return
        time.sleep(0.5)
    raise HpcprobeError(f"Slurm on {cluster.name}: not every slurmd registered within "
                        f"{READY_TIMEOUT_S:g} s (sinfo: {' '.join(states.split()) or 'nothing'}"
                        f"; logs in {slurm_dir(cluster.name, env)})")


def start_slurm(cluster: Cluster, env: Optional[Mapping[str, str]] = None) -> Path:
    """Write the configuration and start munged, slurmctld (on the head) and a slurmd in
    every host; return the slurm.conf once every node is idle. HpcprobeError: what did
    not start (the caller removes the cluster)."""
    directory = slurm_dir(cluster.name, env)
    remove_slurm_dir(cluster.name, env)  # left by a crash: the cluster is new
    directory.mkdir(mode=0o700)
    for sub in ("state", "spool"):
        (directory / sub).mkdir(mode=0o700)
    conf = directory / "slurm.conf"
    _write(conf, slurm_conf(cluster, directory))
    _write(directory / "cgroup.conf", "CgroupPlugin=cgroup/v1\n")
    if cluster.topology.kind == "tree":
        _write(directory / "topology.conf", topology_conf(cluster))
    key = directory / "munge.key"
    _write(key, "", 0o600)
    key.write_bytes(secrets.token_bytes(MUNGE_KEY_BYTES))
    head = cluster.head
    _start(_in_host(head, ["munged", "--force", f"--key-file={key}",
                           f"--socket={directory}/munge.socket",
                           f"--pid-file={directory}/munged.pid",
                           f"--log-file={directory}/munged.log",
                           f"--seed-file={directory}/munged.seed"]),
           "munged", directory / "munged.log")
    _start(_in_host(head, ["slurmctld", "-f", str(conf), "-i"]), "slurmctld",
           directory / "slurmctld.log")
    for host in cluster.hosts:
        # In the host's cgroup: slurmd's steps, and so their tasks, are its children.
        _start(joined(host, _in_host(host, ["slurmd", "-f", str(conf), "-N", host.name])),
               f"slurmd on {host.name}", directory / f"slurmd-{host.name}.log")
    _wait_ready(cluster, conf, env)
    return conf


def remove_slurm_dir(name: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """Delete the cluster's Slurm directory (its daemons are stopped with the cluster's
    processes before). Whether there was one."""
    directory = slurm_dir(name, env)
    if not directory.exists():
        return False
    shutil.rmtree(directory, ignore_errors=True)
    return True
