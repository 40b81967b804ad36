"""A screen's run: the battery launches, the repeats of suspects, the pair launches, the
verdicts (screen/verdicts.py), the history (hpcprobe/history, used where present) and the
output."""

import argparse
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from hpcprobe.errors import EXIT_OK, EXIT_VALIDATION_FAILED
from hpcprobe.launching import (LaunchContext, bind_ranks, new_results_dir, stderr_line,
                                stdout_console)
from hpcprobe.screen.checks import Check, battery_check, hosts_of, node_figures
from hpcprobe.screen.history_link import ScreenHistory
from hpcprobe.screen.report import write_screen_report
from hpcprobe.screen.output import (link_table, node_table, screen_data, summary_lines,
                                    write_screen)
from hpcprobe.screen.pairs import pair_check, pair_figures
from hpcprobe.screen.plan import plan
from hpcprobe.screen.links import confirm_links, judge_links
from hpcprobe.screen.verdicts import (BAD, Thresholds, confirm, drain_lines,
                                      judge_nodes)

# A launch's time limit: generous against the prediction (a slow node is what we seek).
LIMIT_FACTOR = 10.0
LIMIT_FLOOR_S = 120.0


class ScreenRun:
    """One screen: its launch contexts (battery: every core; pairs: one rank per node)."""

    def __init__(self, args: argparse.Namespace, user_argv: Sequence[str], layout,
                 checks: Sequence[str]) -> None:
        self.args, self.layout, self.checks = args, layout, list(checks)
        self.out_dir = Path(args.out) if args.out else new_results_dir()
        self.user_argv = list(user_argv)
        self.planned = plan(layout.nodes, layout.cores, checks, args.time_budget)
        self.battery = self._context(layout.nodes * layout.cores, layout.cores)
        self.pairs_context: Optional[LaunchContext] = None
        self.records: List[Mapping] = []
        self.notes: List[str] = []
        self.step = 0

    def _context(self, ranks: int, ppn: int) -> LaunchContext:
        args = self.args
        namespace = argparse.Namespace(
            np=ranks, out=str(self.out_dir), launcher=args.launcher,
            launcher_arg=list(args.launcher_arg), time_budget=None, cluster=args.cluster,
            ppn=ppn if args.cluster else None, quiet=args.quiet)
        context = LaunchContext(namespace, self.user_argv, ranks)
        context.plan([launch.check for launch in self.planned])
        return context

    def _launch(self, context: LaunchContext, benchmark: str, variant: str,
                options: Sequence[str], predicted_s: float, ppn: int, label: str):
        launch = context.launch(benchmark, variant, options,
                                max(LIMIT_FLOOR_S, LIMIT_FACTOR * predicted_s))
        if context.launcher.name == "srun":  # the allocation's nodes, ppn ranks on each
            launch.launcher_args = [f"--nodes={self.layout.nodes}",
                                    f"--ntasks-per-node={ppn}", *launch.launcher_args]
        elif not self.args.cluster and self.layout.nodes == 1 and ppn > 1:
            launch = bind_ranks(launch)
        self.step += 1
        outcome = context.run(launch, self.step, max(self.step, len(self.planned)),
                              label=f"screen {label}", key=label)
        self.records.extend(outcome.found.records)
        return outcome.found.records

    def battery_records(self, check: Check, label: str = "") -> list:
        predicted = next((p.predicted_s for p in self.planned if p.check == check.name), 10.0)
        return self._launch(self.battery, check.benchmark, check.variant, check.options(),
                            predicted, self.layout.cores, label or check.name)

    def pair_checks(self, only: Optional[Sequence[str]] = None, label: str = "") -> list:
        """Each pair check's figures, or those of `only` (one node: none, and a note)."""
        names = [launch for launch in self.planned if pair_check(launch.check)
                 and (only is None or launch.check in only)]
        if not names:
            if self.layout.nodes < 2 and any(pair_check(name) for name in self.checks):
                self.notes.append("one node: no node pairs to measure")
            return []
        if self.pairs_context is None:
            self.pairs_context = self._context(self.layout.nodes, 1)
        figures = []
        for planned in names:
            check = pair_check(planned.check)
            records = self._launch(self.pairs_context, "pairs", "bandwidth",
                                   check.options(planned.matrix_time_s), planned.predicted_s,
                                   1, f"{check.name}{label}")
            mine = [record for record in records if record.get("benchmark") == "pairs"]
            if mine:
                figures.extend(pair_figures(check, mine[-1]))
            else:
                self.notes.append(f"{check.name}: the pairs launch left no record")
        return figures


def _thresholds(args: argparse.Namespace):
    thresholds = Thresholds()
    if args.threshold_z is not None:
        thresholds = replace(thresholds, z=args.threshold_z)
    if args.threshold_ratio is not None:
        thresholds = replace(thresholds, ratio=args.threshold_ratio,
                             history_ratio=args.threshold_ratio)
    return thresholds


def _battery(run: ScreenRun) -> Tuple[List[str], list]:
    """Every battery check's node figures over every host the records name (none at all:
    the hosts known before launching), so that a host one launch left out is "failed"."""
    found = [(check, run.battery_records(check)) for check in map(battery_check, run.checks)
             if check is not None and not check.missing]
    hosts = hosts_of([record for _, records in found for record in records]) or \
        list(run.layout.hosts)
    return hosts, [figure for check, records in found
                   for figure in node_figures(check, records, hosts)]


def _repeat_suspects(run: ScreenRun, nodes: list, figures: list, history, thresholds,
                     hosts: Sequence[str]) -> Tuple[list, List[str]]:
    """Repeat each suspect's slow checks (on every node again: the launchers here cannot
    pick hosts) and keep "slow" only where the repeat is slow too."""
    repeated: List[str] = []
    for _ in range(run.args.repeat_suspects):
        suspects = [node for node in nodes if node.status == "suspect"]
        if not suspects:
            break
        slow_checks = list(dict.fromkeys(check.check for node in suspects
                                         for check in node.checks if check.status == "slow"))
        redone = [f for f in figures if f.check not in slow_checks]
        for name in slow_checks:
            check = battery_check(name)
            if check is not None:
                redone.extend(node_figures(check, run.battery_records(
                    check, f"{name} (repeat)"), hosts))
        second = {node.host: node for node in judge_nodes(redone, history, thresholds)}
        repeated.extend(node.host for node in suspects)
        nodes = [confirm(node, second.get(node.host), thresholds) for node in nodes]
    # A suspect left (--repeat-suspects 0) stays "suspect": not ok, and said so.
    return nodes, list(dict.fromkeys(repeated))


def _repeat_bad_links(run: ScreenRun, links: list, pairs: list, nodes: list,
                      thresholds) -> Tuple[list, list]:
    """Measure again each pair check that found a bad link (on every node: the launchers
    here cannot pick hosts) and keep "bad" only where the repeat finds it bad too: one
    pair's sample can fall in another job's burst on a shared machine. (links, every
    pair figure of both runs)."""
    for _ in range(run.args.repeat_suspects):
        checks = list(dict.fromkeys(link.check for link in links if link.status == BAD))
        if not checks:
            break
        again = run.pair_checks(checks, " (repeat)")
        redone = [pair for pair in pairs if pair.check not in checks] + again
        links = confirm_links(links, judge_links(redone, nodes, thresholds))
        pairs = pairs + again
    return links, pairs


def run_screen(args: argparse.Namespace, user_argv: Sequence[str], layout,
               checks: Sequence[str]) -> int:
    started, clock = datetime.now(timezone.utc), time.monotonic()
    run = ScreenRun(args, user_argv, layout, checks)
    history = ScreenHistory.open(args.history, run.notes)
    hosts, figures = _battery(run)
    baselines = history.baselines(hosts, checks)
    thresholds = _thresholds(args)
    nodes = judge_nodes(figures, baselines, thresholds)
    nodes, repeated = _repeat_suspects(run, nodes, figures, baselines, thresholds, hosts)
    pairs = run.pair_checks()
    hosts = hosts or list(dict.fromkeys(end for pair in pairs for end in (pair.a, pair.b)))
    if not hosts:
        run.notes.append("no launch left a record: no node could be judged")
    links = judge_links(pairs, nodes, thresholds) if pairs else []
    links, pairs = _repeat_bad_links(run, links, pairs, nodes, thresholds)
    drain = drain_lines(nodes)
    elapsed = time.monotonic() - clock
    data = screen_data(hosts, checks, thresholds, nodes, links, pairs, drain, elapsed,
                       repeated, run.notes)
    path = write_screen(run.out_dir, data)
    history.add(figures, started, datetime.now(timezone.utc))
    report = write_screen_report(run.out_dir, data, history.trends(_slow_checks(nodes)))
    _show(nodes, links, drain, run.notes, [c for c in checks if battery_check(c)])
    stderr_line(f"screen: {path} ({elapsed:.0f} s); report: {report}")
    judged = bool(nodes or links)
    every_ok = all(node.status == "ok" for node in nodes) and \
        not any(link.status == "bad" for link in links)
    return EXIT_OK if judged and every_ok else EXIT_VALIDATION_FAILED


def _slow_checks(nodes) -> List[Tuple[str, str]]:
    """(host, check) of every check not ok on a node not ok: the report's trends."""
    return [(node.host, check.check) for node in nodes if node.status != "ok"
            for check in node.checks if check.status != "ok"]


def _show(nodes, links, drain: Sequence[str], notes: Sequence[str],
          checks: Sequence[str]) -> None:
    console = stdout_console()
    console.print(node_table(nodes, checks))
    table = link_table(links)
    if table is not None:
        console.print(table)
    for line in drain:
        console.print(line, markup=False, highlight=False)
    for line in [*notes, *summary_lines(nodes, links)]:
        console.print(line, markup=False, highlight=False)
