"""The `hpcprobe` command line: parsing, and one-line errors with suggestions.

Every mistake on the command line ends with ONE line on stderr that names what was
wrong, what is allowed and, when something close exists, "did you mean", and exit
status 2. Values that hpcprobe-bench validates (table size, look-ahead, ...) are passed
through untouched: the bench answers with its own one-line error. What only hpcprobe
uses (a sweep's look-ahead list, the model's inputs) is checked here, before anything
is launched.
"""

import argparse
import difflib
import math
import sys
from typing import Callable, Dict, List, Optional, Sequence

from hpcprobe import __version__
from hpcprobe.errors import EXIT_RUNTIME_FAILURE, HpcprobeError, UsageError
from hpcprobe.model import MAX_CROSSOVER_PROCS, Topology, parse_topology
from hpcprobe.suites import SCALES, SUITE_NAMES

COMMANDS = ("ra", "run", "model", "show", "sysinfo", "list")
VARIANTS = ("single", "star", "mpi")
# What may follow `hpcprobe ra`: a variant, or "sweep" (ra mpi over look-aheads).
RA_WORDS = VARIANTS + ("sweep",)
MPI_ALGORITHMS = ("reference", "alltoall", "hypercube", "torus")
MODELS = ("ra",)
FORMATS = ("table", "json", "csv")
# Plimpton et al.'s Table 4: the look-aheads Q of `hpcprobe ra sweep` by default.
SWEEP_LOOKAHEADS = (1, 4, 16, 64, 256, 1024, 2048, 4096, 8192, 32768)
MAX_SWEEP_LOOKAHEAD = 32768
# Options whose value may itself start with "-": launcher flags such as --bind-to, and
# numbers that argparse would not take for negative ones (-5e-5), so that their own
# check can say what is allowed.
_VALUE_MAY_LOOK_LIKE_OPTION = ("--launcher-arg", "--t1", "--tc", "--link-bandwidth",
                               "--bytes-per-update")


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


def _float_option(option: str, rule: str,
                  accept: Callable[[float], bool]) -> Callable[[str], float]:
    """argparse type: a finite number that `accept`s, else "OPTION must be RULE"."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and accept(value)):
            raise UsageError(f"{option} must be {rule}, not '{text}'")
        return value
    return parse


def positive_seconds(option: str) -> Callable[[str], float]:
    return _float_option(option, "a number of seconds > 0", lambda value: value > 0)


def nonnegative_seconds(option: str) -> Callable[[str], float]:
    return _float_option(option, "a number of seconds >= 0", lambda value: value >= 0)


def positive_number(option: str, unit: str) -> Callable[[str], float]:
    return _float_option(option, f"a number of {unit} > 0", lambda value: value > 0)


def int_list(option: str, low: int, high: int, example: str,
             high_text: str = "") -> Callable[[str], List[int]]:
    """argparse type: a comma list of whole numbers from `low` to `high` (shown as
    `high_text` if given), in the order given."""
    rule = f"a comma list of whole numbers from {low} to {high_text or high}, such as {example}"

    def parse(text: str) -> List[int]:
        if not text.strip():
            raise UsageError(f"{option} is empty; give {rule}")
        values = []
        for word in text.split(","):
            try:
                value = int(word)
            except ValueError:
                value = low - 1
            if not low <= value <= high:
                raise UsageError(f"{option} takes {rule}; '{word}' is not one")
            values.append(value)
        return values
    return parse


def topology(text: str) -> Topology:
    try:
        return parse_topology(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


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


def _add_launch_options(parser: CliParser, default_np: str,
                        hpcc_summary: bool = True) -> None:
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
    if hpcc_summary:
        parser.add_argument("--hpcc-summary", action="store_true",
                            help="print and write an HPCC-compatible summary block")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no benchmark output")


def _add_ra_parser(subparsers) -> CliParser:
    ra = subparsers.add_parser("ra", help="HPC Challenge RandomAccess (GUPS)")
    ra.add_argument("variant", nargs="?", type=choice("variant", RA_WORDS),
                    metavar="{single,star,mpi,sweep}",
                    help="a variant, or sweep: ra mpi over look-aheads (Plimpton's Table 4)")
    ra.add_argument("--algo", type=choice("algorithm", MPI_ALGORITHMS), metavar="NAME",
                    help="mpi and sweep: " + ", ".join(MPI_ALGORITHMS)
                    + " (default: reference for mpi, hypercube for sweep)")
    ra.add_argument("--lookahead", metavar="L",
                    help="most updates pending; sweep: a comma list (default "
                         + ",".join(map(str, SWEEP_LOOKAHEADS)) + ")")
    # Passed to hpcprobe-bench as typed; it validates them (docs/cli.md).
    for option, metavar in (("--table-log2", "K"), ("--memory-fraction", "F"),
                            ("--rng", "poly|lcg"), ("--repeat", "R"), ("--warmup", "W"),
                            ("--time-limit", "S"), ("--hugepages", "on|off"),
                            ("--owner", "division|predict"), ("--grid", "AxBxC"),
                            ("--dims", "D"), ("--mods", "none|all|LIST")):
        ra.add_argument(option, metavar=metavar, help="see hpcprobe-bench (docs/cli.md)")
    ra.add_argument("--allow-noncompliant", action="store_true",
                    help="accept a look-ahead over 1024 (record marked non-compliant)")
    ra.add_argument("--no-verify", action="store_true", help="skip verification")
    _add_launch_options(ra, default_np="1; sweep: number of CPU cores")
    return ra


def _add_model_parser(subparsers) -> CliParser:
    model = subparsers.add_parser("model", help="performance models (ra: Plimpton, Garg)")
    model.add_argument("subject", nargs="?", type=choice("model", MODELS), metavar="{ra}")
    model.add_argument("--t1", type=positive_seconds("--t1"), metavar="S",
                       help="seconds for Q updates on one process (default: fitted)")
    model.add_argument("--tc", type=nonnegative_seconds("--tc"), metavar="S",
                       help="seconds per exchange stage of Q updates (default: fitted)")
    model.add_argument("--q", type=positive_int("--q"), default=1024, metavar="Q",
                       help="look-ahead: updates per process per step (default 1024)")
    model.add_argument("--procs", metavar="P,P,...",
                       type=int_list("--procs", 1, MAX_CROSSOVER_PROCS, "1,4,16,64", "2^40"),
                       help="process counts (default: powers of two 1 to 2^20)")
    model.add_argument("--from", dest="from_paths", nargs="+", action="extend",
                       metavar="FILE|DIR", help="records to fit T_1, T_C and b from")
    model.add_argument("--measure", action="store_true",
                       help="launch the two hypercube runs that T_1 and T_C are fitted from")
    model.add_argument("--algo", type=choice("algorithm", MPI_ALGORITHMS),
                       default="hypercube", metavar="NAME",
                       help="algorithm of the measured points and b (default hypercube)")
    model.add_argument("--topology", type=topology, metavar="SPEC",
                       help="torus:AxBxC, torus:Nd, mesh:AxBxC, mesh:Nd or fattree")
    model.add_argument("--link-bandwidth", type=positive_number("--link-bandwidth", "bytes/s"),
                       metavar="B/S", help="bytes/s per link and direction")
    model.add_argument("--bytes-per-update",
                       type=positive_number("--bytes-per-update", "bytes"), metavar="B",
                       help="b of the bottleneck bound (default 8)")
    model.add_argument("--json", action="store_true", help="one JSON object per line")
    _add_launch_options(model, default_np="2, with --measure", hpcc_summary=False)
    return model


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
    parsers = {"": top, "ra": _add_ra_parser(subparsers), "run": _add_run_parser(subparsers),
               "model": _add_model_parser(subparsers)}
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
    if args.command == "ra":
        _check_ra(args)
    if args.command == "model":
        _check_model(args)
    return args


def _check_ra(args: argparse.Namespace) -> None:
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe ra' (allowed: {', '.join(RA_WORDS)})")
    if args.algo is not None and args.variant in ("single", "star"):
        raise UsageError(f"--algo applies to 'hpcprobe ra mpi' and 'hpcprobe ra sweep' only; "
                         f"'{args.variant}' has one algorithm")
    if args.variant != "sweep":
        return
    if args.hpcc_summary:
        raise UsageError("--hpcc-summary applies to 'hpcprobe ra single|star|mpi' and "
                         "'hpcprobe run', not to 'ra sweep' (look-aheads over 1024 are not "
                         "HPCC runs)")
    parse = int_list("--lookahead", 1, MAX_SWEEP_LOOKAHEAD, "1,4,16,64")
    args.lookaheads = parse(args.lookahead) if args.lookahead is not None else list(
        SWEEP_LOOKAHEADS)


# Options of `hpcprobe model` that only --measure uses.
_MEASURE_OPTIONS = (("np", "--np"), ("out", "--out"), ("launcher", "--launcher"),
                    ("launcher_arg", "--launcher-arg"), ("time_budget", "--time-budget"))


def _check_model_inputs(args: argparse.Namespace) -> None:
    missing = [option for attribute, option in (("t1", "--t1"), ("tc", "--tc"))
               if getattr(args, attribute) is None]
    if missing and not args.from_paths and not args.measure:
        raise UsageError(f"no value for {' and '.join(missing)}: give "
                         f"{' and '.join(option + ' S' for option in missing)}, or records to "
                         "fit from with --from FILE|DIR, or --measure")
    if args.measure:
        if args.np is not None and args.np < 2:
            raise UsageError(f"--np {args.np} is too few for --measure: T_C is fitted from an "
                             "exchange between ranks (allowed: 2 or more)")
        return
    for attribute, option in _MEASURE_OPTIONS:
        if getattr(args, attribute):
            raise UsageError(f"{option} applies with --measure only (it launches the runs "
                             "T_1 and T_C are fitted from)")


def _check_model(args: argparse.Namespace) -> None:
    if args.subject is None:
        raise UsageError(f"missing model for 'hpcprobe model' (allowed: {', '.join(MODELS)})")
    _check_model_inputs(args)
    if args.topology is not None and args.link_bandwidth is None:
        raise UsageError("--topology needs --link-bandwidth B/S (bytes/s per link and "
                         "direction)")
    for attribute, option in (("link_bandwidth", "--link-bandwidth"),
                              ("bytes_per_update", "--bytes-per-update")):
        if getattr(args, attribute) is not None and args.topology is None:
            raise UsageError(f"{option} applies with --topology only (the bottleneck bound "
                             "needs a network)")


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
