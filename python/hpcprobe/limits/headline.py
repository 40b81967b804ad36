"""The headline's "of limit": the fraction of a record's figure of its limit, for the
families' headline functions (families/*/headline.py) to fill the column with."""

from typing import Optional, Sequence

from hpcprobe.limits.ceilings import ceilings_for, ceilings_of
from hpcprobe.limits.records import record_limits
from hpcprobe.records import Record


def fraction_of(records: Sequence[Record], record: Optional[Record],
                size: Optional[float] = None, value: Optional[float] = None) -> Optional[float]:
    """The fraction of `record`'s headline limit (ceilings from `records`, the run's); at
    message `size` a collective's bound there; with `value`, that value (a figure other
    than the record's own, e.g. the slowest pair) against the limit; None without one."""
    if record is None:
        return None
    found = record_limits(record, ceilings_for(ceilings_of(records), record))
    if found is None:
        return None
    if size is not None:
        point = next((point for point in found.curve if point.size == size), None)
        return None if point is None else point.fraction
    limit = found.headline
    if limit is None or limit.fraction is None or not limit.limit:
        return None
    if value is None:
        return limit.fraction
    return limit.limit / value if limit.is_time else value / limit.limit
