"""Boards as SVG pictures, built with ElementTree: the same position gives the same bytes.

Keil and Dehil are drawn as the hexagon of triangles players know, with the
stones on its points; Yugo as its square grid, a king as a stone that wears
a crown. Coordinates stand where the text diagram puts them, so the picture
reads in the record's notation: row numbers to the left of each row, column
letters just beyond the lower edges. The text diagram itself goes into the
picture's ``<desc>``, for screen readers and for ``grep``.

Every mark carries a class (``stone black``, ``king``, ``last``,
``territory white``, ``captured black``, ``illegal``), so tests and style
sheets can find it; colour is never the only sign: a king has a crown, the
last turn a ring, an illegal point a cross, captured stones a dashed outline.
"""

from __future__ import annotations

import functools
from html import escape as html_escape
import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from keilref.values import Color
from keilref.errors import KeilrefError, wrong_type
from keilref.engine.dehil import DehilGame
from keilref.engine.game import Game
from keilref.engine.geometry import HexGeometry, SquareGeometry
from keilref.engine.rules import ButtonRule
from keilref import wording
from keilref.referee.replay import IllegalTurn

UNIT = 40.0
"""Distance between neighbouring points, in SVG user units."""
STONE = 0.42
"""A stone's radius, as a share of :data:`UNIT`: neighbouring stones do not touch."""
SQRT3_2 = math.sqrt(3) / 2
CAPTION_FONT = 0.36 * UNIT

BOARD_FILL = "#dcb35c"
LINE = "#3b2a14"
BLACK_FILL = "#1b1b1b"
WHITE_FILL = "#fafafa"
MARK_RED = "#c00000"
CROWN_FILL = "#e0a800"


@dataclass(frozen=True)
class Layout:
    """Where each point of a board sits in the picture, and what surrounds it."""

    xy: tuple[tuple[float, float], ...]
    """Per point index, its centre."""
    lines: tuple[tuple[float, float, float, float], ...]
    """The grid: one segment per line of the board, end to end."""
    outline: tuple[tuple[float, float], ...]
    """The board's edge, pushed out by half a unit: the wood behind the grid."""
    labels: tuple[tuple[float, float, str], ...]
    """Coordinates: position and text."""
    box: tuple[float, float, float, float]
    """``(x, y, width, height)`` holding all of the above."""


def _num(v: float) -> str:
    """A coordinate as short, stable text: two decimals at most, no ``-0``."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _hex_xy(c: float, r: float) -> tuple[float, float]:
    return ((c - r / 2) * UNIT, -r * SQRT3_2 * UNIT)


@functools.cache
def hex_layout(geo: HexGeometry) -> Layout:
    """The hexagon: point ``(c, r)`` at ``x = c - r/2``, rows ``√3/2`` apart, row 1 at the bottom."""
    n = geo.size
    xy = tuple(_hex_xy(c, r) for c, r in geo.coords)
    lines = []
    # Each of the three directions of the lattice: a line starts where the step back leaves the board.
    for dc, dr in ((1, 0), (1, 1), (0, 1)):
        for c, r in geo.coords:
            if geo.on_board(c - dc, r - dr) or not geo.on_board(c + dc, r + dr):
                continue
            k = 1
            while geo.on_board(c + (k + 1) * dc, r + (k + 1) * dr):
                k += 1
            lines.append((*_hex_xy(c, r), *_hex_xy(c + k * dc, r + k * dr)))
    corners = ((0, 0), (n - 1, 0), (2 * n - 2, n - 1), (2 * n - 2, 2 * n - 2), (n - 1, 2 * n - 2), (0, n - 1))
    # The centre of the hexagon is (n-1, n-1); push each corner out along its ray.
    cx, cy = _hex_xy(n - 1, n - 1)
    outline = []
    for c, r in corners:
        x, y = _hex_xy(c, r)
        length = math.hypot(x - cx, y - cy)
        scale = (length + 0.6 * UNIT) / length
        outline.append((cx + (x - cx) * scale, cy + (y - cy) * scale))
    labels = []
    for r in range(2 * n - 1):
        first = geo.row_columns(r)[0]
        labels.append((*_hex_xy(first - 1, r), str(r + 1)))
    for c in range(2 * n - 1):
        low = max(0, c - (n - 1))
        labels.append((*_hex_xy(c, low - 1), chr(ord("a") + c)))
    return _finish(xy, lines, outline, labels)


@functools.cache
def square_layout(geo: SquareGeometry) -> Layout:
    """The square: column ``a`` on the left, row 1 at the bottom, as the text diagram."""
    n = geo.size
    xy = tuple((c * UNIT, -r * UNIT) for c, r in geo.coords)
    top = -(n - 1) * UNIT
    right = (n - 1) * UNIT
    lines = [(0.0, -r * UNIT, right, -r * UNIT) for r in range(n)]
    lines += [(c * UNIT, 0.0, c * UNIT, top) for c in range(n)]
    pad = 0.6 * UNIT
    outline = ((-pad, pad), (right + pad, pad), (right + pad, top - pad), (-pad, top - pad))
    labels = [(-UNIT, -r * UNIT, str(r + 1)) for r in range(n)]
    labels += [(c * UNIT, UNIT, chr(ord("a") + c)) for c in range(n)]
    return _finish(xy, lines, outline, labels)


def _finish(
    xy: tuple[tuple[float, float], ...],
    lines: list[tuple[float, float, float, float]],
    outline: Sequence[tuple[float, float]],
    labels: list[tuple[float, float, str]],
) -> Layout:
    xs = [x for x, _ in outline] + [x for x, _, _ in labels]
    ys = [y for _, y in outline] + [y for _, y, _ in labels]
    m = 0.45 * UNIT
    x0, y0 = min(xs) - m, min(ys) - m
    return Layout(xy, tuple(lines), tuple(outline), tuple(labels), (x0, y0, max(xs) + m - x0, max(ys) + m - y0))


def layout_for(game: Game) -> Layout:
    """The layout of the game's board."""
    geo = _hex_or_square(game)
    return hex_layout(geo) if isinstance(geo, HexGeometry) else square_layout(geo)


def _hex_or_square(game: Game) -> HexGeometry | SquareGeometry:
    geo = getattr(game, "geometry", None)
    if isinstance(geo, (HexGeometry, SquareGeometry)):
        return geo
    raise TypeError(f"no picture for a board of {type(game).__name__}")


# --- pieces and marks (the HTML report's viewer draws the same in its script) ------

def crown_points(x: float, y: float) -> str:
    """A small crown centred on ``(x, y)``: what tells a king from a pawn."""
    r = STONE * UNIT
    shape = ((-0.55, 0.32), (-0.62, -0.38), (-0.3, -0.02), (0.0, -0.5), (0.3, -0.02), (0.62, -0.38), (0.55, 0.32))
    return " ".join(f"{_num(x + dx * r)},{_num(y + dy * r)}" for dx, dy in shape)


def _stone(parent: ET.Element, x: float, y: float, color: Color, *, king: bool = False) -> None:
    black = color is Color.BLACK
    cls = f"stone {'black' if black else 'white'}" + (" king" if king else "")
    ET.SubElement(
        parent,
        "circle",
        {
            "class": cls,
            "cx": _num(x),
            "cy": _num(y),
            "r": _num(STONE * UNIT),
            "fill": BLACK_FILL if black else WHITE_FILL,
            "stroke": "#000",
            "stroke-width": "1.5",
        },
    )
    if king:
        ET.SubElement(
            parent,
            "polygon",
            {
                "class": "crown",
                "points": crown_points(x, y),
                "fill": CROWN_FILL,
                "stroke": WHITE_FILL if black else BLACK_FILL,
                "stroke-width": "1.5",
                "stroke-linejoin": "round",
            },
        )


def _cross(parent: ET.Element, x: float, y: float, cls: str) -> None:
    """A bold ✕ with a light halo, readable on wood, on black and on white."""
    a = 0.36 * UNIT
    g = ET.SubElement(parent, "g", {"class": cls, "stroke-linecap": "round"})
    for colour, width in (("#fff", "9"), (MARK_RED, "5")):
        for dx in (a, -a):
            ET.SubElement(
                g,
                "line",
                {
                    "x1": _num(x - dx),
                    "y1": _num(y - a),
                    "x2": _num(x + dx),
                    "y2": _num(y + a),
                    "stroke": colour,
                    "stroke-width": width,
                },
            )


def _point_of(token: str, geo: HexGeometry | SquareGeometry) -> int | None:
    """The board point a turn names (``K@d4`` names ``d4``), or ``None`` off the board."""
    return geo.index.get(token.rpartition("@")[2])


def _is_king(game: Game, point: str) -> bool:
    is_king = getattr(game, "is_king", None)
    return bool(is_king(point)) if callable(is_king) else False


def before_last_turn(game: Game) -> Game:
    """The game as it stood before its last turn, replayed from the start.

    Used for the colour of the stones the last turn captured: in Yugo a king
    may take its own side's pawns too, so the mover's colour does not tell.
    """
    earlier = game.copy()
    # Replayed from the game's own start: the empty board, or the position it was set up from.
    earlier.pop()
    return earlier


def captured_colours(game: Game) -> dict[str, Color]:
    """The colour each stone the last turn captured had.

    Replayed from the game's start (the empty board, or the position it was
    set up from) where the moves lead to this very position; a game whose
    board was drawn from a diagram does not, and there the captured stones
    are taken to be the other side's, as they always are outside Yugo.
    """
    guess = {name: game.to_move for name in game.last_captured}
    try:
        before = before_last_turn(game)
        after = before.copy()
        after.play(game.moves[-1])
    except KeilrefError:
        return guess
    if any(after.stone_at(p) != game.stone_at(p) for p in game.points()):
        return guess
    colours = {name: before.stone_at(name) for name in game.last_captured}
    return {name: c if c is not None else guess[name] for name, c in colours.items()}


def _color_name(c: Color | None) -> str:
    return "nobody" if c is None else c.name.capitalize()


def caption_lines(game: Game, illegal: IllegalTurn | None = None) -> list[str]:
    """What the picture says in words: the last turn, the button (under Dehil,
    who passed first), who moves, and a fault."""
    lines = []
    moves = game.moves
    parts = []
    if moves:
        parts.append(wording.last_turn(len(moves), moves[-1], game.white_first))
    else:
        parts.append(wording.no_turn_yet(game.start_position is not None))
    if isinstance(game, DehilGame):
        parts.append(wording.first_pass_state(game.first_pass))
    elif game.rules.button is not ButtonRule.ABSENT:
        if not game.button_in_play:
            parts.append("button: not in play")
        elif game.button_holder is None:
            parts.append("button: not taken")
        else:
            parts.append(f"button: {_color_name(game.button_holder)}")
    lines.append(" · ".join(parts))
    if illegal is not None:
        t = illegal
        lines.append(wording.illegal_label(wording.illegal_turn(t.turn, t.point, t.reason, t.repeats_turn, t.white_first)))
    else:
        lines.append(wording.play_state(game))
    return lines


def board(
    game: Game,
    *,
    size: int | None = None,
    last_turn: bool = True,
    territory: bool = False,
    captured: bool = True,
    illegal: IllegalTurn | None = None,
    caption: bool = True,
    notes: Sequence[str] = (),
    coordinates: bool = True,
) -> str:
    """The position of ``game`` as an SVG document.

    ``size`` is the width in pixels (the height follows); without it the
    picture takes its natural size. ``last_turn`` rings the stone just
    placed; ``territory`` marks owned empty points with a small square of
    the owner's colour (Dehil has no territory: nothing is marked);
    ``captured`` draws the stones the last turn removed, faint and dashed;
    ``illegal`` marks the point of an illegal turn with a cross (the game is
    the position before it) and says why in the caption; ``caption`` writes
    the last turn, the button (under Dehil, who passed first) and the player
    to move under the board, and ``notes`` adds lines of its own there.

    Raises ``TypeError`` for an argument of the wrong type (a ``game`` that
    is not a :class:`~keilref.Game`, ``notes`` that are not a sequence of
    ``str``...) and ``ValueError`` for a ``size`` below 1.
    """
    if not isinstance(game, Game):
        raise wrong_type("the game to draw", game, "a keilref.Game")
    if size is not None:
        if not isinstance(size, int) or isinstance(size, bool):
            raise wrong_type("the picture's size", size, "a width in pixels (int) or None")
        if size < 1:
            raise ValueError(f"the picture's size must be at least 1 pixel, not {size}")
    if illegal is not None and not isinstance(illegal, IllegalTurn):
        raise wrong_type("the illegal turn to mark", illegal, "a keilref.IllegalTurn or None")
    if isinstance(notes, str) or not isinstance(notes, Sequence) or not all(isinstance(n, str) for n in notes):
        raise wrong_type("the notes", notes, "a sequence of str (one per line)")
    geo = _hex_or_square(game)
    lay = layout_for(game)
    x0, y0, width, height = lay.box
    lines = (caption_lines(game, illegal) if caption else []) + list(notes)
    line_height = 0.55 * UNIT
    height += len(lines) * line_height
    # A small board must not cut its caption: widen the picture to the longest line
    # (0.58 em per character is generous for the sans-serif fonts named below).
    text_width = max((len(text) for text in lines), default=0) * 0.58 * CAPTION_FONT + 0.4 * UNIT
    if text_width > width:
        x0 -= (text_width - width) / 2
        width = text_width
    attrs = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": "keilref-board",
        "viewBox": f"{_num(x0)} {_num(y0)} {_num(width)} {_num(height)}",
    }
    if size is not None:
        attrs["width"] = str(size)
        attrs["height"] = str(round(size * height / width))
    svg = ET.Element("svg", attrs)
    desc = ET.SubElement(svg, "desc")
    desc.text = "\n" + game.diagram(territory=territory)

    ET.SubElement(
        svg,
        "polygon",
        {
            "class": "board",
            "points": " ".join(f"{_num(x)},{_num(y)}" for x, y in lay.outline),
            "fill": BOARD_FILL,
            "stroke": LINE,
            "stroke-width": "1",
            "stroke-linejoin": "round",
        },
    )
    grid = ET.SubElement(svg, "g", {"class": "grid", "stroke": LINE, "stroke-width": "1.5", "stroke-linecap": "round"})
    for xa, ya, xb, yb in lay.lines:
        ET.SubElement(grid, "line", {"x1": _num(xa), "y1": _num(ya), "x2": _num(xb), "y2": _num(yb)})
    if coordinates:
        font = 0.42 * UNIT
        labels = ET.SubElement(
            svg,
            "g",
            {
                "class": "coordinates",
                "font-family": "DejaVu Sans, Helvetica, Arial, sans-serif",
                "font-size": _num(font),
                "text-anchor": "middle",
                "fill": "#222",
            },
        )
        for x, y, text in lay.labels:
            t = ET.SubElement(labels, "text", {"x": _num(x), "y": _num(y + 0.36 * font)})
            t.text = text

    names = geo.names
    if territory:
        marks = ET.SubElement(svg, "g", {"class": "territories"})
        side = 0.3 * UNIT
        for area in game.territories():
            if area.owner is None:
                continue
            black = area.owner is Color.BLACK
            for p in sorted(geo.index[name] for name in area.points):
                x, y = lay.xy[p]
                ET.SubElement(
                    marks,
                    "rect",
                    {
                        "class": f"territory {'black' if black else 'white'}",
                        "x": _num(x - side / 2),
                        "y": _num(y - side / 2),
                        "width": _num(side),
                        "height": _num(side),
                        "fill": BLACK_FILL if black else WHITE_FILL,
                        "stroke": "#000",
                        "stroke-width": "1",
                    },
                )

    if captured and game.moves and game.last_captured:
        colours = captured_colours(game)
        faint = ET.SubElement(svg, "g", {"class": "captures"})
        for name in sorted(game.last_captured, key=geo.index.__getitem__):
            was = colours[name]
            x, y = lay.xy[geo.index[name]]
            ET.SubElement(
                faint,
                "circle",
                {
                    "class": f"captured {'black' if was is Color.BLACK else 'white'}",
                    "cx": _num(x),
                    "cy": _num(y),
                    "r": _num(STONE * UNIT),
                    "fill": BLACK_FILL if was is Color.BLACK else WHITE_FILL,
                    "fill-opacity": "0.3",
                    "stroke": "#000",
                    "stroke-width": "1.5",
                    "stroke-dasharray": "4 3",
                },
            )

    stones = ET.SubElement(svg, "g", {"class": "stones"})
    for p, name in enumerate(names):
        color = game.stone_at(name)
        if color is not None:
            x, y = lay.xy[p]
            _stone(stones, x, y, color, king=_is_king(game, name))

    if last_turn and game.moves:
        p_last = _point_of(game.moves[-1], geo)
        if p_last is not None and game.stone_at(names[p_last]) is not None:
            x, y = lay.xy[p_last]
            on_black = game.stone_at(names[p_last]) is Color.BLACK
            ET.SubElement(
                svg,
                "circle",
                {
                    "class": "last",
                    "cx": _num(x),
                    "cy": _num(y),
                    "r": _num(0.2 * UNIT),
                    "fill": "none",
                    "stroke": WHITE_FILL if on_black else BLACK_FILL,
                    "stroke-width": "3",
                },
            )

    if illegal is not None:
        p_bad = _point_of(illegal.point, geo)
        if p_bad is not None:
            _cross(svg, *lay.xy[p_bad], "illegal")

    if lines:
        cap = ET.SubElement(
            svg,
            "g",
            {
                "class": "caption",
                "font-family": "DejaVu Sans, Helvetica, Arial, sans-serif",
                "font-size": _num(CAPTION_FONT),
                "text-anchor": "middle",
                "fill": "#111",
            },
        )
        base = lay.box[1] + lay.box[3]
        middle = lay.box[0] + lay.box[2] / 2
        for i, text in enumerate(lines):
            t = ET.SubElement(cap, "text", {"x": _num(middle), "y": _num(base + (i + 0.6) * line_height)})
            t.text = text
    return ET.tostring(svg, encoding="unicode") + "\n"


class PngUnavailable(Exception):
    """PNG output was asked for, but the optional renderer is not installed."""


def to_png(svg_text: str) -> bytes:
    """Render an SVG document to PNG with resvg (``pip install 'keilref[png]'``)."""
    try:
        import resvg_py  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise PngUnavailable(
            "PNG output needs the optional renderer: pip install 'keilref[png]' (it installs resvg-py)"
        ) from None
    data = resvg_py.svg_to_bytes(svg_string=svg_text, background="#ffffff")
    return bytes(data)


def game_html(game: Game) -> str:
    """A game as a notebook shows it: the board, then the score and where play stands."""
    score = game.score()
    state = wording.play_state(game)
    points = f"Black {score.black:g}, White {score.white:g} (komi included): {score.result}"
    return (
        f'<div class="keilref-game">{board(game, size=320)}'
        f"<p>{html_escape(repr(game))}<br>{html_escape(state)}; {html_escape(points)}</p></div>"
    )
