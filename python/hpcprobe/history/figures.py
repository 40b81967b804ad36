"""The figures of a record that go into the history (docs/history.md, "Figures").

- The headline: `benchmark.variant[.algorithm].metric` (value.metric; the algorithm
  where the record names one), its value and unit, on the record's host; a record of
  several hosts keys it by their names joined with "," (the figure is of them together).
- Per host: where the record has a per-rank series (x_name "rank") of the headline's
  unit whose name holds every word of the headline metric (stream's
  `star_triad_best_bandwidth` for `star_triad_bandwidth`, dgemm's `best_flop_rate` for
  `flop_rate`), each host's ranks summed: `benchmark.variant[.algorithm].<series>`,
  one figure per host (metadata.rank_hosts indexes metadata.hosts). A host with a rank
  that has no value gets no figure (a sum short of a rank would read as a slow host).
- validated: the record's validation verdict is "passed".

Records are untrusted: a name that is not a plain word, a value that is not a finite
number, hosts that are not names, a series that does not cover each rank once: that
figure is left out, never guessed."""

import math
import re
from collections import defaultdict
from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.history.db import Figure, format_time, parse_time
from hpcprobe.records import number, section_of

# A part of a figure name: no dots (they separate the parts) and nothing hidden.
_PART = re.compile(r"[A-Za-z0-9_+-]{1,64}")
# A host: what MPI_Get_processor_name may give, printable, no "," (it joins hosts).
_HOST = re.compile(r"[\x21-\x2b\x2d-\x7e]{1,255}")
_UNIT = re.compile(r"[\x20-\x7e]{1,32}")
MAX_RANKS = 1 << 22
_NUMBER_TYPES = (int, float)


def _word(value: Any, pattern: "re.Pattern[str]") -> Optional[str]:
    return value if isinstance(value, str) and pattern.fullmatch(value) else None


def figure_prefix(record: Dict[str, Any]) -> Optional[str]:
    """`benchmark.variant[.algorithm]`, or None when a part is not a plain word."""
    benchmark = _word(record.get("benchmark"), _PART)
    variant = _word(record.get("variant"), _PART)
    if benchmark is None or variant is None:
        return None
    algorithm = record.get("algorithm")
    if algorithm in (None, ""):
        return f"{benchmark}.{variant}"
    algorithm = _word(algorithm, _PART)
    return None if algorithm is None else f"{benchmark}.{variant}.{algorithm}"


def _hosts(metadata: Dict[str, Any]) -> List[str]:
    """metadata.hosts when every one is a host name, distinct; else []."""
    hosts = metadata.get("hosts")
    if not isinstance(hosts, list) or not hosts or len(hosts) > MAX_RANKS:
        return []
    names = [_word(host, _HOST) for host in hosts]
    if None in names or len(set(names)) != len(names):
        return []
    return [name for name in names if name is not None]


def _rank_series(record: Dict[str, Any], metric: str, unit: str) -> Optional[Dict[str, Any]]:
    """The one per-rank series of the headline's unit naming every word of `metric`;
    none for times (mem latency's memory_latency_per_rank): ranks' rates add up to their
    host's, their times do not."""
    if unit == "s":
        return None
    words = set(metric.split("_"))
    found = [entry for entry in record.get("series") or [] if isinstance(entry, dict)
             and entry.get("x_name") == "rank" and entry.get("unit") == unit
             and _word(entry.get("name"), _PART) is not None
             and words <= set(entry["name"].split("_"))]
    return found[0] if len(found) == 1 else None


def _rank_values(entry: Dict[str, Any], ranks: int) -> Optional[List[Optional[float]]]:
    """y by rank, when x holds each rank 0 .. ranks-1 exactly once; else None."""
    xs, ys = entry.get("x"), entry.get("y")
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != ranks or len(
            ys) != ranks:
        return None
    values: List[Optional[float]] = [None] * ranks
    seen = set()
    for x, y in zip(xs, ys):
        # Exact types (bool is an int): a rank is a whole number, a value finite.
        if type(x) not in _NUMBER_TYPES or not 0 <= x < ranks or x != int(x) or x in seen:
            return None
        seen.add(x)
        if type(y) in _NUMBER_TYPES and math.isfinite(y):
            values[int(x)] = float(y)
    return values


def _host_sums(record: Dict[str, Any], entry: Dict[str, Any],
               hosts: Sequence[str]) -> Dict[str, float]:
    """host -> the sum of its ranks' values (hosts with a rank without one left out)."""
    rank_hosts = section_of(record, "metadata").get("rank_hosts")
    if not isinstance(rank_hosts, list) or not 0 < len(rank_hosts) <= MAX_RANKS:
        return {}
    places = [number(place) for place in rank_hosts]
    if any(place is None or not place.is_integer() or not 0 <= place < len(hosts)
           for place in places):
        return {}
    values = _rank_values(entry, len(places))
    if values is None:
        return {}
    sums: Dict[str, float] = defaultdict(float)
    broken = set()
    for place, value in zip(places, values):
        host = hosts[int(place)]  # type: ignore[arg-type]
        if value is None:
            broken.add(host)
        else:
            sums[host] += value
    return {host: total for host, total in sums.items() if host not in broken}


def figures_of(record: Any) -> List[Figure]:
    """The record's figures for the history (the module's docstring); [] for a record
    that has none that can be trusted."""
    if not isinstance(record, dict):
        return []
    prefix = figure_prefix(record)
    headline = section_of(record, "value")
    metric = _word(headline.get("metric"), _PART)
    value = number(headline.get("value"))
    unit = _word(headline.get("unit"), _UNIT)
    hosts = _hosts(section_of(record, "metadata"))
    if prefix is None or metric is None or unit is None or not hosts:
        return []
    validated = section_of(record, "validation").get("verdict") == "passed"
    started = parse_time(record.get("started_at"))
    time = None if started is None else format_time(started)
    found = []
    if value is not None:
        found.append(Figure(",".join(hosts), f"{prefix}.{metric}", value, unit, validated,
                            time))
    entry = _rank_series(record, metric, unit)
    if entry is not None:
        for host, total in sorted(_host_sums(record, entry, hosts).items()):
            found.append(Figure(host, f"{prefix}.{entry['name']}", total, unit, validated,
                                time))
    return found
