"""The `hpcprobe` command line: the parser built from the family registry
(families/__init__.py) and the generic commands, and one-line errors with suggestions.

Every mistake on the command line ends with ONE line on stderr that names what was
wrong, what is allowed and, when something close exists, "did you mean", and exit
status 2. Values that hpcprobe-bench validates (table size, look-ahead, ...) are passed
through untouched: the bench answers with its own one-line error. What only hpcprobe
uses is checked by the command's own check (each family's options.py), before anything
is launched.
"""

import argparse
import errno
import os
import sys
from typing import Dict, List, Optional, Sequence

from hpcprobe import __version__
from hpcprobe.analysis_options import add_compare_parser, add_report_parser, check_compare
from hpcprobe.cli_types import (CliParser, add_launch_options, choice, positive_int,
                                positive_seconds, suggestion, unknown)
from hpcprobe.cluster.command import add_cluster_parser, check_cluster, command_cluster
from hpcprobe.cluster.run import add_launch_parser, check_launch, command_launch
from hpcprobe.commands import TEXT_FORMATS, command_show
from hpcprobe.commands.compare import command_compare
from hpcprobe.commands.report import command_report
from hpcprobe.suite.command import command_run
from hpcprobe.screen.command import add_screen_parser, check_screen, command_screen
from hpcprobe.study.command import add_study_parser, check_study, command_study
from hpcprobe.commands.script import add_script_parser, check_script, command_script
from hpcprobe.commands.tools import command_list, command_sysinfo
from hpcprobe.errors import (EXIT_IO_FAILURE, EXIT_OK, EXIT_RUNTIME_FAILURE, HpcprobeError,
                             UsageError)
from hpcprobe.families import FAMILIES, Command
from hpcprobe.history.command import add_history_parser, command_history
from hpcprobe.overview import command_helps, overview_text
from hpcprobe.processes import become_subreaper
from hpcprobe.sanitize import plain
from hpcprobe.signals import StopSignal, handled
from hpcprobe.suite.suites import DEFAULT_SUITE, SCALES, SUITE_NAMES

# The families' layouts of other tools (comm: imb, osu ...) after hpcprobe's own.
FORMATS = ("table", "json", "csv") + tuple(TEXT_FORMATS)
# Errors only a write can give (a full disk, a quota, a file too large).
_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _add_run_parser(subparsers) -> CliParser:
    run = subparsers.add_parser(
        "run", help="the main job: processor, memory, interconnect and RandomAccess, then "
        "the headline table and report.html (--suite NAME: another suite)")
    run.add_argument("--suite", default=DEFAULT_SUITE, type=choice("suite", SUITE_NAMES),
                     help="main (default): the whole machine in minutes; quick: "
                     "RandomAccess only; memory, hpcc, comm: those families in depth")
    run.add_argument("--scale", default="default", type=choice("scale", tuple(SCALES)),
                     help="problem sizes: default, or tiny (seconds; for tests)")
    for family in FAMILIES:
        if family.add_run_options is not None and not family.run_options_last:
            family.add_run_options(run)
    run.add_argument("--repeat", type=positive_int("--repeat"), default=1, metavar="K",
                     help="launch each benchmark K times (in rounds) and merge its records")
    run.add_argument("--plan", action="store_true",
                     help="print each step with its sizes, memory per node, ranks and "
                     "predicted time, and the totals; launch nothing (docs/main-job.md)")
    run.add_argument("--json", action="store_true", help="with --plan: the plan as JSON")
    run.add_argument("--node", metavar="SPEC",
                     help="with --plan: plan for another machine, e.g. cores=128,numa=8,"
                     "l3=32MiB,l3-shared-by=8,memory=512GiB (docs/sizing.md)")
    run.add_argument("--budget", type=positive_seconds("--budget"), metavar="S",
                     help="seconds the whole run should take: HPL's share and the time "
                     "boxes follow it (main job: 180)")
    add_launch_options(run, default_np="number of CPU cores")
    for family in FAMILIES:
        if family.add_run_options is not None and family.run_options_last:
            family.add_run_options(run)
    return run


def _check_run(args: argparse.Namespace) -> None:
    for flag, given in (("--json", args.json), ("--node", args.node is not None)):
        if given and not args.plan:
            raise UsageError(f"{flag} is for --plan (hpcprobe run --plan {flag} ...)")
    for family in FAMILIES:
        if family.check_run is not None:
            family.check_run(args)


def _add_show_parser(subparsers) -> CliParser:
    show = subparsers.add_parser("show", help="print records from JSON Lines files")
    show.add_argument("files", nargs="+", metavar="FILE")
    show.add_argument("--format", default="table", type=choice("format", FORMATS))
    return show


# The commands of no family, placed among the families' in the list of commands.
GENERIC_COMMANDS = (
    Command("run", 40, _add_run_parser, command_run, _check_run),
    Command("study", 41, add_study_parser, command_study, check_study),
    Command("screen", 41, add_screen_parser, command_screen, check_screen),
    Command("show", 43, _add_show_parser, command_show),
    Command("report", 44, add_report_parser, command_report),
    Command("compare", 45, add_compare_parser, command_compare, check_compare),
    Command("history", 45.5, add_history_parser, command_history),
    Command("sysinfo", 46, lambda sub: sub.add_parser("sysinfo", help="this machine's metadata"),
            lambda args, argv: command_sysinfo()),
    Command("list", 47, lambda sub: sub.add_parser("list", help="kernels and suites"),
            lambda args, argv: command_list()),
    Command("cluster", 90, add_cluster_parser, command_cluster, check_cluster),
    Command("launch", 91, add_launch_parser, command_launch, check_launch),
    # The job's command is checked by this module's parser (parse_arguments, below).
    Command("script", 92, add_script_parser, command_script,
            lambda args: check_script(args, parse_arguments, COMMANDS),
            value_may_look_like_option=("--array-over",)),
)
ALL_COMMANDS: Dict[str, Command] = {command.name: command for command in sorted(
    GENERIC_COMMANDS + tuple(command for family in FAMILIES for command in family.commands),
    key=lambda command: command.order)}
COMMANDS = tuple(ALL_COMMANDS)
# Options whose value may itself start with "-": launcher flags such as --bind-to, and
# the numbers of the commands that say so (-5e-5, which argparse would not take).
_VALUE_MAY_LOOK_LIKE_OPTION = ("--launcher-arg",) + tuple(dict.fromkeys(
    option for command in ALL_COMMANDS.values() for option in command.value_may_look_like_option))


def build_parser(only: Optional[str] = None) -> Dict[str, CliParser]:
    """The top-level parser under key "", and each subcommand's parser by name; with
    `only`, that command's parser alone (the others are names for argparse: building a
    parser may ask hpcprobe-bench for its variants, which only that command needs)."""
    top = CliParser(prog="hpcprobe", description="What an HPC machine delivers.")
    top.add_argument("--version", action="version", version=f"hpcprobe {__version__}")
    subparsers = top.add_subparsers(dest="command", parser_class=CliParser)
    parsers = {"": top}
    for name, command in ALL_COMMANDS.items():
        if only is None or name == only:
            parsers[name] = command.add_parser(subparsers)
        else:
            subparsers.add_parser(name)
    for name, parser in parsers.items():
        parser.prog = f"hpcprobe {name}".strip()
    return parsers


def _check_command_word(argv: Sequence[str]) -> Optional[str]:
    """The command named (None for --help or --version before it); the first word must
    be a command (argparse's own message names no suggestion)."""
    for word in argv:
        if word in ("-h", "--help", "--version"):
            return None
        if word.startswith("-"):
            raise unknown("option", word, ["--help", "--version"])
        if word not in COMMANDS:
            raise unknown("command", word, COMMANDS)
        return word
    raise UsageError(f"missing command (allowed: {', '.join(COMMANDS)})")


def _join_option_values(argv: Sequence[str]) -> List[str]:
    """["--launcher-arg", "--bind-to"] -> ["--launcher-arg=--bind-to"]: argparse would
    take "--bind-to" for an option of ours."""
    joined: List[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":  # what follows is a program's own (hpcprobe launch)
            return joined + [word, *words]
        if word in _VALUE_MAY_LOOK_LIKE_OPTION:
            value = next(words, None)
            joined.append(word if value is None else f"{word}={value}")
        else:
            joined.append(word)
    return joined


def _reject_extras(extras: Sequence[str], parser: CliParser) -> None:
    options = [word for word in extras if word.startswith("-") and word != "-"]
    if options:
        name = options[0].split("=", 1)[0]
        raise UsageError(
            f"unknown option '{name}' for '{parser.prog}' (allowed: "
            f"{', '.join(parser.long_options)}){suggestion(name, parser.long_options)}"
        )
    raise UsageError(f"unexpected argument '{extras[0]}' for '{parser.prog}'")


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parsers = build_parser(only=_check_command_word(argv))
    args, extras = parsers[""].parse_known_args(_join_option_values(argv))
    if extras:
        _reject_extras(extras, parsers[args.command])
    check = ALL_COMMANDS[args.command].check
    if check is not None:
        check(args)
    return args


def run_command(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    return ALL_COMMANDS[args.command].run(args, user_argv)


def _print_error(message: str) -> None:
    try:
        print(f"hpcprobe: {plain(message, None)}", file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr is gone too: the exit status alone says it


def _silence_stdout() -> None:
    """Point stdout's descriptor at /dev/null: what its buffer still holds goes there
    at exit, instead of failing again and Python printing "Exception ignored ...
    BrokenPipeError" (the recipe of Python's signal documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass  # a stdout without a descriptor (a test's StringIO): nothing to do at exit


def _flushed(status: int) -> int:
    """`status` once stdout is written out; a failure now (its buffer held the last of
    the output) is the command's: quiet for a closed pipe, one line for the others."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return status if status != EXIT_OK else EXIT_RUNTIME_FAILURE
    except OSError as error:
        _silence_stdout()
        _print_error(f"cannot write to standard output: {error.strerror or error}")
        return EXIT_IO_FAILURE
    return status


def _io_failure(error: OSError) -> int:
    """One line for an I/O error no command turned into a message, and exit status 4.
    A write to stdout names no file; a full disk or quota can only come of a write."""
    try:
        sys.stdout.flush()  # the output so far, if stdout was not what failed
    except OSError:
        _silence_stdout()  # it was: what it still holds must not fail again at exit
    reason = error.strerror or str(error)
    if error.filename is not None:
        _print_error(f"I/O error: {error.filename}: {reason}")
    elif error.errno in _WRITE_ERRORS:
        _print_error(f"cannot write the output: {reason}")
    else:
        _print_error(f"I/O error: {reason}")
    return EXIT_IO_FAILURE


def print_overview() -> int:
    """`hpcprobe` alone: every command by group, not an error."""
    top = build_parser()[""]
    action = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    print(overview_text(command_helps(action), __version__))  # our own help texts
    return EXIT_OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `hpcprobe` script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return _flushed(print_overview())
    # Before any launch: a dead proxy's ranks become our children (processes.py), and
    # TERM/HUP/INT stop the launch with everything it started (signals.py).
    become_subreaper()
    try:
        with handled():
            args = parse_arguments(argv)
            status = run_command(args, ["hpcprobe", *argv])
    except HpcprobeError as error:
        _print_error(error.message)
        status = error.exit_status
    except StopSignal as stop:
        kept = f"; records measured before it are kept in {stop.results_path}" if (
            stop.results_path) else ""
        _print_error(f"stopped by {stop.name}{kept}")
        status = stop.exit_status
    except KeyboardInterrupt:
        _print_error("interrupted")
        status = 130
    except BrokenPipeError:  # e.g. `hpcprobe show --format csv ... | head`: quiet
        _silence_stdout()
        return EXIT_RUNTIME_FAILURE
    except OSError as error:  # e.g. `hpcprobe show FILE > /dev/full`
        return _io_failure(error)
    return _flushed(status)
