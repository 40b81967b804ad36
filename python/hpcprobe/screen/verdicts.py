"""Verdicts of `hpcprobe screen`: which node is slow against its peers and its own past,
and Slurm's drain lines for them (printed, never run); which link is bad is links.py's.

Pure functions over the figures the screen command measured. docs/screen.md ("Verdicts")
states the rules and their defaults: a check is slow by the peers when it is worse than
their median by the ratio AND beyond the robust z, slow by history when worse than its
own past median by the history ratio; "unjudged" where neither can judge (never "ok").
"""

import math
import re
import shlex
import statistics
from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.analysis.stats import find_modes, mad
from hpcprobe.errors import UsageError

OK, SLOW, FAILED, SUSPECT, UNJUDGED = "ok", "slow", "failed", "suspect", "unjudged"
BAD, UNKNOWN = "bad", "unknown"
# The normal's 0.75 quantile: MAD / 0.6745 estimates sigma, so z reads like a normal z.
Z_SCALE = 0.6745
# A node that is one of these is not fine, so its links cannot be judged.
NOT_FINE = (SLOW, FAILED, SUSPECT)
SLURM_NODE_NAME = re.compile(r"[A-Za-z0-9._-]+")
HOST_NAME_MAX = 255  # a DNS name's limit; a node name beyond it is no real host
# Long enough for a few checks' reasons; a drain line stays one readable line.
REASON_LIMIT = 200
HOST_SHOWN = 64


@dataclass(frozen=True)
class NodeFigure:
    """One check's figure on one node, in the records' SI unit."""

    host: str
    check: str
    value: Optional[float]
    unit: str
    higher_is_better: bool
    validated: bool


@dataclass(frozen=True)
class PairFigure:
    """One check's figure between two nodes (a link); a pair may be measured several
    times (its figures' median counts)."""

    a: str
    b: str
    check: str
    value: Optional[float]
    unit: str
    higher_is_better: bool
    validated: bool


@dataclass(frozen=True)
class Thresholds:
    """When a figure is called slow or bad. Defaults:

    - z = 3.5: |robust z| beyond 3.5 is out of the fleet's spread (Iglewicz and Hoaglin's
      cut-off for the modified z-score);
    - ratio = 0.85: below 0.85 x the peers' median (above 1/0.85 = 1.18 x for a
      lower-is-better check such as latency);
    - history_ratio = 0.85: the same against the median of the node's own past values;
    - link_ratio = 0.6: a link below 0.6 x the median of all links (above 1/0.6 for
      latency);
    - min_peers = 3: fewer peers than this cannot judge a node (nor fewer other links a
      link);
    - min_history = 3: fewer past values than this are no baseline.
    """

    z: float = 3.5
    ratio: float = 0.85
    history_ratio: float = 0.85
    link_ratio: float = 0.6
    min_peers: int = 3
    min_history: int = 3

    def __post_init__(self) -> None:
        for name in ("ratio", "history_ratio", "link_ratio"):
            value = getattr(self, name)
            if not 0 < value < 1:
                raise UsageError(f"threshold {name} {value!r}: allowed is a number "
                                 "between 0 and 1 (exclusive)")
        if not 0 < self.z < math.inf:
            raise UsageError(f"threshold z {self.z!r}: allowed is a positive number")
        for name in ("min_peers", "min_history"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"threshold {name} {value!r}: allowed is a whole number "
                                 ">= 1")


DEFAULTS = Thresholds()


@dataclass(frozen=True)
class CheckVerdict:
    """One check on one node. median: the peers' median; ratio: value / median;
    z: the robust z (None where MAD is 0 or the peers are too few); history_ratio: value /
    the median of its own past values; status: ok | slow | failed | unjudged."""

    check: str
    value: Optional[float]
    unit: str
    median: Optional[float]
    ratio: Optional[float]
    z: Optional[float]
    history_ratio: Optional[float]
    status: str
    reason: str
    # Added to the design's fields: how to read the ratio (a report colours by it).
    higher_is_better: bool = True


@dataclass(frozen=True)
class NodeVerdict:
    """One node: ok | slow | failed | suspect | unjudged, its checks, and why."""

    host: str
    status: str
    checks: Tuple[CheckVerdict, ...]
    reason: str


@dataclass(frozen=True)
class LinkVerdict:
    """One link (a pair of nodes) for one check: ok | bad | unknown. ratio: value / the
    median of all links of that check."""

    a: str
    b: str
    check: str
    value: Optional[float]
    ratio: Optional[float]
    status: str
    reason: str


def usable(value: object) -> bool:
    """A figure that can be compared: a finite positive number (every check's figure,
    a rate or a time, is positive; 0 is a broken measurement)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def robust_z(values: Mapping[str, float]) -> Dict[str, float]:
    """Each (finite) value's modified z-score against all of them:
    0.6745 (x - median) / MAD. Where MAD is 0 (half the values or more are equal) a value
    at the median scores 0 and any other +-inf: no spread to scale it by."""
    if not values:
        return {}
    centre = statistics.median(values.values())
    spread = mad(list(values.values()))
    return {key: _z(value, centre, spread) for key, value in values.items()}


def _z(value: float, centre: float, spread: float) -> float:
    if spread > 0:
        return Z_SCALE * (value - centre) / spread
    return 0.0 if value == centre else math.copysign(math.inf, value - centre)


def worse(ratio: float, limit: float, higher_is_better: bool) -> bool:
    """Whether a ratio to a reference is worse than `limit` (its inverse where lower
    is better)."""
    return ratio < limit if higher_is_better else ratio > 1 / limit


def ratio_text(ratio: float, reference: str) -> str:
    return f"{ratio:.2f} of the {reference}"


def figure_failure(value: object, validated: bool) -> Optional[str]:
    """Why a figure cannot be judged (None: it can)."""
    if value is None:
        return "no figure"
    if not usable(value):
        return f"figure {value!r} is not a positive finite number"
    if not validated:
        return "figure not validated"
    return None


def _group_nodes(figures: Sequence[NodeFigure]) -> Dict[str, Dict[str, NodeFigure]]:
    """check -> host -> figure, both in first-seen order; one figure per (host, check),
    one unit and one direction per check."""
    by_check: Dict[str, Dict[str, NodeFigure]] = {}
    for figure in figures:
        on = by_check.setdefault(figure.check, {})
        if figure.host in on:
            raise ValueError(f"two figures of check {figure.check!r} for host "
                             f"{figure.host!r}: one per host and check")
        first = next(iter(on.values()), figure)
        if (first.unit, first.higher_is_better) != (figure.unit, figure.higher_is_better):
            raise ValueError(f"check {figure.check!r} has figures in {first.unit!r} and "
                             f"{figure.unit!r} or of both directions: one per check")
        on[figure.host] = figure
    return by_check


def _split_text(values: Sequence[float]) -> Optional[str]:
    """How the fleet splits into groups (None where it does not), as ratios to the
    fleet's median."""
    modes = find_modes(values)
    if len(modes) < 2:
        return None
    centre = statistics.median(values)
    groups = " and ".join(f"{mode.count} nodes near {mode.median / centre:.2f}"
                          for mode in modes)
    return f"{groups} of the fleet median"


def _by_peers(figure: NodeFigure, peers: Sequence[float], z: float,
              split: Optional[str], t: Thresholds) -> Tuple[Optional[bool], str]:
    """(slow?, why) by the peers; slow? is None where they cannot judge."""
    if len(peers) < t.min_peers:
        return None, (f"{len(peers)} peer{'s' if len(peers) != 1 else ''}, fewer than "
                      f"{t.min_peers}: the peers cannot judge")
    ratio = figure.value / statistics.median(peers)  # type: ignore[operator]
    said = ratio_text(ratio, "peer median")
    if not worse(ratio, t.ratio, figure.higher_is_better):
        return False, said
    if math.isinf(z):
        return True, f"{said}, the fleet's MAD is 0"
    if (z < -t.z) if figure.higher_is_better else (z > t.z):
        return True, f"{said}, robust z {z:+.1f}"
    if split is not None:
        return None, (f"{said} but the fleet splits ({split}): the peers cannot judge "
                      "which group is right")
    return False, f"{said} but inside the fleet's spread (robust z {z:+.1f})"


def _by_history(figure: NodeFigure, past: Sequence[object],
                t: Thresholds) -> Tuple[Optional[float], Optional[bool], str]:
    """(history ratio, slow?, why) against the node's own past values."""
    values = [float(value) for value in past if usable(value)]  # type: ignore[arg-type]
    if len(values) < t.min_history:
        return None, None, f"{len(values)} past values, fewer than {t.min_history}"
    ratio = figure.value / statistics.median(values)  # type: ignore[operator]
    slow = worse(ratio, t.history_ratio, figure.higher_is_better)
    return ratio, slow, ratio_text(ratio, f"own median of {len(values)} past runs")


def _judge_figure(figure: NodeFigure, usable_values: Mapping[str, float], z: float,
                  split: Optional[str], past: Sequence[object],
                  t: Thresholds) -> CheckVerdict:
    peers = [value for host, value in usable_values.items() if host != figure.host]
    median = statistics.median(peers) if peers else None
    ratio = figure.value / median if median else None  # type: ignore[operator]
    peer_slow, peer_why = _by_peers(figure, peers, z, split, t)
    history_ratio, history_slow, history_why = _by_history(figure, past, t)
    judged = [(slow, why) for slow, why in ((peer_slow, f"peers: {peer_why}"),
                                            (history_slow, f"history: {history_why}"))
              if slow is not None]
    if any(slow for slow, _ in judged):
        status, reason = SLOW, "; ".join(why for slow, why in judged if slow)
    elif judged:
        status, reason = OK, "; ".join(why for _, why in judged)
    else:
        status, reason = UNJUDGED, f"peers: {peer_why}; history: {history_why}"
    # z over fewer than min_peers + 1 nodes means nothing; infinite z is MAD 0.
    shown_z = z if math.isfinite(z) and len(peers) >= t.min_peers else None
    return CheckVerdict(figure.check, figure.value, figure.unit, median, ratio, shown_z,
                        history_ratio, status, reason, figure.higher_is_better)


def _judge_check(on: Mapping[str, NodeFigure], hosts: Sequence[str],
                 history: Mapping[Tuple[str, str], Sequence[float]],
                 t: Thresholds) -> Dict[str, CheckVerdict]:
    """Every host's verdict on one check; a host without a figure of it has failed it."""
    first = next(iter(on.values()))
    good = {host: float(f.value) for host, f in on.items()  # type: ignore[arg-type]
            if figure_failure(f.value, f.validated) is None}
    zs = robust_z(good)
    split = _split_text(list(good.values())) if len(good) > 1 else None
    verdicts = {}
    for host in hosts:
        figure = on.get(host)
        if figure is not None and host in good:
            verdicts[host] = _judge_figure(figure, good, zs[host], split,
                                           history.get((host, first.check), ()), t)
            continue
        # Only a usable number goes on: NaN or infinity in screen.json is no JSON.
        value = figure.value if figure is not None and usable(figure.value) else None
        why = "no figure" if figure is None else figure_failure(figure.value, figure.validated)
        verdicts[host] = CheckVerdict(first.check, value, first.unit, None, None, None,
                                      None, FAILED, str(why), first.higher_is_better)
    return verdicts


def _listed(checks: Sequence[CheckVerdict]) -> str:
    return "; ".join(f"{check.check}: {check.reason}" for check in checks)


def _node_verdict(host: str, checks: Tuple[CheckVerdict, ...],
                  slow_status: str) -> NodeVerdict:
    """The node's status from its checks: failed before slow before ok; unjudged only
    where no check was judged."""
    failed = [check for check in checks if check.status == FAILED]
    slow = [check for check in checks if check.status == SLOW]
    unjudged = [check for check in checks if check.status == UNJUDGED]
    if failed or slow:
        parts = ([f"failed: {_listed(failed)}"] if failed else []) + (
            [f"slow: {_listed(slow)}"] if slow else [])
        return NodeVerdict(host, FAILED if failed else slow_status, checks,
                           "; ".join(parts))
    if not checks:
        return NodeVerdict(host, UNJUDGED, checks, "no figures")
    if len(unjudged) == len(checks):
        return NodeVerdict(host, UNJUDGED, checks, f"not judged: {_listed(unjudged)}")
    judged = len(checks) - len(unjudged)
    reason = f"ok ({judged} check{'s' if judged != 1 else ''} judged)"
    if unjudged:
        reason += f"; not judged: {_listed(unjudged)}"
    return NodeVerdict(host, OK, checks, reason)


def judge_nodes(figures: Sequence[NodeFigure],
                history: Mapping[Tuple[str, str], Sequence[float]],
                thresholds: Thresholds = DEFAULTS) -> List[NodeVerdict]:
    """Every node's verdict, hosts in first-seen order, each node's checks in first-seen
    order. `history` maps (host, check) to the node's past values of that check (before
    this run; unvalidated ones left out by the caller, unusable ones ignored here).
    A node found slow is "suspect" until `confirm` has its repeat; "slow" comes only
    from there. A host without a figure of a check the others have has failed it.
    Raises ValueError for two figures of one (host, check), or mixed units or
    directions within one check (a caller's error, not the user's)."""
    by_check = _group_nodes(figures)
    hosts = list(dict.fromkeys(figure.host for figure in figures))
    found: Dict[str, List[CheckVerdict]] = {host: [] for host in hosts}
    for on in by_check.values():
        for host, verdict in _judge_check(on, hosts, history, thresholds).items():
            found[host].append(verdict)
    return [_node_verdict(host, tuple(found[host]), SUSPECT) for host in hosts]


def _confirm_check(first: CheckVerdict, again: Optional[CheckVerdict],
                   t: Thresholds) -> Tuple[CheckVerdict, str]:
    """(the check's verdict after the repeat, outcome: slow | ok | failed | unrepeated).
    The repeat confirms when a measure on which the first run was worse is worse again:
    the ratio to the peers (in the repeat where it had peers, else to the first run's
    peer median) or the ratio to its own history."""
    if again is None:
        return replace(first, reason=f"{first.reason}; not repeated"), "unrepeated"
    if again.status == FAILED:
        return replace(again, reason=f"repeat: {again.reason}"), FAILED
    ratio = again.ratio
    if ratio is None and first.median and usable(again.value):
        ratio = again.value / first.median  # type: ignore[operator]
    hib = first.higher_is_better
    by_peers = first.ratio is not None and worse(first.ratio, t.ratio, hib)
    by_history = (first.history_ratio is not None
                  and worse(first.history_ratio, t.history_ratio, hib))
    still = ((by_peers and ratio is not None and worse(ratio, t.ratio, hib))
             or (by_history and again.history_ratio is not None
                 and worse(again.history_ratio, t.history_ratio, hib)))
    measured = [ratio_text(ratio, "peer median")] if ratio is not None else []
    if again.history_ratio is not None:
        measured.append(ratio_text(again.history_ratio, "own median"))
    said = f"repeat {', '.join(measured) or 'not comparable'}"
    if still:
        return replace(first, reason=f"{first.reason}; {said}: confirmed"), SLOW
    return (replace(first, status=OK, reason=f"slow once ({first.reason}); {said}: "
                    "not reproduced"), OK)


def confirm(first: NodeVerdict, repeat: Optional[NodeVerdict] = None,
            thresholds: Thresholds = DEFAULTS) -> NodeVerdict:
    """A suspect node's verdict after its slow checks were repeated (`repeat`: the node's
    verdict from `judge_nodes` over the repeat launch): slow when a repeat is slow too,
    failed when a repeat failed, ok when no repeat reproduced it, still suspect when
    none was repeated (repeat None, or without the slow checks). Other nodes pass
    unchanged."""
    if first.status != SUSPECT:
        return first
    again = {check.check: check for check in repeat.checks} if repeat is not None else {}
    checks, outcomes = [], {}
    for check in first.checks:
        if check.status != SLOW:
            checks.append(check)
            continue
        verdict, outcomes[check.check] = _confirm_check(check, again.get(check.check),
                                                        thresholds)
        checks.append(verdict)
    node = _node_verdict(first.host, tuple(checks),
                         SLOW if SLOW in outcomes.values() else SUSPECT)
    cleared = [name for name, outcome in outcomes.items() if outcome == OK]
    if node.status == OK and cleared:
        node = replace(node, reason=f"{node.reason}; not reproduced in a repeat: "
                       f"{', '.join(cleared)}")
    return node


def _one_line(text: str) -> str:
    """Printable ASCII only, one line, at most REASON_LIMIT characters."""
    clean = " ".join("".join(c if " " <= c <= "~" else " " for c in text).split())
    return clean if len(clean) <= REASON_LIMIT else clean[:REASON_LIMIT - 3] + "..."


def drain_lines(nodes: Sequence[NodeVerdict]) -> List[str]:
    """Slurm's drain line for each slow or failed node, every argument quoted with
    shlex.quote: `scontrol update NodeName=<host> State=DRAIN 'Reason=hpcprobe screen:
    ...'`. A host name that is not a Slurm node name ([A-Za-z0-9._-]+) is never printed
    raw: its line is a comment with the name escaped. For printing, never for running."""
    lines = []
    for node in nodes:
        if node.status not in (SLOW, FAILED):
            continue
        if len(node.host) > HOST_NAME_MAX or not SLURM_NODE_NAME.fullmatch(node.host):
            shown = ascii(node.host[:HOST_SHOWN]) + ("..." if len(node.host) > HOST_SHOWN
                                                     else "")
            lines.append(f"# refused: host name {shown} is not a Slurm node name "
                         "([A-Za-z0-9._-]+); drain it by hand")
            continue
        reason = _one_line(f"hpcprobe screen: {node.reason}")
        words = ["scontrol", "update", f"NodeName={node.host}", "State=DRAIN",
                 f"Reason={reason}"]
        lines.append(" ".join(shlex.quote(word) for word in words))
    return lines
