"""Which printing a line names on a check's date: the printings out by then, the first printing of
a name, the newest functionally identical printing out on a date. A base of
:class:`~deckcheck.cards.db.CardDB` (its methods are the database's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .printings import Card, PrintingTable, Resolution

#: the resolutions that chose a printing by name (no set code, an ALT or unknown code, basic Energy by
#: its type): among the printings released on the check's date (:meth:`ReleaseRules.on_date`)
CHOSEN_BY_NAME = frozenset({"name", "basic-energy"})


class ReleaseRules:
    """The date rules of :class:`~deckcheck.cards.db.CardDB`, over its name index."""

    _by_name: PrintingTable
    by_name: Callable[[str], tuple[Card, ...]]
    local_names: Callable[[], Any]

    def released_printings(self, card: Card, on: str) -> list[Card]:
        """The printings with ``card``'s name key released on or before the ISO date ``on``, newest
        first (a printing whose set has no release date is taken as out)."""
        return [other for other in self._by_name.slot(card.key.lower()) if other.release and other.release <= on]

    def first_printed(self, name: str) -> Card | None:
        """The oldest printing named ``name`` (its name key, or the English name it is in another
        language: ``Ordres du Boss`` is Boss's Orders), None when none is."""
        named = self.by_name(name)
        if not named:
            local = self.local_names()
            picked = local.pick(name) if local is not None else None
            named = self.by_name(picked[1]) if picked is not None else ()
        dated = [card for card in named if card.release]
        return min(dated, key=lambda card: card.release) if dated else None

    def identical_printing(self, card: Card, on: str) -> Card | None:
        """The newest printing functionally identical to ``card`` (the same name key and
        fingerprint: what the reprint rule counts as the same card, :meth:`Format.legal_via
        <deckcheck.formats.Format.legal_via>`) released on or before the ISO date ``on``: what a line
        naming ``card``, released after ``on``, is checked as (for a basic Energy, any printing of its
        type). None when there is none."""
        if card.is_basic_energy:
            for other in self.released_printings(card, on):
                if other.is_basic_energy:
                    return other
            return None
        if card.fingerprint.startswith("name:"):
            return None
        for other in self.released_printings(card, on):
            if other.fingerprint == card.fingerprint and other.key == card.key:
                return other
        return None

    def on_date(self, res: Resolution, on: str | None) -> Resolution:
        """What :meth:`resolve_parts` answered (``res``, the same on every date) on the ISO date
        ``on``: a printing chosen by name (:data:`CHOSEN_BY_NAME`) that was released after ``on`` gives
        way to the newest printing of the same name released by then (of basic Energy, one of its
        type); with none, the line names no card on that date (:meth:`first_printed` says when the
        card was). Any other resolution is the printing the line names, whatever its release: the
        engine checks it through an identical one out on the date (:meth:`identical_printing`)."""
        card = res.card
        if card is None or on is None or not card.release or card.release <= on or res.method not in CHOSEN_BY_NAME:
            return res
        energy = card.is_basic_energy
        for other in self.released_printings(card, on):
            if other.is_basic_energy == energy:
                return Resolution(other, res.method, (), res.name_differs, res.language)
        return Resolution(None, "unresolved")
