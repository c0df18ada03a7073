"""``keilref lsp`` on records that start from a position (version 3 of the
format), through pygls's real client: each fault of the position marked
where ``keilref check`` places it and in its words, the hover on the
position's tags, turns replayed from the position, and the quick fixes of a
record whose first turn is White's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

import keilref  # noqa: E402
from keilref.formats import CheckOptions  # noqa: E402
from keilref.formats.findings import findings  # noqa: E402
from keilref.referee.fixes import fix_text  # noqa: E402
from lsp_support import ROOT, Client, replacing  # noqa: E402

URI = (ROOT / "positions.keil").as_uri()
OTHER = (ROOT / "other-positions.keil").as_uri()

# The format document's example: White's b2 removes a1 (a1 and b1 are not
# linked, since b2, the only point beside both, was empty).
PROBLEM = """[Event "Problem 4: White to capture"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]
[Result "*"]

1... b2 *
"""
SETUP_LINE = 4  # 0-based, as LSP counts

# The set-up position of PROBLEM, as `keilref show --turn 0` draws it.
PROBLEM_BOARD = """```
 5    . . .
 4   . . . .
 3  . . O . .
 2   . . . .  e
 1    X X .  d
       a b c
```"""

PROBLEM_SETUP = f"""**The set-up position**: White to move; button not taken

{PROBLEM_BOARD}
Score so far: Black 2, White 1"""

# The position after the ko of records/faults/illegal-superko.keil was taken
# (its turn 29), White to move: White takes the ko at e1, and Black's retake
# at e2 would recreate the set-up position, which Black, who did not move
# first, may not.
KO_SETUP = "B: b3 c3 c4 d3 d4 e2 e4 e5 e7 e8 f5 f6 f7 f8 f9 W: a2 b2 c2 d2 e3 f3 f4 g5 g6 g7 g8 g9 h8 h9"
KO = f"""[Event "The set-up position repeated"]
[Rules "keil"]
[Size "5"]
[Komi "3"]
[Button "yes"]
[Setup "{KO_SETUP}"]
[ToMove "White"]

1... e1 2. e2 *
"""


def run(body: Callable[[Client], Awaitable[None]]) -> None:
    async def session() -> None:
        client = Client()
        await client.start()
        try:
            await body(client)
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 120))


def doc(uri: str = URI) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def span(d: lsp.Diagnostic | lsp.Range) -> tuple[int, int, int, int]:
    r = d.range if isinstance(d, lsp.Diagnostic) else d
    return r.start.line, r.start.character, r.end.line, r.end.character


async def hovered(client: Client, line: int, character: int, uri: str = URI) -> str | None:
    """The hover's text at the 0-based place (``None``: no hover)."""
    at = lsp.Position(line=line, character=character)
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc(uri), position=at))
    if hover is None:
        return None
    assert isinstance(hover.contents, lsp.MarkupContent)
    assert hover.contents.kind == lsp.MarkupKind.Markdown
    return hover.contents.value


def check_says(text: str) -> list[tuple[str, int, int, str]]:
    """What `keilref check --strict` says of the text: each finding's rule, place and message."""
    return [
        (f.rule, f.line, f.column, f.message)
        for v in keilref.check_text(text, filename="positions.keil")
        for f in findings(v, CheckOptions(strict=True))
    ]


# ---------------------------------------------------------------------------
# Diagnostics.


@pytest.mark.parametrize("to_move", ["", '[ToMove "Black"]\n'], ids=["scanner", "grammar"])
def test_a_point_off_the_board_or_given_twice_is_marked_on_that_point_alone(to_move: str) -> None:
    # A record with a ToMove tag is read by the grammar, one without by the fast scanner.
    head = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n'
    off = head + '[Setup "B: a1 d9 W: c3"]\n' + to_move + '[Result "*"]\n\n1. b2 *\n'
    twice = head + '[Setup "B: a1 b1 W: c3 a1"]\n' + to_move + '[Result "*"]\n\n1. b2 *\n'

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, off)
        assert (d.code, d.message, d.severity) == (
            "error",
            "game 1: error: Setup: d9 is not on a board of size 3",
            lsp.DiagnosticSeverity.Error,
        )
        assert span(d) == (4, len('[Setup "B: a1 '), 4, len('[Setup "B: a1 d9'))
        assert check_says(off) == [("error", 5, len('[Setup "B: a1 ') + 1, d.message)]

        # The last point of the value: its closing quote is not part of it.
        (d,) = await client.open(OTHER, twice)
        assert (d.code, d.message) == ("error", "game 1: error: Setup: a1 is given twice")
        assert span(d) == (4, len('[Setup "B: a1 b1 W: c3 '), 4, len('[Setup "B: a1 b1 W: c3 a1'))
        assert check_says(twice) == [("error", 5, len('[Setup "B: a1 b1 W: c3 ') + 1, d.message)]

    run(body)


def test_a_point_after_characters_of_two_utf16_units_is_placed_in_utf16_units() -> None:
    # Two tags on one line, the first holding a character outside the BMP (two UTF-16 units).
    text = '[Rules "keil"] [Event "𝄞 ko"] [Setup "B: a1 d9 W: c3"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. b2 *\n'

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, text)
        before = '[Rules "keil"] [Event "𝄞 ko"] [Setup "B: a1 '
        assert len(before.encode("utf-16-le")) // 2 == len(before) + 1
        assert (d.message, span(d)) == (
            "game 1: error: Setup: d9 is not on a board of size 3",
            (0, len(before) + 1, 0, len(before) + 3),
        )
        assert check_says(text) == [("error", 1, len(before) + 1, d.message)]

    run(body)


@pytest.mark.parametrize(
    "tags, line, message, marked",
    [
        (
            '[Setup "B: a1 W: a2 b1"]\n',
            4,
            "game 1: error: Setup: no legal play could leave this position: the group a1 has no liberty",
            '[Setup "B: a1 W: a2 b1"]',
        ),
        (
            '[Setup "B: a1 W: c3"]\n[ToMove "white"]\n',
            5,
            'game 1: error: ToMove "white" is not Black or White',
            '[ToMove "white"]',
        ),
        (
            '[Setup "B: a1 W: c3"]\n[FirstPass "Black"]\n',
            5,
            "game 1: error: a FirstPass tag is not allowed under rules 'keil': only dehil counts who passed first",
            '[FirstPass "Black"]',
        ),
        # A piece the rules do not have is a fault of that point.
        ('[Setup "B: K@a1 W: c3"]\n', 4, "game 1: error: Setup: K@a1 is a king, and rules 'keil' have none", "K@a1"),
    ],
    ids=["no-liberty", "to-move-value", "first-pass-under-keil", "king-under-keil"],
)
def test_any_other_fault_of_the_position_is_marked_where_check_places_it_in_its_words(
    tags: str, line: int, message: str, marked: str
) -> None:
    text = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n' + tags + "\n1. b2 *\n"
    start = text.split("\n")[line].index(marked)

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, text)
        assert (d.code, d.message, span(d)) == ("error", message, (line, start, line, start + len(marked)))
        assert check_says(text) == [("error", line + 1, start + 1, message)]

    run(body)


def test_an_illegal_turn_of_a_white_first_record_names_white() -> None:
    text = PROBLEM.replace("1... b2 *", "1... a1 *")

    async def body(client: Client) -> None:
        diagnostics = await client.open(URI, text)
        (d,) = [d for d in diagnostics if d.code != "warning"]
        assert (d.code, d.message) == ("illegal/occupied", "game 1: illegal: move 1 (White) a1, turn 1: occupied")
        assert span(d) == (8, len("1... "), 8, len("1... a1"))

    run(body)


def test_a_superko_repeat_of_the_set_up_position_points_to_the_setup_tag() -> None:
    variation = KO.replace("1... e1 2. e2 *", "1... e1 2. c5 (2. e2) *")

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, KO)
        assert (d.code, d.message) == (
            "illegal/superko",
            "game 1: illegal: move 2 (Black) e2, turn 2: superko (repeats the setup position)",
        )
        assert span(d) == (8, len("1... e1 2. "), 8, len("1... e1 2. e2"))
        (related,) = d.related_information or []
        assert related.message == "the setup position, repeated"
        assert related.location.uri == URI
        assert span(related.location.range) == (5, 0, 5, len(f'[Setup "{KO_SETUP}"]'))

        diagnostics = await client.change(URI, 2, [lsp.TextDocumentContentChangeWholeDocument(text=variation)])
        (w,) = [d for d in diagnostics if d.code == "warning"]
        assert w.message == (
            "game 1: warning: variation at 9:15: move 2 (Black) e2, turn 2: superko (repeats the setup position)"
        )
        (related,) = w.related_information or []
        assert (related.message, span(related.location.range)) == (
            "the setup position, repeated",
            (5, 0, 5, len(f'[Setup "{KO_SETUP}"]')),
        )
        # The variation's turn is shown over the board after White took the ko, replayed from the setup.
        (record,) = keilref.read_games(variation)
        board = "```\n" + record.replay(turn=1).diagram().rstrip("\n") + "\n```"
        assert "(O) f" in board and record.replay(turn=0).stone_at("e2") is keilref.Color.BLACK
        assert await hovered(client, 8, len("1... e1 2. c5 (2. e")) == (
            "**Illegal**: variation at 9:15: move 2 (Black) e2, turn 2: superko (repeats the setup position)\n"
            "\n"
            "The position before it (after turn 1): Black to move\n"
            "\n"
            f"{board}\n"
            "Score so far: Black 29, White 35"
        )
        assert await hovered(client, 8, len("1... e")) == (
            f"**After turn 1**: Black to move\n\n{board}\nScore so far: Black 29, White 35\n\nCaptured by this turn: e2"
        )

    run(body)


# ---------------------------------------------------------------------------
# Hover.


def test_hover_on_the_position_tags_shows_the_set_up_position() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, PROBLEM)
        for line, character in [(SETUP_LINE, 0), (SETUP_LINE, 3), (SETUP_LINE, len('[Setup "B: a1 b1 W: c3"')), (5, 2)]:
            assert await hovered(client, line, character) == PROBLEM_SETUP, (line, character)
        # Beside the tag, on another tag, on the blank line: nothing of the position.
        assert await hovered(client, SETUP_LINE, len('[Setup "B: a1 b1 W: c3"]')) is None
        assert await hovered(client, 3, 2) is None
        assert await hovered(client, 7, 0) is None

    run(body)


def test_hover_on_a_point_of_the_setup_names_it_and_its_stone() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, PROBLEM)
        b1 = len('[Setup "B: a1 ')
        c3 = len('[Setup "B: a1 b1 W: ')
        for character, named in [(b1, "**b1**: a Black stone"), (b1 + 1, "**b1**: a Black stone"), (c3, "**c3**: a White stone")]:
            assert await hovered(client, SETUP_LINE, character) == f"{named} of the set-up position\n\n{PROBLEM_SETUP}"
        # Between the points, on "W:": the position alone.
        assert await hovered(client, SETUP_LINE, b1 + 2) == PROBLEM_SETUP
        assert await hovered(client, SETUP_LINE, c3 - 2) == PROBLEM_SETUP

    run(body)


def test_hover_on_a_turn_replays_from_the_set_up_position() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, PROBLEM)
        assert await hovered(client, 8, len("1... b")) == (
            "**After turn 1**: Black to move\n"
            "\n"
            "```\n"
            " 5    . . .\n"
            " 4   . . . .\n"
            " 3  . . O . .\n"
            " 2   .(O). .  e\n"
            " 1    . X .  d\n"
            "       a b c\n"
            "```\n"
            "Score so far: Black 1, White 3\n"
            "\n"
            "Captured by this turn: a1"
        )

    run(body)


def test_hover_on_an_illegal_turn_shows_the_set_up_position_before_it() -> None:
    text = PROBLEM.replace("1... b2 *", "1... a1 *")

    async def body(client: Client) -> None:
        await client.open(URI, text)
        assert await hovered(client, 8, len("1... a")) == (
            "**Illegal**: move 1 (White) a1, turn 1: occupied\n"
            "\n"
            "The position before it (after turn 0): White to move\n"
            "\n"
            f"{PROBLEM_BOARD}\n"
            "Score so far: Black 2, White 1"
        )

    run(body)


def test_hover_names_the_button_holder_yugo_kings_and_pawns_and_dehils_first_pass() -> None:
    yugo = """[Rules "yugo"]
[Size "4"]
[Komi "0"]
[Button "yes"]
[Setup "B: K@d4 c4 W: b2 K@c3"]
[ToMove "White"]
[ButtonTaken "Black"]

1... c2 2. d3 *
"""
    yugo_setup = (
        "**The set-up position**: White to move; button taken by Black\n"
        "\n"
        "```\n"
        " 4  . . X K\n"
        " 3  . . Q .\n"
        " 2  . O . .\n"
        " 1  . . . .\n"
        "    a b c d\n"
        "```\n"
        "Score so far: Black 2.5, White 2"
    )
    dehil = """[Rules "dehil"]
[Size "4"]
[Komi "0"]
[Setup "B: d4 e5 W: b2 c3"]
[ToMove "White"]
[FirstPass "Black"]

1... a1 2. d3 *
"""
    dehil_setup = (
        "**The set-up position**: White to move; first pass: Black\n"
        "\n"
        "```\n"
        " 7     . . . .\n"
        " 6    . . . . .\n"
        " 5   . . . X . .\n"
        " 4  . . . X . . .\n"
        " 3   . . O . . .  g\n"
        " 2    . O . . .  f\n"
        " 1     . . . .  e\n"
        "        a b c d\n"
        "```\n"
        "Score so far: Black -1.5, White -2"
    )
    dehil_uri = (ROOT / "dehil-positions.keil").as_uri()

    async def body(client: Client) -> None:
        assert [d.code for d in await client.open(URI, yugo)] == ["unfinished"]
        line = yugo.split("\n")[4]
        assert await hovered(client, 4, line.index("K@d4")) == f"**K@d4**: a Black king of the set-up position\n\n{yugo_setup}"
        assert await hovered(client, 4, line.index("c4")) == f"**c4**: a Black pawn of the set-up position\n\n{yugo_setup}"
        assert await hovered(client, 4, line.index("K@c3") + 3) == f"**K@c3**: a White king of the set-up position\n\n{yugo_setup}"
        assert await hovered(client, 6, 1) == yugo_setup  # ButtonTaken
        assert [d.code for d in await client.open(dehil_uri, dehil)] == ["unfinished"]
        assert await hovered(client, 5, 1, dehil_uri) == dehil_setup  # FirstPass
        # No FirstPass tag: nobody has passed yet.
        without = dehil.replace('[FirstPass "Black"]\n', "")
        await client.change(dehil_uri, 2, [lsp.TextDocumentContentChangeWholeDocument(text=without)])
        assert await hovered(client, 4, 1, dehil_uri) == dehil_setup.replace(
            "first pass: Black", "first pass: nobody yet"
        ).replace("Black -1.5", "Black -2")

    run(body)


def test_hover_on_a_position_that_cannot_be_set_up_says_why_in_checks_words() -> None:
    text = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n[Setup "B: a1 d9 W: c3"]\n\n1. b2 *\n'

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, text)
        assert d.message == "game 1: error: Setup: d9 is not on a board of size 3"
        fault = "**The set-up position** cannot be set up: Setup: d9 is not on a board of size 3"
        assert await hovered(client, 4, 1) == fault
        assert await hovered(client, 4, len('[Setup "B: a1 d')) == f"**d9**: a Black stone of the set-up position\n\n{fault}"

    run(body)


def test_hover_finds_the_setup_of_a_game_moved_down_by_an_edit_above_it() -> None:
    second = PROBLEM.replace("Problem 4", "Problem 5")
    text = PROBLEM + "\n" + second
    below = PROBLEM.count("\n") + 1 + SETUP_LINE  # the second game's Setup

    async def body(client: Client) -> None:
        await client.open(URI, text)
        assert await hovered(client, below, 1) == PROBLEM_SETUP
        # Two lines added at the top: the games move down, unchecked again.
        await client.change(URI, 2, [replacing(0, 0, 0, '[Annotator "x"]\n[Round "1"]\n')])
        assert await hovered(client, below, 1) is None  # now the second game's Size tag
        assert await hovered(client, below + 2, 1) == PROBLEM_SETUP
        assert await hovered(client, below + 2, len('[Setup "B: a1 b')) == (
            f"**b1**: a Black stone of the set-up position\n\n{PROBLEM_SETUP}"
        )

    run(body)


# ---------------------------------------------------------------------------
# Quick fixes.


def everywhere(text: str) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(text.split("\n")), character=0))


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """The text with the edits made, as an editor makes them (last first)."""
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)

    def at(p: lsp.Position) -> int:
        return offsets[p.line] + p.character

    for edit in sorted(edits, key=lambda e: at(e.range.start), reverse=True):
        text = text[: at(edit.range.start)] + edit.new_text + text[at(edit.range.end) :]
    return text


async def offered(client: Client, text: str, version: int = 1) -> dict[str, str]:
    """Each quick fix offered for the whole text (opened, or changed to it), by
    title, with the text it would make."""
    if version == 1:
        await client.open(URI, text)
    else:
        await client.change(URI, version, [lsp.TextDocumentContentChangeWholeDocument(text=text)])
    found = await client.text_document_code_action_async(
        lsp.CodeActionParams(text_document=doc(), range=everywhere(text), context=lsp.CodeActionContext(diagnostics=[]))
    )
    out = {}
    for action in found or []:
        assert isinstance(action, lsp.CodeAction) and action.edit is not None and action.edit.changes is not None
        out[action.title] = apply(text, action.edit.changes[URI])
    return out


BUTTONED = PROBLEM.replace('[Komi "0"]\n', '[Komi "0"]\n[Button "yes"]\n')
"""PROBLEM with its Button tag: a record with no fault but being unfinished."""


def test_a_wrong_move_number_of_a_white_first_record_is_renumbered_from_1_dots() -> None:
    black_numbers = BUTTONED.replace("1... b2 *", "1. b2 *")
    skipped = BUTTONED.replace("1... b2 *", "1... b2 3. c1 *")
    white_again = BUTTONED.replace("1... b2 *", "1... b2 2... c1 *")

    async def body(client: Client) -> None:
        assert await offered(client, black_numbers) == {"Renumber 1. as 1...": BUTTONED}
        assert await offered(client, skipped, 2) == {"Renumber 3. as 2.": skipped.replace("3. c1", "2. c1")}
        assert await offered(client, white_again, 3) == {"Renumber 2... as 2.": skipped.replace("3. c1", "2. c1")}
        assert [v.status.value for v in keilref.check_text(skipped.replace("3. c1", "2. c1"))] == ["unfinished"]

    run(body)


FINISHED = """[Event "A finished position to score"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]
[ButtonTaken "Black"]
[Result "B+1"]

1... pass pass B+1
"""


def test_the_result_of_a_finished_position_is_declared_again_in_both_places() -> None:
    right = FINISHED.replace("B+1", "B+1.5")
    assert [(v.status.value, v.computed) for v in keilref.check_text(right)] == [("ok", "B+1.5")]

    async def body(client: Client) -> None:
        assert await offered(client, FINISHED) == {"Declare the result B+1.5": right}
        # No Button tag: the one the referee assumed is added, before the Result tag.
        no_button = right.replace('[Button "yes"]\n', "")
        assert await offered(client, no_button, 2) == {'Add [Button "yes"]': right.replace(
            '[Button "yes"]\n', ""
        ).replace('[Result "B+1.5"]', '[Button "yes"]\n[Result "B+1.5"]')}

    run(body)


def test_no_result_is_declared_while_a_position_tag_is_misspelt() -> None:
    misspelt = FINISHED.replace("[Setup ", "[SetUp ")
    renamed = FINISHED
    # Replayed from the empty board, the result would be B+0.5.
    assert [v.computed for v in keilref.check_text(misspelt)] == ["B+0.5"]

    async def body(client: Client) -> None:
        assert await offered(client, misspelt) == {"Rename tag SetUp to Setup": renamed}
        assert await offered(client, renamed, 2) == {"Declare the result B+1.5": FINISHED.replace("B+1", "B+1.5")}

    run(body)
    # --fix: the rename, then the result under it, in two rounds.
    fixed = fix_text(misspelt, "positions.keil")
    assert fixed.text == FINISHED.replace("B+1", "B+1.5")
    assert fixed.applied == ("6:1: Rename tag SetUp to Setup", "11:16: Declare the result B+1.5")


def test_a_misspelt_to_move_that_would_renumber_every_turn_is_renamed_in_the_editor_only() -> None:
    white = BUTTONED.replace("[ToMove ", "[Tomove ").replace("1... b2 *", "1. b2 *")
    black = white.replace('[Tomove "White"]', '[Tomove "Black"]')

    async def body(client: Client) -> None:
        assert await offered(client, white) == {"Rename tag Tomove to ToMove": white.replace("Tomove", "ToMove")}
        assert await offered(client, black, 2) == {"Rename tag Tomove to ToMove": black.replace("Tomove", "ToMove")}

    run(body)
    # --fix applies what has one right answer: not a name that leaves every move number wrong.
    assert fix_text(white, "positions.keil").text == white
    assert fix_text(black, "positions.keil").text == black.replace("Tomove", "ToMove")
