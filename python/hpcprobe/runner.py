"""Launching one benchmark: run it under its launcher, log it, watch its time budget,
and map what happened to hpcprobe's exit status."""

import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Deque, Dict, List, Optional, Sequence

from hpcprobe.errors import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_RUNTIME_FAILURE,
    EXIT_VALIDATION_FAILED,
    HpcprobeError,
)
from hpcprobe.launch import AnyLauncher
from hpcprobe.progress import ProgressReporter, budget_text
from hpcprobe.results import RecordSet, file_size, read_records

RESULTS_FILE = "results.jsonl"
USER_COMMAND_VARIABLE = "HPCPROBE_USER_COMMAND"
BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"
# After SIGTERM the launcher gets this long to stop its ranks before SIGKILL.
TERMINATE_GRACE_S = 5.0
POLL_INTERVAL_S = 0.2
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
        self.stderr_lines: Deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._threads = [
            threading.Thread(target=self._pump, args=(process.stdout, False), daemon=True),
            threading.Thread(target=self._pump, args=(process.stderr, True), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump(self, stream: IO[bytes], is_stderr: bool) -> None:
        for raw in iter(stream.readline, b""):
            with self._lock:
                self._log.write(raw)
                self._log.flush()
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


def _signal_group(process: subprocess.Popen, signal_number: int) -> None:
    try:
        os.killpg(process.pid, signal_number)
    except (ProcessLookupError, PermissionError):
        pass


def _note(log: Optional[IO[bytes]], line: str) -> None:
    """The watchdog's own report in the launch's log: what it did and when, so that
    tests and people read events rather than time them."""
    if log is not None:
        log.write(f"hpcprobe watchdog: {line}\n".encode("utf-8"))
        log.flush()


def stop_process_group(process: subprocess.Popen, log: Optional[IO[bytes]] = None) -> None:
    """SIGTERM the launch's process group (launchers pass it on to their ranks), then
    SIGKILL what is left after TERMINATE_GRACE_S; each step is noted in `log`."""
    _note(log, "SIGTERM to the launch's process group")
    _signal_group(process, signal.SIGTERM)
    try:
        process.wait(TERMINATE_GRACE_S)
        _note(log, "the launch stopped on SIGTERM")
    except subprocess.TimeoutExpired:
        _note(log, f"still running {TERMINATE_GRACE_S:g} s after SIGTERM: SIGKILL")
    _signal_group(process, signal.SIGKILL)
    process.wait()


def _wait_within_budget(process: subprocess.Popen, budget_s: float,
                        progress: ProgressReporter, log: IO[bytes]) -> bool:
    """Wait for the launch; True when it ran past its budget and was stopped."""
    started = time.monotonic()
    try:
        while True:
            try:
                process.wait(POLL_INTERVAL_S)
                return False
            except subprocess.TimeoutExpired:
                pass
            elapsed = time.monotonic() - started
            progress.update(elapsed)
            if elapsed > budget_s:
                _note(log, f"time budget of {budget_s:g} s exceeded")
                stop_process_group(process, log)
                return True
    except KeyboardInterrupt:
        _note(log, "interrupted")
        stop_process_group(process, log)
        raise


def _start(launch: Launch, argv: List[str], log: IO[bytes]) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(launch.env)
    env[USER_COMMAND_VARIABLE] = json.dumps(list(launch.user_argv))
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
        raise HpcprobeError(f"cannot write to {launch.out_dir}: {error.strerror}") from None


def run_launch(launch: Launch, progress: ProgressReporter) -> LaunchOutcome:
    """Run `launch` to completion (or until its budget ends) and classify the result."""
    start_offset = file_size(launch.results_path)
    argv = launch.argv()
    started = time.monotonic()
    with _open_log(launch) as log:
        process = _start(launch, argv, log)
        pump = _OutputPump(process, log, progress)
        timed_out = _wait_within_budget(process, launch.time_budget_s, progress, log)
        pump.join()
    elapsed = time.monotonic() - started
    found = _appended_records(launch.results_path, start_offset)
    outcome = classify(launch, process.returncode, timed_out, found, list(pump.stderr_lines))
    outcome.elapsed_s = elapsed
    return outcome


def _appended_records(results_path: Path, start_offset: int) -> RecordSet:
    if not results_path.exists():
        return RecordSet()
    return read_records(results_path, start_offset)


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


def classify(launch: Launch, return_code: int, timed_out: bool, found: RecordSet,
             stderr_lines: List[str]) -> LaunchOutcome:
    """hpcprobe's exit status and message: bench 2 -> 2, 1 -> 1, anything else -> 3."""
    def outcome(status: int, message: Optional[str]) -> LaunchOutcome:
        return LaunchOutcome(status, message, found, stderr_lines)

    if timed_out:
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' exceeded its time budget of "
            f"{budget_text(launch.time_budget_s)} and was stopped (hung rank?); records "
            f"already measured are in {launch.results_path}"))
    if found.problems:
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' wrote records that are not valid; see above and "
            f"{launch.log_path}"))
    if return_code == EXIT_BAD_INPUT:
        relayed = bench_error_lines(stderr_lines)
        return outcome(EXIT_BAD_INPUT, "\n".join(relayed) if relayed else (
            f"benchmark '{launch.name}' rejected its input; see {launch.log_path}"))
    if return_code == EXIT_VALIDATION_FAILED:
        message = _validation_message(launch, found)
        if message is not None:
            return outcome(EXIT_VALIDATION_FAILED, message)
    if return_code != EXIT_OK:
        return outcome(EXIT_RUNTIME_FAILURE, _failed_message(launch, return_code))
    if not found.records:
        return outcome(EXIT_RUNTIME_FAILURE, (
            f"benchmark '{launch.name}' exited 0 but wrote no record to "
            f"{launch.results_path}; see {launch.log_path}"))
    return outcome(EXIT_OK, None)
