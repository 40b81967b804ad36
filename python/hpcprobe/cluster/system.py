"""The system side of a cluster: running ip, tc and friends (always as argument lists),
the privileges they need, the namespaces that exist, and the holder processes that keep
each host's namespaces and host name alive."""

import ipaddress
import json
import os
import shutil
import signal
import subprocess
import time
from typing import Iterable, List, Optional, Sequence

from hpcprobe.cluster.cgroups import joined
from hpcprobe.cluster.model import Host
from hpcprobe.errors import HpcprobeError, UsageError

NETNS_DIR = "/run/netns"
TOOLS = ("ip", "tc", "nsenter", "unshare", "sysctl", "hostname", "sleep")
HOLDER_START_S = 5.0
KILL_WAIT_S = 3.0


class CommandFailed(HpcprobeError):
    """A system command failed: its words and the first line it printed on stderr."""

    def __init__(self, argv: Sequence[str], stderr: str) -> None:
        first = next((line.strip() for line in stderr.splitlines() if line.strip()),
                     "no message")
        super().__init__(f"'{' '.join(argv)}' failed: {first}")


def run(argv: Sequence[str], stdin_text: Optional[str] = None) -> str:
    """Run `argv` (a list, never a shell string); its stdout, or CommandFailed."""
    completed = subprocess.run(list(argv), input=stdin_text, capture_output=True,
                               text=True, stdin=None if stdin_text is not None
                               else subprocess.DEVNULL)
    if completed.returncode != 0:
        raise CommandFailed(argv, completed.stderr)
    return completed.stdout


def require_privileges(command: str) -> None:
    """UsageError (exit 2), before anything is made, without root or the tools;
    `command` as the user typed it ("cluster up", "launch")."""
    if os.geteuid() != 0:
        raise UsageError(f"hpcprobe {command} needs root (network namespaces, veth "
                         f"links and tc shaping); running as uid {os.geteuid()}")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise UsageError(f"hpcprobe {command} needs {', '.join(TOOLS)} on PATH "
                         f"(missing: {', '.join(missing)}; Debian: iproute2, util-linux, "
                         "procps, hostname)")


def namespaces(prefix: str = "") -> List[str]:
    """Network namespaces `ip netns` knows whose names start with `prefix`."""
    try:
        return sorted(name for name in os.listdir(NETNS_DIR) if name.startswith(prefix))
    except OSError:
        return []


def namespace_pids(namespace: str) -> List[int]:
    try:
        return [int(word) for word in run(["ip", "netns", "pids", namespace]).split()]
    except CommandFailed:
        return []


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            state = stream.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def kill_all(pids: Iterable[int]) -> None:
    """SIGKILL `pids`, wait until they are gone, reap those that are our children."""
    pids = list(pids)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + KILL_WAIT_S
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass  # not our child: its own parent (or init) reaps it
            if not alive(pid):
                break
            time.sleep(0.01)


def holder_alive(host: Host) -> bool:
    """Whether the host's holder still sits in the host's network namespace (a pid
    that was reused by another process would not)."""
    if host.holder_pid is None:
        return False
    try:
        ours = os.stat(f"{NETNS_DIR}/{host.namespace}")
        theirs = os.stat(f"/proc/{host.holder_pid}/ns/net")
    except OSError:
        return False
    return (ours.st_dev, ours.st_ino) == (theirs.st_dev, theirs.st_ino) and alive(
        host.holder_pid)


def start_holder(host: Host) -> int:
    """A process asleep in the host's network namespace, in a UTS namespace of its own
    named for the host, and in the mount namespace `ip netns exec` makes (its own
    /sys, where UCX finds the host's interfaces), and in the host's cgroup. Its pid."""
    process = subprocess.Popen(
        joined(host, ["ip", "netns", "exec", host.namespace, "unshare", "--uts", "--",
                      "sleep", "infinity"]),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    # sh, ip and unshare exec in turn; the host is ready once sleep runs in its namespace.
    deadline = time.monotonic() + HOLDER_START_S
    probe = Host(**{**host.__dict__, "holder_pid": process.pid})
    while not (holder_alive(probe) and _command_name(process.pid) == "sleep"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise HpcprobeError(f"the holder of host {host.name} did not start")
        time.sleep(0.01)
    run(["nsenter", "-t", str(process.pid), "--uts", "--", "hostname", host.name])
    return process.pid


def _command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as stream:
            return stream.read().strip()
    except OSError:
        return ""


def netem_available() -> bool:
    """Whether tc can add netem (delay), tried in a namespace that dies with the try."""
    completed = subprocess.run(
        ["unshare", "--net", "--", "tc", "qdisc", "add", "dev", "lo", "root", "netem",
         "delay", "1us"], capture_output=True, stdin=subprocess.DEVNULL)
    return completed.returncode == 0


def root_networks() -> List[ipaddress.IPv4Network]:
    """Networks the root namespace has addresses or routes in: a cluster's subnet keeps
    clear of them, so that no address of it looks like one of the machine's."""
    found = []
    for argv in (["ip", "-j", "-4", "addr"], ["ip", "-j", "-4", "route", "show", "table",
                                                "all"]):
        try:
            entries = json.loads(run(argv) or "[]")
        except (CommandFailed, ValueError):
            continue
        for entry in entries:
            for text in [entry.get("dst")] + [f"{a['local']}/{a['prefixlen']}"
                                              for a in entry.get("addr_info", [])]:
                if text and text != "default":
                    try:
                        found.append(ipaddress.IPv4Network(text, strict=False))
                    except ValueError:
                        pass
    return found
