"""The screen's plan and time model: which launches, and how long for how many nodes.

Battery: one launch per check over every node at once, so its time is constant in the
nodes (each rank works on its own data) but for starting the launch, taken as
LAUNCH_START_S + LAUNCH_PER_NODE_S per node (the launcher's fan-out).
Pairs: one rank per node; a round of the tournament puts every node in one pair and
costs the same whatever the nodes (its pairs run at once), and covering every node pair
takes nodes - 1 rounds (nodes for an odd count): linear in the nodes. Each pair check
gets its share of what the battery leaves of the budget as --matrix-time, so past a few
hundred nodes the pairs are a sample of the rounds (every node in one pair per round
measured) and the screen's time stops growing but for the launches' start."""

from dataclasses import dataclass
from typing import Dict, List, Sequence

from hpcprobe.screen.checks import battery_check
from hpcprobe.screen.pairs import pair_check

DEFAULT_BUDGET_S = 300.0
LAUNCH_START_S = 2.0
LAUNCH_PER_NODE_S = 0.001
# The least matrix time a pair check gets: three rounds (every node in three pairs).
MIN_ROUNDS = 3
# Calibration of the first pairs, collectives around the rounds, writing the record.
PAIRS_OVERHEAD_S = 1.0


@dataclass(frozen=True)
class PlannedLaunch:
    check: str
    ranks: int
    ppn: int
    predicted_s: float
    matrix_time_s: float = 0.0  # pair checks only
    rounds: int = 0             # pair checks: rounds predicted to be measured
    rounds_total: int = 0


def launch_start_s(nodes: int) -> float:
    return LAUNCH_START_S + LAUNCH_PER_NODE_S * nodes


def pair_rounds(nodes: int) -> int:
    """The tournament's rounds for one rank per node: every node pair once."""
    return 0 if nodes < 2 else nodes - 1 if nodes % 2 == 0 else nodes


def plan(nodes: int, cores: int, checks: Sequence[str],
         budget_s: float = DEFAULT_BUDGET_S) -> List[PlannedLaunch]:
    """The launches of a screen of `nodes` nodes of `cores` cores each, in order."""
    launches: List[PlannedLaunch] = []
    for name in checks:
        check = battery_check(name)
        if check is not None and check.missing is None:
            launches.append(PlannedLaunch(name, nodes * cores, cores,
                                          check.predicted_s + launch_start_s(nodes)))
    pair_names = [name for name in checks if pair_check(name) is not None]
    if nodes < 2 or not pair_names:
        return launches
    spent = sum(launch.predicted_s for launch in launches)
    left = budget_s - spent - len(pair_names) * (launch_start_s(nodes) + PAIRS_OVERHEAD_S)
    shares = sum(pair_check(name).share for name in pair_names)
    for name in pair_names:
        check = pair_check(name)
        total = pair_rounds(nodes)
        matrix = max(MIN_ROUNDS * check.round_s, left * check.share / shares)
        rounds = min(total, max(MIN_ROUNDS, int(matrix // check.round_s)))
        launches.append(PlannedLaunch(
            name, nodes, 1, launch_start_s(nodes) + PAIRS_OVERHEAD_S + rounds * check.round_s,
            matrix, rounds, total))
    return launches


def screen_time_s(nodes: int, budget_s: float = DEFAULT_BUDGET_S,
                  checks: Sequence[str] = (), cores: int = 1) -> float:
    """The predicted time of a screen (no suspects repeated) of `nodes` nodes."""
    from hpcprobe.screen.checks import DEFAULT_CHECKS
    return sum(launch.predicted_s for launch in plan(nodes, cores, checks or DEFAULT_CHECKS,
                                                      budget_s))


def plan_rows(launches: Sequence[PlannedLaunch]) -> List[Dict[str, str]]:
    """The plan as table rows (--plan)."""
    rows = []
    for launch in launches:
        pairs = (f"{launch.rounds} of {launch.rounds_total} rounds, --matrix-time "
                 f"{launch.matrix_time_s:.1f} s" if launch.rounds_total else "")
        rows.append({"check": launch.check, "ranks": str(launch.ranks),
                     "per node": str(launch.ppn), "predicted": f"{launch.predicted_s:.1f} s",
                     "pairs": pairs})
    return rows
