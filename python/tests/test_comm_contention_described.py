"""The command lines of comm, beff, pairs, contention and topology are the bench's
description (describe.py, cli_described.py): their Python sources name no option the bench
declares; every described option is on the parser and in the help; an option of another
variant is refused in one line; a function, variant or option added to the description
appears with no Python edit. Runs no MPI."""

import ast
import dataclasses
from pathlib import Path

import pytest

from hpcprobe import describe
from hpcprobe.cli import build_parser, main, parse_arguments
from hpcprobe.cli_described import LAUNCH_GIVES, user_options
from hpcprobe.errors import UsageError
from hpcprobe.families.comm.options import (comm_bench_options, comm_bench_variant,
                                            comm_functions, device_functions)
from hpcprobe.families.contention.options import contention_bench_options

PACKAGE = Path(__file__).resolve().parents[1] / "hpcprobe"
FAMILIES = ("comm", "beff", "pairs", "contention", "topology")
# What hpcprobe gives the bench itself rather than as typed: --functions (from comm's
# function words) and --placement-by (who placed the ranks: launch/placement.py).
GIVEN_BY_HPCPROBE = {"--functions", "--placement-by"}
LAUNCH = {"--np", "--out", "--launcher", "--launcher-arg", "--time-budget", "--cluster",
          "--ppn", "--quiet"}
PYTHON_ONLY = {"comm": LAUNCH | {"--format"}, "beff": LAUNCH | {"--hpcc-summary"},
               "pairs": LAUNCH, "contention": LAUNCH, "topology": LAUNCH | {"--json"}}


@pytest.fixture(scope="module")
def description() -> describe.Description:
    return describe.load_description()


def described_names(description: describe.Description) -> set:
    names = {o.name for o in description.common_options}
    for name in FAMILIES:
        names |= {o.name for o in description.family(name).options}
    return names


def _named(path: Path, names: set) -> list:
    return [f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in names]


def test_no_python_source_of_these_families_names_a_bench_option(description):
    names = described_names(description)
    found = []
    for name in ("comm", "contention"):
        for path in sorted((PACKAGE / "families" / name).glob("*.py")):
            found += _named(path, names)
    found += _named(PACKAGE / "launch" / "placement.py", names)
    assert found == []


def _main_job_interconnect_lines() -> str:
    """suite/main_job.py's part that plans comm, beff and pairs."""
    source = (PACKAGE / "suite" / "main_job.py").read_text(encoding="utf-8")
    start = source.index("_INTERCONNECT")
    return source[start:source.index("\n}\n", start)]


def test_the_main_job_names_its_interconnect_options_by_attribute(description):
    text = _main_job_interconnect_lines()
    assert "functions" in text
    assert [name for name in described_names(description) if f'"{name}"' in text] == []


@pytest.mark.parametrize("name", FAMILIES)
def test_the_parser_has_every_described_option_and_hpcprobes_own(description, name):
    parser = build_parser(only=name)[name]
    family = description.family(name)
    expected = ({o.name for o in user_options(family)} - GIVEN_BY_HPCPROBE) | PYTHON_ONLY[name]
    assert set(parser.long_options) == expected | {"--help"}


def _squeezed(text: str) -> str:
    return "".join(text.split())  # argparse wraps the help, also at hyphens


@pytest.mark.parametrize("name", FAMILIES)
def test_the_help_shows_every_described_option(description, capsys, name):
    with pytest.raises(SystemExit):
        main([name, "--help"])
    shown = _squeezed(capsys.readouterr().out)
    for option in user_options(description.family(name)):
        if option.name in GIVEN_BY_HPCPROBE:
            continue
        assert _squeezed(option.name) in shown, option.name
        assert _squeezed(option.help) in shown, option.name
        if option.default is not None and option.type != "flag":
            assert _squeezed(f"(default {option.default}") in shown, option.name


@pytest.mark.parametrize("argv, line", [
    (["comm", "bcast", "--buffers", "host"],
     "--buffers applies to 'hpcprobe comm all|pingpong|allreduce|alltoall' only, not to "
     "'comm bcast'"),
    (["contention", "wocon", "--pairs", "nn"],
     "--pairs applies to 'hpcprobe contention wicon' only, not to 'contention wocon'"),
    (["contention", "wocon", "--axis", "1"],
     "--axis applies to 'hpcprobe contention wicon|stress-link|equidistant' only, not to "
     "'contention wocon'"),
    (["contention", "wicon", "--max-pairs", "2"],
     "--max-pairs applies to 'hpcprobe contention stress-link' only, not to "
     "'contention wicon'"),
    (["contention", "stress-link", "--distance", "2"],
     "--distance applies to 'hpcprobe contention equidistant' only, not to "
     "'contention stress-link'"),
    (["topology", "route", "0", "1", "--torus", "4", "--coords", "slurm"],
     "--coords applies to 'hpcprobe topology show' only (route launches nothing)"),
    (["contention", "wicon", "--pairs", "ring"],
     "unknown pairs 'ring' (allowed: nn, nn-torus, rnd)"),
    (["contention", "wicon", "--axis", "8"], "--axis must be a whole number from 0 to 7"),
])
def test_an_option_of_another_variant_is_one_line(argv, line):
    with pytest.raises(UsageError) as refused:
        parse_arguments(argv)
    assert refused.value.message.startswith(line), refused.value.message


def test_options_pass_as_typed_in_the_benchs_order():
    args = parse_arguments(["contention", "wicon", "--seed", "3", "--pairs", "nn",
                            "--torus", "2x2", "--no-verify"])
    assert contention_bench_options(args) == ["--torus", "2x2", "--no-verify", "--pairs",
                                              "nn", "--seed", "3"]
    args = parse_arguments(["pairs", "--repeat", "2", "--size", "8K"])
    assert comm_bench_options(args) == ["--size", "8K", "--repeat", "2"]


def _with_additions(loaded: describe.Description) -> describe.Description:
    """A comm function 'ring' taking --buffers, and a contention option only wocon takes."""
    comm, contention = loaded.family("comm"), loaded.family("contention")
    pingpong = comm.kernels_of("pingpong")[0]
    ring = dataclasses.replace(pingpong, id="ring/imb", variant="ring")
    widget = describe.Option(
        name="--widget-count", type="int", grammar="a whole number in decimal", default="2",
        default_computed=False, min=1, max=8, min_exclusive=False, max_exclusive=False,
        count_max=None, choices=None, help="widgets per burst, made up by the test",
        common=False, kernels=("wocon/pingpong",))
    kernels = tuple(dataclasses.replace(k, options=k.options + (widget.name,))
                    if k.variant == "wocon" else k for k in contention.kernels)
    families = dict(loaded.families)
    families["comm"] = dataclasses.replace(comm, kernels=comm.kernels + (ring,))
    families["contention"] = dataclasses.replace(contention, kernels=kernels,
                                                 options=contention.options + (widget,))
    return dataclasses.replace(loaded, families=families)


def test_a_described_function_and_option_need_no_python_edit(description, monkeypatch,
                                                             capsys):
    monkeypatch.setattr(describe, "load_description",
                        lambda bench=None: _with_additions(description))
    assert comm_functions()[-1] == "ring" and device_functions()[-1] == "ring"
    args = parse_arguments(["comm", "ring", "--buffers", "device"])
    assert comm_bench_variant(args) == "ring"
    args = parse_arguments(["contention", "wocon", "--widget-count", "3"])
    assert contention_bench_options(args) == ["--widget-count", "3"]
    with pytest.raises(UsageError) as refused:
        parse_arguments(["contention", "wicon", "--widget-count", "3"])
    assert refused.value.message == ("--widget-count applies to 'hpcprobe contention wocon' "
                                     "only, not to 'contention wicon'")
    with pytest.raises(SystemExit):
        main(["contention", "--help"])
    assert "wocon: widgets per burst, made up by the test (default 2)" in " ".join(
        capsys.readouterr().out.split())


def test_topology_refuses_the_launch_options_the_bench_has_too(description):
    for option in description.common_options:
        if option.name in LAUNCH_GIVES:
            argv = ["topology", "show", option.name] + ([] if option.type == "flag" else ["x"])
            with pytest.raises(UsageError) as refused:
                parse_arguments(argv)
            assert refused.value.message.startswith(f"{option.name} does not apply")
