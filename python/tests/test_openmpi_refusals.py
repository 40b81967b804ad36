"""Open MPI's refusals reach the user as one line naming the fix (exit status 2), not as
its banner: running as root without its permission, and more ranks than slots. And the
fix named works.

Run with the real Open MPI: hpcprobe built against Debian's (build/venv-openmpi, which
`make pytest` builds as root, as CI runs). Where that venv is missing, or the tests do not
run as root (Open MPI refuses only root), they fail and say so, never skip."""

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPENMPI_HPCPROBE = ROOT / "build" / "venv-openmpi" / "bin" / "hpcprobe"
ALLOW_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
# A small RandomAccess: any rank count, a second or two.
TINY_RA = ("ra", "mpi", "--table-log2", "14", "--quiet")


@pytest.fixture(scope="module")
def root_env() -> Dict[str, str]:
    if not os.access(OPENMPI_HPCPROBE, os.X_OK):
        pytest.fail(f"no {OPENMPI_HPCPROBE}: 'make pytest' builds it with Debian's Open MPI "
                    "(apt-get install openmpi-bin libopenmpi-dev, as root)")
    if os.geteuid() != 0:
        pytest.fail("these tests run as root, as CI does: Open MPI refuses only root")
    # Whatever the calling shell allowed Open MPI is taken back.
    return {key: value for key, value in os.environ.items()
            if not key.startswith(("OMPI_ALLOW_RUN_AS_ROOT", "PRTE_ALLOW_RUN_AS_ROOT",
                                   "OMPI_MCA_rmaps_base_oversubscribe"))}


def openmpi_hpcprobe(env: Dict[str, str], out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(OPENMPI_HPCPROBE), *TINY_RA, "--out", str(out), *args],
                          env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def one_line(done: subprocess.CompletedProcess) -> str:
    lines: List[str] = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def records(out: Path) -> List[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_running_as_root_is_one_line_naming_the_option_and_the_variables(root_env, tmp_path):
    refused = openmpi_hpcprobe(root_env, tmp_path / "refused", "--np", "2")
    assert refused.returncode == 2, refused.stderr
    line = one_line(refused)
    assert line.startswith("hpcprobe: benchmark 'ra mpi' not started: Open MPI's "), line
    for fix in ("--launcher-arg=--allow-run-as-root", "OMPI_ALLOW_RUN_AS_ROOT=1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"):
        assert fix in line, line
    # Open MPI's own words stay in the launch's log, which the line names.
    log = tmp_path / "refused" / "ra-mpi.log"
    assert str(log) in line
    assert "attempt to run as root" in log.read_text()

    allowed = openmpi_hpcprobe(root_env, tmp_path / "allowed", "--np", "2",
                               "--launcher-arg=--allow-run-as-root")
    assert allowed.returncode == 0, allowed.stderr
    (record,) = records(tmp_path / "allowed")
    assert record["validation"]["verdict"] == "passed"


def test_more_ranks_than_slots_is_one_line_naming_oversubscribe(root_env, tmp_path):
    # One rank more than this process may run on: Open MPI counts a slot per core, and
    # there are no more cores than CPUs.
    ranks = len(os.sched_getaffinity(0)) + 1
    env = dict(root_env, **ALLOW_ROOT)
    refused = openmpi_hpcprobe(env, tmp_path / "refused", "--np", str(ranks))
    assert refused.returncode == 2, refused.stderr
    line = one_line(refused)
    assert f"fewer slots than the {ranks} ranks asked for" in line, line
    assert "--np" in line and "--launcher-arg=--oversubscribe" in line, line

    allowed = openmpi_hpcprobe(env, tmp_path / "allowed", "--np", str(ranks),
                               "--launcher-arg=--oversubscribe")
    assert allowed.returncode == 0, allowed.stderr
    (record,) = records(tmp_path / "allowed")
    assert record["validation"]["verdict"] == "passed"
    assert len(record["metadata"]["rank_hosts"]) == ranks  # every rank started
