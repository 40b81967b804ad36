"""What `hpcprobe cluster exec` adds so that an `mpiexec` started inside it reaches the
cluster's hosts, as an allocation's host file does (docs/cluster.md, "MPI inside cluster
exec").

MPICH's hydra reads its defaults from the environment: HYDRA_HOST_FILE (the hosts and
their slots, `NAME-h0:K` a line), HYDRA_LAUNCHER and HYDRA_LAUNCHER_EXEC (how a proxy
reaches a host: here hpcprobe-enter-host, as `hpcprobe launch` gives it with
-launcher-exec) and HYDRA_IFACE (the fabric, where the proxies connect back). Options on
the command line still win, so `mpiexec -n 4 -ppn 1 PROGRAM` places one rank a host.

Open MPI's mpirun is not pointed anywhere from here: it is refused instead, by a small
directory of programs first on PATH (`<cluster dir>/NAME.exec/`): its `mpiexec` and
`mpirun` exec the bench's hydra, or, when hpcprobe was built with Open MPI, print one
line naming `hpcprobe launch --cluster NAME` and exit 2. The same directory holds the
host file. It is rewritten at every exec (a cluster's hosts do not change while it is up)
and removed by `cluster down`.
"""

import os
import shlex
import shutil
from pathlib import Path
from typing import Dict, Mapping, Optional

from hpcprobe.cluster.model import Cluster
from hpcprobe.cluster.store import cluster_dir
from hpcprobe.errors import HpcprobeError

SHIM_NAMES = ("mpiexec", "mpirun")
HOST_FILE = "hosts"
# Inside an allocation (salloc/sbatch on a cluster made with --slurm) hydra must take the
# allocation's hosts and start its proxies with srun, as it does by itself: the host file
# and the launcher would override both. HYDRA_IFACE stays: the head's host name resolves
# nowhere, so the proxies must reach mpiexec at its fabric address.
ALLOCATION_VARIABLE = "SLURM_JOB_ID"
HYDRA_VARIABLES = ("HYDRA_HOST_FILE", "HYDRA_LAUNCHER", "HYDRA_LAUNCHER_EXEC", "HYDRA_IFACE")
ALLOCATION_DROPPED = HYDRA_VARIABLES[:3]


def exec_dir(name: str, env: Optional[Mapping[str, str]] = None) -> Path:
    return cluster_dir(env) / f"{name}.exec"


def host_file_text(cluster: Cluster) -> str:
    """Hydra's host file: every host with its cores as slots, in host order."""
    return "".join(f"{host.name}:{host.cores}\n" for host in cluster.hosts)


def hydra_shim(executable: str) -> str:
    unset = " ".join(ALLOCATION_DROPPED)
    return ("#!/bin/sh\n"
            "# hpcprobe cluster exec: the MPICH hydra hpcprobe was built with; the\n"
            "# environment's HYDRA_* variables place its ranks on the cluster's hosts.\n"
            f'if [ -n "${ALLOCATION_VARIABLE}" ]; then unset {unset}; fi\n'
            f'exec {shlex.quote(executable)} "$@"\n')


def refusal_line(cluster_name: str, executable: str) -> str:
    return (f"cluster exec: mpiexec/mpirun here would start every rank on the head of "
            f"cluster {cluster_name} ({executable} is Open MPI's, which cluster exec does "
            f"not point at the hosts); run the program with 'hpcprobe launch --cluster "
            f"{cluster_name} --np P [--ppn K] -- PROGRAM ARGS'")


def refusing_shim(cluster_name: str, executable: str) -> str:
    return ("#!/bin/sh\n"
            "# hpcprobe cluster exec: this MPI's launcher cannot reach the cluster's hosts\n"
            "# from the environment, so it is refused rather than run on the head alone.\n"
            f"echo {shlex.quote(refusal_line(cluster_name, executable))} >&2\n"
            "exit 2\n")


def _write(path: Path, text: str, mode: int) -> None:
    """Whole or not at all: two execs at once each rename a complete file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text, encoding="utf-8")
    temporary.chmod(mode)
    os.replace(temporary, path)


def write_exec_dir(cluster: Cluster, flavour: str, executable: str,
                   env: Optional[Mapping[str, str]] = None) -> Path:
    """The cluster's exec directory (host file and launcher programs), written anew."""
    directory = exec_dir(cluster.name, env)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write(directory / HOST_FILE, host_file_text(cluster), 0o644)
        shim = (hydra_shim(executable) if flavour == "hydra"
                else refusing_shim(cluster.name, executable))
        for name in SHIM_NAMES:
            _write(directory / name, shim, 0o755)
    except OSError as error:
        raise HpcprobeError(f"cannot write {directory}: {error.strerror}") from None
    return directory


def exec_env(cluster: Cluster, flavour: str, executable: str, enter_program: str,
             env: Mapping[str, str]) -> Dict[str, str]:
    """What cluster exec adds to the caller's environment for MPI: the exec directory
    first on PATH and, with hydra, the HYDRA_* variables (the transport settings come
    from ClusterLauncher.env)."""
    directory = write_exec_dir(cluster, flavour, executable, env)
    path = env.get("PATH", os.defpath)
    added = {"PATH": f"{directory}{os.pathsep}{path}" if path else str(directory)}
    if flavour == "hydra":
        added.update({"HYDRA_HOST_FILE": str(directory / HOST_FILE),
                      "HYDRA_LAUNCHER": "ssh", "HYDRA_LAUNCHER_EXEC": enter_program,
                      "HYDRA_IFACE": cluster.fabric_interface})
    return added


def remove_exec_dir(name: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """Delete the cluster's exec directory; whether there was one."""
    directory = exec_dir(name, env)
    if not directory.exists():
        return False
    shutil.rmtree(directory, ignore_errors=True)
    return True
