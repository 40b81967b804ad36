"""A cpu cgroup per emulated host, so that `cluster fault --host H cpu FRACTION` can
throttle one host (docs/cluster.md). `up` makes `hpcprobe-NAME/<host id>` in the cpu
controller's hierarchy (cgroup v2's cpu.max where v2 has the controller, else v1's
cpu.cfs_quota_us); every process started on a host joins its cgroup before it execs:
the holder, hydra's proxies and Open MPI's daemons (enter.py, the host's ranks are their
children), `cluster exec --host`, and the slurmd (its steps are its children). `down`
stops what is left in them and removes them, found by name as the namespaces are.

The proxies are started from mpiexec, in the head's mount namespace, where /sys is the
sysfs `ip netns exec` mounted and hides the cgroup file systems: the hierarchy is
mounted once more there, on a directory of the cluster's own (`head_cgroup_view`),
which enter.py writes through. That mount stays in the head's namespace and goes with it.

Joining is done by the process itself, never by a helper writing another's pid: the
step below (`joined`) or a write of os.getpid() before an exec, so nothing can start on
the host before it is in the cgroup. A machine without the cpu controller gets clusters
without cgroups; only the cpu fault is then refused."""

import errno
import math
import os
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from hpcprobe.cluster.model import Cluster, Host
from hpcprobe.errors import HpcprobeError

MOUNTS = "/proc/self/mounts"
# The words of a v1 mount's options that name its controllers (`mount -o` repeats them).
V1_CONTROLLERS = frozenset(("cpu", "cpuacct", "cpuset", "memory", "devices", "freezer",
                            "net_cls", "net_prio", "blkio", "perf_event", "hugetlb", "pids",
                            "rdma", "misc"))
PREFIX = "hpcprobe-"
PROCS = "cgroup.procs"
PERIOD_US = 10_000
MAX_PERIOD_US = 1_000_000   # the kernel's ceiling for a period
MIN_QUOTA_US = 1_000        # the kernel's floor for a v1 quota and a v2 cpu.max
RMDIR_WAIT_S = 3.0
# The step every host process starts through: "$1" is the cgroup's procs file, the
# rest the command. A shell, not Python: it runs once per process started on a host.
JOIN_SCRIPT = 'echo $$ > "$1" && shift && exec "$@"'


def cpu_hierarchy(mounts: str = MOUNTS) -> Optional[Tuple[str, Path, str]]:
    """("v2" or "v1", where the cpu controller's hierarchy is mounted, its controllers
    as `mount -o` takes them); None without one. v2 counts only where its root offers
    "cpu" (a hybrid machine's v2 may have none)."""
    try:
        with open(mounts, encoding="utf-8") as stream:
            lines = [line.split() for line in stream]
    except OSError:
        return None
    lines = [words for words in lines if len(words) >= 4 and "ro" not in words[3].split(",")]
    for words in lines:
        if words[2] == "cgroup2":
            try:
                offered = (Path(words[1]) / "cgroup.controllers").read_text().split()
            except OSError:
                continue
            if "cpu" in offered:
                return "v2", Path(words[1]), ""
    for words in lines:
        if words[2] == "cgroup" and "cpu" in words[3].split(","):
            controllers = [word for word in words[3].split(",") if word in V1_CONTROLLERS]
            return "v1", Path(words[1]), ",".join(controllers)
    return None


def cluster_cgroup(name: str, hierarchy: Tuple[str, Path, str]) -> Path:
    return hierarchy[1] / f"{PREFIX}{name}"


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise HpcprobeError(f"cannot write '{text.strip()}' to {path}: "
                            f"{error.strerror}") from None


def make_cgroups(cluster: Cluster, mounts: str = MOUNTS) -> None:
    """A cgroup for every host (not the head: it is the login node), its path set on the
    host; nothing where the machine has no cpu controller, or one this process may not
    write (a container's read-only or delegated-away hierarchy): the cluster then works
    as before, without host faults."""
    hierarchy = cpu_hierarchy(mounts)
    if hierarchy is None:
        return
    top = cluster_cgroup(cluster.name, hierarchy)
    try:
        top.mkdir()
    except FileExistsError:
        raise HpcprobeError(f"cgroup {top} exists already; remove it with 'hpcprobe "
                            f"cluster down --name {cluster.name}'") from None
    except OSError:
        return
    try:
        if hierarchy[0] == "v2":
            if "cpu" not in (top.parent / "cgroup.subtree_control").read_text().split():
                _write(top.parent / "cgroup.subtree_control", "+cpu")
            _write(top / "cgroup.subtree_control", "+cpu")
        for host in cluster.hosts:
            (top / host.id).mkdir()
            host.cgroup = str(top / host.id)
    except (OSError, HpcprobeError):
        for host in cluster.hosts:  # v2's controller not ours to enable, say: none
            host.cgroup = ""
        remove_cgroups(top)
        return
    cluster.cgroup_mount = str(hierarchy[1])


def head_view_command(cluster: Cluster, view: Path,
                      mounts: str = MOUNTS) -> Optional[List[str]]:
    """The command that mounts the hierarchy on `view` (made here) in the head's mount
    namespace, its holder running; None where the hosts have no cgroups."""
    hierarchy = cpu_hierarchy(mounts)
    if not cluster.cgroup_mount or hierarchy is None:
        return None
    try:
        view.mkdir(exist_ok=True)
    except OSError as error:
        raise HpcprobeError(f"cannot make {view}: {error.strerror}") from None
    cluster.head_cgroup_view = str(view)
    kind = ["-t", "cgroup2"] if hierarchy[0] == "v2" else ["-t", "cgroup", "-o",
                                                             hierarchy[2]]
    return ["nsenter", "-t", str(cluster.head.holder_pid), "--mount", "--", "mount", *kind,
            f"{PREFIX}{cluster.name}", str(view)]


def remove_view(view: Path) -> None:
    """The head's view directory, once the head's namespace (and its mount) is gone."""
    try:
        view.rmdir()
    except FileNotFoundError:
        pass
    except OSError as error:
        raise HpcprobeError(f"cannot remove {view}: {error.strerror}") from None


def joined(host: Host, argv: Sequence[str]) -> List[str]:
    """argv started through the step that puts it in the host's cgroup first."""
    if not host.cgroup:
        return list(argv)
    return ["/bin/sh", "-c", JOIN_SCRIPT, "hpcprobe-join", str(Path(host.cgroup) / PROCS),
            *argv]


def join(host: Host) -> None:
    """Put this process in the host's cgroup (before it execs the host's command)."""
    if host.cgroup:
        _write(Path(host.cgroup) / PROCS, f"{os.getpid()}\n")


def quota_us(cpus: Optional[float]) -> Optional[Tuple[int, int]]:
    """(quota, period) in µs that give `cpus` CPUs' time (None: no limit). The period is
    10 ms, so that a check of a few milliseconds is throttled as a long one is (in a
    100 ms period a short burst runs at full speed on its quota); longer only where the
    quota would fall under the kernel's 1 ms floor."""
    if cpus is None:
        return None
    period = min(MAX_PERIOD_US, max(PERIOD_US, math.ceil(MIN_QUOTA_US / cpus)))
    return max(MIN_QUOTA_US, int(round(cpus * period))), period


def set_cpu_limit(host: Host, cpus: Optional[float]) -> None:
    """Cap the host's processes at `cpus` CPUs' time together (None: no limit)."""
    if not host.cgroup:
        raise HpcprobeError(f"host {host.id} has no cgroup")
    path = Path(host.cgroup)
    limit = quota_us(cpus)
    if (path / "cpu.max").exists():
        text = "max 100000" if limit is None else f"{limit[0]} {limit[1]}"
        _write(path / "cpu.max", f"{text}\n")
        return
    # v1 checks the quota against the period as each is written: lift the quota first.
    _write(path / "cpu.cfs_quota_us", "-1\n")
    _write(path / "cpu.cfs_period_us", f"{100_000 if limit is None else limit[1]}\n")
    if limit is not None:
        _write(path / "cpu.cfs_quota_us", f"{limit[0]}\n")


def weigh(cluster: Cluster, heavy: bool) -> None:
    """Heavy: the cluster's cgroup outweighs the machine's other work and its hosts weigh
    alike, so that each host gets its cap on a loaded machine (by default a cgroup
    weighs as one task, and a host's share of a loaded machine may be below its cap, so
    that a throttle shows no effect). The caps bound what the cluster takes."""
    if not cluster.hosts or not cluster.hosts[0].cgroup:
        return
    paths = [Path(cluster.hosts[0].cgroup).parent] + [Path(host.cgroup)
                                                       for host in cluster.hosts]
    for path in paths:
        if (path / "cpu.weight").exists():
            _write(path / "cpu.weight", "10000\n" if heavy else "100\n")
        else:
            _write(path / "cpu.shares", "262144\n" if heavy else "1024\n")


def cgroup_pids(top: Path) -> List[int]:
    """Every process in the cluster's cgroups (a process the namespaces missed)."""
    pids: List[int] = []
    for procs in sorted(top.glob(f"*/{PROCS}")):
        try:
            pids += [int(word) for word in procs.read_text().split()]
        except (OSError, ValueError):
            continue
    return pids


def found_cgroups(name: str, mounts: str = MOUNTS) -> List[Path]:
    """The cluster's cgroup directory, where there is one (found by name)."""
    hierarchy = cpu_hierarchy(mounts)
    if hierarchy is None:
        return []
    top = cluster_cgroup(name, hierarchy)
    return [top] if top.is_dir() else []


def _rmdir(path: Path) -> None:
    # An exiting process may leave its cgroup a moment after it is gone (EBUSY).
    deadline = time.monotonic() + RMDIR_WAIT_S
    while True:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY or time.monotonic() > deadline:
                raise HpcprobeError(f"cannot remove cgroup {path}: {error.strerror}") from None
            time.sleep(0.02)


def remove_cgroups(top: Path) -> None:
    """Remove the hosts' cgroups and the cluster's (their processes stopped before)."""
    for child in sorted(path for path in top.iterdir() if path.is_dir()):
        _rmdir(child)
    _rmdir(top)
