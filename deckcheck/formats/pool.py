"""A format's card pool and ban list, as its file gives them (:mod:`deckcheck.formats` reads the files
and answers legality questions with them)."""

from __future__ import annotations

import datetime as dt

from ..cards import Card, CardDB
from ..cards.index import number_key
from ..names import name_key
from ..value import Value


class Ban(Value):
    """One entry of a ban list: in force from ``since`` (its announcement's effective date) until
    ``until`` (the effective date of the unban), or for good when ``until`` is None. ``printings``:
    (set code, number) pairs, none for every printing of the name. ``unconfirmed`` says why a date
    is not the announcement's own (empty when it is)."""

    __slots__ = ("name", "printings", "since", "source", "until", "unconfirmed")
    __match_args__ = __slots__

    def __init__(
        self,
        name: str,
        printings: tuple[tuple[str, str], ...],
        since: dt.date | None,
        source: str,
        until: dt.date | None = None,
        unconfirmed: str = "",
    ) -> None:
        self.name = name
        self.printings = printings
        self.since = since
        self.source = source
        self.until = until
        self.unconfirmed = unconfirmed

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


class Allowed(Value):
    """A printing of an excluded set that a format allows all the same (GLC FAQ: of the Celebrations
    Classic Collection only Reshiram and Zekrom), from ``since`` (its source's date); ``printings``:
    (set code, number) pairs of cards named ``name``. ``unconfirmed`` says why the date is not the
    source's own (empty when it is)."""

    __slots__ = ("name", "printings", "since", "source", "unconfirmed")
    __match_args__ = __slots__

    def __init__(
        self, name: str, printings: tuple[tuple[str, str], ...], since: dt.date, source: str, unconfirmed: str = ""
    ) -> None:
        self.name = name
        self.printings = printings
        self.since = since
        self.source = source
        self.unconfirmed = unconfirmed

    def covers(self, card: Card, db: CardDB) -> bool:
        """Is ``card`` one of these printings (by its set, number and name)?"""
        if name_key(self.name) != card.key:
            return False
        number = number_key(card.number)
        return any(number_key(n) == number and card.set_id in db.sets_for_code(code) for code, n in self.printings)


class Rotation(Value):
    """A rotation of a rotating format: from ``start`` the pool is every printing whose regulation
    mark is ``min_mark`` or later or, before regulation marks (``min_mark`` empty), the printings of
    the sets in ``sets`` (set codes, or set ids for sets without a code of their own) and, for each
    (promo set code, first number) in ``promos``, that promo set's printings from that number on.
    ``unconfirmed`` says why the date or list is not the announcement's own (empty when it is)."""

    __slots__ = ("start", "min_mark", "source", "sets", "promos", "unconfirmed")
    __match_args__ = __slots__

    def __init__(
        self,
        start: dt.date,
        min_mark: str | None,
        source: str,
        sets: tuple[str, ...] = (),
        promos: tuple[tuple[str, str], ...] = (),
        unconfirmed: str = "",
    ) -> None:
        self.start = start
        self.min_mark = min_mark
        self.source = source
        self.sets = sets
        self.promos = promos
        self.unconfirmed = unconfirmed


class MarkDate(Value):
    """The first day a regulation mark is legal (Tournament Handbook 4.1.1 table)."""

    __slots__ = ("mark", "start", "source")
    __match_args__ = __slots__

    def __init__(self, mark: str, start: dt.date, source: str) -> None:
        self.mark = mark
        self.start = start
        self.source = source


class Pool(Value):
    """What a format's pool is made of (``[pool]`` in its file): by regulation marks or by sets; a
    pool by sets may close some of its excluded sets to the reprint rule (``closed_sets``) and allow
    printings of an excluded set by name (``allowed``)."""

    __slots__ = __match_args__ = (
        "kind",
        "earliest",
        "rotations",
        "series",
        "include_sets",
        "exclude_sets",
        "legal_delay",
        "reprint_rule",
        "mark_dates",
        "closed_sets",
        "allowed",
    )

    def __init__(
        self,
        kind: str,
        earliest: dt.date,
        rotations: tuple[Rotation, ...] = (),
        series: frozenset[str] = frozenset(),
        include_sets: frozenset[str] = frozenset(),
        exclude_sets: frozenset[str] = frozenset(),
        legal_delay: str = "third-friday",  # or "release"
        reprint_rule: bool = True,
        mark_dates: tuple[MarkDate, ...] = (),
        closed_sets: frozenset[str] = frozenset(),
        allowed: tuple[Allowed, ...] = (),
    ) -> None:
        self.kind, self.earliest, self.rotations, self.series = kind, earliest, rotations, series
        self.include_sets, self.exclude_sets, self.legal_delay = include_sets, exclude_sets, legal_delay
        self.reprint_rule, self.mark_dates = reprint_rule, mark_dates
        #: excluded sets the reprint rule does not reach either: a printing of one is legal only when
        #: ``allowed`` lists it
        self.closed_sets, self.allowed = closed_sets, allowed

    def allowed_on(self, card: Card, db: CardDB, on: dt.date) -> bool:
        """Does an entry of ``allowed`` in force on ``on`` cover this printing?"""
        return any(a.since <= on and a.covers(card, db) for a in self.allowed)

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
