"""Paper 003's HPCC figures as studies (Saini et al., Section 4.1; docs/studies/saini.md):
Figs. 1-4, accumulated random ring bandwidth and EP-STREAM Copy against HPL and their
ratios to it; Fig. 5 and Table 2, every HPCC figure over HPL. Each point is one rank
count P, launching the tests it needs on P ranks, sized from one HPL order N as HPCC
sizes them (suite.py)."""

import math
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.families.hpcc import saini_figures as fig
from hpcprobe.families.hpcc.suite import TINY_N, TINY_NB, HpccSizing, hpcc_steps, square_grid
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.suite.step import SuiteStep
from hpcprobe.study.records import usable

PAPER = "003"
STEP_BUDGET_S = 120.0
# P = 2 first: HPCC's random ring needs two ranks. --np overrides.
DEFAULT_RANKS = (2, 4, 8)
# Default scale: N grows with sqrt(P), so that each rank's share of HPL's matrix (HPCC's
# memory per process, which sizes the other tests) stays the same along the sweep.
BASE_N, DEFAULT_NB = 1000, 64
# The tests each study needs, as (benchmark, variant) of HPCC's steps.
RING = (("beff", "hpcc"), ("hpl", "mpi"))
MEMORY = (("stream", "star"), ("hpl", "mpi"))
BALANCE = (("ra", "mpi"), ("ptrans", "mpi"), ("dgemm", "star"), ("stream", "star"),
           ("fft", "mpi"), ("beff", "hpcc"), ("hpl", "mpi"))
# At tiny scale a study makes six launches at most (`make test` runs them all): the balance
# leaves out RandomAccess there, and its ratio shows "-".
BALANCE_TINY = BALANCE[1:]


def rank_counts(context: StudyContext) -> Tuple[int, ...]:
    """--np's counts, else DEFAULT_RANKS; tiny: two ranks alone (a few seconds)."""
    if context.np:
        return context.np
    return (2,) if context.scale == "tiny" else DEFAULT_RANKS


def sizing(context: StudyContext, ranks: int) -> HpccSizing:
    p, q = square_grid(ranks)
    if context.scale == "tiny":
        return HpccSizing(TINY_N, TINY_NB, p, q, "--scale tiny")
    n = max(DEFAULT_NB, int(BASE_N * math.sqrt(ranks)) // DEFAULT_NB * DEFAULT_NB)
    return HpccSizing(n, DEFAULT_NB, p, q, f"N = {BASE_N} sqrt(P)")


def _adjusted(step: SuiteStep, context: StudyContext, ranks: int) -> SuiteStep:
    """STREAM at default scale takes its own rule (4x the caches per copy, the bench's
    default) rather than HPCC's share of a small HPL matrix, which a cache would hold: the
    paper's accumulated STREAM is memory's. STREAM's copies on more ranks than cores share
    them, which the bench refuses unless told (the study sweeps past the cores on
    purpose). b_eff's pair budgets are 1 s at tiny."""
    if step.benchmark == "stream":
        flags = ("oversubscribe",) if ranks > context.cores else ()
        options = () if context.scale != "tiny" else step.bench_options
        return replace(step, bench_options=options + bench_step_options(
            "stream", step.variant, {}, flags))
    if step.benchmark == "beff" and context.scale == "tiny":
        return replace(step, bench_options=bench_step_options(
            "beff", "hpcc", {"latency_pairs_time": "1", "bandwidth_pairs_time": "1"}))
    return step


def peak_step(context: StudyContext) -> SuiteStep:
    """One core's FMA peak and its clock (the theoretical peak HPL's efficiency is over)."""
    values = ({"repeat": "2", "min_time": "0.01"} if context.scale == "tiny"
              else {"repeat": "3", "min_time": "0.1"})
    return SuiteStep("peak", "flops-single", bench_step_options("peak", "flops-single", values),
                     STEP_BUDGET_S, ranks=1)


def hpcc_points(wanted: Sequence[Tuple[str, str]], with_peak: bool = False,
                tiny: Optional[Sequence[Tuple[str, str]]] = None):
    """A study's points: on each rank count, the HPCC tests `wanted` (HPCC's order; `tiny`
    instead at tiny scale where given)."""
    def points(context: StudyContext) -> List[Point]:
        found = []
        chosen = tiny if tiny is not None and context.scale == "tiny" else wanted
        for ranks in rank_counts(context):
            steps = [replace(_adjusted(step, context, ranks), ranks=ranks,
                             time_budget_s=STEP_BUDGET_S)
                     for step in hpcc_steps(sizing(context, ranks))
                     if (step.benchmark, step.variant) in chosen and not step.label]
            if with_peak:
                steps.append(peak_step(context))
            found.append(Point(ranks, tuple(steps)))
        return found
    return points


def _base_row(measured: Measured) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    records = usable(measured.records)
    rate = fig.hpl_rate(records)
    return {"procs": measured.point.value,
            "hpl": None if rate is None else rate / fig.GIGA}, records


def _ring_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    rows = []
    for point in measured:
        row, records = _base_row(point)
        ring = fig.random_ring_accumulated(records)
        row["rr_acc"] = None if ring is None else ring / fig.GIGA
        # B/kflop: bytes per second over kflop per second.
        row["rr_ratio"] = fig.ratio(ring, fig.hpl_rate(records), 1000.0)
        rows.append(row)
    return rows


def _memory_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    rows = []
    for point in measured:
        row, records = _base_row(point)
        copy = fig.stream_copy_accumulated(records)
        row["stream_acc"] = None if copy is None else copy / fig.GIGA
        row["stream_ratio"] = fig.ratio(copy, fig.hpl_rate(records))
        efficiency = fig.hpl_efficiency(records)
        row["hpl_efficiency"] = None if efficiency is None else 100.0 * efficiency
        rows.append(row)
    return rows


def _only(keys: Sequence[str], rows_of):
    """rows() giving only `keys` of the rows `rows_of` computes (one item's columns)."""
    def rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
        return [{key: row.get(key) for key in keys} for row in rows_of(measured)]
    return rows


# Table 2's and Fig. 5's column keys (the data file's) by balance.py's ratio names.
TABLE2_KEYS = {"ghpl": "G-HPL", "dgemm_ratio": "G-EP DGEMM/G-HPL",
               "fft_ratio": "G-FFT/G-HPL", "ptrans_ratio": "G-PTRANS/G-HPL",
               "stream_ratio": "G-STREAM Copy/G-HPL", "rr_ratio": "RandRing BW×P/G-HPL",
               "rr_latency_inv": "1/RandRing latency",
               "ra_ratio": "G-RandomAccess/G-HPL"}
FIG5_KEYS = {"ghpl_norm": "G-HPL", "hpl_hpl_norm": "G-HPL/G-HPL",
             "dgemm_norm": "G-EP DGEMM/G-HPL", "fft_norm": "G-FFT/G-HPL",
             "ptrans_norm": "G-PTRANS/G-HPL", "stream_norm": "G-STREAM Copy/G-HPL",
             "rr_bw_norm": "RandRing BW×P/G-HPL", "rr_latency_norm": "1/RandRing latency",
             "ra_norm": "G-RandomAccess/G-HPL"}


def _balances(measured: Sequence[Measured]) -> List[Dict[str, Optional[float]]]:
    return [fig.balance(usable(point.records)).values for point in measured]


def _table2_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    return [{"procs": point.point.value, **{key: values.get(name)
                                           for key, name in TABLE2_KEYS.items()}}
            for point, values in zip(measured, _balances(measured))]


def _fig5_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    normalised = fig.normalised(_balances(measured))
    return [{"procs": point.point.value, **{key: values.get(name)
                                           for key, name in FIG5_KEYS.items()}}
            for point, values in zip(measured, normalised)]


def _span(rows: Sequence[Dict[str, Any]], key: str, unit: str) -> str:
    """The first and last measured value of a column along the ranks."""
    found = [(row["procs"], row[key]) for row in rows if row.get(key) is not None]
    if not found:
        return "not measured"
    (p0, first), (p1, last) = found[0], found[-1]
    return f"{first:.3g} {unit} at P = {p0} to {last:.3g} {unit} at P = {p1}"


def _ring_notes(measured: Sequence[Measured]):
    return [("accumulated random ring bandwidth / HPL along the ranks",
             _span(_ring_rows(measured), "rr_ratio", "B/kflop"),
             "SGI Altix NUMALINK4 203.12 (506 CPUs) to 23.18 (2024 CPUs); NUMALINK3 93.81 "
             "(440); NEC SX-8 59.64 (576), steady from 128; Cray Opteron 24.41 (64), a strong "
             "fall from 32 to 64 CPUs")]


def _memory_notes(measured: Sequence[Measured]):
    rows = _memory_rows(measured)
    return [("accumulated EP-STREAM Copy / HPL along the ranks",
             _span(rows, "stream_ratio", "B/flop"),
             "NEC SX-8 above 2.67, SGI Altix above 0.36, Cray Opteron 0.84 to 1.07 B/flop"),
            ("HPL efficiency (of the theoretical peak of the cores in use)",
             _span(rows, "hpl_efficiency", "%"),
             "Cray Opteron: decreases around 20% from 4 to 64 CPUs, which lifts the ratio")]


def _study(number: str, rows, points, summary: str, notes=None,
           interconnect: bool = False, budget_s: float = 240.0) -> Study:
    item = f"fig{number}" if number.isdigit() else number
    return Study(f"saini-{item}", PAPER, item, points, rows, budget_s, notes=notes,
                 interconnect=interconnect, summary=summary)


RING_POINTS = hpcc_points(RING)
MEMORY_POINTS = hpcc_points(MEMORY)
EFFICIENCY_POINTS = hpcc_points(MEMORY, with_peak=True)
BALANCE_POINTS = hpcc_points(BALANCE, tiny=BALANCE_TINY)

STUDIES = (
    _study("1", _only(("procs", "hpl", "rr_acc"), _ring_rows), RING_POINTS,
           "accumulated random ring bandwidth against HPL over the ranks", interconnect=True),
    _study("2", _only(("procs", "hpl", "rr_ratio"), _ring_rows), RING_POINTS,
           "accumulated random ring bandwidth / HPL (B/kflop) over the ranks",
           notes=_ring_notes, interconnect=True),
    _study("3", _only(("procs", "hpl", "stream_acc"), _memory_rows), MEMORY_POINTS,
           "accumulated EP-STREAM Copy against HPL over the ranks"),
    _study("4", _memory_rows, EFFICIENCY_POINTS,
           "accumulated EP-STREAM Copy / HPL (B/flop) and HPL's efficiency over the ranks",
           notes=_memory_notes),
    _study("5", _fig5_rows, BALANCE_POINTS,
           "HPCC's figures over HPL, each normalised to the best rank count", budget_s=300.0),
    _study("table2", _table2_rows, BALANCE_POINTS,
           "HPCC's figures over HPL (the balance ratios) at each rank count", budget_s=300.0),
)
