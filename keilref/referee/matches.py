"""The abstract_games server's matches beside the referee: its word on a
verdict, and a Keil game written back as its move list.

Reading a match is the records stage's (:mod:`keilref.records.abstract_games`);
what needs a game's settings or a verdict lives here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from keilref import wording
from keilref.errors import TagError
from keilref.records.abstract_games import SITE, Match, cell_of
from keilref.records.record import Record
from keilref.records.tags import GAME_ID_TAG, KOMI_BY_TAG, POSITION_TAGS
from keilref.referee.settings import read_setup
from keilref.referee.verdict import Status, Verdict
from keilref.values import Result, ResultKind, format_number

__all__ = ["amend", "export_moves"]


def amend(verdict: Verdict, match: Match) -> Verdict:
    """A verdict on ``match.record`` with what the server said beside it: its
    warnings, and, for a match it ended at its move limit, why the game did
    not end under the rules."""
    changes: dict[str, Any] = {}
    if match.warnings:
        changes["warnings"] = verdict.warnings + tuple(w[0] for w in match.warnings)
        changes["warnings_at"] = verdict.warnings_at + tuple((w[1], w[2]) for w in match.warnings)
    if match.stopped_at_limit is not None and verdict.status is Status.MISMATCH and verdict.detail is not None:
        changes["detail"] = (
            f"{verdict.detail}: the server ended it at its move limit of {match.stopped_at_limit} plies "
            "(3 × points + 4), without two passes"
        )
    return replace(verdict, **changes) if changes else verdict


def export_moves(record: Record) -> dict[str, Any]:
    """The raw move list (the server's stored rows) for a Keil record.

    Seat 0 names the komi: the player ``KomiBy`` names, or Black when the
    record has no ``KomiBy`` (seat 1 then answers ``white``). Player names
    come from ``Black`` and ``White`` (``?`` when absent). A decided result
    finishes the match with its winner's seat (none for a draw); ``*`` or
    none leaves it active. Raises ``ValueError`` for a record the server
    cannot hold: another rule set, a komi that is not whole; and
    :class:`~keilref.TagError`, at its first tag of a position, for a game
    that starts from one (the server's games start from the empty board).
    """
    # The Setup tag when there is one: the tag that most plainly says so.
    position = next((tag for tag in map(record.tag, POSITION_TAGS) if tag is not None), None)
    if position is not None:
        raise TagError(wording.export_from_position(position.name), position.line, position.column)
    setup = read_setup(record)
    if setup.rules != "keil":
        raise ValueError(f"the server plays Keil under rules 'keil'; this game is under {setup.rules!r}")
    if setup.komi != int(setup.komi):
        raise ValueError(f"the server's komi is a whole number; this game's is {format_number(setup.komi)}")
    komi_by = record.tag_value(KOMI_BY_TAG) or "Black"
    if komi_by not in ("Black", "White"):
        raise ValueError(f'KomiBy "{komi_by}" is neither Black nor White')
    black, white = (record.tag_value(name) or "?" for name in ("Black", "White"))
    swap = komi_by == "White"
    seats = [white, black] if swap else [black, white]
    black_seat = 1 if swap else 0
    raw = [f"komi={int(setup.komi)}", "black" if swap else "white"]
    for move in record.moves:
        raw.append(move if move in ("pass", "button") else cell_of(move, setup.size))
    result = Result.parse(setup.declared) if setup.declared is not None else Result(ResultKind.UNKNOWN)
    status, winner = "finished", None
    if result.kind is ResultKind.UNKNOWN:
        status = "active"
    elif result.winner is not None:
        winner = black_seat if result.winner.letter == "B" else 1 - black_seat
    out: dict[str, Any] = {}
    game_id = record.tag_value(GAME_ID_TAG)
    if game_id is not None and record.tag_value("Site") == SITE:
        out["id"] = game_id
    out.update(
        game_uid="keil",
        options={"size": setup.size},
        players=[{"type": "bot" if name == "Computer" else "user", "name": name} for name in seats],
        status=status,
        winner=winner,
        moves=[
            {"ply": ply, "seat": ply if ply < 2 else (black_seat if ply % 2 == 0 else 1 - black_seat), "move": move}
            for ply, move in enumerate(raw)
        ],
    )
    return out
