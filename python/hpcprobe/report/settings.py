"""Options that change the algorithm a record ran, not only its size or its number of
repetitions (RandomAccess's --owner, --overlap, --mods, --dims): two records that differ
in one measure two different things, so the report never draws them as one curve or one
table row and `hpcprobe compare` never puts them in one row.

A family declares its own as AlgorithmOption (ReportSection.algorithm_options). A
record's value is read from its parameters section (`read` where the record keeps it
elsewhere); a record without it ran what the bench did before the option existed
(`absent`, else the default), so old records meet new ones of the same algorithm. A
label names an option only where the value is not the default, so that records at the
defaults keep their short names.
"""

import json
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

from hpcprobe.records import parameter

Record = dict
SettingKey = Tuple[Tuple[str, str], ...]


def _no_reader(record: Record) -> Any:
    return None


@dataclass(frozen=True)
class AlgorithmOption:
    """`option`: the bench option's attribute (its name is the bench's description's:
    `--` and the attribute with `-` for `_`); `default(record)`: the value a record of
    that kernel gets without the option, or
    None where the kernel does not take it (the option is then left out of its key and
    label); `word(value, record)`: the label's text for a value not the default;
    `absent`: the value of a record that does not say (None: the default)."""

    option: str
    parameter: str
    default: Callable[[Record], Optional[str]]
    word: Callable[[str, Record], str]
    read: Callable[[Record], Any] = _no_reader
    absent: Optional[str] = None


def _text(value: Any) -> Optional[str]:
    """A parameter's value as text (records are untrusted: any JSON value may be there)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def option_value(record: Record, option: AlgorithmOption) -> Optional[str]:
    """The value the record ran with (its default where it does not say), or None where
    its kernel does not take the option."""
    default = option.default(record)
    if default is None:
        return None
    found = parameter(record, option.parameter)
    if found is None:
        found = option.read(record)
    value = _text(found)
    if value is None:
        return default if option.absent is None else option.absent
    return value


def setting_key(record: Record, options: Sequence[AlgorithmOption]) -> SettingKey:
    """(option, value) for each option the record's kernel takes: equal for exactly the
    records that ran the same algorithm."""
    pairs = []
    for option in options:
        value = option_value(record, option)
        if value is not None:
            pairs.append((option.option, value))
    return tuple(pairs)


def setting_words(record: Record, options: Sequence[AlgorithmOption],
                  leave_out: Sequence[str] = ()) -> List[str]:
    """A label word for each option whose value is not the default (those named in
    `leave_out`, by option, skipped: a table that has a column for them). Raw text from
    the record: whoever shows it escapes it (sanitize.plain)."""
    words = []
    for option in options:
        if option.option in leave_out:
            continue
        value = option_value(record, option)
        if value is not None and value != option.default(record):
            words.append(option.word(value, record))
    return words
