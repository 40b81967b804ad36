"""`make build MPI=system` with an MPI wrapper whose headers are missing (Debian's
openmpi-bin without libopenmpi-dev) says so in one line, and a build directory whose
configure failed works again once the MPI is whole, without being deleted by hand.

The wrappers here are scripts in tmp_path that answer Open MPI's questions (-showme:...)
with the real Open MPI's answers, changed where a broken installation would differ. The
real wrapper, mpicc.openmpi, comes from Debian's openmpi-bin (`make pytest` installs it,
as root); where it is missing the tests fail and say so."""

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPEN_MPI_QUESTIONS = ("-showme", "-showme:compile", "-showme:link", "-showme:incdirs",
                      "-showme:libdirs", "-showme:libs", "-showme:version")
# What the FindMPI page that the header check replaces is made of.
CMAKE_PAGE_MARKERS = ("non-existent path", "Imported target", "FindMPI.cmake")


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"no {name} on PATH: 'make pytest' installs Debian's openmpi-bin and "
                    "libopenmpi-dev (as root); CMake and make come with the build tools")
    return found


def open_mpi_answers() -> Dict[str, str]:
    """The real Open MPI wrapper's answer to each question FindMPI and the check ask."""
    wrapper = tool("mpicc.openmpi")
    return {question: subprocess.run([wrapper, question], capture_output=True, text=True,
                                     check=True).stdout.strip()
            for question in OPEN_MPI_QUESTIONS}


def write_wrapper(path: Path, answers: Dict[str, str]) -> Path:
    """A wrapper script that gives `answers` and refuses anything else (as a wrapper
    whose compiler cannot build does)."""
    cases = "".join(f"  {question}) echo {shlex.quote(answer)} ;;\n"
                    for question, answer in answers.items())
    path.write_text(f'#!/bin/sh\ncase "$1" in\n{cases}  *) exit 1 ;;\nesac\n')
    path.chmod(0o755)
    return path


def replaced(answers: Dict[str, str], old: str, new: str) -> Dict[str, str]:
    return {question: answer.replace(old, new) for question, answer in answers.items()}


def without_headers(tmp_path: Path) -> Path:
    """Open MPI's wrapper as its run-time package alone leaves it: its include
    directories are named, and exist, but hold no mpi.h."""
    answers = open_mpi_answers()
    real_include = answers["-showme:incdirs"].split()[0]
    include = tmp_path / "include"
    (include / "openmpi").mkdir(parents=True)
    return write_wrapper(tmp_path / "mpicc", replaced(answers, real_include, str(include)))


def clean_make_env() -> Dict[str, str]:
    # A make running the tests must not pass its jobs or level to this one.
    return {key: value for key, value in os.environ.items()
            if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}


def configure(build_dir: Path, wrapper: Path) -> subprocess.CompletedProcess:
    """CMake's configure of the project in `build_dir` (what pip's build runs first)."""
    return subprocess.run(
        [tool("cmake"), "-S", str(ROOT), "-B", str(build_dir), f"-DMPI_C_COMPILER={wrapper}",
         "-DHPCP_TESTS=OFF"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def words(text: str) -> List[str]:
    # CMake re-flows a message's lines; compare the words.
    return text.split()


def test_make_build_names_the_missing_header_and_its_package_in_one_line(tmp_path):
    wrapper = without_headers(tmp_path)
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "build", "MPI=system",
         f"MPICC={wrapper}", f"VENV={venv}"],
        capture_output=True, text=True, timeout=120, env=clean_make_env(),
        stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    # make's own "*** [mpi-headers] Error 2" follows the line.
    lines = [line for line in done.stderr.splitlines() if not line.startswith("make: ***")]
    assert len(lines) == 1, done.stderr
    (line,) = lines
    assert line.startswith(f"MPI=system: {wrapper} names include dirs {tmp_path / 'include'} ")
    assert "none has mpi.h" in line and "libopenmpi-dev" in line, line
    assert "CMake" not in done.stdout + done.stderr
    assert not venv.exists(), "the check must come before the venv, pip and CMake"


def test_make_build_checks_the_real_open_mpi_and_finds_its_header(tmp_path):
    # The same target passes a whole Open MPI (`make build` then goes on to pip).
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "mpi-headers", "MPI=system",
         f"MPICC={tool('mpicc.openmpi')}"],
        capture_output=True, text=True, timeout=60, env=clean_make_env(),
        stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_configure_refuses_in_one_message_then_works_once_the_headers_are_there(tmp_path):
    wrapper = without_headers(tmp_path)
    build_dir = tmp_path / "build"
    refused = configure(build_dir, wrapper)
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr
    expected = (f"{wrapper} names include dirs {tmp_path / 'include'} "
                f"{tmp_path / 'include' / 'openmpi'} but none has mpi.h: install Open MPI's "
                "headers (libopenmpi-dev")
    assert " ".join(words(expected)) in " ".join(words(output)), output
    assert not any(marker in output for marker in CMAKE_PAGE_MARKERS), output
    # "Installing libopenmpi-dev": the directories the wrapper names get their headers.
    real_include = open_mpi_answers()["-showme:incdirs"].split()[0]
    shutil.rmtree(tmp_path / "include")
    (tmp_path / "include").symlink_to(real_include)
    worked = configure(build_dir, wrapper)
    assert worked.returncode == 0, worked.stdout + worked.stderr
    assert "Found MPI_C" in worked.stdout


def cached(build_dir: Path, name: str) -> str:
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.split(":")[0] == name:
            return value
    return ""


def test_a_configure_where_find_mpi_failed_is_not_kept_in_the_cache(tmp_path):
    # A wrapper whose headers are there but whose library is not: FindMPI runs, fails,
    # and caches what the wrapper said. The configure after it, with the whole Open MPI,
    # must not be held to that answer (FindMPI alone would never ask again).
    answers = open_mpi_answers()
    lib_dir = answers["-showme:libdirs"].split()[0]
    broken = replaced(replaced(answers, lib_dir, str(tmp_path / "lib")), "-lmpi", "-lmpi_gone")
    broken["-showme:libs"] = "mpi_gone"
    (tmp_path / "lib").mkdir()
    build_dir = tmp_path / "build"
    failed = configure(build_dir, write_wrapper(tmp_path / "mpicc", broken))
    assert failed.returncode != 0
    assert cached(build_dir, "MPI_C_LIB_NAMES") == "mpi_gone", "FindMPI cached no answer"
    worked = configure(build_dir, Path(tool("mpicc.openmpi")))
    assert worked.returncode == 0, worked.stdout + worked.stderr
    assert cached(build_dir, "MPI_C_LIB_NAMES") == "mpi"
    assert cached(build_dir, "MPI_C_HEADER_DIR") == answers["-showme:incdirs"].split()[0]
