"""A made-up paper and study for the engine's tests: 'paper 000' with one table whose
axis is the rank count and whose one measured column is `ra single`'s GUPS."""

import json
from pathlib import Path
from typing import Any, Dict, List, Sequence

from hpcprobe.records import number, section_of
from hpcprobe.study import papers, registry
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.suite.step import SuiteStep

ITEM = {
    "id": "table9", "kind": "table", "number": "9", "page": 3,
    "caption": "made-up: GUPS over ranks", "study": "test-table9", "why_not": "",
    "axis": "procs", "layout": "columns",
    "columns": [{"key": "procs", "label": "P", "unit": "", "source": "axis"},
                {"key": "gups", "label": "GUPS", "unit": "GUPS", "source": "measured"},
                {"key": "cpu", "label": "CPU", "unit": "s", "source": "paper"}],
    "published": [{"machine": "made-up machine, Table 9 p. 3",
                   "rows": [{"procs": 1, "gups": 0.01, "cpu": 3.5}]}],
    "figure": {"x": "procs", "y": ["gups"], "log_x": True, "log_y": False},
}
MISSING_ITEM = {"id": "fig1", "kind": "figure", "number": "1", "page": None,
                "caption": "a diagram", "study": None, "why_not": "a diagram"}


def paper_file(directory: Path, items: Sequence[Dict[str, Any]] = (ITEM, MISSING_ITEM)):
    data = {"paper": "000", "prefix": "test", "file": "000.txt", "citation": "A made-up paper",
            "items": list(items)}
    (directory / "000.json").write_text(json.dumps(data))


def _points(context: StudyContext) -> List[Point]:
    table = "12"
    return [Point(p, (SuiteStep("ra", "single", ("--table-log2", table), 60.0, ranks=p),),
                  key=f"P{p}") for p in context.rank_counts((1, 2))]


def _gups(records) -> Any:
    for record in records:
        value = number(section_of(record, "value").get("value"))
        if record.get("status") == "ok" and value is not None:
            return value / 1e9
    return None


def _rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    return [{"procs": entry.point.value, "gups": _gups(entry.records)} for entry in measured]


STUDY = Study("test-table9", "000", "table9", _points, _rows, budget_s=120.0,
              notes=lambda measured: [("points", str(len(measured)), "1")])


def install(monkeypatch, directory: Path, study: Study = STUDY) -> None:
    """The made-up paper and study in place of the real ones."""
    paper_file(directory)
    monkeypatch.setattr(papers, "PAPERS_DIR", directory)
    monkeypatch.setattr(registry, "all_studies", lambda: [study])
