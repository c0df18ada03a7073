"""Property tests: play from a set-up position against the literal references.

A random game is played on the engine and the reference side by side (every
turn tried -- legal or not -- is decided by both and kept with its decision).
It is then cut at a random turn: the position there becomes a setup (stones,
Yugo kings, who moves, who holds the button, Dehil's first pass), and the
turns tried after the cut are tried again on ``Game.from_position`` and on
the reference started from the same setup, and compared with each other and
with the whole game. They must get the same decisions (the reason, the turn
a superko refusal repeats, counted from the setup), the same captures, the
same end and the same score -- except where the record format says a
position differs from the game that led to it ("Superko from a position"):

(a) the history before the cut is unknown, so a turn whose only repeated
    position is from before the cut is legal from the setup;
(b) the setup position is the one left by the player who does not move
    first (turn 0), so that player may not recreate it; the player who moves
    first may.

The cut game is also written as a record (the position's tags, then the
turns, numbered from ``1...`` when White moves first, ending at an illegal
turn now and then) and checked by the referee, which must say what the
engine from the setup says.

A cut is never made between two passes (the second would end a whole game
whose first pass the setup knows nothing of: Dehil's ``FirstPass`` says who
passed first, not that the last turn was a pass), nor, under ``yugo``, once
play has stopped (the setup starts a fresh stretch of play).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

for _path in (Path(__file__).resolve().parent.parent, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference as RK  # noqa: E402
import reference_dehil as RD  # noqa: E402
import reference_yugo as RY  # noqa: E402
import test_reference as TK  # noqa: E402
import test_reference_dehil as TD  # noqa: E402
import test_reference_yugo as TY  # noqa: E402

from keilref import Color, Game, IllegalMoveError, KeilGame, PositionError, Status, Verdict, check_text  # noqa: E402
from keilref.engine.dehil import DehilGame  # noqa: E402
from keilref.engine.yugo import YugoGame  # noqa: E402
from keilref.records import parser  # noqa: E402

PLAYER = {RK.BLACK: "Black", RK.WHITE: "White"}
COLOR = {RK.BLACK: Color.BLACK, RK.WHITE: Color.WHITE}


# --- what a whole game leaves for its cuts ---------------------------------------------------


@dataclass(frozen=True)
class Tried:
    """One turn tried in the whole game, with the reference's decision."""

    move: str
    before: int
    """Legal turns played before it."""
    reason: str | None
    repeats_turn: int | None = None
    captured: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Snapshot:
    """The state after some number of legal turns: what a setup is made of."""

    board: dict[str, Any]
    to_move: int
    holder: int | None
    """Who took the button (Dehil: who passed first)."""
    last: str | None
    """The last legal turn (``None`` at the start)."""


@dataclass
class WholeGame:
    rules: str
    size: int
    komi: float
    button: bool
    tried: list[Tried] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    no_cut_from: int | None = None
    """Yugo: the number of legal turns at which play first stopped."""
    score: tuple[float, float] = (0, 0)
    is_over: bool = False

    def cuts(self) -> list[int]:
        """Where the game may be cut (see the module's docstring)."""
        n = len(self.snapshots)
        out = []
        for k in range(n if self.no_cut_from is None else self.no_cut_from):
            if self.snapshots[k].last == "pass":
                if (k + 1 < n and self.snapshots[k + 1].last == "pass") or (k + 1 == n and self.is_over):
                    continue
            out.append(k)
        return out


def setup_text(rng: random.Random, board: dict[str, Any]) -> str:
    """The ``Setup`` value for ``board``, each list in a random order (the
    reader must not care); Yugo kings as ``K@``."""
    lists: dict[int, list[str]] = {RK.BLACK: [], RK.WHITE: []}
    for point, piece in board.items():
        if isinstance(piece, tuple):
            lists[piece[0]].append(("K@" if piece[1] == RY.KING else "") + point)
        elif piece:
            lists[piece].append(point)
    for points in lists.values():
        rng.shuffle(points)
    return f"B: {' '.join(lists[RK.BLACK])} W: {' '.join(lists[RK.WHITE])}"


def record_text(
    game: WholeGame,
    setup: str,
    start: Snapshot,
    tokens: list[str],
    result: str,
    rng: random.Random,
) -> str:
    """The cut game as a record of format version 3."""
    tags = [("Rules", game.rules), ("Size", str(game.size)), ("Komi", f"{game.komi:g}")]
    if game.rules != "dehil":
        tags.append(("Button", "yes" if game.button else "no"))
    tags.append(("Setup", setup))
    if start.to_move == RK.WHITE or rng.random() < 0.3:
        tags.append(("ToMove", PLAYER[start.to_move]))
    half_point_tag = "FirstPass" if game.rules == "dehil" else "ButtonTaken"
    if start.holder is not None:
        tags.append((half_point_tag, PLAYER[start.holder]))
    elif rng.random() < 0.3 and (game.button or game.rules == "dehil"):
        tags.append((half_point_tag, "no"))
    tags.append(("Result", result))
    head = "".join(f'[{name} "{value}"]\n' for name, value in tags)
    numbered = rng.random() < 0.5
    words = []
    for i, token in enumerate(tokens):
        # Turn i (from 0) of the record; a White-first record's turn 0 is move 1... .
        half = i + (start.to_move == RK.WHITE)
        if numbered and (half % 2 == 0 or i == 0):
            words.append(f"{half // 2 + 1}{'.' if half % 2 == 0 else '...'}")
        words.append(token)
    return f"{head}\n{' '.join([*words, result])}\n"


def check_both_ways(text: str) -> Verdict:
    """The referee's verdict on a one-game record, which the fast scanner (where
    it reads the record at all) and the grammar alone must both give."""
    (verdict,) = check_text(text)
    saved = parser.scan_game
    parser.scan_game = lambda *args: None  # type: ignore[assignment]
    try:
        (slow,) = check_text(text)
    finally:
        parser.scan_game = saved
    assert slow == verdict, text
    return verdict


def assert_pop_replays(eng: Game) -> None:
    """Taking the last turn back replays the game from its setup: the turn is
    legal again and leads to the same position; the game still starts from the setup."""
    start = eng.start_position
    assert start is not None
    if eng.moves:
        before, legal = eng.position, eng.legal_moves()
        last = eng.pop()
        assert eng.check(last) is None, last
        eng.play(last)
        assert (eng.position, eng.legal_moves()) == (before, legal)
    assert eng.start_position == start
    assert eng.white_first is (start.to_move is Color.WHITE)


def wrong_result(result: str) -> str:
    """A score result that is not ``result``."""
    return "W+100" if result.startswith("B+") else "B+100"


def assert_record_agrees(
    game: WholeGame,
    start: Snapshot,
    setup: str,
    tokens: list[str],
    from_setup: Callable[[WholeGame, Snapshot, str], tuple[Game, object]],
    rng: random.Random,
    stats: Counter[str],
) -> None:
    """The referee, given the cut game as a record, says what the engine from the setup says."""
    eng = from_setup(game, start, setup)[0]
    illegal = None
    for token in tokens:
        try:
            eng.play(token)
        except IllegalMoveError as error:
            illegal = error
            break
    # A Yugo record that stops at the first double pass ends there.
    ended = eng.is_final if isinstance(eng, YugoGame) else eng.is_over
    ended = ended or (eng.is_over and illegal is None)
    score = eng.score()
    # An illegal record has no computed result, as from the empty board.
    computed = str(score.result) if ended and illegal is None else None
    roll = rng.random()
    if illegal is not None:
        result, status = "*", Status.ILLEGAL
    elif roll < 0.6:
        result, status = (computed, Status.OK) if computed else ("*", Status.UNFINISHED)
    else:
        result, status = wrong_result(computed or "B+1"), Status.MISMATCH
    text = record_text(game, setup, start, tokens, result, rng)
    verdict = check_both_ways(text)
    assert verdict.status is status, (text, verdict)
    stats[f"record {status.value}"] += 1
    assert verdict.error is None, text
    if illegal is not None:
        assert verdict.illegal is not None, text
        assert verdict.illegal.turn == illegal.turn == eng.turn + 1, text
        assert verdict.illegal.reason == illegal.reason.value, text
        assert verdict.illegal.repeats_turn == illegal.repeats_turn, text
        assert verdict.illegal.point == tokens[eng.turn], text
        assert verdict.illegal.white_first is (start.to_move == RK.WHITE), text
        if illegal.repeats_turn == 0:
            stats["record refuses a repeat of the setup position"] += 1
    else:
        assert verdict.illegal is None, text
        assert verdict.turns == len(tokens), text
    assert verdict.computed == computed, text
    assert verdict.score is not None
    assert (verdict.score.black, verdict.score.white) == (score.black, score.white), text


# --- keil and keil-2019 -----------------------------------------------------------------------


def keil_snapshot(ref: RK.RefKeil, last: str | None) -> Snapshot:
    return Snapshot(dict(ref.board), ref.to_move, ref.holder, last)


def keil_whole_game(rng: random.Random, size: int, rules: str, komi: float, button: bool, max_turns: int) -> WholeGame:
    """A random game (the driver of ``test_reference.play_long_game``), every turn tried kept."""
    eng, ref = TK.new_pair(size, rules, komi, button)
    game = WholeGame(rules, size, komi, button, snapshots=[keil_snapshot(ref, None)])
    fill_until = rng.randrange(0, 120)

    def attempt(move: str) -> RK.Verdict:
        before = ref.turn
        verdict = TK.step(eng, ref, move)
        game.tried.append(Tried(move, before, verdict.reason, verdict.repeats_turn, verdict.captured))
        if verdict.reason is None:
            game.snapshots.append(keil_snapshot(ref, move))
        return verdict

    while not ref.is_over and ref.turn < max_turns:
        button_available = ref.button_in_play and not ref.button_taken
        if button_available and rng.random() < 0.05:
            attempt("button")
            continue
        roll = rng.random()
        if roll < 0.03 and ref.occupied_points():
            attempt(rng.choice(ref.occupied_points()))
        elif roll < 0.04:
            attempt(rng.choice(TK.off_board_names(size)))
        elif roll < 0.06:
            attempt("pass" if button_available else "button")
            continue
        eyes = set()
        if ref.turn >= fill_until:
            mine = [t for t in eng.territories() if t.owner is COLOR[ref.to_move] and len(t.points) == 1]
            eyes = {p for t in mine for p in t.points}
        candidates = [p for p in ref.empty_points() if p not in eyes]
        rng.shuffle(candidates)
        for point in candidates:
            if attempt(point).reason is None:
                break
        else:
            attempt("button" if button_available else "pass")
    if ref.is_over:
        attempt("pass")
    black, white, _ = ref.score()
    game.score, game.is_over = (black, white), ref.is_over
    return game


def keil_from_setup(game: WholeGame, start: Snapshot, setup: str) -> tuple[KeilGame, RK.RefKeil]:
    eng = Game.from_position(
        setup,
        size=game.size,
        komi=game.komi,
        rules=game.rules,
        button=game.button,
        to_move=COLOR[start.to_move],
        button_taken="no" if start.holder is None else COLOR[start.holder],
    )
    assert isinstance(eng, KeilGame)
    ref = RK.RefKeil(
        game.size,
        game.komi,
        game.rules,
        game.button,
        board=start.board,
        to_move=start.to_move,
        holder=start.holder,
        setup=True,
    )
    TK.assert_same_state(eng, ref)
    assert eng.turn == 0 and eng.moves == ()
    return eng, ref


@dataclass
class Tail:
    """The cut game replayed from its setup."""

    played: list[str] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    """Each turn refused from the setup: ``(turns played before it, move)``."""
    setup_repeats: list[tuple[int, str]] = field(default_factory=list)
    """The refused turns that repeat the setup position."""
    diverged: bool = False


def replay_keil_tail(game: WholeGame, k: int, eng: KeilGame, ref: RK.RefKeil, stats: Counter[str]) -> Tail:
    tail = Tail()
    start = ref.position_of(ref.board, ref.button_taken)
    for tried in game.tried:
        if tried.before < k:
            continue
        mover = ref.to_move
        if tried.reason == RK.SUPERKO or tried.before % 5 == 0:
            TK.assert_same_legal_moves(eng, ref)  # the engine's other way of deciding turns
        verdict = TK.step(eng, ref, tried.move)  # the engine from the setup agrees with the reference from it
        if verdict.reason is None:
            tail.played.append(tried.move)
            if tried.move not in ("pass", "button") and mover == ref.first and ref.history[-1][2] == start:
                stats["the first player recreates the setup position"] += 1
        else:
            tail.refused.append((len(tail.played), tried.move))
            if verdict.repeats_turn == 0:
                tail.setup_repeats.append(tail.refused[-1])
        if tail.diverged:
            continue
        if tried.reason == RK.SUPERKO and tried.repeats_turn is not None and tried.repeats_turn < k:
            # (a) the only positions it repeats are from before the cut: unknown to the setup.
            assert verdict.reason is None, tried
            stats["a repeat of the history before the cut is legal"] += 1
            stats["... by the player who moved first" if mover == ref.first else "... by the other player"] += 1
            tail.diverged = True
            continue
        assert verdict.reason == tried.reason, tried
        repeats = None if tried.repeats_turn is None else tried.repeats_turn - k
        assert verdict.repeats_turn == repeats, tried
        assert verdict.captured == tried.captured, tried
        if repeats == 0:
            # (b) the setup position is the non-first player's turn 0.
            assert mover != ref.first
            stats["a repeat of the setup position is refused"] += 1
        elif verdict.reason == RK.SUPERKO:
            stats["superko within the cut game"] += 1
        if verdict.reason is None:
            assert ref.board == game.snapshots[tried.before + 1].board
    if not tail.diverged:
        assert ref.is_over == game.is_over
        assert ref.score()[:2] == game.score
    TK.assert_same_analysis(eng, ref)
    TK.assert_same_legal_moves(eng, ref)
    assert_pop_replays(eng)
    return tail


def record_tokens(tail: Tail, rng: random.Random) -> list[str]:
    """The turns of the record: all the cut game played, or those before a refused turn and that turn."""
    if tail.refused and rng.random() < 0.5:
        # A refusal of the setup position's repeat when there is one: it is rare.
        before, move = rng.choice(tail.setup_repeats or tail.refused)
        return [*tail.played[:before], move]
    return list(tail.played)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=TK.configs(sizes=(2, 4)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_keil_cut_games_match_the_whole_game(
    config: tuple[int, str, float, bool], seed: int, data: st.DataObject
) -> None:
    size, rules, komi, button = config
    rng = random.Random(seed)  # a whole game draws too much to draw turn by turn
    stats: Counter[str] = Counter()
    game = keil_whole_game(rng, size, rules, komi, button, max_turns=rng.choice([30, 80, 400]))
    k = data.draw(st.sampled_from(game.cuts()), label="cut")
    check_keil_cut(game, k, rng, stats)
    for key in stats:
        event(key)


def button_state(game: WholeGame, start: Snapshot) -> str:
    if not game.button:
        return "button not in play"
    return "button free" if start.holder is None else f"button taken by {PLAYER[start.holder]}"


def check_keil_cut(game: WholeGame, k: int, rng: random.Random, stats: Counter[str]) -> None:
    start = game.snapshots[k]
    setup = setup_text(rng, start.board)
    stats[button_state(game, start)] += 1
    stats[f"{PLAYER[start.to_move]} moves first"] += 1
    eng, ref = keil_from_setup(game, start, setup)
    tail = replay_keil_tail(game, k, eng, ref, stats)
    assert_record_agrees(game, start, setup, record_tokens(tail, rng), keil_from_setup, rng, stats)


def superko_refusals(game: WholeGame) -> list[Tried]:
    return [t for t in game.tried if t.reason == RK.SUPERKO]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=TK.configs(sizes=(2, 4)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_keil_superko_across_the_cut(config: tuple[int, str, float, bool], seed: int, data: st.DataObject) -> None:
    """Cut where a superko refusal of the whole game is decided by the setup:
    (b) right after the turn it repeats, which becomes the setup position; or
    (a) after that turn, so that the setup cannot know it."""
    size, rules, komi, button = config
    rng = random.Random(seed)
    game = keil_whole_game(rng, size, rules, komi, button, max_turns=400)
    refusals = superko_refusals(game)
    if not refusals:
        event("no superko in this game")
        return
    refused = data.draw(st.sampled_from(refusals), label="refusal")
    assert refused.repeats_turn is not None
    stats: Counter[str] = Counter()
    if data.draw(st.booleans(), label="at the repeated turn"):
        check_keil_cut(game, refused.repeats_turn, rng, stats)
        # The refusal repeats the setup position, unless a turn before it only
        # repeated older history, legal from the setup: the games part there.
        seen = stats["a repeat of the setup position is refused"]
        assert seen + stats["a repeat of the history before the cut is legal"]
    else:
        after = [k for k in game.cuts() if refused.repeats_turn < k <= refused.before]
        check_keil_cut(game, data.draw(st.sampled_from(after), label="cut"), rng, stats)
        assert stats["a repeat of the history before the cut is legal"]
    for key in stats:
        event(key)


def test_keil_fixed_sample_reaches_both_superko_differences_and_their_records() -> None:
    """The drivers really reach what the properties are about: a repeat of
    the history before the cut, by either player, allowed; a repeat of the
    setup position refused (engine, reference and record); the player who
    moved first recreating the setup position."""
    stats: Counter[str] = Counter()
    for seed in range(8):
        rng = random.Random(seed)
        # Size 2 makes long superko cycles, size 3 kos.
        game = keil_whole_game(rng, 2 + seed % 2, RK.RULE_SETS[seed // 2 % 2], seed % 3, True, max_turns=400)
        for refused in superko_refusals(game)[:3]:
            assert refused.repeats_turn is not None
            check_keil_cut(game, refused.repeats_turn, rng, stats)
            # Every cut after the repeated turn: the refused turn is the first
            # player's or the other player's, as the cut falls.
            after = [c for c in game.cuts() if refused.repeats_turn < c <= refused.before]
            for k in after[:2] + after[2:][-2:]:
                check_keil_cut(game, k, rng, stats)
        for k, s in first_player_recreations(game)[:3]:
            check_keil_cut(game, k, rng, stats)
    assert stats["a repeat of the setup position is refused"] >= 5, stats
    assert stats["record refuses a repeat of the setup position"] >= 1, stats
    assert stats["... by the player who moved first"] >= 5, stats
    assert stats["... by the other player"] >= 1, stats
    assert stats["the first player recreates the setup position"] >= 1, stats


def first_player_recreations(game: WholeGame) -> list[tuple[int, int]]:
    """``(k, s)``: placement ``s`` leaves the position the opponent left at turn ``k``."""
    def position(k: int) -> tuple[tuple[tuple[str, Any], ...], bool]:
        return tuple(sorted(game.snapshots[k].board.items())), game.snapshots[k].holder is not None

    out = []
    for s in range(2, len(game.snapshots)):
        if game.snapshots[s].last in ("pass", "button"):
            continue
        for k in range(1, s):
            if (s - k) % 2 and position(k) == position(s) and k in game.cuts():
                out.append((k, s))
    return out


# --- hand-made: a ko from a setup, under both wordings -------------------------------------
#
# Side 3. White's a1 sits in the corner beside Black's a2; its only other
# neighbours are b1 and b2. Black's b1 takes it: a1 and b2 are linked only
# through a wing that is empty or White (keil), or not Black (keil-2019), and
# both wings, b1 and a2, are Black. White's a1 takes b1 back the same way: b1's
# empty neighbours b2 and c1 are linked to it through the wings a1 and c2 (for
# b2) and c2 (for c1), all White. So the two captures make a ko.
KO = "B: a2 e5 W: a1 c2"
KO_TAKEN = "B: a2 b1 e5 W: c2"
"""``KO`` after Black's b1."""
KO_WHOLE_GAME = "1. a2 c2 2. e5 a1 3. b1 a1"
"""A game reaching ``KO`` at turn 4, whose turn 6 repeats it."""

KEIL_CASES = [
    pytest.param(rules, button, holder, id=f"{rules}-button-{'no' if not button else PLAYER.get(holder, 'free')}")
    for rules in RK.RULE_SETS
    for button in ((True, False) if rules == "keil-2019" else (True,))
    for holder in ((None, RK.BLACK, RK.WHITE) if button else (None,))
]


def keil_pair(setup: str, rules: str, button: bool, holder: int | None, to_move: int) -> tuple[KeilGame, RK.RefKeil]:
    start = Snapshot(setup_board(setup), to_move, holder, None)
    return keil_from_setup(WholeGame(rules, 3, 0, button), start, setup)


def setup_board(setup: str) -> dict[str, int]:
    board = dict.fromkeys(RK.board_points(3), RK.EMPTY)
    black, white = setup.removeprefix("B:").split("W:")
    board.update(dict.fromkeys(black.split(), RK.BLACK) | dict.fromkeys(white.split(), RK.WHITE))
    return board


def check_record(setup: str, rules: str, button: bool, holder: int | None, to_move: int, moves: str) -> Verdict:
    game = WholeGame(rules, 3, 0, button)
    text = record_text(game, setup, Snapshot({}, to_move, holder, None), moves.split(), "*", random.Random(0))
    return check_both_ways(text)


@pytest.mark.parametrize(("rules", "button", "holder"), KEIL_CASES)
def test_the_player_who_did_not_move_first_may_not_retake_a_ko_from_the_setup(
    rules: str, button: bool, holder: int | None
) -> None:
    for setup, to_move, first, retake in ((KO, RK.BLACK, "b1", "a1"), (KO_TAKEN, RK.WHITE, "a1", "b1")):
        eng, ref = keil_pair(setup, rules, button, holder, to_move)
        assert TK.step(eng, ref, first).captured == {retake}
        assert retake not in eng.legal_moves()
        TK.assert_same_legal_moves(eng, ref)
        verdict = TK.step(eng, ref, retake)
        assert (verdict.reason, verdict.repeats_turn) == (RK.SUPERKO, 0)
        refused = check_record(setup, rules, button, holder, to_move, f"{first} {retake}")
        assert refused.status is Status.ILLEGAL
        assert refused.illegal is not None
        assert (refused.illegal.turn, refused.illegal.point, refused.illegal.reason) == (2, retake, "superko")
        assert refused.illegal.repeats_turn == 0
        assert refused.illegal.white_first is (to_move == RK.WHITE)
        # Taken back to the setup and played again, the game still knows turn 0.
        eng.pop()
        assert eng.turn == 0 and eng.check(first) is None
        eng.play(first)
        refusal = eng.check(retake)
        assert refusal is not None and (refusal.reason.value, refusal.repeats_turn) == (RK.SUPERKO, 0)


@pytest.mark.parametrize("rules", RK.RULE_SETS)
def test_a_variation_from_the_setup_may_not_recreate_it_either(rules: str) -> None:
    """A variation's history is the main line's up to its branch: from a
    setup, that starts with turn 0."""
    head = f'[Rules "{rules}"]\n[Size "3"]\n[Komi "0"]\n[Setup "{KO}"]\n'
    for moves in ("1. b1 c3 (1... a1) *", "1. e4 (1. b1 a1) 1... c3 *"):
        verdict = check_both_ways(f"{head}\n{moves}\n")
        assert verdict.status is Status.UNFINISHED, moves
        (fault,) = verdict.variation_illegal
        assert (fault.turn, fault.point, fault.reason, fault.repeats_turn) == (2, "a1", "superko", 0), moves


@pytest.mark.parametrize(("rules", "button", "holder"), KEIL_CASES)
def test_a_ko_taken_before_the_setup_may_be_retaken_at_once(rules: str, button: bool, holder: int | None) -> None:
    head = f'[Rules "{rules}"]\n[Size "3"]\n[Komi "0"]\n[Button "{"yes" if button else "no"}"]\n'
    (whole,) = check_text(f"{head}\n{KO_WHOLE_GAME} *\n")
    assert whole.status is Status.ILLEGAL and whole.illegal is not None
    assert (whole.illegal.turn, whole.illegal.reason, whole.illegal.repeats_turn) == (6, "superko", 4)
    # The position after turn 5, White to move: the ko Black took is unknown history.
    eng, ref = keil_pair(KO_TAKEN, rules, button, holder, RK.WHITE)
    verdict = TK.step(eng, ref, "a1")
    assert (verdict.reason, verdict.captured) == (None, frozenset({"b1"}))
    assert ref.board == setup_board(KO)
    cut = check_record(KO_TAKEN, rules, button, holder, RK.WHITE, "a1")
    assert cut.status is Status.UNFINISHED and cut.turns == 1


@pytest.mark.parametrize(("rules", "button", "holder"), KEIL_CASES)
def test_the_player_who_moves_first_may_recreate_the_setup_position(
    rules: str, button: bool, holder: int | None
) -> None:
    """Black's b3 is taken with a3 by White's a2, which Black's a3 takes back:
    the setup position again, at the end of a turn of the player who moved
    first (and who had not left it before)."""
    setup = "B: a3 b2 W: b4 c3"
    eng, ref = keil_pair(setup, rules, button, holder, RK.BLACK)
    for move, captured in (("b3", set()), ("a2", {"a3", "b3"}), ("a3", {"a2"})):
        verdict = TK.step(eng, ref, move)
        assert (verdict.reason, verdict.captured) == (None, captured)
    assert ref.board == setup_board(setup)
    assert check_record(setup, rules, button, holder, RK.BLACK, "b3 a2 a3").status is Status.UNFINISHED


# --- yugo and dehil: no repetition rule, so the cut changes nothing --------------------------


def replay_plain_tail(
    game: WholeGame,
    k: int,
    eng: Any,
    ref: Any,
    step: Callable[[Any, Any, str], Any],
    captured: Callable[[Any], frozenset[str]],
    stats: Counter[str],
) -> Tail:
    """The turns after the cut, from the setup: the whole game's decisions, captures, end and score."""
    tail = Tail()
    for tried in game.tried:
        if tried.before < k:
            continue
        verdict = step(eng, ref, tried.move)  # the engine from the setup agrees with the reference from it
        assert verdict.reason == tried.reason, tried
        assert captured(verdict) == tried.captured, tried
        if verdict.reason is None:
            tail.played.append(tried.move)
            assert ref.board == game.snapshots[tried.before + 1].board
        else:
            tail.refused.append((len(tail.played), tried.move))
            stats[f"refused from the setup: {verdict.reason}"] += 1
    assert ref.is_over == game.is_over
    assert ref.score()[:2] == game.score
    stats["cut game over" if ref.is_over else "cut game unfinished"] += 1
    assert_pop_replays(eng)
    return tail


def yugo_snapshot(ref: RY.RefYugo, last: str | None) -> Snapshot:
    return Snapshot(dict(ref.board), ref.to_move, ref.holder, last)


def yugo_whole_game(rng: random.Random, size: int, komi: int, max_turns: int) -> WholeGame:
    """A random game (the driver of ``test_reference_yugo``), every turn tried kept;
    it ends at its first stop half the time, else play resumes."""
    eng, ref = TY.new_pair(size, komi)
    game = WholeGame("yugo", size, komi, True, snapshots=[yugo_snapshot(ref, None)])

    def attempt(move: str) -> RY.Verdict:
        before = ref.turn
        verdict = TY.step(eng, ref, move)
        game.tried.append(Tried(move, before, verdict.reason, None, verdict.stripped))
        if verdict.reason is None:
            game.snapshots.append(yugo_snapshot(ref, ref.history[-1]))
            if ref.stopped and game.no_cut_from is None:
                game.no_cut_from = ref.turn
        return verdict

    while not ref.ended and ref.turn < max_turns:
        if ref.stopped and rng.random() < 0.5:
            break
        button_available = ref.holder is None
        if button_available and rng.random() < 0.06:
            attempt("button")
            continue
        roll = rng.random()
        if roll < 0.03 and ref.occupied_points():
            attempt(rng.choice(["", "K@"]) + rng.choice(ref.occupied_points()))
        elif roll < 0.04:
            attempt(rng.choice(TY.off_board_names(size)))
        elif roll < 0.05:
            attempt("pass" if button_available else "button")
        elif roll < 0.15 and not button_available:
            attempt("pass")
            continue
        kings = ["K@" + p for p in ref.last_liberties()]
        pawns = ref.empty_points()
        rng.shuffle(kings)
        rng.shuffle(pawns)
        for move in kings + pawns if rng.random() < 0.33 else pawns + kings:
            if attempt(move).reason is None:
                break
        else:
            attempt("button" if button_available else "pass")
    if ref.ended:
        attempt("pass")
    black, white, _ = ref.score()
    game.score, game.is_over = (black, white), ref.is_over
    return game


def yugo_from_setup(game: WholeGame, start: Snapshot, setup: str) -> tuple[YugoGame, RY.RefYugo]:
    eng = Game.from_position(
        setup,
        size=game.size,
        komi=game.komi,
        rules="yugo",
        to_move=COLOR[start.to_move],
        button_taken="no" if start.holder is None else COLOR[start.holder],
    )
    assert isinstance(eng, YugoGame)
    ref = RY.RefYugo(game.size, int(game.komi), board=start.board, to_move=start.to_move, holder=start.holder)
    TY.assert_same_state(eng, ref)
    TY.assert_same_analysis(eng, ref)
    return eng, ref


def check_yugo_cut(game: WholeGame, k: int, rng: random.Random, stats: Counter[str]) -> None:
    start = game.snapshots[k]
    setup = setup_text(rng, start.board)
    stats["kings in the setup" if "K@" in setup else "no king in the setup"] += 1
    stats[button_state(game, start)] += 1
    stats[f"{PLAYER[start.to_move]} moves first"] += 1
    eng, ref = yugo_from_setup(game, start, setup)
    tail = replay_plain_tail(game, k, eng, ref, TY.step, lambda v: v.stripped, stats)
    TY.assert_same_end(eng, ref)
    if ref.resumed:
        stats["play stopped and resumed after the cut"] += 1
    assert_record_agrees(game, start, setup, record_tokens(tail, rng), yugo_from_setup, rng, stats)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 5), komi=st.integers(-2, 7), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_yugo_cut_games_match_the_whole_game(size: int, komi: int, seed: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    game = yugo_whole_game(rng, size, komi, max_turns=rng.choice([20, 60, 300]))
    stats: Counter[str] = Counter()
    check_yugo_cut(game, data.draw(st.sampled_from(game.cuts()), label="cut"), rng, stats)
    for key in stats:
        event(key)


def dehil_snapshot(ref: RD.RefDehil, last: str | None) -> Snapshot:
    return Snapshot(dict(ref.board), ref.to_move, ref.first_pass, last)


def dehil_whole_game(rng: random.Random, size: int, komi: int, max_turns: int, crowd: bool) -> WholeGame:
    """A random game (the driver of ``test_reference_dehil``), every turn tried kept."""
    eng, ref = TD.new_pair(size, komi)
    game = WholeGame("dehil", size, komi, False, snapshots=[dehil_snapshot(ref, None)])
    nbrs = RD.board_neighbours(size)

    def attempt(move: str) -> RD.Verdict:
        before = ref.turn
        verdict = TD.step(eng, ref, move)
        assert verdict is not None
        game.tried.append(Tried(move, before, verdict.reason))
        if verdict.reason is None:
            game.snapshots.append(dehil_snapshot(ref, move))
        return verdict

    while not ref.is_over and ref.turn < max_turns:
        roll = rng.random()
        if roll < 0.04:
            attempt("pass")
            continue
        if roll < 0.06 and ref.occupied_points():
            attempt(rng.choice(ref.occupied_points()))
        elif roll < 0.07:
            attempt(rng.choice(TD.off_board_names(size)))
        candidates = ref.empty_points()
        rng.shuffle(candidates)
        if crowd:  # next to the mover's stones: triangles, and so refusals
            candidates.sort(key=lambda p: -sum(ref.board[q] == ref.to_move for q in nbrs[p]) + 2 * rng.random())
        for point in candidates:
            if attempt(point).reason is None:
                break
        else:
            attempt("pass")
    if ref.is_over:
        attempt("pass")
    black, white, _ = ref.score()
    game.score, game.is_over = (black, white), ref.is_over
    return game


def dehil_from_setup(game: WholeGame, start: Snapshot, setup: str) -> tuple[DehilGame, RD.RefDehil]:
    eng = Game.from_position(
        setup,
        size=game.size,
        komi=game.komi,
        rules="dehil",
        to_move=COLOR[start.to_move],
        first_pass="no" if start.holder is None else COLOR[start.holder],
    )
    assert isinstance(eng, DehilGame)
    ref = RD.RefDehil(game.size, int(game.komi), board=start.board, to_move=start.to_move, first_pass=start.holder)
    TD.assert_same_state(eng, ref)
    TD.assert_same_analysis(eng, ref)
    return eng, ref


def check_dehil_cut(game: WholeGame, k: int, rng: random.Random, stats: Counter[str]) -> None:
    start = game.snapshots[k]
    setup = setup_text(rng, start.board)
    stats["first pass before the setup" if start.holder else "no pass before the setup"] += 1
    stats[f"{PLAYER[start.to_move]} moves first"] += 1
    eng, ref = dehil_from_setup(game, start, setup)
    replay = replay_plain_tail(game, k, eng, ref, TD.step, lambda v: frozenset(), stats)
    TD.assert_same_analysis(eng, ref)
    TD.assert_same_legal_moves(eng, ref)
    assert_record_agrees(game, start, setup, record_tokens(replay, rng), dehil_from_setup, rng, stats)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(2, 5), komi=st.integers(-3, 6), crowd=st.booleans(), seed=st.integers(0, 2**32 - 1), data=st.data()
)
def test_dehil_cut_games_match_the_whole_game(
    size: int, komi: int, crowd: bool, seed: int, data: st.DataObject
) -> None:
    rng = random.Random(seed)
    game = dehil_whole_game(rng, size, komi, max_turns=rng.choice([20, 60, 300]), crowd=crowd)
    stats: Counter[str] = Counter()
    check_dehil_cut(game, data.draw(st.sampled_from(game.cuts()), label="cut"), rng, stats)
    for key in stats:
        event(key)


def test_yugo_and_dehil_fixed_samples_reach_every_kind_of_setup() -> None:
    """Kings and every button state in Yugo setups, a first pass before a Dehil
    setup, White moving first, and records of every status."""
    stats: Counter[str] = Counter()
    for seed in range(6):
        rng = random.Random(seed)
        max_turns = 300 if seed % 2 else 25  # to the end, or unfinished
        game = yugo_whole_game(rng, 3 + seed % 3, seed % 4, max_turns=max_turns)
        for k in rng.sample(game.cuts(), min(4, len(game.cuts()))):
            check_yugo_cut(game, k, rng, stats)
        game = dehil_whole_game(rng, 3 + seed % 3, seed % 4 - 1, max_turns=max_turns, crowd=seed // 2 % 2 == 1)
        for k in [k for k in game.cuts() if game.snapshots[k].holder][:2] + rng.sample(game.cuts(), 2):
            check_dehil_cut(game, k, rng, stats)
    for key in ("kings in the setup", "button free", "button taken by Black", "button taken by White"):
        assert stats[key] >= 2, (key, stats)
    for key in ("first pass before the setup", "White moves first", "Black moves first"):
        assert stats[key] >= 2, (key, stats)
    for key in ("cut game over", "cut game unfinished"):
        assert stats[key] >= 2, (key, stats)
    for status in Status:
        if status is not Status.ERROR:
            assert stats[f"record {status.value}"] >= 2, (status, stats)


@pytest.mark.parametrize(("first_pass", "to_move", "result"), [
    (None, RK.BLACK, "B+0.5"),
    (None, RK.WHITE, "W+0.5"),
    (RK.WHITE, RK.BLACK, "W+0.5"),
    (RK.BLACK, RK.WHITE, "B+0.5"),
])
def test_dehil_first_pass_gives_the_half_point(first_pass: int | None, to_move: int, result: str) -> None:
    """An empty setup ended by two passes: the half point goes to the player
    ``FirstPass`` names, else to the first to pass after the setup."""
    game = WholeGame("dehil", 3, 0, False)
    start = Snapshot(dict.fromkeys(RD.board_points(3), RD.EMPTY), to_move, first_pass, None)
    eng, ref = dehil_from_setup(game, start, "B: W:")
    for _ in range(2):
        TD.step(eng, ref, "pass")
    assert ref.is_over and str(eng.score().result) == result
    TD.assert_same_analysis(eng, ref)
    text = record_text(game, "B: W:", start, ["pass", "pass"], result, random.Random(0))
    verdict = check_both_ways(text)
    assert (verdict.status, verdict.computed) == (Status.OK, result), text


@pytest.mark.parametrize("holder", [RY.BLACK, RY.WHITE])
def test_a_surrounded_yugo_king_in_the_setup_scores_for_the_opponent(holder: int) -> None:
    """Black's lone king in the corner, surrounded by White's pawns: it scores
    for White (an enemy king in a surrounded group), with White's two pawns
    and the one point of territory, plus the button's half point."""
    game = WholeGame("yugo", 2, 0, True)
    board: dict[str, Any] = dict.fromkeys(RY.board_points(2))
    board |= {"a1": (RY.BLACK, RY.KING), "a2": (RY.WHITE, RY.PAWN), "b1": (RY.WHITE, RY.PAWN)}
    start = Snapshot(board, RY.BLACK, holder, None)
    eng, ref = yugo_from_setup(game, start, "B: K@a1 W: a2 b1")
    assert (eng.score().black, eng.score().white) == (0.5 * (holder == RY.BLACK), 4 + 0.5 * (holder == RY.WHITE))
    for move in ("pass", "pass"):
        TY.step(eng, ref, move)
    assert ref.is_over and not ref.ended
    TY.assert_same_end(eng, ref)
    text = record_text(game, "B: K@a1 W: a2 b1", start, ["pass", "pass"], str(eng.score().result), random.Random(0))
    verdict = check_both_ways(text)
    assert (verdict.status, verdict.computed) == (Status.OK, "W+3.5" if holder == RY.BLACK else "W+4.5"), text


# --- which positions a game may start from, as the references read the format ----------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 4), rules=st.sampled_from(RK.RULE_SETS), data=st.data())
def test_a_keil_setup_is_refused_exactly_when_a_group_has_no_liberty(
    size: int, rules: str, data: st.DataObject
) -> None:
    points = sorted(RK.board_points(size))
    cells = data.draw(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=len(points), max_size=len(points)))
    board = dict(zip(points, cells))
    ref = RK.RefKeil(size, rules=rules, board=board, setup=True)
    breathless = [stones for _, stones, libs in ref.groups() if not libs]
    event("a group without a liberty" if breathless else "every group breathes")
    try:
        eng = Game.from_position(setup_text(random.Random(0), board), size=size, rules=rules)
    except PositionError as error:
        assert breathless, error.message
        assert any(all(p in error.message for p in stones) for stones in breathless), error.message
    else:
        assert not breathless
        assert isinstance(eng, KeilGame)
        TK.assert_same_state(eng, ref)
        TK.assert_same_analysis(eng, ref)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=TY.positions())
def test_a_yugo_setup_is_refused_exactly_when_a_surrounded_group_holds_a_pawn(
    position: tuple[int, dict[str, RY.Piece | None]],
) -> None:
    size, board = position
    ref = RY.RefYugo(size, board=board)
    bad = [pts for c, pts, libs in ref.groups() if not libs and any(board[p] == (c, RY.PAWN) for p in pts)]
    event("a surrounded group with a pawn" if bad else "no surrounded pawn")
    try:
        eng = Game.from_position(setup_text(random.Random(0), board), size=size, rules="yugo")
    except PositionError as error:
        assert bad, error.message
        assert any(all(p in error.message for p in pts) for pts in bad), error.message
    else:
        assert not bad
        assert isinstance(eng, YugoGame)
        TY.assert_same_state(eng, ref)
        TY.assert_same_analysis(eng, ref)
