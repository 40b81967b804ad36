"""The parsers of `hpcprobe dgemm|hpl|ptrans|fft`, built from the bench's description of
those families (cli_described.py), and of `hpcprobe config`, and the sizing options of
`hpcprobe run --suite hpcc` with their checks (family.py hands them to the registry)."""

import argparse
from typing import Any, Callable, List

from hpcprobe import describe
from hpcprobe.cli_described import add_algo_option, add_described_options, add_variant_argument
from hpcprobe.cli_grammars import argparse_type, metavar
from hpcprobe.cli_types import CliParser, add_launch_options, choice, positive_int
from hpcprobe.errors import UsageError
from hpcprobe.families.hpcc.options import HPCC_HELP, default_np_text, foreign_options

CONFIG_ACTIONS = ("import-hpccinf",)
# `run --suite hpcc` sizing options that are HPL's (attribute, what they do to the suite,
# the value's parser by option name): their flags, grammars and limits are the bench's hpl
# options (describe.py). HPCC sizes every test from N; the bench reads --n and --nb as
# free text, so hpcprobe checks them itself before the suite launches anything.
HPL_SIZING = (("n", "HPL's matrix order, which sizes every test", positive_int),
              ("nb", "block size of HPL and PTRANS (default 192)", positive_int),
              ("grid", "process grid (P*Q = --np)", lambda name: str),
              ("memory_fraction", "N from this fraction of the available memory (default 0.25)",
               lambda name: float))
# hpcprobe's own sizing sources (attribute, option).
HPCC_FILES = (("hpccinf", "--hpccinf"), ("config", "--config"))


def add_hpcc_parser(subparsers, family: str) -> CliParser:
    described = describe.family(family)
    parser = subparsers.add_parser(family, help=HPCC_HELP[family])
    add_variant_argument(parser, described)
    add_algo_option(parser, described)
    add_described_options(parser, described)
    # The options of the other dense commands are known too, out of the help and of the
    # allowed list: given here, they get "applies to ... only" (check_hpcc) rather than
    # their value being taken for the variant.
    for option, _ in foreign_options(family).values():
        parser.add_argument(option.name, dest=option.dest, help=argparse.SUPPRESS,
                            action="store_true" if option.type == "flag" else "store")
        parser.long_options.remove(option.name)
    add_launch_options(parser, default_np=default_np_text(described))
    return parser


def add_config_parser(subparsers) -> CliParser:
    config = subparsers.add_parser("config", help="import an HPCC input file (hpccinf.txt)")
    config.add_argument("action", nargs="?", type=choice("config action", CONFIG_ACTIONS),
                        metavar="{" + ",".join(CONFIG_ACTIONS) + "}")
    config.add_argument("file", nargs="?", metavar="FILE", help="the hpccinf.txt to read")
    config.add_argument("--out", metavar="CONFIG", default="hpcc-config.json",
                        help="where the sizing goes (default hpcc-config.json); "
                             "`hpcprobe run --suite hpcc --config CONFIG` reads it")
    return config


def hpl_option(dest: str) -> describe.Option:
    return describe.family("hpl").option(dest)


def _typed(option: describe.Option,
           parser_of: Callable[[str], Callable[[str], Any]]) -> Callable[[str], Any]:
    check, convert = argparse_type(option, option.min, option.max), parser_of(option.name)
    return lambda text: convert(check(text))


def suite_options(args: argparse.Namespace) -> List[str]:
    """The sizing options given to `run`, by name."""
    named = [(dest, hpl_option(dest).name) for dest, _, _ in HPL_SIZING] + list(HPCC_FILES)
    return [option for dest, option in named if getattr(args, dest, None)]


def add_hpcc_suite_options(run: CliParser) -> None:
    for dest, about, parser_of in HPL_SIZING:
        option = hpl_option(dest)
        run.add_argument(option.name, dest=option.dest, metavar=metavar(option),
                         type=_typed(option, parser_of), help=f"hpcc: {about}")
    run.add_argument("--hpccinf", metavar="FILE", help="hpcc: N, NB and grid from hpccinf.txt")
    run.add_argument("--config", metavar="FILE",
                     help="hpcc: the sizing written by 'hpcprobe config import-hpccinf'")


def check_run(args: argparse.Namespace) -> None:
    given = suite_options(args)
    if given and args.suite != "hpcc":
        raise UsageError(f"{given[0]} applies to 'hpcprobe run --suite hpcc' only")
    fraction, n = hpl_option("memory_fraction").name, hpl_option("n").name
    sources = [option for option in ("--hpccinf", "--config", fraction) if option in given]
    if len(sources) > 1 or (sources[:1] == [fraction] and n in given):
        raise UsageError(f"{' and '.join(sources or [fraction])} both size the "
                         f"suite: give one (or {n})")


def check_config(args: argparse.Namespace) -> None:
    if args.action is None or args.file is None:
        raise UsageError("usage: hpcprobe config import-hpccinf FILE [--out CONFIG]")
