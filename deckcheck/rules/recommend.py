"""Which printing to recommend when a fix swaps a card: the legal printings of a name, best first.

A player who has to replace a card wants the one a shop sells and a judge reads without
trouble: the newest regular-art printing legal on the date. Full arts, illustration rares,
gallery subsets and secret rares (numbered past the set's printed count) come after it, then
printings with a ban. Every fix that names a printing (an unknown card's suggestion, a rotated
card's replacement, a legal printing of a name) takes the first of :func:`legal_printings`
and offers the rest behind it, on the page with and without its script alike.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..cards import Card, CardDB


class _Legality(Protocol):
    """What a format answers about a printing on a date (``formats.Format.legality``): the rules never
    import the formats."""

    def legality(self, card: Card, db: CardDB, on: dt.date) -> tuple[Card | None, Any]: ...


#: rarities of printings with special art (full art, illustration, shiny, gallery): offered after a
#: regular-art printing of the same name. Rarities as the card database writes them.
SPECIAL_ART_RARITIES = frozenset(
    {
        "Ultra Rare",
        "Secret Rare",
        "Illustration rare",
        "Special illustration rare",
        "Hyper rare",
        "Mega Hyper Rare",
        "Shiny rare",
        "Shiny rare V",
        "Shiny rare VMAX",
        "Shiny Ultra Rare",
        "Full Art Trainer",
        "Rare Ultra",
        "Rare Secret",
        "Rare Rainbow",
        "Classic Collection",
        "Black White Rare",
    }
)

#: most printings of one name a fix offers (the recommended one and the rest behind it)
MAX_PRINTINGS = 6


def is_regular_art(card: Card, db: CardDB) -> bool:
    """Is this printing a regular-art one: not of a special-art rarity, and not numbered past its
    set's printed count (a secret rare)?"""
    if card.rarity in SPECIAL_ART_RARITIES:
        return False
    cset = db.sets.get(card.set_id)
    count = cset.official_count if cset is not None else None
    return not (count and card.number.isdigit() and int(card.number) > count)


def legal_printings(
    name: str, fmt: _Legality, db: CardDB, on: dt.date | None, limit: int = MAX_PRINTINGS
) -> list[Card]:
    """The printings named ``name`` legal (and not banned) in ``fmt`` on ``on``, the recommended one
    first: regular art before special art, newest first within each; at most ``limit``. A printing
    that cannot be used at official tournaments is never one of them.

    With no date (legality not checked), every printing of the name in the same order.
    """
    printings = db.by_name(name)  # newest first
    if on is not None:
        barred = db.not_for_tournaments()  # legal in the pool, but no tournament takes them
        printings = tuple(c for c in printings if c.id not in barred and fmt.legality(c, db, on) == (c, None))
    regular = [c for c in printings if is_regular_art(c, db)]
    special = [c for c in printings if not is_regular_art(c, db)]
    return (regular + special)[:limit]


def recommended(name: str, fmt: _Legality, db: CardDB, on: dt.date | None) -> Card | None:
    """The printing a fix offers first for ``name`` (:func:`legal_printings`), or None when none is legal."""
    found = legal_printings(name, fmt, db, on, limit=1)
    return found[0] if found else None
