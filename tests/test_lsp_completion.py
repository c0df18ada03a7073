"""Completion in ``keilref lsp``, through a real client: tag names, tag values,
the legal turns at the cursor (checked against the literal references), the
next move number and the computed result."""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("pygls")

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lsprotocol import types as lsp  # noqa: E402

for _path in (Path(__file__).resolve().parent,):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference as RK  # noqa: E402
import reference_dehil as RD  # noqa: E402
import reference_yugo as RY  # noqa: E402
from lsp_support import ROOT, Client  # noqa: E402

from keilref import Color, wording  # noqa: E402
from keilref.engine.rules import all_rules  # noqa: E402
from keilref.records.tags import KNOWN_TAGS  # noqa: E402

T = TypeVar("T")


class Session:
    """One server for the whole module, on an event loop of its own: each
    request is run on it to its answer."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = Client()
        self.numbers = itertools.count(1)
        self.run(self.client.start())

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(asyncio.wait_for(work, 60))

    def close(self) -> None:
        self.run(self.client.finish())
        self.loop.close()

    def complete(self, marked: str, folder: Path = ROOT) -> tuple[list[lsp.CompletionItem], str]:
        """The items offered where ``|`` stands in ``marked`` (opened as a new document without it)."""
        uri = (folder / f"completion-{next(self.numbers)}.keil").as_uri()
        before, _, after = marked.partition("|")
        text = before + after
        lines = before.split("\n")
        position = lsp.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
        self.run(self.client.open(uri, text))
        params = lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position)
        answer = self.run(self.client.text_document_completion_async(params))
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
        if answer is None:
            return [], text
        items = answer.items if isinstance(answer, lsp.CompletionList) else answer
        return sorted(items, key=lambda i: i.sort_text or ""), text


@pytest.fixture(scope="module")
def server() -> Iterator[Session]:
    session = Session()
    try:
        yield session
    finally:
        session.close()


def labels(server: Session, marked: str) -> list[str]:
    return [item.label for item in server.complete(marked)[0]]


def edited(text: str, item: lsp.CompletionItem) -> str:
    """The text after the item is taken (one edit, on one line)."""
    edit = item.text_edit
    assert isinstance(edit, lsp.TextEdit)
    assert edit.range.start.line == edit.range.end.line
    lines = text.split("\n")
    line = lines[edit.range.start.line]
    lines[edit.range.start.line] = line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
    return "\n".join(lines)


SMALL = '[Rules "keil"]\n[Size "2"]\n[Komi "0"]\n'
EMPTY_BOARD = ["a1", "a2", "b1", "b2", "b3", "c2", "c3", "button"]


# --- tag names ---------------------------------------------------------------------------------


def test_after_a_bracket_the_tags_the_game_lacks_are_offered_in_the_tables_order(server: Session) -> None:
    items, text = server.complete('[Event "Club night"]\n[Rules "keil"]\n[|\n\n1. g7 *\n')
    assert [i.label for i in items] == [name for name in KNOWN_TAGS if name not in ("Event", "Rules")]
    size = next(i for i in items if i.label == "Size")
    assert size.documentation == wording.TAG_DOCS["Size"]
    assert size.kind == lsp.CompletionItemKind.Property
    assert edited(text, size) == '[Event "Club night"]\n[Rules "keil"]\n[Size\n\n1. g7 *\n'


def test_a_name_being_typed_is_replaced_whole_and_the_position_tags_are_offered(server: Session) -> None:
    items, text = server.complete('[Rules "keil"]\n[Se|tup "B: d4"]\n')
    assert [i.label for i in items] == [name for name in KNOWN_TAGS if name != "Rules"]
    assert {"Setup", "ToMove", "ButtonTaken", "FirstPass"} <= {i.label for i in items}
    setup = next(i for i in items if i.label == "ToMove")
    assert edited(text, setup) == '[Rules "keil"]\n[ToMove "B: d4"]\n'


def test_a_bracket_in_a_comment_or_a_value_offers_no_tag(server: Session) -> None:
    assert labels(server, '[Event "a"] {see [|') == []
    assert labels(server, '[Event "a [|"]') == []


# --- tag values --------------------------------------------------------------------------------


def test_rules_offers_every_registered_rule_set_closing_the_value(server: Session) -> None:
    items, text = server.complete('[Event "x"]\n[Rules "|')
    assert [i.label for i in items] == [r.name for r in all_rules()]
    keil = next(i for i in items if i.label == "keil")
    assert edited(text, keil) == '[Event "x"]\n[Rules "keil"]'
    assert keil.documentation == wording.rules_doc(next(r.title for r in all_rules() if r.name == "keil"), True)


def test_a_value_inside_its_quotes_is_replaced_without_a_second_quote(server: Session) -> None:
    items, text = server.complete('[Rules "ke|il-2019"]\n')
    dehil = next(i for i in items if i.label == "dehil")
    assert edited(text, dehil) == '[Rules "dehil"]\n'


@pytest.mark.parametrize(
    "rules, offered",
    [("keil", ["yes"]), ("keil-2019", ["yes", "no"]), ("yugo", ["yes"]), ("dehil", [])],
)
def test_button_offers_what_the_rules_allow(server: Session, rules: str, offered: list[str]) -> None:
    assert labels(server, f'[Rules "{rules}"]\n[Button "|"]\n') == offered


@pytest.mark.parametrize(
    "rules, first, last, default",
    [("keil", 2, 13, "7"), ("keil-2019", 2, 13, "7"), ("dehil", 2, 13, "9"), ("yugo", 2, 25, "13")],
)
def test_size_offers_the_range_of_the_rules_the_default_preselected(
    server: Session, rules: str, first: int, last: int, default: str
) -> None:
    items, _ = server.complete(f'[Rules "{rules}"]\n[Size "|"]\n')
    assert [i.label for i in items] == [str(n) for n in range(first, last + 1)]
    assert [i.label for i in items if i.preselect] == [default]


def test_the_projects_rules_decide_as_check_decides(server: Session, tmp_path: Path) -> None:
    assert labels(server, '[Komi "0"]\n[Button "|"]\n') == ["yes"]  # no Rules tag: keil, the default
    (tmp_path / "keilref.toml").write_text('rules = "keil-2019"\n', encoding="utf-8")
    # The project's rule set, and over a Rules tag of its family, as check judges the game.
    assert [i.label for i in server.complete('[Komi "0"]\n[Button "|"]\n', tmp_path)[0]] == ["yes", "no"]
    assert [i.label for i in server.complete('[Rules "keil"]\n[Button "|"]\n', tmp_path)[0]] == ["yes", "no"]
    # A game of another family keeps its own rules.
    assert [i.label for i in server.complete('[Rules "dehil"]\n[Button "|"]\n', tmp_path)[0]] == []


@pytest.mark.parametrize(
    "tag, rules, offered",
    [
        ("ToMove", "keil", ["Black", "White"]),
        ("KomiBy", "keil", ["Black", "White"]),
        ("ButtonTaken", "keil", ["Black", "White", "no"]),
        ("ButtonTaken", "dehil", []),
        ("FirstPass", "dehil", ["Black", "White", "no"]),
        ("FirstPass", "yugo", []),
        ("TimeControl", "keil", ["600+5", "600", "-", "?"]),
        ("Event", "keil", []),
    ],
)
def test_the_values_of_a_set(server: Session, tag: str, rules: str, offered: list[str]) -> None:
    assert labels(server, f'[Rules "{rules}"]\n[{tag} "|"]\n') == offered


def test_result_offers_the_computed_result_first_then_every_word(server: Session) -> None:
    items, text = server.complete(SMALL + '[Result "|"]\n\n1. button pass 2. pass\n')
    assert [i.label for i in items] == ["B+0.5", "B+", "W+", "B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "Draw", "*"]
    assert items[0].preselect and items[0].documentation == wording.COMPUTED_RESULT
    assert edited(text, items[0]) == SMALL + '[Result "B+0.5"]\n\n1. button pass 2. pass\n'


def test_result_of_an_unfinished_game_offers_the_words_alone(server: Session) -> None:
    assert labels(server, SMALL + '[Result "|"]\n\n1. a1\n') == ["B+", "W+", "B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "Draw", "*"]


# --- moves -------------------------------------------------------------------------------------


def test_the_empty_board_offers_the_first_number_every_point_and_the_button(server: Session) -> None:
    items, text = server.complete(SMALL + "\n|")
    assert [i.label for i in items] == ["1.", *EMPTY_BOARD]
    assert items[0].documentation == wording.move_number_doc(Color.BLACK)
    assert items[-1].kind == lsp.CompletionItemKind.Keyword
    assert edited(text, items[1]) == SMALL + "\na1"


def test_after_a_move_number_only_turns_are_offered(server: Session) -> None:
    assert labels(server, SMALL + "\n1. |") == EMPTY_BOARD
    assert labels(server, SMALL + "\n1. a1 1... |") == [p for p in EMPTY_BOARD if p != "a1"]


def test_a_word_being_typed_is_replaced_whole(server: Session) -> None:
    items, text = server.complete(SMALL + "\n1. a1 b|3 {x}")
    assert [i.label for i in items] == ["1...", "a2", "b1", "b2", "b3", "c2", "c3", "button"]
    b2 = next(i for i in items if i.label == "b2")
    assert edited(text, b2) == SMALL + "\n1. a1 b2 {x}"


def test_turns_are_replayed_from_a_white_first_setup(server: Session) -> None:
    # record-format.md's problem: White's b2 removes a1.
    setup = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Setup "B: a1 b1 W: c3"]\n[ToMove "White"]\n'
    ref = RK.RefKeil(3, board=_board(3, {"a1": RK.BLACK, "b1": RK.BLACK, "c3": RK.WHITE}), to_move=RK.WHITE, setup=True)
    assert labels(server, setup + "\n|") == ["1...", *ref.legal_moves()]
    ref.play("b2")
    assert labels(server, setup + "\n1... b2 |") == ["2.", *ref.legal_moves()]


def test_a_variation_replays_its_own_line_nested_ones_too(server: Session) -> None:
    # The variation replaces b1: after a1 c3, Black to move.
    assert labels(server, SMALL + "\n1. a1 b1 (1... c3 |)") == ["2.", "a2", "b1", "b2", "b3", "c2", "button"]
    # Inside it, a variation replaces c3 by c2: after a1 c2, then Black's b3.
    assert labels(server, SMALL + "\n1. a1 b1 (1... c3 (1... c2 2. b3 |) 2. b2) 2. b2") == [
        "2...", "b1", "b2", "c3", "button"
    ]
    # After the variations, the main line goes on from b1.
    assert labels(server, SMALL + "\n1. a1 b1 (1... c3 (1... c2) 2. b2) |") == ["2.", "a2", "b2", "b3", "c2", "c3", "button"]


def test_a_variation_just_opened_replaces_the_turn_before_it(server: Session) -> None:
    assert labels(server, SMALL + "\n1. a1 b1 (|") == ["1...", "a2", "b1", "b2", "b3", "c2", "c3", "button"]
    assert labels(server, SMALL + "\n1. a1 b1 ( {why not} |") == ["1...", "a2", "b1", "b2", "b3", "c2", "c3", "button"]


def test_pass_once_the_button_is_taken_and_the_result_when_the_game_ended(server: Session) -> None:
    assert labels(server, SMALL + "\n1. button |")[-1] == "pass"
    assert "button" not in labels(server, SMALL + "\n1. button |")
    items, text = server.complete(SMALL + "\n1. button pass 2. pass |")
    assert [i.label for i in items] == ["B+0.5"]
    assert items[0].preselect and edited(text, items[0]) == SMALL + "\n1. button pass 2. pass B+0.5"


def test_nothing_in_a_comment_after_a_result_or_after_an_illegal_turn(server: Session) -> None:
    assert labels(server, SMALL + "\n1. a1 {a comment |}") == []
    assert labels(server, SMALL + "\n1. a1 ; to the end |\n") == []
    assert labels(server, SMALL + "\n1. a1 * |") == []
    assert labels(server, SMALL + "\n1. a1 a1 |") == []
    assert labels(server, SMALL + "|\n[Black \"x\"]\n") == []


def test_only_the_game_at_the_cursor_counts(server: Session) -> None:
    other = '[Rules "keil"]\n[Size "2"]\n\n1. a1 b1 2. b2 *\n\n'
    assert labels(server, other + SMALL + "\n1. a1 |\n\n" + other) == ["1...", *[p for p in EMPTY_BOARD if p != "a1"]]


# --- against the literal references ------------------------------------------------------------


def _board(size: int, stones: dict[str, int]) -> dict[str, int]:
    board = {p: RK.EMPTY for p in RK.board_points(size)}
    board.update(stones)
    return board


def _setup_value(board: dict[str, Any]) -> str:
    lists: dict[int, list[str]] = {RK.BLACK: [], RK.WHITE: []}
    for point, piece in sorted(board.items()):
        if isinstance(piece, tuple):
            lists[piece[0]].append(("K@" if piece[1] == RY.KING else "") + point)
        elif piece:
            lists[piece].append(point)
    return f"B: {' '.join(lists[RK.BLACK])} W: {' '.join(lists[RK.WHITE])}"


def _fresh(rules: str, size: int, before: Any = None) -> Any:
    """A reference game; from ``before``'s position, as a record's setup, when given."""
    if rules == "yugo":
        if before is None:
            return RY.RefYugo(size)
        return RY.RefYugo(size, board=before.board, to_move=before.to_move, holder=before.holder)
    if rules == "dehil":
        if before is None:
            return RD.RefDehil(size)
        return RD.RefDehil(size, board=before.board, to_move=before.to_move)
    if before is None:
        return RK.RefKeil(size, rules=rules)
    return RK.RefKeil(size, rules=rules, board=before.board, to_move=before.to_move, holder=before.holder, setup=True)


def _over(ref: Any) -> bool:
    return bool(ref.ended if isinstance(ref, RY.RefYugo) else ref.is_over)


def _play(ref: Any, choices: list[int]) -> list[str]:
    """Turns chosen among the legal ones, played on ``ref`` until the choices or the game run out."""
    played = []
    for choice in choices:
        if _over(ref):
            break
        legal = ref.legal_moves()
        if not legal:
            break
        move = legal[choice % len(legal)]
        ref.play(move)
        played.append(move)
    return played


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A record cut at the cursor, and the reference's legal turns there."""
    rules = draw(st.sampled_from(["keil", "keil-2019", "yugo", "dehil"]))
    size = draw(st.integers(2, 3))
    tags = [f'[Rules "{rules}"]', f'[Size "{size}"]', '[Komi "0"]']
    base = None
    if draw(st.booleans()):
        # A setup: the position some turns leave, where play goes on afresh.
        base = _fresh(rules, size)
        _play(base, draw(st.lists(st.integers(0, 99), max_size=6)))
        if _over(base) or getattr(base, "first_pass", None) is not None or getattr(base, "stopped", False):
            base = None
    ref = _fresh(rules, size, base)
    if base is not None:
        tags.append(f'[Setup "{_setup_value(ref.board)}"]')
        if ref.to_move == RK.WHITE:
            tags.append('[ToMove "White"]')
        if getattr(ref, "holder", None) is not None:
            tags.append(f'[ButtonTaken "{"Black" if ref.holder == RK.BLACK else "White"}"]')
    # The cursor's line: the main line, or a variation replacing its last turn.
    main = _play(ref, draw(st.lists(st.integers(0, 99), max_size=6)))
    text = "\n".join(tags) + "\n\n" + " ".join(main)
    if main and draw(st.booleans()):
        ref = _fresh(rules, size, base)
        for move in main[:-1]:
            ref.play(move)
        variation = _play(ref, draw(st.lists(st.integers(0, 99), min_size=1, max_size=4)))
        text += " (" + " ".join(variation) + " |)"
    else:
        text += " |"
    return text, [] if _over(ref) else ref.legal_moves()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(positions())
def test_the_turns_offered_are_the_references_legal_turns(server: Session, position: tuple[str, list[str]]) -> None:
    marked, legal = position
    event("from a setup" if "[Setup" in marked else "from the empty board")
    event("in a variation" if "(" in marked else "on the main line")
    offered = [item for item in server.complete(marked)[0] if item.sort_text and item.sort_text.startswith("2")]
    assert sorted(i.label for i in offered) == sorted(legal)


def test_a_game_that_starts_mid_line_is_the_one_at_the_cursor(server: Session) -> None:
    assert labels(server, SMALL + '\n1. a1 *  [Event "next"] [R|') == [n for n in KNOWN_TAGS if n != "Event"]
    assert labels(server, SMALL + '\n1. a1 *  [Event "next"] [Rules "keil"] [Size "2"] |') == ["1.", *EMPTY_BOARD]


def test_places_are_in_utf16_units_and_crlf_lines_are_lines(server: Session) -> None:
    items, text = server.complete(SMALL + "\n1. a1 {\U0001f600} b|")
    b2 = next(i for i in items if i.label == "b2")
    assert edited(text.replace("\U0001f600", "xx"), b2) == SMALL + "\n1. a1 {xx} b2"  # two UTF-16 units
    items, text = server.complete(SMALL.replace("\n", "\r\n") + '[ToMove "|\r\n')
    white = next(i for i in items if i.label == "White")
    assert white.text_edit is not None and white.text_edit.new_text == 'White"]'


def test_dehil_offers_pass_and_yugo_its_kings_as_the_references_do(server: Session) -> None:
    dehil = RD.RefDehil(3)
    dehil.play("b2")
    assert sorted(labels(server, '[Rules "dehil"]\n[Size "3"]\n[Komi "0"]\n\n1. b2 |')) == sorted(["1...", *dehil.legal_moves()])
    yugo = RY.RefYugo(3)
    for move in ("c1", "c2", "a1"):
        yugo.play(move)
    offered = labels(server, '[Rules "yugo"]\n[Size "3"]\n[Komi "0"]\n\n1. c1 c2 2. a1 |')
    assert sorted(offered) == sorted(["2...", *yugo.legal_moves()]) and "K@b1" in offered
