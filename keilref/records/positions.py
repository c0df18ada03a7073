"""Where a character of a record stands: the record format's lines and columns.

A line ends at a line feed only (CRLF is a line feed after a carriage return;
a lone CR, a form feed, a vertical tab, U+001C..U+001E, U+0085, U+2028 and
U+2029 end no line). A column counts code points from 1 at the line's start.
Every place keilref names (``file:line:column``) is counted so; ``str.splitlines``
counts otherwise and must not be used on a record's text. A byte order mark
at the start is not counted.

The parsers count the same rule inline, where they already walk the text
(``tests/test_positions.py`` holds them to it); everything else that turns an
offset into a place, or a place into a line's text, asks here.
"""

from __future__ import annotations

import bisect
import re
from array import array

__all__ = ["LINE_END", "LineIndex", "split_lines"]

LINE_END = "\n"

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings."""
    return _LINE.findall(text)


class LineIndex:
    """The start of each line of one text, for places both ways.

    Kept as an array of offsets (8 bytes a line), not a list of line strings,
    so a large document's index costs little beside its text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        # A byte order mark is ignored: the first line's columns start after it.
        starts = array("q", [1 if text.startswith("\ufeff") else 0])
        starts.extend(m.end() for m in re.finditer(LINE_END, text))
        self.starts = starts

    def __len__(self) -> int:
        """How many lines (a text that ends with a line feed has an empty last one)."""
        return len(self.starts)

    def place(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of the character at ``offset``."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_span(self, line: int) -> tuple[int, int]:
        """Where the 1-based ``line`` starts and where its text ends (before its
        ``\\n`` or ``\\r\\n``); an empty span at the end past the last line."""
        if not 0 < line <= len(self.starts):
            return len(self.text), len(self.text)
        start = self.starts[line - 1]
        if line == len(self.starts):
            return start, len(self.text)  # the last line: a CR there is its own
        end = self.starts[line] - 1
        if end > start and self.text[end - 1] == "\r":
            end -= 1  # the CR of a CRLF ends the line with its LF
        return start, end

    def line(self, line: int) -> str:
        """The text of the 1-based ``line``, without its ending (empty past the end)."""
        start, end = self.line_span(line)
        return self.text[start:end]

    def offset(self, line: int, column: int) -> int:
        """The offset of ``line:column``, held to the line (its end, for a column past it)."""
        start, end = self.line_span(line)
        return min(start + max(column - 1, 0), end)
