"""The roofline of a machine: its empirical ceilings (the flop rate of `peak flops star`,
double precision, and each level's load bandwidth of `peak bandwidth star`) and the
measured kernels at their arithmetic intensity (the compulsory traffic of bounds.py).
The points are the records' own figures, over every rank (star: the sum)."""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from hpcprobe.limits import bounds
from hpcprobe.limits.ceilings import LEVELS, Ceilings, best, ceilings_for, ceilings_of
from hpcprobe.limits.limit import median_of, ranks_of
from hpcprobe.records import Record, number, parameter

KERNELS = ("DGEMM", "HPL", "STREAM Triad", "FFT", "RandomAccess")


@dataclass(frozen=True)
class Point:
    kernel: str
    intensity: float  # flop (RandomAccess: updates) per byte
    rate: float       # flop/s (RandomAccess: updates/s)
    unit: str
    source: str


@dataclass
class Roofline:
    machine: Tuple[str, Tuple[str, ...]]
    peak: Optional[float] = None
    peak_source: str = ""
    bandwidths: List[Tuple[str, float]] = field(default_factory=list)  # (level, B/s)
    points: List[Point] = field(default_factory=list)


def _last(records: Sequence[Record], benchmark: str, variant: str) -> Optional[Record]:
    found = [r for r in records if r.get("benchmark") == benchmark and r.get("variant") == variant]
    return found[-1] if found else None


def _star_or_single(records: Sequence[Record], benchmark: str) -> Tuple[Optional[Record], str]:
    star = _last(records, benchmark, "star")
    return (star, "star") if star is not None else (_last(records, benchmark, "single"), "single")


def _dgemm(records: Sequence[Record]) -> Optional[Point]:
    record, variant = _star_or_single(records, "dgemm")
    rate = None if record is None else median_of(record, "flop_rate")
    order = number(parameter(record, "n")) if record else None
    if rate is None or not order:
        return None
    ranks = ranks_of(record) if variant == "star" else 1  # type: ignore[arg-type]
    return Point("DGEMM", bounds.dgemm_intensity(order), rate * ranks, "flop/s",
                 f"dgemm {variant}, N = {order:g}, {ranks} ranks (sum)")


def _hpl(records: Sequence[Record]) -> Optional[Point]:
    record = _last(records, "hpl", "mpi")
    rate = None if record is None else median_of(record, "flop_rate")
    order = number(parameter(record, "n")) if record else None
    if rate is None or not order:
        return None
    return Point("HPL", bounds.hpl_intensity(order), rate, "flop/s",
                 f"hpl, N = {order:g}, {ranks_of(record)} ranks")  # type: ignore[arg-type]


def _stream(records: Sequence[Record]) -> Optional[Point]:
    record, variant = _star_or_single(records, "stream")
    bandwidth = None if record is None else best(record, f"{variant}_triad_bandwidth")
    if bandwidth is None:
        return None
    copies = (number(parameter(record, "copies")) or ranks_of(record)  # type: ignore
              ) if variant == "star" else 1
    return Point("STREAM Triad", bounds.TRIAD_INTENSITY,
                 bandwidth * copies * bounds.TRIAD_INTENSITY, "flop/s",
                 f"stream {variant}, best, {copies:g} copies (sum)")


def _fft(records: Sequence[Record]) -> Optional[Point]:
    record, variant = _star_or_single(records, "fft")
    rate = None if record is None else median_of(record, "flop_rate")
    points = number(parameter(record, "m")) if record else None
    if rate is None or not points or points <= 1:
        return None
    ranks = ranks_of(record) if variant == "star" else 1  # type: ignore[arg-type]
    return Point("FFT", bounds.fft_intensity(points), rate * ranks, "flop/s",
                 f"fft {variant}, N = {points:g}, {ranks} ranks (sum)")


def _ra(records: Sequence[Record]) -> Optional[Point]:
    record, variant = _star_or_single(records, "ra")
    if record is None:
        return None
    rate = median_of(record, "update_rate_sum" if variant == "star" else "update_rate")
    if rate is None:
        return None
    return Point("RandomAccess", bounds.RA_INTENSITY, rate, "updates/s",
                 f"ra {variant} (an update: one operation per 128 B)")


def _ceilings(roofline: Roofline, ceilings: Ceilings) -> None:
    peak = ceilings.found.get("flop_rate.star")
    if peak is not None:
        roofline.peak, roofline.peak_source = peak.value, peak.source
    for level in LEVELS:
        ceiling = ceilings.found.get(f"load_bandwidth_{level}.star")
        if ceiling is not None and ceiling.value:
            roofline.bandwidths.append((level, ceiling.value))


def rooflines(records: Sequence[Record]) -> List[Roofline]:
    """One roofline per machine that has a ceiling or a kernel to place."""
    machines = ceilings_of(records)
    groups: dict = {}
    for record in records:
        if isinstance(record, dict):
            groups.setdefault(ceilings_for(machines, record).key, []).append(record)
    found = []
    for key, group in groups.items():
        roofline = Roofline(key)
        _ceilings(roofline, machines[key])
        roofline.points = [point for point in (_dgemm(group), _hpl(group), _stream(group),
                                               _fft(group), _ra(group)) if point is not None]
        if roofline.points or roofline.peak or roofline.bandwidths:
            found.append(roofline)
    return found
