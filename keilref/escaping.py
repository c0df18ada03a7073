"""Text that quotes the input, made safe for one-line output.

A record or a file name may hold anything: a carriage return or an escape
sequence would break a line of output in two or drive the terminal, and a
file name that is not UTF-8 (Python keeps its bytes as lone surrogates)
cannot be written at all. Every message that quotes the input goes through
:func:`one_line` before it is written, and every file name through
:func:`shown_name`, in every format.

A CI runner reads the output too: GitHub Actions runs any line that starts
with ``::`` (after white space) as a workflow command, so a record named
``::stop-commands::x.keil`` could silence every later annotation. No name
is shown starting with a colon, and :func:`runner_command_line` finds a line
of record text a runner would run, for the commands that write record text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = [
    "RunnerGuard",
    "code_point",
    "defused",
    "in_script",
    "json_text",
    "one_line",
    "runner_command_line",
    "shown_name",
]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")

_NAME_UNSAFE = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
"""What an escaped name writes as an escape: the unsafe characters, and the backslash."""

_NEEDS_ESCAPE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|\\\\[xu]|^[\\s\ufeff]*:")
"""A name printed as it is would be unsafe, or could be read as an escape."""

_LEADING_COLON = re.compile("^([\\s\ufeff]*):")

_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Where a line ends: GitHub's runner ends one at a line feed or a carriage
return; a log read elsewhere may end it at any break Python's ``splitlines`` knows."""

_BLANK = f"(?:[^\\S{_BREAKS}]|\ufeff)*"
"""White space within a line, and the byte-order mark: what a runner trims before ``::``."""

_RUNNER_LINE = re.compile(f"(?:^|(?<=[{_BREAKS}]))({_BLANK})::")
"""A line a CI runner runs: GitHub's trims white space, then looks for ``::``."""

_LATER_RUNNER_LINE = re.compile(f"(?<=[{_BREAKS}])({_BLANK})::")
""":data:`_RUNNER_LINE` after the first line: text that continues a line already begun."""


def _escape(m: re.Match[str]) -> str:
    c = m.group(0)
    code = ord(c)
    if c == "\\":
        return "\\\\"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte of a non-UTF-8 name
    if code < 0x80:
        return f"\\x{code:02x}"
    # Not \xNN, which stands for an undecodable byte: U+0085 and the byte 0x85 differ.
    return f"\\u{code:04x}"


def one_line(text: str) -> str:
    """``text`` with control characters, line separators and undecodable
    bytes written as ``\\xNN`` / ``\\uNNNN`` escapes: always one printable line."""
    return _UNSAFE.sub(_escape, text)


def shown_name(name: str) -> str:
    """A file name as every format prints it: one line, never starting with a colon.

    A name that is safe as it is prints as it is. Any other has its control
    characters, line separators and undecodable bytes escaped (``\\x0d``,
    ``\\u0085``, and ``\\xe9`` for a byte that is not UTF-8), its backslashes
    doubled, and a colon at its start (after any white space) written
    ``\\x3a``: so two names never print the same, and a line that starts with
    a name and a colon (``::1:1: game 1``) never starts with ``::``.
    A name holding ``\\x`` or ``\\u`` is escaped too, so that it cannot be
    taken for an escaped one.
    """
    if _NEEDS_ESCAPE.search(name) is None:
        return name
    return _LEADING_COLON.sub(lambda m: m.group(1) + "\\x3a", _NAME_UNSAFE.sub(_escape, name), count=1)


def runner_command_line(text: str) -> int | None:
    """Where ``text`` holds a line a CI runner would run as a workflow
    command (its lines end at a carriage return too): the number of the line
    that holds it, counted at line feeds as record positions are; else ``None``."""
    m = _RUNNER_LINE.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def defused(line: str) -> str:
    """A line of display (a source excerpt) with the ``::`` a runner would
    run at its start written ``\\x3a:``, as :func:`shown_name` writes it."""
    return _RUNNER_LINE.sub(_defuse, line, count=1)


def _defuse(m: re.Match[str]) -> str:
    return m.group(1) + "\\x3a:"


class RunnerGuard:
    """Text written in pieces, with every line a CI runner would run defused
    as :func:`defused` does (``::`` at a line start written ``\\x3a:``).

    What a command prints goes through one of these: a line is defused however
    the writes cut it, so no report, message or excerpt can start a line with
    ``::``, whatever a tag, a comment or a file name holds. A lone colon at a
    line start is held back until the next piece shows whether a second follows.
    """

    def __init__(self) -> None:
        self._line_open = True
        """Whether what was written of the current line is only blank so far."""
        self._held = ""

    def feed(self, text: str) -> str:
        """``text`` as it may be written after what was fed before."""
        text = self._held + text
        self._held = ""
        if not text:
            return text
        if "::" in text:  # what every runner line holds: most text is spared the pattern
            pattern = _RUNNER_LINE if self._line_open else _LATER_RUNNER_LINE
            text = pattern.sub(_defuse, text)
        self._after(text)
        if self._line_open and text.endswith(":"):
            text, self._held = text[:-1], ":"
        return text

    def passed(self, text: str) -> None:
        """``text`` was written as it is, past the guard (a runner's commands meant as such)."""
        self._after(text)

    def end(self) -> str:
        """What is held back, at the end of the output (or before bytes bypass the guard)."""
        held, self._held = self._held, ""
        self._line_open = True
        return held

    def _after(self, text: str) -> None:
        # From the end, not by a search: a long text is scanned only over its blank tail.
        i = len(text) - text.endswith(":")
        while i and _is_blank(text[i - 1]):
            i -= 1
        self._line_open = text[i - 1] in _BREAKS if i else self._line_open


_JSON_BREAKS = {
    **{ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"},
    **{code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)},
}
"""What JSON leaves as it is but must not be written raw: the line breaks
(JSON escapes the C0 controls itself), and lone surrogates, which no UTF-8
output can hold (a match may spell one, ``"\\ud800"``)."""


def json_text(value: object, **options: Any) -> str:
    """``value`` as JSON text, non-ASCII kept, that breaks no line: every
    character :class:`RunnerGuard` takes for a line end is escaped, so a
    document or a JSON line is never cut, or rewritten inside a string, by
    the guard or by a reader that splits on every Unicode line break."""
    return json.dumps(value, ensure_ascii=False, **options).translate(_JSON_BREAKS)


def _is_blank(char: str) -> bool:
    """White space within a line, or the byte-order mark (what :data:`_BLANK` matches)."""
    return char == "\ufeff" or (char.isspace() and char not in _BREAKS)


def in_script(text: str) -> str:
    """JSON text as it may stand inside an HTML ``<script>`` element: every
    ``<`` written ``\\u003c``.

    Escaping ``</`` alone is not enough: after ``<!--`` and then ``<script``
    (``[Round "<!-- x"]``, ``[Black "<script>"]``) the HTML parser is in its
    double-escaped script state, where ``</script>`` no longer ends the
    element, and the page's own script is swallowed into the data. With no
    ``<`` in it the parser never leaves plain script data. In JSON a ``<``
    stands only inside a string, where ``\\u003c`` means the same character;
    so do the line breaks :func:`json_text` escapes, which a page printed
    through :class:`RunnerGuard` must not hold.
    """
    return text.replace("<", "\\u003c").translate(_JSON_BREAKS)


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


def line_window(text: str, column: int, width: int) -> tuple[str, int]:
    """A source line cut to ``width`` characters around ``column`` (``...``
    where it was cut), with tabs as one space and unprintable characters as
    ``?`` so that a caret lines up; and the caret's offset in it."""
    text = "".join(" " if ch == "\t" else ch if ch.isprintable() else "?" for ch in text)
    start = 0
    if len(text) > width:
        start = max(0, min(column - 1 - width // 2, len(text) - width))
        piece = text[start : start + width]
        if start > 0:
            piece = "..." + piece[3:]
        if start + width < len(text):
            piece = piece[:-3] + "..."
        text = piece
    return text, column - 1 - start
