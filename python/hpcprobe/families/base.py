"""What a family gives the registry (families/__init__.py): its commands, each with its
parser, check and run function; the tables `show` and `run` print from its records; its
report section; and what it adds to `hpcprobe run`."""

import argparse
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

from hpcprobe.cli_types import CliParser
from hpcprobe.report.registry import ReportSection
from hpcprobe.suite.step import SuiteStep

Record = Any
Check = Callable[[argparse.Namespace], None]
Run = Callable[[argparse.Namespace, Sequence[str]], int]
# (scale, ranks, bench path) -> (steps, note): the main job's steps that need what only
# some nodes have; without it, no steps and one line saying why (run.json's notes).
MainSteps = Callable[[str, int, str], Tuple[List[SuiteStep], str]]


@dataclass(frozen=True)
class Suite:
    """A suite of `hpcprobe run --suite NAME` that a family owns (suite/suites.py lists it after
    its own, in the registry's order): `steps(scale, ranks)` its launches, `describe(steps)`
    its line of `hpcprobe list`; `sized_steps(args, context)`, where given, the launches
    `run` makes instead, sized from its arguments and the launched ranks (hpcc: from --n,
    --config, --hpccinf or the ranks' memory); `hpcc_summary` whether `run` writes HPCC's
    summary block after it without --hpcc-summary."""

    name: str
    steps: Callable[[str, int], List[SuiteStep]]
    describe: Callable[[List[SuiteStep]], str]
    sized_steps: Optional[Callable[[argparse.Namespace, Any], List[SuiteStep]]] = None
    hpcc_summary: bool = False


@dataclass(frozen=True)
class Command:
    """One `hpcprobe NAME` command. `order` places it in the list of commands that a
    mistake shows ("allowed: ra, stream, ..."); `add_parser(subparsers)` returns its
    parser; `check(args)` refuses what argparse cannot (one UsageError); `run(args,
    argv)` returns the exit status."""

    name: str
    order: float
    add_parser: Callable[[Any], CliParser]
    run: Run
    check: Optional[Check] = None
    # Options whose value may start with "-" (negative numbers, which argparse would
    # take for options), so that their own check can say what is allowed.
    value_may_look_like_option: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    """A benchmark family: `benchmarks` are the hpcprobe-bench subcommands it owns (the
    `benchmark` of its records); `tables(records)` are printed after `show` and `run`;
    `report` is its section of `hpcprobe report`; `add_run_options(parser)` and
    `check_run(args)` add its options to `hpcprobe run` (before its --repeat, or with
    `run_options_last` after its launch options); `bound` are its benchmarks
    whose suite launches bind one rank per core; `headline(records)` the figures of
    its records on the run's headline table (suite/headline.py); `text_formats` the layouts of
    other tools that `show --format` can print its records in; `main_steps` the steps it
    adds to the main job after the others where the node has what they need (gpu: a
    device); `suites` its suites of `hpcprobe run --suite`."""

    name: str
    benchmarks: Tuple[str, ...]
    commands: Tuple[Command, ...]
    tables: Optional[Callable[[Sequence[Record]], List[Any]]] = None
    report: Optional[ReportSection] = None
    add_run_options: Optional[Callable[[CliParser], None]] = None
    run_options_last: bool = False  # after run's launch options rather than before --repeat
    check_run: Optional[Check] = None
    bound: Tuple[str, ...] = ()
    headline: Optional[Callable[[Sequence[Record]], List[Any]]] = None
    # `show --format NAME`: text in another tool's layout (comm: IMB's and OSU's), as
    # (NAME, text(records)) pairs.
    text_formats: Tuple[Tuple[str, Callable[[Sequence[Record]], str]], ...] = ()
    main_steps: Optional[MainSteps] = None
    # `hpcprobe study NAME`: the papers' tables and figures this family's kernels
    # reproduce (hpcprobe.study.declare.Study, declared in its studies*.py).
    studies: Tuple[Any, ...] = ()
    suites: Tuple[Suite, ...] = ()
