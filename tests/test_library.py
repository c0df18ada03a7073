"""The library as a user meets it: reading records from any source, replaying
them to any turn, printing games, writing them back, and the documentation."""

from __future__ import annotations

import ast
import gc
import inspect
import io
import pathlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import keilref
from keilref.records.sources import Source, read_source
from keilref.engine.game import Game
from keilref.referee.verdict import adjudicate

from cli_support import ROOT

CORNER_KO = ROOT / "records/games/size5-keil-corner-ko.keil"
THREE_GAMES = ROOT / "records/games/small-boards-three-games.keil"
RECORD_FILES = sorted(ROOT.glob("records/**/*.keil"))


def summary(items: Iterator[keilref.Record | keilref.RecordError]) -> list[tuple[Any, ...]]:
    """What a reader yielded, comparable across sources: moves or the error's place and message."""
    out: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, keilref.RecordError):
            out.append(("error", item.line, item.column, item.message))
        else:
            out.append(("game", item.line, tuple(t.move for t in item.turns), item.result))
    return out


# --- read_games: every kind of source ------------------------------------------


def test_read_games_reads_the_same_games_from_every_kind_of_source() -> None:
    data = THREE_GAMES.read_bytes()
    text = data.decode("utf-8")
    expected = summary(keilref.read_games(str(THREE_GAMES)))
    assert [kind for kind, *_ in expected] == ["game", "game", "game"]
    with open(THREE_GAMES, "rb") as binary, open(THREE_GAMES, encoding="utf-8") as textfile:
        sources: dict[str, keilref.RecordSource] = {
            "Path": THREE_GAMES,
            "bytes": data,
            "bytearray": bytearray(data),
            "binary file": binary,
            "text file": textfile,
            "BytesIO": io.BytesIO(data),
            "StringIO": io.StringIO(text),
            "text": text,
        }
        for name, source in sources.items():
            assert summary(keilref.read_games(source)) == expected, name


def test_a_one_line_str_starting_with_a_tag_is_record_text() -> None:
    [record] = keilref.read_games('[Size "3"] 1. a1 *')
    assert isinstance(record, keilref.Record)
    assert record.tag_value("Size") == "3"
    assert [t.move for t in record.turns] == ["a1"]


def test_any_other_str_is_a_path_and_a_missing_one_says_how_to_pass_text() -> None:
    games = keilref.read_games("no-such-file.keil")
    with pytest.raises(FileNotFoundError, match=r"pass io.StringIO\(text\)") as info:
        next(games)
    assert info.value.filename == "no-such-file.keil"


def test_a_str_naming_an_existing_file_is_a_path_even_when_it_starts_with_a_bracket(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "[odd].keil").write_bytes(THREE_GAMES.read_bytes())
    assert len(list(keilref.read_games("[odd].keil"))) == 3


def test_read_games_is_lazy_and_closes_the_file_it_opened(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.keil"
    path.write_bytes(THREE_GAMES.read_bytes())
    games = keilref.read_games(path)
    path.unlink()
    # Nothing is opened before the first game is asked for.
    with pytest.raises(FileNotFoundError):
        next(games)
    path.write_bytes(THREE_GAMES.read_bytes())
    opened: list[Any] = []
    real_open = open

    def spy(*args: Any, **kwargs: Any) -> Any:
        f = real_open(*args, **kwargs)
        opened.append(f)
        return f

    import builtins

    builtins.open = spy  # type: ignore[assignment]
    try:
        assert len(list(keilref.read_games(path))) == 3
    finally:
        builtins.open = real_open
    assert len(opened) == 1 and opened[0].closed


def test_a_stream_given_is_left_open() -> None:
    for stream in (io.BytesIO(THREE_GAMES.read_bytes()), io.StringIO(THREE_GAMES.read_text("utf-8"))):
        assert len(list(keilref.read_games(stream))) == 3
        gc.collect()
        assert not stream.closed


def test_errors_name_the_file_of_a_path_or_a_named_stream() -> None:
    bad = ROOT / "records/faults/error-bad-token.keil"
    [from_path] = keilref.read_games(bad)
    with open(bad, "rb") as f:
        [from_stream] = keilref.read_games(f)
    [from_text] = keilref.read_games(io.StringIO(bad.read_text("utf-8")))
    for item in (from_path, from_stream, from_text):
        assert isinstance(item, keilref.RecordError)
        assert (item.line, item.column, item.message) == (7, 16, "found 'hh6'; expected a move, a comment or a result")
    assert isinstance(from_path, keilref.RecordError) and from_path.filename == str(bad)
    assert isinstance(from_stream, keilref.RecordError) and from_stream.filename == str(bad)
    assert isinstance(from_text, keilref.RecordError) and from_text.filename is None


def test_invalid_utf8_is_an_error_at_its_place_from_bytes_and_from_text_decoded_with_surrogates() -> None:
    bad = ROOT / "records/faults/error-invalid-utf8.keil"
    data = bad.read_bytes()
    [from_bytes] = keilref.read_games(data)
    [from_text] = keilref.read_games(io.StringIO(data.decode("utf-8", "surrogateescape")))
    for item in (from_bytes, from_text):
        assert isinstance(item, keilref.RecordError)
        assert (item.line, item.column) == (2, 14)
        assert item.message.startswith("the text is not valid UTF-8 here")


@pytest.mark.parametrize("path", RECORD_FILES, ids=[str(p.relative_to(ROOT)) for p in RECORD_FILES])
def test_read_games_yields_exactly_what_the_check_path_reads(path: pathlib.Path) -> None:
    """Every game, faulty ones included, in the same order, with the same verdicts."""
    mine = list(keilref.read_games(path))
    theirs = list(read_source(Source(str(path))))
    assert summary(iter(mine)) == summary(iter(theirs))
    verdicts = [adjudicate(item, file="-", game=i).status for i, item in enumerate(mine, 1)]
    assert verdicts == [adjudicate(item, file="-", game=i).status for i, item in enumerate(theirs, 1)]


def test_read_game_reads_the_first_game() -> None:
    record = keilref.read_game(THREE_GAMES)
    first = next(iter(keilref.read_games(THREE_GAMES)))
    assert record == first


def test_read_game_raises_the_error_of_a_faulty_first_game() -> None:
    with pytest.raises(keilref.RecordSyntaxError, match="found 'hh6'") as info:
        keilref.read_game(ROOT / "records/faults/error-bad-token.keil")
    assert (info.value.line, info.value.column) == (7, 16)
    with pytest.raises(keilref.RecordError, match="no game in file"):
        keilref.read_game(io.StringIO("  \n"))


# --- Record.replay --------------------------------------------------------------


def test_record_replay_gives_the_game_at_any_turn() -> None:
    record = keilref.read_game(CORNER_KO)
    assert len(record.turns) == 42
    at_30 = record.replay(turn=30)
    assert at_30.turn == 30
    assert at_30.moves == tuple(t.move for t in record.turns[:30])
    assert at_30.to_move is keilref.Color.BLACK
    assert dict(at_30.prisoners) == {keilref.Color.BLACK: 0, keilref.Color.WHITE: 1}
    assert record.replay(turn=0).turn == 0
    end = record.replay()
    assert end.turn == 42 and end.is_over
    assert str(end.score().result) == record.result
    assert record.replay(turn=42).moves == end.moves


def test_record_replay_rejects_a_turn_out_of_range() -> None:
    record = keilref.read_game(CORNER_KO)
    for turn in (-1, 43):
        with pytest.raises(ValueError, match=r"turn .* is out of range: the record has 42 turns \(0..42\)"):
            record.replay(turn=turn)


def test_record_replay_raises_at_an_illegal_turn_and_gives_the_position_before_it() -> None:
    record = keilref.read_game(ROOT / "records/faults/illegal-superko.keil")
    with pytest.raises(keilref.IllegalMoveError) as info:
        record.replay()
    e = info.value
    assert (e.turn, e.move, e.reason, e.repeats_turn) == (31, "e2", keilref.Reason.SUPERKO, 29)
    assert record.replay(turn=e.turn - 1).turn == 30


def test_record_replay_takes_the_rules_from_the_tags_or_an_override() -> None:
    record = keilref.read_game(ROOT / "records/games/size6-keil-rule-sensitive.keil")
    assert record.replay().rules.name == "keil"
    assert str(record.replay().score().result) == "B+1.5"
    assert str(record.replay(rules="keil-2019").score().result) == "W+30.5"


def test_record_replay_raises_a_tag_error_with_its_place() -> None:
    record = keilref.read_game(ROOT / "records/faults/tag-error-size-14.keil")
    with pytest.raises(keilref.TagError, match='Size "14" is not allowed') as info:
        record.replay()
    assert (info.value.line, info.value.column) == (3, 1)


def test_yugo_replay_applies_the_removal_agreement_at_the_end_only() -> None:
    record = keilref.read_game(ROOT / "records/games/yugo/size10-dead-groups-removed-by-agreement.keil")
    end = record.replay()
    assert end.is_final
    before = record.replay(turn=len(record.turns) - 1)
    assert not before.is_over


# --- to_record ------------------------------------------------------------------


def test_to_record_writes_settings_tags_and_the_computed_result() -> None:
    game = keilref.Game(size=2, komi=3, rules="keil-2019", button=False)
    game.play_all(["a1", "pass", "pass"])
    text = keilref.write_record(game.to_record({"Black": "Ana", "White": "Ben"}))
    assert text == (
        '[Black "Ana"]\n[White "Ben"]\n[Rules "keil-2019"]\n[Size "2"]\n[Komi "3"]\n[Button "no"]\n'
        "\n1. a1 pass 2. pass " + str(game.score().result) + "\n"
    )
    assert keilref.read_game(text).replay().moves == game.moves


def test_to_record_of_an_unfinished_game_claims_nothing_unless_told() -> None:
    game = keilref.Game(size=3, rules="dehil")
    game.play("a1")
    assert game.to_record().result == "*"
    assert game.to_record(result="W+R").result == "W+R"
    assert [t.name for t in game.to_record().tags] == ["Rules", "Size", "Komi"]
    with pytest.raises(ValueError, match="is not a result"):
        game.to_record(result="B+lots")


def test_to_record_refuses_tags_that_contradict_the_game() -> None:
    game = keilref.Game(size=3)
    assert game.to_record({"Size": "3"}).tag_value("Size") == "3"
    with pytest.raises(ValueError, match="tag Size '5' disagrees with the game, which has '3'"):
        game.to_record({"Size": "5"})
    with pytest.raises(ValueError, match="tag Result 'B\\+R' disagrees with the result '\\*'"):
        game.to_record({"Result": "B+R"})
    with pytest.raises(ValueError, match="not a valid tag name|tag name"):
        keilref.write_record(game.to_record({"bad name": "x"}))


# --- printing ---------------------------------------------------------------------


def test_a_player_prints_as_its_enum_name() -> None:
    game = keilref.Game(size=3)
    assert str(game.to_move) == "Color.BLACK"
    assert f"{game.to_move}" == "Color.BLACK"
    assert repr(game.to_move) == "<Color.BLACK: 1>"
    assert game.to_move == 1  # still an int for board arrays


def test_repr_says_rules_size_komi_turn_and_who_moves() -> None:
    game = keilref.Game(size=7, komi=6, rules="keil")
    assert repr(game) == "<KeilGame keil, size 7, komi 6, turn 0, Black to move>"
    game.play_all(["g7", "button"])
    assert repr(game) == "<KeilGame keil, size 7, komi 6, turn 2, Black to move>"
    game.play_all(["pass", "pass"])
    assert repr(game) == f"<KeilGame keil, size 7, komi 6, turn 4, over: {game.score().result}>"
    half = keilref.Game(size=4, komi=2.5, rules="keil-2019")
    assert repr(half) == "<KeilGame keil-2019, size 4, komi 2.5, turn 0, Black to move>"
    assert repr(keilref.Game(rules="dehil", komi=-3)) == "<DehilGame dehil, size 9, komi -3, turn 0, Black to move>"


def test_repr_of_a_yugo_game_stopped_at_its_first_double_pass() -> None:
    game = keilref.Game(size=3, rules="yugo")
    game.play_all(["a1", "button", "pass", "pass"])
    assert repr(game) == f"<YugoGame yugo, size 3, komi 0, turn 4, stopped: {game.score().result}; Black may resume>"


# --- the constructor ------------------------------------------------------------------


def test_the_constructor_shows_its_parameters() -> None:
    signature = inspect.signature(keilref.Game)
    assert list(signature.parameters) == ["size", "komi", "rules", "button"]
    assert signature.parameters["rules"].default == "keil"
    text = pydoc_text(keilref.Game)
    assert "Game(size: 'int | None' = None" in text
    assert "``komi``: added to White's score" in text


def pydoc_text(obj: object) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


@pytest.mark.parametrize("rules,cls", [("keil", "KeilGame"), ("keil-2019", "KeilGame"), ("yugo", "YugoGame"), ("dehil", "DehilGame")])
def test_game_returns_the_family_class_of_the_rules(rules: str, cls: str) -> None:
    game = keilref.Game(rules=rules)
    assert type(game).__name__ == cls
    assert isinstance(game, keilref.Game)
    assert game.size == keilref.find_rules(rules).default_size


def test_a_game_class_missing_part_of_the_interface_cannot_be_instantiated() -> None:
    class Half(keilref.KeilGame):
        pass

    Half.score = Game.score  # type: ignore[method-assign]
    with pytest.raises(TypeError, match="Half does not implement Game: score"):
        Half(size=3)


# --- documentation ----------------------------------------------------------------------


def _attribute_docstrings(module: Any) -> set[str]:
    """Names assigned at a module's top level with a docstring right after them."""
    tree = ast.parse(inspect.getsource(module))
    found = set()
    body = tree.body
    for node, following in zip(body, body[1:]):
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return found


def _undocumented() -> list[str]:
    missing = []
    for name in keilref.__all__:
        obj = getattr(keilref, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not (obj.__doc__ or "").strip():
                missing.append(name)
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_") or not (inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))):
                        continue
                    if not (inspect.getdoc(getattr(obj, attr)) or "").strip():
                        missing.append(f"{name}.{attr}")
        else:
            # A constant: documented by a string right after its assignment, where it is defined.
            homes = [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("keilref.") and getattr(m, name, None) is obj]
            if not any(name in _attribute_docstrings(m) for m in homes):
                missing.append(name)
    return missing


def test_every_public_name_has_a_docstring() -> None:
    assert _undocumented() == []
