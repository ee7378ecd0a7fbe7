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
    """One entry of a ban list: in force from ``since`` (its announcement's effective date) until
    ``until`` (the effective date of the unban), or for good when ``until`` is None. ``unconfirmed``
    says why a date is not the announcement's own (empty when it is)."""

    name: str
    printings: tuple[tuple[str, str], ...]  # (set code, number); empty means every printing of the name
    since: dt.date | None
    source: str
    until: dt.date | None = None
    unconfirmed: str = ""

    @property
    def by_name(self) -> bool:
        return not self.printings

    def in_force(self, on: dt.date) -> bool:
        return (self.since is None or self.since <= on) and (self.until is None or on < self.until)

    def covers(self, card: Card, db: CardDB) -> bool:
        """Does this ban apply to the printing ``card``?"""
        if self.by_name:
            return name_key(self.name) == card.key
        number = number_key(card.number)
        return any(number_key(n) == number and card.set_id in db.sets_for_code(code) for code, n in self.printings)


@dataclass(frozen=True)
class Rotation:
    """A rotation of a rotating format: from ``start`` the pool is every printing whose regulation
    mark is ``min_mark`` or later or, before regulation marks (``min_mark`` empty), the printings of
    the sets in ``sets`` (set codes, or set ids for sets without a code of their own) and, for each
    (promo set code, first number) in ``promos``, that promo set's printings from that number on.
    ``unconfirmed`` says why the date or list is not the announcement's own (empty when it is)."""

    start: dt.date
    min_mark: str | None
    source: str
    sets: tuple[str, ...] = ()
    promos: tuple[tuple[str, str], ...] = ()
    unconfirmed: str = ""


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

    def rotation_on(self, on: dt.date) -> Rotation | None:
        """The rotation in force on ``on`` (rotations are in date order), None before the first."""
        current = None
        for r in self.rotations:
            if r.start > on:
                break
            current = r
        return current

    def min_mark(self, on: dt.date) -> str | None:
        """The lowest legal regulation mark on ``on``; None before the first rotation and in a
        rotation by sets."""
        rotation = self.rotation_on(on)
        return rotation.min_mark or None if rotation else None

    def mark_legal_from(self, mark: str | None) -> dt.date | None:
        for m in self.mark_dates:
            if m.mark == mark:
                return m.start
        return None
