"""The studies against the papers' data files: every table and figure of the five papers
is an item (none silently dropped), every item a study reproduces has its study and every
study its item, and each study's rows keep to its item's columns and axis."""

import json
import re
from pathlib import Path

import pytest

from hpcprobe.study.declare import Measured, StudyContext
from hpcprobe.study.papers import PAPER_NUMBERS, paper, papers
from hpcprobe.study.registry import all_studies, item_for

ITEMS = json.loads((Path(__file__).parent / "paper_items.json").read_text())
STUDIES = all_studies()


def _leading_number(text: str) -> int:
    found = re.match(r"\d+", text)
    assert found, f"an item number must start with the paper's number, not '{text}'"
    return int(found.group())


def test_every_paper_has_its_data_file():
    assert [found.number for found in papers()] == list(PAPER_NUMBERS)


@pytest.mark.parametrize("number", PAPER_NUMBERS)
def test_every_table_and_figure_of_the_paper_is_an_item(number):
    items = paper(number).items
    for kind in ("table", "figure"):
        numbered = sorted({_leading_number(item.number) for item in items if item.kind == kind})
        assert numbered == ITEMS[number][kind], f"paper {number}'s {kind}s"


def test_every_item_a_study_reproduces_is_declared_and_every_study_has_its_item():
    declared = {study.name: study for study in STUDIES}
    assert len(declared) == len(STUDIES), "two studies share a name"
    named = {item.study: item for found in papers() for item in found.items if item.study}
    assert sorted(named) == sorted(declared)
    for name, study in declared.items():
        assert (study.paper, study.item) == (named[name].paper, named[name].id)
        assert name.startswith(paper(study.paper).prefix + "-")


@pytest.mark.parametrize("study", STUDIES, ids=[study.name for study in STUDIES])
def test_the_rows_keep_to_the_items_columns_and_axis(study):
    item = item_for(study)
    keys = {column.key for column in item.columns}
    for scale in ("tiny", "default"):
        points = study.points(StudyContext(scale, cores=2))
        assert points, f"{study.name} has no points at {scale}"
        rows = study.rows([Measured(point, ()) for point in points])
        for row in rows:
            assert set(row) <= keys, f"{study.name}: {sorted(set(row) - keys)} not columns"
            assert item.axis in row
        # With no records, nothing is measured: only the axis (and the paper's own
        # constants a model column may hold) can have a value.
        measured = [column.key for column in item.columns if column.source == "measured"]
        assert all(row.get(key) is None for row in rows for key in measured)
    if study.notes:
        study.notes([Measured(point, ()) for point in study.points(StudyContext("tiny"))])


@pytest.mark.parametrize("study", STUDIES, ids=[study.name for study in STUDIES])
def test_tiny_is_small(study):
    """`make test` runs every study at --scale tiny: a few launches on 1-2 ranks."""
    points = study.points(StudyContext("tiny", cores=2))
    launches = [step for point in points for step in point.steps]
    assert len(launches) <= 6 and all((step.ranks or 1) <= 4 for step in launches)
