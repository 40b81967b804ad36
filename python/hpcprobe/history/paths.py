"""Where the history database lives: $HPCPROBE_HISTORY when set ("off" or empty: no
history), else $XDG_DATA_HOME/hpcprobe/history.sqlite (~/.local/share by default)."""

import os
from pathlib import Path
from typing import Mapping, Optional

HISTORY_VARIABLE = "HPCPROBE_HISTORY"
# Values of $HPCPROBE_HISTORY that turn the history off.
OFF_WORDS = ("off", "")
FILE_NAME = "history.sqlite"


def history_path(env: Mapping[str, str] = os.environ) -> Optional[Path]:
    """The history file, or None when the user turned the history off."""
    chosen = env.get(HISTORY_VARIABLE)
    if chosen is not None:
        return None if chosen.strip().lower() in OFF_WORDS else Path(chosen).expanduser()
    data_home = env.get("XDG_DATA_HOME", "")
    # The XDG rule: a relative $XDG_DATA_HOME is invalid and ignored.
    if not data_home or not os.path.isabs(data_home):
        data_home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(data_home) / "hpcprobe" / FILE_NAME
