"""The command lines of comm, beff, pairs, contention and topology are the bench's
description (describe.py, cli_described.py): an option of another variant is refused in
one line; options pass as typed, in the bench's order; a function, variant or option added
to the description appears with no Python edit. Runs no MPI. (Parser and help:
test_described_options.py.)"""

import dataclasses

import pytest
from helpers import made_up_option

from hpcprobe import describe
from hpcprobe.cli import main, parse_arguments
from hpcprobe.cli_described import LAUNCH_GIVES
from hpcprobe.errors import UsageError
from hpcprobe.families.comm.options import (comm_bench_options, comm_bench_variant,
                                            comm_functions, device_functions)
from hpcprobe.families.contention.options import contention_bench_options


@pytest.fixture(scope="module")
def description() -> describe.Description:
    return describe.load_description()


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
    widget = made_up_option("--widget-count", "widgets per burst, made up by the test",
                            ("wocon/pingpong",), "2", 8)
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
