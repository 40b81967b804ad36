"""Headless Chromium (Debian's `chromium`) for report tests: installed with apt-get when
missing (CI starts from a clean machine), a page opened from file:// with its console
messages collected and a screenshot taken."""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List

import pytest

ARTIFACTS = Path(os.environ.get("HPCPROBE_TEST_ARTIFACTS",
                                Path(__file__).resolve().parents[2] / "build" / "test-artifacts"))
APT_LOCK = "/tmp/hpcprobe-apt.lock"
INSTALL_TIMEOUT_S = 1200


def _apt(*args: str) -> None:
    lock = ["flock", APT_LOCK] if shutil.which("flock") else []
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    completed = subprocess.run([*lock, "apt-get", *args], capture_output=True, text=True,
                               env=env, timeout=INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        pytest.fail(f"apt-get {' '.join(args)} failed: {completed.stderr[-2000:]}")


def chromium() -> str:
    """The chromium executable, installing Debian's package first when it is missing."""
    found = shutil.which("chromium")
    if found:
        return found
    if not shutil.which("apt-get") or os.geteuid() != 0:
        pytest.fail("the report tests need Debian's chromium: apt-get install chromium "
                    "(as root; the tests do it themselves when run as root)")
    _apt("update", "-qq")
    _apt("install", "-y", "-qq", "--no-install-recommends", "chromium")
    found = shutil.which("chromium")
    assert found, "apt-get installed chromium but it is not on PATH"
    return found


@dataclass
class PageVisit:
    console: List[str]
    screenshot: Path
    log: str


def visit(executable: str, page: Path, screenshot: Path, height: int = 6000) -> PageVisit:
    """Open `page` from file:// headless, keep every console message (Chromium logs
    them all, errors and CSP violations included, as ':CONSOLE' lines) and save a
    screenshot of the first `height` pixels."""
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    argv = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--enable-logging=stderr", "--v=0", f"--window-size=1280,{height}",
            f"--screenshot={screenshot}", page.resolve().as_uri()]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=180,
                               stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr[-3000:]
    console = [line for line in completed.stderr.splitlines() if ":CONSOLE" in line]
    return PageVisit(console, screenshot, completed.stderr)
