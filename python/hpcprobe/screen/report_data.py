"""screen.json (format hpcprobe-screen-1) read for the report, as untrusted input.

An entry of the wrong shape (not an object, a host that is not a non-empty string, a
value that is not a finite number, a status that is not a string) is left out and
counted; every list is read up to MAX_ENTRIES. Nothing here is cut or escaped yet: names
stay whole (two long names must not merge), and report.py makes them text for the page.
"""

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

# A link as screen.json holds it: the verdict's own fields.
from hpcprobe.screen.links import OWN_LINK
from hpcprobe.screen.verdicts import LinkVerdict as Link

SCREEN_FORMAT = "hpcprobe-screen-1"
# More entries than a screen of 4096 nodes writes, few enough to read in a second.
MAX_ENTRIES = 200_000
# A longer host or check name is malformed (Slurm's are far shorter).
MAX_NAME_CHARS = 1000
MAX_STATUS_CHARS = 40


@dataclass
class CheckCell:
    """One check of one node: its figure, the peers' median and the ratio to it."""

    check: str
    value: Optional[float]
    unit: str
    median: Optional[float]
    ratio: Optional[float]
    status: str
    reason: str


@dataclass
class NodeRow:
    host: str
    status: str
    reason: str
    checks: Dict[str, CheckCell] = field(default_factory=dict)


@dataclass
class Screen:
    """What the report shows of one screen.json; `ignored` counts the entries left out."""

    format: str = ""
    hosts: List[str] = field(default_factory=list)
    checks: List[str] = field(default_factory=list)
    nodes: Dict[str, NodeRow] = field(default_factory=dict)
    links: List[Link] = field(default_factory=list)
    # (check, a, b) with a < b -> the values measured for that pair (either direction).
    pairs: Dict[Tuple[str, str, str], List[float]] = field(default_factory=dict)
    pair_units: Dict[str, str] = field(default_factory=dict)
    drain: List[str] = field(default_factory=list)
    repeated: List[str] = field(default_factory=list)
    thresholds: Dict[str, float] = field(default_factory=dict)
    elapsed_s: Optional[float] = None
    ignored: int = 0
    cut: List[str] = field(default_factory=list)

    def status_of(self, host: str) -> Optional[str]:
        row = self.nodes.get(host)
        return row.status if row else None

    def pair_value(self, check: str, a: str, b: str) -> Optional[float]:
        values = self.pairs.get((check, min(a, b), max(a, b)))
        return statistics.median(values) if values else None

    def pair_checks(self) -> List[str]:
        """The pair checks measured or judged, pair-bandwidth first."""
        found = list(dict.fromkeys([key[0] for key in self.pairs] +
                                   [link.check for link in self.links]))
        return sorted(found, key=lambda check: (check != "pair-bandwidth", found.index(check)))


def name(value: Any) -> Optional[str]:
    """A host or check name: a non-empty string of at most MAX_NAME_CHARS."""
    return value if isinstance(value, str) and 0 < len(value) <= MAX_NAME_CHARS else None


def number(value: Any) -> Optional[float]:
    """A finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def _status(value: Any) -> Optional[str]:
    return value[:MAX_STATUS_CHARS] if isinstance(value, str) and value else None


def _text(value: Any) -> str:
    return value[:MAX_NAME_CHARS] if isinstance(value, str) else ""


def _entries(data: Mapping[str, Any], key: str, screen: Screen) -> List[Any]:
    """data[key] as a list (absent: empty; not a list: empty and counted), cut to
    MAX_ENTRIES with the cut said."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        screen.ignored += 1
        return []
    if len(value) > MAX_ENTRIES:
        screen.cut.append(f"{key}: the first {MAX_ENTRIES} of {len(value)} entries read")
    return value[:MAX_ENTRIES]


def _check_cell(entry: Any) -> Optional[CheckCell]:
    if not isinstance(entry, dict) or name(entry.get("check")) is None:
        return None
    status = _status(entry.get("status"))
    if status is None:
        return None
    ratio = number(entry.get("ratio"))
    if ratio is not None and ratio < 0:  # a ratio of two figures is never negative
        ratio = None
    return CheckCell(entry["check"], number(entry.get("value")), _text(entry.get("unit")),
                     number(entry.get("median")), ratio, status, _text(entry.get("reason")))


def _node(entry: Any, screen: Screen) -> Optional[NodeRow]:
    if not isinstance(entry, dict) or name(entry.get("host")) is None:
        return None
    status = _status(entry.get("status"))
    if status is None or entry["host"] in screen.nodes:
        return None
    row = NodeRow(entry["host"], status, _text(entry.get("reason")))
    checks = entry.get("checks")
    for item in checks[:MAX_ENTRIES] if isinstance(checks, list) else []:
        cell = _check_cell(item)
        if cell is None or cell.check in row.checks:
            screen.ignored += 1
        else:
            row.checks[cell.check] = cell
    if checks is not None and not isinstance(checks, list):
        screen.ignored += 1
    return row


def _link(entry: Any) -> Optional[Link]:
    if not isinstance(entry, dict):
        return None
    a, b, check = (name(entry.get(key)) for key in ("a", "b", "check"))
    status = _status(entry.get("status"))
    if a is None or b is None or check is None or status is None or a == b:
        return None
    return Link(a, b, check, number(entry.get("value")), number(entry.get("ratio")), status,
                _text(entry.get("reason")))


def _add_pair(entry: Any, screen: Screen) -> bool:
    """The pair's value into screen.pairs; False when the entry is malformed (a pair
    without a value, measured nothing, is kept out but is no error)."""
    if not isinstance(entry, dict):
        return False
    a, b, check = (name(entry.get(key)) for key in ("a", "b", "check"))
    if a is None or b is None or check is None or a == b:
        return False
    value = number(entry.get("value"))
    if value is None:
        return entry.get("value") is None
    screen.pairs.setdefault((check, min(a, b), max(a, b)), []).append(value)
    screen.pair_units.setdefault(check, _text(entry.get("unit")))
    return True


def _names(values: List[Any], screen: Screen) -> List[str]:
    found = [name(value) for value in values]
    screen.ignored += sum(value is None for value in found)
    return list(dict.fromkeys(value for value in found if value is not None))


def _check_names(values: List[Any], screen: Screen) -> List[str]:
    """The checks' names; an entry may be a name or an object with "name"."""
    return _names([value.get("name") if isinstance(value, dict) else value
                   for value in values], screen)


def _lists(data: Mapping[str, Any], screen: Screen) -> None:
    for entry in _entries(data, "nodes", screen):
        row = _node(entry, screen)
        if row is None:
            screen.ignored += 1
        else:
            screen.nodes[row.host] = row
    for entry in _entries(data, "links", screen):
        link = _link(entry)
        if link is None:
            screen.ignored += 1
        else:
            screen.links.append(link)
    for entry in _entries(data, "pairs", screen):
        screen.ignored += not _add_pair(entry, screen)
    drain = _entries(data, "drain", screen)
    screen.drain = [line for line in drain if isinstance(line, str)]
    screen.ignored += len(drain) - len(screen.drain)
    screen.repeated = _names(_entries(data, "repeated", screen), screen)


def read_screen(data: Any) -> Screen:
    """The report's view of a screen.json document (already parsed from JSON)."""
    screen = Screen()
    if not isinstance(data, dict):
        screen.ignored += 1
        return screen
    screen.format = _text(data.get("format"))
    _lists(data, screen)
    thresholds = data.get("thresholds")
    if isinstance(thresholds, dict):
        screen.thresholds = {key: float(value) for key, value in list(thresholds.items())[:20]
                             if name(key) and number(value) is not None}
    screen.elapsed_s = number(data.get("elapsed_s"))
    named = _names(_entries(data, "hosts", screen), screen)
    linked = [host for link in screen.links for host in (link.a, link.b) if host != OWN_LINK]
    paired = [host for key in screen.pairs for host in key[1:]]
    screen.hosts = list(dict.fromkeys(named + list(screen.nodes) + linked + paired))
    judged = [check for row in screen.nodes.values() for check in row.checks]
    screen.checks = list(dict.fromkeys(_check_names(_entries(data, "checks", screen), screen)
                                       + judged))
    # The pair checks have their own matrices; the heat map is of node checks.
    screen.checks = [check for check in screen.checks
                     if check in judged or not check.startswith("pair-")]
    return screen
