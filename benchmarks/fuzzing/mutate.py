"""What every harness starts from: records, read from ``records/`` and made by
``keilref generate``, and the ways to mutate them."""

from __future__ import annotations

import random
import re

from measured import ROOT

__all__ = ["ROOT", "UNSEEN", "WORDS", "mutate_annotations", "mutate_bytes", "mutate_long", "mutate_tokens", "mutate_unseen", "seeds"]

from keilref.engine.generate import random_games, to_record
from keilref.records.writer import write_record

WORDS = [
    "g7", "G7", "a1", "pass", "button", "K@d4", "P@a1", "1.", "2...", "12.", "B+R", "W+0.5", "B+3", "Draw", "*",
    "{", "}", "[", "]", '"', ";", "\n", "\r\n", "\r", " ", "\t", "\ufeff", "\x00", "\x1b", "\u2028", "é",
    '[Size "3"]', '[Size "2"]', '[Komi "2"]', '[Rules "keil-2019"]', '[Rules "yugo"]', '[Rules "dehil"]',
    '[Button "no"]', '[Result "B+R"]', '[Event "x]y"]', '[E "f]]["]', '[E "a\\"b"]', '[E "{;}"]',
    "{c}", "{\n[Event \"in a comment\"]\n}", "; note\n", "{unclosed\n", "\xff", "\xc2",
    # Version 2: variations, glyphs, clocks and time controls.
    "(", ")", "()", "(g7", "g7)", "(1... g7", "(2. g7 h8)", ")(", "((", "))",
    "!", "?", "!!", "??", "!?", "?!", "!!!", "g7!", "pass?!", "button!", "g7!?)",
    "$0", "$1", "$14", "$255", "$256", "$014", "$", "$x", "$99999999999", "B+T", "W+T", "B+T)",
    "{[%clk 0:09:58]}", "{[%clk 0:00:00.5]}", "{[%clk -0:00:03]}", "{[%clk 0:1:00]}", "{[%clk]}",
    "{[%clk 0:09:58}", "{x [%clk 9:59:59.9] y}", "{[%clkx 0:01:00]}",
    '[TimeControl "600+5"]', '[TimeControl "60"]', '[TimeControl "-"]', '[TimeControl "?"]', '[TimeControl "5 min"]',
]

GLYPH_WORDS = ["!", "?", "!!", "??", "!?", "?!"]
_NUMBER = re.compile(r"[0-9]+\.+")
_MOVE = re.compile(r"[a-m][0-9]{1,2}|pass|button")
_TURN_WORD = re.compile(r"[a-m][0-9]{1,2}|pass|button|[0-9]+\.+")


UNSEEN = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\u200b", "\x00"]
"""Characters that are not white space, though ``str.isspace`` or the eye may say so."""


def seeds(rng: random.Random) -> list[bytes]:
    out = [p.read_bytes() for p in sorted((ROOT / "records").rglob("*.keil"))]
    for i, g in enumerate(random_games(rng.randrange(1 << 30), 30, rules=("keil", "keil-2019", "dehil"), sizes=(2, 3, 4))):
        out.append(write_record(to_record(g, event=f"seed {i}")).encode())
    return out


def mutate_bytes(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        n = len(b)
        op = rng.randrange(6)
        i, j = sorted((rng.randint(0, n), rng.randint(0, n)))
        if op == 0 and n:
            b[rng.randrange(n)] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[i:j]
        elif op == 2:
            b[i:i] = b[i:j]
        elif op == 3:
            other = rng.choice(pool)
            k, m = sorted((rng.randint(0, len(other)), rng.randint(0, len(other))))
            b[i:j] = other[k:m]
        elif op == 4:
            b[i:i] = rng.choice(WORDS).encode("utf-8", "surrogatepass") if rng.random() < 0.9 else b"\xff"
        else:
            del b[j:]
    return bytes(b)


def mutate_tokens(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    parts = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        if not parts:
            parts = [""]
        k = rng.randrange(len(parts))
        op = rng.randrange(4)
        if op == 0:
            parts[k] = rng.choice(WORDS)
        elif op == 1:
            parts.insert(k, parts[k])
        elif op == 2:
            del parts[k]
        else:
            m = rng.randrange(len(parts))
            parts[k], parts[m] = parts[m], parts[k]
    return " ".join(parts).encode("utf-8", "surrogatepass")


def _blanks(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if c in " \t\n\r"]


def mutate_unseen(data: bytes, rng: random.Random) -> bytes:
    """Characters that are not white space put in place of white space, or beside it."""
    text = data.decode("utf-8", "replace")
    for _ in range(rng.randint(1, 3)):
        blanks = _blanks(text)
        i = rng.choice(blanks) if blanks else rng.randint(0, len(text))
        text = text[:i] + rng.choice(UNSEEN) + text[i + rng.randint(0, 1) :]
    return text.encode("utf-8", "surrogatepass")


def _clock(rng: random.Random) -> str:
    tenths = rng.randrange(36000)
    text = f"{tenths // 36000}:{tenths // 600 % 60:02d}:{tenths // 10 % 60:02d}"
    return "{[%clk " + (text + f".{tenths % 10}" if rng.random() < 0.3 else text) + "]}"


def mutate_annotations(data: bytes, rng: random.Random) -> bytes:
    """What version 2 adds, put among the words of a record: turns copied into
    a variation (nested when it lands inside one), a glyph after a word, a
    numeric glyph, a clock after a word, a time control among the tags."""
    text = data.decode("utf-8", "replace")
    # Words and the blanks between them, which are kept as they were.
    for _ in range(rng.randint(1, 4)):
        # Cut again each time, so that a later mutation may land in a variation.
        parts = re.split(r"([ \n]+)", text)
        words = range(0, len(parts), 2)
        moves = [i for i in words if _MOVE.fullmatch(parts[i])]
        # Most land at a move, so that the game often reads and is judged.
        at_move = bool(moves) and rng.random() < 0.8
        k = rng.choice(moves) if at_move else rng.choice(words)
        op = rng.randrange(5)
        if op == 0:
            # The turn at k and a few after it, again as a variation of that
            # turn: the main line keeps its turns, and the copy may be changed
            # or nested by the mutations after this one.
            m = k
            while m + 2 < len(parts) and m < k + 12 and _TURN_WORD.fullmatch(parts[m + 2]):
                m += 2
            span = [parts[i] for i in range(k, m + 1, 2)]
            if rng.random() < 0.8:
                # The copy's turns stand where the main line's do, but a
                # number would have to be written for the first: leave them out.
                span = [w for w in span if not _NUMBER.fullmatch(w)] or span
            if rng.random() < 0.5:
                span[rng.randrange(len(span))] = rng.choice(["a1", "b2", "c3", "pass", "button", "g7"])
            parts[k] += " (" + " ".join(span) + ")"
        elif op == 1:
            parts[k] += rng.choice(GLYPH_WORDS)
        elif op == 2:
            parts[k] += f" ${rng.choice([0, 1, 14, 255, rng.randrange(300)])}"
        elif op == 3:
            parts[k] += " " + _clock(rng)
        else:
            first = next((i for i in words if parts[i].endswith("]")), None)
            if first is not None:
                parts[first] += rng.choice(['[TimeControl "600+5"]', '[TimeControl "60+1"]', '[TimeControl "-"]'])
        text = "".join(parts)
    return text.encode("utf-8", "surrogatepass")


def mutate_long(data: bytes, rng: random.Random) -> bytes:
    """A long run where a token could stand, or many comments, put at a blank."""
    text = data.decode("utf-8", "replace")
    blanks = _blanks(text)
    i = rng.choice(blanks) if blanks else len(text)
    n = rng.choice([1_000, 10_000, 50_000])
    digits = rng.choice("0123456789") * n
    run = rng.choice(
        [
            digits,  # no dot: no token at all
            digits + ".",  # a move number, a long one
            "a" + digits,  # a point with a long row
            "B+" + digits + rng.choice(["", "x", ".5"]),  # a long margin
            "[Date " + digits + "]",  # an unquoted tag value
            "{c}" * (n // 10),  # after whatever stands before
            ";c\n" * (n // 10),
            "1. " + "{c}" * (n // 10),  # after a move number
            '[Event "x"]' + "{c}" * (n // 10),  # after a tag
        ]
    )
    return (text[:i] + " " + run + " " + text[i:]).encode("utf-8", "surrogatepass")
