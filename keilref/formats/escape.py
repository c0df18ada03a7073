"""Text that quotes the input, made safe for one-line output.

A record or a file name may hold anything: a carriage return or an escape
sequence would break a line of output in two or drive the terminal, and a
file name that is not UTF-8 (Python keeps its bytes as lone surrogates)
cannot be written at all. Every message that quotes the input goes through
:func:`one_line` before it is written.
"""

from __future__ import annotations

import re

__all__ = ["one_line"]

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
