"""Launchers turn (ranks, launcher arguments, program argv) into one argv list.

No launcher ever builds a shell string: every argv element reaches the OS unchanged.
"""

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import List, Mapping, Optional, Sequence

from hpcprobe.errors import UsageError
from hpcprobe.launch.registry import register_launcher
from hpcprobe.resources import load_build_info

CMD_TOKEN = "{cmd}"
NP_TOKEN = "{np}"


def is_executable_file(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def which(program: str, env: Mapping[str, str]) -> Optional[str]:
    """shutil.which over the PATH of `env` (the environment the launch will get)."""
    return shutil.which(program, path=env.get("PATH", os.defpath))


class Launcher:
    """A launcher that takes the rank count as `<executable> <np_flag> N`."""

    name = "launcher"
    np_flag = "-n"

    def __init__(self, executable: str) -> None:
        self.executable = executable

    def command(
        self, np: int, launcher_args: Sequence[str], program_argv: Sequence[str]
    ) -> List[str]:
        return [self.executable, self.np_flag, str(np), *launcher_args, *program_argv]

    @classmethod
    def locate(cls, env: Mapping[str, str]) -> Optional[str]:
        """Path of the launcher executable, or None when it cannot be found."""
        return which(cls.name, env)


def scripts_directory() -> Path:
    """Where pip put this environment's programs: hpcprobe-bench, and PyPI's MPICH."""
    return Path(sysconfig.get_path("scripts"))


def _beside_build_mpi(program: str) -> Optional[str]:
    """`program` in the bin directory of the MPI the binary was built with, if there.

    build_info.json names a site MPI's launcher by its path, and PyPI's MPICH in a pip
    build by name alone: that MPICH is the one installed beside hpcprobe-bench, wherever
    the package went (cmake/hpcp_python_env.cmake)."""
    recorded = load_build_info().get("mpiexec", "")
    if not recorded:
        return None
    directory = Path(recorded).parent if os.path.isabs(recorded) else scripts_directory()
    candidate = str(directory / program)
    return candidate if is_executable_file(candidate) else None


@register_launcher("mpiexec")
class MpiexecLauncher(Launcher):
    np_flag = "-n"

    @classmethod
    def locate(cls, env: Mapping[str, str]) -> Optional[str]:
        # The launcher must match the MPI the binary was linked with: the one the build
        # recorded first, then the venv's (the mpich wheel), then whatever PATH offers.
        recorded = _beside_build_mpi("mpiexec")
        if recorded:
            return recorded
        beside_python = str(Path(sys.executable).parent / "mpiexec")
        if is_executable_file(beside_python):
            return beside_python
        return which("mpiexec", env)


@register_launcher("mpirun")
class MpirunLauncher(Launcher):
    np_flag = "-np"

    @classmethod
    def locate(cls, env: Mapping[str, str]) -> Optional[str]:
        # Another MPI's mpirun earlier on PATH cannot start this binary's ranks.
        return _beside_build_mpi("mpirun") or which("mpirun", env)


@register_launcher("srun")
class SrunLauncher(Launcher):
    np_flag = "-n"


class TemplateLauncher:
    """A user template such as "aprun -n {np} {cmd}", split into words like a shell would.

    `{np}` is replaced inside any word; the word `{cmd}` becomes the launcher arguments
    followed by the program argv.
    """

    name = "template"

    def __init__(self, template: str) -> None:
        try:
            self.words = shlex.split(template)
        except ValueError as error:
            raise UsageError(
                f"launcher template {template!r} cannot be split: {error}"
            ) from None
        if self.words.count(CMD_TOKEN) != 1:
            raise UsageError(
                f"launcher template {template!r} must contain {CMD_TOKEN} exactly once, "
                "as a word of its own"
            )
        if self.words[0] == CMD_TOKEN:
            raise UsageError(f"launcher template {template!r} must start with a program")
        self.template = template

    @property
    def executable(self) -> str:
        return self.words[0]

    def command(
        self, np: int, launcher_args: Sequence[str], program_argv: Sequence[str]
    ) -> List[str]:
        argv: List[str] = []
        for word in self.words:
            if word == CMD_TOKEN:
                argv.extend(launcher_args)
                argv.extend(program_argv)
            else:
                argv.append(word.replace(NP_TOKEN, str(np)))
        return argv

    def locate(self, env: Mapping[str, str]) -> Optional[str]:
        if os.sep in self.executable:
            return self.executable if is_executable_file(self.executable) else None
        return which(self.executable, env)
