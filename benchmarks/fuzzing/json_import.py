"""The JSON surface: matches of the abstract_games server, their import, and the sniffing.

Matches are seeded from the server's own samples (beside the repository,
in ``../shared/interop-samples/abstract_games/``, as the tests find them;
``KEILREF_SHARED`` may name another ``shared``) and from games of the pool
exported as the server's move list, then mutated as trees (a value replaced
by one of another type, a huge or negative number, a deep nesting, an odd
size, seat or move, a key dropped or added, a list reordered) and as text
(a key written twice, a number of thousands of digits, bytes flipped, a
byte-order mark). Records whose first comment starts with ``{`` are made
from the record pool. The properties:

* checking raises nothing, every error is located, within the time bound;
* a match reads the same whether its name says it is one, or it is
  sniffed (standard input, a ``.keil`` name) while it is JSON through and
  through; on disk as in memory, and as ``check -`` reads it; gzip-compressed
  as plain;
* a match that checks imports, and the imported record checks as it did;
* a comment in front of a record, whatever it starts with, changes no verdict.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from pathlib import Path
from typing import Any

from keilref import KeilrefError, Record, check_file, check_text, read_games
from keilref.records.abstract_games import dump_moves
from keilref.referee.matches import export_moves

from fuzzing.common import Case, Surface, cli, essence_of, located
from fuzzing.mutate import ROOT, mutate_bytes

SHAPES = (".match.json", ".replay.json", ".moves.json")

ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2, 3, 999, 2**31, 2**63, -(2**63), 1.5, 1e308, -0.0, "", "0", "1", "keil", "go",
    "komi=6", "komi=13", "komi=-1", "komi=", "white", "black", "button", "pass", "resign", "0,0", "9,9", "-0,0",
    "1,2,3", "１,２", "a,b", " 0,0", "0, 0", "\u0000", "\ud800", [], {}, [[]], [{}], {"size": 5},
]
SIZES: list[Any] = [0, 1, 2, 3, 4, 5, 7, 13, 14, 99, 999, 10**6, -1, "5", 4.0, 4.5, None, True, [5], {"n": 5}]
MOVES: list[str] = [
    "komi=0", "komi=6", "komi=12", "komi=13", "komi=-1", "komi=1e3", "komi=", "white", "black", "button", "pass",
    "resign", "0,0", "-3,3", "3,-3", "3,0", "4,0", "0,4", "-4,4", "1,2,3", "1,", ",1", "", " ", "１,２", "0x1,0",
    "+1,-1", "-0,-0", "99999999999999999999,0", "komi=99999999999999999999",
]
LABELS: list[str] = ["komi 6", "choose Black (swap)", "choose White", "take the button (½ point)", "pass", "-1,2", "x"]


def samples() -> list[tuple[str, bytes]]:
    """The server's answers, by shape suffix."""
    found: list[tuple[str, bytes]] = []
    for folder in _sample_dirs():
        for path in sorted(folder.glob("*.json")):
            suffix = next((s for s in SHAPES if path.name.endswith(s)), None)
            if suffix is not None:
                found.append((suffix, path.read_bytes()))
    return found


def _sample_dirs() -> list[Path]:
    shared = Path(os.environ.get("KEILREF_SHARED") or ROOT.parent / "shared")
    return [d for d in (shared / "interop-samples" / "abstract_games",) if d.is_dir()]


def exported(pool: list[bytes]) -> list[tuple[str, bytes]]:
    """The pool's Keil games as the server's move list, as ``keilref export`` writes them."""
    out: list[tuple[str, bytes]] = []
    for data in pool:
        for record in read_games(data):
            if isinstance(record, Record):
                try:
                    out.append((".moves.json", dump_moves(export_moves(record)).encode()))
                except (ValueError, KeilrefError):
                    pass
    return out


def _paths(tree: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON tree, as the keys and indexes that reach it."""
    found = [at]
    if isinstance(tree, dict):
        for k, v in tree.items():
            found += _paths(v, (*at, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            found += _paths(v, (*at, i))
    return found


def _get(tree: Any, at: tuple[Any, ...]) -> Any:
    for k in at:
        tree = tree[k]
    return tree


def _set(tree: Any, at: tuple[Any, ...], value: Any) -> Any:
    if not at:
        return value
    _get(tree, at[:-1])[at[-1]] = value
    return tree


def mutate_tree(tree: Any, rng: random.Random, others: list[Any]) -> Any:
    for _ in range(rng.randint(1, 3)):
        places = _paths(tree)
        at = rng.choice(places)
        key = at[-1] if at else None
        op = rng.randrange(8)
        if op == 0:
            tree = _set(tree, at, rng.choice(ODD_VALUES))
        elif op == 1 or key == "size":
            size = next((p for p in places if p and p[-1] == "size"), None)
            if size is not None:
                tree = _set(tree, size, rng.choice(SIZES))
        elif op == 2 or key in ("move", "label"):
            move = [p for p in places if p and p[-1] in ("move", "label")]
            if move:
                p = rng.choice(move)
                tree = _set(tree, p, rng.choice(MOVES if p[-1] == "move" else LABELS + MOVES))
        elif op == 3:
            seats = [p for p in places if p and p[-1] in ("seat", "winner", "current_player", "my_seat", "owner", "ply")]
            if seats:
                tree = _set(tree, rng.choice(seats), rng.choice([0, 1, 2, -1, None, "0", True, 1.0, 10**6]))
        elif op == 4 and at:
            parent = _get(tree, at[:-1])
            if isinstance(parent, dict):
                del parent[key]
            elif isinstance(parent, list) and isinstance(key, int):
                del parent[key]
        elif op == 5:
            lists = [p for p in places if isinstance(_get(tree, p), list) and _get(tree, p)]
            if lists:
                items = _get(tree, rng.choice(lists))
                i, j = rng.randrange(len(items)), rng.randrange(len(items))
                if rng.random() < 0.5:
                    items[i], items[j] = items[j], items[i]
                else:
                    items.insert(i, json.loads(json.dumps(items[j])))
        elif op == 6:
            other = rng.choice(others)
            sub = _get(other, rng.choice(_paths(other)))
            tree = _set(tree, at, json.loads(json.dumps(sub)))
        else:
            dicts = [p for p in places if isinstance(_get(tree, p), dict)]
            if dicts:
                _get(tree, rng.choice(dicts))[rng.choice(["extra", "moves", "history", "frames", "game_uid", "é"])] = (
                    rng.choice(ODD_VALUES)
                )
    return tree


def mutate_text(text: str, rng: random.Random) -> str:
    """What a tree cannot hold: a key twice, a huge number, a deep nesting."""
    op = rng.randrange(6)
    if op == 0:
        # The same key again in the same object: the last value is the one kept.
        keys = list(re.finditer(r'"(moves|history|frames|players|options|size|seat|status|winner|move)"\s*:', text))
        if keys:
            m = rng.choice(keys)
            value = rng.choice(["[]", "{}", "0", "null", '"x"', "[{}]", '[{"ply": 0, "seat": 0, "move": "komi=6"}]'])
            return text[: m.start()] + f'"{m.group(1)}": {value}, ' + text[m.start() :]
    if op == 1:
        numbers = list(re.finditer(r"(?<![\w.\"])-?[0-9]+(?![\w.\"])", text))
        if numbers:
            m = rng.choice(numbers)
            digits = "9" * rng.choice([20, 400, 4301, 5000, 100_000])
            return text[: m.start()] + rng.choice(["", "-"]) + digits + text[m.end() :]
    if op == 2:
        depth = rng.choice([50, 500, 1000, 5000, 100_000])
        values = list(re.finditer(r":\s*", text))
        if values:
            m = rng.choice(values)
            open_, close = rng.choice([("[", "]"), ('{"a":', "}")])
            return text[: m.end()] + open_ * depth + "0" + close * depth * rng.choice([0, 1, 1]) + text[m.end() :]
    if op == 3:
        return rng.choice(["\ufeff", " ", "\n", "\x00", "{}", "[]"]) + text
    if op == 4:
        return text + rng.choice(["", "\n", "\n{}", " x", "\x00", "\n[Event \"x\"]\n1. a1 *"])
    floats = list(re.finditer(r"(?<![\w.\"])[0-9]+(?![\w\"])", text))
    if floats:
        m = rng.choice(floats)
        return text[: m.end()] + rng.choice([".0", "e0", "e400", ".5", "E-1"]) + text[m.end() :]
    return text


JSONISH_COMMENTS = [
    '{"Note": from the club archive}',
    '{"game_uid": "keil"}',
    '{"game_uid": "keil", "moves": []}',
    '{ "a": 1 }',
    '{"x":}',
    '{{}',
    '{[1, 2]}',
    '{"}',
    '{"\\"": 1}',
    '{}',
    '{\n"moves": [\n]\n}',
    '{"id": "db5b5fab8f4d3e27dda1494c73cf256d", "status": "finished"}',
]
"""Comments a record may open with that start as a JSON object does."""


class JsonImport(Surface):
    name = "json"
    weight = 1.0

    def __init__(self, rng: random.Random, pool: list[bytes], work: Path) -> None:
        super().__init__(rng, pool, work)
        self.matches = samples() + exported(pool)
        self.trees = [json.loads(data) for _, data in self.matches]

    def case(self, rng: random.Random) -> Case:
        if rng.random() < 0.25:
            record = rng.choice(self.pool)
            comment = rng.choice(JSONISH_COMMENTS)
            glue = rng.choice(["\n", " ", "\n\n", "\r\n"])
            data = comment.encode() + glue.encode() + record
            return Case(data, ".keil", "a record whose first comment starts with '{'", extra={"record": record})
        suffix, text = rng.choice(self.matches)
        if rng.random() < 0.7:
            tree = mutate_tree(json.loads(text), rng, self.trees)
            try:
                text = json.dumps(tree, indent=rng.choice([None, 1, 2]), ensure_ascii=rng.random() < 0.5).encode(
                    "utf-8", "surrogatepass"
                )
            except ValueError:
                pass
        if rng.random() < 0.4:
            text = mutate_text(text.decode("utf-8", "replace"), rng).encode("utf-8", "surrogatepass")
        if rng.random() < 0.15:
            text = mutate_bytes(text, rng, [t for _, t in self.matches])
        return Case(text, suffix, f"a {suffix} match")

    def check(self, case: Case, rng: random.Random) -> None:
        if "record" in case.extra:
            self._check_comment(case)
            return
        named = check_text(case.data, filename=f"m{case.suffix}")
        for v in named:
            located(v)
        assert len(named) == 1, f"a match is one game: {len(named)} verdicts"
        whole = _whole_json_object(case.data)
        if whole:
            for name in ("-", "m.keil", "m.json"):
                sniffed = check_text(case.data, filename=name)
                assert [essence_of(v) for v in sniffed] == [essence_of(v) for v in named], (
                    f"JSON through and through, read as {name!r}, is judged otherwise than named {case.suffix}: "
                    f"{[essence_of(v) for v in sniffed]} != {[essence_of(v) for v in named]}"
                )
        path = self.work / f"m{case.suffix}"
        path.write_bytes(case.data)
        on_disk = check_file(path)
        assert [essence_of(v) for v in on_disk] == [essence_of(v) for v in named], "on disk otherwise than in memory"
        if whole and rng.random() < 0.2:
            # Compressed, a match is known by its bytes alone (its name ends in .gz): only whole JSON is one.
            packed = self.work / f"m{case.suffix}.gz"
            packed.write_bytes(gzip.compress(case.data))
            assert [essence_of(v) for v in check_file(packed)] == [essence_of(v) for v in named], (
                "gzip-compressed otherwise than plain"
            )
        if rng.random() < 0.1:
            piped = cli(["check", "-j", "1", "-f", "jsonl", "--stdin-filename", path.name, "-"], input=case.data)
            from_file = cli(["check", "-j", "1", "-f", "jsonl", str(path)])
            statuses = [[json.loads(line)["status"] for line in r.stdout.split("\n") if line] for r in (piped, from_file)]
            assert statuses[0] == statuses[1], f"standard input is judged otherwise than the file: {statuses[0]} != {statuses[1]}"
        verdict = named[0]
        if verdict.error is None and rng.random() < 0.5:
            out = self.work / "imported.keil"
            out.unlink(missing_ok=True)
            result = cli(["import", str(path), "-o", str(out)])
            assert result.exit_code == 0, f"a match that checks ({verdict.status}) does not import: {result.output}"
            again = check_text(out.read_bytes(), filename="imported.keil")
            assert [v.status for v in again] == [verdict.status] and again[0].computed == verdict.computed, (
                f"the imported record is judged otherwise than the match: {[essence_of(v) for v in again]} != "
                f"{essence_of(verdict)}"
            )

    def _check_comment(self, case: Case) -> None:
        record = case.extra["record"]
        assert isinstance(record, bytes)
        plain = [essence_of(v) for v in check_text(record, filename="g.keil")]
        for name in ("g.keil", "-"):
            got = [essence_of(v) for v in check_text(case.data, filename=name)]
            assert got == plain, f"a comment in front changed the verdicts (read as {name!r}): {got} != {plain}"
        path = self.work / "g.keil"
        path.write_bytes(case.data)
        assert [essence_of(v) for v in check_file(path)] == plain, "a comment in front changed the verdicts on disk"


def _whole_json_object(data: bytes) -> bool:
    """Whether the bytes are a match whatever their name, as docs/import.md words it:
    JSON through and through, one object holding ``history``, ``frames`` or ``moves``."""
    try:
        tree = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(tree, dict) and any(k in tree for k in ("history", "frames", "moves")) and len(data) <= 10_000_000
