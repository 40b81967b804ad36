"""Rank counts the launcher and the machine cannot start, refused before launching.

Left to itself, `mpiexec -n 100000` on one node forks until it runs out of file
descriptors or processes, and the failure surfaces as a flood from the launcher or a
hang. What can be known beforehand is checked here:
- ranks started on this node (mpiexec or mpirun without a host list): the process limit
  (RLIMIT_NPROC, which counts threads, and the kernel's threads-max), the descriptors
  the launcher holds for each rank (RLIMIT_NOFILE), and the memory a rank needs at the
  least (MemAvailable);
- srun inside an allocation: the allocation's task count, unless --overcommit is given.
- an emulated cluster (docs/cluster.md): every rank is on this machine, as local ones.
A user template launcher is trusted: hpcprobe cannot know where it puts the ranks.
"""

import os
import resource
from typing import Mapping, Optional, Sequence

from hpcprobe.errors import UsageError

# MPI ranks are C ints, and no launcher starts more; anything above is a typo.
MAX_RANKS = 1 << 24
# Threads per rank counted against the process limit: the rank, MPICH's UCX progress
# thread and one spare.
THREADS_PER_RANK = 3
# Descriptors hydra's proxy (or mpirun) holds per local rank: stdin, stdout and stderr
# pipes and the PMI socket, plus what the launcher itself keeps open.
DESCRIPTORS_PER_RANK = 4
DESCRIPTORS_RESERVED = 64
# The least a rank of the PyPI MPICH needs resident before it allocates anything.
MIN_BYTES_PER_RANK = 16 << 20

_HOST_OPTIONS = ("-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile",
                 "-hosts", "--host", "-host", "-H", "--hosts", "-ppn", "--map-by",
                 "-launcher", "-bootstrap", "-rmk")
_OVERCOMMIT_OPTIONS = ("-O", "--overcommit")


def _refuse(np: int, why: str) -> UsageError:
    return UsageError(f"--np {np}: {why}")


def _soft_limit(kind: int) -> Optional[int]:
    soft, _ = resource.getrlimit(kind)
    return None if soft == resource.RLIM_INFINITY else soft


def _read_int(path: str) -> Optional[int]:
    try:
        with open(path, encoding="ascii") as stream:
            return int(stream.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _mem_available_bytes() -> Optional[int]:
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_local(np: int) -> None:
    """Ranks forked on this node."""
    processes = _soft_limit(resource.RLIMIT_NPROC)
    if processes is not None and np * THREADS_PER_RANK > processes:
        raise _refuse(np, f"{np} ranks on this node need about {np * THREADS_PER_RANK} "
                          f"processes and threads; the process limit (ulimit -u) is "
                          f"{processes}")
    threads = _read_int("/proc/sys/kernel/threads-max")
    if threads is not None and np * THREADS_PER_RANK > threads:
        raise _refuse(np, f"{np} ranks on this node need about {np * THREADS_PER_RANK} "
                          f"threads; the kernel allows {threads} (kernel.threads-max)")
    descriptors = _soft_limit(resource.RLIMIT_NOFILE)
    needed = np * DESCRIPTORS_PER_RANK + DESCRIPTORS_RESERVED
    if descriptors is not None and needed > descriptors:
        raise _refuse(np, f"the launcher needs about {needed} file descriptors for {np} "
                          f"ranks on this node; the limit (ulimit -n) is {descriptors}")
    available = _mem_available_bytes()
    if available is not None and np * MIN_BYTES_PER_RANK > available:
        most = max(1, available // MIN_BYTES_PER_RANK)
        raise _refuse(np, f"{np} ranks need at least {np * MIN_BYTES_PER_RANK >> 20} MiB "
                          f"on this node, and {available >> 20} MiB is available (at most "
                          f"about {most} ranks)")


def _allocated_tasks(env: Mapping[str, str]) -> Optional[int]:
    for name in ("SLURM_NTASKS", "SLURM_NPROCS"):
        value = env.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None


def allocation_cores(env: Mapping[str, str]) -> int:
    """The cores a run may use by default: inside a Slurm allocation that gives its task
    count, those tasks (srun or mpiexec spreads the ranks over its nodes); elsewhere
    this machine's CPUs."""
    tasks = _allocated_tasks(env) if env.get("SLURM_JOB_ID") else None
    return tasks or os.cpu_count() or 1


def check_rank_count(np: int, launcher_name: str, launcher_args: Sequence[str],
                     env: Mapping[str, str]) -> None:
    """Refuse (UsageError, exit 2) a rank count that cannot be started; see the module."""
    if np > MAX_RANKS:
        raise _refuse(np, f"more than {MAX_RANKS} ranks is beyond any MPI launcher")
    if launcher_name == "srun":
        tasks = _allocated_tasks(env)
        overcommit = any(arg in _OVERCOMMIT_OPTIONS or arg.startswith("--overcommit")
                         for arg in launcher_args)
        if tasks is not None and np > tasks and not overcommit:
            raise _refuse(np, f"the Slurm allocation has {tasks} tasks (SLURM_NTASKS); "
                              "ask for more, or pass --launcher-arg=--overcommit")
        return
    if launcher_name == "cluster":  # emulated hosts: every rank runs on this machine
        _check_local(np)
        return
    if launcher_name in ("mpiexec", "mpirun"):
        spread = any(arg.split("=")[0] in _HOST_OPTIONS for arg in launcher_args)
        if not spread and not _inside_allocation(env):
            _check_local(np)


def _inside_allocation(env: Mapping[str, str]) -> bool:
    # mpiexec inside a Slurm or PBS job spreads the ranks over the job's nodes.
    return bool(env.get("SLURM_JOB_ID") or env.get("PBS_NODEFILE"))

