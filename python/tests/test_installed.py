"""The tests run against the installed package: version, schema, docs and build record."""

import json
import re
from importlib import metadata, resources
from pathlib import Path

import hpcprobe
from hpcprobe.resources import docs_page, load_build_info, load_schema

REPO = Path(__file__).resolve().parents[2]
REPO_SCHEMA = REPO / "schema" / "result-v1.json"


def test_version_comes_from_the_installed_metadata():
    assert hpcprobe.__version__ == metadata.version("hpcprobe")


def test_installed_schema_is_the_repository_schema():
    installed = resources.files("hpcprobe") / "schema" / "result-v1.json"
    assert installed.is_file()
    assert load_schema() == json.loads(REPO_SCHEMA.read_text())


def test_build_info_names_the_mpi_it_was_built_with():
    info = load_build_info()
    assert set(info) >= {"version", "git_commit", "tuning", "mpi_c_compiler", "mpiexec",
                         "mpi_version"}
    assert info["version"] == hpcprobe.__version__


def test_version_is_written_once_in_pyproject():
    # CMakeLists.txt reads it from there for build_info.json and every record.
    written = re.search(r'^version = "([^"]+)"$', (REPO / "pyproject.toml").read_text(),
                        re.MULTILINE)
    assert written is not None
    assert hpcprobe.__version__ == written.group(1) == load_build_info()["version"]


def test_make_build_is_a_native_build():
    # The Makefile's source build passes HPCP_NATIVE=ON (pyproject.toml's default is the
    # portable wheel's; test_wheel.py checks that one).
    assert load_build_info()["tuning"] == "native"


def test_installed_docs_are_the_repository_docs():
    # The overview and messages name docs pages; outside a checkout they are these copies.
    for page in ("cli.md", "results.md", "building.md", "kernels/memory.md"):
        installed = resources.files("hpcprobe") / "docs" / page
        assert installed.is_file(), page
        assert docs_page(page) == Path(str(installed))
        assert installed.read_text(encoding="utf-8") == (REPO / "docs" / page).read_text(
            encoding="utf-8")
