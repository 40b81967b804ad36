"""The papers' data files (papers/NNN.json, format in docs/studies.md): every table and
figure of a paper, what reproduces it or why nothing can, and the paper's own rows.

The files ship with hpcprobe and a test checks each against the studies declared; still,
a malformed file stops with one line naming the file and the field, never a traceback."""

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from hpcprobe.errors import HpcprobeError

PAPERS_DIR = Path(__file__).resolve().parent / "papers"
PAPER_NUMBERS = ("000", "001", "002", "003", "004")
KINDS = ("table", "figure")
# Where a column's figures come from: the axis, what the point runs (a mapping mode's
# layout: declared, not measured), the records, a model computed from the records, or the
# paper alone (hpcprobe has nothing to set beside it; shown "n/a").
SOURCES = ("axis", "setting", "measured", "model", "paper")
LAYOUTS = ("rows", "columns")


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    unit: str
    source: str


@dataclass(frozen=True)
class Published:
    """The paper's own rows for one of its machines, keyed by column key."""

    machine: str
    rows: Tuple[Dict[str, Any], ...]


@dataclass(frozen=True)
class FigureSpec:
    x: str
    y: Tuple[str, ...]
    log_x: bool
    log_y: bool


@dataclass(frozen=True)
class Item:
    """One table or figure of a paper."""

    paper: str
    id: str
    kind: str
    number: str
    page: Optional[int]
    caption: str
    study: Optional[str]
    why_not: str
    axis: str
    layout: str
    columns: Tuple[Column, ...]
    published: Tuple[Published, ...]
    figure: Optional[FigureSpec]

    @property
    def title(self) -> str:
        return f"{self.kind.capitalize()} {self.number}"

    def column(self, key: str) -> Optional[Column]:
        return next((column for column in self.columns if column.key == key), None)


@dataclass(frozen=True)
class Paper:
    number: str
    prefix: str
    file: str
    citation: str
    items: Tuple[Item, ...]

    def item(self, item_id: str) -> Optional[Item]:
        return next((item for item in self.items if item.id == item_id), None)


def _bad(where: str, what: str) -> HpcprobeError:
    return HpcprobeError(f"{where}: {what} (docs/studies.md gives the format)")


def _text(data: Dict[str, Any], key: str, where: str, empty: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (not value and not empty):
        raise _bad(where, f"'{key}' must be a {'' if empty else 'non-empty '}string")
    return value


def _columns(data: Dict[str, Any], where: str) -> Tuple[Column, ...]:
    columns = []
    for index, raw in enumerate(data.get("columns") or []):
        at = f"{where} column {index}"
        if not isinstance(raw, dict):
            raise _bad(at, "must be an object")
        source = _text(raw, "source", at)
        if source not in SOURCES:
            raise _bad(at, f"source '{source}' is not one of {', '.join(SOURCES)}")
        columns.append(Column(_text(raw, "key", at), _text(raw, "label", at),
                              _text(raw, "unit", at, empty=True), source))
    return tuple(columns)


def _published(data: Dict[str, Any], keys: Tuple[str, ...], where: str):
    published = []
    for index, raw in enumerate(data.get("published") or []):
        at = f"{where} published {index}"
        rows = raw.get("rows") if isinstance(raw, dict) else None
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise _bad(at, "'rows' must be a list of objects")
        for row in rows:
            unknown = sorted(set(row) - set(keys))
            if unknown:
                raise _bad(at, f"row keys {unknown} are not columns of the item")
        published.append(Published(_text(raw, "machine", at), tuple(rows)))
    return tuple(published)


def _figure(data: Dict[str, Any], keys: Tuple[str, ...], where: str):
    raw = data.get("figure")
    if raw is None:
        return None
    ys = raw.get("y") if isinstance(raw, dict) else None
    if not isinstance(ys, list) or not ys or raw.get("x") not in keys \
            or any(y not in keys for y in ys):
        raise _bad(where, "'figure' needs x and a list y, all column keys")
    return FigureSpec(raw["x"], tuple(ys), bool(raw.get("log_x")), bool(raw.get("log_y")))


def _item(paper: str, data: Any, index: int, where: str) -> Item:
    at = f"{where} item {index}"
    if not isinstance(data, dict):
        raise _bad(at, "must be an object")
    kind, study = _text(data, "kind", at), data.get("study")
    if kind not in KINDS:
        raise _bad(at, f"kind '{kind}' is not one of {', '.join(KINDS)}")
    if study is not None and (not isinstance(study, str) or not study):
        raise _bad(at, "'study' must be a name or null")
    page = data.get("page")
    if page is not None and (not isinstance(page, int) or page < 1):
        raise _bad(at, "'page' must be a positive integer or null")
    columns = _columns(data, at)
    keys = tuple(column.key for column in columns)
    axis = _text(data, "axis", at, empty=study is None)
    if study is not None and (axis not in keys or not columns):
        raise _bad(at, f"a reproduced item needs columns, its axis '{axis}' among them")
    why_not = _text(data, "why_not", at, empty=study is not None)
    layout = data.get("layout", "rows")
    if layout not in LAYOUTS:
        raise _bad(at, f"layout '{layout}' is not one of {', '.join(LAYOUTS)}")
    return Item(paper, _text(data, "id", at), kind, _text(data, "number", at), page,
                _text(data, "caption", at), study, why_not, axis, layout, columns,
                _published(data, keys, at), _figure(data, keys, at))


@lru_cache(maxsize=None)
def _load(number: str, directory: Path) -> Paper:
    path = directory / f"{number}.json"
    where = f"paper data file {path.name}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise _bad(where, f"cannot be read as JSON ({error})") from None
    if not isinstance(data, dict) or data.get("paper") != number:
        raise _bad(where, f"must be an object whose 'paper' is \"{number}\"")
    raw_items = data.get("items")
    if not isinstance(raw_items, list):
        raise _bad(where, "'items' must be a list")
    items = tuple(_item(number, raw, index, where) for index, raw in enumerate(raw_items))
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise _bad(where, "item ids must be unique")
    return Paper(number, _text(data, "prefix", where), _text(data, "file", where),
                 _text(data, "citation", where), items)


def paper(number: str) -> Paper:
    """The paper's data file, read once from PAPERS_DIR as it is now."""
    return _load(number, PAPERS_DIR)


def papers() -> List[Paper]:
    """The papers whose data file exists, in order."""
    return [paper(number) for number in PAPER_NUMBERS
            if (PAPERS_DIR / f"{number}.json").is_file()]


def item_of(number: str, item_id: str) -> Item:
    found = paper(number).item(item_id)
    if found is None:
        raise _bad(f"paper data file {number}.json", f"has no item '{item_id}'")
    return found
