"""A record as a notebook shows it: its tags, its verdict, and a board to step through.

The verdict is the referee's (:func:`~keilref.referee.verdict.adjudicate`)
and is said in the words every other format uses
(:func:`~keilref.wording.verdict_message`); the positions are drawn by
:func:`~keilref.formats.svg.board`. Nothing here decides or words a verdict.

The page is one self-contained piece of HTML: every position is embedded
as an SVG in a hidden ``<div>`` and a small inline script shows one at a
time. Without the script (an untrusted notebook, a static export) the
buttons stay hidden and the last position stands alone: the final board,
or the board before an illegal turn with its point crossed out. Nothing is
fetched, so the output works offline and can be trusted by reading it.
"""

from __future__ import annotations

import html
import json
import uuid

from keilref import wording
from keilref.escaping import in_script, one_line
from keilref.formats.svg import board
from keilref.records.record import Record
from keilref.referee.replay import replay
from keilref.referee.settings import read_setup
from keilref.referee.verdict import Status, Verdict, adjudicate

STEP_CAP = 400
"""Positions embedded for stepping through. A longer game shows its last
position only: each board is several kilobytes, and a notebook keeps every
output it shows."""
BOARD_PX = 320
"""The width of each board, as :func:`~keilref.formats.svg.game_html` draws a game."""

_SVG_NAMESPACE = ' xmlns="http://www.w3.org/2000/svg"'


def _esc(text: object) -> str:
    # One line each, as the HTML report writes user text: a tag's control
    # characters show as escapes instead of breaking the table.
    return html.escape(one_line(str(text)), quote=True)


def record_html(record: Record) -> str:
    """The record as a notebook shows it: tags, verdict, and its positions to step through.

    A record the referee cannot replay (an ``error`` verdict) shows its tags
    and verdict alone. Each call gives its root element a new id, so two
    renders in one notebook never drive each other's boards.
    """
    verdict = adjudicate(record, file="<record>", game=1)
    root = f"keilref-record-{uuid.uuid4().hex}"
    parts = [f'<div class="keilref-record" id="{root}">', _tags(record), _verdict(verdict)]
    if verdict.status is not Status.ERROR:
        parts.append(_stepper(record, verdict, root))
    parts.append("</div>")
    return "".join(parts)


def _tags(record: Record) -> str:
    rows = "".join(f"<tr><th>{_esc(t.name)}</th><td>{_esc(t.value)}</td></tr>" for t in record.tags)
    return f'<table class="keilref-tags">{rows}</table>'


def _verdict(v: Verdict) -> str:
    # The status, then what the text line says after it: the same words as `keilref check`.
    status = v.status.value
    out = (
        f'<p class="keilref-verdict"><strong class="status s-{status}">{status}</strong>: '
        f"{_esc(wording.verdict_message(v))}</p>"
    )
    if v.warnings:
        items = "".join(f"<li>warning: {_esc(w)}</li>" for w in v.warnings)
        out += f'<ul class="keilref-warnings">{items}</ul>'
    return out


def _board(svg_text: str) -> str:
    # Inline in HTML the parser gives <svg> its namespace itself; without the
    # attribute the output holds no URL at all, and each board is shorter.
    return svg_text.replace(_SVG_NAMESPACE, "", 1)


def _positions(record: Record, v: Verdict, *, every: bool) -> list[str]:
    """The board after each legal turn from the empty board on, or (not
    ``every``) the last alone.

    The replay is the referee's, as the verdict's was: the last position is
    its game (a Yugo removal agreement applied), or the one before the
    illegal turn, with the turn's point marked.
    """
    setup = read_setup(record)
    final = replay(record, setup=setup).game
    last = board(final, size=BOARD_PX, illegal=v.illegal)
    if not every:
        return [last]
    game = replay(record, setup=setup, stop=0).game
    out = []
    # Every one of these turns was played by the replay above: none raises.
    for move in final.moves:
        out.append(board(game, size=BOARD_PX))
        game.play(move)
    out.append(last)
    return out


def _stepper(record: Record, v: Verdict, root: str) -> str:
    stepping = v.turns + 1 <= STEP_CAP
    frames = _positions(record, v, every=stepping)
    last = len(frames) - 1
    boards = "".join(
        f'<div class="keilref-position"{"" if i == last else " hidden"}>{_board(svg)}</div>'
        for i, svg in enumerate(frames)
    )
    if not stepping:
        return boards + f'<p class="keilref-note">{_esc(wording.steps_stop(v.turns, STEP_CAP))}</p>'
    if not last:
        return boards  # no turn played: nothing to step through
    # Hidden until the script runs: without it the buttons would do nothing.
    controls = (
        '<div class="keilref-steps" hidden>'
        '<button type="button" data-step="first" aria-label="first position">|◀</button>'
        '<button type="button" data-step="previous" aria-label="previous turn">◀</button>'
        f' <span class="keilref-counter">turn <span class="keilref-at">{last}</span> of {last}</span> '
        '<button type="button" data-step="next" aria-label="next turn">▶</button>'
        '<button type="button" data-step="last" aria-label="last position">▶|</button>'
        "</div>"
    )
    return controls + boards + f"<script>{_SCRIPT.replace('ROOT_ID', in_script(json.dumps(root)))}</script>"


_SCRIPT = """(function () {
  var root = document.getElementById(ROOT_ID);
  if (!root) { return; }
  var frames = root.querySelectorAll(".keilref-position");
  var counter = root.querySelector(".keilref-at");
  var last = frames.length - 1, shown = last;
  var target = {
    first: function () { return 0; },
    previous: function () { return shown - 1; },
    next: function () { return shown + 1; },
    last: function () { return last; }
  };
  function show(i) {
    i = Math.max(0, Math.min(last, i));
    frames[shown].hidden = true;
    frames[i].hidden = false;
    shown = i;
    counter.textContent = String(i);
  }
  root.querySelectorAll("button[data-step]").forEach(function (button) {
    button.addEventListener("click", function () { show(target[button.dataset.step]()); });
  });
  root.querySelector(".keilref-steps").hidden = false;
})();"""
"""Steps through the positions of one render, found through its root's id alone."""
