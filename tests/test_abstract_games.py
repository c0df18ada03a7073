"""Matches of the abstract_games server: read in its three shapes, judged,
imported into records and exported back.

The server's own samples live beside the repository, in
``../shared/interop-samples/abstract_games/`` (``KEILREF_SHARED`` may name
another ``shared`` directory); the bad matches are made here, by hand.
"""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import keilref
from cli_support import ROOT, run
from keilref.referee.matches import export_moves
from keilref.records.abstract_games import cell_of, dump_moves, move_limit, point_of, read_match
from keilref.referee.batches import check_text
from keilref.engine.game import new_game
from keilref.engine.generate import random_game, to_record
from keilref.records.parser import parse_games
from keilref.records.record import Record, Tag
from keilref.referee.verdict import Status, Verdict
from keilref.records.writer import canonical_tags, write_record

SHARED = Path(os.environ.get("KEILREF_SHARED") or ROOT.parent / "shared")
SAMPLES = SHARED / "interop-samples" / "abstract_games"
needs_samples = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the server's samples are not at {SAMPLES} (a checkout has shared/ beside it)"
)
SHAPES = ("match", "replay", "moves")

# stem: size, komi, KomiBy, Black, White, turns, result, status, computed, GameId (from the samples' README)
EXPECTED: dict[str, tuple[int, str, str, str, str, int, str, Status, str | None, str]] = {
    "sample1-keil4": (4, "6", "Black", "dana", "bruno", 38, "B+", Status.OK, "B+0.5", "db5b5fab8f4d3e27dda1494c73cf256d"),
    "sample2-keil5": (5, "3", "White", "dana", "Computer", 78, "W+", Status.OK, "W+44.5", "303a07b28f2df760ae9ca08b2d7c5048"),
    "sample3-keil4": (4, "0", "White", "chen", "dana", 40, "B+", Status.OK, "B+4.5", "01b8d526e8f37d7ee327c967a023ecd5"),
    "sample4-keil5": (5, "9", "Black", "chen", "alice", 10, "W+R", Status.OK, None, "a0bd016bbda334aeea31df803b8f801c"),
    # A timeout looks like a resignation in every shape: imported as one.
    "sample5-keil4": (4, "2", "White", "alice", "chen", 21, "B+R", Status.OK, None, "5b8adc51aeb0a94c91e4f83433706a35"),
    "sample6-keil5": (5, "5", "Black", "alice", "chen", 51, "*", Status.UNFINISHED, None, "52ddc9ac03f26964cad764c483372f2a"),
}


def _sample(stem: str, shape: str) -> Path:
    return SAMPLES / f"{stem}.{shape}.json"


def _meaning(v: Verdict) -> tuple[Any, ...]:
    """A verdict without its file and places: what must be the same from the JSON and from its import."""
    score = None if v.score is None else (v.score.black, v.score.white)
    illegal = None if v.illegal is None else (v.illegal.turn, v.illegal.reason, v.illegal.repeats_turn)
    return (v.status, v.rules, v.size, v.komi, v.turns, v.declared, v.computed, score, illegal, v.black, v.white)


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """Line and column of the ``nth`` occurrence of ``needle``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


# --------------------------------------------------------------------------
# The samples


@needs_samples
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_every_sample_reads_as_its_game_in_every_shape(stem: str, shape: str) -> None:
    size, komi, komi_by, black, white, turns, result, status, computed, game_id = EXPECTED[stem]
    path = _sample(stem, shape)
    match = read_match(path.read_bytes(), str(path))
    record = match.record
    assert match.shape == shape
    tags = {t.name: t.value for t in record.tags}
    assert (tags["Size"], tags["Komi"], tags["KomiBy"], tags["Black"], tags["White"]) == (str(size), komi, komi_by, black, white)
    assert (tags["Rules"], tags["Button"], tags["Site"]) == ("keil", "yes", "abstract_games")
    # The stored move list carries no id: only the match view and the replay name it.
    assert tags.get("GameId") == (None if shape == "moves" else game_id)
    assert len(record.turns) == turns
    assert record.result == result
    assert tags.get("Result") == (None if result == "*" else result)
    (verdict,) = keilref.check_file(path)
    assert (verdict.status, verdict.declared, verdict.computed, verdict.turns) == (status, result, computed, turns)
    assert verdict.warnings == ()
    assert verdict.players == (black, white)


@needs_samples
@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_the_three_shapes_of_a_match_are_the_same_game(stem: str) -> None:
    records = [read_match(_sample(stem, shape).read_bytes()).record for shape in SHAPES]
    without_id = [tuple(t for t in r.tags if t.name != "GameId") for r in records]
    assert without_id[0] == without_id[1] == without_id[2]
    assert records[0].turns == records[1].turns == records[2].turns
    assert records[0].result == records[1].result == records[2].result


@needs_samples
def test_turns_and_tags_point_at_their_values_in_the_json() -> None:
    path = _sample("sample4-keil5", "moves")
    text = path.read_text(encoding="utf-8")
    record = read_match(path.read_bytes()).record
    first, last = record.turns[0], record.turns[-1]
    # Black's first placement is the third stored move, "-2,-1": keilref's c6 on side 5.
    assert (first.move, first.line, first.column) == ("c6", *where(text, '"-2,-1"'))
    assert (last.move, last.line, last.column) == ("a4", *where(text, '"-4,1"'))
    assert (first.line, first.column) == (34, 12)  # line 34 of the file: `  "move": "-2,-1"`
    komi = record.tag("Komi")
    assert komi is not None and (komi.line, komi.column) == where(text, '"komi=9"')
    assert (record.result_line, record.result_column) == where(text, "1,\n \"moves\"")


@needs_samples
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_the_imported_record_gets_the_verdict_of_its_json(stem: str, shape: str) -> None:
    path = _sample(stem, shape)
    record = read_match(path.read_bytes()).record
    text = write_record(record)
    (from_json,) = keilref.check_file(path)
    (from_record,) = check_text(text)
    assert _meaning(from_json) == _meaning(from_record)
    assert from_json.status is EXPECTED[stem][7]
    # The record reads back as the game read from the JSON.
    (again,) = parse_games(text)
    assert again == record


@needs_samples
def test_import_writes_the_samples_records(tmp_path: Path) -> None:
    out = tmp_path / "tournament.keil"
    result = run("import", str(SAMPLES), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "6 matches imported into" in result.stderr
    written = parse_games(out.read_text(encoding="utf-8"))
    expected = parse_games((SAMPLES / "sample-records.keil").read_text(encoding="utf-8"))
    assert len(written) == len(expected) == 6
    for got, want in zip(written, expected, strict=True):
        assert isinstance(got, Record) and isinstance(want, Record)
        # The samples' file lists the tags in another order; the import writes the canonical layout.
        assert got == Record(canonical_tags(want.tags), want.turns, want.result)
    assert run("fmt", "--check", str(out)).exit_code == 0
    # Byte for byte: the samples' records, put in the canonical layout.
    assert out.read_text(encoding="utf-8") == run("fmt", str(SAMPLES / "sample-records.keil")).stdout
    check = run("check", "--format", "jsonl", str(out))
    assert check.exit_code == 0
    statuses = [json.loads(line)["status"] for line in check.stdout.splitlines()]
    assert statuses == ["ok"] * 5 + ["unfinished"]
    # --strict fails only the active match, as it fails its JSON.
    strict = run("check", "--strict", "-q", str(out))
    assert strict.exit_code == 1
    assert [ln.split(":")[0] for ln in strict.stdout.splitlines()[:-1]] == [str(out)]
    # Beside its JSON, a record is one more shape of the match: the match page is judged.
    both = run("check", "--strict", "-q", str(out), *(str(_sample(s, "match")) for s in sorted(EXPECTED)))
    assert both.exit_code == 1
    assert [ln.split(":")[0] for ln in both.stdout.splitlines()[:-1]] == [str(_sample("sample6-keil5", "match"))]


@needs_samples
def test_import_into_a_directory_writes_one_record_per_match(tmp_path: Path) -> None:
    result = run("import", str(SAMPLES), "-o", f"{tmp_path}/archive/")
    assert result.exit_code == 0
    names = sorted(p.name for p in (tmp_path / "archive").iterdir())
    assert names == [f"{stem}.keil" for stem in sorted(EXPECTED)]
    # The three shapes gave one game, with the id the move list lacks.
    (one,) = parse_games((tmp_path / "archive" / "sample2-keil5.keil").read_text())
    assert isinstance(one, Record) and one.tag_value("GameId") == EXPECTED["sample2-keil5"][9]


@needs_samples
def test_check_takes_a_directory_of_matches_and_every_format(tmp_path: Path) -> None:
    result = run("check", "--format", "jsonl", str(SAMPLES))
    assert result.exit_code == 0
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    # sample-records.keil and the three shapes of each match: one game per match, its match page judged.
    assert len(verdicts) == 6
    assert sum(v["status"] == "unfinished" for v in verdicts) == 1
    for fmt in ("github", "gitlab", "sarif", "junit"):
        assert run("check", "--format", fmt, "--strict", str(_sample("sample6-keil5", "replay"))).exit_code == 1
    page = tmp_path / "report.html"
    assert run("check", "--format", "html", "-o", str(page), str(SAMPLES)).exit_code == 0
    assert "sample6-keil5.match.json" in page.read_text(encoding="utf-8")
    shown = run("show", str(_sample("sample1-keil4", "replay")))
    assert shown.exit_code == 0 and "size 4, komi 6, after turn 38 of 38" in shown.stdout
    assert run("score", str(_sample("sample2-keil5", "moves"))).exit_code == 0
    assert run("legal", str(_sample("sample6-keil5", "match"))).exit_code == 0
    stats = run("stats", "--format", "json", str(SAMPLES))
    assert stats.exit_code == 0 and json.loads(stats.stdout)["games"] == 6
    picked = run("filter", "--status", "unfinished", "--player", "alice", str(_sample("sample6-keil5", "moves")))
    assert picked.exit_code == 0
    (game,) = parse_games(picked.stdout)
    assert isinstance(game, Record) and game.result == "*" and game.tag_value("Black") == "alice"


@needs_samples
def test_the_library_reads_matches_from_paths_bytes_and_streams() -> None:
    path = _sample("sample3-keil4", "replay")
    data = path.read_bytes()
    for source in (path, str(path), data, io.BytesIO(data), io.StringIO(data.decode("utf-8"))):
        (record,) = keilref.read_games(source)
        assert isinstance(record, Record)
        assert (record.tag_value("Black"), len(record.turns), record.result) == ("chen", 40, "B+")


@needs_samples
@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_export_writes_the_stored_move_list_back(stem: str) -> None:
    stored = json.loads(_sample(stem, "moves").read_text(encoding="utf-8"))
    record = read_match(_sample(stem, "match").read_bytes()).record
    exported = export_moves(record)
    assert exported["moves"] == stored["moves"]
    assert (exported["status"], exported["winner"], exported["options"]) == (stored["status"], stored["winner"], stored["options"])
    assert [p["name"] for p in exported["players"]] == [p["name"] for p in stored["players"]]
    assert [p["type"] for p in exported["players"]] == [p["type"] for p in stored["players"]]
    again = read_match(dump_moves(exported).encode("utf-8")).record
    assert again == record


# --------------------------------------------------------------------------
# Coordinates


@pytest.mark.parametrize(
    "cell, point", [("-3,3", "a1"), ("-3,0", "a4"), ("0,-3", "d7"), ("3,-3", "g7"), ("3,0", "g4"), ("0,3", "d1"), ("0,0", "d4")]
)
def test_cells_map_to_points_as_the_samples_readme_says(cell: str, point: str) -> None:
    q, r = map(int, cell.split(","))
    assert point_of(q, r, 4) == point
    assert cell_of(point, 4) == cell


@pytest.mark.parametrize("size", range(2, 14))
def test_every_cell_of_the_hexagon_is_a_point_of_the_board(size: int) -> None:
    m = size - 1
    cells = [(q, r) for q in range(-m, m + 1) for r in range(-m, m + 1) if abs(q + r) <= m]
    points = {point_of(q, r, size) for q, r in cells}
    assert points == set(new_game("keil", size, 0).points())
    assert all(cell_of(point_of(q, r, size) or "", size) == f"{q},{r}" for q, r in cells)


# --------------------------------------------------------------------------
# Bad matches, made here


def moves_json(
    moves: list[str], *, size: Any = 4, status: str = "active", winner: int | None = None, uid: str = "keil"
) -> str:
    """A stored move list in the server's shape, indented as the samples are."""
    black_seat = 1 if len(moves) > 1 and moves[1] == "black" else 0
    rows = [
        {"ply": i, "seat": i if i < 2 else (black_seat if i % 2 == 0 else 1 - black_seat), "move": m}
        for i, m in enumerate(moves)
    ]
    doc = {
        "game_uid": uid,
        "options": {"size": size},
        "players": [{"type": "user", "user_id": 1, "name": "ana"}, {"type": "user", "user_id": 2, "name": "ben"}],
        "status": status,
        "winner": winner,
        "moves": rows,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


OPENING = ["komi=6", "white", "0,0", "1,-1"]


def _check(tmp_path: Path, text: str, name: str = "bad.moves.json") -> Verdict:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (v,) = keilref.check_file(path)
    return v


def _error(v: Verdict) -> tuple[str, int, int]:
    assert v.status is Status.ERROR, v
    assert v.error is not None
    return v.error.message, v.error.line, v.error.column


def test_text_that_is_not_json_is_an_error_where_it_stops_being_json(tmp_path: Path) -> None:
    text = moves_json(OPENING).replace('"status": "active"', '"status": active')
    assert _error(_check(tmp_path, text)) == ("found 'active'; expected a JSON value", *where(text, "active,"))


def test_a_match_cut_short_is_an_error_at_its_end(tmp_path: Path) -> None:
    text = moves_json(OPENING)[:-40]
    message, line, column = _error(_check(tmp_path, text))
    assert message == "the JSON ends before its value does: the file is cut short"
    assert (line, column) == (text.count("\n") + 1, len(text) - text.rfind("\n"))


def test_another_game_of_the_server_is_an_error_at_its_game_uid(tmp_path: Path) -> None:
    text = moves_json(OPENING, uid="go")
    assert _error(_check(tmp_path, text)) == (
        'game_uid "go" is not a Keil match: keilref judges only "keil"',
        *where(text, '"go"'),
    )


def test_a_size_keilref_refuses_is_the_tag_error_of_a_keil_game(tmp_path: Path) -> None:
    text = moves_json(OPENING, size=14)
    message, line, column = _error(_check(tmp_path, text))
    # The words of a .keil game's Size "14", at the size in the JSON.
    assert message == "Size \"14\" is not allowed under rules 'keil': it must be 2..13"
    assert (line, column) == where(text, "14")


def test_a_size_off_the_servers_menu_is_judged_with_a_warning(tmp_path: Path) -> None:
    text = moves_json(["komi=0", "white", "0,0"], size=9)
    v = _check(tmp_path, text)
    assert (v.status, v.size, v.turns) == (Status.UNFINISHED, 9, 1)
    assert v.warnings == ("size 9 is not on the server's menu (it offers 4 to 7): judged as keilref's side 9",)
    assert v.warnings_at == (where(text, "9\n"),)
    assert v.fails(strict=True)


def match_json(labels: list[str], *, status: str = "active", winner: int | None = None) -> str:
    """A match view in the server's shape (the history of labels), without the drawing."""
    black_seat = 1 if len(labels) > 1 and labels[1] == "choose Black (swap)" else 0
    history = []
    for i, label in enumerate(labels):
        seat = i if i < 2 else (black_seat if i % 2 == 0 else 1 - black_seat)
        history.append({"ply": i, "seat": seat, "player": ("ana", "ben")[seat], "label": label})
    doc = {
        "id": "0123456789abcdef0123456789abcdef",
        "game_uid": "keil",
        "game_name": "Keil",
        "options": {"size": 4},
        "players": [{"name": "ana", "type": "user", "user_id": 1}, {"name": "ben", "type": "user", "user_id": 2}],
        "status": status,
        "winner": winner,
        "history": history,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def test_a_label_that_is_not_a_move_is_an_error_at_the_label(tmp_path: Path) -> None:
    text = match_json(["komi 6", "choose White", "0,0", "take the button"])
    message, line, column = _error(_check(tmp_path, text, "bad.match.json"))
    assert message.startswith("label 'take the button' is not a move (expected a cell such as '-1,2', 'pass', ")
    assert (line, column) == where(text, '"take the button"')


def test_labels_map_back_to_the_stored_moves(tmp_path: Path) -> None:
    labels = ["komi 2", "choose Black (swap)", "0,0", "take the button (\u00bd point)", "1,-1", "pass", "pass"]
    v = _check(tmp_path, match_json(labels, status="finished", winner=1), "good.match.json")
    # Seat 1 took Black (seat 0, who named the komi, is White), placed twice
    # and holds the whole board: 2 stones + 35 territory against 2 + 0.5.
    assert (v.status, v.declared, v.computed) == (Status.OK, "B+", "B+34.5")
    assert (v.black, v.white, v.komi, v.turns) == ("ben", "ana", 2.0, 5)


@pytest.mark.parametrize("move, what", [("komi=3", "a komi offer"), ("black", "a side choice")])
def test_a_komi_offer_or_side_choice_in_the_middle_of_play_is_an_error(tmp_path: Path, move: str, what: str) -> None:
    text = moves_json([*OPENING, move])
    message, line, column = _error(_check(tmp_path, text))
    assert message == f"{what} in the middle of play (ply 4): the komi is named at ply 0 and the side chosen at ply 1"
    assert (line, column) == where(text, f'"{move}"')


@pytest.mark.parametrize("cell, point", [("3,3", "g1"), ("-4,0", "-4,0"), ("0,4", "-")])
def test_a_point_off_the_board_is_illegal_at_the_point(tmp_path: Path, cell: str, point: str) -> None:
    text = moves_json([*OPENING, cell])
    v = _check(tmp_path, text)
    assert v.status is Status.ILLEGAL and v.illegal is not None
    # "3,3" is g1 (off the hexagon of side 4); the others have no letter and row of their own.
    assert (v.illegal.turn, v.illegal.reason) == (3, "off-board")
    assert v.illegal.point == (cell if point == "-" else point)
    assert (v.illegal.line, v.illegal.column) == where(text, f'"{cell}"')


def test_an_occupied_point_is_illegal_at_the_point(tmp_path: Path) -> None:
    text = moves_json([*OPENING, "0,0"])
    v = _check(tmp_path, text)
    assert v.status is Status.ILLEGAL and v.illegal is not None
    assert (v.illegal.turn, v.illegal.point, v.illegal.reason) == (3, "d4", "occupied")
    assert (v.illegal.line, v.illegal.column) == where(text, '"0,0"', 1)


def test_a_move_after_two_passes_is_illegal(tmp_path: Path) -> None:
    text = moves_json([*OPENING, "button", "pass", "pass", "-1,0"], status="finished", winner=0)
    v = _check(tmp_path, text)
    assert v.status is Status.ILLEGAL and v.illegal is not None
    assert (v.illegal.turn, v.illegal.point, v.illegal.reason) == (6, "c4", "game-over")
    assert (v.illegal.line, v.illegal.column) == where(text, '"-1,0"')


def test_a_match_ended_before_the_sides_were_chosen_is_an_error(tmp_path: Path) -> None:
    text = moves_json(["komi=6"], status="finished", winner=1)
    assert _error(_check(tmp_path, text)) == (
        "the match ended before the sides were chosen: there is no game to judge",
        *where(text, '"finished"'),
    )


def test_a_move_by_the_wrong_seat_is_an_error_at_the_seat(tmp_path: Path) -> None:
    text = moves_json(OPENING).replace('"seat": 1,\n   "move": "1,-1"', '"seat": 0,\n   "move": "1,-1"')
    assert _error(_check(tmp_path, text)) == ("seat 0 moved where seat 1 was to move", *where(text, '0,\n   "move": "1,-1"'))


def test_the_servers_winner_against_the_count_is_a_mismatch(tmp_path: Path) -> None:
    # Black d4, White e3 and the button, two passes: 1 + 0 for Black, 1 + 6 + 0.5 for White.
    text = moves_json([*OPENING, "button", "pass", "pass"], status="finished", winner=0)
    v = _check(tmp_path, text)
    assert (v.status, v.declared, v.computed, v.detail) == (Status.MISMATCH, "B+", "W+5.5", "wrong winner")
    assert v.location == where(text, "0,\n \"moves\"")


def _no_passes(size: int, plies: int, seed: int) -> list[str]:
    """Raw moves of a legal game of ``plies`` stored moves that never passes twice in a row."""
    rng = random.Random(seed)
    game = new_game("keil", size, 0)
    raw = ["komi=0", "white"]
    while len(raw) < plies:
        legal = [m for m in game.legal_moves() if m != "pass"] or ["pass"]
        move = rng.choice(legal)
        game.play(move)
        raw.append(move if move in ("pass", "button") else cell_of(move, size))
    return raw


def test_a_match_the_server_ended_at_its_move_limit_is_a_mismatch_naming_the_limit(tmp_path: Path) -> None:
    assert [move_limit(n) for n in (4, 5, 6, 7)] == [115, 187, 277, 385]  # as the samples' README says
    size = 3
    raw = _no_passes(size, move_limit(size), 7)
    text = moves_json(raw, size=size, status="finished", winner=0)
    v = _check(tmp_path, text)
    assert (v.status, v.declared, v.computed, v.turns) == (Status.MISMATCH, "B+", None, move_limit(size) - 2)
    assert v.detail == (
        "a winner-only result is claimed, but the game did not end: the server ended it at its move limit "
        "of 61 plies (3 × points + 4), without two passes"
    )
    # The import keeps the reason beside the result; its check gives the same status.
    record = read_match(text.encode()).record
    assert record.result_comments[0].text == "the server ended the match at its move limit of 61 plies"
    (imported,) = check_text(write_record(record))
    assert _meaning(imported) == _meaning(v)


def test_one_bad_match_never_stops_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.moves.json").write_text("{\"game_uid\": ", encoding="utf-8")
    (tmp_path / "b.moves.json").write_text(moves_json(OPENING), encoding="utf-8")
    (tmp_path / "c.keil").write_text(write_record(read_match(moves_json(OPENING).encode()).record), encoding="utf-8")
    result = run("check", str(tmp_path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"{tmp_path}/a.moves.json:1:14: game 1: error: the JSON ends before its value does: the file is cut short"
    assert lines[1].startswith(f"{tmp_path}/b.moves.json:1:1: game 1: unfinished")
    assert lines[2].startswith(f"{tmp_path}/c.keil:1:1: game 1: unfinished")
    imported = run("import", str(tmp_path / "a.moves.json"), str(tmp_path / "b.moves.json"), "-o", str(tmp_path / "out.keil"))
    assert imported.exit_code == 1
    assert f"{tmp_path}/a.moves.json:1:14: error: the JSON ends before its value does" in imported.stderr
    assert len(parse_games((tmp_path / "out.keil").read_text())) == 1


def test_a_record_file_is_not_imported(tmp_path: Path) -> None:
    keil = ROOT / "records/games/size5-keil-corner-ko.keil"
    result = run("import", str(keil), "-o", str(tmp_path / "out.keil"))
    assert result.exit_code == 1
    assert "not a match of abstract_games" in result.stderr
    assert not (tmp_path / "out.keil").exists()


# --------------------------------------------------------------------------
# Export, then import


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(2, 7), komi_by=st.sampled_from([None, "Black", "White"]))
def test_a_generated_game_exported_and_imported_is_the_same_game(seed: int, size: int, komi_by: str | None) -> None:
    game = random_game(random.Random(seed), size=size, fill=0.6)
    record = to_record(game, event="generated")
    extra = [Tag("Black", "ana"), Tag("White", "ben")] + ([Tag("KomiBy", komi_by)] if komi_by else [])
    record = Record(canonical_tags((*record.tags, *extra)), record.turns, record.result)
    again = read_match(dump_moves(export_moves(record)).encode("utf-8")).record
    assert (again.tag_value("Black"), again.tag_value("White")) == ("ana", "ben")
    assert (again.tag_value("Komi"), again.tag_value("Size")) == (record.tag_value("Komi"), str(size))
    assert again.tag_value("KomiBy") == (komi_by or "Black")
    assert again.turns == record.turns
    # The server keeps the winner of a game ended by two passes, not the margin.
    assert again.result == record.result.split("+")[0] + "+"  # type: ignore[union-attr]
    assert _moves_text(again) == _moves_text(record)
    (before,), (after,) = check_text(write_record(record)), check_text(write_record(again))
    assert (before.status, after.status) == (Status.OK, Status.OK)
    assert (before.computed, before.turns) == (after.computed, after.turns)


def _moves_text(record: Record) -> bytes:
    """The written turns of a record, without the result."""
    text = write_record(Record(record.tags[:1], record.turns, None))
    return text.split("\n\n", 1)[1].encode("utf-8")


def test_import_searches_a_directory_for_the_shapes_of_a_match_only(tmp_path: Path) -> None:
    (tmp_path / "b.moves.json").write_text(moves_json(OPENING), encoding="utf-8")
    (tmp_path / "package.json").write_text('{"name": "not a match"}\n', encoding="utf-8")
    result = run("import", str(tmp_path), "-o", str(tmp_path / "out.keil"))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == f"keilref: 1 match imported into {tmp_path / 'out.keil'}\n"
    (game,) = parse_games((tmp_path / "out.keil").read_text())
    assert isinstance(game, Record) and (game.tag_value("Black"), game.result) == ("ana", "*")
