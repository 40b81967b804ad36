"""Launchers (mpiexec, mpirun, srun, templates) and where hpcprobe-bench lives."""

from hpcprobe.launch.launchers import (
    Launcher,
    MpiexecLauncher,
    MpirunLauncher,
    SrunLauncher,
    TemplateLauncher,
)
from hpcprobe.launch.limits import check_rank_count
from hpcprobe.launch.locate import (
    AnyLauncher,
    default_launcher_name,
    find_bench,
    resolve_launcher,
)
from hpcprobe.launch.registry import launcher_names, register_launcher

__all__ = [
    "AnyLauncher",
    "Launcher",
    "MpiexecLauncher",
    "MpirunLauncher",
    "SrunLauncher",
    "TemplateLauncher",
    "check_rank_count",
    "default_launcher_name",
    "find_bench",
    "launcher_names",
    "register_launcher",
    "resolve_launcher",
]
