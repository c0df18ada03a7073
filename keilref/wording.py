"""Every wording a user reads about a verdict, in one place.

Statuses, the reasons a turn is illegal, the illegal turn itself, the
details of a mismatch and every warning are worded here and only here.
Text lines, CI annotations, SARIF, GitLab, Checkstyle, JUnit, the HTML
report, board captions, ``repr`` and the errors keilref raises all say them
through this module, so a change of wording is a change of one file.

It sits beneath every stage and imports none of them at run time: the
referee words a warning while it judges, and a format words a verdict while
it prints, with the same functions.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from keilref.values import Color, Reason, ResultKind, move_number, turn_player

if TYPE_CHECKING:  # the types only: every stage imports this module
    from keilref.engine.game import Game
    from keilref.referee.verdict import Fault, Verdict

__all__ = [
    "GAME_NOT_ENDED",
    "NO_TURN_YET",
    "SETUP_POSITION",
    "SETUP_NO_TURN",
    "SETUP_COUNTED",
    "played",
    "last_turn",
    "last_turn_none",
    "no_turn_yet",
    "viewer_start",
    "NO_CLOCK",
    "COMMENT_LABEL",
    "REASONS",
    "STATUSES",
    "STATUS_SIGNS",
    "WARNING_RULE",
    "back_to",
    "CROSSTABLE_CAPTION",
    "FAILING_HEADING",
    "NOT_COUNTED_MARK",
    "STANDINGS_NOTE",
    "TEXT_NOT_COUNTED_MARK",
    "bad_line_name",
    "NO_FIRST_PASS",
    "NO_BUTTON",
    "button_not_in_play",
    "button_state",
    "first_pass_state",
    "repeated_position",
    "setup_fault_hover",
    "setup_hover",
    "setup_point",
    "position_tag_not_allowed",
    "setup_triangle",
    "setup_surrounded_pawns",
    "setup_no_liberty",
    "setup_unreachable",
    "setup_king",
    "setup_twice",
    "setup_off_board",
    "setup_word",
    "setup_order",
    "setup_missing",
    "setup_pawn",
    "position_value",
    "clocks",
    "comment_line",
    "crosstable_caption",
    "fault_sentence",
    "foreign_byte_order_mark",
    "glyphed",
    "illegal_hover",
    "illegal_label",
    "illegal_on_line",
    "illegal_rule",
    "illegal_turn",
    "internal_error",
    "line_choice",
    "line_has_no_turn",
    "line_title",
    "may_resume",
    "next_illegal",
    "misspelt_setting",
    "no_such_line",
    "not_counted",
    "NO_EVENT",
    "NO_ROUND",
    "NOT_COUNTED_HEADING",
    "NOT_COUNTED_REASONS",
    "RATINGS_COLUMNS",
    "SB_NOTE",
    "event_name",
    "crosstable_left_out",
    "games_accounted",
    "not_counted_more",
    "likely_same_player",
    "no_standings",
    "not_counted_game",
    "not_counted_reason",
    "ratings_head",
    "standings_counts",
    "standings_head",
    "picture_note",
    "play_state",
    "result_meant",
    "results",
    "showing_before",
    "source_label",
    "steps_stop",
    "turn_name",
    "unfinished_message",
    "verdict_message",
    "verdict_line",
    "verdict_lens",
    "game_title",
    "titled_verdict",
    "word_meant",
    "viewers_stop",
    "output_collision",
    "output_exists",
    "output_hard_links",
    "output_is_input",
    "output_is_link",
    "output_loses",
    "COMPUTED_RESULT",
    "TAG_DOCS",
    "TIME_CONTROL_FORMS",
    "button_doc",
    "legal_turn_doc",
    "move_number_doc",
    "player_value_doc",
    "result_doc",
    "rules_doc",
    "size_doc",
]

# -- statuses and reasons ----------------------------------------------------

STATUSES = {
    "ok": "Every turn legal, and the declared result agrees with the game.",
    "unfinished": "The game did not end and no result is claimed (a failure with --strict).",
    "mismatch": "The declared result disagrees with the game.",
    "illegal": "A turn breaks the rules.",
    "error": "The record cannot be read: a syntax error or a tag the rules do not allow.",
}
"""Each status (by its value) in a sentence: SARIF's rule descriptions, the HTML report."""

STATUS_SIGNS = {"ok": "✓", "unfinished": "…", "mismatch": "≠", "illegal": "✗", "error": "!"}
"""Each status's sign, written before its name in the HTML report's table (by the page and by its script)."""

GAME_NOT_ENDED = "the game did not end"
"""Why an unfinished game is a finding: its fault's message (under --strict) or its note."""

REASONS = {
    Reason.OFF_BOARD: "the point is not on the board",
    Reason.OCCUPIED: "the point already holds a stone",
    Reason.SUICIDE: "after captures, the placed stone's group has no liberty",
    Reason.SUPERKO: "the position repeats one left by an earlier turn of the same player",
    Reason.PASS_BEFORE_BUTTON: "a pass while the button is still available",
    Reason.BUTTON_TAKEN: "the button was already taken, or is not in play",
    Reason.GAME_OVER: "the game had already ended",
    Reason.PAWN_SURROUNDS: "a pawn placement that changes the number of surrounded groups (Yugo)",
    Reason.KING_CAPTURES_NOTHING: "a king placement that surrounds no new enemy group (Yugo)",
    Reason.TRIANGLE: "a placement making a triangle pattern the restriction forbids (Dehil)",
}
"""Why a turn is illegal, in words (the one description of each :class:`~keilref.Reason`)."""

WARNING_RULE = (
    "A warning about the record: a tag misspelt, missing or out of place, an illegal turn in a variation, "
    "or a clock that cannot be right (a failure with --strict)."
)

RULE_HELP = {
    "illegal": (
        "A turn of the main line breaks the rules where it stands. The message names the turn "
        "(move number, colour, point, and the turn as every turn counts) and the reason. Compare the "
        "turn with the source of the record: a point misread, "
        "a capture missed, a turn left out or written twice, or a Rules tag that names the "
        "wrong rule set. `keilref show FILE --turn N` draws the position before it."
    ),
    "mismatch": (
        "Every turn is legal, but the declared result (the result token, or the Result tag) disagrees "
        "with the game: a wrong winner or margin, a score claimed for a game that did not end, a "
        "resignation after the game ended, or a loss on time claimed for the player who was not to "
        "move. `keilref score FILE` shows the computed score; correct the result, or the turns."
    ),
    "error": (
        "The record cannot be read: a syntax error, a tag the rules do not allow, or a turn the rules "
        "cannot read. The message says what was found and what was expected, at its line and column. "
        "`keilref fmt` will not rewrite a file until every game in it reads."
    ),
    "unfinished": (
        "The game did not end and no result is claimed (`*` or none). Not a failure unless --strict "
        "is given: finish the record, or claim the result (B+R, W+T...) that ended it."
    ),
    "warning": (
        "Something about the record that does not stop it being judged: a tag left to its default, a "
        "tag name one typo from a known one, an illegal turn in a variation, or a clock that cannot be "
        "right. A failure only with --strict; the message says what to change."
    ),
}
"""Each rule's longer help: what it means and how to fix it (SARIF's rule ``help``)."""


def illegal_rule(reason: Reason) -> str:
    """An ``illegal/<reason>`` rule in a sentence (SARIF's rule description)."""
    return f"An illegal turn: {REASONS[reason]}."


def rule_help(rule: str) -> str:
    """The help of a rule id (``illegal/superko`` shares ``illegal``'s, after its reason)."""
    kind, _, reason = rule.partition("/")
    text = RULE_HELP[kind]
    if reason:
        text = f"{REASONS[Reason(reason)].capitalize()}. {text}"
    return text


# -- turns ---------------------------------------------------------------------


def turn_name(turn: int, token: str, white_first: bool = False) -> str:
    """A turn as the record numbers it, then as the referee counts it:
    ``move 16 (Black) e2, turn 31``. Black plays the odd turns, unless the
    record starts from a position with White to move (``white_first``): its
    first turn is White's, numbered ``1...``."""
    number = move_number(turn, white_first).rstrip(".")
    return f"move {number} ({_mover_name(turn, white_first)}) {token}, turn {turn}"


def _mover_name(turn: int, white_first: bool) -> str:
    return turn_player(turn, white_first).name.capitalize()


def played(turn: int, token: str, white_first: bool = False) -> str:
    """A turn with its player, as a viewer labels it: ``b2 (White)``."""
    return f"{token} ({_mover_name(turn, white_first)})"


def last_turn(turn: int, token: str, white_first: bool = False) -> str:
    """The turn a picture shows last, as ``show`` and a board's caption say it:
    ``last turn: 18 e3 (White)`` (the turn as the referee counts it)."""
    return f"last turn: {turn} {played(turn, token, white_first)}"


SETUP_POSITION = "the setup position"
"""The position a record's ``Setup`` tag gives, before the first turn."""
NO_TURN_YET = "no turn yet"
"""A board's caption before the first turn, on the empty board."""
SETUP_NO_TURN = f"{SETUP_POSITION}, {NO_TURN_YET}"
"""A board's caption before the first turn of a game set up from a position."""


def no_turn_yet(from_position: bool) -> str:
    """What a picture says before the first turn: ``no turn yet``, or that the
    board is the record's set-up position."""
    return SETUP_NO_TURN if from_position else NO_TURN_YET


def viewer_start(from_position: bool) -> str:
    """A viewer's words for the position before the first turn."""
    return f"start: {no_turn_yet(from_position)}"


SETUP_COUNTED = f"this counts {SETUP_POSITION} as if the game ended there"
"""``score --turn 0`` of a game set up from a position: the count of the setup itself."""


def last_turn_none(from_position: bool) -> str:
    """``show``'s line for the last turn before the first: ``last turn: none``
    (``last turn: none, the setup position`` for a game set up from one)."""
    return f"last turn: none, {SETUP_POSITION}" if from_position else "last turn: none"


def illegal_turn(
    turn: int, token: str, reason: str, repeats_turn: int | None = None, white_first: bool = False
) -> str:
    """``move 16 (Black) e2, turn 31: superko (repeats turn 29)``; a turn that
    recreates a set-up position ``(repeats the setup position)``."""
    text = f"{turn_name(turn, token, white_first)}: {reason}"
    if repeats_turn == 0:
        text += " (repeats the setup position)"
    elif repeats_turn is not None:
        text += f" (repeats turn {repeats_turn})"
    return text


# --- positions (version 3 of the format) ---------------------------------


def position_value(name: str, value: str, words: tuple[str, ...]) -> str:
    """``ToMove "white" is not Black or White``."""
    allowed = " or ".join(f"{w}" for w in words) if len(words) < 3 else f"{', '.join(words[:-1])} or {words[-1]}"
    return f'{name} "{_cut(value)}" is not {allowed}'


def setup_order(value: str, label: str) -> str:
    """A ``Setup`` whose ``B:`` or ``W:`` (``label``) is repeated or out of order."""
    return (
        f'Setup "{_cut(value)}": "{label}" is out of place: write "B:" and Black\'s points, '
        f'then "W:" and White\'s, once each (B: d4 W: e4)'
    )


def setup_missing(value: str, label: str) -> str:
    """A ``Setup`` without its ``B:`` (an empty value) or its ``W:``."""
    if label == "B:":
        return f'Setup "{_cut(value)}" is empty: write "B:" and Black\'s points, then "W:" and White\'s (B: d4 W: e4)'
    return f'Setup "{_cut(value)}" has no "W:": write "W:" after Black\'s points, then White\'s, if any (B: d4 W: e4)'


def setup_word(value: str, word: str, before_label: bool, unseen: str | None = None) -> str:
    """A word of a ``Setup`` that is not a point (or stands before ``B:``);
    ``unseen`` names a character in it that cannot be seen."""
    shown = f"'{_cut(word)}'"
    if unseen is not None:
        return f'Setup "{_cut(value)}": {shown} is not a point: {unseen} separates nothing'
    if word[:2] in ("B:", "W:"):
        return f'Setup "{_cut(value)}": {shown}: put a space after "{word[:2]}" ({word[:2]} {_cut(word[2:])})'
    if before_label:
        return f'Setup "{_cut(value)}": {shown} stands before "B:": the value starts with "B:" (B: d4 W: e4)'
    return f'Setup "{_cut(value)}": {shown} is not a point (such as d4, or K@d4 for a Yugo king)'


def setup_off_board(point: str, size: int) -> str:
    """``Setup: z9 is not on a board of size 7``."""
    return f"Setup: {point} is not on a board of size {size}"


def setup_twice(point: str) -> str:
    """A point given twice in one ``Setup`` (``point`` is where it is given again)."""
    return f"Setup: {point} is given twice"


def setup_king(point: str, rules: str) -> str:
    """A king set up under rules without kings."""
    return f"Setup: K@{point} is a king, and rules {rules!r} have none"


def setup_pawn(point: str, rules: str) -> str:
    """A piece named a pawn under rules without pieces."""
    return f"Setup: P@{point} names a pawn, and rules {rules!r} have only stones: write {point}"


def setup_unreachable(why: str) -> str:
    """A position no legal play could leave (``why`` names the group or triangle)."""
    return f"Setup: no legal play could leave this position: {why}"


def setup_no_liberty(points: str) -> str:
    """A Keil group without a liberty."""
    return f"the group {points} has no liberty"


def setup_surrounded_pawns(points: str) -> str:
    """A surrounded Yugo group that holds a pawn."""
    return f"the group {points} is surrounded and holds a pawn (only a group of kings may stand surrounded)"


def setup_triangle(points: str, edge_stones: int, unsupported: str | None) -> str:
    """A Dehil triangle no placement could have made: with more than one
    stone on the edge, or with a stone off the edge (``unsupported``) beside
    no friendly stone outside it and no hourglass centre."""
    if unsupported is None:
        return f"the triangle {points} has {edge_stones} stones on the edge (a triangle may have one at most)"
    return (
        f"the triangle {points}: {unsupported} is beside no friendly stone outside the triangle "
        f"and no hourglass centre, so no placement could make it"
    )


def position_tag_not_allowed(name: str, rules: str, why: str) -> str:
    """``ButtonTaken`` or ``FirstPass`` under rules it says nothing of."""
    return f"a {name} tag is not allowed under rules {rules!r}: {why}"


NO_FIRST_PASS = "only dehil counts who passed first"
NO_BUTTON = "they have no button"


def button_not_in_play(value: str, rules: str) -> str:
    """A ``ButtonTaken`` holder in a game whose button is not in play."""
    return (
        f'ButtonTaken "{_cut(value)}": the button is not in play in this game '
        f'(rules {rules!r}, Button "no"), so nobody holds it'
    )


def button_state(in_play: bool, holder: Color | None) -> str:
    """``button taken by Black``, ``button not taken`` or ``button not in play``."""
    if not in_play:
        return "button not in play"
    return "button not taken" if holder is None else f"button taken by {holder.name.capitalize()}"


def first_pass_state(player: Color | None) -> str:
    """Who passed first, in Dehil: ``first pass: White``, or ``first pass: nobody yet``."""
    return f"first pass: {'nobody yet' if player is None else player.name.capitalize()}"


def setup_hover(state: str, *more: str) -> str:
    """The set-up position as the editor's hover titles it (Markdown), with
    where play stands (:func:`play_state`) and what else the tags say of it:
    ``**The set-up position**: White to move; button taken by Black``."""
    return "; ".join((f"**The set-up position**: {state}", *more))


def setup_fault_hover(message: str) -> str:
    """The hover on a position's tags where the game cannot be set up."""
    return f"**The set-up position** cannot be set up: {message}"


def setup_point(token: str, player: Color, piece: str) -> str:
    """A point of a ``Setup`` as the editor's hover names it (Markdown):
    ``**K@c3**: a White king of the set-up position``."""
    return f"**{token}**: a {player.name.capitalize()} {piece} of the set-up position"


def repeated_position(turn: int) -> str:
    """What a superko's repeated position is, where the editor points at it:
    ``the position after turn 29, repeated``, or ``the setup position, repeated``
    (turn 0, the position the record starts from)."""
    return "the setup position, repeated" if turn == 0 else f"the position after turn {turn}, repeated"


def tag_disagrees_with_game(name: str, written: str, value: str | None) -> str:
    """A tag given for a game's record that says otherwise than the game
    (``value`` is the game's; ``None`` for a position tag of a game that
    starts from the empty board)."""
    if value is None:
        return (
            f"tag {name} {written!r} disagrees with the game, which starts from the empty board "
            "with Black to move"
        )
    return f"tag {name} {written!r} disagrees with the game, which has {value!r}"


def game_not_written(why: str) -> str:
    """``Game.to_record`` refusing a game its record would not replay."""
    return f"this game cannot be written as a record: {why}"


def diagram_not_a_setup(fault: str) -> str:
    """A diagram's position that no record's ``Setup`` could give."""
    return f"the position it was set up from cannot be a record's Setup ({fault})"


def turns_do_not_replay(fault: str, from_position: bool) -> str:
    """A game's turns that its record would not replay (from its Setup, whose
    position the player who does not move first may not recreate)."""
    if from_position:
        return f"its turns do not replay from its position as a record's Setup gives it ({fault})"
    return f"its turns do not replay ({fault})"


POSITION_NOT_REACHED = "its turns, replayed from where its record starts, do not lead to its position"


def from_a_position(games: int) -> str:
    """``stats``' count of the games that start from a position."""
    plural = "" if games == 1 else "s"
    return (
        f"from a position: {games:,} game{plural} (counted in every column but the turns, "
        "since the turns before a position are not in its record)"
    )


def export_from_position(tag: str) -> str:
    """``export`` refusing a game that starts from a position."""
    return (
        f"the game starts from a position (its {tag} tag), and the abstract_games server has no setups: "
        "its games start from the empty board"
    )


def _cut(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[: limit - 3] + "..."


def internal_error(doing: str, error: BaseException) -> str:
    """A fault of keilref's own met while ``doing`` (``reading``, ``checking``)
    one game: that game's error, so that the others keep their verdicts."""
    return f"internal error while {doing} this game: {type(error).__name__}: {error}"


def worker_crashed(file: str, first_game: int, games: int) -> str:
    """A worker process ended abruptly (a crash in native code, the memory
    killer) while it checked a batch: the games are checked again in the main
    process by the Python referee, and the user is told which."""
    if games <= 1:
        span, were, they = f"game {first_game}", "was", "it was"
    else:
        span, were, they = f"games {first_game} to {first_game + games - 1}", "were", "they were"
    return (
        f"a worker process ended abruptly while {file} {span} {were} being checked: "
        f"{they} checked again by the Python referee, and the verdicts are its own"
    )


def checked_alone_crashed(returncode: int) -> str:
    """A file (or a table's row) on a cluster whose worker died while it was
    checked, and whose process of its own then ended too while the Python
    referee checked it again, alone: the error that stands for its games."""
    if returncode < 0:
        try:
            signalled = signal.Signals(-returncode).name
        except ValueError:
            signalled = f"signal {-returncode}"
        how = f"killed by {signalled}; a crash in native code, the memory killer"
    else:
        how = f"exit status {returncode}"
    return (
        f"a worker process ended abruptly while it checked these games' partition, and so did a process "
        f"checking them again alone by the Python referee ({how}): they have no verdict"
    )


def may_resume(player: Color) -> str:
    """``Black may resume``: who may play on where play stopped but did not end
    (Yugo's first double pass)."""
    return f"{player.name.capitalize()} may resume"


def play_state(game: Game) -> str:
    """Where play stands: ``game over``, ``play stopped; Black may resume`` (Yugo's
    first double pass), or ``Black to move``."""
    if game.is_final:
        return "game over"
    if game.is_over:
        return f"play stopped; {may_resume(game.to_move)}"
    return f"{game.to_move.name.capitalize()} to move"


# -- lines, glyphs and clocks ---------------------------------------------------

Place = tuple[int, int]
"""Where a variation's ``(`` stands (line, column): the name a user gives it."""


def glyphed(token: str, glyphs: tuple[str, ...]) -> str:
    """A turn with its glyphs as a record writes them: ``b2!``, ``b2! $1``, ``b2 $14``."""
    if glyphs and not glyphs[0].startswith("$"):
        token, glyphs = token + glyphs[0], glyphs[1:]
    return " ".join((token, *glyphs))


def line_title(at: Place | None) -> str:
    """``main line``, or ``variation at 8:25``."""
    return "main line" if at is None else f"variation at {at[0]}:{at[1]}"


def line_choice(at: Place | None, turn: int, token: str, white_first: bool = False) -> str:
    """A line offered at a turn with alternatives, by its turn there as a
    record numbers it: ``variation at 8:25: 12... a1``, ``main line: 13. d4``
    (a White-first game's first turn is ``1...``)."""
    return f"{line_title(at)}: {move_number(turn, white_first)} {token}"


def back_to(at: Place | None) -> str:
    """Leaving a variation for the line it branched from: ``back to the main line``."""
    return f"back to the {line_title(at)}"


NO_CLOCK = "no clock yet"
"""A player's clock before any of their turns shows one."""


def clocks(black: str | None, white: str | None) -> str:
    """Each player's last known clock: ``clocks: Black 0:01:00, White 0:00:58``."""
    return f"clocks: Black {black or NO_CLOCK}, White {white or NO_CLOCK}"


COMMENT_LABEL = "comment"
"""What stands before the annotator's comment on the turn shown."""


def comment_line(text: str) -> str:
    """The annotator's comment on the turn shown, already made one safe line:
    ``comment: or White answers at h6``."""
    return f"{COMMENT_LABEL}: {text}"


def picture_note(at: Place | None, turn: int, shown: str | None) -> str:
    """What a picture of a position adds under its caption when it shows a
    variation or an annotated turn: ``variation at 8:25, after turn 23: e5!?``."""
    text = f"after turn {turn}" if at is None else f"{line_title(at)}, after turn {turn}"
    return text if shown is None else f"{text}: {shown}"


def bad_line_name(value: str) -> str:
    """A ``--line`` that names no line at all."""
    return f"--line takes main or LINE:COLUMN, where a variation's '(' stands (such as 8:25), not {value!r}"


def no_such_line(at: Place, lines: list[Place]) -> str:
    """``no variation opens at 3:4; variations open at 8:25, 8:59``."""
    if not lines:
        return f"no variation opens at {at[0]}:{at[1]}; the game has no variations"
    return f"no variation opens at {at[0]}:{at[1]}; variations open at " + ", ".join(f"{a}:{b}" for a, b in lines)


def line_in_another_game(at: Place, game: int) -> str:
    """A ``--line`` that names a place of another game than the one shown, such as one copied from check."""
    return (
        f"no variation opens at {at[0]}:{at[1]}: line {at[0]} is in game {game} "
        f"(use --game {game} to see its position before the fault)"
    )


def line_has_no_turn(at: Place, turn: int, branch: int, last: int) -> str:
    """A ``--turn`` outside a variation: from its branch point to its last turn."""
    return (
        f"the {line_title(at)} branches after turn {branch} and ends at turn {last}: "
        f"there is no turn {turn} in it (--turn {branch} to {last})"
    )

# -- mismatches ----------------------------------------------------------------

_CLAIM_NOUN = {ResultKind.RESIGN: "a resignation", ResultKind.TIME: "a loss on time", ResultKind.FORFEIT: "a forfeit"}


def claimed_after_end(kind: ResultKind) -> str:
    """A resignation, time or forfeit result for a game that ended by two passes."""
    return f"{_CLAIM_NOUN[kind]} is claimed, but the game ended by two passes"


def time_loss_not_to_move(to_move: Color) -> str:
    """A loss on time claimed for the player who was not to move."""
    loser, mover = (c.name.capitalize() for c in (to_move.other, to_move))
    return f"a loss on time is claimed for {loser}, but {mover} was to move when the record ends"


def claimed_unended(kind: ResultKind) -> str:
    """A score or winner-only result for a game that did not end."""
    what = "a winner-only result" if kind is ResultKind.WINNER else "a score"
    return f"{what} is claimed, but the game did not end"


WRONG_WINNER = "wrong winner"
WRONG_MARGIN = "wrong margin"
MISMATCH_FALLBACK = "the declared result disagrees"
"""A mismatch without a detail (a verdict built by hand)."""

# -- warnings ----------------------------------------------------------------


def misspelt_tag(name: str, meant: tuple[str, ...]) -> str:
    """``unknown tag 'komi' sets nothing: did you mean 'Komi'? (tag names are case-sensitive)``."""
    choices = " or ".join(repr(m) for m in meant)
    case = " (tag names are case-sensitive)" if name.lower() == meant[0].lower() else ""
    return f"unknown tag {name!r} sets nothing: did you mean {choices}?{case}"


def misspelt_setting(name: str, meant: str, value: str, used: str) -> str:
    """A misspelt setting whose value is not the one the game is replayed
    with: ``unknown tag 'size' sets nothing: did you mean 'Size'? (tag names
    are case-sensitive); the game would be replayed with Size 7, not "4"``."""
    return f'{misspelt_tag(name, (meant,))}; the game would be replayed with {meant} {used}, not "{value}"'


def missing_tag(name: str, used: object) -> str:
    """``no Size tag: using 7``."""
    return f"no {name} tag: using {used}"


def rules_not_applied(override: str, family: str, override_family: str) -> str:
    """An override of another family than the game's own."""
    return (
        f"rules {override} not applied: the Rules tag names a {family} game, "
        f"judged under its own rules ({override} is a {override_family} rule set)"
    )


def rules_overridden(value: str, override: str) -> str:
    """``Rules tag "keil" overridden: using keil-2019``; ``value`` is quoted as it stands."""
    return f'Rules tag "{value}" overridden: using {override}'


def variation_illegal(
    opened_at: tuple[int, int],
    turn: int,
    token: str,
    reason: str,
    repeats_turn: int | None = None,
    white_first: bool = False,
) -> str:
    """``variation at 12:8: move 13 (White) d4, turn 26: occupied``."""
    what = illegal_turn(turn, token, reason, repeats_turn, white_first)
    return f"variation at {opened_at[0]}:{opened_at[1]}: {what}"


def illegal_label(what: str) -> str:
    """An illegal turn labelled as one where it is shown beside other things
    (a board's caption, ``show``'s message, the report's viewer):
    ``illegal: move 16 (Black) e2, turn 31: superko``. A verdict's line that
    names its status (``game 3: illegal: ...``) writes the status's value, as
    every status is written there and in jsonl."""
    return f"illegal: {what}"


def next_illegal(what: str) -> str:
    """What a viewer adds to its last position when the turn after it is illegal."""
    return f" — next, {illegal_label(what)}"


def showing_before(game: int, what: str) -> str:
    """Why ``show`` draws the position before an illegal turn rather than the one asked for."""
    return f"game {game}: {illegal_label(what)}; showing the position before it"


def illegal_hover(what: str, before: str, state: str) -> str:
    """An illegal turn as the editor's hover shows it (Markdown): the turn, then
    the position before it (``before``, a :func:`picture_note`) and its ``state``."""
    return f"**Illegal**: {what}\n\nThe position before it ({before}): {state}"


def illegal_on_line(
    opened_at: Place | None,
    turn: int,
    token: str,
    reason: str,
    repeats_turn: int | None = None,
    white_first: bool = False,
) -> str:
    """An illegal turn named on its line: :func:`illegal_turn` on the main
    line (``opened_at`` is ``None``), :func:`variation_illegal` in the
    variation whose ``(`` stands at ``opened_at``."""
    if opened_at is None:
        return illegal_turn(turn, token, reason, repeats_turn, white_first)
    return variation_illegal(opened_at, turn, token, reason, repeats_turn, white_first)


def time_control_unreadable(value: str) -> str:
    return f'TimeControl "{value}" is not seconds such as 600+5, 600, - or ?: clocks not checked against it'


def clock_unreadable(turn: str, text: str) -> str:
    return f"{turn}: clock {text} does not read as [%clk H:MM:SS]"


def clock_without_control(turn: str) -> str:
    return f'{turn}: a clock in a game without time control (TimeControl "-")'


def clock_negative(turn: str, clock: str) -> str:
    return f"{turn}: clock {clock} is negative"


def clock_rises(turn: str, before: str, after: str, increment: str) -> str:
    return f"{turn}: clock rises from {before} to {after}, more than the increments since ({increment})"


def clock_starts_high(turn: str, clock: str, limit: str) -> str:
    return f"{turn}: clock {clock} is above the time control allows so far ({limit})"


# -- files as they are saved ----------------------------------------------------


def foreign_byte_order_mark(encoding: str) -> str:
    """A file whose byte order mark says it is ``UTF-16`` or ``UTF-32``."""
    return (
        f"the file is {encoding} (it starts with a {encoding} byte-order mark): "
        f"re-save it as UTF-8, or read it with --encoding {encoding.lower()}"
    )


def result_meant(word: str, meant: tuple[str, ...]) -> str:
    """What a result typed as people type it (``word``) should be written as:
    ``meant`` from :func:`keilref.values.meant_result`."""
    if len(meant) == 1:
        return f"did you mean '{meant[0]}'?"
    if meant:
        return f"did you mean {' or '.join(repr(m) for m in meant)}? a result names the winner's colour"
    return f"'{word}' does not say which colour won: a result names the winner's colour, as in B+R or W+R"


def word_meant(word: str, meant: str) -> str:
    """A turn's word one typo (or only case) from ``pass`` or ``button``."""
    if word.lower() == meant:
        return f"did you mean '{meant}'? write '{meant}' in lower case"
    return f"did you mean '{meant}'?"


# -- verdicts ----------------------------------------------------------------


def results(v: Verdict) -> str:
    """``computed W+3.5, declared B+3.5``: the game's result beside the record's."""
    return f"computed {v.computed or '-'}, declared {v.declared or '-'}"


def verdict_message(v: Verdict) -> str:
    """What the text line says after the status: the reason, in words."""
    if v.status.value == "error":
        assert v.error is not None
        return v.error.message
    parts = [results(v)]
    if v.illegal is not None:
        t = v.illegal
        parts = [illegal_turn(t.turn, t.point, t.reason, t.repeats_turn, t.white_first)]
    elif v.status.value == "unfinished" and v.score is not None:
        parts.append(f"score so far {v.score.result}")
    return "; ".join([*parts, *_verdict_notes(v)])


def _verdict_notes(v: Verdict) -> list[str]:
    """What the text line adds after the results: a mismatch's detail, the rule sets that disagree."""
    parts = [v.detail] if v.detail else []
    if v.rule_sensitive:
        others = ", ".join(f"{r} under {name}" for name, r in v.other_results)
        parts.append(f"rule-sensitive: {others}")
    return parts


def verdict_line(v: Verdict) -> str:
    """A game's status and why, as the text line says them after the game's
    number (``illegal: move 16 (Black) e2, turn 31: superko``); of a game
    that passed, its result once (``ok B+4.5``, where the line says
    ``computed B+4.5, declared B+4.5``). An editor's outline shows it beside the game."""
    if v.status.value == "ok" and v.computed is not None:
        return "; ".join([f"ok {v.computed}", *_verdict_notes(v)])
    return f"{v.status.value}: {verdict_message(v)}"


def verdict_lens(v: Verdict) -> str:
    """A game's verdict in a few words, as an editor shows it over the game's
    first line: ``ok B+4.5``, ``illegal at move 16``, ``mismatch: computed
    B+4.5, declared B+5.5; wrong margin``, ``unfinished: score so far W+6``,
    ``error: found 'hh6'; ...``."""
    if v.illegal is not None:
        return f"illegal at move {move_number(v.illegal.turn, v.illegal.white_first).rstrip('.')}"
    if v.status.value == "ok" and v.computed is not None:
        return f"ok {v.computed}"
    if v.status.value == "unfinished":
        return "unfinished" if v.score is None else f"unfinished: score so far {v.score.result}"
    return f"{v.status.value}: {verdict_message(v)}"


def game_title(
    game: int, black: str | None, white: str | None, event: str | None, round_: str | None, result: str | None
) -> str:
    """A game named as an editor's outline lists it, by what its tags say
    (passed as they are shown; a blank one counts as missing): its players,
    its event and round, its declared result (``Ana Ruiz – Ben Cho · Winter
    Open r3 · W+4.5``); ``game 12`` where it names neither players nor event."""
    black, white, event, round_ = (
        None if value is None or not value.strip() else value.strip() for value in (black, white, event, round_)
    )
    parts = []
    if black or white:
        parts.append(f"{_player(black)} – {_player(white)}")
    if event:
        parts.append(event if round_ is None else f"{event} r{round_}")
    elif round_ is not None:
        parts.append(f"round {round_}")
    if not parts:
        parts.append(f"game {game}")
    if result and result.strip() and result.strip() != "*":
        parts.append(result.strip())
    return " · ".join(parts)


def titled_verdict(title: str, verdict: str) -> str:
    """A game's name and its verdict in one, for an outline with no room for a detail:
    ``Ana Ruiz – Ben Cho · W+4.5 (ok W+4.5)``."""
    return f"{title} ({verdict})"


def unfinished_message(v: Verdict) -> str:
    """``the game did not end; score so far B+3``."""
    so_far = f"; score so far {v.score.result}" if v.score is not None else ""
    return f"{GAME_NOT_ENDED}{so_far}"


def fault_sentence(v: Verdict, fault: Fault | None = None) -> str:
    """One fault of a game (by default its status's) in a sentence that names the game:
    ``game 3: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)``,
    ``game 2: warning: unknown tag 'komi'; did you mean 'Komi'?``."""
    rule = fault.rule if fault is not None else v.status.value
    if rule == "warning":
        assert fault is not None
        return f"game {v.game}: warning: {fault.message}"
    if rule == "unfinished":
        return f"game {v.game}: unfinished: {unfinished_message(v)}"
    return f"game {v.game}: {v.status.value}: {verdict_message(v)}"


# -- the HTML report ------------------------------------------------------------

FAILING_HEADING = "Failing games"
NOT_COUNTED_MARK = "✗"
"""The report's crosstable's mark for a game that is not counted, before its status."""
TEXT_NOT_COUNTED_MARK = "x"
"""The text crosstable's mark for a game that is not counted."""
STANDINGS_NOTE = (
    f"Only games whose verdict is ok count; a game that is not ok is marked {NOT_COUNTED_MARK} in the crosstable "
    "and links to its fault. Every game read is in an event's standings, counted or listed as not "
    "counted with its reason; the games without an Event tag make the group (no event)."
)


def crosstable_caption(mark: str) -> str:
    """What a crosstable shows, and the ``mark`` it gives a game that is not counted."""
    return f"crosstable: points scored against each opponent, a game at a time ({mark}: not counted)"


CROSSTABLE_CAPTION = crosstable_caption(NOT_COUNTED_MARK)


def viewers_stop(cap: int) -> str:
    """Why the failing games past ``cap`` have no viewer."""
    return f"Viewers stop after {cap} failing games; every failing game above still says why and where."


def steps_stop(turns: int, cap: int) -> str:
    """Why a record shown in a notebook has its last position only."""
    return f"{turns} turns: too many to step through here (at most {cap - 1}); the last position alone is shown."


def lsp_too_many_games(cap: int, beyond: int) -> str:
    """Why the language server checks no game past the ``cap``-th of a document."""
    return (
        f"not checked: this game and the {beyond - 1:,} after it; the language server checks the first"
        f" {cap:,} games of a document (keilref check checks the whole file)"
    )


def lsp_document_too_large(size: int, cap: int) -> str:
    """Why the language server checks nothing of a document."""
    return (
        f"not checked: the document is {size / 2**20:,.0f} MiB; the language server checks documents"
        f" of up to {cap / 2**20:,.0f} MiB (keilref check checks a file of any size)"
    )


def source_label(place: str) -> str:
    return f"the source line at {place}, a caret under the fault"


def not_counted(status: str, round_: str | None) -> str:
    """A crosstable mark's name: ``round 3: illegal, not counted``."""
    return f"round {round_ or NO_ROUND}: {status}, not counted; see its fault"


# -- standings and ratings ---------------------------------------------------------
# Names and events are passed as they are shown (escaped for the output).

NO_EVENT = "(no event)"
"""The group of the games without an ``Event`` tag: a server match, a casual game."""
NO_ROUND = "-"
NOT_COUNTED_HEADING = "not counted:"
"""The round of a game without a ``Round`` tag."""
SB_NOTE = (
    "SB: Sonneborn-Berger, the tie-break after points: the points of every opponent beaten, "
    "plus half the points of every opponent drawn with"
)
NOT_COUNTED_REASONS = {
    "no players": "no players: a game needs both a Black and a White tag",
    "bye": "a bye: no game was played",
    "no result": "no result: the game ended without a winner",
}
"""Why a game is not counted, when it is not its status (which is said as it is)."""
RATINGS_COLUMNS = ("#", "player", "rating", "games")


def event_name(event: str | None) -> str:
    """An event as a heading names it: the ``Event`` tag, or the no-event group."""
    return NO_EVENT if event is None else event


def not_counted_reason(reason: str) -> str:
    """``illegal``, ``no players: a game needs both a Black and a White tag``, ..."""
    return NOT_COUNTED_REASONS.get(reason, reason)


def standings_counts(players: int, counted: int, left: int) -> str:
    return f"{players} players, {counted} games counted, {left} not counted"


def standings_head(event: str, players: int, counted: int, left: int) -> str:
    return f"{event}: {standings_counts(players, counted, left)}"


def not_counted_game(
    round_: str | None, black: str | None, white: str | None, reason: str, place: str, game: int
) -> str:
    """A line of the not-counted list: ``round 3, Cai - Ana: illegal at rr.keil:31:7 (game 8)``."""
    return (
        f"round {round_ or NO_ROUND}, {_player(black)} - {_player(white)}: {not_counted_reason(reason)} "
        f"at {place} (game {game})"
    )


def _player(name: str | None) -> str:
    """A player as a line names one: ``?`` for a missing or blank name."""
    return (name or "").strip() or "?"


def crosstable_left_out(players: int, cap: int) -> str:
    return f"crosstable left out: {players} players, more than one table can show (at most {cap})"


def not_counted_more(more: int) -> str:
    """Past the report's cap on the not-counted list: where the rest are."""
    return f"and {more:,} more not counted: the table of every game lists each with its status"


def games_accounted(read: int, counted: int, left: int) -> str:
    """The closing count: every game read is counted or listed as not counted."""
    return f"{read} games read: {counted} counted, {left} not counted"


def no_standings(read: int) -> str:
    return f"no standings: none of the {read} games read names both its players (Black and White tags)"


def likely_same_player(spellings: list[tuple[str, list[str], int]]) -> str:
    """Names that differ only in case, white space or accents.

    Each spelling comes with the places shown and how many more there are:
    ``warning: likely the same player, counted as 2: 'gloria paz' (a.keil:1) and 'Gloria Paz' (b.keil:5)``.
    """
    said = []
    for name, places, more in spellings:
        where = ", ".join(places) + (f" and {more} more" if more else "")
        said.append(f"'{name}' ({where})")
    return (
        f"warning: likely the same player, counted as {len(spellings)}: " + " and ".join(said)
        + " (the names differ only in case, white space or accents)"
    )


def ratings_head(games: int, start: float, k: float) -> str:
    return (
        f"ratings: Elo from {games} counted games in date order (Date tag, then as read), "
        f"starting at {start:.0f}, K = {k:.0f}; shown rounded"
    )


# -- records read from tables and URLs ---------------------------------------------
def in_row(file: str, row: int) -> str:
    """The name a row of a table (``--column``) goes by in every verdict and
    every output format: ``archive.parquet#row=12`` for its 12th row (1-based,
    as lines and games are). Lines, columns and game numbers then count
    within that row's text, as they count within a file."""
    return f"{file}#row={row}"


def row_of(name: str) -> tuple[str, int] | None:
    """The table and row a name made by :func:`in_row` stands for; ``None`` for any other name."""
    file, mark, row = name.rpartition("#row=")
    if not mark or not file or not row.isdigit() or row.startswith("0"):
        return None
    return file, int(row)


REMOTE_NEEDS_EXTRA = "reading a URL needs fsspec: install keilref[remote]"
REMOTE_NO_OBJECT = "no such object (nothing stored at that URL)"


def remote_protocol_missing(protocol: str, detail: str) -> str:
    """A URL whose protocol's own package is missing (``s3fs`` for ``s3://``)."""
    return f"reading {protocol}:// URLs needs its fsspec package ({detail})"


def remote_fault(e: BaseException) -> str:
    """What went wrong reaching an object, in its library's words, on one line."""
    detail = " ".join(str(e).split()) or "no detail given"
    return f"cannot reach it ({type(e).__name__}: {detail})"


TABLE_NEEDS_ARROW = "reading Parquet or Arrow files needs pyarrow: install keilref[arrow]"


def column_missing(column: str, found: list[str]) -> str:
    """A table without the column ``--column`` names."""
    shown = ", ".join(found[:10]) + (", ..." if len(found) > 10 else "")
    return f"no column {column!r} in this table (its columns: {shown or 'none'})"


def column_not_text(column: str, kind: str) -> str:
    """A column, or one row's value, that is not record text."""
    return f"column {column!r} holds {kind}, not record text (strings, or bytes in UTF-8)"


def table_unreadable(kind: str, detail: str) -> str:
    """A table file that cannot be read as the kind its name says."""
    return f"not a readable {kind} file ({' '.join(detail.split())})"


def row_not_json(detail: str) -> str:
    """A JSON Lines row that is not a JSON object."""
    return f"not a JSON object ({detail})"


URL_NOT_REWRITTEN = "a URL is never rewritten in place (copy it here first)"
COLUMN_NOT_FIXED = "--fix and --diff rewrite record files, not a table's rows: leave out --column"


def no_such_row(row: int) -> str:
    """A row read again that the table no longer holds (it changed since the check)."""
    return f"the table has no row {row:,}"


# -- files keilref writes -------------------------------------------------------
# Each takes the file's name as it is shown (escaped).


def output_is_input(name: str) -> str:
    """Why an output is not written over a file the command reads."""
    return f"{name}: cannot write: the command reads this file, and its output would replace it; write elsewhere"


def output_exists(name: str) -> str:
    """Why ``import`` or ``export`` leaves an existing file as it is."""
    return f"{name}: exists; left as it is (--force replaces it)"


def output_is_link(name: str) -> str:
    """Why a symbolic link in a directory target is not written through."""
    return f"{name}: a symbolic link, not followed out of the directory; left as it is (--force replaces the link)"


def output_hard_links(name: str, links: int, *, forceable: bool) -> str:
    """Why a file with other hard links is not replaced; ``forceable``: the command takes ``--force``."""
    how = "--force replaces this name" if forceable else "write elsewhere, or remove it first"
    return (
        f"{name}: has {links} hard links, which replacing it would separate (the other names would keep "
        f"the old text); left as it is ({how})"
    )


def output_loses(name: str, lost: str, *, forceable: bool) -> str:
    """Why a file is not replaced by one that cannot have its ``lost`` (owner, group, mode)."""
    how = " (--force writes it without)" if forceable else ""
    return f"{name}: the new file cannot keep its {lost}; left as it is{how}"


def output_collision(name: str, first: str, second: str) -> str:
    """Why nothing is written when two outputs would have one name."""
    return f"{name}: {first} and {second} would both be written here; nothing written (give them different names)"


# -- fixes ----------------------------------------------------------------------


def fix_rename_tag(name: str, meant: str) -> str:
    """A fix's title: ``Rename tag KOMI to Komi``."""
    return f"Rename tag {name} to {meant}"


def fix_add_tag(text: str) -> str:
    """A fix's title: ``Add [Button "yes"]``."""
    return f"Add {text}"


def fix_renumber(wrong: str, right: str) -> str:
    """A fix's title: ``Renumber 4. as 3.``."""
    return f"Renumber {wrong} as {right}"


def fix_declare_result(result: str) -> str:
    """A fix's title: ``Declare the result B+0.5``."""
    return f"Declare the result {result}"


def fixed_file(name: str, fixes: int) -> str:
    """What ``--fix`` says of a file it rewrote: ``fixed games.keil (2 fixes)``."""
    return f"fixed {name} ({fixes} {'fix' if fixes == 1 else 'fixes'})"


def fix_not_applied(name: str, why: str) -> str:
    """A file ``--fix`` leaves as it is: ``games.keil: not fixed: ... (file left as it is)``."""
    return f"{name}: not fixed: {why} (file left as it is)"


def shape_disagrees(judged: str) -> str:
    """Why a shape of a match is an error: it says another game than the shape judged."""
    return f"this shape of the match disagrees with {judged} (the moves, result, players or settings differ)"


# --- completion in the editor: what each offered word is for -------------------------

TAG_DOCS = {
    "Event": "The event the game was played at (free text).",
    "Site": "Where the game was played; for an import, the playing site (free text).",
    "Date": "When the game was played, such as 2026.11.21 (free text).",
    "Round": "The round of the event (free text).",
    "Black": "The player of Black (free text).",
    "White": "The player of White (free text).",
    "Rules": "The rule set the game is played under (default keil).",
    "Size": "Points per side of the board, in the range the rule set allows (default: the rule set's).",
    "Komi": "Added to White's score: a whole number, a half too under keil-2019, maybe negative (default 0).",
    "Button": "yes or no: whether the button is in play (only keil-2019 allows no; dehil has no button).",
    "Result": "The declared result (B+4.5, W+R, Draw, *...): it must agree with the result after the moves.",
    "Removed": "Yugo: the groups removed by agreement when play stopped (their points).",
    "Annotator": "Who annotated the game (free text).",
    "TimeControl": "Base time and increment in seconds: 600+5, 600 (no increment), - (none) or ? (unknown).",
    "KomiBy": "Under a komi pie, the colour played by the player who named the komi: Black or White.",
    "GameId": "The game's id at its Site.",
    "Setup": "The stones before the first turn: B: d4 e5 W: e4 (a Yugo king: K@e4).",
    "ToMove": "Who plays the first turn: Black (default) or White, whose first turn is numbered 1....",
    "ButtonTaken": "Who holds the button before the first turn: Black, White or no (default).",
    "FirstPass": "Dehil: who passed first before the position: Black, White or no (default).",
}
"""What each tag of the format is for, as completion offers the tag's name
(a tag of the table without an entry here is offered without one)."""

TIME_CONTROL_FORMS = {
    "600+5": "10 minutes each, 5 seconds added after each of the player's turns.",
    "600": "10 minutes each, no increment.",
    "-": "No time control (the game has no clocks).",
    "?": "Unknown (the default).",
}
"""The forms of a ``TimeControl`` value, each with an example of its meaning."""


def rules_doc(title: str, default: bool) -> str:
    """A rule set offered as a ``Rules`` value: its title, and whether it is the default."""
    return f"{title} (the default)" if default else title


def size_doc(size: int, default: bool) -> str:
    """A ``Size`` value offered: ``7 points per side (the default)``."""
    return f"{size} points per side" + (" (the default)" if default else "")


def button_doc(value: bool) -> str:
    """A ``Button`` value offered."""
    return "The button is in play (the default)." if value else "No button: play ends at two passes in succession."


def player_value_doc(tag: str, player: str | None) -> str:
    """A value of ``ToMove``, ``KomiBy``, ``ButtonTaken`` or ``FirstPass``
    offered (``player`` ``None``: ``no``)."""
    if tag == "ToMove":
        if player == "Black":
            return "Black plays the first turn (the default)."
        return "White plays the first turn, numbered 1...."
    if tag == "KomiBy":
        return f"The player who named the komi played {player}."
    if tag == "ButtonTaken":
        return "Nobody has taken the button (the default)." if player is None else f"{player} holds the button."
    return "Nobody passed before the position (the default)." if player is None else f"{player} passed first."


def result_doc(result: ResultKind, winner: Color | None) -> str:
    """A result offered, as a token or a ``Result`` value: what it claims."""
    who = "" if winner is None else winner.name.capitalize()
    loser = "" if winner is None else winner.other.name.capitalize()
    return {
        ResultKind.WINNER: f"{who} wins (no margin given).",
        ResultKind.RESIGN: f"{who} wins: {loser} resigned.",
        ResultKind.TIME: f"{who} wins on time: {loser} ran out of time.",
        ResultKind.FORFEIT: f"{who} wins by forfeit.",
        ResultKind.DRAW: "A draw: equal scores.",
        ResultKind.UNKNOWN: "Unknown or unfinished.",
        ResultKind.SCORE: f"{who} wins by the margin given.",
    }[result]


COMPUTED_RESULT = "The result the moves give: the game ended by two passes."


def legal_turn_doc(player: Color, move: str) -> str:
    """A legal turn offered: ``a legal turn for Black``; ``pass`` and ``button`` said in words."""
    name = player.name.capitalize()
    if move == "pass":
        return f"{name} passes (two passes in succession end play)."
    if move == "button":
        return f"{name} takes the button."
    return f"A legal turn for {name}."


def move_number_doc(player: Color) -> str:
    """The next move number offered: ``the number before Black's turn``."""
    return f"The number before {player.name.capitalize()}'s turn."


def needs_extra(what: str, extra: str, package: str) -> str:
    """What is missing for ``what`` (``--format parquet``): an optional extra."""
    return f"{what} needs {package}, which is not installed: pip install 'keilref[{extra}]'"


def binary_needs_file(format_name: str) -> str:
    """A binary format asked for without ``-o``."""
    return f"--format {format_name} writes a binary file: give it with -o FILE (such as -o verdicts.{format_name})"
