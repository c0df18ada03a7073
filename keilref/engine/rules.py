"""Rule sets as data, found by name through a registry.

A rule set says which board sizes, komi values and button settings it allows
and which :class:`~keilref.engine.game.Game` class plays it. Records and verdicts only
ever talk to this interface, so a new rule family plugs in by registering.
"""

from __future__ import annotations

import enum
import functools
import math
import numbers
import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

from keilref.errors import ConfigError, wrong_type

if TYPE_CHECKING:
    from keilref.engine.game import Game


KOMI_RE = re.compile(r"-?[0-9]{1,7}(?:\.[0-9]{1,7})?")
"""How a komi is written: a decimal number, ASCII digits only."""
KOMI_LIMIT = 1_000_000
"""No real komi comes near this; beyond it floats stop being exact."""


class ButtonRule(enum.Enum):
    """How a rule set treats the button."""

    REQUIRED = "required"
    """The button is always in play (``Button "yes"`` only)."""
    OPTIONAL = "optional"
    """The record may leave the button out (``Button "no"``)."""
    ABSENT = "absent"
    """The game has no button; a ``Button`` tag is an error."""


@dataclass(frozen=True)
class RuleSet:
    """One named rule set: its limits and the class that plays it."""

    name: str
    family: str
    title: str
    min_size: int
    max_size: int
    default_size: int
    half_komi: bool
    """Whether a komi of ``x.5`` is allowed (else whole numbers only)."""
    button: ButtonRule
    game_class: type[Game]
    agreed_removal: bool = field(default=False, kw_only=True)
    """Whether a record may end with a ``Removed`` agreement (Yugo)."""

    def check_size(self, size: int) -> int:
        """Return ``size`` if these rules allow it; a :class:`ConfigError` otherwise
        (``TypeError`` for a ``size`` that is not an ``int``)."""
        if not isinstance(size, int) or isinstance(size, bool):
            raise wrong_type("size", size, "a whole number (int), such as 7")
        if not self.min_size <= size <= self.max_size:
            raise ConfigError(
                f"size {size} is out of range for rules {self.name!r} "
                f"({self.min_size}..{self.max_size})"
            )
        return size

    def parse_size(self, text: str) -> int:
        """A size from record text, checked as :meth:`check_size` does."""
        if not isinstance(text, str):
            raise wrong_type("a size's record text", text, "a str")
        if not (text.isascii() and text.isdigit()):
            raise ConfigError(f"size {text!r} is not a whole number")
        if len(text) > 3:  # before int(): a thousand digits must not cost a traceback
            raise ConfigError(f"size {text} is out of range for rules {self.name!r} ({self.min_size}..{self.max_size})")
        return self.check_size(int(text))

    def check_komi(self, komi: float | int | str | Fraction | Decimal) -> float:
        """Validate a komi, from a number or record text; return it as a float.

        Raises :class:`ConfigError` for a komi these rules do not allow, and
        ``TypeError`` for one that is neither a number nor a ``str``.
        """
        if isinstance(komi, bool) or not isinstance(komi, (str, numbers.Rational, float, Decimal)):
            raise wrong_type("komi", komi, "a number (int, float, Fraction, Decimal) or its record text (str), such as 6.5")
        return _checked_komi(komi, self.half_komi, self.name)

    def check_button(self, button: bool | None) -> bool:
        """Resolve the button setting: ``None`` means the default.

        Raises :class:`ConfigError` for a setting these rules do not allow,
        and ``TypeError`` for one that is not a ``bool`` or ``None``.
        """
        if button is not None and not isinstance(button, bool):
            raise wrong_type("button", button, "True, False or None")
        if self.button is ButtonRule.ABSENT:
            if button is not None:
                raise ConfigError(f"rules {self.name!r} have no button")
            return False
        if button is None:
            return True
        if not button and self.button is ButtonRule.REQUIRED:
            raise ConfigError(f"rules {self.name!r} require the button (Button \"yes\")")
        return button


_REGISTRY: dict[str, RuleSet] = {}


_R = TypeVar("_R", bound=RuleSet)


@functools.lru_cache(maxsize=1024, typed=True)
def _checked_komi(komi: float | int | str | Fraction | Decimal, half_komi: bool, name: str) -> float:
    """:meth:`RuleSet.check_komi`, remembered: an archive states the same few
    komi in every game, and reading one takes a regular expression and an
    exact fraction. A komi that is refused raises, and is not remembered."""
    if isinstance(komi, str):
        if KOMI_RE.fullmatch(komi) is None:
            raise ConfigError(f"komi {komi!r} is not a number such as 6, -3 or 6.5")
        value = Fraction(komi)
    elif (isinstance(komi, float) and not math.isfinite(komi)) or (isinstance(komi, Decimal) and not komi.is_finite()):
        raise ConfigError(f"komi {komi!r} is not a number such as 6, -3 or 6.5")
    else:
        value = Fraction(komi)
    if abs(value) > KOMI_LIMIT:
        raise ConfigError(f"komi {komi} is too large (at most {KOMI_LIMIT:,} either way)")
    if value.denominator == 1 or (value.denominator == 2 and half_komi):
        return float(value)
    allowed = "a whole number or a half (such as 6.5)" if half_komi else "a whole number"
    raise ConfigError(f"komi {komi} is not allowed under rules {name!r}: it must be {allowed}")


def register(rules: _R) -> _R:
    """Make a rule set known by its name. Returns it, for use as a constant.

    Raises ``ValueError`` for a name already registered, and ``TypeError``
    for something that is not a :class:`RuleSet` naming a ``Game`` class.
    """
    from keilref.engine.game import Game

    if not isinstance(rules, RuleSet):
        raise wrong_type("register's rule set", rules, "a keilref.RuleSet")
    if not isinstance(rules.name, str):
        raise wrong_type("a rule set's name", rules.name, "a str")
    if not (isinstance(rules.game_class, type) and issubclass(rules.game_class, Game)):
        raise wrong_type("a rule set's game_class", rules.game_class, "a subclass of keilref.Game")
    if rules.name in _REGISTRY:
        raise ValueError(f"rules {rules.name!r} are already registered")
    _REGISTRY[rules.name] = rules
    return rules


def find_rules(name: str) -> RuleSet:
    """The rule set called ``name``; a :class:`ConfigError` naming it otherwise
    (``TypeError`` for a ``name`` that is not a ``str``)."""
    if not isinstance(name, str):
        raise wrong_type("rules", name, "the name of a rule set (str), such as 'keil'")
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ConfigError(f"unknown rules {name!r} (known: {known})") from None


def all_rules() -> tuple[RuleSet, ...]:
    """Every registered rule set, in the order registered."""
    return tuple(_REGISTRY.values())
