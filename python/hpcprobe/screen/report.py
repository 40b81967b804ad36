"""The screen's section of report.html (docs/screen.md, "Report"), first on the page:
a heat map of every node's checks as ratios to the peers' median with the cells not ok
marked, a matrix of the node pairs per pair check with the bad links marked, the trend
of each slow node's slow checks from the history, the nodes not ok, the bad links and
the drain lines.

screen.json is untrusted (report_data.py reads it); every string from it goes onto the
page as text (the template escapes it), cut to a length. The history comes in as plain
points, so this module does not depend on how the history is stored."""

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from hpcprobe.report.blocks import Block, Paragraph, Section, Table
from hpcprobe.report.build import build_report
from hpcprobe.report.plots import CellMark, Curve, FigureSink, Marks
from hpcprobe.report.render import data_dir_for, render_template, write_files
from hpcprobe.results import RecordSet, read_records
from hpcprobe.sanitize import plain
from hpcprobe.screen.links import OWN_LINK
from hpcprobe.screen.report_data import (SCREEN_FORMAT, CheckCell, Screen, name, number,
                                         read_screen)
from hpcprobe.show import display_scale
from hpcprobe.units import format_number

REPORT_FILE = "report.html"
RESULTS_FILE = "results.jsonl"
SCREEN_FILE = "screen.json"
HOST_CHARS = 40
REASON_CHARS = 200
DRAIN_CHARS = 400
# A heat map row per host is readable up to about this many; beyond, the hosts not ok
# (and the ends of bad links) are drawn first, then the others in order.
MAX_DRAWN_HOSTS = 64
MAX_DRAWN_CHECKS = 24
MAX_TABLE_ROWS = 200
MAX_PAIR_MATRICES = 3
MAX_TRENDS = 24
MAX_TREND_POINTS = 2000
# The word in a marked cell; a status not listed here is not ok either (fail safe).
MARK_WORDS = {"slow": "slow", "failed": "failed", "suspect": "suspect", "unjudged": "?"}
TREND_STATUSES = ("slow", "suspect")
STATUS_ORDER = ("ok", "slow", "failed", "suspect", "unjudged")

When = Union[str, float, datetime]
# (host, check) -> (time, value) points; check as in screen.json (a "screen." prefix, the
# history's figure name, is taken off).
HistoryPoints = Mapping[Tuple[str, str], Sequence[Tuple[When, float]]]


def _host(host: str) -> str:
    return plain(host, HOST_CHARS)


def _reason(text: str) -> str:
    return plain(text, REASON_CHARS)


def _status_counts(screen: Screen) -> str:
    counts = Counter(plain(row.status, 20) for row in screen.nodes.values())
    order = [s for s in STATUS_ORDER if s in counts] + sorted(set(counts) - set(STATUS_ORDER))
    return ", ".join(f"{counts[status]} {status}" for status in order) or "none judged"


def _summary(screen: Screen) -> List[Block]:
    bad = sum(link.status == "bad" for link in screen.links)
    checks = ", ".join(plain(check, 40) for check in screen.checks[:MAX_DRAWN_CHECKS])
    elapsed = "" if screen.elapsed_s is None else f"; {screen.elapsed_s:.0f} s"
    pairs = len({key[1:] for key in screen.pairs})  # a pair measured by two checks: one
    blocks: List[Block] = [Paragraph(
        f"{len(screen.nodes)} nodes judged ({_status_counts(screen)}) on checks "
        f"{checks or 'none'}; {pairs} node pairs measured, {bad} bad "
        f"link{'s' if bad != 1 else ''}{elapsed}")]
    if screen.repeated:
        names = ", ".join(_host(host) for host in screen.repeated[:20])
        more = f" and {len(screen.repeated) - 20} more" if len(screen.repeated) > 20 else ""
        blocks.append(Paragraph(f"suspects repeated before a verdict: {names}{more}"))
    if screen.thresholds:
        blocks.append(Paragraph("thresholds: " + ", ".join(
            f"{plain(key, 30)} {value:g}" for key, value in screen.thresholds.items())))
    if screen.format != SCREEN_FORMAT:
        blocks.append(Paragraph(f"screen.json of format {plain(screen.format or 'none', 40)}; "
                                f"this hpcprobe reads {SCREEN_FORMAT}: shown as far as it "
                                "fits", "warning"))
    blocks += [Paragraph(f"screen.json: {plain(line, 200)}", "warning") for line in screen.cut]
    if screen.ignored:
        blocks.append(Paragraph(f"screen.json: {screen.ignored} malformed entr"
                                f"{'ies' if screen.ignored != 1 else 'y'} left out", "warning"))
    return blocks


def _cell_text(cell: CheckCell) -> str:
    ratio = "—" if cell.ratio is None else f"{cell.ratio:.2f}"
    return f"{cell.check}: {cell.status}, ratio {ratio}"


def _nodes_table(screen: Screen) -> Block:
    rows = []
    for row in screen.nodes.values():
        if row.status == "ok":
            continue
        cells = [cell for cell in row.checks.values() if cell.status != "ok"]
        rows.append([_host(row.host), row.status, _reason(row.reason),
                     "; ".join(_cell_text(cell) for cell in cells[:8])])
    if not rows:
        return Paragraph("every node judged is ok" if screen.nodes else
                         "no node verdicts in screen.json", "ok" if screen.nodes else "absent")
    caption = "ratio: the node's figure over its peers' median (or its own history's)"
    if len(rows) > MAX_TABLE_ROWS:
        caption += f"; the first {MAX_TABLE_ROWS} of {len(rows)} nodes not ok"
    return Table.of("Nodes not ok", ("host", "status", "reason", "checks not ok"),
                    rows[:MAX_TABLE_ROWS], caption)


def _drawn_hosts(screen: Screen, first: Sequence[str] = ()) -> List[str]:
    """The hosts a matrix draws, in screen order: all, or, beyond MAX_DRAWN_HOSTS, those
    not ok and those in `first`, then the others."""
    if len(screen.hosts) <= MAX_DRAWN_HOSTS:
        return list(screen.hosts)
    wanted = set(first)
    chosen = set([host for host in screen.hosts
                  if _not_ok(screen, host) or host in wanted][:MAX_DRAWN_HOSTS])
    for host in screen.hosts:
        if len(chosen) >= MAX_DRAWN_HOSTS:
            break
        chosen.add(host)
    return [host for host in screen.hosts if host in chosen]


def _drawn_note(drawn: Sequence[str], screen: Screen) -> str:
    if len(drawn) == len(screen.hosts):
        return ""
    return (f"; {len(drawn)} of {len(screen.hosts)} hosts drawn: those not ok first, then "
            "the others in order")


def _not_ok(screen: Screen, host: str) -> bool:
    """A host with a verdict other than ok, or without one where nodes were judged."""
    return screen.status_of(host) != "ok" and bool(screen.nodes)


def _row_label(screen: Screen, host: str) -> str:
    if not _not_ok(screen, host):
        return _host(host)
    return f"{_host(host)} · {plain(screen.status_of(host) or 'no verdict', 12)}"


def _mark(status: str, row: int, column: int) -> CellMark:
    word = MARK_WORDS.get(status, "not ok")
    gid = status if status in MARK_WORDS else "other"
    return CellMark(row, column, word, f"{gid}-{row}-{column}")


def _heat_map(screen: Screen, sink: FigureSink) -> Block:
    hosts, checks = _drawn_hosts(screen), screen.checks[:MAX_DRAWN_CHECKS]
    if not hosts or not checks:
        return Paragraph("screen: no node checks to draw", "absent")
    matrix, marks = [], []
    for i, host in enumerate(hosts):
        row = screen.nodes.get(host)
        cells = row.checks if row else {}
        matrix.append([cells[check].ratio if check in cells else None for check in checks])
        marks += [_mark(cells[check].status, i, j) for j, check in enumerate(checks)
                  if check in cells and cells[check].status != "ok"]
    more = len(screen.checks) - len(checks)
    caption = ("colour: the node's figure over the median of its peers (1: the median; "
               "for latency, above 1 is worse); boxed: the checks not ok (slow, failed, "
               "suspect, ?: unjudged); blank: not measured" + _drawn_note(hosts, screen)
               + (f"; {more} more checks not drawn" if more > 0 else ""))
    return sink.grid("Screen: each node's checks against its peers", matrix,
                     [_row_label(screen, host) for host in hosts],
                     [plain(check, 30) for check in checks], "ratio to the peers' median",
                     marks, centre=1.0, axis_labels=("check", "host"), caption=caption)


def _links_table(screen: Screen) -> Block:
    bad = [link for link in screen.links if link.status == "bad"]
    if not bad:
        judged = len(screen.links)
        return Paragraph(f"no bad link among {judged} judged" if judged else
                         "no link verdicts in screen.json", "ok" if judged else "absent")
    rows = []
    for link in bad[:MAX_TABLE_ROWS]:
        divisor, unit = display_scale(screen.pair_units.get(link.check, ""), link.value)
        value = "—" if link.value is None else f"{format_number(link.value, divisor)} {unit}"
        ratio = "—" if link.ratio is None else f"{link.ratio:.2f}"
        other = "its own link" if link.b == OWN_LINK else _host(link.b)
        rows.append([_host(link.a), other, plain(link.check, 30), value, ratio,
                     _reason(link.reason)])
    more = f"; the first {MAX_TABLE_ROWS} of {len(bad)}" if len(bad) > MAX_TABLE_ROWS else ""
    return Table.of("Bad links", ("a", "b", "check", "figure", "ratio to the median",
                                  "reason"), rows,
                    "bad: worse than the median of all pairs while both ends are fine on "
                    "their other links; a node's own link: every pair of it worse while the "
                    f"node is fine{more}")


def _bad_pairs(screen: Screen, check: str) -> List[Tuple[str, str]]:
    """The bad links of `check` as node pairs; a node's own link is each measured pair
    of it."""
    bad: List[Tuple[str, str]] = []
    for link in screen.links:
        if link.check != check or link.status != "bad":
            continue
        if link.b != OWN_LINK:
            bad.append((link.a, link.b))
            continue
        bad += [(a, b) for (kind, a, b) in screen.pairs
                if kind == check and link.a in (a, b)]
    return list(dict.fromkeys(bad))


def _pair_matrix(screen: Screen, check: str, sink: FigureSink) -> Block:
    bad = _bad_pairs(screen, check)
    hosts = _drawn_hosts(screen, [host for pair in bad for host in pair])
    if len(hosts) < 2:
        return Paragraph(f"{plain(check, 30)}: fewer than two hosts to draw", "absent")
    values = [v for key, found in screen.pairs.items() if key[0] == check for v in found]
    divisor, unit = display_scale(screen.pair_units.get(check, ""),
                                  sorted(values)[len(values) // 2] if values else None)
    matrix = [[None if a == b or screen.pair_value(check, a, b) is None
               else screen.pair_value(check, a, b) / divisor for b in hosts] for a in hosts]
    index = {host: position for position, host in enumerate(hosts)}
    marks = []
    for count, (a, b) in enumerate(bad):
        if a in index and b in index:
            marks += [CellMark(index[a], index[b], "bad", f"bad-link-{count}"),
                      CellMark(index[b], index[a], "bad", f"bad-link-{count}-mirror")]
    caption = (f"{plain(check, 30)} of each node pair (the median of its measurements, "
               "either direction); boxed: the bad links; blank: not measured"
               + _drawn_note(hosts, screen))
    return sink.grid(f"Screen: node pairs, {plain(check, 30)}", matrix,
                     [_host(host) for host in hosts], [_host(host) for host in hosts],
                     plain(unit or "value", 20), marks, axis_labels=("host", "host"),
                     caption=caption)


def _drain_blocks(screen: Screen) -> List[Block]:
    if not screen.drain:
        return []
    lines = screen.drain[:MAX_TABLE_ROWS]
    blocks: List[Block] = [Paragraph(f"Drain ({len(screen.drain)} lines, printed by the "
                                     "screen, never run):")]
    blocks += [Paragraph(plain(line, DRAIN_CHARS)) for line in lines]
    if len(screen.drain) > len(lines):
        blocks.append(Paragraph(f"{len(screen.drain) - len(lines)} more drain lines not shown"))
    return blocks


def _when(value: Any) -> Optional[datetime]:
    """A point's time: a datetime, an ISO 8601 string or POSIX seconds; naive: UTC."""
    try:
        if isinstance(value, datetime):
            when = value
        elif isinstance(value, str) and len(value) <= 64:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif number(value) is not None:
            when = datetime.fromtimestamp(number(value), timezone.utc)  # type: ignore[arg-type]
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _series(history: Any, wanted: AbstractSet[Tuple[str, str]]) -> Dict[Tuple[str, str], List[
        Tuple[datetime, float]]]:
    """The points of the wanted (host, check) series, oldest first; malformed keys and
    points are left out."""
    found: Dict[Tuple[str, str], List[Tuple[datetime, float]]] = {}
    if not isinstance(history, Mapping):
        return found
    for key, points in history.items():
        if not (isinstance(key, tuple) and len(key) == 2 and name(key[0]) and name(key[1])):
            continue
        host, check = key[0], key[1][len("screen."):] if key[1].startswith("screen.") else key[1]
        if (host, check) not in wanted or not isinstance(points, (list, tuple)):
            continue
        for point in list(points)[-MAX_TREND_POINTS:]:
            if isinstance(point, (list, tuple)) and len(point) == 2:
                when, value = _when(point[0]), number(point[1])
                if when is not None and value is not None:
                    found.setdefault((host, check), []).append((when, value))
    return {key: sorted(points, key=lambda p: p[0])[-MAX_TREND_POINTS:]
            for key, points in found.items()}


def _trend(host: str, cell: CheckCell, points: List[Tuple[datetime, float]],
           sink: FigureSink) -> Block:
    what = f"{_host(host)}, {plain(cell.check, 30)}"
    if not points:
        return Paragraph(f"{what}: no history (a first screen, or the history off)", "absent")
    last = points[-1][0]
    days = [(when - last).total_seconds() / 86400 for when, _ in points]
    typical = sorted(value for _, value in points)[len(points) // 2]
    divisor, unit = display_scale(cell.unit, typical)
    curves = [Curve("history", days, [value / divisor for _, value in points])]
    if cell.value is not None:
        curves.append(Curve("this screen", [0.0], [cell.value / divisor], line=""))
    marks = Marks()
    if cell.median is not None:
        marks.segments.append((min(days[0], -1.0), 0.0, cell.median / divisor,
                               "peers' median now"))
    caption = (f"{len(points)} runs, {points[0][0].isoformat(timespec='minutes')} to "
               f"{last.isoformat(timespec='minutes')}; status now: {plain(cell.status, 12)}, "
               f"{_reason(cell.reason) or 'no reason given'}")
    return sink.line(f"History: {what}", "days before the latest run",
                     plain(unit or "value", 20), curves, marks=marks, caption=caption)


def _trends(screen: Screen, history: Any, sink: FigureSink) -> List[Block]:
    wanted = [(row.host, cell.check) for row in screen.nodes.values()
              if row.status in TREND_STATUSES for cell in row.checks.values()
              if cell.status in TREND_STATUSES]
    if not wanted:
        return []
    series = _series(history, set(wanted))
    blocks: List[Block] = [_trend(host, screen.nodes[host].checks[check],
                                           series.get((host, check), []), sink)
                           for host, check in wanted[:MAX_TRENDS]]
    if len(wanted) > MAX_TRENDS:
        blocks.append(Paragraph(f"{len(wanted) - MAX_TRENDS} more slow checks: their "
                                "history not drawn (`hpcprobe history --host H`)"))
    return blocks


def screen_section(data: Any, history: Optional[HistoryPoints],
                   sink: FigureSink) -> Section:
    """The screen's section from a parsed screen.json and the slow nodes' history."""
    screen = read_screen(data)
    section = Section("screen", "Screen: slow nodes and bad links",
                      record_count=len(screen.nodes))
    section.add(*_summary(screen), _nodes_table(screen), _heat_map(screen, sink))
    section.add(_links_table(screen))
    section.add(*(_pair_matrix(screen, check, sink)
                  for check in screen.pair_checks()[:MAX_PAIR_MATRICES]))
    section.add(*_drain_blocks(screen), *_trends(screen, history or {}, sink))
    return section


def _screen_records(out_dir: Path) -> Tuple[RecordSet, List[str]]:
    """The screen's own records (results.jsonl beside screen.json), when there."""
    path = out_dir / RESULTS_FILE
    if not path.is_file():
        return RecordSet(), []
    try:
        return read_records(path), [str(path)]
    except OSError as error:
        found = RecordSet()
        found.add_problem(plain(f"{path}: cannot read: {error.strerror or error}", 300))
        return found, [str(path)]


def write_screen_report(out_dir: Union[str, Path], screen_json: Any,
                        history_points: Optional[HistoryPoints],
                        records: Optional[RecordSet] = None) -> Path:
    """report.html in out_dir: the screen's section first, then the families' sections
    of `records` (default: out_dir/results.jsonl when there). Returns its path;
    HpcprobeError (exit status 4) when a file cannot be written."""
    import hpcprobe.families  # noqa: F401  (registers the families' sections: lazily, as
    # in study/command.py, since reading a screen.json needs none of them)

    out_dir = Path(out_dir)
    html_path = out_dir / REPORT_FILE
    found, inputs = (records, []) if records is not None else _screen_records(out_dir)
    page, sink = build_report(found, [str(out_dir / SCREEN_FILE)] + inputs,
                              data_dir_for(html_path).name, title="hpcprobe screen")
    page.absent = []  # the families a screen does not run are no news
    page.sections.insert(0, screen_section(screen_json, history_points, sink))
    write_files(html_path, render_template("report.html.j2", page=page), sink.files)
    return html_path
