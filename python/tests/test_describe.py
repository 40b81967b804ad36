"""`hpcprobe-bench describe --json`: the one description of every family, kernel and
option, checked against schema/describe-v1.json and against `hpcprobe-bench list`."""
import json
from pathlib import Path

import jsonschema
import pytest

from integration import run_bench

SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "describe-v1.json"


@pytest.fixture(scope="module")
def described() -> dict:
    completed = run_bench("describe", "--json")
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_validates_against_the_schema(described: dict) -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(described)
    assert described["describe_version"].startswith("1.")


def test_every_listed_kernel_is_described(described: dict) -> None:
    completed = run_bench("list")
    assert completed.returncode == 0, completed.stderr
    have = {(f["name"], k["variant"], k["algorithm"])
            for f in described["families"] for k in f["kernels"]}
    listed = {tuple(line.split()[:3]) for line in completed.stdout.splitlines() if line.strip()}
    assert listed and listed <= have, sorted(listed - have)


def test_every_option_has_help(described: dict) -> None:
    options = [o for f in described["families"] for o in f["options"]]
    options += described["common_options"]
    assert options
    assert [o["name"] for o in options if not o["help"].strip()] == []


def test_kernels_and_options_name_each_other(described: dict) -> None:
    for family in described["families"]:
        options = {o["name"]: o for o in family["options"]}
        for kernel in family["kernels"]:
            for name in kernel["options"]:
                assert name in options, (family["name"], kernel["id"], name)
                assert kernel["id"] in options[name]["kernels"], (family["name"], name)


def test_one_sizes_grammar(described: dict) -> None:
    """comm's and contention's --sizes are one grammar, with their own limits."""
    sizes = {f["name"]: o for f in described["families"] for o in f["options"]
             if o["name"] == "--sizes"}
    assert sizes["comm"]["type"] == sizes["contention"]["type"] == "sizes"
    assert sizes["comm"]["grammar"] == sizes["contention"]["grammar"]
    assert (sizes["comm"]["min"], sizes["contention"]["min"]) == (0, 1)
    assert (sizes["comm"]["count_max"], sizes["contention"]["count_max"]) == (64, 24)


def test_describe_takes_only_json() -> None:
    completed = run_bench("describe")
    assert completed.returncode == 2
    assert "--json" in completed.stderr
