"""The `hpcprobe` command line: parsing, and one-line errors with suggestions.

Every mistake on the command line ends with ONE line on stderr that names what was
wrong, what is allowed and, when something close exists, "did you mean", and exit
status 2. Values that hpcprobe-bench validates (table size, look-ahead, ...) are passed
through untouched: the bench answers with its own one-line error.
"""

import argparse
import difflib
import math
import sys
from typing import Callable, Dict, List, Optional, Sequence

from hpcprobe import __version__
from hpcprobe.errors import EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.suites import SCALES, SUITE_NAMES

COMMANDS = ("ra", "run", "show", "sysinfo", "list")
VARIANTS = ("single", "star", "mpi")
FORMATS = ("table", "json", "csv")
# Options whose value may itself start with "-" (launcher flags such as --bind-to).
_VALUE_MAY_LOOK_LIKE_OPTION = ("--launcher-arg",)


def suggestion(word: str, allowed: Sequence[str]) -> str:
    """"; did you mean 'X'?" when something in `allowed` is close to `word`."""
    close = difflib.get_close_matches(word, list(allowed), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def unknown(kind: str, word: str, allowed: Sequence[str]) -> UsageError:
    return UsageError(
        f"unknown {kind} '{word}' (allowed: {', '.join(allowed)}){suggestion(word, allowed)}"
    )


def choice(kind: str, allowed: Sequence[str]) -> Callable[[str], str]:
    """argparse type: one of `allowed`, else a UsageError with a suggestion."""
    def parse(text: str) -> str:
        if text not in allowed:
            raise unknown(kind, text, allowed)
        return text
    return parse


def positive_int(option: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise UsageError(f"{option} must be a whole number >= 1, not '{text}'")
        return value
    return parse


def positive_seconds(option: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (value > 0 and math.isfinite(value)):
            raise UsageError(f"{option} must be a number of seconds > 0, not '{text}'")
        return value
    return parse


class CliParser(argparse.ArgumentParser):
    """ArgumentParser that raises UsageError instead of printing usage, and that
    remembers its long options for "did you mean"."""

    def __init__(self, *args, **kwargs) -> None:
        self.long_options: List[str] = []
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        self.long_options += [name for name in action.option_strings if name.startswith("--")]
        return action

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(message)


def _add_launch_options(parser: CliParser, default_np: str) -> None:
    parser.add_argument("--np", type=positive_int("--np"), metavar="N",
                        help=f"MPI ranks (default: {default_np})")
    parser.add_argument("--out", metavar="DIR",
                        help="directory for results.jsonl and logs "
                             "(default: results/<YYYYmmdd-HHMMSS>/)")
    parser.add_argument("--launcher", metavar="NAME|TEMPLATE",
                        help="mpiexec, mpirun, srun, or a template such as "
                             "\"aprun -n {np} {cmd}\" (default: srun in Slurm, else mpiexec)")
    parser.add_argument("--launcher-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for the launcher (repeatable)")
    parser.add_argument("--time-budget", type=positive_seconds("--time-budget"),
                        metavar="S", help="stop a benchmark that runs longer (seconds)")
    parser.add_argument("--hpcc-summary", action="store_true",
                        help="print and write an HPCC-compatible summary block")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no benchmark output")


def _add_ra_parser(subparsers) -> CliParser:
    ra = subparsers.add_parser("ra", help="HPC Challenge RandomAccess (GUPS)")
    ra.add_argument("variant", nargs="?", type=choice("variant", VARIANTS),
                    metavar="{single,star,mpi}")
    # Passed to hpcprobe-bench as typed; it validates them (docs/cli.md).
    for option, metavar in (("--table-log2", "K"), ("--memory-fraction", "F"),
                            ("--rng", "poly|lcg"), ("--lookahead", "L"),
                            ("--repeat", "R"), ("--warmup", "W"), ("--time-limit", "S"),
                            ("--hugepages", "on|off")):
        ra.add_argument(option, metavar=metavar, help="see hpcprobe-bench (docs/cli.md)")
    ra.add_argument("--allow-noncompliant", action="store_true",
                    help="accept a look-ahead over 1024 (record marked non-compliant)")
    ra.add_argument("--no-verify", action="store_true", help="skip verification")
    _add_launch_options(ra, default_np="1")
    return ra


def _add_run_parser(subparsers) -> CliParser:
    run = subparsers.add_parser("run", help="run a suite of benchmarks")
    run.add_argument("--suite", default="quick", type=choice("suite", SUITE_NAMES))
    run.add_argument("--scale", default="default", type=choice("scale", tuple(SCALES)),
                     help="problem sizes: default, or tiny (seconds; for tests)")
    _add_launch_options(run, default_np="number of CPU cores")
    return run


def build_parser() -> Dict[str, CliParser]:
    """The top-level parser under key "", and each subcommand's parser by name."""
    top = CliParser(prog="hpcprobe", description="What an HPC machine delivers.")
    top.add_argument("--version", action="version", version=f"hpcprobe {__version__}")
    subparsers = top.add_subparsers(dest="command", parser_class=CliParser)
    parsers = {"": top, "ra": _add_ra_parser(subparsers), "run": _add_run_parser(subparsers)}
    show = subparsers.add_parser("show", help="print records from JSON Lines files")
    show.add_argument("files", nargs="+", metavar="FILE")
    show.add_argument("--format", default="table", type=choice("format", FORMATS))
    parsers["show"] = show
    parsers["sysinfo"] = subparsers.add_parser("sysinfo", help="this machine's metadata")
    parsers["list"] = subparsers.add_parser("list", help="kernels and suites")
    for name, parser in parsers.items():
        parser.prog = f"hpcprobe {name}".strip()
    return parsers


def _check_command_word(argv: Sequence[str]) -> None:
    """The first word must be a command (argparse's own message names no suggestion)."""
    for word in argv:
        if word in ("-h", "--help", "--version"):
            return
        if word.startswith("-"):
            raise unknown("option", word, ["--help", "--version"])
        if word not in COMMANDS:
            raise unknown("command", word, COMMANDS)
        return
    raise UsageError(f"missing command (allowed: {', '.join(COMMANDS)})")


def _join_option_values(argv: Sequence[str]) -> List[str]:
    """["--launcher-arg", "--bind-to"] -> ["--launcher-arg=--bind-to"]: argparse would
    take "--bind-to" for an option of ours."""
    joined: List[str] = []
    words = iter(argv)
    for word in words:
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
    _check_command_word(argv)
    parsers = build_parser()
    args, extras = parsers[""].parse_known_args(_join_option_values(argv))
    if extras:
        _reject_extras(extras, parsers[args.command])
    if args.command == "ra" and args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe ra' (allowed: {', '.join(VARIANTS)})")
    return args


def _print_error(message: str) -> None:
    print(f"hpcprobe: {message}", file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `hpcprobe` script; returns the exit status."""
    from hpcprobe.commands import run_command  # the heavy imports wait for valid input

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse_arguments(argv)
        return run_command(args, ["hpcprobe", *argv])
    except HpcprobeError as error:
        _print_error(error.message)
        return error.exit_status
    except KeyboardInterrupt:
        _print_error("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `hpcprobe show --format csv ... | head`
        return EXIT_RUNTIME_FAILURE
