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
superko compares (see "The superko memory" below). Points are read from
``cells``, a list that mirrors it (the game keeps both), and every write
goes to both: reading a list item is the cheapest read there is, in CPython
and in compiled code alike, where a ``bytearray`` read boxes its index.
Group searches mark the stones they reach in ``marks``, a list of zeros as
long as the board, and clear their marks before they return.

The superko memory
------------------
A game may run to a million turns, so it does not keep every position it
has left, only what finds and rebuilds them, about 40 bytes a turn on
size 13 where whole positions took 630:

* ``hashes[t]``, the key of turn ``t`` (``hashes[0]``: the start): a
  30-bit Zobrist hash of the position the turn left, with the mover mixed
  in so that the two players' positions never meet (see :func:`turn_keys`).
  Its ``array`` has room for the turns up to the next snapshot;
* ``table``, every turn number, in an open-addressing hash table over the
  turns' keys (linear probing, a power of two in size, never more than half
  full), where a key's earlier turns are found;
* ``snapshots``, the whole position every :data:`SNAPSHOT_EVERY` turns
  (the start first);
* the moves played, which the game keeps anyway.

A key only says where to look. Every earlier turn of the same player whose
key equals a new position's is rebuilt exactly, from the snapshot before it
and the moves since, and compared in full, latest first: a collision of keys
can neither make a legal turn illegal nor let a repetition through, and
the repeated turn reported is the latest one.
"""

from __future__ import annotations

from array import array
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

SNAPSHOT_EVERY: Final = 32
"""Turns between two positions the superko memory keeps whole: rebuilding an
earlier position replays at most this many turns less one, and the copies
cost ``len(board) / SNAPSHOT_EVERY`` bytes a turn (15 on size 13)."""
_EVERY_MASK: Final = SNAPSHOT_EVERY - 1


def position_key(b: bytearray, keys: list[list[int]]) -> int:
    """The Zobrist hash of the position ``b``, computed from scratch (no mover mixed in)."""
    h = 0
    for p in range(len(b)):
        t = b[p]
        if t:
            h ^= keys[t + 2][p]
    return h


def position_after(
    turn: int,
    snapshots: bytearray,
    stride: int,
    adj: Adjacency,
    codes: dict[str, int],
    played: list[str],
    player: int,
    parity: int,
    marks: list[int],
) -> bytearray:
    """The position after ``turn`` (0: the start), rebuilt from the last
    snapshot at or before it by replaying the moves played since.

    ``player`` plays the turns whose number has the parity ``parity``, the
    other player the others. The moves are legal ones already played, so each
    placement is replayed with its captures and nothing is judged.
    """
    j = turn // SNAPSHOT_EVERY
    b = bytearray(snapshots[j * stride : (j + 1) * stride])
    cells = list(b)
    captured: list[int] = []
    for i in range(j * SNAPSHOT_EVERY + 1, turn + 1):
        code = codes[played[i - 1]]
        if code >= 0:
            place(b, cells, marks, adj, code, player if i & 1 == parity else 3 - player, captured)
        elif code == BUTTON:
            b[stride - 1] = 1
            cells[stride - 1] = 1
    return b


def earlier_turn(
    b: bytearray,
    key: int,
    table: array[int],
    hashes: array[int],
    snapshots: bytearray,
    adj: Adjacency,
    codes: dict[str, int],
    played: list[str],
    player: int,
    marks: list[int],
) -> int:
    """The latest earlier turn of ``player``, who plays the next turn, that
    left the position ``b`` (whose key is ``key``), or 0 when there is none.

    Every turn whose key is ``key`` is a candidate; the candidates are
    rebuilt and compared with ``b`` in full, latest first.
    """
    mask = len(table) - 1
    parity = (len(played) + 1) & 1
    found: list[int] = []
    slot = key & mask
    t = table[slot]
    while t:
        if hashes[t] == key and t & 1 == parity:
            found.append(t)
        slot = (slot + 1) & mask
        t = table[slot]
    found.sort(reverse=True)
    for t in found:
        if position_after(t, snapshots, len(b), adj, codes, played, player, parity, marks) == b:
            return t
    return 0


def free_slot(table: array[int], key: int) -> int:
    """The slot where ``key`` goes in: the first empty one from its home slot on."""
    mask = len(table) - 1
    slot = key & mask
    while table[slot]:
        slot = (slot + 1) & mask
    return slot


def on_snapshot_turn(b: bytearray, turn: int, table: array[int], hashes: array[int], snapshots: bytearray) -> None:
    """The work of every :data:`SNAPSHOT_EVERY`-th turn, once it is in
    ``table`` and ``hashes``: keep the position whole; make room in
    ``hashes`` for the turns up to the next such turn; and double the table,
    putting every turn back in turn order, if it could be more than half full
    before then."""
    snapshots.extend(b)
    room = len(hashes)
    if room <= turn + SNAPSHOT_EVERY:
        hashes.frombytes(bytes(max(SNAPSHOT_EVERY, room >> 3) * hashes.itemsize))
    size = len(table)
    if 2 * (turn + SNAPSHOT_EVERY) <= size:
        return
    size *= 2
    del table[:]
    table.frombytes(bytes(size * table.itemsize))
    mask = size - 1
    for t in range(1, turn + 1):
        slot = hashes[t] & mask
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = t


def advance(
    b: bytearray,
    adj: Adjacency,
    codes: dict[str, int],
    names: tuple[str, ...],
    moves: tuple[str, ...],
    state: list[int],
    keys: list[list[int]],
    table: array[int],
    hashes: array[int],
    snapshots: bytearray,
    prisoners: list[int],
    played: list[str],
    button_in_play: bool,
    cells: list[int],
    marks: list[int],
    start_key: int = -1,
) -> tuple[int, list[int]]:
    """Play ``moves`` in order for as long as each is a legal turn, exactly as
    :meth:`keilref.engine.keil.KeilGame.play` would, and return how many were played
    with the points the last of them captured.

    ``codes`` maps a move token to its point, :data:`PASS` or :data:`BUTTON`;
    ``state`` is ``[to move, turn, passes, over, button holder]``, read and
    written back; ``keys`` are those of :func:`turn_keys`; ``table``, ``hashes``,
    ``snapshots`` (the superko memory, see above), ``prisoners`` and
    ``played`` are the game's own and are updated in place. At the first turn
    that is not played (an unknown token, a turn after the end, an illegal
    one) nothing of that turn is left on the board, and the caller plays it
    through ``KeilGame.play``, which says exactly why it fails. ``cells`` and
    ``marks`` are the game's mirror of the board and its search marks (see
    above). ``start_key`` is the key of a set-up position (turn 0, the start
    snapshot), which the player who did not move first may not recreate; -1,
    which no key equals, for the empty board, which is at the end of nobody's
    turn. Turn 0 is kept out of ``table``, where 0 marks an empty slot.
    """
    to_move, turn, passes, over, holder = state[0], state[1], state[2], state[3], state[4]
    k = hashes[turn]
    button_bit = len(b) - 1
    captured: list[int] = []
    count = 0
    mask = len(table) - 1
    for move in moves:
        code = codes.get(move, _UNKNOWN)
        if code == _UNKNOWN or over:
            break
        other = 3 - to_move
        if code >= 0:
            if cells[code] != EMPTY:
                break
            taken: list[int] = []
            if not place(b, cells, marks, adj, code, to_move, taken):
                take_back(b, cells, code, taken, other)
                break
            key = k ^ keys[to_move][code]
            if taken:
                removed = keys[other + 2]
                for s in taken:
                    key ^= removed[s]
            slot = key & mask
            t = table[slot]
            if t:
                while t:
                    if hashes[t] == key:
                        # An earlier turn's key: a repetition only if the
                        # two positions are equal in full.
                        if earlier_turn(b, key, table, hashes, snapshots, adj, codes, played, to_move, marks):
                            slot = -1
                        else:
                            slot = free_slot(table, key)
                        break
                    slot = (slot + 1) & mask
                    t = table[slot]
                if slot < 0:
                    take_back(b, cells, code, taken, other)
                    break
            if key == start_key and turn & 1 and b == snapshots[: len(b)]:
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
            key = k ^ keys[0][0]
            slot = free_slot(table, key)
        else:
            if not button_in_play or holder:
                break
            holder = to_move
            b[button_bit] = 1
            cells[button_bit] = 1
            key = k ^ keys[1][button_bit]
            captured = []
            played.append("button")
            passes = 0
            slot = free_slot(table, key)
        turn += 1
        table[slot] = turn
        hashes[turn] = key
        if turn & _EVERY_MASK == 0:
            on_snapshot_turn(b, turn, table, hashes, snapshots)
            mask = len(table) - 1
        k = key
        to_move = other
        count += 1
    state[0], state[1], state[2], state[3], state[4] = to_move, turn, passes, over, holder
    return count, captured


def turn_keys(random_keys: list[int]) -> list[list[int]]:
    """The keys :func:`advance` reads, from ``3 * len(board)`` random numbers.

    The key of a turn is the Zobrist hash of the position it left, XORed
    with ``keys[0][0]`` when White left it, so the two players' memories
    never meet; every turn changes the mover, so every turn XORs
    ``keys[0][0]``. ``keys[c][p]`` is what putting a stone of colour ``c`` on
    point ``p`` does to the key (its stone's key and ``keys[0][0]``), and
    ``keys[c + 2][p]`` what taking it off does (its stone's key alone). The
    button bit is point ``len(b) - 1`` of colour 1.
    """
    stride = len(random_keys) // 3
    flip = random_keys[0]
    black = random_keys[stride : 2 * stride]
    white = random_keys[2 * stride :]
    return [[flip], [key ^ flip for key in black], [key ^ flip for key in white], black, white]


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
