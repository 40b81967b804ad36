"""Paper 003's IMB figures as studies (Saini et al., Section 4.2; docs/studies/saini.md):
Figs. 6-15, ten MPI functions at 1 MB (Barrier without data) over the rank counts, each
launch on its own full communicator as the paper ran the NEC SX-8 (no IMB sub-groups).
Fig. 12 also launches HPCC's G-FFT and b_eff on each rank count and correlates Alltoall
with them over the ranks (the paper: Alltoall's performance "is very close to" G-FFT's
and random ring bandwidth's). Those records are read by their fields alone."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.records import Record, finite, number, section_of, series_points
from hpcprobe.samples import metric_samples
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.study.efficiency import pearson
from hpcprobe.suite.step import SuiteStep
from hpcprobe.report.common import last_of
from hpcprobe.study.records import ranks_of, usable

PAPER = "003"
STEP_BUDGET_S = 120.0
MESSAGE_BYTES = 1 << 20  # the paper's 1 MB
DEFAULT_RANKS = (2, 4, 8)
MICRO, MEGA, GIGA = 1e-6, 1e6, 1e9
# figure -> (comm variant, column key, what the column holds: "time" in µs per call or
# "bandwidth" in MB/s (10^6 B/s, as IMB's Mbytes/sec in comm's imb format)).
FIGURES: Dict[str, Tuple[str, str, str]] = {
    "6": ("barrier", "barrier_time", "time"), "7": ("allreduce", "allreduce_time", "time"),
    "8": ("reduce", "reduce_time", "time"),
    "9": ("reduce_scatter", "reduce_scatter_time", "time"),
    "10": ("allgather", "allgather_time", "time"),
    "11": ("allgatherv", "allgatherv_time", "time"),
    "12": ("alltoall", "alltoall_time", "time"), "13": ("sendrecv", "sendrecv_bw", "bandwidth"),
    "14": ("exchange", "exchange_bw", "bandwidth"), "15": ("bcast", "bcast_time", "time"),
}


def rank_counts(context: StudyContext) -> Tuple[int, ...]:
    """--np's counts, else DEFAULT_RANKS; tiny: two ranks alone (the paper starts at 2)."""
    if context.np:
        return context.np
    return (2,) if context.scale == "tiny" else DEFAULT_RANKS


def comm_step(variant: str, context: StudyContext, ranks: int) -> SuiteStep:
    values = {"time_per_size": "0.01" if context.scale == "tiny" else "0.1"}
    if variant != "barrier":  # Barrier moves no data: its one size is 0
        values["sizes"] = str(MESSAGE_BYTES)
    return SuiteStep("comm", variant, bench_step_options("comm", variant, values),
                     STEP_BUDGET_S, ranks=ranks)


def correlation_steps(context: StudyContext, ranks: int) -> Tuple[SuiteStep, ...]:
    """G-FFT (HPCC's MPIFFT) and b_eff's random ring on the same ranks, by name."""
    tiny = context.scale == "tiny"
    fft = bench_step_options("fft", "mpi", {"log2": "12" if tiny else "20"})
    beff = bench_step_options("beff", "hpcc", {"latency_pairs_time": "1",
                                               "bandwidth_pairs_time": "1"} if tiny else {})
    return (SuiteStep("fft", "mpi", fft, STEP_BUDGET_S, ranks=ranks),
            SuiteStep("beff", "hpcc", beff, STEP_BUDGET_S, ranks=ranks))


def imb_points(number_: str):
    variant = FIGURES[number_][0]

    def points(context: StudyContext) -> List[Point]:
        found = []
        for ranks in rank_counts(context):
            steps = (comm_step(variant, context, ranks),)
            if number_ == "12":
                steps += correlation_steps(context, ranks)
            found.append(Point(ranks, steps))
        return found
    return points


def at_size(record: Optional[Record], series: str, size: float) -> Optional[float]:
    """A comm record's series at one message size (SI units), None where it lacks it."""
    if record is None:
        return None
    value = series_points(record, series).get(float(size))
    return value if value is not None and value > 0 else None


def comm_figure(records: Sequence[Record], variant: str, what: str) -> Optional[float]:
    """The figure of one function at the paper's size: µs per call or MB/s."""
    record = last_of(records, "comm", variant)
    size = 0 if variant == "barrier" else MESSAGE_BYTES
    if what == "bandwidth":
        rate = at_size(record, "bandwidth", size)
        return None if rate is None else rate / MEGA
    time = at_size(record, "time_median", size)
    return None if time is None else time / MICRO


def alltoall_accumulated(records: Sequence[Record]) -> Optional[float]:
    """Bytes all ranks move per second in Alltoall at 1 MB: P (P - 1) n / t (B/s)."""
    record = last_of(records, "comm", "alltoall")
    time, ranks = at_size(record, "time_median", MESSAGE_BYTES), ranks_of(record)
    if time is None or ranks is None or ranks < 2:
        return None
    return ranks * (ranks - 1) * MESSAGE_BYTES / time


def gfft_rate(records: Sequence[Record]) -> Optional[float]:
    """G-FFT: the `fft mpi` record's figure (flop/s)."""
    rate = number(section_of(last_of(records, "fft", "mpi"), "value").get("value"))
    return rate if rate is not None and rate > 0 else None


def random_ring_accumulated(records: Sequence[Record]) -> Optional[float]:
    """b_eff's random ring bandwidth (per process, its last sample: HPCC's figure) times
    the processes (B/s)."""
    beff = last_of(records, "beff", "hpcc")
    samples = finite(metric_samples(beff, "random_ring_bandwidth")) if beff else []
    ranks = ranks_of(beff)
    if not samples or samples[-1] <= 0 or ranks is None:
        return None
    return samples[-1] * ranks


def _scaled(value: Optional[float], divisor: float) -> Optional[float]:
    return None if value is None else value / divisor


def imb_rows(number_: str):
    variant, key, what = FIGURES[number_]

    def rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
        found = []
        for point in measured:
            records = usable(point.records)
            row: Dict[str, Any] = {"procs": point.point.value,
                                   key: comm_figure(records, variant, what)}
            if number_ == "12":
                row["alltoall_acc"] = _scaled(alltoall_accumulated(records), GIGA)
                row["gfft"] = _scaled(gfft_rate(records), GIGA)
                row["rr_acc"] = _scaled(random_ring_accumulated(records), GIGA)
            found.append(row)
        return found
    return rows


def _r_text(xs: Sequence[Optional[float]], ys: Sequence[Optional[float]]) -> str:
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    r = pearson([x for x, _ in pairs], [y for _, y in pairs])
    if r is None:
        return (f"no r: {len(pairs)} rank count(s) with both measured (3 or more that "
                "differ are needed)")
    return f"r = {r:.3f} over {len(pairs)} rank counts"


def alltoall_notes(measured: Sequence[Measured]) -> List[Tuple[str, str, str]]:
    """Pearson's r over the rank counts swept: Alltoall's bytes per second (all ranks)
    against G-FFT and against the accumulated random ring bandwidth."""
    rows = imb_rows("12")(measured)
    alltoall = [row["alltoall_acc"] for row in rows]
    said = ("performance of this benchmark is very close to the performance of global "
            "FFT and randomly ordered ring bandwidth (Sec. 4.2, five systems)")
    return [("Alltoall ~ G-FFT", _r_text(alltoall, [row["gfft"] for row in rows]), said),
            ("Alltoall ~ random ring bandwidth",
             _r_text(alltoall, [row["rr_acc"] for row in rows]),
             "performance is directly proportional to the randomly ordered ring bandwidth"),
            ("G-FFT ~ random ring bandwidth",
             _r_text([row["gfft"] for row in rows], [row["rr_acc"] for row in rows]),
             "G-FFT degrades with random ring bandwidth beyond one SGI Altix box (Sec. 5.1)")]


def sendrecv_notes(measured: Sequence[Measured]) -> List[Tuple[str, str, str]]:
    rows = [row for row in imb_rows("13")(measured) if row["sendrecv_bw"] is not None]
    best = max(rows, key=lambda row: row["sendrecv_bw"]) if rows else None
    found = "not measured" if best is None else (
        f"P = {best['procs']} ({best['sendrecv_bw']:.0f} MB/s)")
    return [("ranks with the highest Sendrecv bandwidth", found,
             "every system at 2 processors (shared memory, not the network); NEC SX-8 "
             "47.4 GB/s, Cray X1 (SSP) 7.6 GB/s")]


_NOTES = {"12": alltoall_notes, "13": sendrecv_notes}


def _study(number_: str) -> Study:
    variant, _, what = FIGURES[number_]
    words = "bandwidth (MB/s)" if what == "bandwidth" else "time per call (µs)"
    size = "" if variant == "barrier" else " at 1 MB"
    extra = ", beside G-FFT and random ring bandwidth" if number_ == "12" else ""
    return Study(f"saini-fig{number_}", PAPER, f"fig{number_}", imb_points(number_),
                 imb_rows(number_), 240.0 if number_ == "12" else 120.0,
                 notes=_NOTES.get(number_), interconnect=True,
                 summary=f"IMB {variant} {words}{size} over the ranks{extra}")


STUDIES = tuple(_study(number_) for number_ in FIGURES)
