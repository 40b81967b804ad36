"""`hpcprobe-bench describe --json`: the one description of every family, kernel and
option, checked against schema/describe-v1.json and against `hpcprobe-bench list`."""
import json
import re
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


def test_a_common_option_says_what_it_means_to_its_family(described: dict) -> None:
    # congestion's --warmup also runs the congestors first; ra's is the plain one.
    common = {o["name"]: o["help"] for o in described["common_options"]}
    helps = {(f["name"], o["name"]): o["help"] for f in described["families"]
             for o in f["options"] if o["common"]}
    assert "congestor" in helps[("congestion", "--warmup")]
    assert helps[("ra", "--warmup")] == common["--warmup"]
    assert helps[("stream", "--repeat")] != common["--repeat"]


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


def _metric_pattern(name: str) -> "re.Pattern[str]":
    """A described metric name as a pattern: <...> is a part named at run time."""
    parts = re.split(r"<[^>]+>", name)
    return re.compile("[a-z0-9_]+".join(re.escape(part) for part in parts) + r"\Z")


def _kernel(described: dict, record: dict) -> dict:
    for family in described["families"]:
        for kernel in family["kernels"]:
            if (family["name"], kernel["variant"], kernel["algorithm"]) == (
                    record["benchmark"], record["variant"], record["algorithm"]):
                return kernel
    raise AssertionError(f"no described kernel for {record['benchmark']} "
                         f"{record['variant']} {record['algorithm']}")


@pytest.mark.parametrize("golden", sorted((Path(__file__).parent / "data").glob("*.json")),
                         ids=lambda path: path.stem)
def test_what_a_kernel_records_is_what_it_says(described: dict, golden: Path) -> None:
    """The golden records (real runs, python/tests/data) against the description: every
    metric a record has is one its kernel describes, and so is its headline."""
    record = json.loads(golden.read_text())
    kernel = _kernel(described, record)
    patterns = [_metric_pattern(m["name"]) for m in kernel["records"]["metrics"]]
    for metric in record["metrics"]:
        assert any(p.match(metric["name"]) for p in patterns), (metric["name"], kernel["id"])
    assert _metric_pattern(kernel["records"]["headline"]).match(record["value"]["metric"])
