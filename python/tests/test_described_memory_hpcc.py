"""`hpcprobe stream|mem|dgemm|hpl|ptrans|fft`: command lines built from the bench's
description (describe.py, cli_described.py). An option the chosen variant (or, for the
dense commands, the command) does not take is refused in one line; an option added to the
description needs no Python edit. (Parser and help: test_described_options.py.)"""

import dataclasses

import pytest
from helpers import made_up_option

from hpcprobe import describe
from hpcprobe.cli import main, parse_arguments
from hpcprobe.cli_described import user_options
from hpcprobe.errors import UsageError
from hpcprobe.families.hpcc.options import HPCC_FAMILIES, hpcc_bench_options
from hpcprobe.families.memory.options import MEMORY_HELP

FAMILIES = tuple(MEMORY_HELP) + HPCC_FAMILIES


@pytest.fixture(scope="module")
def description() -> describe.Description:
    return describe.load_description()


def test_the_families_expected_are_the_benchs(description):
    assert set(FAMILIES) <= set(description.families)


def _sample(option: describe.Option) -> str:
    """A value the option's grammar takes."""
    if option.choices:
        return option.choices[0]
    if option.default is not None:
        return option.default
    return {"int": str(int(option.min or 1)), "bytes": "64K", "number": "0.5"}.get(
        option.type, "1")


def _given(option: describe.Option):
    return [option.name] if option.type == "flag" else [option.name, _sample(option)]


def _refusals(description):
    """(argv, the line expected) for each option a variant of these commands does not
    take: another variant's (mem latency's --seed on mem stride), or, for the dense
    commands, another command's (hpl's --grid on fft)."""
    cases = []
    for name in FAMILIES:
        family = description.family(name)
        own = {o.name for o in user_options(family)}
        for variant in family.variants():
            taken = {n for k in family.kernels_of(variant) for n in k.options}
            for option in user_options(family):
                if option.name not in taken:
                    takers = "|".join(v for v in family.variants()
                                      if option.name in family.kernels_of(v)[0].options)
                    cases.append(([name, variant, *_given(option)],
                                  f"{option.name} applies to 'hpcprobe {name} {takers}' only, "
                                  f"not to '{name} {variant}'"))
            if name not in HPCC_FAMILIES:
                continue
            for other in HPCC_FAMILIES:
                for option in user_options(description.family(other)):
                    if option.name not in own:
                        takers = "|".join(f for f in HPCC_FAMILIES if option.name in {
                            o.name for o in user_options(description.family(f))})
                        cases.append(([name, variant, *_given(option)],
                                      f"{option.name} applies to 'hpcprobe {takers}' only, not "
                                      f"to '{name}'"))
    return cases


def test_an_option_of_another_variant_or_command_is_one_line(description):
    cases = _refusals(description)
    assert any(argv[:2] == ["mem", "stride"] for argv, _ in cases)  # --seed, ...
    assert any(argv[0] == "fft" and "--grid" in argv for argv, _ in cases)
    for argv, line in cases:
        with pytest.raises(UsageError) as refused:
            parse_arguments(argv)
        assert refused.value.message == line


@pytest.mark.parametrize("argv, expected", [
    (["mem", "stride", "--sweep", "blok"],
     "unknown sweep 'blok' (allowed: stride, block); did you mean 'block'?"),
    (["mem", "stride", "--max-stride", "2x"], "--max-stride must be a size in bytes"),
    (["mem", "latency", "--min-time", "-3"], "--min-time must be a number > 0 and <= 60, not '-3'"),
    (["mem", "latency", "--repeat", "1"], "--repeat must be a whole number from 2 to 1000"),
    (["stream", "star", "--threads", "0"], "--threads must be a whole number from 1 to 256"),
    (["stream", "single", "--hugepages", "maybe"], "unknown hugepages 'maybe' (allowed: on, off)"),
])
def test_values_the_description_refuses_are_one_line(capsys, argv, expected):
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"hpcprobe: {expected}")


def test_the_other_memory_commands_options_are_unknown_here(capsys):
    assert main(["stream", "single", "--sweep", "block"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("hpcprobe: unknown option '--sweep' for 'hpcprobe stream' "
                           "(allowed: --help, --array-bytes")


def test_a_dense_commands_unknown_option_lists_only_its_own(description, capsys):
    assert main(["fft", "mpi", "--bogus"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--log2" in line and "--grid" not in line and "--lookahead" not in line


def test_one_variant_is_taken_when_there_is_one(description):
    for name in HPCC_FAMILIES:
        variants = description.family(name).variants()
        if len(variants) == 1:
            assert parse_arguments([name]).variant == variants[0]
        else:
            with pytest.raises(UsageError) as refused:
                parse_arguments([name])
            assert refused.value.message == (f"missing variant for 'hpcprobe {name}' "
                                             f"(allowed: {', '.join(variants)})")


def _with_a_new_hpl_option(loaded: describe.Description) -> describe.Description:
    hpl = loaded.family("hpl")
    depth = made_up_option("--panel-depth", "panel depth, made up by the test",
                           tuple(k.id for k in hpl.kernels), "3", 9)
    kernels = tuple(dataclasses.replace(k, options=k.options + (depth.name,))
                    for k in hpl.kernels)
    families = dict(loaded.families)
    families["hpl"] = dataclasses.replace(hpl, kernels=kernels, options=hpl.options + (depth,))
    return dataclasses.replace(loaded, families=families)


def test_a_described_option_needs_no_python_edit(description, monkeypatch, capsys):
    monkeypatch.setattr(describe, "load_description",
                        lambda bench=None: _with_a_new_hpl_option(description))
    args = parse_arguments(["hpl", "--panel-depth", "4", "--n", "100"])
    assert hpcc_bench_options(args) == ["--n", "100", "--panel-depth", "4"]
    for argv, line in ((["hpl", "--panel-depth", "10"],
                        "--panel-depth must be a whole number from 1 to 9, not '10'"),
                       (["fft", "mpi", "--panel-depth", "2"],
                        "--panel-depth applies to 'hpcprobe hpl' only, not to 'fft'")):
        with pytest.raises(UsageError) as refused:
            parse_arguments(argv)
        assert refused.value.message == line
    with pytest.raises(SystemExit):
        main(["hpl", "--help"])
    assert "panel depth, made up by the test (default 3)" in " ".join(
        capsys.readouterr().out.split())
