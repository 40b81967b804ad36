"""What hpcprobe does on the signals a scheduler or a terminal sends.

SIGTERM (Slurm at a time limit, `timeout`, `kill`), SIGHUP (a dropped SSH session) and
SIGINT (Ctrl-C) each raise StopSignal in the main thread: the launch in progress is
stopped with every process it started, what was measured stays in the results file, and
hpcprobe exits with 128 + the signal's number, as a shell reports a program killed by it.
A second signal while the launch is being stopped cuts the launcher's grace period short.
"""

import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Iterator, Optional

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopSignal(BaseException):
    """A signal asked hpcprobe to stop. A BaseException, like KeyboardInterrupt, so that
    no `except Exception` on the way swallows it."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number
        # Where what was measured before the stop lies (set by the launch it stopped).
        self.results_path: Optional[str] = None

    @property
    def name(self) -> str:
        return signal.Signals(self.signal_number).name

    @property
    def exit_status(self) -> int:
        return 128 + self.signal_number


_received: Optional[int] = None
_hurry = threading.Event()


def _handler(signal_number: int, frame: Optional[FrameType]) -> None:
    global _received
    if _received is not None:
        _hurry.set()  # a second signal: stop what is left at once
        return
    _received = signal_number
    raise StopSignal(signal_number)


@contextmanager
def handled() -> Iterator[None]:
    """Handle HANDLED_SIGNALS in this (the main) thread while inside, and put the
    previous handlers back after (main() is also called in-process, by tests). A signal
    the caller ignores (SIGHUP under nohup) stays ignored."""
    global _received
    _received = None
    _hurry.clear()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signal_number in HANDLED_SIGNALS:
            if signal.getsignal(signal_number) is not signal.SIG_IGN:
                previous[signal_number] = signal.signal(signal_number, _handler)
    try:
        yield
    finally:
        for signal_number, handler in previous.items():
            signal.signal(signal_number, handler)


def hurried() -> bool:
    """True once a second signal came while stopping."""
    return _hurry.is_set()
