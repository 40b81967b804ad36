"""`hpcprobe stream single|star` and `hpcprobe mem stride|latency`: the memory families
of docs/kernels/memory.md. How many ranks to launch, and the tables printed from their
records (also by `hpcprobe show` and `hpcprobe run --suite memory`).

Every kernel runs one copy alone and, with `--copies N|all`, N copies at once, one rank
per core. The tables put the two side by side: STREAM's best rates per kernel (single,
and star's per-copy min/mean/max and sum), and for the mem kernels the time per access
of one copy and of many at each stride, block size or working set, and their ratio.

Records are untrusted input: every number is checked before use and every string is
shown as plain text.
"""

import math
import statistics
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from rich.console import RenderableType

from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.samples import find_series
from hpcprobe.records import number
from hpcprobe.units import GIGA, MISSING, NANO, binary_size
from hpcprobe.records import parameter, section_of
from hpcprobe.records import series_points
from hpcprobe.tables import titled_table
from hpcprobe.tables import cell
from hpcprobe.hpcc_summary.stream import STREAM_KERNELS, stream_single_best, stream_star_best
from hpcprobe.families.memory.numa import numa_tables

Record = Dict[str, Any]

MEMORY_BENCHMARKS = ("stream", "mem")
_X_HEADINGS = {"stride_bytes": "stride", "block_bytes": "block size",
               "working_set_bytes": "working set"}
_CACHE_LEVELS = (("L1d", "cache_l1d_bytes"), ("L2", "cache_l2_bytes"), ("L3", "cache_l3_bytes"))


# --- launching -------------------------------------------------------------------------

def _count(text: Optional[str]) -> Optional[int]:
    """A whole number >= 1 written in ASCII digits, else None (the bench judges it)."""
    if text is None or not (text.isascii() and text.isdigit()) or int(text) < 1:
        return None
    return int(text)


def threads_per_rank(threads: Optional[str], env: Mapping[str, str]) -> int:
    """--threads, else OMP_NUM_THREADS (as the bench reads it), else 1."""
    return _count(threads) or _count(env.get("OMP_NUM_THREADS", "").strip()) or 1


def default_ranks(variant: str, copies: Optional[str], threads: int, cores: int) -> int:
    """Ranks to launch without --np: N for --copies N; a rank per core (per `threads`
    cores) for --copies all and for stream star (whose copies default to all); else 1."""
    wanted = _count(copies)
    if wanted is not None:
        return wanted
    if copies == "all" or variant == "star":
        return max(1, cores // max(1, threads))
    return 1


# --- reading records ---------------------------------------------------------------------

def _copies(record: Record) -> Optional[int]:
    copies = number(parameter(record, "copies"))
    return int(copies) if copies is not None else None


# --- formatting -------------------------------------------------------------------------

def _ratio(numerator: Optional[float], denominator: Optional[float]) -> Optional[float]:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _copies_text(copies: Optional[int]) -> str:
    if copies is None:
        return "? copies"
    return "1 copy" if copies == 1 else f"{copies} copies"


# --- stream ------------------------------------------------------------------------------

def _stream_row(record: Record, kernel: str, with_star: bool) -> List[str]:
    single = stream_single_best(record, kernel)
    row = [kernel.capitalize(), cell(single, GIGA)]
    if with_star:
        star = stream_star_best(record, kernel)
        mean = statistics.fmean(star) if star else None
        row += [cell(min(star) if star else None, GIGA), cell(mean, GIGA),
                cell(max(star) if star else None, GIGA),
                cell(sum(star) if star else None, GIGA),
                cell(_ratio(mean, single))]
    return row


def stream_table(record: Record) -> RenderableType:
    """Per kernel: single's best GB/s, star's per-copy min/mean/max and sum, and star
    mean / single (1: the copies do not slow each other down)."""
    with_star = any(stream_star_best(record, kernel) for kernel in STREAM_KERNELS)
    headings = ["kernel", "single GB/s (best)"]
    if with_star:
        headings += ["star min", "star mean", "star max", "star sum", "star mean / single"]
    copies = _copies(record)
    threads = int(number(section_of(record, "layout").get("threads_per_rank")) or 1)
    rule = parameter(record, "size_rule") or parameter(record, "array_size_rule")
    size = binary_size(number(parameter(record, "array_bytes")))
    title = (f"hpcprobe stream {record.get('variant')}: {_copies_text(copies)} × {threads} "
             f"thread{'' if threads == 1 else 's'}, arrays of {size}"
             + (f" ({rule})" if isinstance(rule, str) else "")
             + f"; validation {verdict_text(record)}")
    caption = "GB/s = 10^9 B/s; single: rank 0 alone, the best of the timed iterations"
    if with_star:
        caption += ("; star: each copy's best with every copy running at once, min/mean/max "
                    "over the copies and their sum; star mean / single: 1 means no contention")
    rows = [_stream_row(record, kernel, with_star) for kernel in STREAM_KERNELS]
    return titled_table(title, caption, headings, rows)


# --- mem ---------------------------------------------------------------------------------

def _x_heading(record: Record) -> str:
    entry = find_series(record, "time_per_access_one") or {}
    return _X_HEADINGS.get(str(entry.get("x_name")), "x")


def _mem_subject(record: Record) -> str:
    sweep = parameter(record, "sweep")
    if record.get("variant") == "latency":
        hugepages = parameter(record, "hugepages")
        return "pointer-chase latency" + (
            f", huge pages {plain(hugepages)}" if isinstance(hugepages, str) else "")
    build = parameter(record, "build_variant")
    words = f"{plain(sweep)} sweep" if isinstance(sweep, str) else "sweep"
    return words + (f", {plain(build)} build" if isinstance(build, str) else "")


def mem_curve_table(record: Record) -> RenderableType:
    """Per stride, block size or working set: ns per access of one copy alone and of
    many at once (mean, slowest), and many / one (the ratio curve)."""
    one = series_points(record, "time_per_access_one")
    many = series_points(record, "time_per_access_many")
    slowest = series_points(record, "time_per_access_many_max")
    ratio = series_points(record, "many_over_one_ratio")
    copies = _copies(record)
    headings = [_x_heading(record), "1 copy ns/access"]
    if many:
        headings += [f"{_copies_text(copies)} ns/access (mean)", "slowest copy ns/access",
                     "many / one"]
    rows = []
    for x, y in one.items():
        row = [binary_size(x), cell(y, NANO)]
        if many:
            measured = ratio.get(x) if x in ratio else _ratio(many.get(x), y)
            row += [cell(many.get(x), NANO), cell(slowest.get(x), NANO), cell(measured)]
        rows.append(row)
    title = (f"hpcprobe mem {record.get('variant')} ({_mem_subject(record)}): "
             f"{_copies_text(copies)}; validation {verdict_text(record)}")
    caption = "ns/access: the median of the repetitions at each point"
    if many:
        caption += ("; many / one: the copies' mean time at once / one copy's time alone "
                    "(1: no contention, 2: the copies halve each other's speed)")
    return titled_table(title, caption, headings, rows)


def sysfs_caches(record: Record) -> List[Tuple[str, float]]:
    """(level, bytes) of the caches sysfs reported, smallest first."""
    found = [(level, number(parameter(record, key))) for level, key in _CACHE_LEVELS]
    return [(level, size) for level, size in found if size]


def _octaves(size: float, other: float) -> float:
    return abs(math.log2(size / other))


def cache_names(sizes: Sequence[float], caches: Sequence[Tuple[str, float]]) -> List[
        Optional[Tuple[str, float]]]:
    """For each plateau size (the memory plateau left out), the sysfs cache it stands
    for: each cache names the plateau nearest to it on a log scale, and a plateau two
    caches chose keeps the nearer one; None for the plateaus no cache chose."""
    names: List[Optional[Tuple[str, float]]] = [None] * len(sizes)
    usable = [index for index, size in enumerate(sizes) if size > 0]
    for cache in caches:
        if not usable:
            break
        index = min(usable, key=lambda at: _octaves(sizes[at], cache[1]))
        held = names[index]
        if held is None or _octaves(sizes[index], cache[1]) < _octaves(sizes[index], held[1]):
            names[index] = cache
    return names


def plateau_table(record: Record) -> Optional[RenderableType]:
    """The plateaus of the latency curve (the last is memory), each beside the sysfs
    cache it stands for; None when the record found none."""
    plateaus = list(series_points(record, "plateau_latency").items())
    if not plateaus:
        return None
    caches = sysfs_caches(record)
    names = cache_names([size for size, _ in plateaus[:-1]], caches) + [None]
    rows = []
    for index, ((size, latency), cache) in enumerate(zip(plateaus, names)):
        named = "memory" if index == len(plateaus) - 1 else (
            f"{cache[0]} ({binary_size(cache[1])})" if cache else MISSING)
        rows.append([str(index + 1), binary_size(size), cell(latency, NANO), named])
    listed = ", ".join(f"{level} {binary_size(size)}" for level, size in caches)
    counters = section_of(record, "counters")
    hugepage_bytes = number(counters.get("hugepage_bytes", counters.get("hugepage_bytes_rank0")))
    caption = ("up to: the largest working set still on the plateau; "
               + (f"sysfs cache: the nearest in size (log scale), one plateau each, of {listed}"
                  if listed else "sysfs gave no cache sizes")
               + (f"; huge pages given: {binary_size(hugepage_bytes)}"
                  if hugepage_bytes is not None else ""))
    hugepages = parameter(record, "hugepages")
    title = "hpcprobe mem latency: plateaus of the curve" + (
        f", huge pages {plain(hugepages)}" if isinstance(hugepages, str) else "")
    return titled_table(title, caption,
                  ["plateau", "up to", "ns/access", "sysfs cache"], rows)


# --- all --------------------------------------------------------------------------------

def record_tables(record: Record) -> List[RenderableType]:
    """The tables of one stream or mem record ([] for other benchmarks)."""
    benchmark = record.get("benchmark")
    if benchmark == "stream":
        return [stream_table(record)] + numa_tables(record)
    if benchmark != "mem":
        return []
    tables = [mem_curve_table(record)] + numa_tables(record)
    plateaus = plateau_table(record) if record.get("variant") == "latency" else None
    return tables + ([plateaus] if plateaus is not None else [])


def memory_tables(records: Sequence[Record]) -> List[RenderableType]:
    return [table for record in records for table in record_tables(record)]

