"""The tag vocabulary of the record format: every tag it names, and what each is for.

One table, read by everything that treats a tag by its name: the writer puts
the standard tags first in the table's order, then a position's, the referee judges the setting
tags, a record made from a game writes them, the clocks read the time
control, an importer writes the tags of a playing site, and a name one typo
from any tag here is warned about as probably misspelt. A tag not in the
table is free text: kept, written back, never read.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "GAME_ID_TAG",
    "KNOWN_TAGS",
    "KOMI_BY_TAG",
    "POSITION_TAGS",
    "SETTING_TAGS",
    "SITE_TAGS",
    "STANDARD_TAGS",
    "TAGS",
    "TIME_CONTROL_TAG",
    "Role",
    "TagSpec",
    "names_with",
    "the_tag",
]


class Role(enum.Enum):
    """What a tag is for; a tag may have several roles."""

    STANDARD = "standard"
    """Written first, in the table's order, by the canonical layout."""
    SETTING = "setting"
    """Decides the rules the game is replayed under; judged against the rule set,
    and written from the game itself when a game becomes a record."""
    RESULT = "result"
    """The declared result, judged with the settings."""
    TIME_CONTROL = "time control"
    """The base time and increment the clocks are checked against."""
    SITE = "site"
    """Written by an import from a playing site (where, the game's id there,
    the komi pie); free text to the referee."""
    GAME_ID = "game id"
    """The game's id at its site: two imports of one game are known by it."""
    KOMI_PIE = "komi pie"
    """Under a komi pie, the colour played by the player who named the komi."""
    POSITION = "position"
    """Version 3 of the format: the position a game starts from. Written
    right after the standard tags, in the table's order, by the canonical layout."""
    FREE_TEXT = "free text"
    """Kept as written; never changes a verdict."""


@dataclass(frozen=True, slots=True)
class TagSpec:
    """One tag of the format: its name, as written, and its roles."""

    name: str
    roles: frozenset[Role]

    def has(self, role: Role) -> bool:
        return role in self.roles


def _spec(name: str, *roles: Role) -> TagSpec:
    return TagSpec(name, frozenset(roles))


TAGS: tuple[TagSpec, ...] = (
    # The standard tags come first, in the order the writer puts them.
    _spec("Event", Role.STANDARD, Role.FREE_TEXT),
    _spec("Site", Role.STANDARD, Role.SITE, Role.FREE_TEXT),
    _spec("Date", Role.STANDARD, Role.FREE_TEXT),
    _spec("Round", Role.STANDARD, Role.FREE_TEXT),
    _spec("Black", Role.STANDARD, Role.FREE_TEXT),
    _spec("White", Role.STANDARD, Role.FREE_TEXT),
    _spec("Rules", Role.STANDARD, Role.SETTING),
    _spec("Size", Role.STANDARD, Role.SETTING),
    _spec("Komi", Role.STANDARD, Role.SETTING),
    _spec("Button", Role.STANDARD, Role.SETTING),
    _spec("Result", Role.STANDARD, Role.RESULT),
    # The others, in the order the format names them. A setting written from
    # a game follows the standard ones in this order.
    _spec("Removed", Role.SETTING),
    _spec("Annotator", Role.FREE_TEXT),
    _spec("TimeControl", Role.TIME_CONTROL),
    _spec("KomiBy", Role.SITE, Role.KOMI_PIE, Role.FREE_TEXT),
    _spec("GameId", Role.SITE, Role.GAME_ID, Role.FREE_TEXT),
    _spec("Setup", Role.POSITION),
    _spec("ToMove", Role.POSITION),
    _spec("ButtonTaken", Role.POSITION),
    _spec("FirstPass", Role.POSITION),
)
"""Every tag the format names, once each."""


def names_with(*roles: Role) -> tuple[str, ...]:
    """The names of the tags that have any of ``roles``, in the table's order."""
    return tuple(spec.name for spec in TAGS if not spec.roles.isdisjoint(roles))


def the_tag(role: Role) -> str:
    """The name of the one tag that has ``role``; ``LookupError`` unless there is exactly one."""
    names = names_with(role)
    if len(names) != 1:
        raise LookupError(f"{len(names)} tags have the role {role.value!r}, not one: {names}")
    return names[0]


KNOWN_TAGS = tuple(spec.name for spec in TAGS)
"""The tags the record format names; any other is free text."""

STANDARD_TAGS = names_with(Role.STANDARD)
"""The tags written first, in this order."""

POSITION_TAGS = names_with(Role.POSITION)
"""The tags of a position (``Setup``, ``ToMove``, ``ButtonTaken``, ``FirstPass``), in written order."""

SETTING_TAGS = names_with(Role.SETTING)
"""The tags that decide how a game is replayed, in written order."""

SITE_TAGS = names_with(Role.SITE)
"""The tags an import from a playing site writes besides the players, the date and the settings."""

TIME_CONTROL_TAG = the_tag(Role.TIME_CONTROL)
"""``[TimeControl "600+5"]``: base time and increment."""

GAME_ID_TAG = the_tag(Role.GAME_ID)
"""``[GameId "x1"]``: the game's id at its ``Site``."""

KOMI_BY_TAG = the_tag(Role.KOMI_PIE)
"""``[KomiBy "White"]``: the colour of the player who named the komi."""
