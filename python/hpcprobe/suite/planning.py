"""A suite's plan before it runs: the sizing layer's sizes for the node (this machine or
`--node SPEC`), the rates and the earlier run's calibration, the main job's HPL share of
its budget, and every step's prediction (plan.py, cost.py). `hpcprobe run --plan` prints
it; `hpcprobe run` follows it and prints it beside what each step took."""

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from hpcprobe.errors import HpcprobeError
from hpcprobe.suite.cost import Rates, calibrate, predict
from hpcprobe.suite.main_job import (HPL_MAX_S, HPL_MIN_S, MEMORY_CAP, RUN_BUDGET_S,
                                     MainSizing, main_steps)
from hpcprobe.suite.manifest import DONE, RunManifest, earlier_run
from hpcprobe.suite.node_sizes import NodeSizes, query_sizes
from hpcprobe.suite.plan import (PlannedStep, plan_caption, plan_json, plan_rows, plan_steps,
                                 plan_title)
from hpcprobe.suite.step import SuiteStep

# The memory cap each suite launches under (the bench's own default for the others).
SUITE_MEMORY_CAP = {"main": MEMORY_CAP, "hpcc": 0.5}
DEFAULT_MEMORY_CAP = 0.9
# The budget a plan leaves free of predicted work: the predictions are estimates.
BUDGET_MARGIN = 0.9
RESULTS_PARENT = Path("results")


@dataclass
class SuitePlan:
    """A suite's steps with their predictions, and what they were made from."""

    suite: str
    ranks: int
    sizes: NodeSizes
    rates: Rates
    budget_s: Optional[float]
    steps: List[SuiteStep]
    planned: List[PlannedStep]
    note: Optional[str] = None  # why there is no plan (the bench gave no sizes)

    def extend(self, steps: Sequence[SuiteStep]) -> None:
        """Steps a family adds to the main job (a GPU's), planned as the others."""
        self.steps += list(steps)
        if self.note is not None:
            return
        self.planned += plan_steps([_as_planned(step, self.rates) for step in steps],
                                   self.ranks, self.sizes, self.rates)

    def predict_at_launch(self, step: SuiteStep, outcome, figures: Sequence,
                          records: Sequence) -> None:
        """The step's prediction as it launches: its options as launched, the rates this
        run has measured so far; kept in the outcome (run.json)."""
        if self.note is not None:
            return
        self.rates.learn(figures, lambda key: self.ranks, "this run")
        ranks = step.ranks or self.ranks
        launched = SuiteStep(step.benchmark, step.variant, step.options(records),
                             step.time_budget_s, step.algorithm, step.label, step.ranks)
        found = predict(launched, self.sizes, ranks, self.rates)
        outcome.predicted_s = round(found.seconds, 3)
        outcome.model_s = round(found.model_s, 6)
        outcome.ranks = ranks

    def print(self, as_json: bool, console) -> None:
        from hpcprobe.report.render import rich_table
        from hpcprobe.report.blocks import Table
        if as_json:
            console.print_json(json.dumps(plan_json(self.suite, self.planned, self.sizes,
                                                    self.rates, self.budget_s)))
            return
        table = Table(plan_title(self.suite, self.ranks, self.sizes, self.budget_s),
                      ["#", "step", "ranks", "size", "memory/node", "predicted", "size rule"],
                      plan_rows(self.planned),
                      plan_caption(self.planned, self.sizes, self.rates, self.budget_s))
        console.print(rich_table(table))


def memory_cap(suite: str) -> float:
    return SUITE_MEMORY_CAP.get(suite, DEFAULT_MEMORY_CAP)


def run_budget(args: argparse.Namespace, suite: str) -> Optional[float]:
    """--budget, else the main job's three minutes; other suites have none."""
    budget = getattr(args, "budget", None)
    return budget if budget else RUN_BUDGET_S if suite == "main" else None


def nodes_of(env=os.environ) -> Optional[int]:
    """The nodes of a Slurm allocation; None (one, or the described node's) elsewhere."""
    text = env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or ""
    return int(text) if text.isdigit() and int(text) > 0 else None


def _main(scale: str, ranks: int, sizes: NodeSizes, rates: Rates,
          budget_s: Optional[float]) -> List[SuiteStep]:
    """The main job with HPL given what the other steps leave of the budget."""
    hpl = sizes.entry("hpl", "mpi")
    sizing = MainSizing(hpl.value if hpl is not None else None,
                        dgemm_rate_hint=rates.values["dgemm"],
                        # at least 0.005: 16 ranks on 2 cores reached about 0.01
                        hpl_efficiency=min(max(rates.values["hpl_efficiency"], 0.005), 1.0))
    steps = main_steps(scale, ranks, sizing)
    others = sum(predict(step, sizes, step.ranks or ranks, rates).seconds
                 for step in steps if step.benchmark != "hpl")
    if budget_s:
        left = budget_s * BUDGET_MARGIN - others
        sizing.hpl_target_s = min(HPL_MAX_S, max(HPL_MIN_S, left))
    return steps


def _node_sizes(args: argparse.Namespace, suite: str, ranks: int):
    """(the sizing layer's sizes, None), or for a run whose bench gives none (a stand-in,
    an older build) (empty sizes, why): the run goes on, its kernels sizing themselves on
    their nodes; only the predictions and HPL's memory bound are lost, and it says so."""
    node_spec = getattr(args, "node", None)
    try:
        return query_sizes(ranks, memory_cap(suite), None if node_spec else nodes_of(),
                           node_spec), None
    except HpcprobeError as error:
        if getattr(args, "plan", False):
            raise  # the plan was what the user asked for
        return NodeSizes({}, memory_cap(suite), 0.0, {}), (
            f"no plan: {error.message} (the steps size themselves; no predictions)")


def make_plan(args: argparse.Namespace, suite: str, ranks: int,
              steps_of: Callable[[], List[SuiteStep]], manifest_dir: Optional[Path],
              identity: RunManifest, holder: Optional[Dict[str, NodeSizes]] = None,
              figures_of: Callable[[Sequence], Sequence] = lambda records: ()) -> SuitePlan:
    """The plan of `suite` on `ranks` ranks; the steps from `steps_of` except for the main
    job, whose HPL this plan sizes. `manifest_dir`: where earlier runs lie beside (their
    times calibrate the model), None for a described node (another machine)."""
    sizes, note = _node_sizes(args, suite, ranks)
    if holder is not None:  # for steps_of: a suite sized from the node's memory (hpcc)
        holder["sizes"] = sizes
    rates, budget = Rates(), run_budget(args, suite)
    if note is not None:
        steps = main_steps(args.scale, ranks) if suite == "main" else steps_of()
        return SuitePlan(suite, ranks, sizes, rates, budget, steps, [], note)
    if manifest_dir is not None and getattr(args, "node", None) is None:
        earlier = earlier_run(manifest_dir, identity)
        if earlier is not None:
            source = f"the earlier run {earlier.path.name}"
            rates.learn(figures_of(earlier.records.records), lambda key: ranks, source)
            calibrate(rates, [step for step in earlier.manifest.steps if step.status == DONE],
                      source)
    _shared_cores(rates, sizes)
    steps = (_main(args.scale, ranks, sizes, rates, budget) if suite == "main"
             else steps_of())
    planned = plan_steps([_as_planned(step, rates) for step in steps], ranks, sizes, rates)
    return SuitePlan(suite, ranks, sizes, rates, budget, steps, planned, note)


def _shared_cores(rates: Rates, sizes: NodeSizes) -> None:
    """More ranks than cores on a node share them, and HPL's ranks then wait on each
    other through the MPI's polling on those cores: before a run has shown HPL's
    efficiency there, take the default times the square of the cores' share (here 8
    ranks on 2 cores reached 0.2-0.4 of their DGEMM rate; 16 reached under 0.02, and ran
    past the launch's 600 s at 0.8 and at 0.1)."""
    per_node = int(sizes.node.get("ranks_per_node") or 1)
    if rates.source("hpl_efficiency") == "default" and per_node > sizes.cores:
        rates.values["hpl_efficiency"] *= (sizes.cores / per_node) ** 2
        rates.sources["hpl_efficiency"] = (f"default x ({sizes.cores}/{per_node})^2 "
                                           "(ranks sharing cores)")


def _as_planned(step: SuiteStep, rates: Rates) -> SuiteStep:
    """A step whose options come from records measured before it, with the options it
    gets when none are known yet (the plan's hint: HPL at the plan's DGEMM rate)."""
    if step.sized is None:
        return step
    return SuiteStep(step.benchmark, step.variant, step.options([]), step.time_budget_s,
                     step.algorithm, step.label, step.ranks)
