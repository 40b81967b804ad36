"""Every family's studies, by name, and the papers' items they reproduce."""

from typing import Dict, List, Optional

from hpcprobe.errors import UsageError
from hpcprobe.families import FAMILIES
from hpcprobe.study.declare import Study
from hpcprobe.study.papers import Item, item_of


def all_studies() -> List[Study]:
    """The families' studies, ordered by paper and name."""
    found = [study for family in FAMILIES for study in family.studies]
    return sorted(found, key=lambda study: (study.paper, _natural(study.name)))


def _natural(name: str):
    """plimpton-table2 before plimpton-table10."""
    head = name.rstrip("0123456789abcdefghijklmnopqrstuvwxyz")
    digits = "".join(ch for ch in name[len(head):] if ch.isdigit())
    return (head, name[:len(name) - len(name.lstrip())], int(digits) if digits else 0, name)


def studies_by_name() -> Dict[str, Study]:
    return {study.name: study for study in all_studies()}


def find_study(name: str) -> Study:
    """The study `name`, or one line naming what exists (and the nearest name)."""
    import difflib
    found = studies_by_name()
    if name in found:
        return found[name]
    close = difflib.get_close_matches(name, list(found), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise UsageError(f"no study named '{name}' (`hpcprobe study list` names "
                     f"{len(found)}){hint}")


def item_for(study: Study) -> Item:
    return item_of(study.paper, study.item)


def study_for_item(item: Item) -> Optional[Study]:
    return studies_by_name().get(item.study) if item.study else None
