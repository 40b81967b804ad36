"""Running a study: its points in order, each launch on its own rank count, within the
study's time budget (a point the plan predicts will not fit, or that the budget has no
time left for, is left out and named), resuming where an earlier run in the same
directory stopped.

Predictions come from the main job's cost model (suite/cost.py) at its default rates;
where the bench gives no sizes there is none, and only the time left cuts points."""

import statistics
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.errors import EXIT_OK, EXIT_VALIDATION_FAILED, HpcprobeError
from hpcprobe.launching import LaunchContext
from hpcprobe.records import section_of
from hpcprobe.results import read_records
from hpcprobe.runner import own_records
from hpcprobe.signals import StopSignal
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.study.state import (DONE, FAILED, LEFT_OUT, NOT_RUN, STOPPED, PointState,
                                  StudyState, records_by_launch)
from hpcprobe.suite.cost import Rates, option_text, predict
from hpcprobe.suite.node_sizes import NodeSizes, query_sizes
from hpcprobe.suite.planning import DEFAULT_MEMORY_CAP
from hpcprobe.suite.step import SuiteStep

# With less than this left of the budget (seconds), no launch starts: MPI alone takes it.
MIN_LAUNCH_S = 1.0


@dataclass
class PlannedPoint:
    point: Point
    predicted_s: Optional[float]


def _sizes(ranks: int, cache: Dict[int, Optional[NodeSizes]]) -> Optional[NodeSizes]:
    if ranks not in cache:
        try:
            cache[ranks] = query_sizes(ranks, DEFAULT_MEMORY_CAP)
        except HpcprobeError:
            cache[ranks] = None  # a bench that gives no sizes: no predictions
    return cache[ranks]


def predict_point(point: Point, cache: Dict[int, Optional[NodeSizes]],
                  default_ranks: int, cores: Optional[int] = None) -> Optional[float]:
    """The cost model's seconds for the point's launches, None where it has no sizes.
    Threads beyond the `cores` the ranks share take turns on them: a launch's time is
    stretched by ranks x threads a rank / cores (the model assumes a core per thread)."""
    total = 0.0
    for step in point.steps:
        ranks = step.ranks or default_ranks
        sizes = _sizes(ranks, cache)
        if sizes is None:
            return None
        shared = max(1.0, ranks * threads_of(step) / cores) if cores else 1.0
        total += predict(step, sizes, ranks, Rates()).seconds * shared
    return total


def threads_of(step: SuiteStep) -> int:
    """The threads each rank of the launch runs (its threads option, as the bench names
    it; 1 without, or for a family that has none)."""
    text = option_text(step, "threads")
    return max(1, int(text)) if text is not None and text.isdigit() else 1


def plan_points(study: Study, context: StudyContext,
                default_ranks: int) -> List[PlannedPoint]:
    """The study's points with their predictions. On an emulated cluster every host runs
    on this machine: its ranks share the CPUs the cluster's hosts get of it."""
    points = study.points(context)
    keys = [point.name for point in points]
    if len(set(keys)) != len(keys):
        raise HpcprobeError(f"study {study.name} declares two points with one key: {keys}")
    cache: Dict[int, Optional[NodeSizes]] = {}
    cores = context.cluster_cpus if context.cluster else context.cores
    return [PlannedPoint(point, predict_point(point, cache, default_ranks, cores))
            for point in points]


def budget_cut(planned: Sequence[PlannedPoint], budget_s: float,
               done: Sequence[str] = ()) -> Dict[str, str]:
    """Points (by key) the plan leaves out, each with why: walking in order, a point whose
    prediction does not fit in what the points before it left of the budget. Points done
    in an earlier run cost nothing."""
    left_out, used = {}, 0.0
    for entry in planned:
        key = entry.point.name
        if key in done or entry.predicted_s is None:
            continue
        if used + entry.predicted_s > budget_s:
            left_out[key] = (f"predicted {entry.predicted_s:.0f} s, "
                             f"{max(0.0, budget_s - used):.0f} s of the {budget_s:.0f} s "
                             "budget left")
            continue
        used += entry.predicted_s
    return left_out


def all_ranks(planned: Sequence[PlannedPoint], default: int) -> List[int]:
    return sorted({step.ranks or default for entry in planned for step in entry.point.steps})


class StudyRun:
    """One run of a study in its directory, resuming the earlier one there."""

    def __init__(self, study: Study, planned: List[PlannedPoint], launch: LaunchContext,
                 state: StudyState, place: Callable[[SuiteStep, object], object]) -> None:
        self.study, self.planned, self.launch_context = study, planned, launch
        self.state, self.place = state, place
        self.records: Dict[str, List[dict]] = {}
        self.started = time.monotonic()
        self.current: Optional[Tuple[PointState, object]] = None
        # Measured over predicted time of each point run so far: later predictions follow.
        self.ratios: List[float] = []
        self._sync_state()

    def _sync_state(self) -> None:
        """The state's points in the plan's order; done points keep their launches."""
        earlier = {point.key: point for point in self.state.points}
        self.state.points = []
        for entry in self.planned:
            kept = earlier.get(entry.point.name)
            fresh = PointState(entry.point.name, _json_value(entry.point.value),
                               predicted_s=_rounded(entry.predicted_s))
            if kept is not None and kept.status == DONE:
                fresh.status, fresh.launch_ids = DONE, kept.launch_ids
                fresh.elapsed_s, fresh.why = kept.elapsed_s, "measured by an earlier run"
            self.state.points.append(fresh)
        path = self.launch_context.results_path
        if any(point.status == DONE for point in self.state.points) and path.is_file():
            self.records = records_by_launch(read_records(path).records)

    def left_s(self) -> float:
        return self.state.budget_s - (time.monotonic() - self.started)

    def run_all(self) -> None:
        # What --plan foresees from the model alone is not a verdict here: the model is
        # often far off on a shared node, so each point is judged as it comes, by what
        # the points before it took (_too_long).
        total = sum(len(entry.point.steps) for entry in self.planned)
        number = 0
        for entry, point_state in zip(self.planned, self.state.points):
            if point_state.status == DONE:
                number += len(entry.point.steps)
                continue
            too_long = self._too_long(entry)
            if too_long:
                point_state.status, point_state.why = LEFT_OUT, too_long
            else:
                self._run_point(entry, point_state, number, total)
                if point_state.status == DONE and entry.predicted_s:
                    self.ratios.append(point_state.elapsed_s / entry.predicted_s)
            number += len(entry.point.steps)
            self.state.write(self.launch_context.out_dir)

    def _too_long(self, entry: PlannedPoint) -> str:
        """Why the point cannot fit in what is left of the budget ("" if it can): its
        prediction scaled by how the points run so far compared with theirs, the last
        one's ratio where it is higher than their median (a shared node's ratio grows
        with the ranks: garg-table4 on 4 emulated hosts went 0.26x, 1.8x, then overran)."""
        if entry.predicted_s is None:
            return ""
        budget = self.state.budget_s
        if not self.ratios and entry.predicted_s > budget:  # nothing yet to say otherwise
            return (f"predicted {entry.predicted_s:.0f} s, more than the whole "
                    f"{budget:.3g} s budget")
        median = last = 1.0
        if self.ratios:
            median, last = statistics.median(self.ratios), self.ratios[-1]
        scale = max(median, last)
        predicted, left = entry.predicted_s * scale, self.left_s()
        if predicted <= left:
            return ""
        basis = (f" (the model x {scale:.2g}: the points so far took {median:.2g}x their "
                 f"predictions, the last {last:.2g}x)") if self.ratios else ""
        return (f"predicted {predicted:.0f} s{basis}, {max(left, 0):.0f} s of the "
                f"{self.state.budget_s:.0f} s budget left")

    def _run_point(self, entry: PlannedPoint, point_state: PointState, number: int,
                   total: int) -> None:
        started, statuses = time.monotonic(), []
        for offset, step in enumerate(entry.point.steps, 1):
            left = self.left_s()
            if left < MIN_LAUNCH_S:
                point_state.status = LEFT_OUT
                point_state.why = f"the {self.state.budget_s:.0f} s budget was spent"
                return
            statuses.append(self._run_step(step, point_state, number + offset, total,
                                           min(step.time_budget_s, left), entry.point.races))
        point_state.elapsed_s = round(time.monotonic() - started, 3)
        failed = [status for status in statuses if status != EXIT_OK]
        point_state.status = FAILED if failed else DONE
        if failed:
            point_state.why = f"{len(failed)} of {len(statuses)} launches failed"

    def _run_step(self, step: SuiteStep, point_state: PointState, number: int, total: int,
                  budget_s: float, races: bool = False) -> int:
        context = self.launch_context
        launch = context.launch(step.benchmark, step.variant, step.options([]), budget_s,
                                np=step.ranks)
        launch = self.place(step, launch)
        point_state.launch_ids.append(launch.launch_id)
        self.current = (point_state, launch)
        label = f"{self.study.name} {point_state.key}: {step.name} on {launch.np}"
        outcome = context.run(launch, number, total, label=label, key=step.name)
        self.current = None
        self.records.setdefault(launch.launch_id, []).extend(outcome.found.records)
        if races and outcome.exit_status == EXIT_VALIDATION_FAILED and any(
                section_of(record, "validation").get("verdict") == "failed"
                for record in outcome.found.records):
            return EXIT_OK  # the check ran and counted the races it measures, over 1 %
        return outcome.exit_status

    def stopped(self, stop: StopSignal) -> None:
        """Keep what the stopped launch measured; the point is 'stopped' (run again by the
        next run in this directory)."""
        if self.current is not None:
            point_state, launch = self.current
            kept = own_records(launch.results_path, 0, launch.launch_id)
            self.records.setdefault(launch.launch_id, []).extend(kept.records)
            point_state.status, point_state.why = STOPPED, f"stopped by {stop.name}"
        self.state.stopped_by = stop.name
        for point in self.state.points:
            if point.status == NOT_RUN:
                point.why = f"the study was stopped by {stop.name}"
        self.state.write(self.launch_context.out_dir)

    def measured(self) -> List[Measured]:
        """Every point with the records its launches wrote (none for points not run)."""
        result = []
        for entry, point_state in zip(self.planned, self.state.points):
            records = [record for launch_id in point_state.launch_ids
                       for record in self.records.get(launch_id, [])]
            result.append(Measured(entry.point, tuple(records)))
        return result


def _rounded(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(value, 3)


def _json_value(value: object) -> object:
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)
