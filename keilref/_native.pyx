# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The fast build's native path: plain Keil games read, replayed and scored in C.

Compiled only by the fast build (``KEILREF_COMPILE=1``); a plain install
never has it and runs the same games through the Python referee, which is
the reference this module is held to. It imports nothing of keilref:
:mod:`keilref.referee.native` hands it the board geometry and the rule sets'
limits, and turns what it returns into verdicts, so it holds no wording and
decides no status beyond recognising the one outcome it may certify.

:func:`Judge.judge` takes one cut game and either declines it (``None``:
anything outside the plain subset, any fault, any doubt, so the Python
referee judges it) or returns the facts of a game that is certainly ``ok``
or ``unfinished`` with no warning: its tags, its turn count and both
wordings' counts of the final board. The plain subset is described in
docs/performance.md ("The native path").

The superko memory is the kernel's (:mod:`keilref.engine.kernel`), in C:
a 64-bit key a turn, an open-addressing table of turn numbers, the whole
position every 32 turns and the moves; an earlier turn whose key matches
is rebuilt from its snapshot and compared in full, so no collision of keys
can decide a turn. About 30 bytes a turn on size 13.
"""

cimport cython
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy, memset, memcmp
from libc.stdint cimport uint64_t, int32_t, int16_t, uint8_t, uint16_t

DEF SNAP = 32
DEF MAXN = 470
DEF MAXCOLS = 25
DEF PASS = -1
DEF BUTTON = -2
DEF _NO_KOMI = -2147483647

# What a tag's name is to the native path. A name outside these is declined.
DEF T_EVENT = 0
DEF T_SITE = 1
DEF T_DATE = 2
DEF T_ROUND = 3
DEF T_BLACK = 4
DEF T_WHITE = 5
DEF T_RULES = 6
DEF T_SIZE = 7
DEF T_KOMI = 8
DEF T_BUTTON = 9
DEF T_RESULT = 10
DEF N_TAGS = 11


cdef uint8_t _LIBERTY[3][27]
"""``_LIBERTY[x][t + 3*w1 + 9*w2]``: whether a point of type ``t`` with wings
``w1`` and ``w2`` is a liberty of a stone beside it whose enemy is ``x``: it
is empty, and the two wings are not both ``x``'s."""
cdef uint8_t _LINKED[3][27]
"""``_LINKED[x][t + 3*w1 + 9*w2]``: whether a point of type ``t`` is a stone of
colour ``x`` linked to a stone of ``x`` beside it: a wing is ``x``'s."""
for _x in range(3):
    for _t in range(3):
        for _w1 in range(3):
            for _w2 in range(3):
                _LIBERTY[_x][_t + 3 * _w1 + 9 * _w2] = _t == 0 and not (_w1 == _x and _w2 == _x)
                _LINKED[_x][_t + 3 * _w1 + 9 * _w2] = _x != 0 and _t == _x and (_w1 == _x or _w2 == _x)

STATUS_OK = 0
STATUS_UNFINISHED = 1


cdef inline uint64_t _mix(uint64_t *s) noexcept nogil:
    # splitmix64: the keys need only be fixed and well spread.
    s[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


@cython.final
cdef class Geometry:
    """One board size: each point's neighbours and wings, and the point each
    name stands for, as :func:`keilref.engine.geometry.hex_geometry` gives them."""

    cdef int n
    cdef int size
    cdef int deg[MAXN]
    cdef int adj[MAXN * 18]
    cdef int index[MAXCOLS * 1000]
    cdef uint64_t keys[3 * (MAXN + 1)]
    cdef uint64_t flip

    def __init__(self, int size, int n, adjacency, names):
        cdef int p, k, c, r
        cdef uint64_t seed = 0x4B45494C + <uint64_t>size
        if n > MAXN or n < 1:
            raise ValueError("board too large for the native path")
        self.n = n
        self.size = size
        for p in range(MAXCOLS * 1000):
            self.index[p] = -1
        for p in range(n):
            row = adjacency[p]
            if len(row) > 6:
                raise ValueError("a point with more than six neighbours")
            self.deg[p] = len(row)
            for k in range(len(row)):
                q, w1, w2 = row[k]
                self.adj[p * 18 + k * 3] = q
                self.adj[p * 18 + k * 3 + 1] = w1
                self.adj[p * 18 + k * 3 + 2] = w2
            name = names[p]
            c = ord(name[0]) - 97
            r = int(name[1:])
            if c < 0 or c >= MAXCOLS or r < 1 or r >= 1000 or name != f"{chr(97 + c)}{r}":
                raise ValueError(f"a point name the native path cannot read: {name!r}")
            self.index[c * 1000 + r] = p
        for p in range(3 * (MAXN + 1)):
            self.keys[p] = _mix(&seed)
        self.flip = _mix(&seed)


cdef struct Rules:
    int loose
    int min_size
    int max_size
    int half_komi
    int button  # 0: absent, 1: optional, 2: required


@cython.final
cdef class Judge:
    """Judges plain games of the rule sets it was given, reusing its buffers from game to game."""

    cdef dict geometries
    cdef object make_geometry
    cdef list rule_names
    cdef list rule_bytes
    cdef Rules rules[8]
    cdef int n_rules
    cdef int override  # -1: none; else the rule set every game must name
    # The game being judged.
    cdef Geometry geo
    cdef uint8_t board[MAXN + 1]
    cdef uint16_t marks[MAXN + 1]
    cdef uint16_t gen
    cdef int stack[MAXN + 1]
    cdef int taken[MAXN + 1]
    cdef int n_taken
    cdef int dead_count
    cdef int16_t *moves
    cdef uint64_t *hashes
    cdef int32_t *table
    cdef uint8_t *snaps
    cdef Py_ssize_t cap_turns
    cdef Py_ssize_t table_size
    cdef Py_ssize_t cap_snaps

    def __cinit__(self):
        memset(self.marks, 0, sizeof(self.marks))
        self.gen = 0
        self.moves = NULL
        self.hashes = NULL
        self.table = NULL
        self.snaps = NULL
        self.cap_turns = 0
        self.table_size = 0
        self.cap_snaps = 0

    def __init__(self, make_geometry, rules, override=None):
        """``make_geometry(size)``: the :class:`Geometry` of a size; ``rules``: the rule sets'
        ``(name, loose links, min size, max size, half komi, button)``, where
        button is 0 (absent), 1 (optional) or 2 (required); ``override``: the
        rule set a check names (``--rules``), or ``None``."""
        self.geometries = {}
        self.make_geometry = make_geometry
        self.rule_names = []
        self.rule_bytes = []
        self.n_rules = 0
        self.override = -1
        for name, loose, lo, hi, half, button in rules:
            if self.n_rules == 8:
                break
            self.rules[self.n_rules].loose = 1 if loose else 0
            self.rules[self.n_rules].min_size = lo
            self.rules[self.n_rules].max_size = hi
            self.rules[self.n_rules].half_komi = 1 if half else 0
            self.rules[self.n_rules].button = button
            self.rule_names.append(name)
            self.rule_bytes.append(name.encode("ascii"))
            if override is not None and name == override:
                self.override = self.n_rules
            self.n_rules += 1
        if override is not None and self.override < 0:
            raise ValueError(f"rules {override!r} are not judged by the native path")
        self._grow_turns(1024)
        self._grow_table(512)
        self._grow_snaps(64 * (MAXN + 1))

    def __dealloc__(self):
        free(self.moves)
        free(self.hashes)
        free(self.table)
        free(self.snaps)

    cdef int _grow_turns(self, Py_ssize_t cap) except -1:
        cdef int16_t *m = <int16_t *> realloc(self.moves, cap * sizeof(int16_t))
        if m == NULL:
            raise MemoryError()
        self.moves = m
        cdef uint64_t *h = <uint64_t *> realloc(self.hashes, (cap + 1) * sizeof(uint64_t))
        if h == NULL:
            raise MemoryError()
        self.hashes = h
        self.cap_turns = cap
        return 0

    cdef int _grow_table(self, Py_ssize_t size) except -1:
        cdef int32_t *t = <int32_t *> realloc(self.table, size * sizeof(int32_t))
        if t == NULL:
            raise MemoryError()
        self.table = t
        self.table_size = size
        return 0

    cdef int _grow_snaps(self, Py_ssize_t cap) except -1:
        cdef uint8_t *s = <uint8_t *> realloc(self.snaps, cap)
        if s == NULL:
            raise MemoryError()
        self.snaps = s
        self.cap_snaps = cap
        return 0

    # -- the board -------------------------------------------------------

    cdef inline uint16_t _new_marks(self) noexcept:
        """A fresh mark for a search: no point carries it yet."""
        self.gen += 1
        if self.gen == 0:
            memset(self.marks, 0, sizeof(self.marks))
            self.gen = 1
        return self.gen

    cdef bint _dead(self, int start, int color, int other) noexcept:
        """Whether ``start``'s group has no liberty; its stones are then
        ``stack[0:dead_count]``."""
        cdef int *adj = self.geo.adj
        cdef int *deg = self.geo.deg
        cdef uint8_t *b = self.board
        cdef int top = 1, i = 0, s, k, q, idx
        cdef int *row
        cdef uint16_t *marks = self.marks
        cdef uint16_t mark = self._new_marks()
        cdef const uint8_t *liberty = _LIBERTY[other]
        cdef const uint8_t *linked = _LINKED[color]
        self.stack[0] = start
        marks[start] = mark
        while i < top:
            s = self.stack[i]
            i += 1
            row = adj + s * 18
            for k in range(deg[s]):
                q = row[0]
                idx = b[q] + 3 * b[row[1]] + 9 * b[row[2]]
                row += 3
                if liberty[idx]:
                    return False
                if linked[idx] and marks[q] != mark:
                    marks[q] = mark
                    self.stack[top] = q
                    top += 1
        self.dead_count = top
        return True

    cdef bint _place(self, int x, int c) noexcept:
        """:func:`keilref.engine.kernel.place`: the captured stones in ``taken``."""
        cdef int *adj = self.geo.adj
        cdef int *deg = self.geo.deg
        cdef uint8_t *b = self.board
        cdef int o = 3 - c, k, q, w1, w2, t, k2, r, v1, v2, j, count
        cdef bint has_liberty = False, free_
        cdef int *row = adj + x * 18
        cdef int *row2
        cdef const uint8_t *enemy_liberty = _LIBERTY[c]
        # A stone a search of this placement reached, that search found a
        # liberty for: its group is alive, and need not be searched again.
        # The marks start afresh well before they could wrap within a placement.
        if self.gen > 65000:
            memset(self.marks, 0, sizeof(self.marks))
            self.gen = 0
        cdef uint16_t alive_from = self.gen + 1
        b[x] = c
        self.n_taken = 0
        for k in range(deg[x]):
            q = row[0]
            w1 = row[1]
            w2 = row[2]
            row += 3
            t = b[q]
            if t == 0:
                if not has_liberty and (b[w1] != o or b[w2] != o):
                    has_liberty = True
            elif t == o:
                # Most enemy stones touch a liberty themselves: settle that
                # without a search of the whole group.
                free_ = False
                row2 = adj + q * 18
                for k2 in range(deg[q]):
                    if enemy_liberty[b[row2[0]] + 3 * b[row2[1]] + 9 * b[row2[2]]]:
                        free_ = True
                        break
                    row2 += 3
                if not free_ and alive_from <= self.marks[q] <= self.gen:
                    free_ = True
                if not free_ and self._dead(q, o, c):
                    count = self.dead_count
                    for j in range(count):
                        b[self.stack[j]] = 0
                        self.taken[self.n_taken] = self.stack[j]
                        self.n_taken += 1
        if has_liberty:
            return True
        return not self._dead(x, c, o)

    cdef void _take_back(self, int x, int other) noexcept:
        cdef int j
        self.board[x] = 0
        for j in range(self.n_taken):
            self.board[self.taken[j]] = other

    cdef bint _repeats(self, int turn, uint64_t key) noexcept:
        """Whether an earlier turn of the player of ``turn`` left the board as it is now."""
        cdef Py_ssize_t mask = self.table_size - 1
        cdef Py_ssize_t slot = <Py_ssize_t>(key & <uint64_t>mask)
        cdef int32_t t = self.table[slot]
        while t:
            if self.hashes[t] == key and (t & 1) == (turn & 1):
                return self._same_as(turn, key, slot)
            slot = (slot + 1) & mask
            t = self.table[slot]
        return False

    cdef bint _same_as(self, int turn, uint64_t key, Py_ssize_t slot) noexcept:
        """:meth:`_repeats` once a key matches: each candidate from ``slot`` on rebuilt and compared in full."""
        cdef Py_ssize_t mask = self.table_size - 1
        cdef int32_t t = self.table[slot]
        cdef int n1 = self.geo.n + 1
        cdef uint8_t saved[MAXN + 1]
        cdef int saved_taken[MAXN + 1]
        cdef int saved_n = self.n_taken
        cdef bint same = False
        memcpy(saved, self.board, n1)
        memcpy(saved_taken, self.taken, saved_n * sizeof(int))
        while t:
            if self.hashes[t] == key and (t & 1) == (turn & 1):
                self._rebuild(t)
                same = memcmp(self.board, saved, n1) == 0
                memcpy(self.board, saved, n1)
                if same:
                    break
            slot = (slot + 1) & mask
            t = self.table[slot]
        memcpy(self.taken, saved_taken, saved_n * sizeof(int))
        self.n_taken = saved_n
        return same

    cdef void _rebuild(self, int turn) noexcept:
        """The board as turn ``turn`` left it, from its snapshot and the moves since."""
        cdef int n1 = self.geo.n + 1
        cdef int j = turn // SNAP, i, code
        memcpy(self.board, self.snaps + <Py_ssize_t>j * n1, n1)
        for i in range(j * SNAP + 1, turn + 1):
            code = self.moves[i - 1]
            if code >= 0:
                self._place(code, 1 if i & 1 else 2)
            elif code == BUTTON:
                self.board[n1 - 1] = 1

    cdef int _record(self, int turn, uint64_t key) except -1:
        """Keep turn ``turn``'s key: in the table, and a snapshot every SNAP turns."""
        cdef Py_ssize_t mask, slot, size, t
        cdef int n1 = self.geo.n + 1
        if 2 * (turn + 1) > self.table_size:
            size = self.table_size * 2
            self._grow_table(size)
            memset(self.table, 0, size * sizeof(int32_t))
            mask = size - 1
            for t in range(1, turn):
                slot = <Py_ssize_t>(self.hashes[t] & <uint64_t>mask)
                while self.table[slot]:
                    slot = (slot + 1) & mask
                self.table[slot] = <int32_t>t
        mask = self.table_size - 1
        slot = <Py_ssize_t>(key & <uint64_t>mask)
        while self.table[slot]:
            slot = (slot + 1) & mask
        self.table[slot] = turn
        self.hashes[turn] = key
        if turn % SNAP == 0:
            if (turn // SNAP + 1) * n1 > self.cap_snaps:
                self._grow_snaps(self.cap_snaps * 2)
            memcpy(self.snaps + <Py_ssize_t>(turn // SNAP) * n1, self.board, n1)
        return 0

    cdef void _territory(self, int loose, int *out) noexcept:
        """``out[0..2]``: neutral, Black's and White's territory under a wording."""
        cdef int n = self.geo.n
        cdef int *adj = self.geo.adj
        cdef int *deg = self.geo.deg
        cdef uint8_t *b = self.board
        cdef int p, top, i, s, k, q, w1, w2, t, touching
        cdef uint16_t *marks = self.marks
        cdef uint16_t mark = self._new_marks()
        out[0] = out[1] = out[2] = 0
        for p in range(n):
            if b[p] or marks[p] == mark:
                continue
            self.stack[0] = p
            marks[p] = mark
            top = 1
            i = 0
            touching = 0
            while i < top:
                s = self.stack[i]
                i += 1
                for k in range(deg[s]):
                    q = adj[s * 18 + k * 3]
                    w1 = adj[s * 18 + k * 3 + 1]
                    w2 = adj[s * 18 + k * 3 + 2]
                    t = b[q]
                    if t == 0:
                        if marks[q] != mark and (loose or b[w1] == 0 or b[w2] == 0):
                            marks[q] = mark
                            self.stack[top] = q
                            top += 1
                    elif not (touching & t) and (b[w1] != 3 - t or b[w2] != 3 - t):
                        touching |= t
            out[touching if touching != 3 else 0] += top

    # -- one game ----------------------------------------------------------

    def judge(self, bytes data, Py_ssize_t max_turns):
        """The facts of a plain game that is ``ok`` or ``unfinished`` with no
        warning, or ``None`` for any other (see the module's docstring),
        such as one of more than ``max_turns`` turns.

        The facts: ``(status, rules, size, komi, turns, declared, computed,
        counts, siblings, line offset, result offset, event, black, white,
        round, date, site)``, where ``counts`` is ``(black stones, white stones,
        black territory, white territory, neutral, button holder)`` under the
        game's rules, ``siblings`` holds ``(rules, black territory, white
        territory, neutral)`` under each other rule set given (only for an
        ended game), ``line offset`` counts the lines before the first tag,
        and ``result offset`` is where the declared result is written (the
        result token, else the ``Result`` tag; -1 for neither).
        """
        cdef const unsigned char *s = data
        cdef Py_ssize_t n = len(data), i = 0, j, start, vstart
        cdef int line_offset = 0, tag, k, seen = 0
        cdef Py_ssize_t vals[N_TAGS * 2]
        cdef unsigned char ch
        # Leading line ends only: the first tag starts a line.
        while i < n and s[i] == 10:
            line_offset += 1
            i += 1
        if i >= n or s[i] != 91:
            return None
        # Tags: [Name "value"], one a line.
        while i < n and s[i] == 91:
            j = i + 1
            while j < n and ((65 <= s[j] <= 90) or (97 <= s[j] <= 122)):
                j += 1
            tag = _tag_of(s + i + 1, j - i - 1)
            if tag < 0 or seen & (1 << tag):
                return None
            if j + 1 >= n or s[j] != 32 or s[j + 1] != 34:
                return None
            vstart = j + 2
            j = vstart
            while j < n:
                ch = s[j]
                if ch == 34:
                    break
                if ch < 32 or ch > 126 or ch == 92:
                    return None
                j += 1
            if j + 1 >= n or s[j + 1] != 93:
                return None
            seen |= 1 << tag
            vals[2 * tag] = vstart
            vals[2 * tag + 1] = j
            i = j + 2
            if i < n and s[i] != 10:
                return None
            while i < n and s[i] == 10:
                i += 1
        # The settings the game is played under.
        if not (seen & (1 << T_RULES)) or not (seen & (1 << T_SIZE)) or not (seen & (1 << T_KOMI)):
            return None
        cdef int r = -1
        for k in range(self.n_rules):
            name = self.rule_bytes[k]
            if vals[2 * T_RULES + 1] - vals[2 * T_RULES] == len(name) and memcmp(
                s + vals[2 * T_RULES], <const char *>name, len(name)
            ) == 0:
                r = k
                break
        if r < 0 or (self.override >= 0 and r != self.override):
            return None
        cdef Rules rules = self.rules[r]
        cdef int size = _small_int(s, vals[2 * T_SIZE], vals[2 * T_SIZE + 1])
        if size < rules.min_size or size > rules.max_size:
            return None
        geo = self.geometries.get(size)
        if geo is None:
            geo = self.geometries[size] = self.make_geometry(size)
        self.geo = <Geometry>geo
        cdef int komi2 = _komi_twice(s, vals[2 * T_KOMI], vals[2 * T_KOMI + 1])
        if komi2 == _NO_KOMI or (komi2 & 1 and not rules.half_komi):
            return None
        cdef bint button_in_play
        if rules.button == 0:
            if seen & (1 << T_BUTTON):
                return None
            button_in_play = False
        else:
            if not (seen & (1 << T_BUTTON)):
                return None
            if _is(s, vals[2 * T_BUTTON], vals[2 * T_BUTTON + 1], b"yes"):
                button_in_play = True
            elif _is(s, vals[2 * T_BUTTON], vals[2 * T_BUTTON + 1], b"no") and rules.button == 1:
                button_in_play = False
            else:
                return None
        # The moves: numbers, points, pass, button, then perhaps a result.
        cdef Geometry g = self.geo
        cdef int npoints = g.n
        cdef int to_move = 1, turn = 0, passes = 0, over = 0, holder = 0, code, c, rr, number
        cdef Py_ssize_t result_start = -1, result_end = -1
        cdef uint64_t key = 0
        cdef bint numbered = False, numbered_before = False
        memset(self.board, 0, npoints + 1)
        memset(self.table, 0, self.table_size * sizeof(int32_t))
        self.hashes[0] = 0
        memcpy(self.snaps, self.board, npoints + 1)
        while True:
            while i < n and (s[i] == 32 or s[i] == 10):
                i += 1
            if i >= n:
                break
            if result_start >= 0:
                return None
            start = i
            while i < n and s[i] != 32 and s[i] != 10:
                i += 1
            ch = s[start]
            if 48 <= ch <= 57:
                # A move number: N. before Black's turn, N... before White's.
                if numbered:
                    return None
                number = 0
                j = start
                while j < i and 48 <= s[j] <= 57:
                    if j - start > 6 or (j == start and ch == 48):
                        return None
                    number = number * 10 + (s[j] - 48)
                    j += 1
                if number != turn // 2 + 1:
                    return None
                if turn & 1 == 0:
                    if i - j != 1 or s[j] != 46:
                        return None
                elif i - j != 3 or s[j] != 46 or s[j + 1] != 46 or s[j + 2] != 46:
                    return None
                numbered = True
                continue
            numbered_before = numbered
            numbered = False
            if 97 <= ch <= 122 and i - start >= 2 and i - start <= 4 and 49 <= s[start + 1] <= 57:
                rr = 0
                for j in range(start + 1, i):
                    if not (48 <= s[j] <= 57):
                        return None
                    rr = rr * 10 + (s[j] - 48)
                c = ch - 97
                if c >= MAXCOLS:
                    return None
                code = g.index[c * 1000 + rr]
                if code < 0:
                    return None
            elif _is(s, start, i, b"pass"):
                code = PASS
            elif _is(s, start, i, b"button"):
                code = BUTTON
            elif ch == 66 or ch == 87 or ch == 68 or (ch == 42 and i - start == 1):
                if numbered_before:
                    return None  # a move number stands before the result, not before a move
                result_start = start
                result_end = i
                continue
            else:
                return None
            # One turn, as keilref.engine.kernel.advance plays it.
            if over or turn >= max_turns:
                return None  # a turn after the end; a game past the cap a game may have
            if turn + 1 >= self.cap_turns:
                self._grow_turns(self.cap_turns * 2)
            if code >= 0:
                if self.board[code] != 0:
                    return None
                if not self._place(code, to_move):
                    return None
                key = key ^ g.keys[to_move * (MAXN + 1) + code] ^ g.flip
                for j in range(self.n_taken):
                    key ^= g.keys[(3 - to_move) * (MAXN + 1) + self.taken[j]]
                if self._repeats(turn + 1, key):
                    return None
                passes = 0
            elif code == PASS:
                if button_in_play and not holder:
                    return None
                passes += 1
                if passes == 2:
                    over = 1
                key ^= g.flip
            else:
                if not button_in_play or holder:
                    return None
                holder = to_move
                self.board[npoints] = 1
                key ^= g.keys[npoints] ^ g.flip
                passes = 0
            self.moves[turn] = <int16_t>code
            turn += 1
            self._record(turn, key)
            to_move = 3 - to_move
        if numbered:
            return None
        # The declared result: the result token, else the Result tag.
        declared = None
        if result_start >= 0:
            declared = data[result_start:result_end]
            if seen & (1 << T_RESULT) and data[vals[2 * T_RESULT]:vals[2 * T_RESULT + 1]] != declared:
                return None
        elif seen & (1 << T_RESULT):
            declared = data[vals[2 * T_RESULT]:vals[2 * T_RESULT + 1]]
        # The count, under the game's wording and its sibling's.
        cdef int area[3]
        cdef int sib[3]
        cdef int stones_b = 0, stones_w = 0, p
        for p in range(npoints):
            if self.board[p] == 1:
                stones_b += 1
            elif self.board[p] == 2:
                stones_w += 1
        self._territory(rules.loose, area)
        cdef int black2 = 2 * (stones_b + area[1]) + (1 if holder == 1 else 0)
        cdef int white2 = 2 * (stones_w + area[2]) + komi2 + (1 if holder == 2 else 0)
        computed = None
        cdef int status
        sibling = ()
        if over:
            computed = _result_text(black2, white2)
            if declared is not None and declared != computed and declared != b"*":
                return None
            status = STATUS_OK
            siblings = []
            for k in range(self.n_rules):
                if k != r:
                    self._territory(self.rules[k].loose, sib)
                    siblings.append((self.rule_names[k], sib[1], sib[2], sib[0]))
            sibling = tuple(siblings)
        else:
            if declared is not None and declared != b"*":
                return None
            status = STATUS_UNFINISHED
        return (
            status,
            self.rule_names[r],
            size,
            komi2,
            turn,
            None if declared is None else _text(declared),
            None if computed is None else _text(computed),
            (stones_b, stones_w, area[1], area[2], area[0], holder),
            sibling,
            line_offset,
            result_start if result_start >= 0 else (vals[2 * T_RESULT] - 9 if seen & (1 << T_RESULT) else -1),
            _value(data, vals, seen, T_EVENT),
            _value(data, vals, seen, T_BLACK),
            _value(data, vals, seen, T_WHITE),
            _value(data, vals, seen, T_ROUND),
            _value(data, vals, seen, T_DATE),
            _value(data, vals, seen, T_SITE),
        )



_TAG_NAMES = (b"Event", b"Site", b"Date", b"Round", b"Black", b"White", b"Rules", b"Size", b"Komi", b"Button", b"Result")
"""The tags the native path reads, in the order of the ``T_`` constants (kept
alive here: :data:`_NAMES` points into these bytes)."""
cdef const char *_NAMES[N_TAGS]
cdef int _LENGTHS[N_TAGS]
for _k in range(N_TAGS):
    _NAMES[_k] = _TAG_NAMES[_k]
    _LENGTHS[_k] = len(_TAG_NAMES[_k])


cdef inline int _tag_of(const unsigned char *name, Py_ssize_t length) noexcept:
    """Which tag the native path reads ``name`` is; -1 for any other."""
    cdef int k
    for k in range(N_TAGS):
        if _LENGTHS[k] == length and memcmp(name, _NAMES[k], length) == 0:
            return k
    return -1


cdef inline bint _is(const unsigned char *s, Py_ssize_t a, Py_ssize_t b, bytes word):
    return b - a == len(word) and memcmp(s + a, <const char *>word, b - a) == 0


cdef int _small_int(const unsigned char *s, Py_ssize_t a, Py_ssize_t b) noexcept:
    """A size as the native path reads one: 1 to 3 digits, no leading zero; -1 otherwise."""
    cdef int v = 0
    cdef Py_ssize_t j
    if b <= a or b - a > 3 or s[a] == 48:
        return -1
    for j in range(a, b):
        if not (48 <= s[j] <= 57):
            return -1
        v = v * 10 + (s[j] - 48)
    return v


cdef int _komi_twice(const unsigned char *s, Py_ssize_t a, Py_ssize_t b) noexcept:
    """Twice a komi written ``6``, ``-3`` or ``6.5`` (whole part 0 to 99999, no
    leading zero, no ``-0``); ``_NO_KOMI`` for anything else."""
    cdef int sign = 1, v = 0
    cdef Py_ssize_t j = a, digits = 0
    if j < b and s[j] == 45:
        sign = -1
        j += 1
    while j < b and 48 <= s[j] <= 57:
        if digits == 5 or (digits == 1 and v == 0):
            return _NO_KOMI
        v = v * 10 + (s[j] - 48)
        digits += 1
        j += 1
    if digits == 0:
        return _NO_KOMI
    v *= 2
    if j < b:
        if b - j != 2 or s[j] != 46 or s[j + 1] != 53:
            return _NO_KOMI
        v += 1
    if sign < 0 and v == 0:
        return _NO_KOMI
    return sign * v


cdef dict _TEXTS = {}


cdef object _text(bytes word):
    """``word`` as a ``str``, the same object for the same word (results repeat)."""
    text = _TEXTS.get(word)
    if text is None:
        if len(_TEXTS) > 10000:
            _TEXTS.clear()
        text = _TEXTS[word] = word.decode("ascii")
    return text


cdef dict _RESULTS = {}


cdef bytes _result_text(int black2, int white2):
    """:func:`_result_of`, kept by the two totals (they repeat from game to game)."""
    key = (black2, white2)
    text = _RESULTS.get(key)
    if text is None:
        if len(_RESULTS) > 10000:
            _RESULTS.clear()
        text = _RESULTS[key] = _result_of(black2, white2)
    return text


cdef bytes _result_of(int black2, int white2):
    """``B+3``, ``W+0.5`` or ``Draw``, as :class:`keilref.values.Result` writes a count."""
    cdef int margin2
    if black2 == white2:
        return b"Draw"
    margin2 = black2 - white2 if black2 > white2 else white2 - black2
    letter = b"B+" if black2 > white2 else b"W+"
    if margin2 & 1:
        return letter + str(margin2 // 2).encode("ascii") + b".5"
    return letter + str(margin2 // 2).encode("ascii")


cdef object _value(bytes data, Py_ssize_t *vals, int seen, int tag):
    if not (seen & (1 << tag)):
        return None
    return data[vals[2 * tag]:vals[2 * tag + 1]].decode("ascii")


cdef uint8_t _STOPS[256]
"""The bytes a game's cut must look at once its first token is read: a tag,
a comment, a ``;`` and every byte outside ASCII."""
cdef uint8_t _BLANKS[256]
"""The blanks of the grammar in ASCII: space, tab, line end, carriage return."""
for _b in range(256):
    _STOPS[_b] = _b == 91 or _b == 123 or _b == 59 or _b >= 128
    _BLANKS[_b] = _b == 32 or _b == 9 or _b == 10 or _b == 13


cdef inline uint64_t _zero_byte(uint64_t v) noexcept nogil:
    # Non-zero exactly when a byte of v is zero.
    return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL


cdef inline bint _matters(uint64_t w) noexcept nogil:
    """Whether any of eight bytes is one of :data:`_STOPS`."""
    return (w & 0x8080808080808080ULL) != 0 or (
        _zero_byte(w ^ 0x5B5B5B5B5B5B5B5BULL)
        | _zero_byte(w ^ 0x7B7B7B7B7B7B7B7BULL)
        | _zero_byte(w ^ 0x3B3B3B3B3B3B3B3BULL)
    ) != 0


cdef inline int _count_line_ends(uint64_t w) noexcept nogil:
    """How many of eight ASCII bytes are line ends (exactly: no borrow crosses bytes)."""
    cdef uint64_t v = w ^ 0x0A0A0A0A0A0A0A0AULL
    cdef uint64_t t = (v & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL
    t = ~(t | v | 0x7F7F7F7F7F7F7F7FULL)
    return <int>(((t >> 7) * 0x0101010101010101ULL) >> 56)


CUT_DONE = 0
""":func:`cut` reached the end of the file."""
CUT_MORE = 1
""":func:`cut` needs the next bytes of the file, from the current game on."""
CUT_STOP = 2
""":func:`cut` met what only the Python cutter reads (a comment, a byte
outside ASCII, a broken tag, a game over the cap): it cuts from the current game on."""


def cut(const unsigned char[::1] buf, Py_ssize_t start, int line, int column, bint eof, Py_ssize_t max_bytes):
    """Cut ``buf`` into games from ``start``, where a game starts (on ``line``,
    after ``column`` characters of its line), as
    :func:`keilref.records.parser.split_games` cuts text with no comment, no
    ``;`` and nothing outside ASCII.

    Returns ``(pieces, start, line, column, status)``: each piece is
    ``(begin, end, line, column)`` of a whole game; then where the game not
    yet cut starts, its line and column; and a ``CUT_`` status. A game is cut
    at the ``[`` of the first tag after something other than tags.
    """
    cdef Py_ssize_t n = buf.shape[0], i = start, game = start, j, k
    cdef const unsigned char *s = &buf[0] if n else NULL
    cdef int game_line = line, game_column = column
    cdef bint tokens = False, content = False
    cdef unsigned char ch
    cdef uint64_t word
    pieces = []
    while i < n:
        if tokens:
            # To the next tag, comment, ';' or byte outside ASCII, eight
            # bytes at a time, counting the line ends on the way.
            while i + 8 <= n:
                memcpy(&word, s + i, 8)
                if _matters(word):
                    break
                line += _count_line_ends(word)
                i += 8
            while i < n and not _STOPS[s[i]]:
                if s[i] == 10:
                    line += 1
                i += 1
        else:
            while i < n and _BLANKS[s[i]]:
                if s[i] == 10:
                    line += 1
                i += 1
        if i >= n:
            break
        ch = s[i]
        if ch == 123 or ch == 59 or ch >= 128 or i - game > max_bytes:
            return pieces, game, game_line, game_column, CUT_STOP
        if ch == 91:
            if tokens:
                if i - game > max_bytes:
                    return pieces, game, game_line, game_column, CUT_STOP
                pieces.append((game, i, game_line, game_column))
                # The new game's column: after the last line end before it.
                j = i - 1
                while j >= game and s[j] != 10:
                    j -= 1
                game_column = <int>(i - j - 1) if j >= game else game_column + <int>(i - game)
                game = i
                game_line = line
                tokens = False
            content = True
            # The tag, as _WHOLE_TAG reads it: to its ']', quotes respected.
            j = i + 1
            while j < n and s[j] != 93 and s[j] != 10 and s[j] != 34:
                j += 1
            if j < n and s[j] == 34:
                j += 1
                while j < n and s[j] != 34 and s[j] != 10:
                    if s[j] == 92:
                        if j + 1 < n and s[j + 1] == 10:
                            return pieces, game, game_line, game_column, CUT_STOP
                        j += 1
                    j += 1
                if j < n and s[j] == 34:
                    j += 1
                    while j < n and s[j] != 93 and s[j] != 10:
                        j += 1
                elif j < n:
                    return pieces, game, game_line, game_column, CUT_STOP
            if j >= n:
                if eof:
                    return pieces, game, game_line, game_column, CUT_STOP
                return pieces, game, game_line, game_column, CUT_MORE
            if s[j] != 93:
                return pieces, game, game_line, game_column, CUT_STOP
            for k in range(i, j):
                if s[k] >= 128 or s[k] == 123 or s[k] == 59:
                    return pieces, game, game_line, game_column, CUT_STOP
            i = j + 1
            continue
        tokens = True
        content = True
        i += 1
    if not eof:
        return pieces, game, game_line, game_column, CUT_MORE
    if not content or n - game > max_bytes:
        return pieces, game, game_line, game_column, CUT_STOP
    pieces.append((game, n, game_line, game_column))
    return pieces, n, line, 0, CUT_DONE
