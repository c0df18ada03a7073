"""SVG boards, at the path users know: ``keilref.svg.board(game)``.

The pictures are made in :mod:`keilref.formats.svg`; this module keeps the
public name stable.
"""

from keilref.formats.svg import board, to_png

__all__ = ["board", "to_png"]
