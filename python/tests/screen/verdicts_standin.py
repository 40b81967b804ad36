"""A minimal private stand-in for helper B's hpcprobe/screen/verdicts.py (the design's
API), used by these tests only while that module is not in this tree: install() puts it
in sys.modules as hpcprobe.screen.verdicts. It follows the design's rules roughly; the
tests here judge the screen command, not these verdicts."""

import importlib
import shlex
import statistics
import sys
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Tuple


@dataclass(frozen=True)
class NodeFigure:
    host: str
    check: str
    value: Optional[float]
    unit: str
    higher_is_better: bool
    validated: bool


@dataclass(frozen=True)
class PairFigure:
    a: str
    b: str
    check: str
    value: Optional[float]
    unit: str
    higher_is_better: bool
    validated: bool


@dataclass(frozen=True)
class Thresholds:
    z: float = 3.5
    ratio: float = 0.85
    history_ratio: float = 0.85
    link_ratio: float = 0.6
    min_peers: int = 3


@dataclass(frozen=True)
class CheckVerdict:
    check: str
    value: Optional[float]
    unit: str
    median: Optional[float]
    ratio: Optional[float]
    z: Optional[float]
    history_ratio: Optional[float]
    status: str
    reason: str


@dataclass(frozen=True)
class NodeVerdict:
    host: str
    status: str
    checks: Tuple[CheckVerdict, ...]
    reason: str


@dataclass(frozen=True)
class LinkVerdict:
    a: str
    b: str
    check: str
    value: Optional[float]
    ratio: Optional[float]
    status: str
    reason: str


def _judge(figure, peers, thresholds):
    if figure.value is None or not figure.validated:
        return CheckVerdict(figure.check, figure.value, figure.unit, None, None, None, None,
                            "failed", "no validated figure")
    if len(peers) < thresholds.min_peers:
        return CheckVerdict(figure.check, figure.value, figure.unit, None, None, None, None,
                            "unjudged", f"{len(peers)} peers")
    median = statistics.median(peers)
    ratio = figure.value / median if median else None
    worse = ratio is not None and (ratio < thresholds.ratio if figure.higher_is_better
                                   else ratio > 1 / thresholds.ratio)
    return CheckVerdict(figure.check, figure.value, figure.unit, median, ratio, None, None,
                        "slow" if worse else "ok", f"×{ratio:.2f} of peers" if worse else "")


def judge_nodes(figures, history, thresholds):
    nodes = []
    for host in dict.fromkeys(figure.host for figure in figures):
        checks = tuple(_judge(figure, [f.value for f in figures if f.check == figure.check
                                       and f.host != host and f.value is not None],
                              thresholds) for figure in figures if figure.host == host)
        states = {check.status for check in checks}
        status = ("failed" if "failed" in states else "suspect" if "slow" in states else
                  "ok" if states == {"ok"} else "unjudged")
        nodes.append(NodeVerdict(host, status, checks, "; ".join(
            f"{c.check} {c.status} {c.reason}".strip() for c in checks if c.status != "ok")))
    return nodes


def confirm(first, repeat):
    return replace(first, status="slow" if repeat.status in ("slow", "suspect") else "ok")


def judge_links(pairs, nodes, thresholds):
    links = []
    for pair in pairs:
        same = [p.value for p in pairs if p.check == pair.check and p.value is not None]
        median = statistics.median(same)
        ratio = pair.value / median if pair.value and median else None
        bad = ratio is not None and (ratio < thresholds.link_ratio if pair.higher_is_better
                                     else ratio > 1 / thresholds.link_ratio)
        links.append(LinkVerdict(pair.a, pair.b, pair.check, pair.value, ratio,
                                 "bad" if bad else "ok", ""))
    return links


def drain_lines(nodes):
    return [f"scontrol update NodeName={shlex.quote(node.host)} State=DRAIN "
            f"Reason={shlex.quote('hpcprobe screen: ' + node.reason)}"
            for node in nodes if node.status in ("slow", "failed")]


def install() -> None:
    """Put this module in place of hpcprobe.screen.verdicts where that is missing."""
    try:
        importlib.import_module("hpcprobe.screen.verdicts")
    except ImportError:
        module = types.ModuleType("hpcprobe.screen.verdicts")
        module.__dict__.update({name: value for name, value in globals().items()
                                if not name.startswith("__")})
        sys.modules["hpcprobe.screen.verdicts"] = module


def screen_argv(*args: str):
    """The argv of `hpcprobe screen ARGS` in a fresh interpreter, with this stand-in
    installed first where helper B's module is missing."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            "import verdicts_standin; verdicts_standin.install(); "
            "from hpcprobe.cli import main; sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", code, "screen", *args]
