"""Files installed next to the package: the result schema, the documentation and what the
build recorded (CMakeLists.txt installs them; in a source tree they are read from there)."""

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict

from hpcprobe.errors import HpcprobeError

SCHEMA_NAME = "result-v1.json"
# python/hpcprobe/resources.py -> the repository root, for runs from a source tree.
_SOURCE_TREE = Path(__file__).resolve().parents[2]
_SOURCE_TREE_SCHEMA = _SOURCE_TREE / "schema" / SCHEMA_NAME


@lru_cache(maxsize=None)
def load_schema() -> Dict[str, Any]:
    """The result-record JSON Schema: the installed copy, else the source tree's."""
    installed = resources.files("hpcprobe") / "schema" / SCHEMA_NAME
    if installed.is_file():
        return json.loads(installed.read_text(encoding="utf-8"))
    if _SOURCE_TREE_SCHEMA.is_file():
        return json.loads(_SOURCE_TREE_SCHEMA.read_text(encoding="utf-8"))
    raise HpcprobeError(
        f"result schema {SCHEMA_NAME} not found in the installed package or in "
        f"{_SOURCE_TREE_SCHEMA.parent}; reinstall with 'make build'"
    )


@lru_cache(maxsize=None)
def load_build_info() -> Dict[str, str]:
    """build_info.json written at install time ({} when running from a source tree)."""
    info_file = resources.files("hpcprobe") / "build_info.json"
    if not info_file.is_file():
        return {}
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    if not isinstance(info, dict):
        return {}
    return {str(key): str(value) for key, value in info.items()}


def docs_page(page: str) -> Path:
    """A page of the documentation (e.g. "cli.md"): the copy installed with the package,
    else the source tree's, so that what a message names exists outside a checkout."""
    installed = resources.files("hpcprobe") / "docs" / page
    if installed.is_file():
        return Path(str(installed))
    return _SOURCE_TREE / "docs" / page
