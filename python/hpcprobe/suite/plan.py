"""`hpcprobe run --plan [--json] [--node SPEC]`: each step of a suite with its sizes, the
memory it takes per node, its ranks and its predicted time, and the totals, without
launching anything; and the same plan beside what each step took once it has run
(docs/main-job.md#the-plan)."""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.suite.cost import Prediction, Rates, option_text, predict
from hpcprobe.suite.node_sizes import NodeSizes, given_value
from hpcprobe.suite.step import SuiteStep
from hpcprobe.units import binary_size


@dataclass(frozen=True)
class PlannedStep:
    """One launch of the plan."""

    name: str
    ranks: int
    sizes: Dict[str, str]        # bench option -> value, as the launch will get them
    size_rule: str
    memory_bytes_per_node: Optional[float]
    prediction: Prediction

    def as_json(self) -> Dict[str, Any]:
        return {"name": self.name, "ranks": self.ranks, "sizes": self.sizes,
                "size_rule": self.size_rule,
                "memory_bytes_per_node": self.memory_bytes_per_node,
                "predicted_s": round(self.prediction.seconds, 3),
                "predicted_launch_s": round(self.prediction.launch_s, 3),
                "basis": self.prediction.basis}


def _ranks_on_node(step: SuiteStep, ranks: int, sizes: NodeSizes) -> int:
    """Ranks of the step that allocate on one node: one for a single-rank variant, else
    its share of the ranks per node."""
    if step.variant == "single" or option_text(step, "copies") == "one":
        return 1
    per_node = int(sizes.node.get("ranks_per_node") or ranks)
    return max(1, min(ranks, per_node))


def _size_of(step: SuiteStep, sizes: NodeSizes, ranks: int):
    """(options shown, rule, memory per node) of a step the sizing layer sizes."""
    entry = sizes.entry(step.benchmark, step.variant)
    if entry is None:
        return {}, "not sized from memory (fixed message sizes or counts)", None
    given = given_value(entry, step.bench_options)
    by_rule = option_text(step, "size_rule")
    if given is None and step.benchmark in ("ra", "fft") and by_rule != "caches":
        return {}, "as HPCC, from --memory-fraction", None
    value = entry.value if given is None else given
    shown = binary_size(value) if entry.scale == "linear" else f"{value:g}"
    rule = "given by the suite" if given is not None else entry.rule
    per_node = entry.bytes_per_rank(value) * _ranks_on_node(step, ranks, sizes)
    return {entry.option: shown}, rule, per_node


def plan_steps(steps: Sequence[SuiteStep], ranks: int, sizes: NodeSizes,
               rates: Rates) -> List[PlannedStep]:
    """The plan of `steps` on `ranks` ranks (a step's own count where it has one)."""
    planned = []
    for step in steps:
        step_ranks = step.ranks or ranks
        shown, rule, memory = _size_of(step, sizes, step_ranks)
        planned.append(PlannedStep(step.name, step_ranks, shown, rule, memory,
                                   predict(step, sizes, step_ranks, rates)))
    return planned


def _node_words(node: Dict[str, Any]) -> str:
    caches = ", ".join(f"L{c.get('level')} {binary_size(c.get('bytes'))}"
                       + (f"/{c.get('shared_by')} cores" if (c.get("shared_by") or 1) > 1
                          else "")
                       for c in node.get("caches") or [])
    return (f"{node.get('cores')} cores, {node.get('numa_domains') or '?'} NUMA domain(s), "
            f"{caches or 'no cache sizes'}, {binary_size(node.get('memory_bytes'))} "
            f"({binary_size(node.get('memory_available_bytes'))} available)")


def plan_json(suite: str, planned: Sequence[PlannedStep], sizes: NodeSizes, rates: Rates,
              budget_s: Optional[float]) -> Dict[str, Any]:
    memory = [step.memory_bytes_per_node for step in planned
              if step.memory_bytes_per_node is not None]
    return {"suite": suite, "node": sizes.node, "memory_cap": sizes.memory_cap,
            "memory_cap_bytes_per_node": sizes.cap_bytes_per_node,
            "budget_s": budget_s, "steps": [step.as_json() for step in planned],
            "total_predicted_s": round(sum(s.prediction.seconds for s in planned), 3),
            "max_memory_bytes_per_node": max(memory) if memory else None,
            "rates": {key: {"value": value, "source": rates.source(key)}
                      for key, value in rates.values.items()}}


def plan_rows(planned: Sequence[PlannedStep]) -> List[List[str]]:
    rows = []
    for number, step in enumerate(planned, 1):
        size = " ".join(f"{option} {value}" for option, value in step.sizes.items())
        memory = ("-" if step.memory_bytes_per_node is None
                  else binary_size(step.memory_bytes_per_node))
        rows.append([str(number), step.name, str(step.ranks), size or "-", memory,
                     f"{step.prediction.seconds:.1f} s", step.size_rule])
    return rows


def plan_title(suite: str, ranks: int, sizes: NodeSizes, budget_s: Optional[float]) -> str:
    budget = f", budget {budget_s:g} s" if budget_s else ""
    return (f"hpcprobe run --suite {suite} --plan: {ranks} ranks on "
            f"{sizes.node.get('nodes') or 1} node(s) of {_node_words(sizes.node)}; memory cap "
            f"{sizes.memory_cap:g} of the available memory = "
            f"{binary_size(sizes.cap_bytes_per_node)} per node{budget}")


def plan_caption(planned: Sequence[PlannedStep], sizes: NodeSizes, rates: Rates,
                 budget_s: Optional[float]) -> str:
    total = sum(step.prediction.seconds for step in planned)
    sized = [s.memory_bytes_per_node for s in planned if s.memory_bytes_per_node is not None]
    learned = sorted({rates.source(key) for key in rates.values} - {"default"})
    verdicts = [f"predicted total {total:.0f} s"
                + (f" ({'within' if total <= budget_s else 'OVER'} the budget of "
                   f"{budget_s:g} s)" if budget_s else "")]
    if sized:
        verdicts.append(f"most memory per node {binary_size(max(sized))} ("
                        f"{'within' if max(sized) <= sizes.cap_bytes_per_node else 'OVER'} "
                        "the cap)")
    else:
        verdicts.append("no step sized from memory")
    source = ("rates from " + "; ".join(learned) + ", the rest default" if learned else
              "default rates (nothing measured on this machine yet)")
    return "; ".join(verdicts) + f"; {source}"
