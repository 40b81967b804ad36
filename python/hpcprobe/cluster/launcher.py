"""Launching an MPI program on a cluster with MPICH's hydra or Open MPI, whichever
hpcprobe was built with (docs/cluster.md):

    nsenter (into the head) mpiexec -launcher ssh -launcher-exec hpcprobe-enter-host
            -iface fab0 -hosts NAME-h0:K,NAME-h1:K,… -ppn K -n P PROGRAM ARGS…
    nsenter (into the head) mpirun --host NAME-h0:K,… -np P --map-by slot
            --mca plm_rsh_agent hpcprobe-enter-host --mca pml ob1
            --mca btl self,vader,tcp --mca btl_tcp_if_include fab0 … PROGRAM ARGS…

mpiexec runs in the head's namespaces, so every host is remote to it and each proxy is
started by hpcprobe-enter-host (enter.py), which execs nsenter into the host: no ssh,
and every proxy and rank stays a descendant of mpiexec, so the runner stops them all.

Inter-node traffic is forced onto TCP by MPICH's OFI netmod with libfabric's tcp
provider on the fabric interface. Not the UCX netmod (the wheel's default): UCX's
shared-memory transports work between namespaces of one kernel, so without
UCX_TLS=tcp,self a message between two "hosts" skips the shaped link altogether
(1.5-15 GB/s through a 400 Mbit/s link), and with it HPCC's RandomAccess (`ra mpi
--algo reference`, MPI_ANY_SOURCE receives) never finishes across hosts: a message to a
posted ANY_SOURCE receive is not matched. Over OFI/tcp both are right. Intra-node
messages never reach the netmod: MPICH's own shared memory carries them.

Open MPI is held to the same: its ob1 point-to-point layer with the tcp BTL between
hosts and vader (shared memory) within one, the out-of-band channel on the fabric too;
not its UCX layer, which would take shared memory across the namespaces as MPICH's does.
"""

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import hpcprobe.cluster.system as system
from hpcprobe.cluster.model import Cluster, Host
from hpcprobe.cluster.network_text import network_text
from hpcprobe.cluster.store import cluster_file
from hpcprobe.errors import HpcprobeError, UsageError
from hpcprobe.launch import resolve_launcher
from hpcprobe.launch.binding import mpi_flavour

ENTER_PROGRAM = "hpcprobe-enter-host"
CLUSTER_FILE_VARIABLE = "HPCPROBE_CLUSTER_FILE"
# What a record may say of the transports, per MPI (part of the launch's environment).
TRANSPORTS = {
    "hydra": {"inter_node": "tcp (MPICH ch4:ofi, FI_PROVIDER=tcp)",
              "intra_node": "shared memory (MPICH ch4 posix)"},
    "openmpi": {"inter_node": "tcp (Open MPI ob1, btl tcp)",
                "intra_node": "shared memory (Open MPI btl vader)"},
}
TRANSPORT = TRANSPORTS["hydra"]


@dataclass(frozen=True)
class ClusterLaunch:
    """What starts P ranks on a cluster: `argv` (a list, for subprocess), the `env`
    to add to the caller's environment, and the host of each rank."""

    argv: List[str]
    env: Dict[str, str]
    rank_hosts: List[Host]


def find_enter_program(env: Mapping[str, str]) -> str:
    """hpcprobe-enter-host beside this Python (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / ENTER_PROGRAM
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(ENTER_PROGRAM, path=env.get("PATH", os.defpath))
    if found is None:
        raise HpcprobeError(f"{ENTER_PROGRAM} not found beside {sys.executable} or on PATH; "
                            "reinstall hpcprobe ('make build')")
    return found


def cluster_mpiexec(env: Mapping[str, str]) -> Tuple[str, str]:
    """(the launcher of the MPI the bench was built with, "hydra" or "openmpi")."""
    executable = resolve_launcher("mpiexec", env).executable
    flavour = mpi_flavour(executable)
    if flavour not in TRANSPORTS:
        raise HpcprobeError(f"launching on a cluster needs MPICH's hydra mpiexec or Open "
                            f"MPI's mpirun; {executable} is neither (build with MPI=mpich, "
                            "or MPI=system with one of those)")
    return executable, flavour


class ClusterLauncher:
    """A launcher (as launch/launchers.py's: `name`, `executable`, `command(np,
    launcher_args, program_argv)`) that places ranks on a cluster's hosts, `ppn` per
    host in block order (default: the hosts' cores); its `env` must be added to the
    launch's environment (runner.Launch.env)."""

    name = "cluster"

    def __init__(self, cluster: Cluster, ppn: Optional[int] = None,
                 env: Optional[Mapping[str, str]] = None) -> None:
        env = os.environ if env is None else env
        self.cluster = cluster
        self.ppn = ppn or cluster.hosts[0].cores
        self.executable, self.flavour = cluster_mpiexec(env)
        self.enter_program = find_enter_program(env)
        self.cluster_path = str(cluster_file(cluster.name, env).resolve())

    @property
    def default_np(self) -> int:
        """The whole cluster: every host, `ppn` ranks each."""
        return len(self.cluster.hosts) * self.ppn

    def require_up(self) -> None:
        """HpcprobeError (exit 3) unless every host and the head still run: a holder
        gone (killed, a reboot) leaves a host nobody can enter."""
        cluster = self.cluster
        gone = [host.id for host in [*cluster.hosts, cluster.head]
                if not system.holder_alive(host)]
        if cluster.status != "up" or gone:
            why = f"hosts {', '.join(gone)} are gone" if gone else f"it is {cluster.status}"
            raise HpcprobeError(f"cluster {cluster.name} is not up ({why}); remake it with "
                                f"'hpcprobe cluster down --name {cluster.name}' and 'up'")

    def hosts_for(self, np: int) -> List[Host]:
        """The hosts `np` ranks use, UsageError when the cluster has too few."""
        needed = -(-np // self.ppn)
        if needed > len(self.cluster.hosts):
            raise UsageError(f"--np {np} at {self.ppn} ranks per host needs {needed} hosts; "
                             f"cluster {self.cluster.name} has {len(self.cluster.hosts)}")
        return self.cluster.hosts[:needed]

    def rank_hosts(self, np: int) -> List[Host]:
        """The host of each rank, rank 0 first."""
        hosts = self.hosts_for(np)
        return [hosts[rank // self.ppn] for rank in range(np)]

    def _enter_head(self) -> List[str]:
        head = self.cluster.head
        return ["nsenter", "-t", str(head.holder_pid), "--net", "--uts", "--mount",
                f"--wd={os.getcwd()}", "--"]

    def command(self, np: int, launcher_args: Sequence[str],
                program_argv: Sequence[str]) -> List[str]:
        hosts = ",".join(f"{host.name}:{self.ppn}" for host in self.hosts_for(np))
        if self.flavour == "openmpi":
            return [*self._enter_head(), self.executable, *self._open_mpi_args(hosts, np),
                    *launcher_args, *program_argv]
        return [*self._enter_head(), self.executable,
                "-launcher", "ssh", "-launcher-exec", self.enter_program,
                "-iface", self.cluster.fabric_interface, "-hosts", hosts,
                "-ppn", str(self.ppn), "-n", str(np), *launcher_args, *program_argv]

    def _open_mpi_args(self, hosts: str, np: int) -> List[str]:
        """Open MPI's mpirun: block placement over the hosts' slots, its daemons started
        by the enter program (all from the head: no tree spawn) and kept attached (else
        orted daemonizes, and the runner takes its ranks for orphans of a dead daemon),
        TCP between hosts and shared memory within one, both on the fabric. Idle ranks
        yield: the hosts share this machine's CPUs, so a rank spinning in a wait took the
        CPU of the pair being measured (intra-node pairs 0.09-10 GB/s from run to run,
        2.4-2.6 GB/s yielding)."""
        fabric = self.cluster.fabric_interface
        mca = {"plm_rsh_agent": self.enter_program, "plm_rsh_no_tree_spawn": "1",
               "orte_leave_session_attached": "1", "mpi_yield_when_idle": "1",
               "pml": "ob1", "btl": "self,vader,tcp", "btl_tcp_if_include": fabric,
               "oob_tcp_if_include": fabric}
        words = ["--host", hosts, "-np", str(np), "--map-by", "slot"]
        for key, value in mca.items():
            words += ["--mca", key, value]
        return words

    def _mpi_env(self) -> Dict[str, str]:
        if self.flavour == "openmpi":
            # Namespaces need root; Open MPI refuses root unless told twice.
            return {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        return {"MPIR_CVAR_CH4_NETMOD": "ofi",   # the netmod the settings below are for
                "FI_PROVIDER": "tcp", "FI_TCP_IFACE": self.cluster.fabric_interface}

    @property
    def env(self) -> Dict[str, str]:
        transport = TRANSPORTS[self.flavour]
        env = {
            CLUSTER_FILE_VARIABLE: self.cluster_path,
            **self._mpi_env(),
            # What the bench writes into each record (metadata.cluster, .transport).
            "HPCPROBE_CLUSTER": self.cluster.name,
            "HPCPROBE_TRANSPORT": (f"inter-node: {transport['inter_node']} over "
                                   f"{self.cluster.fabric_interface}; intra-node: "
                                   f"{transport['intra_node']}"),
        }
        env["HPCPROBE_CLUSTER_NETWORK"] = str(network_text(self.cluster))
        faults = fault_text(self.cluster)
        if faults:
            env["HPCPROBE_CLUSTER_FAULTS"] = faults
        limit = link_limit(self.cluster)
        if limit is not None:
            env["HPCPROBE_LINK_LIMIT"] = limit
        return env

    @property
    def transport(self) -> Dict[str, str]:
        return dict(TRANSPORTS[self.flavour])


def fault_text(cluster: Cluster) -> str:
    """The hosts' and links' faults as the records carry them: "h2 cpu 0.5; h0-sw loss
    20%; h1-sw down; h3-sw rate 100000000bit"."""
    words = [f"{host.id} cpu {host.cpu_fraction:g}" for host in cluster.hosts
             if host.cpu_fraction < 1]
    for link in cluster.links:
        fault = link.fault
        if fault.down:
            words.append(f"{link.id} down")
        if fault.loss_fraction > 0:
            words.append(f"{link.id} loss {fault.loss_fraction * 100:g}%")
        if fault.delay_s is not None:
            words.append(f"{link.id} delay {fault.delay_s * 1e6:g}us")
        if fault.rate_bit_per_s is not None:
            words.append(f"{link.id} rate {fault.rate_bit_per_s:.0f}bit")
    return "; ".join(words)


def link_limit(cluster: Cluster) -> Optional[str]:
    """"BYTES_PER_S LINK" for the fastest shaped link between hosts, at the rate it is
    shaped to now (None: nothing is shaped): no inter-node message can go faster, so
    the bench fails a figure above it (it would have bypassed the link: shared memory
    across namespaces)."""
    shaped = [link for link in cluster.links
              if link.kind != "head" and link.effective_rate_bit_per_s is not None]
    if not shaped:
        return None
    fastest = max(shaped, key=lambda link: link.effective_rate_bit_per_s or 0.0)
    return f"{int((fastest.effective_rate_bit_per_s or 0) / 8)} {fastest.id}"


def cluster_launch(cluster: Cluster, np: int, ppn: Optional[int],
                   program_argv: Sequence[str], launcher_args: Sequence[str] = (),
                   env: Optional[Mapping[str, str]] = None) -> ClusterLaunch:
    """(argv, env, host of each rank) that run `program_argv` on `np` ranks, `ppn` per
    host (default: the hosts' cores)."""
    launcher = ClusterLauncher(cluster, ppn, env)
    return ClusterLaunch(launcher.command(np, launcher_args, program_argv), launcher.env,
                         launcher.rank_hosts(np))
