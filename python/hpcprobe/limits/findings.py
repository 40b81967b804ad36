"""Findings: figures below a stated fraction of their limit. One table of thresholds, by
the `check` a limit names (records.py, kernels.py, collectives.py); each finding is a line
with the numbers that make it one."""

from dataclasses import replace
from typing import Dict, List, Sequence, Tuple

from hpcprobe.limits.limit import Limit
from hpcprobe.units import format_quantity

# check -> (lowest fraction of the limit that is not a finding, what it is measured
# against). A time's fraction is bound / measured: "> 3x its bound" is below 1/3.
THRESHOLDS: Dict[str, Tuple[float, str]] = {
    "collective": (1 / 3, "a collective slower than 3x its bound"),
    "hpl.theoretical": (0.5, "HPL below 0.5 of the theoretical peak of its cores"),
    "dgemm.theoretical": (0.5, "DGEMM below 0.5 of the theoretical peak of its cores"),
    "stream.triad": (0.5, "STREAM Triad below 0.5 of the empirical memory bandwidth"),
    "stream.copy": (0.5, "STREAM Copy below 0.5 of the empirical memory bandwidth"),
    "pingpong": (0.5, "PingPong across nodes below 0.5 of the link rate"),
    "pairs": (0.5, "the median rank pair across nodes below 0.5 of the link rate"),
}


def threshold_rows() -> List[Tuple[str, str]]:
    """(what, threshold) of each check, for docs and the report."""
    rows = []
    for _, (fraction, words) in THRESHOLDS.items():
        rows.append((words, f"{fraction:.3g} of its limit" if fraction != 1 / 3 else
                     "bound / time below 1/3"))
    return rows


def judge(limit: Limit) -> Limit:
    """The limit, marked a finding when its fraction is below its check's threshold."""
    threshold = THRESHOLDS.get(limit.check)
    fraction = limit.fraction
    if threshold is None or fraction is None or fraction >= threshold[0]:
        return limit
    if limit.is_time:
        reason = (f"{format_quantity(limit.measured, 's')} is {1 / fraction:.3g}x its bound "
                  f"{format_quantity(limit.limit, 's')} (threshold 3x: {threshold[1]})")
    else:
        reason = (f"{format_quantity(limit.measured, limit.unit)} is {fraction:.3g} of "
                  f"{format_quantity(limit.limit, limit.unit)} (threshold "
                  f"{threshold[0]:g}: {threshold[1]})")
    return replace(limit, finding=True, reason=reason)


def finding_lines(found: Sequence) -> List[str]:
    """One line per finding: the record, the figure, the numbers; `found` is a list of
    RecordLimits."""
    lines = []
    for limits in found:
        who = " ".join(str(limits.identity.get(name) or "")
                       for name in ("benchmark", "variant", "algorithm")).strip()
        for limit in limits.limits:
            if limit.finding:
                lines.append(f"{who}, {limit.figure}: {limit.reason}; {limit.name}: "
                             f"{limit.source}")
    return lines
