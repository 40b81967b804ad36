"""A hostile environment around real MPI launches: scheduler and terminal signals, a dead
proxy, a full disk, concurrent runs into one directory, absurd rank counts.

Leftover processes are found by parentage and process group, never by name: this test
process makes itself a child subreaper, so anything that outlives hpcprobe is
reparented here, and every process group the launch used is checked for survivors.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Set

import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.processes import become_subreaper, descendants, live_parents, own_children
from hpcprobe.results import read_records

HANG_LINE = "injected fault: rank 1 hangs"
STOP_TIMEOUT_S = 30


@pytest.fixture(scope="module", autouse=True)
def subreaper():
    assert become_subreaper(), "these tests need Linux's PR_SET_CHILD_SUBREAPER"


def _process_group(pid: int) -> int:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return -1


def _live_in_groups(groups: Set[int]) -> List[int]:
    return [pid for pid in live_parents() if _process_group(pid) in groups]


class HangingRun:
    """`hpcprobe ra mpi --np 2` whose rank 1 hangs (HPCPROBE_INJECT_FAULT), started and
    watched until the hang is reached, with the processes of its launch recorded."""

    def __init__(self, out: Path, *extra: str, fault: str = "hang:1") -> None:
        self.out = out
        self.children_before = own_children()
        env = dict(os.environ, HPCPROBE_INJECT_FAULT=fault)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hpcprobe", "ra", "mpi", "--np", "2", "--table-log2",
             "16", "--out", str(out), "--time-budget", "120", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self._wait_for_hang()
        self.tree: Dict[int, int] = {}
        self.groups: Set[int] = set()
        self._record_tree()

    def _wait_for_hang(self) -> None:
        log = self.out / "ra-mpi.log"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and HANG_LINE in log.read_text(errors="replace"):
                return
            assert self.process.poll() is None, self.process.communicate()
            time.sleep(0.1)
        raise AssertionError(f"the run never reached its hang: {log}")

    def _record_tree(self) -> None:
        parents = live_parents()
        for pid in descendants(self.process.pid, parents):
            self.tree[pid] = parents[pid]
            self.groups.add(_process_group(pid))
        # mpiexec, its proxy and two ranks at least.
        assert len(self.tree) >= 4, self.tree

    def proxy(self) -> int:
        """The process whose children are the ranks: the launcher's child (hpcprobe ->
        mpiexec -> proxy -> ranks), told by parentage."""
        launcher = [pid for pid, parent in self.tree.items() if parent == self.process.pid]
        assert len(launcher) == 1, self.tree
        proxies = [pid for pid, parent in self.tree.items() if parent == launcher[0]]
        assert len(proxies) == 1, self.tree
        return proxies[0]

    def finish(self) -> subprocess.CompletedProcess:
        stdout, stderr = self.process.communicate(timeout=STOP_TIMEOUT_S)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode,
                                           stdout, stderr)

    def survivors(self) -> List[int]:
        """Processes of the launch still alive: adopted by us, or left in its groups."""
        time.sleep(0.5)  # a process killed just now may not have been reaped yet
        adopted = own_children() - self.children_before
        left = set(_live_in_groups(self.groups)) | adopted
        left |= {pid for pid in self.tree if pid in live_parents()}
        for pid in left:  # do not let a failure here leave spinning ranks behind
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return sorted(left)


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_stops_the_whole_launch_and_keeps_the_records(tmp_path, signal_number):
    out = tmp_path / "out"
    first = run_hpcprobe("ra", "single", "--table-log2", "14", "--out", str(out))
    assert first.returncode == 0, first.stderr
    run = HangingRun(out)
    os.kill(run.process.pid, signal_number)
    done = run.finish()
    assert done.returncode == 128 + signal_number, done.stderr
    name = signal.Signals(signal_number).name
    assert f"hpcprobe: stopped by {name}; records measured before it are kept in" in done.stderr
    assert "Traceback" not in done.stderr
    assert run.survivors() == []
    found = read_records(out / "results.jsonl")
    assert found.problems == [] and len(found.records) == 1


def test_a_second_signal_cuts_the_grace_short(tmp_path):
    # Ranks that ignore SIGTERM would have the launcher wait its whole grace period;
    # the second signal makes it SIGKILL at once.
    run = HangingRun(tmp_path / "out")
    os.kill(run.process.pid, signal.SIGTERM)
    time.sleep(0.3)
    os.kill(run.process.pid, signal.SIGTERM)
    done = run.finish()
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert run.survivors() == []
    log = (tmp_path / "out" / "ra-mpi.log").read_text()
    assert "hpcprobe watchdog: SIGTERM received: stopping the launch" in log


def test_a_killed_proxy_is_noticed_and_its_ranks_stopped(tmp_path):
    run = HangingRun(tmp_path / "out")
    os.kill(run.proxy(), signal.SIGKILL)
    started = time.monotonic()
    done = run.finish()
    # Well within the run's 120 s budget: the watchdog noticed, not the budget.
    assert time.monotonic() - started < 20
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert run.survivors() == []


def test_a_full_disk_loses_no_record(tmp_path):
    assert os.geteuid() == 0, "mounting a small tmpfs needs root (CI runs as root)"
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], check=True)
    try:
        out = disk / "out"
        argv = ["ra", "single", "--table-log2", "14", "--out", str(out)]
        assert run_hpcprobe(*argv).returncode == 0
        filler = disk / "filler"
        descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(descriptor, b"x" * 512):
                pass
        except OSError:
            pass  # full
        finally:
            os.close(descriptor)
        full = run_hpcprobe(*argv)
        assert full.returncode == 4, full.stderr
        assert "Traceback" not in full.stderr
        assert "No space left on device" in full.stderr
        filler.unlink()
        assert run_hpcprobe(*argv).returncode == 0
        found = read_records(out / "results.jsonl")
        assert found.problems == []
        assert len(found.records) == 2
        assert (out / "results.jsonl").read_bytes().endswith(b"\n")
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_concurrent_runs_into_one_directory_keep_their_own_records(tmp_path):
    out = tmp_path / "shared"
    runs = [subprocess.Popen([sys.executable, "-m", "hpcprobe", "ra", "single",
                              "--table-log2", str(log2), "--repeat", "3", "--out", str(out),
                              "--hpcc-summary"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for log2 in (14, 15)]
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (_, stderr) in zip(runs, outputs):
        assert run.returncode == 0, stderr
    found = read_records(out / "results.jsonl")
    assert len(found.records) == 2
    launch_ids = {r["metadata"]["launch_id"] for r in found.records}
    assert len(launch_ids) == 2
    # Each run's table and HPCC summary hold its own record only.
    for stdout, _ in outputs:
        rows = [line for line in stdout.splitlines() if line.startswith("│ ra ")]
        assert len(rows) == 1, stdout
        assert stdout.count("SingleRandomAccess_GUPs=") == 1, stdout


def test_default_result_directories_are_unique_within_a_second(tmp_path):
    runs = [subprocess.Popen([sys.executable, "-m", "hpcprobe", "ra", "single",
                              "--table-log2", "12"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    for run in runs:
        assert run.wait(timeout=120) == 0, run.communicate()
    folders = sorted((tmp_path / "results").iterdir())
    assert len(folders) == 3
    for folder in folders:
        assert len(read_records(folder / "results.jsonl").records) == 1


@pytest.mark.parametrize("ranks", ["100000", "16777217"])
def test_an_absurd_rank_count_is_refused_before_launching(tmp_path, ranks):
    started = time.monotonic()
    done = run_hpcprobe("ra", "mpi", "--np", ranks, "--out", str(tmp_path / "out"))
    assert time.monotonic() - started < 20
    assert done.returncode == 2
    lines = stderr_lines(done)
    assert len(lines) == 1 and lines[0].startswith(f"hpcprobe: --np {ranks}: "), lines
    assert not (tmp_path / "out").exists()
