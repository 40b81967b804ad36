"""The model's inputs from `ra mpi` records (read as untrusted input: any field may be
missing or of the wrong type, and such a record is passed over, never trusted).

- T_1 from 1-rank hypercube records: time / (updates executed / Q).
- T_C from hypercube records on 2 or more ranks run with `--mods none`: per rank
  route_ns·10⁻⁹ / (steps × stages), the median over ranks.
- Measured points: the median GUPS of the records of one algorithm at each rank count,
  of the model's form (lock-step, --mods none, default --owner and grid).
- b, the bytes each update costs on the network: Σ bytes_sent / updates_executed.
"""

import statistics
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from hpcprobe.families.ra.settings import ALGORITHM_OPTIONS, lock_step_hypercube
from hpcprobe.report.settings import setting_words
from hpcprobe.samples import metric_samples
from hpcprobe.units import GIGA
from hpcprobe.records import number, section_of

Record = Dict[str, Any]
MODEL_MODS = "none"  # T_C: no Mod, so nothing overlaps the exchange it times


@dataclass(frozen=True)
class Fit:
    """A model time fitted from records: seconds, and the rank counts it came from."""

    value_s: float
    procs: Tuple[int, ...]

    @property
    def records(self) -> int:
        return len(self.procs)


def ranks_of(record: Record) -> Optional[int]:
    ranks = number(section_of(record, "layout").get("ranks"))
    return int(ranks) if ranks is not None and ranks >= 1 and ranks.is_integer() else None


def lookahead_of(record: Record) -> Optional[int]:
    value = number(section_of(record, "parameters").get("lookahead"))
    return int(value) if value is not None and value >= 1 and value.is_integer() else None


def gups_of(record: Record) -> Optional[float]:
    rate = number(section_of(record, "value").get("value"))
    return None if rate is None or rate < 0 else rate / GIGA


def mpi_records(records: Iterable[Record], algorithm: str) -> List[Record]:
    """`ra mpi --algo algorithm` records that did not fail validation, in the lock-step
    form the model's T_1 and T_C describe (not `--overlap on`, whose steps are half the
    look-ahead and whose exchanges overlap)."""
    return [
        record for record in records
        if record.get("benchmark") == "ra" and record.get("variant") == "mpi"
        and record.get("algorithm") == algorithm and record.get("status") == "ok"
        and section_of(record, "validation").get("verdict") != "failed"
        and ranks_of(record) is not None
        and section_of(record, "parameters").get("overlap") != "on"
    ]


def _updates_executed(record: Record) -> Optional[float]:
    executed = section_of(record, "counters").get("updates_executed")
    if isinstance(executed, list):
        counts = [number(count) for count in executed]
        return None if None in counts else sum(counts)  # type: ignore[arg-type]
    return number(executed)


def _seconds_per_step(record: Record, lookahead: int) -> Optional[float]:
    """Seconds per Q updates on one rank: per repetition where the record has both
    `time` and `updates` samples, else the median time over the last repetition's count."""
    times = [number(sample) for sample in metric_samples(record, "time")]
    updates = [number(sample) for sample in metric_samples(record, "updates")]
    per_step = [
        seconds * lookahead / count for seconds, count in zip(times, updates)
        if seconds is not None and seconds > 0 and count is not None and count > 0
    ]
    if per_step and len(times) == len(updates):
        return statistics.median(per_step)
    measured = [seconds for seconds in times if seconds is not None and seconds > 0]
    executed = _updates_executed(record)
    if not measured or executed is None or executed <= 0:
        return None
    return statistics.median(measured) * lookahead / executed


def fit_t1(records: Iterable[Record], lookahead: int) -> Optional[Fit]:
    """T_1 (seconds per Q updates on one process) from 1-rank hypercube records run
    with look-ahead Q: the median over the records."""
    values = [
        _seconds_per_step(record, lookahead) for record in mpi_records(records, "hypercube")
        if ranks_of(record) == 1 and lookahead_of(record) == lookahead
    ]
    found = [value for value in values if value is not None]
    return Fit(statistics.median(found), (1,) * len(found)) if found else None


def _rank_column(record: Record, name: str) -> List[Optional[float]]:
    column = section_of(record, "counters").get(name)
    return [number(value) for value in column] if isinstance(column, list) else []


def stage_time_s(record: Record) -> Optional[float]:
    """Median over ranks of route_ns·10⁻⁹ / (steps × stages): one exchange stage."""
    columns = zip(_rank_column(record, "route_ns"), _rank_column(record, "steps"),
                  _rank_column(record, "stages"))
    per_rank = []
    for route_ns, steps, stages in columns:
        if route_ns is None or steps is None or stages is None:
            continue
        if route_ns >= 0 and steps > 0 and stages > 0:
            per_rank.append(route_ns / GIGA / (steps * stages))
    return statistics.median(per_rank) if per_rank else None


def fit_tc(records: Iterable[Record], lookahead: int) -> Optional[Fit]:
    """T_C (seconds per exchange stage of Q updates) from hypercube records on two or
    more ranks with no optimisation (`mods` "none", so nothing overlaps) and look-ahead
    Q: the median over the records."""
    fitted: List[Tuple[float, int]] = []
    for record in mpi_records(records, "hypercube"):
        ranks = ranks_of(record) or 0
        if ranks < 2 or lookahead_of(record) != lookahead:
            continue
        if section_of(record, "parameters").get("mods") != MODEL_MODS or not model_form(record):
            continue
        value = stage_time_s(record)
        if value is not None:
            fitted.append((value, ranks))
    if not fitted:
        return None
    return Fit(statistics.median(value for value, _ in fitted),
               tuple(ranks for _, ranks in fitted))


def model_form(record: Record) -> bool:
    """A lock-step record (mpi_records) of the form the model describes, so that its
    measured points never mix two algorithms: every option that changes the algorithm
    (settings.py) at its default, but the hypercube's --mods none on 2 or more ranks
    (what T_C is fitted from; on one rank there is no exchange for a Mod to change)."""
    many = (ranks_of(record) or 1) > 1
    leave_out = ["overlap"] + ([] if many else ["mods"])
    expected = [f"mods {MODEL_MODS}"] if many and lock_step_hypercube(record) else []
    return setting_words(record, ALGORITHM_OPTIONS, leave_out) == expected


def measured_gups(records: Iterable[Record], algorithm: str,
                  lookahead: int) -> Dict[int, List[float]]:
    """Rank count -> the GUPS of each `ra mpi --algo algorithm` record at look-ahead Q
    of the model's form (model_form)."""
    points: Dict[int, List[float]] = {}
    for record in mpi_records(records, algorithm):
        gups = gups_of(record)
        if gups is not None and lookahead_of(record) == lookahead and model_form(record):
            points.setdefault(ranks_of(record) or 0, []).append(gups)
    return points


def other_forms(records: Iterable[Record], algorithm: str, lookahead: int) -> int:
    """How many lock-step records of `algorithm` at Q measured_gups leaves out (another
    --mods, --owner or grid)."""
    return sum(1 for record in mpi_records(records, algorithm)
               if lookahead_of(record) == lookahead and not model_form(record))


def measured_bytes_per_update(records: Sequence[Record],
                              algorithm: str) -> Optional[Tuple[int, float]]:
    """(ranks, bytes per update) from the `algorithm` record on the most ranks (the last
    of equals): Σ bytes_sent / updates_executed. None when no record has both."""
    best: Optional[Tuple[int, float]] = None
    for record in mpi_records(records, algorithm):
        sent = _rank_column(record, "bytes_sent")
        executed = _updates_executed(record)
        ranks = ranks_of(record) or 0
        if ranks < 2 or not sent or None in sent or not executed or executed <= 0:
            continue
        bytes_per_update = sum(sent) / executed  # type: ignore[arg-type]
        if bytes_per_update > 0 and (best is None or ranks >= best[0]):
            best = (ranks, bytes_per_update)
    return best
