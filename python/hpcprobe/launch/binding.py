"""Launcher arguments that bind each rank to its own cores, and which MPI a launcher
belongs to: what the memory, HPCC and communication families ask of a launcher."""

import os
from pathlib import Path
from typing import Any, List, Optional, Sequence


def mpi_flavour(executable: str) -> Optional[str]:
    """"hydra" (MPICH, Intel MPI) or "openmpi" from the files beside the launcher."""
    path = Path(executable)
    for folder in {path.parent, Path(os.path.realpath(path)).parent}:
        if (folder / "hydra_pmi_proxy").exists() or (folder / "mpiexec.hydra").exists():
            return "hydra"
        if (folder / "ompi_info").exists():
            return "openmpi"
    return None


def binding_args(launcher: Any, ranks: int, threads: int, cores: int, oversubscribe: bool,
                 launcher_args: Sequence[str]) -> List[str]:
    """Launcher arguments that bind each rank to its own core (`threads` cores), where
    the launcher can: MPICH's hydra, Open MPI, srun. None when the user passes binding
    arguments of their own, when the ranks would share cores, or for a template; the
    bench then pins each rank itself (docs/kernels/memory.md)."""
    if any("bind" in arg or "map-by" in arg for arg in launcher_args):
        return []
    if oversubscribe or ranks * threads > cores:
        return []
    name = getattr(launcher, "name", "")
    if name in ("mpiexec", "mpirun"):
        flavour = mpi_flavour(str(getattr(launcher, "executable", "")))
        if flavour == "hydra":
            return ["-bind-to", "core" if threads == 1 else f"core:{threads}"]
        if flavour == "openmpi":
            mapping = ["--map-by", f"slot:PE={threads}"] if threads > 1 else []
            return mapping + ["--bind-to", "core"]
    if name == "srun" and threads == 1:
        return ["--cpu-bind=cores"]
    return []
