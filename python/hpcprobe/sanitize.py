"""Strings taken from records, made safe for each place they are written to.

Records are untrusted: a string in one may hold terminal escapes (ESC, the 8-bit CSI
0x9b), bidi controls that show text in another order than it is (U+202E), markup of the
sink it lands in, or a spreadsheet formula. Every writer of record strings goes through
the one function of its sink here:

- plain: people, on a terminal (rich, always as Text, never parsed as markup) or in the
  HTML page (whose template then escapes < > & "): one line, hidden characters shown as
  escapes (\\x1b, \\u202e), cut to a length;
- json_text: JSON, valid and round-tripping, with the hidden characters as \\uXXXX;
- csv_cell: CSV, hidden characters as for the terminal, and a text cell a spreadsheet
  would run as a formula prefixed with ';
- markdown_text: Markdown, its specials escaped and < > & as HTML entities.

Hidden: Unicode's "other" categories (C0 and C1 controls and DEL, format characters
such as bidi controls and zero-width ones, surrogates, private use, unassigned) and the
line and paragraph separators.
"""

import json
import re
import unicodedata
from typing import Any, Optional

MAX_CELL_CHARS = 60
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
# Every hidden character is outside printable ASCII: the regex finds the candidates fast,
# unicodedata decides.
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")
_BEYOND_ASCII = re.compile(r"[^\x00-\x7e]")  # JSON: json.dumps escapes C0 itself
# A spreadsheet runs a cell starting with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Markdown's specials; "_" only where it can start or end emphasis: inside a word
# (HPL_Tflops) it is text, and stays readable.
_MARKDOWN_SPECIALS = re.compile(r"([\\`*\[\]|~$#]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
_HTML_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))


def is_hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _show_hidden(match: "re.Match[str]") -> str:
    char = match.group()
    return _escape(char) if is_hidden(char) else char


def visible(text: str) -> str:
    """`text` with every hidden character written as an escape (\\x1b, \\u202e)."""
    return _NOT_PRINTABLE_ASCII.sub(_show_hidden, text)


def plain(value: Any, max_chars: Optional[int] = MAX_CELL_CHARS) -> str:
    """`value` as one line of visible text, at most `max_chars` long (None: any)."""
    text = str(value)
    if max_chars is None:
        return visible(text)
    # An escape is never shorter than its character: max_chars + 1 are enough to know
    # whether the text must be cut (and a huge string is not escaped whole).
    text = visible(text[: max_chars + 1])
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def _json_escape(match: "re.Match[str]") -> str:
    char = match.group()
    if not is_hidden(char):
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON has \uXXXX only: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_text(data: Any, indent: Optional[int] = None) -> str:
    """`data` as JSON, non-ASCII text kept readable, hidden characters as \\uXXXX.

    Outside strings json.dumps writes ASCII only, so every character replaced is inside
    a string, where \\uXXXX means the same character: the JSON reads back equal.
    """
    return _BEYOND_ASCII.sub(_json_escape, json.dumps(data, indent=indent, ensure_ascii=False))


def csv_cell(value: Any) -> Any:
    """A CSV cell: numbers as they are, text visible and never a formula."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    text = visible(value)
    # "-5" is a number to a spreadsheet too; "-5+cmd|..." is not, and is prefixed.
    if text.startswith(_FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def markdown_text(value: Any, max_chars: Optional[int] = None) -> str:
    """`value` for a Markdown line or table cell: one line, read as text only."""
    text = plain(str(value).replace("\r\n", " ").replace("\n", " "), max_chars)
    text = _MARKDOWN_SPECIALS.sub(r"\\\1", text)
    for char, entity in _HTML_ENTITIES:
        text = text.replace(char, entity)
    return text


def html_value(value: Any) -> Any:
    """What the HTML template shows of a value (jinja's finalize): text visible; the
    template's autoescape then makes it text to the browser."""
    return visible(value) if isinstance(value, str) else value
