"""The hot loop of the Keil engine: every turn, with its captures, suicide and superko.

Plain functions over ints and the ``bytearray`` board, with nothing imported
from the rest of keilref, so that this one module can be compiled with mypyc
(see "Fast build" in docs/performance.md) while every other module, and a build
without a compiler, run it as ordinary Python. :class:`keilref.engine.keil.KeilGame`
plays every turn through :func:`advance`, holds the game's state between
calls, and words why a turn the kernel refused is not played.

Captures and suicide use the ``keil`` links, which decide them exactly under
either wording of the rules (see :mod:`keilref.engine.keil`). Board bytes are 0 for
empty, 1 for black and 2 for white.

The ``bytearray`` board is the game's state and its bytes are the position
superko compares. Points are read from ``cells``, a list that mirrors it
(the game keeps both), and every write goes to both: reading a list item is
the cheapest read there is, in CPython and in compiled code alike, where a
``bytearray`` read boxes its index. Group searches mark the stones they reach
in ``marks``, a list of zeros as long as the board, and clear their marks
before they return.
"""

from __future__ import annotations

from typing import Final

Adjacency = tuple[tuple[tuple[int, int, int], ...], ...]
"""Per point: ``(neighbour, wing1, wing2)``, as :class:`~keilref.engine.geometry.HexGeometry` gives it."""

EMPTY: Final = 0


def dead_group(
    cells: list[int], marks: list[int], adj: Adjacency, start: int, color: int, other: int
) -> list[int] | None:
    """The stones of ``start``'s group when it has no liberty, else ``None``."""
    members = [start]
    marks[start] = 1
    i = 0
    while i < len(members):
        s = members[i]
        i += 1
        for q, w1, w2 in adj[s]:
            t = cells[q]
            if t == EMPTY:
                if cells[w1] != other or cells[w2] != other:
                    for m in members:
                        marks[m] = 0
                    return None
            elif t == color and not marks[q] and (cells[w1] == color or cells[w2] == color):
                marks[q] = 1
                members.append(q)
    for m in members:
        marks[m] = 0
    return members


def place(
    b: bytearray, cells: list[int], marks: list[int], adj: Adjacency, x: int, c: int, captured: list[int]
) -> bool:
    """Put a stone of colour ``c`` on the empty point ``x`` and take the enemy
    stones it leaves without a liberty, appending them to ``captured``.

    Returns ``False`` when the new stone's own group then has no liberty: a
    suicide, which the caller undoes (the stone and ``captured`` are still on
    the board as this left them).
    """
    o = 3 - c
    b[x] = c
    cells[x] = c
    has_liberty = False
    for q, w1, w2 in adj[x]:
        t = cells[q]
        if t == EMPTY:
            # Captures only add empty points and turn wings empty, so a
            # liberty seen now is still one once all captures are done.
            if not has_liberty and (cells[w1] != o or cells[w2] != o):
                has_liberty = True
        elif t == o:
            # Most enemy stones touch a liberty themselves: settle that
            # without the allocations of a whole-group search.
            for r, v1, v2 in adj[q]:
                if cells[r] == EMPTY and (cells[v1] != c or cells[v2] != c):
                    break
            else:
                dead = dead_group(cells, marks, adj, q, o, c)
                if dead is not None:
                    for s in dead:
                        b[s] = EMPTY
                        cells[s] = EMPTY
                    captured.extend(dead)
    return has_liberty or dead_group(cells, marks, adj, x, c, o) is None


def take_back(b: bytearray, cells: list[int], x: int, taken: list[int], other: int) -> None:
    """Undo :func:`place`: empty ``x`` and put back the ``other`` stones it took."""
    b[x] = EMPTY
    cells[x] = EMPTY
    for s in taken:
        b[s] = other
        cells[s] = other


PASS: Final = -1
BUTTON: Final = -2
_UNKNOWN: Final = -3


def advance(
    b: bytearray,
    adj: Adjacency,
    codes: dict[str, int],
    names: tuple[str, ...],
    moves: tuple[str, ...],
    state: list[int],
    seen: tuple[dict[bytes, int], dict[bytes, int], dict[bytes, int]],
    prisoners: list[int],
    played: list[str],
    button_in_play: bool,
    cells: list[int],
    marks: list[int],
) -> tuple[int, list[int]]:
    """Play ``moves`` in order for as long as each is a legal turn, exactly as
    :meth:`keilref.engine.keil.KeilGame.play` would, and return how many were played
    with the points the last of them captured.

    ``codes`` maps a move token to its point, :data:`PASS` or :data:`BUTTON`;
    ``state`` is ``[to move, turn, passes, over, button holder]``, read and
    written back; ``seen``, ``prisoners`` and ``played`` are the game's own
    and are updated in place. At the first turn that is not played (an
    unknown token, a turn after the end, an illegal one) nothing of that turn
    is left on the board, and the caller plays it through ``KeilGame.play``,
    which says exactly why it fails. ``cells`` and ``marks`` are the game's
    mirror of the board and its search marks (see above).
    """
    to_move, turn, passes, over, holder = state[0], state[1], state[2], state[3], state[4]
    button_bit = len(b) - 1
    captured: list[int] = []
    count = 0
    for move in moves:
        code = codes.get(move, _UNKNOWN)
        if code == _UNKNOWN or over:
            break
        other = 3 - to_move
        if code >= 0:
            if cells[code] != EMPTY:
                break
            taken: list[int] = []
            legal = place(b, cells, marks, adj, code, to_move, taken)
            key = bytes(b)
            mine = seen[to_move]
            if not legal or key in mine:
                take_back(b, cells, code, taken, other)
                break
            captured = taken
            prisoners[to_move] += len(taken)
            played.append(names[code])
            passes = 0
        elif code == PASS:
            if button_in_play and not holder:
                break
            captured = []
            played.append("pass")
            passes += 1
            if passes == 2:
                over = 1
            key = bytes(b)
            mine = seen[to_move]
        else:
            if not button_in_play or holder:
                break
            holder = to_move
            b[button_bit] = 1
            cells[button_bit] = 1
            captured = []
            played.append("button")
            passes = 0
            key = bytes(b)
            mine = seen[to_move]
        turn += 1
        mine[key] = turn
        to_move = other
        count += 1
    state[0], state[1], state[2], state[3], state[4] = to_move, turn, passes, over, holder
    return count, captured


def territories(cells: list[int], adj: Adjacency, n: int, loose: bool) -> list[tuple[list[int], int]]:
    """The territories of the first ``n`` points as ``(points, owner)``.

    ``loose`` links every two adjacent empty points (``keil-2019``); otherwise
    they are linked when a wing is empty (``keil``). ``owner`` is the colour
    of every stone linked to the territory, or 0 for nobody: both colours are,
    or no stone at all is. A stone and an empty point are linked under both
    wordings unless both wings are of the stone's enemy's colour.
    """
    done = [0] * n
    out: list[tuple[list[int], int]] = []
    for p in range(n):
        if cells[p] or done[p]:
            continue
        area = [p]
        done[p] = 1
        touching = 0
        i = 0
        while i < len(area):
            s = area[i]
            i += 1
            for q, w1, w2 in adj[s]:
                t = cells[q]
                if t == EMPTY:
                    if not done[q] and (loose or cells[w1] == EMPTY or cells[w2] == EMPTY):
                        done[q] = 1
                        area.append(q)
                elif not touching & t and (cells[w1] != 3 - t or cells[w2] != 3 - t):
                    touching |= t
        out.append((area, touching if touching != 3 else 0))
    return out


def is_compiled() -> bool:
    """Whether this module runs compiled (the fast build) rather than as Python source."""
    return not __file__.endswith(".py")
