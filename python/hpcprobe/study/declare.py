"""What a study is. A family declares its studies in a few lines (families/ra/studies_*.py):
the points of its axis, each with the launches it needs, and how the table's columns come
from the records each point measured. The columns themselves, the axis and the paper's own
rows live in the paper's data file (papers/NNN.json), so that a table is described once."""

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.suite.step import SuiteStep

Record = Dict[str, Any]
# The scales of `hpcprobe study --scale`: tiny is what `make test` runs (seconds a point).
STUDY_SCALES = ("tiny", "default")


@dataclass(frozen=True)
class StudyContext:
    """What a study's points are chosen from: `scale`; `np` the rank counts of --np (empty:
    the study's own); `nodes` the node counts of --nodes (empty: the study's own); `ppn`
    ranks per node on a cluster (1 unless --ppn); `cores` the cores this run may use;
    `cluster` whether the launches reach several (emulated or real) hosts;
    `cluster_cpus` the CPUs an emulated cluster's hosts get of this machine, which they
    all run on (None: hosts of their own, no rank shares a core with another host's)."""

    scale: str
    np: Tuple[int, ...] = ()
    nodes: Tuple[int, ...] = ()
    ppn: int = 1
    cores: int = 1
    cluster: bool = False
    cluster_cpus: Optional[float] = None

    def rank_counts(self, default: Sequence[int]) -> Tuple[int, ...]:
        """--np's rank counts, or --nodes' node counts of `ppn` ranks each, or the study's
        default (tiny: its first two)."""
        if self.np:
            return self.np
        if self.nodes:
            return tuple(nodes * self.ppn for nodes in self.nodes)
        chosen = tuple(default)
        return chosen[:2] if self.scale == "tiny" else chosen

    def node_counts(self, default: Sequence[int]) -> Tuple[int, ...]:
        if self.nodes:
            return self.nodes
        chosen = tuple(default)
        return chosen[:2] if self.scale == "tiny" else chosen


@dataclass(frozen=True)
class Point:
    """One point of the axis: `value` as the table shows it (a rank count, a look-ahead, an
    owner rule), the launches that measure it (each SuiteStep with its own `ranks`), and
    `key`, unique within the study, naming it in study.json (resume) and on screen.
    `races`: the launches race on purpose (threads sharing a table without
    synchronisation), so a failed validation is the measurement, not a failure: such a
    launch counts as done when its check ran and counted the wrong words."""

    value: Any
    steps: Tuple[SuiteStep, ...]
    key: str = ""
    races: bool = False

    @property
    def name(self) -> str:
        return self.key or str(self.value)


@dataclass(frozen=True)
class Measured:
    """A point and the records its launches wrote (none where it failed or was left out)."""

    point: Point
    records: Tuple[Record, ...]


# Measured points -> the table's rows, keyed by the data file's column keys (the axis key
# included). A value the records cannot give is None (shown "-"), never a guess.
Rows = Callable[[Sequence[Measured]], List[Dict[str, Any]]]
# Measured points -> lines under the table: (what, measured text, the paper's text), e.g.
# ("T_1 fitted", "48.1 µs per 1024 updates", "56.9 µs").
Notes = Callable[[Sequence[Measured]], List[Tuple[str, str, str]]]


@dataclass(frozen=True)
class Study:
    """A named sweep reproducing one table or figure: `paper` the data file's number
    ("001"), `item` the table's or figure's id there ("table2"); `points(context)` the
    sweep; `rows` and `notes` what the records make of it; `budget_s` the default
    --time-budget at default scale; `interconnect` whether it is about the network (it is
    run on an emulated cluster by bench/studies and asks for --cluster in its help)."""

    name: str
    paper: str
    item: str
    points: Callable[[StudyContext], List[Point]]
    rows: Rows
    budget_s: float
    notes: Optional[Notes] = None
    interconnect: bool = False
    summary: str = ""
