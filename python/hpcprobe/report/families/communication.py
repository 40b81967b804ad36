"""The communication family (comm, beff, pairs) in `hpcprobe compare`: what tells two of
its records apart besides benchmark, variant, algorithm and metric. Its report section
is still the generic table (report/registry.py)."""

from hpcprobe.memory import binary_size
from hpcprobe.report.common import Record, number, section_of


def compare_label(record: Record) -> str:
    """comm: the size of its headline (1 MiB unless the sizes stop below) and
    --off-cache; pairs: the message size; beff: nothing (HPCC's fixed sizes)."""
    parameters = section_of(record, "parameters")
    if record.get("benchmark") == "comm":
        size = number(parameters.get("headline_size_bytes"))
        label = f"at {binary_size(size)}" if size is not None else ""
        return label + (", off-cache" if parameters.get("off_cache") is True else "")
    if record.get("benchmark") == "pairs":
        size = number(parameters.get("message_bytes"))
        return f"{binary_size(size)} messages" if size is not None else ""
    return ""
