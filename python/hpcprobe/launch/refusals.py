"""A launcher that refused to start the ranks, recognised in what it printed, and the fix
said in one line instead of its banner (the banner stays in the launch's log).

Open MPI refuses two things a user may mean to do: running as root, and starting more
ranks than a node has slots (cores, unless a host file says otherwise). hpcprobe never
overrides either by itself: a site may forbid both, and ranks that share cores measure
something else. The user opts in with the launcher's own option or variable.
"""

import re
from typing import Optional, Sequence

_RUN_AS_ROOT = re.compile(r"(\S+) has detected an attempt to run as root")
_TOO_FEW_SLOTS = re.compile(r"not enough slots available in the system to satisfy the "
                            r"(\d+) slots")


def _joined(stderr_lines: Sequence[str]) -> str:
    """The lines as one text: a banner wraps its sentences anywhere."""
    return " ".join(" ".join(stderr_lines).split())


def launcher_refusal(stderr_lines: Sequence[str]) -> Optional[str]:
    """What the launcher refused and how to allow it, from its stderr; None when the
    lines hold no refusal hpcprobe knows."""
    text = _joined(stderr_lines)
    root = _RUN_AS_ROOT.search(text)
    if root:
        return (f"Open MPI's {root.group(1)} refuses to run as root: run as another user, "
                "or allow it with --launcher-arg=--allow-run-as-root or by setting "
                "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
    slots = _TOO_FEW_SLOTS.search(text)
    if slots:
        return (f"Open MPI has fewer slots than the {slots.group(1)} ranks asked for "
                "(a slot per core unless a host file gives more): lower --np, or let ranks "
                "share cores with --launcher-arg=--oversubscribe (their timings then "
                "measure the sharing)")
    return None
