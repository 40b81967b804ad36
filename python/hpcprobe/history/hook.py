"""Every launch's records go into the history: one run per launch, written when the
launch ends (runner.run_launch). The history never fails a launch: one that cannot be
written prints one warning line (once per file and process) and the launch goes on."""

import os
import shlex
import sqlite3
import sys
from typing import Any, Dict, Mapping, Optional, Sequence, Set

from hpcprobe.errors import HpcprobeError
from hpcprobe.history.db import open_history
from hpcprobe.history.figures import figures_of
from hpcprobe.history.paths import history_path
from hpcprobe.sanitize import visible

_warned: Set[str] = set()


def _warn(where: str, message: str) -> None:
    if where in _warned:
        return  # the same file, the same cause: the first line said it
    _warned.add(where)
    try:
        print(f"hpcprobe: warning: history not written ({visible(message)}); the run goes "
              "on (HPCPROBE_HISTORY=off turns the history off)", file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr is gone: nothing else to tell


def keep_launch(user_argv: Sequence[str], records: Sequence[Dict[str, Any]],
                started_at: str, finished_at: str, launch_id: Optional[str],
                env: Mapping[str, str] = os.environ) -> Optional[int]:
    """Store the launch's records as one run; its run id, or None (history off, no
    figure, or not written: then one warning line). Never raises an error."""
    path = history_path(env)
    figures = [figure for record in records for figure in figures_of(record)]
    if path is None or not figures:
        return None
    try:
        with open_history(path) as history:
            return history.add_run(shlex.join(user_argv), figures, started_at,
                                   finished_at, launch_id)
    except HpcprobeError as error:
        _warn(str(path), error.message)
    except (OSError, ValueError, MemoryError, sqlite3.Error) as error:
        _warn(str(path), f"{path}: {error}")
    return None
