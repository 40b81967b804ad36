"""The tables of the GPU family's records (by `hpcprobe gpu`, `show` and `run`): BabelStream's
rates per kernel against the device's nominal bandwidth, RandomAccess's GUPS and wrong
words, and the copies' bandwidth at the largest size and latency at the smallest; and the
devices `gpu info` lists.

Records and the bench's device list are untrusted input: every number is checked before
use and every string is shown as plain text (a device name may say anything)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.console import RenderableType

from hpcprobe.report.common import number, parameter, section_of
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.samples import find_series, metric_samples
from hpcprobe.records import numbers
from hpcprobe.units import GIGA, MICRO, MISSING, binary_size, format_number
from hpcprobe.tables import cell, titled_table

Record = Dict[str, Any]

GPU_BENCHMARK = "gpu"
STREAM_OPS = ("copy", "mul", "add", "triad", "dot")
COPY_KINDS = ("h2d", "d2h", "d2d", "p2p")
KIND_WORDS = {"h2d": "host to device", "d2h": "device to host", "d2d": "device to device",
              "p2p": "device to peer device"}
# (x, y) of a curve, either None where the record has no such point.
Point = Tuple[Optional[float], Optional[float]]


# --- reading records ---------------------------------------------------------------------

def of_variant(records: Sequence[Record], variant: str) -> List[Record]:
    return [r for r in records if r.get("benchmark") == GPU_BENCHMARK
            and r.get("variant") == variant]


def best_and_median(record: Record, metric: str) -> Point:
    """The best (largest) and the median of a rate's samples."""
    samples = sorted(numbers(metric_samples(record, metric)))
    if not samples:
        return None, None
    middle = len(samples) // 2
    median = samples[middle] if len(samples) % 2 else (samples[middle - 1] + samples[middle]) / 2
    return samples[-1], median


def median_of(record: Record, metric: str) -> Optional[float]:
    return best_and_median(record, metric)[1]


def device_text(record: Record) -> str:
    """"device 0 (NVIDIA H200, sm 9.0)", or "4 devices (...)" for a rank per device."""
    device, devices = number(parameter(record, "device")), number(parameter(record, "devices"))
    name = plain(parameter(record, "device_name") or "unknown device", 60)
    capability = parameter(record, "compute_capability")
    inside = name + (f", sm {plain(capability, 12)}" if capability is not None else "")
    if device is not None and device >= 0:
        return f"device {int(device)} ({inside})"
    count = int(devices) if devices else None
    return f"{count if count else '?'} devices at once ({inside})"


def copy_point(record: Record, series: str, last: bool) -> Point:
    """(size, value) of a copy curve at its largest (`last`) or smallest size."""
    entry = find_series(record, series) or {}
    points = [(number(x), number(y)) for x, y in zip(entry.get("x") or [], entry.get("y") or [])]
    points = sorted((x, y) for x, y in points if x is not None and y is not None)
    if not points:
        return None, None
    return points[-1] if last else points[0]


def copy_figures(record: Record) -> Tuple[Optional[float], ...]:
    """(largest size, bandwidth there, smallest size, time there): the metrics' medians
    where the record has them, else the curves' points."""
    large, rate = copy_point(record, "bandwidth", last=True)
    small, time = copy_point(record, "time", last=False)
    return (large, median_of(record, "bandwidth") or rate, small,
            median_of(record, "latency") or time)


def copy_name(record: Record) -> str:
    kind = record.get("algorithm")
    words = KIND_WORDS.get(kind, plain(kind, 20)) if isinstance(kind, str) else "?"
    memory = parameter(record, "host_memory")
    return words + (f", {plain(memory, 12)}" if isinstance(memory, str)
                    and memory != "device" else "")


# --- formatting ---------------------------------------------------------------------------

def stream_rows(record: Record) -> List[List[str]]:
    """Per kernel: best and median GB/s, and the best over the nominal bandwidth."""
    nominal = number(parameter(record, "nominal_bandwidth"))
    rows = []
    for op in STREAM_OPS:
        best, median = best_and_median(record, f"{op}_bandwidth")
        share = best / nominal if best is not None and nominal else None
        rows.append([op.capitalize(), cell(best, GIGA), cell(median, GIGA),
                     MISSING if share is None else f"{100 * share:.3g} %"])
    return rows


STREAM_HEADINGS = ("kernel", "GB/s (best)", "GB/s (median)", "of nominal")


def stream_table(record: Record) -> RenderableType:
    size = binary_size(number(parameter(record, "array_bytes")))
    rule = parameter(record, "size_rule")
    title = (f"hpcprobe gpu stream: {device_text(record)}, arrays of {size}"
             + (f" ({plain(rule, 80)})" if isinstance(rule, str) else "")
             + f"; validation {verdict_text(record)}")
    nominal = number(parameter(record, "nominal_bandwidth"))
    caption = ("GB/s = 10^9 B/s, bytes counted as BabelStream does (Copy, Mul, Dot: 2 arrays; "
               "Add, Triad: 3), summed over the ranks; of nominal: the best over the nominal "
               + (f"{format_number(nominal, GIGA)} GB/s (memory clock x bus width x 2)"
                  if nominal else "bandwidth, which the device did not give"))
    return titled_table(title, caption, STREAM_HEADINGS, stream_rows(record), title_chars=160)


RA_HEADINGS = ("algorithm", "table", "streams", "GUPS (median)", "GUPS (best)", "wrong words",
               "validation")


def ra_row(record: Record) -> List[str]:
    best, median = best_and_median(record, "update_rate")
    wrong = number(section_of(record, "counters").get("wrong_words"))
    return [plain(record.get("algorithm"), 20),
            binary_size(number(parameter(record, "table_bytes"))),
            cell(number(parameter(record, "streams"))), cell(median, GIGA), cell(best, GIGA),
            MISSING if wrong is None else f"{int(wrong)}", verdict_text(record)]


def ra_table(record: Record) -> RenderableType:
    title = f"hpcprobe gpu ra: {device_text(record)}"
    caption = ("GUPS = 10^9 updates/s, 4 updates per table word (HPCC); wrong words: after "
               "replaying the updates with atomic XOR, at most 1 % may be wrong")
    return titled_table(title, caption, RA_HEADINGS, [ra_row(record)], title_chars=160)


COPY_HEADINGS = ("copy", "largest size", "GB/s there", "smallest size", "µs there",
                 "validation")


def copy_row(record: Record) -> List[str]:
    large, rate, small, time = copy_figures(record)
    return [copy_name(record), binary_size(large), cell(rate, GIGA), binary_size(small),
            cell(time, MICRO), verdict_text(record)]


def copy_table(records: Sequence[Record]) -> RenderableType:
    title = f"hpcprobe gpu copy: {device_text(records[-1])}"
    caption = ("GB/s there: the median bandwidth at the largest size; µs there: the copy "
               "time at the smallest size (the record's latency); device to device counts "
               "each byte read and written")
    return titled_table(title, caption, COPY_HEADINGS, [copy_row(r) for r in records],
                        title_chars=160)


INFO_HEADINGS = ("device", "name", "compute capability", "SMs", "memory", "L2",
                 "nominal GB/s", "ECC", "PCI bus", "PCIe GB/s")


def _pcie_text(device: Dict[str, Any]) -> str:
    """One direction of the host link, "63.0 (gen x16)"-like; "unknown" where sysfs said
    nothing (never a guess)."""
    rate, width = number(device.get("pcie_bandwidth")), number(device.get("pcie_width"))
    if not rate or not width:
        return "unknown"
    transfers = number(device.get("pcie_transfer_rate")) or 0
    return f"{rate / 1e9:.1f} ({transfers / 1e9:g} GT/s x{int(width)})"


def _ecc_text(ecc: Any) -> str:
    """The runtime's 1 / 0 / -1 (or a word) as on / off / unknown."""
    if isinstance(ecc, str):
        return plain(ecc, 12)
    return {1: "on", 0: "off"}.get(ecc, "unknown") if isinstance(ecc, (bool, int)) else "unknown"


def info_table(devices: Sequence[Dict[str, Any]], build: str) -> RenderableType:
    rows = []
    for device in devices:
        rows.append([plain(device.get("index"), 8), plain(device.get("name"), 60),
                     plain(device.get("compute_capability"), 12),
                     cell(number(device.get("multiprocessors"))),
                     binary_size(number(device.get("memory_bytes"))),
                     binary_size(number(device.get("l2_bytes"))),
                     cell(number(device.get("nominal_bandwidth")), GIGA),
                     _ecc_text(device.get("ecc")),
                     plain(device.get("pci_bus_id"), 20),
                     _pcie_text(device)])
    return titled_table(f"hpcprobe gpu info: {len(rows)} device(s); build {plain(build, 40)}",
                        "nominal: memory clock x bus width x 2 (DDR/HBM), as the runtime "
                        "reports them; PCIe: one direction of the current link (sysfs), "
                        "after its line code", INFO_HEADINGS, rows, title_chars=160)


def gpu_tables(records: Sequence[Record]) -> List[RenderableType]:
    """Every gpu record's table; the copies of one launch share one."""
    tables: List[RenderableType] = []
    tables += [stream_table(record) for record in of_variant(records, "stream")]
    tables += [ra_table(record) for record in of_variant(records, "ra")]
    copies = of_variant(records, "copy")
    if copies:
        tables.append(copy_table(copies))
    return tables
