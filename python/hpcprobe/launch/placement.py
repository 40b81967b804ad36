"""Rank placement (`--placement block|round-robin|FILE`): which launcher arguments put
the ranks where they were asked for, or, when the launcher has none, the rank
permutation hpcprobe-bench applies itself (docs/kernels/comm.md).

block puts consecutive ranks on the same node until it is full; round-robin puts
consecutive ranks on different nodes in turn; a FILE names each rank's host (and,
optionally, its CPU), one line `RANK HOST [CPU]` per rank, `#` starting a comment.

- Open MPI mpirun/mpiexec: `--map-by slot`, `--map-by node`; a FILE as `--rankfile F`
  when every line has a CPU, else `--hostfile F --map-by seq`;
- MPICH/Intel MPI hydra mpiexec: its default (block), `-ppn 1`; a FILE as `-f F`
  (`host:1` per rank);
- srun: `--distribution=block`, `--distribution=cyclic`; a FILE as
  `--distribution=arbitrary` with `SLURM_HOSTFILE=F`;
- templates and other launchers: hpcprobe-bench reorders the ranks it was given.

CPUs named in a file are applied by hpcprobe-bench (it pins each rank) whoever placed
the hosts. The files given to the launcher are written into the output directory.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

from hpcprobe.describe import load_description
from hpcprobe.errors import UsageError
from hpcprobe.launch.binding import mpi_flavour
from hpcprobe.output_files import write_text_atomically

ORDERS = ("block", "round-robin")
# The bench's placement options, by attribute (describe.py): the placement, and who
# carried it out.
PLACEMENT, PLACEMENT_BY = "placement", "placement_by"
MAX_FILE_BYTES = 16 << 20
HOSTFILE = "placement.hosts"
RANKFILE = "placement.rankfile"

RankHost = Tuple[str, Optional[int]]


@dataclass(frozen=True)
class Placement:
    """What --placement asked for: an order, or a file's host (and CPU) per rank."""

    spec: str
    ranks: Tuple[RankHost, ...] = ()

    @property
    def is_file(self) -> bool:
        return self.spec not in ORDERS


@dataclass
class PlacementPlan:
    """How one launch carries out a placement."""

    launcher_args: List[str] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)
    files: Dict[str, str] = field(default_factory=dict)  # name in the output dir -> text
    by: str = "launcher"  # or "hpcprobe": the bench reorders the ranks


def _line_error(path: str, number: int, why: str) -> UsageError:
    return UsageError(f"placement file {path}: line {number}: {why}")


def _parse_line(path: str, number: int, words: List[str], np: int) -> Tuple[int, RankHost]:
    if len(words) not in (2, 3) or not words[0].isascii() or not words[0].isdigit():
        raise _line_error(path, number, "expected 'RANK HOST [CPU]'")
    rank = int(words[0])
    if rank >= np:
        raise _line_error(path, number, f"rank {rank} is not one of the {np} ranks (0..{np - 1})")
    cpu: Optional[int] = None
    if len(words) == 3:
        if not (words[2].isascii() and words[2].isdigit()):
            raise _line_error(path, number, f"CPU '{words[2]}' is not a number >= 0")
        cpu = int(words[2])
    return rank, (words[1], cpu)


def parse_placement_text(text: str, np: int, path: str = "FILE") -> Tuple[RankHost, ...]:
    """Each rank's (host, CPU or None) from a placement file's text; UsageError naming
    the line or the rank when it is malformed or does not cover every rank 0..np-1 once."""
    found: Dict[int, RankHost] = {}
    where: Dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        rank, host = _parse_line(path, number, words, np)
        if rank in found:
            raise UsageError(f"placement file {path}: rank {rank} is listed twice (lines "
                             f"{where[rank]} and {number})")
        found[rank], where[rank] = host, number
    missing = [rank for rank in range(np) if rank not in found]
    if missing:
        raise UsageError(f"placement file {path} does not cover every rank: rank {missing[0]} "
                         f"is missing ({len(missing)} of {np} missing; list each rank "
                         f"0..{np - 1} once as 'RANK HOST [CPU]')")
    return tuple(found[rank] for rank in range(np))


def read_placement(spec: str, np: int) -> Placement:
    """The placement of `--placement spec` for np ranks (a file read and checked now)."""
    if spec in ORDERS:
        return Placement(spec)
    path = Path(spec)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise UsageError(f"placement file {spec} is larger than 16 MiB")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = getattr(error, "strerror", None) or "not UTF-8 text"
        raise UsageError(f"--placement {spec}: cannot read it ({why}); allowed: block, "
                         "round-robin, or a file of lines 'RANK HOST [CPU]'") from None
    return Placement(str(path.resolve()), parse_placement_text(text, np, spec))


def _flavour(launcher: Any) -> Optional[str]:
    """"openmpi", "hydra", "srun" or None (a template or an MPI we do not know)."""
    name = getattr(launcher, "name", "")
    if name == "srun":
        return "srun"
    if name in ("mpiexec", "mpirun"):
        return mpi_flavour(str(getattr(launcher, "executable", "")))
    return None


def _file_plan(placement: Placement, flavour: str, out_dir: Path) -> PlacementPlan:
    hosts = [host for host, _ in placement.ranks]
    plan = PlacementPlan()
    if flavour == "openmpi" and all(cpu is not None for _, cpu in placement.ranks):
        plan.files[RANKFILE] = "".join(f"rank {rank}={host} slot={cpu}\n"
                                       for rank, (host, cpu) in enumerate(placement.ranks))
        plan.launcher_args = ["--rankfile", str(out_dir / RANKFILE)]
        return plan
    if flavour == "hydra":
        plan.files[HOSTFILE] = "".join(f"{host}:1\n" for host in hosts)
        plan.launcher_args = ["-f", str(out_dir / HOSTFILE)]
        return plan
    plan.files[HOSTFILE] = "".join(f"{host}\n" for host in hosts)
    if flavour == "openmpi":
        plan.launcher_args = ["--hostfile", str(out_dir / HOSTFILE), "--map-by", "seq"]
    else:  # srun
        plan.launcher_args = ["--distribution=arbitrary"]
        plan.env = {"SLURM_HOSTFILE": str(out_dir / HOSTFILE)}
    return plan


_ORDER_ARGS = {
    ("openmpi", "block"): ["--map-by", "slot"],
    ("openmpi", "round-robin"): ["--map-by", "node"],
    ("hydra", "block"): [],  # hydra fills each host's slots in turn unless told otherwise
    ("hydra", "round-robin"): ["-ppn", "1"],
    ("srun", "block"): ["--distribution=block"],
    ("srun", "round-robin"): ["--distribution=cyclic"],
}


def plan_placement(placement: Placement, launcher: Any, out_dir: Path) -> PlacementPlan:
    """Launcher arguments, environment and files for the placement, and who carries it
    out; a launcher hpcprobe does not know gets nothing and the bench reorders the ranks
    (it cannot move a rank to another host: a FILE must then match the hosts the
    launcher used)."""
    flavour = _flavour(launcher)
    if flavour is None:
        plan = PlacementPlan(by="hpcprobe")
    elif placement.is_file:
        plan = _file_plan(placement, flavour, out_dir)
    else:
        plan = PlacementPlan(launcher_args=list(_ORDER_ARGS[(flavour, placement.spec)]))
    return plan


def bench_placement(benchmark: str, spec: str, by: str) -> List[str]:
    """The bench's placement options, named as it describes them, where the benchmark's
    family takes them (none where it does not: ra's ranks are placed by the launcher
    alone)."""
    family = load_description().families.get(benchmark)
    if family is None:
        return []
    try:
        placement, placement_by = (family.option(dest).name for dest in (PLACEMENT, PLACEMENT_BY))
    except KeyError:
        return []
    return [placement, spec, placement_by, by]


def write_plan_files(plan: PlacementPlan, out_dir: Path) -> None:
    for name, text in plan.files.items():
        target = out_dir / name
        write_text_atomically(target, text)
        os.chmod(target, 0o644)


def apply_placement(launch: Any, spec: Optional[str]) -> Any:
    """Add `--placement spec` to a Launch: launcher arguments after the binding ones,
    the environment, the files, and --placement for the benchmarks that record it. A
    file is read for the launch's rank count (UsageError if it does not fit)."""
    if spec is None:
        return launch
    placement = read_placement(spec, launch.np)
    plan = plan_placement(placement, launch.launcher, launch.out_dir)
    write_plan_files(plan, launch.out_dir)
    launch.launcher_args = [*launch.launcher_args, *plan.launcher_args]
    launch.env = {**launch.env, **plan.env}
    launch.bench_options = [*launch.bench_options,
                            *bench_placement(launch.benchmark, placement.spec, plan.by)]
    return launch


def place_launch(launch: Any, spec: Optional[str]) -> Any:
    """The placement on a launch of two ranks or more (one rank has nowhere to go)."""
    return apply_placement(launch, spec) if launch.np > 1 else launch


def check_run_placement(spec: Optional[str], ranks: Iterable[int]) -> None:
    """Before a suite starts: a placement file must cover each launch's ranks."""
    if spec is None or spec in ORDERS:
        return
    for np in sorted(set(ranks)):
        if np > 1:
            read_placement(spec, np)
