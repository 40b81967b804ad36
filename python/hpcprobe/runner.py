"""Launching one benchmark: run it under its launcher, log it, watch its time budget,
and map what happened to hpcprobe's exit status."""

import json
import os
import signal
import subprocess
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Deque, Dict, List, Optional, Sequence

from hpcprobe.errors import (
    EXIT_BAD_INPUT,
    EXIT_IO_FAILURE,
    EXIT_OK,
    EXIT_RUNTIME_FAILURE,
    EXIT_VALIDATION_FAILED,
    HpcprobeError,
)
from hpcprobe.history.db import utc_now
from hpcprobe.history.hook import keep_launch
from hpcprobe.launch import AnyLauncher
from hpcprobe.launch.refusals import launcher_refusal
from hpcprobe.processes import ProcessTree, signal_group
from hpcprobe.progress import ProgressReporter, budget_text
from hpcprobe.results import Record, RecordSet, file_size, read_records
from hpcprobe.signals import StopSignal, hurried

RESULTS_FILE = "results.jsonl"
USER_COMMAND_VARIABLE = "HPCPROBE_USER_COMMAND"
# The bench writes it into each record (metadata.launch_id): a launch reads back only its
# own records from a file that other runs may be appending to.
LAUNCH_ID_VARIABLE = "HPCPROBE_LAUNCH_ID"
BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"
# After SIGTERM the launcher gets this long to stop its ranks before SIGKILL.
TERMINATE_GRACE_S = 5.0
POLL_INTERVAL_S = 0.2
# How often the watchdog looks for ranks orphaned by a dead proxy (a scan of /proc: rare
# enough to cost nothing beside the ranks being measured).
ORPHAN_CHECK_S = 1.0
# Output readers end when every writer has closed the pipe; a rank that escaped the
# process group could keep it open, so stop waiting after this long.
READER_JOIN_S = 5.0
STDERR_LINES_KEPT = 200


@dataclass
class Launch:
    """One benchmark launch: `benchmark variant` with bench options, under a launcher."""

    benchmark: str
    variant: str
    bench_options: Sequence[str]
    np: int
    launcher: AnyLauncher
    launcher_args: Sequence[str]
    bench_path: str
    out_dir: Path
    time_budget_s: float
    user_argv: Sequence[str]
    env: Dict[str, str] = field(default_factory=dict)  # added to the launch's environment
    launch_id: str = field(default_factory=lambda: f"{os.getpid()}-{uuid.uuid4().hex[:16]}")

    @property
    def name(self) -> str:
        return f"{self.benchmark} {self.variant}"

    @property
    def results_path(self) -> Path:
        return self.out_dir / RESULTS_FILE

    @property
    def log_path(self) -> Path:
        return self.out_dir / f"{self.benchmark}-{self.variant}.log"

    def argv(self) -> List[str]:
        program = [
            self.bench_path, self.benchmark, self.variant, *self.bench_options,
            "--out", str(self.results_path),
        ]
        return self.launcher.command(self.np, list(self.launcher_args), program)


@dataclass
class LaunchOutcome:
    """What one launch produced, and hpcprobe's verdict on it."""

    exit_status: int
    message: Optional[str]
    found: RecordSet
    stderr_lines: List[str] = field(default_factory=list)
    elapsed_s: float = 0.0


class _OutputPump:
    """Copies the launch's stdout and stderr to its log (and stdout to the screen)."""

    def __init__(self, process: subprocess.Popen, log: IO[bytes],
                 progress: ProgressReporter) -> None:
        self._log = log
        self._lock = threading.Lock()
        self._progress = progress
        self.log_error: Optional[OSError] = None
        self.stderr_lines: Deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._threads = [
            threading.Thread(target=self._pump, args=(process.stdout, False), daemon=True),
            threading.Thread(target=self._pump, args=(process.stderr, True), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _write_log(self, raw: bytes) -> None:
        # A full disk must not stop the pipe being drained (the launch would block on
        # it): the log stops, the error is kept for the outcome, the output goes on.
        if self.log_error is not None:
            return
        try:
            with self._lock:
                self._log.write(raw)
                self._log.flush()
        except OSError as error:
            self.log_error = error

    def _pump(self, stream: IO[bytes], is_stderr: bool) -> None:
        for raw in iter(stream.readline, b""):
            self._write_log(raw)
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if is_stderr:
                # Shown after the run, where the exit status says what it means.
                self.stderr_lines.append(line)
            else:
                self._progress.output_line(line)

    def join(self) -> None:
        deadline = time.monotonic() + READER_JOIN_S
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))


def _note(log: Optional[IO[bytes]], line: str) -> None:
    """The watchdog's own report in the launch's log: what it did and when, so that
    tests and people read events rather than time them."""
    if log is None:
        return
    try:
        log.write(f"hpcprobe watchdog: {line}\n".encode("utf-8"))
        log.flush()
    except OSError:
        pass  # a full disk: the stop itself matters more than its note


def _wait_for_stop(process: subprocess.Popen, tree: ProcessTree, grace_s: float) -> bool:
    """Wait up to `grace_s` for the launcher and every process of the launch to end, or
    until a second signal hurries the stop; True when all ended."""
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and not hurried():
        if process.poll() is not None and not tree.members():
            return True
        time.sleep(0.05)
    return False


def stop_launch(process: subprocess.Popen, log: Optional[IO[bytes]] = None,
                tree: Optional[ProcessTree] = None) -> None:
    """SIGTERM every process of the launch (launcher, proxies, ranks, orphans: see
    processes.py), then SIGKILL what is left after TERMINATE_GRACE_S (at once after a
    second signal); each step is noted in `log`."""
    tree = tree or ProcessTree(process.pid)
    _note(log, "SIGTERM to every process of the launch")
    signal_group(process.pid, signal.SIGTERM)
    tree.signal(signal.SIGTERM)
    if _wait_for_stop(process, tree, TERMINATE_GRACE_S):
        _note(log, "the launch stopped on SIGTERM")
    else:
        _note(log, "second signal: SIGKILL at once" if hurried() else
              f"still running {TERMINATE_GRACE_S:g} s after SIGTERM: SIGKILL")
    signal_group(process.pid, signal.SIGKILL)
    tree.signal(signal.SIGKILL)
    process.wait()
    tree.reap_orphans()


def _watch(process: subprocess.Popen, tree: ProcessTree, budget_s: Optional[float],
           progress: Optional[ProgressReporter], log: Optional[IO[bytes]]) -> Optional[str]:
    """Wait for the launch; why it was stopped ("budget", "orphaned"), or None when it
    ended by itself."""
    started = time.monotonic()
    next_orphan_check = started + ORPHAN_CHECK_S
    while True:
        try:
            process.wait(POLL_INTERVAL_S)
            return None
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if progress is not None:
            progress.update(now - started)
        if budget_s is not None and now - started > budget_s:
            _note(log, f"time budget of {budget_s:g} s exceeded")
            stop_launch(process, log, tree)
            return "budget"
        if now >= next_orphan_check:
            next_orphan_check = now + ORPHAN_CHECK_S
            orphans = tree.orphans()
            if orphans:
                _note(log, f"a launcher process died and left processes {orphans} "
                      "orphaned (a dead proxy?)")
                stop_launch(process, log, tree)
                return "orphaned"


def _stop_leftovers(process: subprocess.Popen, tree: ProcessTree,
                    log: Optional[IO[bytes]]) -> None:
    """Processes of the launch still running after its launcher exited (ranks of a
    proxy that died as the launcher did) are stopped, not left spinning."""
    left = tree.members()
    if left:
        _note(log, f"processes {left} outlived the launcher")
        stop_launch(process, log, tree)


def supervise(process: subprocess.Popen, budget_s: Optional[float],
              log: Optional[IO[bytes]] = None,
              progress: Optional[ProgressReporter] = None) -> Optional[str]:
    """Wait for the launch started as `process` (in a session of its own) to end, or
    stop it with every process it started: past `budget_s` (None: no budget), when a
    launcher process died, or on a signal or Ctrl-C, which is then passed on. Why it
    was stopped ("budget", "orphaned"), or None; each step noted in `log`."""
    tree = ProcessTree(process.pid)
    try:
        stopped = _watch(process, tree, budget_s, progress, log)
        _stop_leftovers(process, tree, log)
        return stopped
    except (StopSignal, KeyboardInterrupt) as stop:
        _note(log, f"{getattr(stop, 'name', 'SIGINT')} received: stopping the launch")
        stop_launch(process, log, tree)
        raise


def _start(launch: Launch, argv: List[str], log: IO[bytes]) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(launch.env)
    env[USER_COMMAND_VARIABLE] = json.dumps(list(launch.user_argv))
    env[LAUNCH_ID_VARIABLE] = launch.launch_id
    # A threaded OpenBLAS (the BLAS of dgemm and hpl) would start one spinning thread per
    # core beside every rank of every benchmark; dgemm and hpl ask for their --threads.
    env.setdefault(BLAS_THREADS_VARIABLE, "1")
    log.write(("$ " + json.dumps(argv) + "\n").encode("utf-8"))
    log.flush()
    try:
        # Its own session, so the watchdog can signal the launcher and everything it
        # started in one call, without touching hpcprobe itself.
        return subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=True,
        )
    except OSError as error:
        raise HpcprobeError(f"cannot start {argv[0]!r} for '{launch.name}': {error}") from None


def _open_log(launch: Launch) -> IO[bytes]:
    try:
        launch.out_dir.mkdir(parents=True, exist_ok=True)
        return open(launch.log_path, "ab")
    except OSError as error:
        raise HpcprobeError(f"cannot write {launch.log_path}: {error.strerror}",
                            EXIT_IO_FAILURE) from None


def run_launch(launch: Launch, progress: ProgressReporter) -> LaunchOutcome:
    """Run `launch` to completion (or until it is stopped) and classify the result."""
    start_offset = file_size(launch.results_path)
    argv = launch.argv()
    started = time.monotonic()
    started_at = utc_now()
    with _open_log(launch) as log:
        process = _start(launch, argv, log)
        pump = _OutputPump(process, log, progress)
        try:
            stopped = supervise(process, launch.time_budget_s, log, progress)
        except StopSignal as stop:
            stop.results_path = str(launch.results_path)
            raise
        pump.join()
    elapsed = time.monotonic() - started
    found = own_records(launch.results_path, start_offset, launch.launch_id)
    # One run in the history per launch; it never fails the launch (history/hook.py).
    keep_launch(launch.user_argv or [launch.name], found.records, started_at, utc_now(),
                launch.launch_id)
    outcome = classify(launch, process.returncode, stopped, found, list(pump.stderr_lines))
    if pump.log_error is not None and outcome.exit_status == EXIT_OK:
        raise pump.log_error  # the run measured, but its log could not be kept
    outcome.elapsed_s = elapsed
    return outcome


def _is_own(record: Record, launch_id: str) -> bool:
    # A record without an identity comes from a bench older than launch identities.
    written_by = record["metadata"].get("launch_id")
    return written_by is None or written_by == launch_id


def own_records(results_path: Path, start_offset: int, launch_id: str) -> RecordSet:
    """The records of launch `launch_id` among those appended after `start_offset` (the
    offset only saves reading what came before; other runs may append meanwhile)."""
    if not results_path.exists():
        return RecordSet()
    appended = read_records(results_path, start_offset)
    return RecordSet([r for r in appended.records if _is_own(r, launch_id)],
                     appended.problems)


def bench_error_lines(stderr_lines: Sequence[str]) -> List[str]:
    """The bench's own error lines: non-blank, without launcher banners, each once
    (every rank may print the same line)."""
    kept: List[str] = []
    for line in stderr_lines:
        text = line.strip()
        if text and not text.startswith("=") and text not in kept:
            kept.append(text)
    return kept


def _signal_name(return_code: int) -> str:
    try:
        return signal.Signals(-return_code).name
    except ValueError:
        return f"signal {-return_code}"


def _failed_message(launch: Launch, return_code: int) -> str:
    status = (
        f"killed by {_signal_name(return_code)}" if return_code < 0
        else f"exit status {return_code}"
    )
    return (
        f"benchmark '{launch.name}' failed ({status}); see {launch.log_path}; "
        f"records already measured are kept in {launch.results_path}"
    )


def _number(value: Optional[float]) -> str:
    return "unknown" if value is None else f"{value:.6g}"


def _validation_message(launch: Launch, found: RecordSet) -> Optional[str]:
    for record in found.records:
        validation = record["validation"]
        if validation["verdict"] == "failed":
            return (
                f"benchmark '{launch.name}' failed validation (error "
                f"{_number(validation.get('error'))} {validation.get('error_unit', '')}, "
                f"tolerance {_number(validation.get('tolerance'))}); the record is in "
                f"{launch.results_path}"
            )
    return None


def _refused(launch: Launch, return_code: int, stderr_lines: List[str]) -> Optional[str]:
    """One line for a launcher that refused to start the ranks (Open MPI as root, more
    ranks than slots), or None; its banner is not repeated, the log keeps it."""
    refusal = launcher_refusal(stderr_lines) if return_code != EXIT_OK else None
    if refusal is None:
        return None
    return f"hpcprobe: benchmark '{launch.name}' not started: {refusal} (see {launch.log_path})"


def classify(launch: Launch, return_code: int, stopped: Optional[str], found: RecordSet,
             stderr_lines: List[str]) -> LaunchOutcome:
    """hpcprobe's exit status and message: bench 2 -> 2, 1 -> 1, anything else -> 3; a
    launcher that refused to start the ranks -> 2, its fix in one line.
    `stopped`: why the watchdog stopped the launch ("budget", "orphaned") or None."""
    def outcome(status: int, message: Optional[str]) -> LaunchOutcome:
        return LaunchOutcome(status, message, found, stderr_lines)

    if stopped == "budget":
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' exceeded its time budget of "
            f"{budget_text(launch.time_budget_s)} and was stopped (hung rank?); records "
            f"already measured are in {launch.results_path}"))
    if stopped == "orphaned":
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' lost a launcher process (its ranks were left "
            f"orphaned) and was stopped; see {launch.log_path}; records already measured "
            f"are in {launch.results_path}"))
    if found.problems:
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' wrote records that are not valid; see above and "
            f"{launch.log_path}"))
    refused = _refused(launch, return_code, stderr_lines)
    if refused is not None:
        return LaunchOutcome(EXIT_BAD_INPUT, refused, found)
    if return_code == EXIT_BAD_INPUT:
        relayed = bench_error_lines(stderr_lines)
        return outcome(EXIT_BAD_INPUT, "\n".join(relayed) if relayed else (
            f"benchmark '{launch.name}' rejected its input; see {launch.log_path}"))
    if return_code == EXIT_VALIDATION_FAILED:
        message = _validation_message(launch, found)
        if message is not None:
            return outcome(EXIT_VALIDATION_FAILED, message)
    if return_code == EXIT_IO_FAILURE:
        return outcome(EXIT_IO_FAILURE, (
            f"benchmark '{launch.name}' could not write its record to "
            f"{launch.results_path} (see its line above); earlier records are intact"))
    if return_code != EXIT_OK:
        return outcome(EXIT_RUNTIME_FAILURE, _failed_message(launch, return_code))
    if not found.records:
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' exited 0 but wrote no record to "
            f"{launch.results_path}; see {launch.log_path}"))
    return outcome(EXIT_OK, None)
