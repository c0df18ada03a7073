"""From a record's tags to the settings of the game it records.

The parser only checks that tags are well formed; what their values mean
depends on the rule set, so it is checked here, through
:func:`~keilref.engine.rules.find_rules` and the :class:`~keilref.engine.rules.RuleSet`
it returns. No rule set is named here except ``keil``, the format's default:
a new family is checked by whatever limits it registers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from keilref import wording
from keilref.values import Result, format_number, meant_result
from keilref.escaping import code_point
from keilref.errors import ConfigError, PositionError, RecordError, TagError
from keilref.engine.game import Game, new_game, position_tag_refusal
from keilref.engine.geometry import split_points
from keilref.records.record import Record, Tag
from keilref.records.setup import BUTTON_TAKEN_TAG, FIRST_PASS_TAG, SETUP_TAG, StartPosition, read_position
from keilref.records.tagnames import Misspelling, misspelt_tags
from keilref.records.tags import SETTING_TAGS, Role, names_with
from keilref.engine.rules import KOMI_LIMIT, KOMI_RE, ButtonRule, RuleSet, all_rules, find_rules

__all__ = ["DEFAULT_RULES", "GameSetup", "read_setup"]

DEFAULT_RULES = "keil"
"""The rule set of a record without a ``Rules`` tag."""

JUDGED_TAGS = tuple(name for name in names_with(Role.SETTING, Role.RESULT) if name != "Rules")
"""The tags judged by the rule set, in file order; ``Rules`` is read before them, since it names that rule set."""

_BUTTON_WORDS = {"yes": True, "no": False}
_POINT = re.compile(r"[A-Za-z][0-9]{1,3}\Z")


@dataclass(frozen=True)
class GameSetup:
    """The settings a record's game is replayed with."""

    rules: str
    size: int
    komi: float
    button: bool
    """Whether the button is in play (always false for rules without one)."""
    declared: str | None
    """The declared result: the result token if any, else the ``Result`` tag."""
    warnings: tuple[str, ...]
    """One line per setting taken by default (or overridden)."""
    removed: tuple[str, ...] | None = None
    """The points of a ``Removed`` agreement (Yugo), or ``None`` without one."""
    removed_at: tuple[int, int] = (0, 0)
    """Line and column of the ``Removed`` tag, for errors found in replay."""
    warnings_at: tuple[tuple[int, int], ...] = ()
    """Line and column each warning points at, in the order of ``warnings``;
    ``(0, 0)`` for one about the whole game (a tag that is missing)."""
    start: Game | None = field(default=None, compare=False)
    """The game before its first turn when the record starts from a position
    (version 3 of the format), checked; ``None`` for the empty board."""

    @property
    def position(self) -> StartPosition | None:
        """The position the game starts from, or ``None`` for the empty board."""
        return None if self.start is None else self.start.start_position


def start_game(setup: GameSetup) -> Game:
    """A new game with ``setup``'s settings, before its first turn: on the
    empty board, or from the record's position. Every replay starts here."""
    if setup.start is not None:
        return setup.start.copy()
    button = None if find_rules(setup.rules).button is ButtonRule.ABSENT else setup.button
    return new_game(setup.rules, setup.size, setup.komi, button)


def read_setup(record: Record, *, rules: str | None = None) -> GameSetup:
    """Check the setting tags of ``record`` and resolve the defaults.

    ``rules`` (for example from the command line) overrides the ``Rules``
    tag within the game's own family (``keil`` for ``keil-2019``): a game
    whose tag names a rule set of another family is judged under its own
    rules, with a warning that the override did not apply. A game with no
    ``Rules`` tag, or one naming no known rule set, takes the override. A bad value raises :class:`~keilref.errors.TagError` at its tag; an
    unknown ``rules`` argument raises :class:`~keilref.errors.ConfigError`.
    When several tags are bad, the first in the file is reported (``Rules``
    before all, since the others are judged by it).
    """
    warnings: list[str] = []
    places: list[tuple[int, int]] = []
    typos = misspelt_tags(record)
    for typo in typos:
        warnings.append(typo.message)
        places.append((typo.line, typo.column))
    ruleset = _rules(record, rules, warnings, places)
    size, komi, button = ruleset.default_size, 0.0, ruleset.check_button(None)
    removed: tuple[str, ...] | None = None
    judged = [t for t in (record.tag(n) for n in JUDGED_TAGS) if t is not None]
    for tag in sorted(judged, key=lambda t: (t.line, t.column)):
        if tag.name == "Removed":
            removed = _removed(tag, ruleset)
        elif tag.name == "Size":
            size = _size(tag, ruleset)
        elif tag.name == "Komi":
            komi = _komi(tag, ruleset)
        elif tag.name == "Button":
            button = _button(tag, ruleset)
        elif tag.name == "Result":
            _result_tag(tag, record)
    used = {
        "Rules": ruleset.name,
        "Size": str(size),
        "Komi": format_number(komi),
        "Button": "yes" if button else "no",
        "Removed": " ".join(removed or ()) or "none",
    }
    for typo in typos:
        _misspelt_setting(record, typo, ruleset, used)
    if record.tag("Size") is None:
        warnings.append(wording.missing_tag("Size", size))
    if record.tag("Komi") is None:
        warnings.append(wording.missing_tag("Komi", 0))
    if record.tag("Button") is None and ruleset.button is not ButtonRule.ABSENT:
        warnings.append(wording.missing_tag("Button", "yes"))
    declared = record.result if record.result is not None else record.tag_value("Result")
    removed_tag = record.tag("Removed")
    at = (0, 0) if removed_tag is None else (removed_tag.line, removed_tag.column)
    places += [(0, 0)] * (len(warnings) - len(places))
    start = _start(record, ruleset, size, komi, button)
    return GameSetup(ruleset.name, size, komi, button, declared, tuple(warnings), removed, at, tuple(places), start)


def _start(record: Record, ruleset: RuleSet, size: int, komi: float, button: bool) -> Game | None:
    """The game set up from the record's position, or ``None`` without one.
    A fault raises :class:`~keilref.errors.TagError` at the point it names, or
    else at the tag it concerns."""
    for name in (BUTTON_TAKEN_TAG, FIRST_PASS_TAG):
        tag = record.tag(name)
        refusal = None if tag is None else position_tag_refusal(ruleset, name)
        if tag is not None and refusal is not None:
            raise _error(tag, refusal)  # whatever it says, "no" included, as a Button tag without a button
    position = read_position(record)
    if position is None:
        return None
    try:
        return Game.from_position(
            position,
            size=size,
            komi=komi,
            rules=ruleset.name,
            button=None if ruleset.button is ButtonRule.ABSENT else button,
        )
    except PositionError as e:
        if e.line:
            raise TagError(e.message, e.line, e.column) from None
        tag = record.tag(e.tag) or record.tag(SETUP_TAG)
        line, column = (0, 0) if tag is None else (tag.line, tag.column)
        raise TagError(e.message, line, column) from None


def _misspelt_setting(record: Record, typo: Misspelling, ruleset: RuleSet, used: dict[str, str]) -> None:
    """A tag that is most likely one setting misspelt, with a value other
    than the one the game is replayed with (``[size "4"]`` where size 7 is
    used): a :class:`~keilref.errors.TagError` at it, since the replay would
    be of another game. With the value in use, it stays a warning."""
    (meant,) = typo.meant if len(typo.meant) == 1 else (None,)
    if meant not in SETTING_TAGS or (meant == "Button" and ruleset.button is ButtonRule.ABSENT):
        return  # possibly a free-text tag; or a button the rules do not have
    value = record.tag_value(typo.name) or ""
    if _setting_text(meant, value, ruleset) == used[meant]:
        return
    raise TagError(wording.misspelt_setting(typo.name, meant, _q(value), used[meant]), typo.line, typo.column)


def _setting_text(name: str, value: str, ruleset: RuleSet) -> str | None:
    """A setting tag's value as :func:`read_setup` words the value in use
    (``None``: not a value the tag could have)."""
    try:
        if name == "Rules":
            return find_rules(value).name
        if name == "Size":
            return str(ruleset.parse_size(value))
        if name == "Komi":
            return format_number(ruleset.check_komi(value))
    except ConfigError:
        return None
    if name == "Button":
        return value if value in _BUTTON_WORDS else None
    return " ".join(split_points(value)) or "none"


def _q(value: str, limit: int = 40) -> str:
    """A tag value as quoted in a message: long ones are cut, so an error stays one line."""
    return value if len(value) <= limit else value[: limit - 3] + "..."


def _error(tag: Tag, message: str) -> TagError:
    return TagError(message, tag.line, tag.column)


def _rules(record: Record, override: str | None, warnings: list[str], places: list[tuple[int, int]]) -> RuleSet:
    tag = record.tag("Rules")
    if override is not None:
        ruleset = find_rules(override)  # ConfigError: a caller's mistake, not the record's
        if tag is None or tag.value == override:
            return ruleset
        try:
            named = find_rules(tag.value)
        except ConfigError:
            named = None  # a tag naming no rule set says nothing of the family: the override decides
        places.extend([(0, 0)] * (len(warnings) - len(places)))
        places.append((tag.line, tag.column))
        if named is not None and named.family != ruleset.family:
            # An override chooses a wording of the game's own rules; replaying a
            # game of another family (another board, other pieces) would judge
            # a game that was never played.
            warnings.append(wording.rules_not_applied(override, named.family, ruleset.family))
            return named
        warnings.append(wording.rules_overridden(_q(tag.value), override))
        return ruleset
    if tag is None:
        warnings.append(wording.missing_tag("Rules", DEFAULT_RULES))
        return find_rules(DEFAULT_RULES)
    try:
        return find_rules(tag.value)
    except ConfigError:
        known = ", ".join(sorted(r.name for r in all_rules()))
        raise _error(tag, f'Rules "{_q(tag.value)}" is not a known rule set (known: {known})') from None


def _size(tag: Tag, ruleset: RuleSet) -> int:
    try:
        return ruleset.parse_size(tag.value)
    except ConfigError:
        if not (tag.value.isascii() and tag.value.isdigit()):
            raise _error(tag, f'Size "{_q(tag.value)}" is not a whole number') from None
        raise _error(
            tag,
            f'Size "{_q(tag.value)}" is not allowed under rules {ruleset.name!r}: '
            f"it must be {ruleset.min_size}..{ruleset.max_size}",
        ) from None


def _komi(tag: Tag, ruleset: RuleSet) -> float:
    try:
        return ruleset.check_komi(tag.value)
    except ConfigError:
        if not KOMI_RE.fullmatch(tag.value):
            raise _error(tag, f'Komi "{_q(tag.value)}" is not a number such as 6, -3 or 6.5') from None
        if abs(Fraction(tag.value)) > KOMI_LIMIT:
            raise _error(tag, f'Komi "{_q(tag.value)}" is too large (at most {KOMI_LIMIT:,} either way)') from None
        allowed = "a whole number or a half (such as 6.5)" if ruleset.half_komi else "a whole number"
        raise _error(
            tag, f'Komi "{_q(tag.value)}" is not allowed under rules {ruleset.name!r}: it must be {allowed}'
        ) from None


def _button(tag: Tag, ruleset: RuleSet) -> bool:
    if ruleset.button is ButtonRule.ABSENT:
        raise _error(tag, f"a Button tag is not allowed under rules {ruleset.name!r}: they have no button")
    value = _BUTTON_WORDS.get(tag.value)
    if value is None:
        raise _error(tag, f'Button "{_q(tag.value)}" is not yes or no')
    try:
        return ruleset.check_button(value)
    except ConfigError:
        raise _error(
            tag, f'Button "{_q(tag.value)}" is not allowed under rules {ruleset.name!r}: they require the button'
        ) from None


def _removed(tag: Tag, ruleset: RuleSet) -> tuple[str, ...]:
    """The points of a ``Removed`` agreement; whether they hold pieces is for the replay."""
    if not ruleset.agreed_removal:
        raise _error(tag, f"a Removed tag is not allowed under rules {ruleset.name!r}: they have no agreed removal")
    points = tuple(split_points(tag.value))
    for point in points:
        if not _POINT.match(point):
            unseen = next((c for c in point if not c.isprintable()), None)
            why = f": {code_point(unseen)} separates nothing" if unseen is not None else ""
            raise _error(tag, f'Removed "{_q(tag.value)}": {point!r} is not a point (such as d4){why}')
    return points


def _result_tag(tag: Tag, record: Record) -> None:
    try:
        declared = Result.parse(tag.value)
    except ValueError as e:
        message = str(e)
        quoted = repr(tag.value)
        if message.startswith(quoted):
            message = f'Result "{_q(tag.value)}"' + message[len(quoted) :]
        else:  # pragma: no cover - depends on Result.parse's wording
            message = f'Result "{_q(tag.value)}": {message}'
        meant = meant_result(tag.value)
        if meant is not None:
            message += f": {wording.result_meant(tag.value, meant)}"
        raise _error(tag, message) from None
    if record.result is None:
        return
    try:
        token = Result.parse(record.result)
    except ValueError as e:
        # Only a record built by hand can get here: the parser checks the token.
        raise RecordError(str(e), record.result_line, record.result_column) from None
    if token != declared:
        where = f" (line {record.result_line})" if record.result_line else ""
        raise _error(
            tag, f'Result "{_q(tag.value)}" disagrees with the result {record.result} at the end of the moves{where}'
        )
