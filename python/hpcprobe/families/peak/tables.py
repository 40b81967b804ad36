"""The table of the peak family's records (by `hpcprobe peak`, `show` and `run`): the
machine's limits, one line each, on one core and on every rank at once, with where each
came from. Records are untrusted input: numbers are checked, strings shown as plain text.
A figure the records do not have is "unknown", never a default."""

from typing import Any, Dict, List, Optional, Sequence

from rich.console import RenderableType

from hpcprobe.records import number, numbers, parameter
from hpcprobe.samples import metric_samples
from hpcprobe.sanitize import plain
from hpcprobe.tables import titled_table
from hpcprobe.units import GIGA, binary_size, format_number

Record = Dict[str, Any]
PEAK_BENCHMARK = "peak"
LEVELS = ("l1", "l2", "l3", "memory")
KERNELS = ("load", "copy", "triad")
UNKNOWN = "unknown"


def latest(records: Sequence[Record], variant: str,
           precision: Optional[str] = None) -> Optional[Record]:
    """The last record of a peak kernel ("flops-single"; flops: of a precision)."""
    found = [r for r in records if r.get("benchmark") == PEAK_BENCHMARK
             and r.get("variant") == variant
             and (precision is None or parameter(r, "precision") == precision)]
    return found[-1] if found else None


def best(record: Optional[Record], metric: str) -> Optional[float]:
    """The best sample of a rate: a peak is what the machine can do."""
    samples = numbers(metric_samples(record, metric)) if record is not None else []
    return max(samples) if samples else None


def _giga(value: Optional[float]) -> str:
    return UNKNOWN if value is None else format_number(value, GIGA)


def _flop_rows(records: Sequence[Record]) -> List[List[str]]:
    rows = []
    for precision in ("double", "single"):
        one, every = (latest(records, f"flops-{v}", precision) for v in ("single", "star"))
        if one is None and every is None:
            continue
        isa = plain(str((one or every or {}).get("algorithm", "?")), 12)
        per_cycle = number(parameter(one or every, "flops_per_cycle"))
        rows.append([f"flop rate, {precision}, theoretical (Gflop/s)",
                     _giga(number(parameter(one, "peak_theoretical"))),
                     _giga(number(parameter(every, "peak_theoretical"))),
                     f"cores x measured clock x {format_number(per_cycle)} flops/cycle ({isa}, "
                     "FMA units from the measured throughput)"])
        rows.append([f"flop rate, {precision}, FMA chains (Gflop/s)",
                     _giga(best(one, "flop_rate")), _giga(best(every, "flop_rate")),
                     f"measured, {isa}, best of the repetitions"])
    return rows


def _bandwidth_rows(records: Sequence[Record]) -> List[List[str]]:
    one, every = latest(records, "bandwidth-single"), latest(records, "bandwidth-star")
    rows = []
    for level in LEVELS:
        for kernel in KERNELS:
            metric = f"{kernel}_bandwidth_{level}"
            pair = best(one, metric), best(every, metric)
            if pair == (None, None):
                continue
            size = number(parameter(one or every, f"working_set_bytes_{level}"))
            rows.append([f"{kernel}, {level} (GB/s)", _giga(pair[0]), _giga(pair[1]),
                         f"working set {binary_size(size)} per rank"])
    return rows


def _clock_rows(records: Sequence[Record]) -> List[List[str]]:
    clock = latest(records, "clock")
    if clock is None:
        return []
    rates = numbers((clock.get("counters") or {}).get("rank_clock_rate"))
    rows = [["clock (GHz)", _giga(min(rates) if rates else None),
             _giga(best(clock, "clock_rate")),
             "a chain of dependent adds; one core: the slowest rank's"]]
    memory = number(parameter(clock, "memory_bandwidth_theoretical"))
    source = parameter(clock, "memory_bandwidth_source")
    rows.append(["memory, the DIMMs' rate (GB/s)", "", _giga(memory),
                 plain(source, 100) if isinstance(source, str) else UNKNOWN])
    links = {name[len("link_rate_"):]: number(value)
             for name, value in (clock.get("parameters") or {}).items()
             if isinstance(name, str) and name.startswith("link_rate_")}
    for name, rate in sorted(links.items()):
        rows.append([f"link {plain(name, 32)} (GB/s)", "", _giga(rate), "the system's stated rate"])
    if not links:
        rows.append(["links", "", UNKNOWN, "no link states a rate (/sys/class/net, infiniband)"])
    return rows


HEADINGS = ("limit", "one core", "every rank", "how")


def peak_tables(records: Sequence[Record]) -> List[RenderableType]:
    rows = _clock_rows(records) + _flop_rows(records) + _bandwidth_rows(records)
    if not rows:
        return []
    caption = ("G = 10^9; every rank: the sum over the ranks that ran at once; bandwidth bytes "
               "counted as likwid-bench counts them (copy: read + write), triad as STREAM")
    return [titled_table("hpcprobe peak: the machine's own limits", caption, HEADINGS, rows,
                         title_chars=120)]
