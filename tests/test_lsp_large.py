"""``keilref lsp`` on documents too large to check at once: it checks in
rounds (the first round's diagnostics sent at once), keeps a verdict a game
and no parse tree, and past its caps says why it stops."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402
from pygls.workspace import TextDocument  # noqa: E402

from keilref import lsp as keil_lsp  # noqa: E402
from keilref.records.record import Record  # noqa: E402
from lsp_raw import ROOT  # noqa: E402
from lsp_support import initialize_in_process  # noqa: E402

URI = (ROOT / "large.keil").as_uri()
GOOD = '[Size "5"]\n[Rules "keil"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 d3 *\n\n'
BAD = '[Size "5"]\n[Rules "keil"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 c3 *\n\n'


def games(*texts: str) -> str:
    """The games, each made different from the others by a Round tag (the same bytes are checked once)."""
    return "".join(t.replace("[Size", f'[Round "{n}"]\n[Size') for n, t in enumerate(texts, 1))


def document(text: str) -> TextDocument:
    return TextDocument(URI, source=text)


def illegal_lines(diagnostics: list[lsp.Diagnostic]) -> list[int]:
    return [d.range.start.line for d in diagnostics if d.code == "illegal/occupied"]


@pytest.fixture
def server() -> keil_lsp.KeilServer:
    return initialized()


def initialized() -> keil_lsp.KeilServer:
    """A server as the client's ``initialize`` leaves it, spoken to in process."""
    s = keil_lsp.KeilServer()
    initialize_in_process(s, lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri()))
    return s


def test_rounds_check_every_game_once_and_end_as_one_check_would(server: keil_lsp.KeilServer) -> None:
    text = games(*[GOOD, BAD] * 5)
    rounds = []
    while True:
        found = server.check(document(text), budget=0)  # one game a round
        rounds.append(found)
        if not found.left:
            break
    assert [r.checked for r in rounds] == [1] * 10
    assert [r.left for r in rounds] == list(range(9, -1, -1))
    assert rounds[0].said == "checked 1 of 10 games; 9 left to check"
    assert rounds[-1].said == "checked 1 of 10 games"
    whole = initialized().check(document(text))
    assert illegal_lines(rounds[-1].diagnostics) == illegal_lines(whole.diagnostics) == [14 + 16 * n for n in range(5)]
    # The first round already placed what it checked.
    assert illegal_lines(rounds[1].diagnostics) == [14]


def test_an_edit_between_rounds_keeps_what_was_checked(server: keil_lsp.KeilServer) -> None:
    text = games(*[GOOD] * 6)
    server.check(document(text), budget=0)
    server.check(document(text), budget=0)
    edited = BAD + text  # a game added above: the two checked below it are known
    found = server.check(document(edited))
    assert (found.checked, found.games, found.left) == (5, 7, 0)  # the new game and the four not reached
    assert illegal_lines(found.diagnostics) == [5]


def test_a_checked_game_keeps_its_verdict_and_no_parse_tree(server: keil_lsp.KeilServer) -> None:
    server.check(document(games(GOOD, GOOD, GOOD, BAD)))
    checked = server.documents[URI].games
    assert len(checked) == 4
    for game, _ in checked:
        assert not any(isinstance(value, Record) for value in vars(game).values())
        record = game.record()  # read again when a hover or a fix asks
        assert isinstance(record, Record) and [t.text for t in record.turns][0] == "c3"


def test_past_the_game_cap_one_diagnostic_says_why(server: keil_lsp.KeilServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keil_lsp, "MAX_GAMES", 3)
    found = server.check(document(games(GOOD, GOOD, GOOD, BAD, BAD)))
    assert (found.games, found.left, found.checked) == (5, 0, 3)
    assert illegal_lines(found.diagnostics) == []  # the bad games are past the cap
    (capped,) = [d for d in found.diagnostics if d.code == "unchecked"]
    assert capped.range.start == lsp.Position(line=24, character=0)  # game 4's first line
    assert capped.severity == lsp.DiagnosticSeverity.Information
    assert capped.message == (
        "not checked: this game and the 1 after it; the language server checks the first 3 games"
        " of a document (keilref check checks the whole file)"
    )


def test_past_the_size_cap_nothing_is_checked_and_one_diagnostic_says_why(
    server: keil_lsp.KeilServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keil_lsp, "MAX_DOCUMENT", 3 * 2**20)
    text = BAD * (3 * 2**20 // len(BAD) + 1)
    found = server.check(document(text))
    assert (found.games, found.checked) == (0, 0)
    assert [(d.code, d.range.start, d.message) for d in found.diagnostics] == [
        (
            "unchecked",
            lsp.Position(line=0, character=0),
            "not checked: the document is 3 MiB; the language server checks documents of up to 3 MiB"
            " (keilref check checks a file of any size)",
        )
    ]
    assert server.documents[URI].games == []


def test_the_edited_game_is_checked_before_the_rounds_reach_it(server: keil_lsp.KeilServer) -> None:
    text = games(*[GOOD] * 6)
    server.check(document(text), budget=0)  # one round: game 1 only
    last = text.rindex("1. c3 d3")
    edited = text[:last] + "1. c3 c3" + text[last + len("1. c3 d3") :]
    line = edited.count("\n", 0, last)
    server.documents[URI].edited = line + 1  # as did_change says where the editor changed it
    found = server.check(document(edited), budget=0)
    assert (found.checked, found.games, found.left) == (1, 6, 5)  # the edited game, ahead of the rounds
    assert illegal_lines(found.diagnostics) == [line]
    assert server.game_at(URI, line + 1) is not None and server.game_at(URI, line + 1)[0].verdict.game == 6
    while found.left:
        found = server.check(document(edited), budget=0)
    assert illegal_lines(found.diagnostics) == [line]
    assert found.said == "checked 1 of 6 games"  # the last round's, the edited game known


def test_the_edited_game_is_checked_first_when_a_round_of_its_text_came_before(server: keil_lsp.KeilServer) -> None:
    """pygls changes the text before the server hears where: a round already under way may check
    the new text first, and the edited game still comes before the rest."""
    text = games(*[GOOD] * 6)
    server.check(document(text), budget=0)
    last = text.rindex("1. c3 d3")
    edited = text[:last] + "1. c3 c3" + text[last + len("1. c3 d3") :]
    changed = document(edited)
    server.check(changed, budget=0)  # the round under way, on the new text
    line = edited.count("\n", 0, last)
    server.documents[URI].edited = line + 1
    found = server.check(changed, budget=0)
    assert illegal_lines(found.diagnostics) == [line]
