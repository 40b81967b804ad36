"""Every family's command line is the bench's description (describe.py, cli_described.py;
docs/adding-a-kernel.md): its parser has exactly the described options and hpcprobe's own,
its help shows the bench's (no Python source names a bench option:
test_option_names_once.py); an option or a kernel added to the
description appears, with its refusals, with no Python edit; the description is asked once
per build (cached on disk, rebuilt when stale or damaged)."""

import dataclasses
import json
import os
import shlex
from pathlib import Path

import pytest
from helpers import made_up_option

from hpcprobe import describe
from hpcprobe.cli import build_parser, main, parse_arguments
from hpcprobe.cli_described import ALGO_OPTION, user_options
from hpcprobe.errors import UsageError
from hpcprobe.families.gpu.options import gpu_bench_options
from hpcprobe.launch import find_bench

CONVERTED = ("gpu", "congestion", "ra", "stream", "mem", "dgemm", "hpl", "ptrans", "fft", "comm",
             "beff", "pairs", "contention", "topology", "peak")
# hpcprobe's own options on these command lines (the bench has none of them): the launch
# options (cli_types.add_launch_options) and gpu's --devices; --algo is the bench's
# choice of an algorithm, made from the described kernels.
LAUNCH = {"--np", "--out", "--launcher", "--launcher-arg", "--time-budget", "--cluster",
          "--ppn", "--quiet"}
# ra: --hpcc-summary, --repeat's alias, and the studies' own options.
# stream, mem and the dense commands: --hpcc-summary (mem refuses it in one line; an option
# of another dense command is known, out of the help, to be refused in one line too).
# comm: --format (IMB's or OSU's layout); topology: route's --json.
PYTHON_ONLY = {"gpu": LAUNCH | {"--devices", ALGO_OPTION}, "congestion": LAUNCH,
               "ra": LAUNCH | {ALGO_OPTION, "--hpcc-summary", "--reps", "--syncs", "--sync-a",
                               "--modes", "--mode1-algo", "--json"},
               **{name: LAUNCH | {"--hpcc-summary"}
                  for name in ("stream", "mem", "dgemm", "hpl", "ptrans", "fft")},
               "comm": LAUNCH | {"--format"}, "beff": LAUNCH | {"--hpcc-summary"},
               "pairs": LAUNCH, "contention": LAUNCH, "topology": LAUNCH | {"--json"},
               "peak": LAUNCH}
# Described options hpcprobe gives the bench itself rather than as typed: --functions
# (from comm's function words) and --placement-by (who placed the ranks).
GIVEN_BY_HPCPROBE = {"--functions", "--placement-by"}


@pytest.fixture(scope="module")
def description() -> describe.Description:
    return describe.load_description()


@pytest.mark.parametrize("name", CONVERTED)
def test_the_parser_has_the_described_options_and_hpcprobes_own(description, name):
    parser = build_parser(only=name)[name]
    family = description.family(name)
    expected = ({o.name for o in user_options(family)} - GIVEN_BY_HPCPROBE) | PYTHON_ONLY[name]
    assert set(parser.long_options) == expected | {"--help"}


def test_every_family_of_the_bench_is_converted(description):
    assert sorted(CONVERTED) == sorted(description.families)


def _squeezed(text: str) -> str:
    return "".join(text.split())  # argparse wraps the help, also at hyphens


@pytest.mark.parametrize("name", CONVERTED)
def test_the_help_shows_each_described_options_help(description, capsys, name):
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


def _with_widgets(loaded: describe.Description) -> describe.Description:
    """The description with an option only gpu copy takes and a new gpu variant."""
    gpu = loaded.family("gpu")
    widget = made_up_option("--widget-count", "widgets per copy, made up by the test",
                            ("copy/all", "burst/fast"), "2", 8)
    burst = describe.Kernel("burst/fast", "burst", "fast", "a kernel the test adds",
                            ("--device", "--widget-count"), {})
    kernels = tuple(dataclasses.replace(k, options=k.options + ("--widget-count",))
                    if k.id == "copy/all" else k for k in gpu.kernels) + (burst,)
    families = dict(loaded.families)
    families["gpu"] = dataclasses.replace(gpu, kernels=kernels, options=gpu.options + (widget,))
    return dataclasses.replace(loaded, families=families)


def test_a_described_option_and_kernel_need_no_python_edit(description, monkeypatch, capsys):
    monkeypatch.setattr(describe, "load_description", lambda bench=None: _with_widgets(
        description))
    parser = build_parser(only="gpu")["gpu"]
    assert "--widget-count" in parser.long_options
    args = parse_arguments(["gpu", "copy", "--widget-count", "3", "--kinds", "h2d"])
    assert gpu_bench_options(args) == ["--kinds", "h2d", "--widget-count", "3"]
    assert parse_arguments(["gpu", "burst", "--widget-count", "8"]).variant == "burst"
    for argv, line in (
            (["gpu", "copy", "--widget-count", "9"],
             "--widget-count must be a whole number from 1 to 8, not '9'"),
            (["gpu", "ra", "--widget-count", "2"],
             "--widget-count applies to 'hpcprobe gpu copy|burst' only, not to 'gpu ra'"),
            (["gpu", "bursty"], "unknown variant 'bursty' (allowed: stream, ra, copy, info, "
                                "burst); did you mean 'burst'?")):
        with pytest.raises(UsageError) as refused:
            parse_arguments(argv)
        assert refused.value.message == line
    with pytest.raises(SystemExit):
        main(["gpu", "--help"])
    assert "widgets per copy, made up by the test (default 2)" in " ".join(
        capsys.readouterr().out.split())


def test_ra_refuses_each_option_of_another_variant_or_algorithm_in_one_line(description,
                                                                            capsys):
    """For each described ra option and each variant or mpi algorithm whose kernel does
    not take it: exit 2 and one line naming the option and where it applies."""
    family = description.family("ra")
    checked = 0
    for kernel in family.kernels:
        words = ["ra", kernel.variant] + (
            [ALGO_OPTION, kernel.algorithm] if len(family.algorithms(kernel.variant)) > 1
            else [])
        for option in user_options(family):
            if option.name in kernel.options:
                continue
            value = [] if option.type == "flag" else [_a_value(option)]
            assert main(words + [option.name] + value) == 2, (kernel.id, option.name)
            lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith(
                f"hpcprobe: {option.name} applies to 'hpcprobe ra "), lines
            assert f"not to 'ra {kernel.variant}" in lines[0], lines
            checked += 1
    assert checked > 10  # the mpi algorithms differ, and single/star/ceiling differ from mpi


def _a_value(option: describe.Option) -> str:
    """A value the option's grammar takes (the refusal must be for the kernel, not it)."""
    if option.choices:
        return option.choices[0]
    if option.type in ("int", "grid"):
        return str(int(option.min or 1))
    if option.type == "string":
        return option.default or "t.bin"  # the bench's own default is one it takes
    return {"number": "0.5"}.get(option.type, "1")


def test_ra_help_lists_every_option_of_every_ra_kernel(description, capsys):
    with pytest.raises(SystemExit):
        main(["ra", "--help"])
    shown = capsys.readouterr().out
    taken = {name for kernel in description.family("ra").kernels for name in kernel.options}
    for name in taken - {"--out", "--quiet"}:  # hpcprobe's --out DIR and --quiet instead
        assert f"{name} " in shown, name


def _with_an_ra_algorithm(loaded: describe.Description) -> describe.Description:
    """ra with a made-up `ra mpi` algorithm taking a made-up option."""
    ra = loaded.family("ra")
    hop = made_up_option("--hop-limit", "hops per update, made up by the test",
                         ("mpi/butterfly",), "3", 9)
    reference = ra.kernels_of("mpi", "reference")[0]
    butterfly = dataclasses.replace(reference, id="mpi/butterfly", algorithm="butterfly",
                                    summary="a kernel the test adds",
                                    options=reference.options + ("--hop-limit",))
    families = dict(loaded.families)
    families["ra"] = dataclasses.replace(ra, kernels=ra.kernels + (butterfly,),
                                         options=ra.options + (hop,))
    return dataclasses.replace(loaded, families=families)


def test_an_ra_algorithm_and_its_option_need_no_python_edit(description, monkeypatch):
    from hpcprobe.families.ra.options import ra_bench_options
    monkeypatch.setattr(describe, "load_description", lambda bench=None: _with_an_ra_algorithm(
        description))
    args = parse_arguments(["ra", "mpi", "--algo", "butterfly", "--hop-limit", "4"])
    assert ra_bench_options(args) == ["--algo", "butterfly", "--hop-limit", "4"]
    # One rank per core, so the sweep and mode 1 of `modes` may run it too.
    assert parse_arguments(["ra", "sweep", "--algo", "butterfly", "--hop-limit", "4"])
    assert parse_arguments(["ra", "modes", "--mode1-algo", "butterfly"]).mode1_algo
    for argv, line in (
            (["ra", "mpi", "--algo", "butterfly", "--hop-limit", "10"],
             "--hop-limit must be a whole number from 1 to 9, not '10'"),
            (["ra", "mpi", "--algo", "torus", "--hop-limit", "2"],
             "--hop-limit applies to 'hpcprobe ra mpi --algo butterfly' only, not to 'ra mpi "
             "--algo torus'"),
            (["ra", "single", "--hop-limit", "2"],
             "--hop-limit applies to 'hpcprobe ra mpi|sweep|modes' only, not to 'ra single'")):
        with pytest.raises(UsageError) as refused:
            parse_arguments(argv)
        assert refused.value.message == line


# --- the cache ------------------------------------------------------------------------

@pytest.fixture
def counted_bench(tmp_path, monkeypatch):
    """A bench that counts its runs (one line each in `runs`) and is the real one."""
    monkeypatch.setenv(describe.CACHE_ENV_VARIABLE, str(tmp_path / "cache"))
    bench = tmp_path / "hpcprobe-bench"
    runs = tmp_path / "runs"
    bench.write_text(f"#!/bin/sh\necho run >> {shlex.quote(str(runs))}\n"
                     f"exec {shlex.quote(find_bench(os.environ))} \"$@\"\n")
    bench.chmod(0o755)
    describe.forget_loaded()
    yield str(bench), runs
    describe.forget_loaded()


def _runs(runs: Path) -> int:
    return len(runs.read_text().splitlines()) if runs.exists() else 0


def test_a_second_load_reads_the_cache(counted_bench):
    bench, runs = counted_bench
    first = describe.load_description(bench)
    assert _runs(runs) == 1 and "gpu" in first.families
    assert describe.load_description(bench) is first  # this process: from memory
    describe.forget_loaded()
    assert describe.load_description(bench).families == first.families
    assert _runs(runs) == 1  # another process: from the cache on disk


def test_a_stale_or_damaged_cache_is_rebuilt(counted_bench, tmp_path):
    bench, runs = counted_bench
    describe.load_description(bench)
    (cached,) = (tmp_path / "cache").glob("describe-*.json")
    with open(bench, "a") as rebuilt:  # another build: another size and time
        rebuilt.write("# rebuilt\n")
    describe.forget_loaded()
    describe.load_description(bench)
    assert _runs(runs) == 2
    cached.write_text("{not json")
    describe.forget_loaded()
    assert "congestion" in describe.load_description(bench).families
    assert _runs(runs) == 3
    assert json.loads(cached.read_text())["document"]["families"]  # rewritten whole


def test_a_bench_that_does_not_describe_itself_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(describe.CACHE_ENV_VARIABLE, str(tmp_path / "cache"))
    bench = tmp_path / "old-bench"
    bench.write_text("#!/bin/sh\necho \"hpcprobe-bench: unknown command 'describe'\" >&2\n"
                     "exit 2\n")
    bench.chmod(0o755)
    with pytest.raises(UsageError) as refused:
        describe.load_description(str(bench))
    assert refused.value.message == (
        f"{bench} did not describe its options ('describe --json', exit status 2: "
        "hpcprobe-bench: unknown command 'describe')")
    assert not list((tmp_path / "cache").glob("describe-*.json"))
