"""Choosing the launcher and finding hpcprobe-bench, before anything is started."""

import difflib
import os
import sys
from pathlib import Path
from typing import Mapping, Optional, Union

from hpcprobe.errors import EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.launch.launchers import (
    CMD_TOKEN,
    Launcher,
    TemplateLauncher,
    is_executable_file,
    which,
)
from hpcprobe.launch.registry import launcher_class, launcher_names

BENCH_PROGRAM = "hpcprobe-bench"
BENCH_ENV_VARIABLE = "HPCPROBE_BENCH"

AnyLauncher = Union[Launcher, TemplateLauncher]


def default_launcher_name(env: Mapping[str, str]) -> str:
    """srun inside a Slurm allocation (when srun exists), mpiexec everywhere else."""
    if env.get("SLURM_JOB_ID") and which("srun", env):
        return "srun"
    return "mpiexec"


def _not_found(name: str) -> HpcprobeError:
    return HpcprobeError(
        f"launcher '{name}' not found on PATH (install an MPI, or choose "
        "--launcher mpiexec|mpirun|srun|TEMPLATE)",
        EXIT_RUNTIME_FAILURE,
    )


def _unknown_launcher(name: str) -> UsageError:
    allowed = launcher_names()
    message = (
        f"unknown launcher '{name}' (allowed: {', '.join(allowed)}, or a template "
        f"containing {CMD_TOKEN}, e.g. \"aprun -n {{np}} {CMD_TOKEN}\")"
    )
    close = difflib.get_close_matches(name, allowed, n=1)
    if close:
        message += f"; did you mean '{close[0]}'?"
    return UsageError(message)


def resolve_launcher(spec: Optional[str], env: Mapping[str, str]) -> AnyLauncher:
    """The launcher for `--launcher spec` (None: the default), its executable located.

    Raises UsageError for an unknown name or a malformed template, and HpcprobeError
    (exit status 3) when the launcher's executable does not exist.
    """
    name = spec or default_launcher_name(env)
    if CMD_TOKEN in name:
        template = TemplateLauncher(name)
        if template.locate(env) is None:
            raise _not_found(template.executable)
        return template
    try:
        cls = launcher_class(name)
    except KeyError:
        raise _unknown_launcher(name) from None
    executable = cls.locate(env)
    if executable is None:
        raise _not_found(name)
    return cls(executable)


def find_bench(env: Mapping[str, str]) -> str:
    """Path of hpcprobe-bench: $HPCPROBE_BENCH, else beside this Python, else on PATH."""
    chosen = env.get(BENCH_ENV_VARIABLE)
    if chosen:
        if not is_executable_file(chosen):
            raise HpcprobeError(f"{BENCH_ENV_VARIABLE}={chosen} is not an executable file")
        return os.path.abspath(chosen)
    venv_bin = Path(sys.executable).parent
    beside_python = str(venv_bin / BENCH_PROGRAM)
    if is_executable_file(beside_python):
        return beside_python
    on_path = which(BENCH_PROGRAM, env)
    if on_path:
        return on_path
    raise HpcprobeError(
        f"{BENCH_PROGRAM} not found (looked at ${BENCH_ENV_VARIABLE}, in {venv_bin} and on "
        "PATH); build and install it with 'make build'"
    )
