"""The argparse types of `hpcprobe` in one place: words from a list, counts, numbers,
comma lists, byte sizes and ranges, percentages; the parser class whose mistakes are one
UsageError; and the launch options every launching command shares.

Each type raises UsageError with the one line the user sees (cli.py prints it).
"""

import argparse
import difflib
import math
import re
from typing import Callable, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.errors import UsageError


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


def is_count(text: str) -> bool:
    # ASCII digits only: int() would also take "+3", " 3" and "٣", which the bench won't.
    return text.isascii() and text.isdigit()


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


def nonnegative_int(option: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not is_count(text):
            raise UsageError(f"{option} must be a whole number >= 0, not '{text}'")
        return int(text)
    return parse


def float_option(option: str, rule: str,
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
    return float_option(option, "a number of seconds > 0", lambda value: value > 0)


def nonnegative_seconds(option: str) -> Callable[[str], float]:
    return float_option(option, "a number of seconds >= 0", lambda value: value >= 0)


def positive_number(option: str, unit: str) -> Callable[[str], float]:
    return float_option(option, f"a number of {unit} > 0", lambda value: value > 0)


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


MAX_BYTE_SIZES = 64


def _size(word: str) -> Optional[int]:
    shifts = {"K": 10, "M": 20, "G": 30}
    digits, shift = word, 0
    if word[-1:].upper() in shifts:
        digits, shift = word[:-1], shifts[word[-1].upper()]
    if not is_count(digits) or int(digits) < 1:
        return None
    return int(digits) << shift


def byte_sizes(option: str) -> Callable[[str], List[int]]:
    """argparse type: increasing sizes in bytes, each with an optional K, M or G (binary)."""
    def parse(text: str) -> List[int]:
        sizes: List[int] = []
        for word in text.split(","):
            size = _size(word)
            if size is None or (sizes and size <= sizes[-1]) or len(sizes) == MAX_BYTE_SIZES:
                raise UsageError(f"{option} takes up to {MAX_BYTE_SIZES} increasing sizes in "
                                 f"bytes such as 32,1K,16K, not '{text}'")
            sizes.append(size)
        return sizes
    return parse


def distance_list(text: str) -> List[int]:
    """argparse type of --distance: N, A..B, or a comma list of them, increasing, >= 1."""
    found: List[int] = []
    for word in text.split(","):
        low, dots, high = word.partition("..")
        try:
            first, last = int(low), int(high if dots else low)
        except ValueError:
            first, last = 0, -1
        if first < 1 or last < first or (found and first <= found[-1]):
            raise UsageError(f"--distance takes increasing hop counts >= 1 (N, A..B or a "
                             f"comma list such as 1,2,4), not '{text}'")
        found.extend(range(first, last + 1))
    return found


MAX_TOLERANCE_PERCENT = 1000.0


def tolerance(text: str) -> float:
    """argparse type of --tolerance: "5%" or "5" (percent) -> 5.0."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*%?\s*", text)
    value = float(match.group(1)) if match else -1.0
    if not 0 <= value <= MAX_TOLERANCE_PERCENT:
        raise UsageError(f"--tolerance takes a percentage from 0 to {MAX_TOLERANCE_PERCENT:g}, "
                         f"such as 5%, not '{text}'")
    return value


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


# (attribute, option) of the launch options that take a value (add_launch_options): what
# a command that launches nothing refuses.
LAUNCH_ATTRIBUTES = (("np", "--np"), ("out", "--out"), ("launcher", "--launcher"),
                     ("time_budget", "--time-budget"), ("cluster", "--cluster"),
                     ("ppn", "--ppn"))


def add_launcher_options(parser: CliParser) -> None:
    """--launcher, --launcher-arg and --quiet, for the commands that launch with options of
    their own for the rest (study, screen)."""
    parser.add_argument("--launcher", metavar="NAME|TEMPLATE",
                        help="mpiexec, mpirun, srun, or a template such as "
                             "\"aprun -n {np} {cmd}\" (default: srun in Slurm, else mpiexec)")
    parser.add_argument("--launcher-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for the launcher (repeatable)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no benchmark output")


def add_launch_options(parser: CliParser, default_np: str, hpcc_summary: bool = True) -> None:
    """--np, --out, --launcher, --launcher-arg, --time-budget, [--hpcc-summary], --quiet."""
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
    parser.add_argument("--cluster", metavar="NAME",
                        help="run on the emulated cluster NAME (hpcprobe cluster up; "
                             "docs/cluster.md)")
    parser.add_argument("--ppn", type=positive_int("--ppn"), metavar="K",
                        help="with --cluster: ranks per host (default: the hosts' cores)")
    if hpcc_summary:
        parser.add_argument("--hpcc-summary", action="store_true",
                            help="print and write an HPCC-compatible summary block")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no benchmark output")


def checked_as_typed(types: Mapping[str, Callable[[str], object]],
                     attribute: str) -> Callable[[str], str]:
    """An argparse type for an option that hpcprobe-bench validates as well: checked with
    `types[attribute]` (when there is one), so a mistake is refused before any launch, and
    kept as the text the user typed, which is what the bench gets."""
    check = types.get(attribute)

    def parse(text: str) -> str:
        if check is not None:
            check(text)
        return text
    return parse


def bench_options(args: argparse.Namespace, values: Sequence[Tuple[str, str]]) -> List[str]:
    """hpcprobe-bench options of the attributes given, as typed."""
    options: List[str] = []
    for attribute, option in values:
        value = getattr(args, attribute, None)
        if value is not None:
            options += [option, value]
    return options
