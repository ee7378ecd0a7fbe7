"""A format's card pool and ban list, as its file gives them (:mod:`deckcheck.formats` reads the files
and answers legality questions with them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..cards import Card, CardDB
from ..cards.index import number_key
from ..names import name_key


@dataclass(frozen=True)
class Ban:
    name: str
    printings: tuple[tuple[str, str], ...]  # (set code, number); empty means every printing of the name
    since: dt.date | None
    source: str

    @property
    def by_name(self) -> bool:
        return not self.printings

    def covers(self, card: Card, db: CardDB) -> bool:
        """Does this ban apply to the printing ``card``?"""
        if self.by_name:
            return name_key(self.name) == card.key
        number = number_key(card.number)
        return any(number_key(n) == number and card.set_id in db.sets_for_code(code) for code, n in self.printings)


@dataclass(frozen=True)
class Rotation:
    start: dt.date
    min_mark: str
    source: str


@dataclass(frozen=True)
class MarkDate:
    """The first day a regulation mark is legal (Tournament Handbook 4.1.1 table)."""

    mark: str
    start: dt.date
    source: str


@dataclass(frozen=True)
class Pool:
    kind: str
    earliest: dt.date
    rotations: tuple[Rotation, ...] = ()
    series: frozenset[str] = frozenset()
    include_sets: frozenset[str] = frozenset()
    exclude_sets: frozenset[str] = frozenset()
    legal_delay: str = "third-friday"  # or "release"
    reprint_rule: bool = True
    mark_dates: tuple[MarkDate, ...] = ()

    def min_mark(self, on: dt.date) -> str | None:
        """The lowest legal regulation mark on ``on`` (rotations are in date order)."""
        current = None
        for r in self.rotations:
            if r.start > on:
                break
            current = r.min_mark
        return current

    def mark_legal_from(self, mark: str | None) -> dt.date | None:
        for m in self.mark_dates:
            if m.mark == mark:
                return m.start
        return None
