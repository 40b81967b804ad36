"""Paper 001's Figure 1 as a study: the all2all of RandomAccess in d synchronous stages
over a d-dimensional grid of P ranks (`ra mpi --algo staged --dims d`), d = 1 (every rank
to every rank) up to log2 P (the hypercube), at one P. The table gives, per d, the messages
each rank sends per step, the GUPS and the time of a step; the notes set the messages
beside the paper's L = d(P^(1/d) - 1) (section 2)."""

import math
import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_described import ALGO_OPTION, bench_step_options
from hpcprobe.families.ra.model import grid_messages, grid_shape_messages
from hpcprobe.families.ra.model_fit import gups_of, mpi_records, ranks_of
from hpcprobe.records import number, numbers, parameter, section_of
from hpcprobe.samples import metric_samples
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.suite.step import SuiteStep

ALGORITHM = "staged"
# The ranks of the grid: 8 gives d = 1, 2, 3 (8, 4x2, 2x2x2); tiny 4 gives d = 1, 2.
DEFAULT_RANKS, TINY_RANKS = 8, 4
# 2^20 words: three repetitions of 4M updates on 8 ranks sharing 2 cores take ~15 s.
TABLE_LOG2 = {"tiny": 14, "default": 20}
REPEAT = {"tiny": 1, "default": 3}
STEP_BUDGET_S = 90.0


def most_dims(procs: int) -> int:
    """The largest d the bench takes on P ranks: floor(log2 P), at least 1."""
    return max(1, int(math.log2(procs))) if procs >= 1 else 1


def _points(context: StudyContext) -> List[Point]:
    # The axis is d, not P: --np's first count is the grid's P.
    procs = context.np[0] if context.np else (
        TINY_RANKS if context.scale == "tiny" else DEFAULT_RANKS)
    return [Point(dims, (SuiteStep("ra", "mpi", _options(context.scale, dims), STEP_BUDGET_S,
                                   algorithm=ALGORITHM, label=f"d={dims}", ranks=procs),))
            for dims in range(1, most_dims(procs) + 1)]


def _options(scale: str, dims: int) -> Tuple[str, ...]:
    """The launch's bench options, named by attribute (the bench spells them)."""
    return (ALGO_OPTION, ALGORITHM) + bench_step_options("ra", "mpi", {
        "dims": str(dims), "table_log2": str(TABLE_LOG2[scale]), "repeat": str(REPEAT[scale])})


def _record(measured: Measured) -> Optional[Dict[str, Any]]:
    """The point's newest staged record that passed, run at the point's d (never one of
    another --dims or --grid shape)."""
    found = [record for record in mpi_records(measured.records, ALGORITHM)
             if number(parameter(record, "dims")) == measured.point.value]
    return found[-1] if found else None


def _per_rank(record: Dict[str, Any], counter: str) -> List[float]:
    """counter / steps for each rank of the last repetition (empty when either is
    missing, or a rank took no step)."""
    counters = section_of(record, "counters")
    values, steps = counters.get(counter), counters.get("steps")
    if not isinstance(values, list) or not isinstance(steps, list) or \
            len(values) != len(steps):
        return []
    pairs = [(number(value), number(step)) for value, step in zip(values, steps)]
    if any(value is None or step is None or step <= 0 for value, step in pairs):
        return []
    return [value / step for value, step in pairs]


def messages_per_step(record: Dict[str, Any]) -> Optional[float]:
    """Messages each rank sends per step, the mean over the ranks."""
    per_rank = _per_rank(record, "messages_sent")
    return sum(per_rank) / len(per_rank) if per_rank else None


def time_per_step_s(record: Dict[str, Any]) -> Optional[float]:
    """The median of the repetitions' seconds over their steps: the counters' steps are
    the last repetition's, the same in every repetition when all ran as many updates."""
    steps = numbers(section_of(record, "counters").get("steps"))
    times = numbers(metric_samples(record, "time"))
    updates = set(numbers(metric_samples(record, "updates")))
    if not steps or not times or len(set(steps)) != 1 or steps[0] <= 0 or len(updates) != 1:
        return None
    return statistics.median(times) / steps[0]


def _rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    rows = []
    for entry in measured:
        record = _record(entry)
        seconds = time_per_step_s(record) if record else None
        rows.append({"dims": entry.point.value,
                     "procs": ranks_of(record) if record else None,
                     "messages": messages_per_step(record) if record else None,
                     "gups": gups_of(record) if record else None,
                     "time_per_step_us": None if seconds is None else seconds * 1e6})
    return rows


def _notes(measured: Sequence[Measured]) -> List[Tuple[str, str, str]]:
    """Per d, the messages measured on the grid the bench made, beside the paper's
    L = d(P^(1/d) - 1), which assumes the d-th root of P is whole."""
    notes = []
    for entry in measured:
        record = _record(entry)
        procs = ranks_of(record) if record else None
        sent = messages_per_step(record) if record else None
        grid = parameter(record, "grid") if record else None
        if procs is None or sent is None or not isinstance(grid, str):
            continue
        shape = [int(size) for size in grid.split("x") if size.isdigit()]
        dims = entry.point.value
        notes.append((f"messages per step, d = {dims}",
                      f"{sent:.3g} on a {grid} grid (Σ(D_k − 1) = "
                      f"{grid_shape_messages(shape)})",
                      f"L = d(P^(1/d) − 1) = {grid_messages(procs, dims):.3g} at P = {procs}"))
    return notes


PLIMPTON_FIG1 = Study("plimpton-fig1", "001", "fig1", _points, _rows, budget_s=180,
                      notes=_notes, summary="the all2all in d stages on a d-dimensional "
                      "grid of P ranks: messages per step, GUPS and step time against d")
STUDIES = (PLIMPTON_FIG1,)
