"""hpcprobe-enter-host: what hydra's ssh launcher runs instead of ssh on a cluster
(launcher.py). Called as ssh would be, `[-x] HOST COMMAND WORDS…`, it execs nsenter into
HOST's network, UTS and mount namespaces to run the command there.

hydra quotes the command's words for the remote shell ssh would start; they are split
back here as that shell would (shlex) and run without one. A command that needs the
shell (Open MPI's daemon command may set PATH first: `PATH=…; export PATH; orted …`) is
given to /bin/sh, as ssh would. Everything is exec'd, nothing forked: the proxy or daemon
stays the launcher's descendant, so stopping the launch stops it.
Only the standard library is used: this runs once per host of every launch.
"""

import json
import os
import shlex
import sys
from typing import Any, Dict, List, Optional

PROGRAM = "hpcprobe-enter-host"
CLUSTER_FILE_VARIABLE = "HPCPROBE_CLUSTER_FILE"  # as launcher.py sets it
NETNS_DIR = "/run/netns"
EXIT_FAILED = 255  # what ssh returns when it cannot run the command


def _fail(message: str) -> int:
    print(f"{PROGRAM}: {message}", file=sys.stderr, flush=True)
    return EXIT_FAILED


# Words that only a shell runs: command separators, and a variable set before a command.
SHELL_WORDS = (";", "&&", "||", "|", "&")


def _needs_shell(words: List[str]) -> bool:
    return any(word in SHELL_WORDS for word in words) or "=" in words[0].split("/")[0]


def _split(args: List[str]) -> Optional[tuple]:
    """(host, command words) from ssh-like arguments; None when there is no command."""
    while args and args[0].startswith("-"):
        args = args[1:]  # ssh options hydra adds (-x: no X11 forwarding)
    if len(args) < 2:
        return None
    text = " ".join(args[1:])
    words = shlex.split(text)
    if words and _needs_shell(words):
        words = ["/bin/sh", "-c", text]
    return (args[0], words) if words else None


def _host(description: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    for host in description["hosts"]:
        if name in (host["name"], host["id"], host["address"]):
            return host
    return None


def _same_namespace(host: Dict[str, Any]) -> bool:
    """The holder's network namespace is the host's (its pid was not reused)."""
    try:
        ours = os.stat(f"{NETNS_DIR}/{host['namespace']}")
        theirs = os.stat(f"/proc/{host['holder_pid']}/ns/net")
    except (OSError, TypeError):
        return False
    return (ours.st_dev, ours.st_ino) == (theirs.st_dev, theirs.st_ino)


def _cgroup_here(description: Dict[str, Any], cgroup: str) -> str:
    """The host's cgroup as this mount namespace sees it: as is, or (in the head's, where
    mpiexec runs) through the head's view of the hierarchy."""
    mount, view = description.get("cgroup_mount"), description.get("head_cgroup_view")
    if os.path.isdir(cgroup) or not mount or not view or not cgroup.startswith(mount + "/"):
        return cgroup
    return view + cgroup[len(mount):]


def main(argv: Optional[List[str]] = None) -> int:
    split = _split(list(sys.argv[1:] if argv is None else argv))
    if split is None:
        return _fail("usage: hpcprobe-enter-host [-x] HOST COMMAND [WORDS…]")
    name, words = split
    path = os.environ.get(CLUSTER_FILE_VARIABLE)
    if not path:
        return _fail(f"${CLUSTER_FILE_VARIABLE} is not set (hpcprobe launch sets it)")
    try:
        with open(path, encoding="utf-8") as stream:
            description = json.load(stream)
        host = _host(description, name)
    except (OSError, ValueError, KeyError, TypeError) as error:
        return _fail(f"cannot read the cluster description {path}: {error}")
    if host is None:
        return _fail(f"cluster {description.get('name')} has no host '{name}'")
    if not _same_namespace(host):
        return _fail(f"host {name} is not up (its holder process is gone); remake the "
                     f"cluster with 'hpcprobe cluster down' and 'up'")
    if host.get("cpus"):
        os.sched_setaffinity(0, host["cpus"])  # inherited by the proxy and its ranks
    if host.get("cgroup"):  # so is the cgroup a cpu fault throttles (cgroups.py)
        cgroup = _cgroup_here(description, host["cgroup"])
        try:
            with open(os.path.join(cgroup, "cgroup.procs"), "w", encoding="utf-8") as stream:
                stream.write(f"{os.getpid()}\n")
        except OSError as error:
            return _fail(f"cannot join host {name}'s cgroup {cgroup}: {error.strerror}")
    nsenter = ["nsenter", "-t", str(host["holder_pid"]), "--net", "--uts", "--mount",
               f"--wd={os.getcwd()}", "--", *words]
    try:
        os.execvp(nsenter[0], nsenter)
    except OSError as error:
        return _fail(f"cannot run nsenter: {error}")
    return EXIT_FAILED  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main())
