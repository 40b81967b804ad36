"""The tests run against the installed package: version, schema and build record."""

import json
from importlib import metadata, resources
from pathlib import Path

import hpcprobe
from hpcprobe.resources import load_build_info, load_schema

REPO_SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "result-v1.json"


def test_version_comes_from_the_installed_metadata():
    assert hpcprobe.__version__ == metadata.version("hpcprobe")


def test_installed_schema_is_the_repository_schema():
    installed = resources.files("hpcprobe") / "schema" / "result-v1.json"
    assert installed.is_file()
    assert load_schema() == json.loads(REPO_SCHEMA.read_text())


def test_build_info_names_the_mpi_it_was_built_with():
    info = load_build_info()
    assert set(info) >= {"version", "git_commit", "mpi_c_compiler", "mpiexec", "mpi_version"}
    assert info["version"] == hpcprobe.__version__
