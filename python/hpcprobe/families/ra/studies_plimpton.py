"""Plimpton et al.'s tables (paper 001, data file study/papers/001.json) as studies of
`ra mpi` (docs/studies/plimpton.md).

- plimpton-table1: HPCC's reference algorithm over P.
- plimpton-table2: reference and hypercube GUPS over P, the model T_P = T_1 + T_C·log2 P
  fitted from the same records (model_fit.py), and the measured parallel efficiency.
- plimpton-table3: seconds for a fixed number of updates per rank, the original hypercube
  against its Mods (`--mods`), lock-step throughout (`--overlap off`).
- plimpton-table4: look-ahead Q on a fixed P, through `hpcprobe ra sweep`'s launches.

Every hypercube launch is the paper's lock-step algorithm (`--overlap off`): the default,
overlapped form is not what the model describes, and its records never enter a row. The
table holds 2^K words per rank, K fixed, as the paper's fills half of every processor's
memory: the updates per rank stay the same as P grows.
"""

import argparse
import math
import statistics
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from hpcprobe.cli_described import ALGO_OPTION
from hpcprobe.families.ra import sweep
from hpcprobe.families.ra.model import HypercubeModel
from hpcprobe.families.ra.model_fit import (Fit, fit_t1, fit_tc, gups_of, lookahead_of,
                                            mpi_records, ranks_of, stage_time_s)
from hpcprobe.families.ra.options import MPI, SWEEP_ALGORITHM, SWEEP_LOOKAHEADS, mpi_values
from hpcprobe.netsim.patterns import HPCC_LOOKAHEAD
from hpcprobe.records import finite, section_of
from hpcprobe.samples import metric_samples
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.study.efficiency import parallel_efficiency
from hpcprobe.suite.step import SuiteStep
from hpcprobe.units import MICRO

Record = Dict[str, Any]
Row = Dict[str, Any]
Note = Tuple[str, str, str]

PAPER = "001"
REFERENCE = "reference"
HYPERCUBE = "hypercube"
DEFAULT_PROCS = (1, 2, 4, 8)
# (K, repeats): 2^K table words per rank (weak scaling, as the paper's tables) and the
# timed repetitions. Default: 32 MiB a rank, out of the caches, once (the plan's cost
# model, suite/cost.py, takes no account of the time limit below and would leave P = 4
# and 8 out of the budget at three repetitions). Table 3 runs every update of five
# launches a point, three times, since the Mods differ by a few per cent: 1 MiB a rank,
# 512 steps, as a lock-step stage on oversubscribed ranks of a busy machine can take
# milliseconds (8 ranks on 2 cores: about 2.5 ms).
SIZES = {"tiny": (12, "1"), "default": (22, "1")}
TABLE3_SIZES = {"tiny": (12, "1"), "default": (17, "3")}
# Tables 1 and 2 stop a repetition after this many seconds (the record counts the updates
# executed, so the rate stays honest): on 8 oversubscribed ranks of a busy 2-core machine
# both algorithms fall to about a MUPS. Table 3 has none: its times are for a fixed number
# of updates.
TIME_LIMIT_S = {"tiny": None, "default": "5"}
STEP_BUDGET_S = {"tiny": 30.0, "default": 150.0}
# The paper's figures that the notes are set beside.
PAPER_T1_US = "56.9 µs (for 1024 updates)"
PAPER_TC_US = "33 µs"
# Table 3: the columns hpcprobe measures, each the Mods switched on (cumulative, as in
# the paper). Mod4, Mod5 and Mod7 changed the MPI library: columns of the paper alone.
MOD_SERIES: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("original", ()),
    ("mod1", ("prepost",)),
    ("mod2", ("prepost", "late-update")),
    ("mod3", ("prepost", "late-update", "late-wait")),
    ("mod6", ("prepost", "late-update", "late-wait", "isend")),
)
# Table 4: the fixed rank count (the paper's 32 does not fit this machine) and the tiny Qs.
LOOKAHEAD_PROCS = {"tiny": 2, "default": 8}
TINY_LOOKAHEADS = (64, 1024)
TINY_SWEEP = {"table_log2": "14", "time_limit": "1"}


# --- launches --------------------------------------------------------------------------

def _table_log2(rank_log2: int, procs: int) -> str:
    """The global table for `procs` ranks: 2^rank_log2 words each."""
    return str(rank_log2 + math.ceil(math.log2(procs)))


def _mpi_step(algorithm: str, procs: int, scale: str, values: Dict[str, str],
              label: Optional[str] = None,
              sizes: Optional[Dict[str, Tuple[int, str]]] = None) -> SuiteStep:
    rank_log2, repeat = (sizes or SIZES)[scale]
    sized = {"table_log2": _table_log2(rank_log2, procs), "repeat": repeat, **values}
    return SuiteStep("ra", MPI, (ALGO_OPTION, algorithm) + mpi_values(sized),
                     STEP_BUDGET_S[scale], algorithm=algorithm, label=label, ranks=procs)


def _limited(scale: str) -> Dict[str, str]:
    limit = TIME_LIMIT_S[scale]
    return {"time_limit": limit} if limit else {}


def _lock_step(mods: Sequence[str] = ()) -> Dict[str, str]:
    """The paper's lock-step hypercube with the given Mods (none: its Figure 2)."""
    return {"overlap": "off", "mods": ",".join(mods) if mods else "none"}


def _hypercube_step(procs: int, scale: str) -> SuiteStep:
    return _mpi_step(HYPERCUBE, procs, scale, {**_lock_step(), **_limited(scale)})


def _mods_step(procs: int, scale: str, key: str, mods: Sequence[str]) -> SuiteStep:
    """Table 3's launch: every update of its table (no time limit), Mods `mods`."""
    return _mpi_step(HYPERCUBE, procs, scale, _lock_step(mods), key, TABLE3_SIZES)


def _reference_step(procs: int, scale: str) -> SuiteStep:
    return _mpi_step(REFERENCE, procs, scale, _limited(scale))


def _table1_points(context: StudyContext) -> List[Point]:
    return [Point(procs, (_reference_step(procs, context.scale),))
            for procs in context.rank_counts(DEFAULT_PROCS)]


def _table2_points(context: StudyContext) -> List[Point]:
    return [Point(procs, (_hypercube_step(procs, context.scale),
                          _reference_step(procs, context.scale)))
            for procs in context.rank_counts(DEFAULT_PROCS)]


def _table3_points(context: StudyContext) -> List[Point]:
    # Five launches a point: at tiny scale one point, on 2 ranks (on 1 the Mods, which
    # change the exchange, have nothing to change).
    tiny = context.scale == "tiny" and not context.np
    return [Point(procs, tuple(_mods_step(procs, context.scale, key, mods)
                               for key, mods in MOD_SERIES))
            for procs in ((2,) if tiny else context.rank_counts(DEFAULT_PROCS))]


def _sweep_args(scale: str) -> argparse.Namespace:
    """What `hpcprobe ra sweep --overlap off --mods none` would be given: the sweep's own
    table and time limit by default, smaller ones at tiny scale."""
    sized = TINY_SWEEP if scale == "tiny" else {}
    return argparse.Namespace(algo=None, overlap="off", mods="none", **sized)


def lookahead_procs(context: StudyContext) -> int:
    """Table 4's fixed P: the largest of --np, else the scale's."""
    return max(context.np) if context.np else LOOKAHEAD_PROCS[context.scale]


def _table4_points(context: StudyContext) -> List[Point]:
    """One point per Q on P ranks; the first also launches the sweep's 1-rank baseline
    at Q = 1024, the rate the efficiencies are computed from."""
    args, procs = _sweep_args(context.scale), lookahead_procs(context)
    budget = STEP_BUDGET_S[context.scale]
    lookaheads = TINY_LOOKAHEADS if context.scale == "tiny" else SWEEP_LOOKAHEADS
    baseline = SuiteStep("ra", MPI, tuple(sweep.baseline_options(args)), budget,
                         algorithm=SWEEP_ALGORITHM, label="baseline", ranks=1)
    points = []
    for index, lookahead in enumerate(lookaheads):
        step = SuiteStep("ra", MPI, tuple(sweep.point_options(args, lookahead)), budget,
                         algorithm=SWEEP_ALGORITHM, label=f"Q={lookahead}", ranks=procs)
        points.append(Point(lookahead, ((baseline,) if index == 0 else ()) + (step,)))
    return points


# --- records ---------------------------------------------------------------------------

def mods_of(record: Record) -> Optional[FrozenSet[str]]:
    """The Mods a hypercube record ran with, as a set (empty for "none"); None when the
    record does not say. The bench keeps the list as typed, so order does not count."""
    text = section_of(record, "parameters").get("mods")
    if not isinstance(text, str) or not text:
        return None
    return frozenset() if text == "none" else frozenset(text.split(","))


def usable(records: Sequence[Record], algorithm: str, procs: Optional[int] = None,
           mods: Optional[FrozenSet[str]] = None,
           lookahead: Optional[int] = HPCC_LOOKAHEAD) -> List[Record]:
    """The `ra mpi --algo algorithm` records that passed (model_fit.mpi_records) on
    `procs` ranks at `lookahead`; hypercube ones only lock-step (`--overlap off`) and
    with exactly the Mods `mods` (default none), so that no row mixes two forms."""
    found = []
    for record in mpi_records(records, algorithm):
        if procs is not None and ranks_of(record) != procs:
            continue
        if lookahead is not None and lookahead_of(record) != lookahead:
            continue
        if algorithm == HYPERCUBE and (
                section_of(record, "parameters").get("overlap") != "off"
                or mods_of(record) != (mods if mods is not None else frozenset())):
            continue
        found.append(record)
    return found


def median_gups(records: Sequence[Record]) -> Optional[float]:
    rates = [rate for rate in (gups_of(record) for record in records) if rate is not None]
    return statistics.median(rates) if rates else None


def median_time_s(records: Sequence[Record]) -> Optional[float]:
    """The median over records of each record's median seconds per repetition."""
    per_record = []
    for record in records:
        times = [t for t in finite(metric_samples(record, "time")) if t > 0]
        if times:
            per_record.append(statistics.median(times))
    return statistics.median(per_record) if per_record else None


def _all(measured: Sequence[Measured]) -> List[Record]:
    return [record for point in measured for record in point.records]


def _percent(fraction: Optional[float]) -> Optional[float]:
    return None if fraction is None else 100.0 * fraction


def _one_rank_gups(measured: Sequence[Measured], algorithm: str) -> Optional[float]:
    return median_gups(usable(_all(measured), algorithm, procs=1))


# --- Table 1 ---------------------------------------------------------------------------

def table1_rows(measured: Sequence[Measured]) -> List[Row]:
    rate_1 = _one_rank_gups(measured, REFERENCE)
    rows = []
    for point in measured:
        procs = point.point.value
        gups = median_gups(usable(point.records, REFERENCE, procs))
        rows.append({"procs": procs, "gups": gups,
                     "efficiency": _percent(parallel_efficiency(gups, procs, rate_1))})
    return rows


# --- Table 2 ---------------------------------------------------------------------------

def fit_model(records: Sequence[Record]) -> Tuple[Optional[Fit], Optional[Fit]]:
    """T_1 and T_C (model_fit.py) from the lock-step `--mods none` hypercube records at
    Q = 1024: T_1 from those on 1 rank, T_C from those on 2 or more."""
    chosen = usable(records, HYPERCUBE)
    return fit_t1(chosen, HPCC_LOOKAHEAD), fit_tc(chosen, HPCC_LOOKAHEAD)


def model_gups(t1: Optional[Fit], tc: Optional[Fit], procs: int) -> Optional[float]:
    """The model's GUPS on `procs` ranks; on 1 rank T_1 alone (log2 1 = 0) suffices."""
    if t1 is None or (tc is None and procs != 1):
        return None
    return HypercubeModel(t1.value_s, tc.value_s if tc else 0.0, HPCC_LOOKAHEAD).gups(procs)


def table2_rows(measured: Sequence[Measured]) -> List[Row]:
    t1, tc = fit_model(_all(measured))
    rate_1 = _one_rank_gups(measured, HYPERCUBE)
    rows = []
    for point in measured:
        procs = point.point.value
        gups = median_gups(usable(point.records, HYPERCUBE, procs))
        rows.append({
            "procs": procs,
            "gups_hpcc": median_gups(usable(point.records, REFERENCE, procs)),
            "gups": gups,
            "gups_model": model_gups(t1, tc, procs),
            "efficiency": _percent(parallel_efficiency(gups, procs, rate_1)),
        })
    return rows


def _us(seconds: float) -> str:
    """Microseconds, 3 significant digits, whole from 100 µs (1750 µs, not 1.75e+03)."""
    value = seconds / MICRO
    return f"{value:.0f} µs" if value >= 100 else f"{value:.3g} µs"


def stage_times(records: Sequence[Record]) -> Dict[int, float]:
    """Rank count -> the median stage time (model_fit.stage_time_s) of its lock-step
    `--mods none` hypercube records: where T_C changes with P (oversubscribed ranks wait
    for a core as well as for the message), the one fitted T_C hides it."""
    found: Dict[int, List[float]] = {}
    for record in usable(records, HYPERCUBE):
        procs, seconds = ranks_of(record), stage_time_s(record)
        if procs is not None and procs >= 2 and seconds is not None:
            found.setdefault(procs, []).append(seconds)
    return {procs: statistics.median(found[procs]) for procs in sorted(found)}


def _records(count: int) -> str:
    return f"{count} record{'s' if count != 1 else ''}"


def table2_notes(measured: Sequence[Measured]) -> List[Note]:
    t1, tc = fit_model(_all(measured))
    t1_text = (f"{_us(t1.value_s)} per 1024 updates (1 rank, median of "
               f"{_records(t1.records)})" if t1 else
               "not measured (no passed 1-rank hypercube record)")
    ranks = ", ".join(map(str, sorted(set(tc.procs)))) if tc else ""
    tc_text = (f"{_us(tc.value_s)} per exchange stage (median of {_records(tc.records)} "
               f"on {ranks} ranks)" if tc else
               "not measured (no passed hypercube record on 2 or more ranks)")
    notes = [("T_1 fitted", t1_text, PAPER_T1_US), ("T_C fitted", tc_text, PAPER_TC_US)]
    by_procs = stage_times(_all(measured))
    if len(by_procs) > 1:
        notes.append(("T_C by rank count", ", ".join(
            f"{procs} ranks: {_us(seconds)}" for procs, seconds in by_procs.items()),
            "one T_C for every P (the model's assumption)"))
    if t1 and tc:
        ratio = 2 * tc.value_s / t1.value_s
        efficiency = 100.0 * HypercubeModel(t1.value_s, tc.value_s).efficiency(4)
        notes.append(("2·T_C / T_1", f"{ratio:.2f}: the model's 4-rank efficiency "
                                     f"{efficiency:.1f} %",
                      "1.16: 2·T_C about T_1, a 4-processor run about 50 % efficient"))
    return notes


# --- Table 3 ---------------------------------------------------------------------------

def table3_rows(measured: Sequence[Measured]) -> List[Row]:
    rows = []
    for point in measured:
        procs = point.point.value
        row: Row = {"procs": procs}
        for key, mods in MOD_SERIES:
            chosen = usable(point.records, HYPERCUBE, procs, frozenset(mods))
            row[key] = median_time_s(chosen)
        rows.append(row)
    return rows


def table3_notes(measured: Sequence[Measured]) -> List[Note]:
    rows = [row for row in table3_rows(measured)
            if row["original"] is not None and row["mod6"] is not None]
    if rows:
        last = max(rows, key=lambda row: row["procs"])
        change = 100.0 * (last["mod6"] / last["original"] - 1.0)
        gain = (f"{last['original']:.3g} s → {last['mod6']:.3g} s ({change:+.1f} %) on "
                f"{last['procs']} ranks")
    else:
        gain = "not measured (no rank count with both the original and Mod6)"
    return [("Original → Mod1-3 + isend", gain,
             "25.186 s → 20.105 s (Mod6), 19.656 s (Mod7) on 32 processors, about −20 %"),
            ("Mod4, Mod5, Mod7", "n/a: MPI library changes; hpcprobe keeps the MPI it was "
                                 "built with", "MPICH-1.2.6, its short-message copy off")]


# --- Table 4 ---------------------------------------------------------------------------

def _baseline_gups(measured: Sequence[Measured]) -> Optional[float]:
    return median_gups(usable(_all(measured), HYPERCUBE, 1, lookahead=sweep.BASELINE_LOOKAHEAD))


def _point_record(point: Measured) -> Optional[Record]:
    """The last passed lock-step record of the point's Q on the point's P ranks."""
    procs = point.point.steps[-1].ranks if point.point.steps else None
    chosen = usable(point.records, HYPERCUBE, procs, lookahead=point.point.value)
    return chosen[-1] if chosen else None


def table4_rows(measured: Sequence[Measured]) -> List[Row]:
    baseline = _baseline_gups(measured)
    rows = []
    for point in measured:
        found = sweep.sweep_point(point.point.value, _point_record(point), baseline)
        rows.append({"lookahead": point.point.value, "gups": found.gups,
                     "efficiency": found.efficiency_percent})
    return rows


def table4_notes(measured: Sequence[Measured]) -> List[Note]:
    baseline = _baseline_gups(measured)
    rate = f"{baseline:.4g} GUPS" if baseline is not None else "not measured"
    best = max((row for row in table4_rows(measured) if row["efficiency"] is not None),
               key=lambda row: row["efficiency"], default=None)
    procs = next((point.point.steps[-1].ranks for point in measured if point.point.steps),
                 None)
    peak = (f"{best['efficiency']:.3g} % at Q = {best['lookahead']} on {procs} ranks"
            if best else "not measured")
    return [("GUPS_1 (1 rank, Q = 1024)", rate, "0.0180 GUPS (one Opteron)"),
            ("highest efficiency", peak, "38.7 % at Q = 8192 on 32 processors")]


PLIMPTON_TABLE1 = Study(
    "plimpton-table1", PAPER, "table1", _table1_points, table1_rows, budget_s=150,
    interconnect=True, summary="HPCC's reference RandomAccess GUPS against P")
PLIMPTON_TABLE2 = Study(
    "plimpton-table2", PAPER, "table2", _table2_points, table2_rows, budget_s=240,
    notes=table2_notes, interconnect=True,
    summary="hypercube GUPS against P beside HPCC's, the T_1 + T_C·log2 P model and "
            "the parallel efficiency")
PLIMPTON_TABLE3 = Study(
    "plimpton-table3", PAPER, "table3", _table3_points, table3_rows, budget_s=300,
    notes=table3_notes, interconnect=True,
    summary="seconds of the hypercube's Mods (--mods) against P, a fixed count of "
            "updates per rank")
PLIMPTON_TABLE4 = Study(
    "plimpton-table4", PAPER, "table4", _table4_points, table4_rows, budget_s=180,
    notes=table4_notes, interconnect=True,
    summary="hypercube GUPS and efficiency against the look-ahead Q on a fixed P")
STUDIES = (PLIMPTON_TABLE1, PLIMPTON_TABLE2, PLIMPTON_TABLE3, PLIMPTON_TABLE4)
