"""The processes of a launch, found by parentage rather than by process group.

MPI launchers put their proxies and ranks in sessions of their own (MPICH's hydra calls
setsid for each), out of reach of a signal to the launcher's process group, and a proxy
that dies leaves its ranks to whoever reaps orphans. So hpcprobe makes itself a child
subreaper (Linux): every orphan of a launch is then reparented to hpcprobe, where the
watchdog sees it and can stop it. A launch is the launcher, its descendants, and
hpcprobe's own children that appeared after the launcher started (orphans).
"""

import ctypes
import os
import sys
from typing import Dict, Iterable, List, Set

_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"


def become_subreaper() -> bool:
    """Adopt the orphans of our descendants (Linux); False where the system has no such
    thing (orphans then go to init, and only the launcher's tree can be signalled)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat_fields(pid: str) -> List[str]:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...); the name
    may itself contain spaces and parentheses, so split after the last ')'."""
    with open(f"{_PROC}/{pid}/stat", "rb") as stream:
        text = stream.read().decode("ascii", "replace")
    return text[text.rindex(")") + 2:].split()


def live_parents() -> Dict[int, int]:
    """pid -> parent pid of every live process (zombies are done: they are left out)."""
    parents: Dict[int, int] = {}
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return parents
    for name in entries:
        if not name.isdigit():
            continue
        try:
            fields = _stat_fields(name)
        except (OSError, ValueError):
            continue  # exited meanwhile
        if fields[0] not in ("Z", "X"):
            parents[int(name)] = int(fields[1])
    return parents


def descendants(root: int, parents: Dict[int, int]) -> List[int]:
    """Every live descendant of `root` (not `root` itself), parents first."""
    children: Dict[int, List[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: List[int] = []
    frontier = [root]
    while frontier:
        below = [child for pid in frontier for child in children.get(pid, [])]
        found.extend(below)
        frontier = below
    return found


def own_children() -> Set[int]:
    """hpcprobe's live children, read cheaply from /proc/self/task/*/children (an orphan
    is reparented to one of our threads); a full scan where that file is missing."""
    found: Set[int] = set()
    try:
        tasks = os.listdir(f"{_PROC}/self/task")
        for task in tasks:
            with open(f"{_PROC}/self/task/{task}/children", "rb") as stream:
                found.update(int(pid) for pid in stream.read().split())
    except OSError:
        me = os.getpid()
        return {pid for pid, parent in live_parents().items() if parent == me}
    return {pid for pid in found if _is_live(pid)}


def _is_live(pid: int) -> bool:
    try:
        return _stat_fields(str(pid))[0] not in ("Z", "X")
    except (OSError, ValueError, IndexError):
        return False


class ProcessTree:
    """The processes of one launch started as `launcher_pid` (see the module's doc)."""

    def __init__(self, launcher_pid: int) -> None:
        self.launcher_pid = launcher_pid
        # Children hpcprobe had before the launch are not the launch's.
        self._earlier_children = own_children() - {launcher_pid}
        self._seen: Set[int] = set()

    def orphans(self) -> List[int]:
        """Processes of the launch whose parent died and that hpcprobe adopted."""
        return sorted(own_children() - self._earlier_children - {self.launcher_pid})

    def members(self) -> List[int]:
        """Every live process of the launch: the launcher, its descendants, the orphans
        and what they started."""
        parents = live_parents()
        roots = [self.launcher_pid, *self.orphans()]
        found: List[int] = []
        for root in roots:
            if root in parents:
                found.append(root)
            found.extend(descendants(root, parents))
        self._seen.update(found)
        return list(dict.fromkeys(found))

    def signal(self, signal_number: int) -> int:
        """Send `signal_number` to every process of the launch, and again to any seen
        before that is still alive (it may have lost its parent meanwhile where
        hpcprobe could not adopt it). Returns how many were signalled."""
        targets = self.members() + [pid for pid in self._seen if _is_live(pid)]
        return _signal_all(dict.fromkeys(targets), signal_number)

    def reap_orphans(self) -> None:
        """Collect the exit status of adopted orphans, so none is left a zombie."""
        for pid in set(self.orphans()) | self._seen - {self.launcher_pid}:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass  # not ours: its own parent reaps it


def _signal_all(pids: Iterable[int], signal_number: int) -> int:
    count = 0
    for pid in pids:
        try:
            os.kill(pid, signal_number)
            count += 1
        except (ProcessLookupError, PermissionError):
            pass
    return count


def signal_group(pid: int, signal_number: int) -> None:
    """The launcher's process group too: where /proc is missing it is all there is."""
    try:
        os.killpg(pid, signal_number)
    except (ProcessLookupError, PermissionError):
        pass

