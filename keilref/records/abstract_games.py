"""Keil matches of the abstract_games server, read as records and written back.

The server (talvola/abstract_games) keeps a match as a list of moves, and
hands it out in three shapes, each a JSON object:

* the match view (``GET /api/matches/{id}``): a ``history`` of labelled moves;
* the replay (``GET /api/matches/{id}/replay``): ``frames``, each with a label;
* the raw move list (its moves table): ``moves``, each a seat and a raw move.

Every shape opens with a komi pie: seat 0 names the komi (``komi=6``), seat 1
answers ``black`` (a swap: seat 0 then plays White) or ``white``; Black's
first placement is the first turn. :func:`read_match` turns any shape into
the :class:`~keilref.records.record.Record` a ``.keil`` reader would give for the same
game, each tag, turn and result placed at its value in the JSON, so that
every verdict points into the file. What the server says that a record cannot
(a size off its menu, the end it imposed at its move limit) comes back beside
the record, for the verdict's warnings and words.

:func:`export_moves` writes a Keil record as the raw move list, which
:func:`read_match` reads back as the same game.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from keilref.errors import RecordError
from keilref.records.jsontext import JsonText
from keilref.records.record import Comment, DeferredTurns, Record, Tag, Turn, TurnKind, with_deferred_turns
from keilref.records.tags import GAME_ID_TAG, KOMI_BY_TAG
from keilref.records.writer import canonical_tags

__all__ = [
    "BUTTON_LABEL",
    "MATCH_SUFFIXES",
    "MENU_SIZES",
    "Match",
    "SITE",
    "cell_of",
    "dump_moves",
    "SHAPE_KEYS",
    "is_match_name",
    "match_stem",
    "move_limit",
    "point_of",
    "read_match",
]

SITE = "abstract_games"
"""The ``Site`` tag of an imported match."""
MATCH_SUFFIXES = (".match.json", ".replay.json", ".moves.json")
"""The names of the three shapes, as directories are searched for them."""
SHAPE_KEYS = {"frames": "replay", "moves": "moves", "history": "match"}
"""The member that makes a JSON object each shape, in the order they are looked for."""
MENU_SIZES = range(4, 8)
"""The sides the server's menu offers; it stores whatever a client sends."""
DEFAULT_SIZE = 5
"""The engine's side when a match's options name none."""
BUTTON_LABEL = "take the button (\u00bd point)"

_LABELS = {"choose Black (swap)": "black", "choose White": "white", BUTTON_LABEL: "button", "pass": "pass"}
_KOMI_LABEL = re.compile(r"komi (-?[0-9]{1,7})\Z")
_KOMI_MOVE = re.compile(r"komi=(-?[0-9]{1,7})\Z")
_CELL = re.compile(r"(-?[0-9]{1,6}),(-?[0-9]{1,6})\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_OFF_ALL_BOARDS = "z999"
"""A point on no hexagon keilref plays: what a cell with no name of its own becomes."""
_TABLE_SIDES = range(2, 14)
"""The sides whose every cell has a letter and a number (2 × side − 1 columns,
``a`` to ``y``): the only ones a table of all cells is built for. A match may
state any side up to 999, which the replay then refuses under its rules; a
table for it would cost 3 × side² entries before that (seconds and about
400 MB for side 999), so its moves are read one by one instead."""
_NO_CELLS = {"pass": "pass", "button": "button"}


@dataclass(frozen=True)
class Match:
    """A match read as a record, and what the server said beside it."""

    record: Record
    shape: str
    """``match``, ``replay`` or ``moves``."""
    warnings: tuple[tuple[str, int, int], ...] = ()
    """Each with the line and column of the value it is about."""
    stopped_at_limit: int | None = None
    """The plies, when the server ended the match at its move limit."""


def is_match_name(name: str) -> bool:
    """Whether a file's name says it holds one of the three shapes."""
    return name.endswith(MATCH_SUFFIXES)


def match_stem(name: str) -> str:
    """A shape's file name without its suffix: the three files of one match share it."""
    for suffix in MATCH_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def move_limit(size: int) -> int:
    """The plies after which the server's engine ends a match by itself
    (3 × points + 4: it counts the komi offer and the side choice)."""
    return 3 * (3 * size * (size - 1) + 1) + 4


def point_of(q: int, r: int, size: int) -> str | None:
    """keilref's name for the axial cell ``q,r`` of side ``size`` (``None`` when no
    letter and row number can name it)."""
    m = size - 1
    column, number = q + m, m - r + 1
    if not 0 <= column < 26 or not 1 <= number <= 999:
        return None
    return f"{chr(ord('a') + column)}{number}"


def cell_of(point: str, size: int) -> str:
    """The server's ``q,r`` for keilref's point (the inverse of :func:`point_of`)."""
    m = size - 1
    q = ord(point[0].lower()) - ord("a") - m
    r = m + 1 - int(point[1:])
    return f"{q},{r}"


# --------------------------------------------------------------------------
# Reading


class _Val:
    """A value of the document and its path there: its place is found only when asked for."""

    __slots__ = ("value", "path")

    def __init__(self, value: Any, path: tuple[str | int, ...] = ()) -> None:
        self.value = value
        self.path = path

    @property
    def members(self) -> dict[str, Any] | None:
        return self.value if isinstance(self.value, dict) else None

    @property
    def items(self) -> list[_Val] | None:
        if not isinstance(self.value, list):
            return None
        return [_Val(v, (*self.path, i)) for i, v in enumerate(self.value)]

    def get(self, key: str) -> _Val | None:
        if not isinstance(self.value, dict) or key not in self.value:
            return None
        return _Val(self.value[key], (*self.path, key))


class _Move:
    """A stored move (``komi=6``, ``black``, ``-1,2``) and the path of the value it was read from."""

    __slots__ = ("raw", "path")

    def __init__(self, raw: str, path: tuple[str | int, ...]) -> None:
        self.raw = raw
        self.path = path

    @property
    def node(self) -> _Val:
        return _Val(self.raw, self.path)


class _Reader:
    def __init__(self, text: JsonText, places: bool = True) -> None:
        self.text = text
        self.places = places

    def fail(self, message: str, node: _Val) -> RecordError:
        return self.text.error(message, self.text.locate(node.path))

    def place(self, node: _Val) -> tuple[int, int]:
        if not self.places:
            return 0, 0
        return self.text.place(self.text.locate(node.path))

    def member(self, node: _Val, key: str, kinds: tuple[type, ...], what: str) -> _Val:
        child = node.get(key)
        if child is None:
            raise self.fail(f"no {key!r} in the {what}", node)
        if not isinstance(child.value, kinds) or isinstance(child.value, bool) and bool not in kinds:
            raise self.fail(f"{key!r} is {_kind(child.value)}; expected {_names(kinds)}", child)
        return child

    def entries(self, node: _Val, what: str) -> list[_Val]:
        assert node.items is not None
        for item in node.items:
            if item.members is None:
                raise self.fail(f"an entry of {what!r} is {_kind(item.value)}; expected an object", item)
        return node.items


def read_match(data: bytes, filename: str | None = None, *, places: bool = True) -> Match:
    """The match in ``data`` (the bytes of one file, in any of the three shapes).

    Raises :class:`~keilref.errors.RecordError` at the offending value for
    text that is not JSON, a shape that is not a Keil match of the server,
    or moves that cannot be a game (a label that is not a move, a komi offer
    in the middle of play, a match ended before the sides were chosen).
    What the rules decide (an occupied point, a move after two passes, a
    size keilref refuses) is left to the replay, as for a ``.keil`` game.
    Without ``places``, tags and turns carry no line and column (errors
    still do): what a writer needs, found sooner.
    """
    text = _decode(data, filename)
    doc = JsonText(text, filename)
    top = _Val(doc.load())
    reader = _Reader(doc, places)
    if top.members is None:
        raise reader.fail(f"a match is a JSON object; found {_kind(top.value)}", top)
    shape = next((shape for key, shape in SHAPE_KEYS.items() if key in top.members), None)
    if shape is None:
        raise reader.fail(
            "not a match of abstract_games: expected a 'history' (the match view), 'frames' (the replay) "
            "or 'moves' (the stored move list)",
            top,
        )
    uid = reader.member(top, "game_uid", (str,), "match")
    if uid.value != "keil":
        raise reader.fail(f'game_uid "{_cut(uid.value)}" is not a Keil match: keilref judges only "keil"', uid)
    tags: list[Tag] = [_tag(reader, "Rules", "keil", uid)]
    warnings: list[tuple[str, int, int]] = []
    size, size_node = _size(reader, top, shape)
    tags.append(_tag(reader, "Size", str(size), size_node))
    if 2 <= size <= 13 and size not in MENU_SIZES:
        line, column = reader.place(size_node)
        warnings.append(
            (f"size {size} is not on the server's menu (it offers {MENU_SIZES[0]} to {MENU_SIZES[-1]}): "
             f"judged as keilref's side {size}", line, column)
        )
    players = _players(reader, top)
    status = reader.member(top, "status", (str,), "match")
    if status.value not in ("active", "finished"):
        raise reader.fail(f'status "{_cut(status.value)}" is neither "active" nor "finished"', status)
    winner = top.get("winner")
    if winner is not None and winner.value is not None and (type(winner.value) is not int or winner.value not in (0, 1)):
        raise reader.fail(f"winner is {_kind(winner.value)}; expected the seat 0 or 1, or null", winner)
    moves = _moves(reader, top, shape, players)
    if len(moves) < 2:
        if status.value == "finished":
            raise reader.fail("the match ended before the sides were chosen: there is no game to judge", status)
        raise reader.fail(
            "the sides are not chosen yet (the komi pie is not over): there is no game to judge yet", status
        )
    komi_move, side_move = moves[0], moves[1]
    komi = _KOMI_MOVE.match(komi_move.raw)
    if komi is None:
        raise reader.fail(f"the match opens with {komi_move.raw!r}; expected the komi offer (komi=K)", komi_move.node)
    if side_move.raw not in ("black", "white"):
        raise reader.fail(
            f"ply 1 is {side_move.raw!r}; expected the side choice (black or white)", side_move.node
        )
    swap = side_move.raw == "black"
    black_seat = 1 if swap else 0
    tags.append(_tag(reader, "Komi", komi.group(1), komi_move.node))
    tags.append(_tag(reader, "Button", "yes", uid))
    tags.append(_tag(reader, "Black", players[black_seat][0], players[black_seat][1]))
    tags.append(_tag(reader, "White", players[1 - black_seat][0], players[1 - black_seat][1]))
    tags.append(_tag(reader, "Site", SITE, top))
    game_id = top.get("id")
    if game_id is not None and isinstance(game_id.value, str) and game_id.value:
        tags.append(_tag(reader, GAME_ID_TAG, game_id.value, game_id))
    date = _date(reader, top)
    if date is not None:
        tags.append(date)
    tags.append(_tag(reader, KOMI_BY_TAG, "White" if swap else "Black", side_move.node))
    turns = _Turns(reader, moves[2:], size)
    result, result_node, limit = _result(reader, moves, size, status, winner, black_seat)
    if result != "*":
        tags.append(_tag(reader, "Result", result, result_node))
    line, column = reader.place(result_node)
    comments: tuple[Comment, ...] = ()
    if limit is not None:
        comments = (Comment(f"the server ended the match at its move limit of {limit} plies"),)
    record = Record(
        canonical_tags(tags),
        result=result,
        result_comments=comments,
        line=reader.place(top)[0],
        result_line=line,
        result_column=column,
    )
    return Match(with_deferred_turns(record, turns), shape, tuple(warnings), limit)


def _decode(data: bytes, filename: str | None) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        prefix = data[start : e.start].decode("utf-8", "replace")
        end = data.find(b"\n", e.start)
        source = data[start : len(data) if end < 0 else end].decode("utf-8", "replace")
        raise RecordError(
            f"the text is not valid UTF-8 here (byte 0x{data[e.start]:02x})",
            data.count(b"\n", 0, e.start) + 1,
            len(prefix) + 1,
            source,
            filename,
        ) from None
    # A byte order mark is no part of the JSON; dropping it keeps the columns an editor shows.
    return text[1:] if text.startswith("\ufeff") else text


def _tag(reader: _Reader, name: str, value: str, node: _Val) -> Tag:
    line, column = reader.place(node)
    # A tag value is one line: a name sent with a line break keeps its words.
    return Tag(name, " ".join(value.split()) if not value.isprintable() else value, line=line, column=column)


def _size(reader: _Reader, top: _Val, shape: str) -> tuple[int, _Val]:
    if shape == "replay":
        frames = reader.member(top, "frames", (list,), "replay")
        if not frames.items:
            raise reader.fail("the replay has no frames: not even the empty board before the first move", frames)
        first = reader.entries(frames, "frames")[0]
        render = reader.member(first, "render", (dict,), "first frame")
        board = reader.member(render, "board", (dict,), "first frame's render")
        size = reader.member(board, "size", (int,), "board")
    else:
        options = top.get("options")
        if options is None or options.members is None:
            if options is not None and options.value is not None:
                raise reader.fail(f"'options' is {_kind(options.value)}; expected an object", options)
            return DEFAULT_SIZE, top if options is None else options
        found = options.get("size")
        if found is None:
            return DEFAULT_SIZE, options
        size = reader.member(options, "size", (int,), "options")
    value: int = size.value
    if not -999 <= value <= 999:
        raise reader.fail(f"size {value} is out of range for rules 'keil' (2..13)", size)
    return value, size


def _players(reader: _Reader, top: _Val) -> list[tuple[str, _Val]]:
    players = reader.member(top, "players", (list,), "match")
    entries = reader.entries(players, "players")
    if len(entries) != 2:
        raise reader.fail(f"a Keil match has two players; 'players' holds {len(entries)}", players)
    found = []
    for entry in entries:
        name = reader.member(entry, "name", (str,), "player")
        found.append((name.value if name.value.strip() else "?", name))
    return found


def _moves(reader: _Reader, top: _Val, shape: str, players: list[tuple[str, _Val]]) -> list[_Move]:
    """The stored moves, raw (``komi=6``, ``black``, ``-1,2``), checked for order and seat."""
    key = {"match": "history", "replay": "frames", "moves": "moves"}[shape]
    rows: list[Any] = reader.member(top, key, (list,), "match").value
    field = "move" if shape == "moves" else "label"
    replay = shape == "replay"
    first = 1 if replay else 0  # frame 0 is the board before any move
    names = [name for name, _ in players]
    same_names = names[0] == names[1]
    labels = _LABELS
    moves: list[_Move] = []
    append = moves.append
    seat = black_seat = 0
    for index, row in enumerate(rows[first:]):
        ply = index + first
        if index >= 2:
            seat = black_seat if index % 2 == 0 else 1 - black_seat
        else:
            seat = index
        # The common case in a few dictionary look-ups; anything else is
        # looked at again, value by value, to say what is wrong and where.
        text = row.get(field) if type(row) is dict else None
        if (
            type(text) is not str
            or row.get("ply") != ply
            or type(row["ply"]) is not int
            or (
                row.get("mover", names[seat]) != names[seat] and not same_names
                if replay
                else row.get("seat") != seat or type(row["seat"]) is not int
            )
        ):
            _fault(reader, _Val(row, (key, ply)), key, ply, seat, shape, names)
        raw = text if field == "move" else labels.get(text) or _unlabel(reader, _Val(text, (key, ply, field)))
        if index < 2:
            if index == 1 and raw == "black":
                black_seat = 1
        elif raw in ("black", "white") or raw.startswith("komi="):
            what = "a komi offer" if raw.startswith("komi=") else "a side choice"
            raise reader.fail(
                f"{what} in the middle of play (ply {index}): the komi is named at ply 0 and the side chosen at ply 1",
                _Val(text, (key, ply, field)),
            )
        append(_Move(raw, (key, ply, field)))
    return moves


def _fault(reader: _Reader, entry: _Val, key: str, ply: int, seat: int, shape: str, names: list[str]) -> NoReturn:
    """Raise the error of a move entry the quick look refused."""
    if entry.members is None:
        raise reader.fail(f"an entry of {key!r} is {_kind(entry.value)}; expected an object", entry)
    found = reader.member(entry, "ply", (int,), f"{key} entry")
    if found.value != ply:
        raise reader.fail(f"ply {found.value} where ply {ply} was due: the moves must come in order, none missing", found)
    reader.member(entry, "move" if shape == "moves" else "label", (str,), f"{key} entry")
    if shape == "replay":
        mover = entry.get("mover")
        assert mover is not None
        # Two players may share a name (bots are all "Computer"): only then is any name right.
        raise reader.fail(f"mover {_cut(str(mover.value))!r} where {names[seat]!r} (seat {seat}) was to move", mover)
    found = reader.member(entry, "seat", (int,), "move")
    raise reader.fail(f"seat {found.value} moved where seat {seat} was to move", found)


def _unlabel(reader: _Reader, node: _Val) -> str:
    """The stored move a label (other than the fixed ones) stands for."""
    label: str = node.value
    komi = _KOMI_LABEL.match(label)
    if komi is not None:
        return f"komi={komi.group(1)}"
    if _CELL.match(label):
        return label
    raise reader.fail(
        f"label {_cut(label)!r} is not a move (expected a cell such as '-1,2', 'pass', "
        f"'{BUTTON_LABEL}', 'komi K', 'choose Black (swap)' or 'choose White')",
        node,
    )


class _Turns(DeferredTurns):
    """A match's turns: their moves at once, their places in the file when first asked for."""

    __slots__ = ("_reader", "_moves", "_size", "_tokens")

    def __init__(self, reader: _Reader, moves: list[_Move], size: int) -> None:
        self._reader = reader
        self._moves = moves
        self._size = size
        table = _cell_points(size) if size in _TABLE_SIDES else _NO_CELLS
        self._tokens = tuple([table.get(move.raw) or _token(reader, move, size) for move in moves])

    @property
    def moves(self) -> tuple[str, ...]:
        return self._tokens

    def turns(self) -> tuple[Turn, ...]:
        if self._reader.places:
            return tuple(_turn(self._reader, move, self._size) for move in self._moves)
        # Without places, turns of one token are equal in every way: share them.
        table = _cell_points(self._size) if self._size in _TABLE_SIDES else _NO_CELLS
        return tuple(
            [
                _placeless_turn(token) if move.raw in table else _turn(self._reader, move, self._size)
                for move, token in zip(self._moves, self._tokens)
            ]
        )


@functools.lru_cache(maxsize=4096)
def _placeless_turn(token: str) -> Turn:
    return Turn.of(token)


@functools.lru_cache(maxsize=len(_TABLE_SIDES))
def _cell_points(size: int) -> dict[str, str]:
    """Every cell of the board of side ``size`` (one of :data:`_TABLE_SIDES`;
    and ``pass``, ``button``) to its token."""
    if size not in _TABLE_SIDES:
        raise ValueError(f"no table of cells is built for side {size}")
    m = size - 1
    table = {"pass": "pass", "button": "button"}
    for q in range(-m, m + 1):
        for r in range(-m, m + 1):
            if abs(q + r) <= m:
                table[f"{q},{r}"] = point_of(q, r, size) or _OFF_ALL_BOARDS
    return table


def _token(reader: _Reader, move: _Move, size: int) -> str:
    """The turn's token, or the error of a move that is none."""
    if move.raw in ("pass", "button"):
        return move.raw
    cell = _CELL.match(move.raw)
    if cell is None:
        raise reader.fail(f"{_cut(move.raw)!r} is not a move (expected a cell such as '-1,2', 'button' or 'pass')", move.node)
    return point_of(int(cell.group(1)), int(cell.group(2)), size) or _OFF_ALL_BOARDS


def _turn(reader: _Reader, move: _Move, size: int) -> Turn:
    line, column = reader.place(move.node)
    if move.raw in ("pass", "button"):
        kind = TurnKind.PASS if move.raw == "pass" else TurnKind.BUTTON
        return Turn(move.raw, kind, line=line, column=column)
    cell = _CELL.match(move.raw)
    if cell is None:
        raise reader.fail(f"{_cut(move.raw)!r} is not a move (expected a cell such as '-1,2', 'button' or 'pass')", move.node)
    point = point_of(int(cell.group(1)), int(cell.group(2)), size)
    if point is None:
        # No letter and number name it, and it is on no board: the replay
        # finds it off the board, and the record keeps the server's words.
        note = (Comment(f"the server's cell {move.raw}"),)
        return Turn(_OFF_ALL_BOARDS, TurnKind.PLACE, _OFF_ALL_BOARDS, comments=note, written=move.raw, line=line, column=column)
    return Turn(point, TurnKind.PLACE, point, line=line, column=column)


def _result(
    reader: _Reader,
    moves: list[_Move],
    size: int,
    status: _Val,
    winner: _Val | None,
    black_seat: int,
) -> tuple[str, _Val, int | None]:
    """The result token, the value it is read from, and the move limit if the server stopped there."""
    if status.value == "active":
        return "*", status, None
    plies = len(moves)
    passes = plies >= 4 and moves[-1].raw == moves[-2].raw == "pass"
    limit = move_limit(size) if not passes and plies == move_limit(size) else None
    seat = None if winner is None else winner.value
    if seat is None:
        if limit is not None:
            return "Draw", status if winner is None else winner, limit
        raise reader.fail(
            "a finished match without a winner before the server's move limit: nothing says how it ended",
            status if winner is None else winner,
        )
    assert winner is not None
    colour = "B" if seat == black_seat else "W"
    if passes or limit is not None:
        return f"{colour}+", winner, limit
    return f"{colour}+R", winner, None


def _date(reader: _Reader, top: _Val) -> Tag | None:
    """The day the match was played, where the shape carries one: the match
    row's ``created_at``, else its first move's."""
    node = top.get("created_at")
    rows = top.value.get("moves")
    if node is None and isinstance(rows, list) and rows and isinstance(rows[0], dict) and "created_at" in rows[0]:
        node = _Val(rows[0]["created_at"], ("moves", 0, "created_at"))
    if node is None or not isinstance(node.value, str):
        return None
    m = _DATE.match(node.value)
    return None if m is None else _tag(reader, "Date", ".".join(m.groups()), node)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {_cut(value)!r}"
    return "an array" if isinstance(value, list) else "an object"


def _names(kinds: tuple[type, ...]) -> str:
    words = {str: "a string", int: "a whole number", list: "an array", dict: "an object", bool: "true or false"}
    return " or ".join(words[k] for k in kinds)


def _cut(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[: limit - 3] + "..."



# --------------------------------------------------------------------------
# Writing





def dump_moves(moves: dict[str, Any]) -> str:
    """The move list as a file holds it: indented for reading, as the samples are."""
    return json.dumps(moves, indent=1, ensure_ascii=False) + "\n"
