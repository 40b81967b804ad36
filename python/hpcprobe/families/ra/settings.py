"""RandomAccess's options that change the algorithm a record ran (report/settings.py):
records that differ in one are never one curve, table row or `hpcprobe compare` row.

- --owner: how a rank finds a word's owner, HPCC's division or Garg & Sabharwal's
  prediction (paper 000, Table 3);
- --overlap: exchanges overlapped with the work or lock-step (hypercube, torus, pipeline);
- --mods: Plimpton et al.'s Mod1-Mod7 (paper 001, Table 3) of the lock-step hypercube
  (`--overlap off`, and records from before --overlap; the pipelined one does what every
  Mod does, whatever --mods says, so there --mods is no part of the setting);
- --dims / --grid: the virtual grid of the ranks (torus, pipeline).

--algo is one already (the record's algorithm). The defaults are the bench's (its
`describe` help and core/kernels/ra/ra_params.c); a test holds them to the bench's
description. Here rather than in the bench's description because the report reads
records on machines without the bench.
"""

from typing import Any, Dict, List, Optional

from hpcprobe.netsim.patterns import dims_create as netsim_dims_create
from hpcprobe.records import number, section_of
from hpcprobe.report.settings import AlgorithmOption

Record = Dict[str, Any]

ALL_MODS = "prepost,late-update,late-wait,isend"
_OVERLAP_DEFAULTS = {"hypercube": "on", "pipeline": "on", "torus": "off"}
_GRID_ALGORITHMS = ("torus", "staged", "pipeline")
MAX_DIMS = 3  # the bench's default: min(3, log2 P) dimensions


def _ranks(record: Record) -> int:
    value = number(section_of(record, "layout").get("ranks"))
    return int(value) if value is not None and value >= 1 and value.is_integer() else 1


def dims_create(ranks: int, dims: int) -> List[int]:
    """MPI_Dims_create(ranks, dims): sizes as close to each other as they can be, largest
    first."""
    return list(netsim_dims_create(max(1, ranks), max(1, dims)))


def default_dims(ranks: int) -> int:
    """min(3, log2 P), at least 1 (the bench's --dims default)."""
    return min(MAX_DIMS, max(1, ranks.bit_length() - 1))


def _grid_text(sizes: List[int]) -> str:
    return "x".join(str(size) for size in sizes)


def _default_grid(record: Record) -> Optional[str]:
    if record.get("algorithm") not in _GRID_ALGORITHMS:
        return None
    ranks = _ranks(record)
    return _grid_text(dims_create(ranks, default_dims(ranks)))


def _grid_word(grid: str, record: Record) -> str:
    """"dims D" where the grid is MPI_Dims_create's for D dimensions, else "grid AxB"."""
    dims = len(grid.split("x"))
    if grid == _grid_text(dims_create(_ranks(record), dims)):
        return f"dims {dims}"
    return f"grid {grid}"


def lock_step_hypercube(record: Record) -> bool:
    """A hypercube record run with --overlap off, the only form --mods changes (the
    pipelined form does what every Mod does, whatever --mods says)."""
    overlap = section_of(record, "parameters").get("overlap")
    return record.get("algorithm") == "hypercube" and overlap in (None, "off")


def _mods_default(record: Record) -> Optional[str]:
    return ALL_MODS if lock_step_hypercube(record) else None


def mods_text(mods: str) -> str:
    """"all" for every Mod, else the list as the bench wrote it."""
    return "all" if mods == ALL_MODS else mods


ALGORITHM_OPTIONS = (
    AlgorithmOption("mods", "mods", _mods_default,
                    lambda value, record: f"mods {mods_text(value)}"),
    # Before --overlap (9ed2dc4) the hypercube and the torus were lock-step.
    AlgorithmOption("overlap", "overlap",
                    lambda record: _OVERLAP_DEFAULTS.get(str(record.get("algorithm"))),
                    lambda value, record: f"overlap {value}", absent="off"),
    AlgorithmOption("owner", "owner",
                    lambda record: "division" if record.get("benchmark") == "ra" else None,
                    lambda value, record: f"owner {value}"),
    # Every grid algorithm records its grid (the pipeline since it gained the torus's
    # record; an older pipeline record is taken to have had the default grid).
    AlgorithmOption("dims", "grid", _default_grid, _grid_word),
)
