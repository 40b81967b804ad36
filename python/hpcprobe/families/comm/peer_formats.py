"""`--format imb|osu|osu-full|osu-tail` (comm and show): comm's records printed in the
text layouts of IMB-MPI1 and of the OSU micro-benchmarks, so that the scripts a site keeps
for those tools read hpcprobe's figures unchanged (docs/kernels/comm.md).

IMB-MPI1 prints one block per function: a dashed banner naming it and the process count,
then per size `#bytes #repetitions` and the times in µs with two decimals, in columns 13
wide. PingPong and PingPing give one time, the slowest rank's, and Mbytes/sec; Sendrecv
and Exchange t_min, t_max and t_avg over the ranks and Mbytes/sec; the collectives the
three times alone; Barrier no sizes. Mbytes/sec is 10^6 B/s, from t_max.

OSU (7.x) prints `# Size` (10 wide, left) and `Avg Latency(us)` (18 wide, two decimals),
for its latency test (PingPong) as for the collectives; `-f` adds Min and Max Latency(us)
and Iterations (12 wide), the tail-latency option P50, P90 and P99 Tail Lat(us).

Where the layout has no room for hpcprobe's validation, a comment line (`#`, which the
parsers skip) before the block says the verdict. Records are untrusted input: numbers are
checked, strings printed only after `plain`.
"""

import math
from typing import Any, Callable, Dict, List, Optional, Sequence

from hpcprobe.families.comm.tables import record_parameters
from hpcprobe.records import number
from hpcprobe.records import series_points
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.samples import find_series

Record = Dict[str, Any]
MICRO_PER_S = 1e6
# IMB-MPI1's layouts, by how the function's figures are printed.
IMB_SINGLE_TRANSFER = ("PingPong", "PingPing")
IMB_WITH_BANDWIDTH = ("Sendrecv", "Exchange")
IMB_COLUMN = 13
IMB_RULE = "#" + "-" * 63
OSU_SIZE_WIDTH, OSU_FIELD_WIDTH, OSU_ITERATIONS_WIDTH = 10, 18, 12
OSU_TAIL_PERCENTILES = (50, 90, 99)
# The OSU test whose layout each function takes; PingPing, Sendrecv and Exchange have
# none and take the latency test's.
OSU_TESTS = {"PingPong": "osu_latency", "Barrier": "osu_barrier"}
PEER_FORMATS = ("imb", "osu", "osu-full", "osu-tail")


def _function(record: Record) -> str:
    return plain(record_parameters(record).get("function", record.get("variant")))


def _ranks(record: Record) -> int:
    group = number(record_parameters(record).get("group_ranks"))
    layout = record.get("layout") if isinstance(record.get("layout"), dict) else {}
    ranks = group if group is not None else number(layout.get("ranks"))
    return int(ranks) if ranks is not None else 0


def _repetitions(record: Record) -> List[Optional[float]]:
    counters = record.get("counters") if isinstance(record.get("counters"), dict) else {}
    values = counters.get("repetitions")
    return [number(value) for value in values] if isinstance(values, list) else []


def _comment_lines(record: Record, layout: str) -> List[str]:
    """What the peer's layout cannot say: which policy timed it, and the verdict."""
    timing = plain(record_parameters(record).get("timing", "hpcprobe"))
    lines = [f"# hpcprobe comm {plain(record.get('variant'))}, printed in {layout}'s layout; "
             f"repeated and timed as {timing} does"]
    if timing != layout.split("-")[0].lower():
        lines.append(f"# note: timed by {timing}'s policy, not {layout}'s (comm --format "
                     "chooses the policy; show prints what the record has)")
    lines.append(f"# hpcprobe validation: {verdict_text(record)}")
    return lines


class _Points:
    """One record's figures per message size, in µs (bandwidth in 10^6 B/s)."""

    def __init__(self, record: Record):
        self.curves = {name: series_points(record, name)
                       for name in ("time_min", "time_avg", "time_max", "bandwidth")}
        self.sizes = sorted(size for size, value in self.curves["time_avg"].items()
                            if value is not None)
        self.repetitions = _repetitions(record)
        self.samples = _samples_by_size(record)

    def micro(self, name: str, size: float) -> float:
        value = self.curves[name].get(size)
        return value * MICRO_PER_S if value is not None else math.nan

    def megabytes_per_s(self, size: float) -> float:
        value = self.curves["bandwidth"].get(size)
        return value / 1e6 if value is not None else 0.0

    def reps(self, index: int) -> int:
        value = self.repetitions[index] if index < len(self.repetitions) else None
        return int(value) if value is not None else 0


def _samples_by_size(record: Record) -> Dict[float, List[float]]:
    """The timed samples of each size (the median curve carries them), in seconds."""
    entry = find_series(record, "time_median")
    xs, per_x = (entry or {}).get("x"), (entry or {}).get("samples")
    if not isinstance(xs, list) or not isinstance(per_x, list):
        return {}
    samples: Dict[float, List[float]] = {}
    for x, values in zip(xs, per_x):
        if number(x) is not None and isinstance(values, list):
            samples[float(x)] = [v for v in (number(value) for value in values)
                                 if v is not None]
    return samples


def percentile(values: Sequence[float], fraction: float) -> float:
    """Linear interpolation between the closest ranks, as hpcprobe-bench computes p99."""
    if not values:
        return math.nan
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(math.floor(position))
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# --- IMB-MPI1 ------------------------------------------------------------------------------

def _imb_columns(function: str) -> List[str]:
    if function == "Barrier":
        return ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    if function in IMB_SINGLE_TRANSFER:
        return ["#bytes", "#repetitions", "t[usec]", "Mbytes/sec"]
    times = ["t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    return ["#bytes", "#repetitions"] + times + (
        ["Mbytes/sec"] if function in IMB_WITH_BANDWIDTH else [])


def _imb_row(function: str, points: _Points, index: int, size: float) -> str:
    count = [int(size), points.reps(index)]
    if function == "Barrier":
        count = count[1:]
    if function in IMB_SINGLE_TRANSFER:
        figures = [points.micro("time_max", size), points.megabytes_per_s(size)]
    else:
        figures = [points.micro(name, size) for name in ("time_min", "time_max", "time_avg")]
        figures += [points.megabytes_per_s(size)] if function in IMB_WITH_BANDWIDTH else []
    return "".join(f"{value:{IMB_COLUMN}d}" for value in count) + "".join(
        f"{value:{IMB_COLUMN}.2f}" for value in figures)


def imb_block(record: Record) -> List[str]:
    """One function's block as IMB-MPI1 prints it."""
    function, points = _function(record), _Points(record)
    lines = _comment_lines(record, "IMB-MPI1")
    lines += [IMB_RULE, f"# Benchmarking {function} ", f"# #processes = {_ranks(record)} "]
    launched = number(record_parameters(record).get("launched_ranks"))
    if function in IMB_SINGLE_TRANSFER and launched is not None and launched > 2:
        lines.append(f"# ( {int(launched) - 2} additional processes waiting in MPI_Barrier)")
    lines += [IMB_RULE, "".join(f"{name:>{IMB_COLUMN}}" for name in _imb_columns(function))]
    lines += [_imb_row(function, points, index, size)
              for index, size in enumerate(points.sizes)]
    return lines + [""]


# --- OSU -----------------------------------------------------------------------------------

def _osu_headings(layout: str) -> str:
    heading = f"{'# Size':<{OSU_SIZE_WIDTH}}{'Avg Latency(us)':>{OSU_FIELD_WIDTH}}"
    if layout == "osu-full":
        heading += f"{'Min Latency(us)':>{OSU_FIELD_WIDTH}}{'Max Latency(us)':>{OSU_FIELD_WIDTH}}"
        heading += f"{'Iterations':>{OSU_ITERATIONS_WIDTH}}"
    if layout == "osu-tail":
        heading += "".join(f"{f'P{p} Tail Lat(us)':>{OSU_FIELD_WIDTH}}"
                           for p in OSU_TAIL_PERCENTILES)
    return heading


def _osu_row(points: _Points, index: int, size: float, layout: str) -> str:
    row = f"{int(size):<{OSU_SIZE_WIDTH}d}{points.micro('time_avg', size):{OSU_FIELD_WIDTH}.2f}"
    if layout == "osu-full":
        row += "".join(f"{points.micro(name, size):{OSU_FIELD_WIDTH}.2f}"
                       for name in ("time_min", "time_max"))
        row += f"{points.reps(index):{OSU_ITERATIONS_WIDTH}d}"
    if layout == "osu-tail":
        samples = points.samples.get(size, [])
        row += "".join(f"{percentile(samples, p / 100) * MICRO_PER_S:{OSU_FIELD_WIDTH}.2f}"
                       for p in OSU_TAIL_PERCENTILES)
    return row


def osu_block(record: Record, layout: str = "osu") -> List[str]:
    """One function's table as the OSU test of the same operation prints it."""
    function, points = _function(record), _Points(record)
    test = OSU_TESTS.get(function, f"osu_{function.lower()}")
    lines = _comment_lines(record, "OSU")
    lines.append(f"# {test} layout: hpcprobe comm {plain(record.get('variant'))} on "
                 f"{_ranks(record)} processes")
    if function == "Barrier":  # OSU's barrier test has no sizes
        value = points.micro("time_avg", points.sizes[0]) if points.sizes else math.nan
        return lines + ["# Avg Latency(us)", f"{value:17.2f}", ""]
    datatype = plain(record_parameters(record).get("datatype", "MPI_BYTE"))
    lines += [f"# Datatype: {datatype}.", _osu_headings(layout)]
    lines += [_osu_row(points, index, size, layout) for index, size in enumerate(points.sizes)]
    return lines + [""]


def _comm_records(records: Sequence[Record]) -> List[Record]:
    return [record for record in records if record.get("benchmark") == "comm"]


def _text(block: Callable[[Record], List[str]], records: Sequence[Record]) -> str:
    lines: List[str] = []
    for record in _comm_records(records):
        lines += block(record)
    return "\n".join(lines)


def peer_text(layout: str, records: Sequence[Record]) -> str:
    """Every comm record of `records` in `layout` (one of PEER_FORMATS); others skipped."""
    if layout == "imb":
        return _text(imb_block, records)
    return _text(lambda record: osu_block(record, layout), records)


def skipped_count(records: Sequence[Record]) -> int:
    """Records that the peer layouts do not print (benchmarks other than comm)."""
    return len(records) - len(_comm_records(records))
