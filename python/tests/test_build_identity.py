"""The commit a build records (cmake/hpcp_git_commit.cmake): `git describe` of hpcprobe's
own tree, and "unknown" for a tree that is not the top of its git work tree, such as a
copy inside another repository, whose commit is not hpcprobe's (issue 40)."""

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import REPO

SCRIPT = REPO / "cmake" / "hpcp_git_commit.cmake"


def recorded(folder: Path) -> str:
    cmake = shutil.which("cmake")
    assert cmake, "cmake is not on PATH (the build needs it too)"
    done = subprocess.run([cmake, f"-DHPCP_SOURCE_DIR={folder}", "-P", str(SCRIPT)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


def test_the_projects_own_tree_records_its_commit():
    if git(REPO, "rev-parse", "--show-toplevel") != str(REPO.resolve()):
        pytest.fail(f"{REPO} is not the top of a git work tree: run the tests from a clone")
    assert recorded(REPO) == git(REPO, "describe", "--always", "--dirty", "--abbrev=12")


def test_a_copy_inside_another_repository_records_unknown(tmp_path):
    outer = tmp_path / "site-repo"
    outer.mkdir()
    git(outer, "init", "-q")
    git(outer, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
        "-m", "the site's own commit")
    copy = outer / "vendor" / "hpcprobe"
    copy.mkdir(parents=True)
    shutil.copy(SCRIPT, copy / "CMakeLists.txt")  # any file: the folder is what counts
    assert git(copy, "rev-parse", "--short", "HEAD")  # git itself would answer the site's
    assert recorded(copy) == "unknown"


def test_a_subfolder_of_the_project_or_no_repository_records_unknown(tmp_path):
    assert recorded(REPO / "core") == "unknown"
    assert recorded(tmp_path) == "unknown"
