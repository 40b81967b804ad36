"""The argparse types of options the bench describes (describe.py): one per described type
and grammar (docs/cli.md, "Value grammars"), each refusing a bad value in one line that
says what is allowed, and each keeping the text the user typed, which is what the bench
gets. The bench checks every value again with its own parser (core/runtime/options.c,
option_grammars.c); these only refuse a mistake before anything is launched.
"""

import math
import re
from typing import Callable, List, Optional

from hpcprobe.cli_types import suggestion, unknown
from hpcprobe.describe import Option
from hpcprobe.errors import UsageError

_SHIFTS = {"K": 10, "M": 20, "G": 30, "T": 40}
_SIZE = re.compile(r"([0-9]+)(?:([KMGT])(?:IB|B)?)?", re.IGNORECASE)
MAX_BYTES = (1 << 64) - 1


def parse_size(text: str) -> Optional[int]:
    """The bench's size grammar: digits with an optional K, M, G or T in either case,
    then optionally B or iB (binary); None when it is not one or passes 2^64 - 1."""
    match = _SIZE.fullmatch(text)
    if not match or not text.isascii():
        return None
    shift = _SHIFTS[match.group(2).upper()] if match.group(2) else 0
    value = int(match.group(1)) << shift
    return value if value <= MAX_BYTES else None


def size_text(value: float) -> str:
    """4096 -> "4K", 67108864 -> "64M": the largest binary unit that divides it."""
    number = int(value)
    for unit, shift in sorted(_SHIFTS.items(), key=lambda item: -item[1]):
        if number and number % (1 << shift) == 0:
            return f"{number >> shift}{unit}"
    return str(number)


def _number_text(value: Optional[float]) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def int_rule(low: Optional[float], high: Optional[float]) -> str:
    if high is None:
        return f"a whole number >= {_number_text(low)}"
    return f"a whole number from {_number_text(low)} to {_number_text(high)}"


def _int_type(option: Option, low: Optional[float], high: Optional[float]):
    rule = int_rule(low, high)

    def parse(text: str) -> str:
        digits = text[1:] if text.startswith("-") else text
        value = int(text) if digits.isascii() and digits.isdigit() else None
        if value is None or (low is not None and value < low) or (
                high is not None and value > high):
            raise UsageError(f"{option.name} must be {rule}, not '{text}'")
        return text
    return parse


def number_rule(option: Option, low: Optional[float], high: Optional[float]) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if option.min_exclusive else '>='} {_number_text(low)}")
    if high is not None:
        parts.append(f"{'<' if option.max_exclusive else '<='} {_number_text(high)}")
    return "a number" + (" " + " and ".join(parts) if parts else "")


def _within(option: Option, value: float, low: Optional[float], high: Optional[float]) -> bool:
    above = low is None or (value > low if option.min_exclusive else value >= low)
    below = high is None or (value < high if option.max_exclusive else value <= high)
    return above and below


def _number_type(option: Option, low: Optional[float], high: Optional[float]):
    rule = number_rule(option, low, high)

    def parse(text: str) -> str:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and _within(option, value, low, high)):
            raise UsageError(f"{option.name} must be {rule}, not '{text}'")
        return text
    return parse


def _choice_type(option: Option):
    kind = option.name.lstrip("-").replace("-", " ")
    allowed = list(option.choices or ())

    def parse(text: str) -> str:
        if text not in allowed:
            raise unknown(kind, text, allowed)
        return text
    return parse


def list_rule(option: Option) -> str:
    alone = "all, none" if option.min == 0 else "all"
    return f"{alone}, or a comma list of {', '.join(option.choices or ())}, each once"


def _list_type(option: Option):
    allowed = list(option.choices or ())
    alone = ["all", "none"] if option.min == 0 else ["all"]
    rule = list_rule(option)

    def parse(text: str) -> str:
        if text in alone:
            return text
        words = text.split(",")
        for index, word in enumerate(words):
            if word in alone:
                raise UsageError(f"{option.name} '{text}': {word} goes alone")
            if word not in allowed:
                raise UsageError(f"{option.name} '{text}': unknown '{word}'"
                                 f"{suggestion(word, allowed)} (allowed: {rule})")
            if word in words[:index]:
                raise UsageError(f"{option.name} '{text}' names '{word}' twice")
        if option.count_max is not None and len(words) > option.count_max:
            raise UsageError(f"{option.name} '{text}' names more than {option.count_max}")
        return text
    return parse


def _size_bounds(option: Option, low: Optional[float], high: Optional[float]) -> str:
    # The bench's int_max 0 is "no upper limit".
    top = size_text(high) if high else str(MAX_BYTES)
    return f"from {size_text(low or 0)} to {top}"


def _bytes_type(option: Option, low: Optional[float], high: Optional[float]):
    rule = (f"a size in bytes {_size_bounds(option, low, high)} (digits with an optional K, "
            "M, G or T, such as 4096, 64K, 1MiB)")

    def parse(text: str) -> str:
        value = parse_size(text)
        if value is None or value < (low or 0) or (high and value > high):
            raise UsageError(f"{option.name} must be {rule}, not '{text}'")
        return text
    return parse


def expand_sizes(text: str) -> Optional[List[int]]:
    """The sizes of "0,8,1K..1M" (A..B: A, 2A, 4A, ... up to B; 0..B: 0, 1, 2, ...), or
    None when an item is not a size or a range."""
    found: List[int] = []
    for item in text.split(","):
        low_text, dots, high_text = item.partition("..")
        low = parse_size(low_text)
        high = parse_size(high_text) if dots else low
        if low is None or high is None or high < low:
            return None
        if not dots:
            found.append(low)
            continue
        if low == 0:
            found.append(0)
            low = 1
        while low <= high:
            found.append(low)
            low *= 2
    return found


def _sizes_type(option: Option, low: Optional[float], high: Optional[float]):
    rule = (f"increasing sizes and ranges A..B, in bytes {_size_bounds(option, low, high)}, at "
            f"most {option.count_max}, such as 0,8,1K or 8..4M")

    def parse(text: str) -> str:
        sizes = expand_sizes(text)
        fits = sizes is not None and all(
            (low or 0) <= size and (not high or size <= high) for size in sizes)
        increasing = sizes is not None and all(a < b for a, b in zip(sizes, sizes[1:]))
        if not (fits and increasing and len(sizes or ()) <= (option.count_max or 1 << 30)):
            raise UsageError(f"{option.name} takes {rule}, not '{text}'")
        return text
    return parse


def _grid_type(option: Option, low: Optional[float], high: Optional[float]):
    rule = (f"1 to {option.count_max} whole numbers from {_number_text(low)} to "
            f"{_number_text(high)} joined by x, such as 2x2x2")

    def parse(text: str) -> str:
        parts = text.split("x")
        numbers = [int(p) for p in parts if p.isascii() and p.isdigit()]
        if len(numbers) != len(parts) or not numbers or len(numbers) > (option.count_max or 1) \
                or any((low is not None and n < low) or (high is not None and n > high)
                       for n in numbers):
            raise UsageError(f"{option.name} takes {rule}, not '{text}'")
        return text
    return parse


def _text(text: str) -> str:
    return text


def argparse_type(option: Option, low: Optional[float] = None,
                  high: Optional[float] = None) -> Callable[[str], str]:
    """The argparse type of a described option (not a flag), within `low`..`high` (the
    loosest of its kernels' ranges; the option's own when not given)."""
    low = option.min if low is None else low
    high = option.max if high is None else high
    ranged = {"int": _int_type, "number": _number_type, "bytes": _bytes_type,
              "sizes": _sizes_type, "grid": _grid_type}
    if option.type in ranged:
        return ranged[option.type](option, low, high)
    if option.type == "choice":
        return _choice_type(option)
    if option.type == "list":
        return _list_type(option)
    return _text  # free text the family's bench side reads itself


METAVARS = {"int": "N", "number": "F", "bytes": "SIZE", "sizes": "SIZES", "list": "LIST",
            "grid": "AxB", "string": "TEXT"}


def metavar(option: Option) -> str:
    if option.type == "choice":
        return "|".join(option.choices or ())
    return METAVARS.get(option.type, "VALUE")
