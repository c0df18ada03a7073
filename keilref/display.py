"""Text that quotes the input, made safe for one-line output.

A record or a file name may hold anything: a carriage return or an escape
sequence would break a line of output in two or drive the terminal, and a
file name that is not UTF-8 (Python keeps its bytes as lone surrogates)
cannot be written at all. Every message that quotes the input goes through
:func:`one_line` before it is written.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["code_point", "one_line"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escape(m: re.Match[str]) -> str:
    c = m.group(0)
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte of a non-UTF-8 name
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def one_line(text: str) -> str:
    """``text`` with control characters, line separators and undecodable
    bytes written as ``\\xNN`` / ``\\uNNNN`` escapes: always one printable line."""
    return _UNSAFE.sub(_escape, text)


_CONTROL_NAMES = {
    0x00: "null",
    0x09: "tab",
    0x0A: "line feed",
    0x0B: "vertical tab",
    0x0C: "form feed",
    0x0D: "carriage return",
    0x1B: "escape",
    0x1C: "file separator",
    0x1D: "group separator",
    0x1E: "record separator",
    0x1F: "unit separator",
    0x7F: "delete",
    0x85: "next line",
}
_KINDS = {
    "Cf": "an invisible format character",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Cs": "a lone surrogate",
}


def code_point(char: str) -> str:
    """``U+001F (unit separator, a control character)``, ``U+00A0 (no-break space)``:
    a character named so that a reader can tell what it is where it cannot be
    seen (an invisible or space-like character looks like nothing, or like a space)."""
    code = ord(char)
    category = unicodedata.category(char)
    if category == "Cc":
        name = _CONTROL_NAMES.get(code)
        return f"U+{code:04X} ({name}, a control character)" if name else f"U+{code:04X} (a control character)"
    name = unicodedata.name(char, "").lower()
    return f"U+{code:04X} ({name or _KINDS.get(category, 'a character')})"
