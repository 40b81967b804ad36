"""The direction of imports (docs/adding-a-kernel.md, "Adding a family"): shared layers
never import a family (they reach families through the registry, families/__init__.py
and families/base.py), and no family imports another."""

import ast
import sys
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

PACKAGE = Path(__file__).resolve().parents[1] / "hpcprobe"
REGISTRY = {"hpcprobe.families", "hpcprobe.families.base"}
# Family -> family edges still open: none (an entry here is one a change must close).
OPEN_EDGES: set = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def family_of(module: str) -> Optional[str]:
    """The family a module belongs to, None for the shared layers and the registry."""
    parts = module.split(".")
    if parts[:2] != ["hpcprobe", "families"] or len(parts) < 3:
        return None
    return parts[2] if (PACKAGE / "families" / parts[2]).is_dir() else None


def imported(path: Path, module: str) -> Iterator[Tuple[int, str]]:
    """(line, module) of every import in the file, also of names from a package (which
    may be modules) and of relative and function-local imports."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            yield node.lineno, base
            yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)


def wrong_imports() -> List[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        if module in REGISTRY:
            continue
        source = family_of(module)
        for line, family in sorted({(line, family_of(target))
                                    for line, target in imported(path, module)
                                    if family_of(target) not in (None, source)}):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}: families.{family}"
            if source is None:
                found.append(f"shared module imports a family: {where}")
            elif (source, family) not in OPEN_EDGES:
                found.append(f"family {source} imports family {family}: {where}")
    return found


def test_no_shared_module_or_other_family_imports_a_family():
    assert wrong_imports() == []


def test_the_open_edges_are_still_there():
    """When one is closed, take it out of OPEN_EDGES so that it stays closed."""
    edges = set()
    for path in PACKAGE.joinpath("families").rglob("*.py"):
        module = module_name(path)
        for _, target in imported(path, module):
            if family_of(module) and family_of(target) not in (None, family_of(module)):
                edges.add((family_of(module), family_of(target)))
    assert edges == OPEN_EDGES


def test_the_check_sees_a_wrong_import(tmp_path, monkeypatch):
    families = tmp_path / "hpcprobe" / "families"
    for family in ("ra", "memory", "hpcc"):
        (families / family).mkdir(parents=True)
    (families / "ra" / "x.py").write_text("from hpcprobe.families.memory.tables import a\n")
    (tmp_path / "hpcprobe" / "shared.py").write_text("from .families.hpcc import summary\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "hpcprobe")
    found = wrong_imports()
    assert len(found) == 2
    assert any("family ra imports family memory" in line for line in found)
    assert any("shared module imports a family" in line for line in found)
