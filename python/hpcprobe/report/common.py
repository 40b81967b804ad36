"""What every report section needs from a record: checked numbers and parameters, the
statistics of its headline, and values with their 95 % interval as text."""

from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.analysis.stats import SampleStats, describe
from hpcprobe.sanitize import plain
from hpcprobe.show import verdict_text
from hpcprobe.samples import metric_samples
from hpcprobe.records import number
from hpcprobe.units import GIGA, NANO, format_number
from hpcprobe.records import parameter, section_of

Record = Dict[str, Any]

__all__ = ["GIGA", "NANO", "Record", "number", "plain", "verdict_text"]


def int_parameter(record: Record, name: str) -> Optional[int]:
    value = number(parameter(record, name))
    return int(value) if value is not None and value.is_integer() else None


def ranks(record: Record) -> int:
    value = number(section_of(record, "layout").get("ranks"))
    return int(value) if value is not None and value >= 1 else 1


def threads(record: Record) -> int:
    value = number(section_of(record, "layout").get("threads_per_rank"))
    return int(value) if value is not None and value >= 1 else 1


def headline_metric(record: Record) -> str:
    return str(section_of(record, "value").get("metric", ""))


def headline_unit(record: Record) -> str:
    return str(section_of(record, "value").get("unit", ""))


def headline_stats(record: Record) -> SampleStats:
    """Statistics of the headline metric's samples."""
    return describe(metric_samples(record, headline_metric(record)))


def metric_stats(record: Record, name: str) -> SampleStats:
    return describe(metric_samples(record, name))


def scaled(value: Optional[float], divisor: float) -> Optional[float]:
    return None if value is None else value / divisor


def value_text(stats: SampleStats, divisor: float = 1.0) -> str:
    """The median, or each mode's median when the samples cluster apart."""
    if stats.median is None:
        return "—"
    if stats.multimodal:
        return " | ".join(f"{format_number(mode.median, divisor)} (×{mode.count})"
                          for mode in stats.modes)
    return format_number(stats.median, divisor)


def ci_text(stats: SampleStats, divisor: float = 1.0) -> str:
    if stats.ci_low is None or stats.ci_high is None:
        return "—"
    return f"{format_number(stats.ci_low, divisor)} … {format_number(stats.ci_high, divisor)}"


def cv_text(stats: SampleStats) -> str:
    return "—" if stats.cv is None else f"{100 * stats.cv:.2g} %"


def verdict_cell(record: Record) -> str:
    text = verdict_text(record)
    return text if record.get("compliant") is not False else text + ", non-compliant"


def merged_count(record: Record) -> int:
    """How many launches a (merged) record pools."""
    launches = number(section_of(record, "counters").get("merged_launches"))
    return int(launches) if launches is not None and launches >= 1 else 1


def newest_first(records: Sequence[Record]) -> List[Record]:
    return sorted(records, key=lambda record: str(record.get("finished_at", "")), reverse=True)


def of_benchmark(records: Sequence[Record], benchmark: str,
                 variant: Optional[str] = None) -> List[Record]:
    return [record for record in records if record.get("benchmark") == benchmark
            and (variant is None or record.get("variant") == variant)]


def last_of(records: Sequence[Record], benchmark: str,
            variant: Optional[str] = None) -> Optional[Record]:
    """The last record of `benchmark` (and `variant`), or None."""
    found = of_benchmark(records, benchmark, variant)
    return found[-1] if found else None
