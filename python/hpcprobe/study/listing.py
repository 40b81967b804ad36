"""`hpcprobe study list` and `study NAME --plan` as tables."""

from typing import Dict, List, Optional, Sequence

from hpcprobe.report.blocks import Table
from hpcprobe.study.declare import Study, StudyContext
from hpcprobe.study.papers import papers
from hpcprobe.study.registry import all_studies, item_for

MAX_CAPTION_CHARS = 70


def _short(text: str) -> str:
    return text if len(text) <= MAX_CAPTION_CHARS else text[:MAX_CAPTION_CHARS - 1] + "…"


def list_tables() -> List[Table]:
    """Every study, then every table and figure of the papers that no command reproduces,
    each with why (the data files name every one; a test checks none is dropped)."""
    rows = []
    for study in all_studies():
        item = item_for(study)
        points = study.points(StudyContext("default"))
        rows.append([study.name, f"{study.paper} {item.title}", _short(item.caption),
                     item.axis, len(points), f"{study.budget_s:.0f} s",
                     "yes" if study.interconnect else ""])
    studies = Table.of("studies (hpcprobe study NAME; --plan: its launches)",
                       ["study", "paper", "what", "axis", "points", "budget", "network"],
                       rows, "papers in ../shared/papers; data files in "
                       "python/hpcprobe/study/papers (docs/studies.md)")
    missing = [[paper.number, item.title, _short(item.caption), item.why_not]
               for paper in papers() for item in paper.items if item.study is None]
    total = sum(len(paper.items) for paper in papers())
    return [studies, Table.of("not reproduced by a command", ["paper", "item", "what", "why"],
                              missing, f"{len(rows)} studies for {total - len(missing)} of "
                              f"the {total} tables and figures of the papers")]


def plan_table(study: Study, planned: Sequence, budget_s: float,
               cut: Dict[str, str]) -> Table:
    rows = []
    total = 0.0
    for entry in planned:
        key = entry.point.name
        predicted: Optional[float] = entry.predicted_s
        if key not in cut and predicted is not None:
            total += predicted
        for index, step in enumerate(entry.point.steps):
            first = index == 0
            rows.append([key if first else "", step.name, step.ranks or "",
                         " ".join(step.bench_options),
                         (f"{predicted:.1f} s" if predicted is not None else "no model")
                         if first else "",
                         (f"left out: {cut[key]}" if key in cut else "") if first else ""])
    return Table.of(f"{study.name}: plan, budget {budget_s:.0f} s",
                    ["point", "launch", "ranks", "options", "predicted", "note"], rows,
                    f"predicted total {total:.0f} s (suite/cost.py's model at its default "
                    "rates; a point left out does not fit what the points before it leave)")
