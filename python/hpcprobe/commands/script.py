"""`hpcprobe script --scheduler slurm|pbs [...] -- COMMAND ARGS...`: a job script that
runs an hpcprobe command inside a Slurm or PBS allocation (docs/cli.md). The command is
checked by hpcprobe's own parser, which cli.py passes in (nothing runs), before anything
is written; the script's text comes from launch/schedulers.py."""

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from hpcprobe.cli_types import CliParser, choice, positive_int
from hpcprobe.errors import EXIT_OK, UsageError
from hpcprobe.launch.launchers import is_executable_file
from hpcprobe.launch.schedulers import (OUT_WORD, SCHEDULERS, JobCommand, JobRequest,
                                        job_script)
from hpcprobe.output_files import write_text_atomically

Parse = Callable[[Sequence[str]], argparse.Namespace]
# --array-over: ("--option", (value, ...)), or None.
Array = Optional[Tuple[str, Tuple[str, ...]]]

# Commands that run on this machine, not inside an allocation.
NOT_IN_A_JOB = ("script", "cluster", "launch")
# Slurm's default MaxArraySize (1001) allows the indices 0..1000.
MAX_ARRAY_VALUES = 1000
_WALLTIME = re.compile(r"[0-9]{1,4}:[0-5][0-9]:[0-5][0-9]")
# Names that go into a directive line as they are: no spaces, quotes or newlines. A job
# name starts with a letter, as PBS requires.
_NAME = re.compile(r"[A-Za-z0-9_.+@-]{1,64}")
_JOB_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]{0,63}")
_OPTION = re.compile(r"--[A-Za-z0-9][A-Za-z0-9-]*")


def walltime(text: str) -> str:
    """argparse type of --time: HH:MM:SS, more than zero."""
    if not _WALLTIME.fullmatch(text) or not any(digit not in "0:" for digit in text):
        raise UsageError(f"--time takes a time limit HH:MM:SS (hours 0-9999, minutes and "
                         f"seconds 00-59, not all zero), such as 00:30:00, not '{text}'")
    return text


def name_type(option: str, pattern: "re.Pattern[str]", rule: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if not pattern.fullmatch(text):
            raise UsageError(f"{option} takes {rule}, not '{text}'")
        return text
    return parse


def array_over(text: str) -> Tuple[str, Tuple[str, ...]]:
    """argparse type of --array-over: OPTION=V1,V2,... -> ("--option", ("V1", "V2"))."""
    option, equals, values_text = text.partition("=")
    option = option if option.startswith("--") else f"--{option}"
    values = tuple(values_text.split(","))
    rule = (f"OPTION=V1,V2,... (a long option of the command and 2 to {MAX_ARRAY_VALUES} "
            "values, none empty), such as --table-log2=20,22")
    if (not equals or not _OPTION.fullmatch(option) or not 2 <= len(values) <= MAX_ARRAY_VALUES
            or "" in values):
        raise UsageError(f"--array-over takes {rule}, not '{text}'")
    return option, values


def this_hpcprobe() -> str:
    """The hpcprobe running now, by absolute path: beside this Python (a venv), else on
    PATH, else the bare name."""
    beside_python = str(Path(sys.executable).parent / "hpcprobe")
    if is_executable_file(beside_python):
        return beside_python
    return shutil.which("hpcprobe") or "hpcprobe"


def add_script_parser(subparsers) -> CliParser:
    script = subparsers.add_parser(
        "script", help="a Slurm or PBS job script that runs an hpcprobe command in its "
        "allocation (a job array with --array-over)")
    script.add_argument("--scheduler", metavar="slurm|pbs",
                        type=choice("scheduler", tuple(SCHEDULERS)),
                        help="the scheduler the script is for (required)")
    script.add_argument("--nodes", type=positive_int("--nodes"), default=1, metavar="N",
                        help="nodes (default 1)")
    script.add_argument("--ntasks-per-node", type=positive_int("--ntasks-per-node"),
                        default=1, metavar="K",
                        help="MPI ranks per node (default 1); --np is N x K unless given")
    script.add_argument("--time", type=walltime, metavar="HH:MM:SS",
                        help="time limit (default: the scheduler's)")
    script.add_argument("--partition", metavar="P", help="partition (PBS: queue)",
                        type=name_type("--partition", _NAME, "a partition (PBS: queue) name "
                                       "of 1-64 letters, digits and _.+@-"))
    script.add_argument("--account", metavar="A", help="account to charge",
                        type=name_type("--account", _NAME,
                                       "an account name of 1-64 letters, digits and _.+@-"))
    script.add_argument("--job-name", default="hpcprobe", metavar="NAME",
                        help="job name (default hpcprobe)",
                        type=name_type("--job-name", _JOB_NAME,
                                       "a letter, then up to 63 letters, digits and _.+-"))
    script.add_argument("--array-over", type=array_over, metavar="OPTION=V1,V2,...",
                        help="a job array: element i runs the command with OPTION=Vi, "
                             "into its own results directory")
    script.add_argument("--hpcprobe", metavar="PATH", default=None,
                        help="the hpcprobe the job runs (default: this one, by path)")
    script.add_argument("--output", metavar="FILE",
                        help="write the script to FILE (default: standard output)")
    script.add_argument("job", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS",
                        help="the hpcprobe command the job runs, without 'hpcprobe'")
    return script


def _command_words(words: Sequence[str], commands: Sequence[str]) -> List[str]:
    """The job's command after `--`, its first word one of hpcprobe's commands."""
    words = list(words[1:] if words[:1] == ["--"] else words)
    allowed = [name for name in commands if name not in NOT_IN_A_JOB]
    listed = f"allowed: {', '.join(allowed)}"
    if not words:
        raise UsageError(f"missing command: hpcprobe script --scheduler slurm|pbs [...] -- "
                         f"COMMAND ARGS... ({listed})")
    first = words[0]
    if first in NOT_IN_A_JOB:
        raise UsageError(f"'hpcprobe {first}' does not run inside a job ({listed})")
    if first not in allowed:
        raise UsageError(f"the job's command is not an hpcprobe command: '{first}' ({listed})")
    for word in words:
        if word in ("-h", "--help", "--version"):
            raise UsageError(f"the job's command asks for {word}; run 'hpcprobe {first} "
                             f"{word}' instead")
    return words


def _parsed(parse: Parse, words: Sequence[str],
            what: str = "the job's command") -> argparse.Namespace:
    try:
        return parse(words)
    except UsageError as error:
        raise UsageError(f"{what}: {error.message}") from None


def _check_array(parse: Parse, words: Sequence[str], array: Array) -> None:
    """Each element's command (the command with OPTION=VALUE) checked by the parser."""
    if array is None:
        return
    option, values = array
    if option == "--out":
        raise UsageError("--array-over cannot take --out: each element writes its own "
                         "directory (DIR/INDEX when the command gives --out DIR)")
    if any(word == option or word.startswith(f"{option}=") for word in words):
        raise UsageError(f"--array-over {option}: the job's command gives {option} too; "
                         "give its values in one place")
    for value in values:
        _parsed(parse, [*words, f"{option}={value}"])


def _first_element(words: Sequence[str], array: Array) -> List[str]:
    """The command alone, or as the array's first element runs it."""
    return list(words) if array is None else [*words, f"{array[0]}={array[1][0]}"]


def _without_out(words: Sequence[str], out: str) -> List[str]:
    """`words` without the last `--out DIR` (argparse takes the last)."""
    for i in reversed(range(len(words))):
        if words[i] == f"--out={out}":
            return [*words[:i], *words[i + 1:]]
        if words[i] == "--out" and words[i + 1:i + 2] == [out]:
            return [*words[:i], *words[i + 2:]]
    return list(words)


def _added_words(parsed: argparse.Namespace, args: argparse.Namespace) -> List[str]:
    added: List[str] = []
    if parsed.np is None:
        added += ["--np", str(args.nodes * args.ntasks_per_node)]
    if parsed.launcher is None and parsed.cluster is None:
        added += SCHEDULERS[args.scheduler].launcher_words
    return [*added, OUT_WORD]


def _job_command(parse: Parse, words: List[str], args: argparse.Namespace) -> JobCommand:
    """What the script runs: for a launching command (one with launch options), --np
    N x K unless given, the scheduler's launcher unless one is named, and --out into
    the job's results directory; the whole checked by the parser once more."""
    array = args.array_over
    _check_array(parse, words, array)
    parsed = _parsed(parse, _first_element(words, array))
    array_kw = {} if array is None else {"array_option": array[0], "array_values": array[1]}
    if not hasattr(parsed, "launcher_arg"):
        return JobCommand(tuple(words), **array_kw)
    if parsed.out is not None:
        words = _without_out(words, parsed.out)
    added = _added_words(parsed, args)
    _parsed(parse, [*_first_element(words, array), *added],
            f"the job's command with {' '.join(added)}")
    return JobCommand(tuple(words), tuple(added), parsed.out, **array_kw)


def check_script(args: argparse.Namespace, parse: Parse, commands: Sequence[str]) -> None:
    """Everything refused before a word is written; sets args.job_command."""
    if args.scheduler is None:
        raise UsageError(f"missing --scheduler (allowed: {', '.join(SCHEDULERS)})")
    if args.hpcprobe == "":
        raise UsageError("--hpcprobe takes the path of an hpcprobe program, not ''")
    words = _command_words(args.job, commands)
    args.job_command = _job_command(parse, words, args)


def command_script(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    request = JobRequest(args.nodes, args.ntasks_per_node, args.job_name, args.time,
                         args.partition, args.account,
                         0 if args.array_over is None else len(args.array_over[1]))
    text = job_script(SCHEDULERS[args.scheduler], request, args.hpcprobe or this_hpcprobe(),
                      args.job_command)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text_atomically(Path(args.output), text)
    return EXIT_OK
