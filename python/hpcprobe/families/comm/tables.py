"""Tables of the communication records (comm, beff, pairs), after a run and in
`hpcprobe show`: per function the times over message sizes, a summary of all functions
at 1 MiB (paper 003's size), HPCC's b_eff figures, and the rank-pair bandwidths within
and across nodes with the matrix itself for up to 16 ranks ("?" where a sampled run did
not measure a pair).

Records are untrusted input: numbers are checked before use, strings shown as text.
"""

import statistics
from typing import Any, Dict, List, Optional, Sequence

from rich.console import RenderableType

from hpcprobe.hpcc_summary.beff import beff_figures
from hpcprobe.records import series_points
from hpcprobe.tables import titled_table
from hpcprobe.records import number, numbers
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.samples import metric_samples
from hpcprobe.units import GIGA, MEGA, MICRO, MISSING, binary_size
from hpcprobe.tables import cell

Record = Dict[str, Any]

HEADLINE_BYTES = 1 << 20
MATRIX_MAX_RANKS = 16


def record_parameters(record: Record) -> Dict[str, Any]:
    """The record's parameters ({} when absent or not an object)."""
    section = record.get("parameters")
    return section if isinstance(section, dict) else {}


def _counter(record: Record, name: str) -> List[float]:
    """A counter's numbers: a per-rank list, or one number for the run."""
    counters = record.get("counters")
    value = counters.get(name) if isinstance(counters, dict) else None
    single = number(value)
    return [single] if single is not None else numbers(value)


def _ranks_text(record: Record) -> str:
    layout = record.get("layout") if isinstance(record.get("layout"), dict) else {}
    ranks, nodes = number(layout.get("ranks")), number(layout.get("nodes"))
    text = f"{int(ranks)} rank{'s' if ranks != 1 else ''}" if ranks is not None else "? ranks"
    return text + (f", {int(nodes)} node{'s' if nodes != 1 else ''}" if nodes is not None else "")


def device_buffers(record: Record) -> bool:
    """The record's messages lived in device memory (--buffers device); records written
    before the option, and host ones, did not."""
    return record_parameters(record).get("buffers") == "device"


def buffers_text(record: Record, short: bool = False) -> str:
    """"" for host buffers; else how MPI reached the device buffers, and with staged
    transfers that the times include the copies (they are not the MPI's own)."""
    if not device_buffers(record):
        return ""
    transfer = record_parameters(record).get("device_transfer")
    if transfer == "cuda-aware":
        return "device buffers, CUDA-aware MPI"
    if transfer == "staged":
        return ("device buffers, staged" if short else "device buffers staged through pinned "
                "host memory: the times include the copies, not the MPI's own")
    return f"device buffers, transfer {plain(transfer)}"


def _buffers_suffix(record: Record) -> str:
    text = buffers_text(record, short=True)
    return f"; {text}" if text else ""


def _staged_caption(record: Record) -> str:
    staged = record_parameters(record).get("device_transfer") == "staged"
    return f"{buffers_text(record)}; " if device_buffers(record) and staged else ""


def _placement_text(record: Record) -> str:
    placement = record_parameters(record).get("placement")
    return f", placement {plain(placement)}" if isinstance(placement, str) else ""


# --- comm --------------------------------------------------------------------------------

def comm_table(record: Record) -> RenderableType:
    """One function: per size the times per call over ranks and samples, and MB/s."""
    curves = {name: series_points(record, name) for name in
              ("time_min", "time_avg", "time_max", "time_median", "time_p99", "bandwidth")}
    reps = _counter(record, "repetitions")
    with_bw = bool(curves["bandwidth"])
    headings = ["size", "reps", "t_min µs", "t_avg µs", "t_max µs", "median µs", "p99 µs"]
    headings += ["MB/s"] if with_bw else []
    rows = []
    for index, size in enumerate(curves["time_avg"]):
        row = [binary_size(size), str(int(reps[index])) if index < len(reps) else MISSING]
        row += [cell(curves[name].get(size), MICRO) for name in
                ("time_min", "time_avg", "time_max", "time_median", "time_p99")]
        row += [cell(curves["bandwidth"].get(size), MEGA)] if with_bw else []
        rows.append(row)
    function = plain(record_parameters(record).get("function", record.get("variant")))
    half = record_parameters(record).get("time_is") == "half-round-trip"
    title = (f"hpcprobe comm {plain(record.get('variant'))} (IMB {function}): "
             f"{_ranks_text(record)}{_placement_text(record)}; validation {verdict_text(record)}"
             f"{_buffers_suffix(record)}")
    caption = _staged_caption(record) + (
               "µs per call" + (" (half a round trip)" if half else "") + ": t_min/t_avg/t_max "
               "over ranks of each rank's mean; median and p99 over the samples, each the "
               "slowest rank's mean over a batch of calls")
    caption += "; MB/s = 10^6 B/s from t_max, as IMB counts bytes" if with_bw else ""
    return titled_table(title, caption, headings, rows)


def _at(points: Dict[float, Optional[float]], size: float) -> Optional[float]:
    return points.get(size) if size in points else None


def _headline_size(record: Record) -> Optional[float]:
    return number(record_parameters(record).get("headline_size_bytes"))


def comm_summary_table(records: Sequence[Record]) -> RenderableType:
    """Every comm record in one table: its smallest size and its headline size (1 MiB
    unless the sizes stop before)."""
    rows = []
    for record in records:
        avg = series_points(record, "time_avg")
        bandwidth = series_points(record, "bandwidth")
        smallest = min(avg) if avg else None
        headline = _headline_size(record)
        label = plain(record.get("variant"))
        label += f" ({buffers_text(record, short=True)})" if device_buffers(record) else ""
        rows.append([
            label, _ranks_text(record),
            binary_size(smallest), cell(_at(avg, smallest), MICRO) if smallest is not None
            else MISSING, binary_size(headline),
            cell(_at(avg, headline), MICRO) if headline is not None else MISSING,
            cell(_at(bandwidth, headline), MEGA) if headline is not None else MISSING,
            verdict_text(record)])
    headings = ["function", "ranks", "smallest", "t_avg µs", "at", "t_avg µs", "MB/s",
                "validation"]
    caption = ("t_avg: the mean over ranks of each rank's mean time per call; the second "
               f"size is {binary_size(HEADLINE_BYTES)} (paper 003's) unless the sizes stopped "
               "below it")
    return titled_table("hpcprobe comm: every function", caption, headings, rows)


# --- beff --------------------------------------------------------------------------------

def beff_table(record: Record) -> RenderableType:
    """HPCC's b_eff figures of one record."""
    f = beff_figures(record)
    pairs = _counter(record, "pingpong_pairs_latency")
    rows = [
        ["ping-pong latency (µs)", cell(f["MinPingPongLatency_usec"], MICRO),
         cell(f["AvgPingPongLatency_usec"], MICRO), cell(f["MaxPingPongLatency_usec"], MICRO)],
        ["ping-pong bandwidth (GB/s)", cell(f["MinPingPongBandwidth_GBytes"], GIGA),
         cell(f["AvgPingPongBandwidth_GBytes"], GIGA),
         cell(f["MaxPingPongBandwidth_GBytes"], GIGA)],
        ["naturally ordered ring", cell(f["NaturallyOrderedRingLatency_usec"], MICRO) + " µs",
         "", cell(f["NaturallyOrderedRingBandwidth_GBytes"], GIGA) + " GB/s"],
        ["randomly ordered ring", cell(f["RandomlyOrderedRingLatency_usec"], MICRO) + " µs",
         "", cell(f["RandomlyOrderedRingBandwidth_GBytes"], GIGA) + " GB/s"],
    ]
    title = (f"hpcprobe beff (HPCC b_eff): {_ranks_text(record)}{_placement_text(record)}; "
             f"validation {verdict_text(record)}")
    caption = ("latency with 8 B messages, bandwidth with 2,000,000 B; ping-pong over "
               f"{int(pairs[0]) if pairs else '?'} pairs (min / mean / max over pairs, each "
               "pair's best measurement); rings: per rank, both neighbours at once (the "
               "slowest rank, the best measurement; random: the geometric mean over the "
               "orderings); GB/s = 10^9 B/s")
    return titled_table(title, caption, ["figure", "min", "avg", "max"], rows)


# --- pairs -------------------------------------------------------------------------------

def _spread(values: List[float]) -> List[str]:
    if not values:
        return [str(0), MISSING, MISSING, MISSING]
    return [str(len(values)), cell(min(values), GIGA), cell(statistics.fmean(values), GIGA),
            cell(max(values), GIGA)]


def pairs_coverage(record: Record) -> str:
    """A sampled pairs record's coverage, e.g. "sampled: 1,024 of 65,280 pairs, every rank
    and node pair"; "" when it measured every pair (or does not say)."""
    parameters = record_parameters(record)
    measured = number(parameters.get("pairs_measured"))
    total = number(parameters.get("pairs_total"))
    if parameters.get("sampled") is not True or measured is None or total is None:
        return ""
    ranks = parameters.get("covers_every_rank") is True
    nodes = parameters.get("covers_every_node_pair") is True
    covered = ("every rank and node pair" if ranks and nodes else
               "every rank, not every node pair" if ranks else
               "every node pair, not every rank" if nodes else "not every rank or node pair")
    return f"sampled: {measured:,.0f} of {total:,.0f} pairs, {covered}"


def pairs_samples_text(record: Record) -> str:
    """How each pair was measured, e.g. "the median of 5 samples of at least 5 ms"."""
    parameters = record_parameters(record)
    samples = number(parameters.get("samples_per_pair"))
    least = number(parameters.get("sample_time_s"))
    if samples is None:
        return "the median of the repetitions"
    lasting = f" of at least {least * 1e3:g} ms" if least else ""
    return f"the median of {samples:g} samples{lasting}"


def _widest_spread(record: Record) -> Optional[float]:
    """The largest (max − min) / median over the measured pairs, or None."""
    median, low, high = (find_matrix(record, name) for name in
                         ("bandwidth", "bandwidth_min", "bandwidth_max"))
    if not median or not low or not high:
        return None
    spreads = [(h - lo) / m for mrow, lrow, hrow in zip(median, low, high)
               for m, lo, h in zip(mrow, lrow, hrow)
               if m is not None and lo is not None and h is not None and m > 0]
    return max(spreads) if spreads else None


def find_matrix(record: Record, name: str) -> Optional[List[List[Optional[float]]]]:
    """The values of record["matrices"] entry `name` (rows of numbers or None)."""
    for entry in record.get("matrices") or []:
        if isinstance(entry, dict) and entry.get("name") == name and isinstance(
                entry.get("values"), list):
            return [[number(v) for v in row] if isinstance(row, list) else []
                    for row in entry["values"]]
    return None


def pairs_tables(record: Record) -> List[RenderableType]:
    """Intra- and inter-node pair bandwidths (min/mean/max), then the matrix."""
    rows = [["intra-node", *_spread(numbers(metric_samples(record, "intra_node_bandwidth")))],
            ["inter-node", *_spread(numbers(metric_samples(record, "inter_node_bandwidth")))],
            ["all pairs", *_spread(numbers(metric_samples(record, "pair_bandwidth")))]]
    size = binary_size(number(record_parameters(record).get("message_bytes")))
    title = (f"hpcprobe pairs: {_ranks_text(record)}, {size} messages{_placement_text(record)}; "
             f"validation {verdict_text(record)}{_buffers_suffix(record)}")
    coverage, spread = pairs_coverage(record), _widest_spread(record)
    caption = _staged_caption(record) + (
               f"GB/s = 10^9 B/s per ordered pair (source to destination), "
               f"{pairs_samples_text(record)}; all pairs of a round at once; intra-node: the "
               f"two ranks share a node"
               + (f"; widest spread of a pair (max − min) / median: {spread:.2f}"
                  if spread is not None else "") + (f"; {coverage}" if coverage else ""))
    tables = [titled_table(title, caption, ["pairs", "count", "min GB/s", "mean GB/s", "max GB/s"],
                     rows)]
    matrix, same = find_matrix(record, "bandwidth"), find_matrix(record, "same_node")
    if matrix and len(matrix) <= MATRIX_MAX_RANKS:
        body = []
        for i, row in enumerate(matrix):
            cells = []
            for j, value in enumerate(row):
                shared = same is not None and i < len(same) and j < len(same[i]) and same[i][j]
                cells.append((MISSING if i == j else "?") if value is None else
                             cell(value, GIGA) + ("*" if shared else ""))
            body.append([str(i), *cells])
        tables.append(titled_table("bandwidth matrix (GB/s)", "row: source rank, column: "
                             "destination rank; * the two ranks share a node; ? not measured",
                             ["src \\ dst", *[str(j) for j in range(len(matrix))]], body))
    return tables


def comm_tables(records: Sequence[Record]) -> List[RenderableType]:
    """The tables of the comm, beff and pairs records ([] when there are none)."""
    tables: List[RenderableType] = []
    comm = [record for record in records if record.get("benchmark") == "comm"]
    tables += [comm_table(record) for record in comm]
    if len(comm) > 1:
        tables.append(comm_summary_table(comm))
    for record in records:
        if record.get("benchmark") == "beff":
            tables.append(beff_table(record))
        elif record.get("benchmark") == "pairs":
            tables += pairs_tables(record)
    return tables

