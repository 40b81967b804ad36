"""The GPU on the run's headline, only where its records exist (a node without a device adds
none): BabelStream's Triad on one device (the best iteration, as BabelStream reports it)
and on several at once (the ranks' rates summed), RandomAccess with atomic updates (the
median), and the pinned copies' bandwidth at the largest size, host to device and back."""

from typing import List, Optional, Sequence

from hpcprobe.families.gpu.tables import KIND_WORDS, copy_point, of_variant
from hpcprobe.suite.headline import Figure, metric_figure
from hpcprobe.report.common import Record, number, parameter
from hpcprobe.units import binary_size

GROUP = "GPU"


def _last(records: Sequence[Record], keep) -> Optional[Record]:
    found = [record for record in records if keep(record)]
    return found[-1] if found else None


def _device(record: Record) -> Optional[int]:
    device = number(parameter(record, "device"))
    return int(device) if device is not None and device >= 0 else None


def _triad(records: Sequence[Record]) -> List[Optional[Figure]]:
    streams = of_variant(records, "stream")
    one = _last(streams, lambda record: _device(record) is not None)
    many = _last(streams, lambda record: _device(record) is None)
    figures = []
    if one is not None:
        device = _device(one)
        figures.append(metric_figure(one, GROUP, f"gpu.stream.triad.{device}",
                                     f"GPU Triad, device {device} (best)", "triad_bandwidth",
                                     best_of=True))
    if many is not None:
        count = number(parameter(many, "devices"))
        words = f"{int(count)} devices" if count else "every device"
        figures.append(metric_figure(many, GROUP, "gpu.stream.triad.all",
                                     f"GPU Triad, {words} at once (sum, best)", "triad_bandwidth",
                                     best_of=True))
    return figures


def _copies(records: Sequence[Record]) -> List[Optional[Figure]]:
    figures = []
    for kind in ("h2d", "d2h"):
        record = _last(of_variant(records, "copy"), lambda r, kind=kind: r.get(
            "algorithm") == kind and parameter(r, "host_memory") == "pinned")
        if record is None:
            continue
        size, _ = copy_point(record, "bandwidth", last=True)
        label = f"{KIND_WORDS[kind]}, pinned" + (f", {binary_size(size)}" if size else "")
        figures.append(metric_figure(record, GROUP, f"gpu.copy.{kind}.pinned", label,
                                     "bandwidth"))
    return figures


def gpu_headline(records: Sequence[Record]) -> List[Figure]:
    ra = _last(of_variant(records, "ra"), lambda record: record.get("algorithm") == "atomic")
    figures = _triad(records)
    if ra is not None:
        figures.append(metric_figure(ra, GROUP, "gpu.ra.atomic", "GPU RandomAccess (atomic)",
                                     "update_rate"))
    return [figure for figure in figures + _copies(records) if figure is not None]
