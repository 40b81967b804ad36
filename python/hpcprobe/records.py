"""Reading a record's fields: records are untrusted input (a file anyone may edit), so
every section is checked to be an object and every number to be a finite int or float
(bool, text, NaN and infinity are not numbers here). One definition each, for every
layer and family."""

import math
from typing import Any, Dict, Iterable, List, Optional

from hpcprobe.samples import find_series

Record = Dict[str, Any]


def section_of(record: Optional[Record], name: str) -> Dict[str, Any]:
    """record[name] when it is an object, else {} (also for no record)."""
    value = record.get(name) if record else None
    return value if isinstance(value, dict) else {}


def parameter(record: Optional[Record], name: str) -> Any:
    """record["parameters"][name], or None."""
    return section_of(record, "parameters").get(name)


def number(value: Any) -> Optional[float]:
    """`value` as a finite float; None for anything else (bool, text, NaN, missing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def numbers(values: Any) -> List[float]:
    """The finite numbers of a list (None and anything else left out)."""
    if not isinstance(values, list):
        return []
    found = [number(value) for value in values]
    return [value for value in found if value is not None]


def finite(samples: Iterable[object]) -> List[float]:
    """The samples that are finite numbers (None, text, bool, NaN left out)."""
    # Exact types: bool is an int subclass, and merged records carry 10^5 samples.
    return [float(sample) for sample in samples
            if type(sample) in _NUMBER_TYPES and math.isfinite(sample)]


_NUMBER_TYPES = (int, float)


def series_points(record: Record, name: str) -> Dict[float, Optional[float]]:
    """x -> y of a series ({} when absent); y None where the point has no value."""
    entry = find_series(record, name)
    if entry is None or not isinstance(entry.get("x"), list) or not isinstance(
            entry.get("y"), list):
        return {}
    points: Dict[float, Optional[float]] = {}
    for x, y in zip(entry["x"], entry["y"]):
        if number(x) is not None:
            points[float(x)] = number(y)
    return points
