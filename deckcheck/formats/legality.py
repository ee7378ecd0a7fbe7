"""Which printings a format makes legal on a date: its pool (sets, regulation marks, rotations), the
reprint rule and its bans, and why a card is not legal; the answers are memoised per format,
database and date (:mod:`deckcheck.formats.memos`), with the engine's tables beside them. A base of
:class:`~deckcheck.formats.format.Format` (its methods are the format's)."""

from __future__ import annotations

import datetime as dt
import zlib
from collections.abc import Callable, Hashable
from typing import Any

import orjson

from ..cards import Card, CardDB
from ..cards.index import number_key
from ..cards.packfacts import StoredLegality
from ..memo import Memo, memoise
from ..names import name_key
from .memos import LEGALITY_MEMO_SIZE, RotationSets, memos_of
from .pool import Ban, Pool, Rotation


class FormatLegality:
    """The legality of :class:`~deckcheck.formats.format.Format`: its pool and bans against a database."""

    id: str
    name: str
    pool: Pool
    bans: tuple[Ban, ...]
    to_dict: Callable[[], dict[str, Any]]

    def set_legal_date(self, db: CardDB, set_id: str) -> dt.date | None:
        """The first day a set's cards may be played (None when its release date is unknown)."""
        return _set_legal_date(self.pool.legal_delay, db.sets[set_id].release)

    def legal_date(self, card: Card) -> dt.date | None:
        """The first day this printing may be played: its set's (:meth:`set_legal_date`), or, for
        a printing released later than its set (a Black Star promo of a set's card,
        :data:`~deckcheck.cards.files.PRINTING_RELEASES`), its own release's; None when unknown."""
        return _set_legal_date(self.pool.legal_delay, card.release or None)

    def in_pool(self, card: Card, db: CardDB, on: dt.date) -> bool:
        """Is this exact printing in the pool on ``on`` (before the reprint rule)?"""
        if card.is_basic_energy:
            # basic Energy is always legal, whatever its set, once the printing exists
            return not card.release or card.release <= on.isoformat()
        legal_from = self.legal_date(card)
        if legal_from is None or legal_from > on:
            return False
        pool = self.pool
        if pool.kind == "all":
            return True
        if pool.kind == "sets":
            if card.set_id in pool.exclude_sets:
                return card.set_id in pool.closed_sets and pool.allowed_on(card, db, on)
            return card.set_id in pool.include_sets or card.series in pool.series
        rotation = pool.rotation_on(on)
        if rotation is None:
            return False
        if not rotation.min_mark:
            return self._in_rotation_sets(card, db, rotation)
        floor = rotation.min_mark
        if not (card.mark and card.mark >= floor):
            return False
        mark_from = pool.mark_legal_from(card.mark)
        return mark_from is None or mark_from <= on

    def rotation_sets(self, db: CardDB, rotation: Rotation) -> RotationSets:
        """A rotation by sets against ``db``: its set codes (or set ids) as set ids, and its promo
        floors by set id; memoised per database and rotation."""
        memo, key = memos_of(self).rotation_sets, (db.identity, rotation.start)
        hit = memo.get(key)
        if hit is None:
            floors: dict[str, tuple[str, int, str]] = {}
            for code, number in rotation.promos:
                for set_id in _set_ids(db, code):
                    floors[set_id] = number_key(number)
            sets = frozenset(s for code in rotation.sets for s in _set_ids(db, code))
            hit = memo.put(key, RotationSets(sets, floors))
        return hit

    def _in_rotation_sets(self, card: Card, db: CardDB, rotation: Rotation) -> bool:
        resolved = self.rotation_sets(db, rotation)
        if card.set_id in resolved.sets:
            return True
        floor = resolved.promo_floors.get(card.set_id)
        return floor is not None and _promo_number(card.number) >= floor[1]

    def legal_via(self, card: Card, db: CardDB, on: dt.date) -> Card | None:
        """The printing that makes ``card`` legal (itself or a functionally identical reprint), or None."""
        if self.in_pool(card, db, on):
            return card
        if card.is_basic_energy:  # a printing from after the date: any of its type out then
            return db.identical_printing(card, on.isoformat())
        pool = self.pool
        if not pool.reprint_rule or card.fingerprint.startswith("name:") or card.set_id in pool.closed_sets:
            return None
        for other in db.printings_of(card):
            if other.fingerprint == card.fingerprint and other.key == card.key and self.in_pool(other, db, on):
                return other
        return None

    def legal_other_printing(self, card: Card, db: CardDB, on: dt.date) -> Card | None:
        """A printing with the same name whose text differs and that is legal (and not banned) on
        ``on``, newest first; the reprint rule does not cover ``card`` with it, but a player
        can play it instead."""
        for other in db.printings_of(card):
            if (
                other.key == card.key
                and other.fingerprint != card.fingerprint
                and self.legality(other, db, on) == (other, None)
            ):
                return other
        return None

    def legality_table(self, db: CardDB, on: dt.date) -> Memo[Hashable, Any]:
        """The memo of :meth:`legality` answers for one database and date (card id -> answer);
        a long-running service sees few distinct dates: at most 64 are kept."""
        tables, key = memos_of(self).legality, (db.identity, on)
        table = tables.get(key)
        return tables.put(key, Memo(LEGALITY_MEMO_SIZE)) if table is None else table

    def legality(self, card: Card, db: CardDB, on: dt.date) -> tuple[Card | None, Ban | None]:
        """(the printing that makes it legal or None, the ban that applies or None), memoised: read
        from the database's pack when it holds this format's (:meth:`stored_legality`), else worked out."""
        table = self.legality_table(db, on)
        hit: tuple[Card | None, Ban | None] | None = table.get(card.id)
        if hit is None:
            stored = self.stored_legality(db)
            if stored is not None and card.id in db.cards:
                via, ban = stored.answer(db.cards.row_of(card.id), on.toordinal())
                hit = (db.cards.at(via - 1) if via else None, self.bans[ban - 1] if ban else None)
            else:
                hit = (self.legal_via(card, db, on), self.ban_for(card, db, on))
            table.put(card.id, hit)
        return hit

    def legality_reader(self, db: CardDB, on: dt.date) -> Callable[[Card], tuple[Card | None, Ban | None]]:
        """:meth:`legality` for one database and date as one function, for a caller that asks it for
        many cards (the engine, per format and date): with the pack's stored legality it reads a card's
        row there itself, through the same memo, without finding the table and the stored legality
        again for each card; without it, :meth:`legality`."""
        stored = self.stored_legality(db)
        if stored is None:
            return lambda card: self.legality(card, db, on)
        table, cards, bans, day = self.legality_table(db, on), db.cards, self.bans, on.toordinal()
        get, put, row_of, at, answer = table.get, table.put, cards.row_of, cards.at, stored.answer

        def read(card: Card) -> tuple[Card | None, Ban | None]:
            hit: tuple[Card | None, Ban | None] | None = get(card.id)
            if hit is None:
                try:
                    via, ban = answer(row_of(card.id), day)
                except KeyError:  # not a card of this database: worked out
                    return self.legality(card, db, on)
                hit = put(card.id, (at(via - 1) if via else None, bans[ban - 1] if ban else None))
            return hit

        return read

    def legality_digest(self) -> str:
        """What the format's legality is made from, as a digest: its pool and bans as its public
        description gives them (every field legality reads, in one order); what the pack's legality
        of a format records (:mod:`deckcheck.formats.stored`). A CRC-32, as the pack's own check: it tells
        a changed format file from the one the pack was made with, and costs no digest library at start."""
        described = self.to_dict()
        return f"crc32:{zlib.crc32(orjson.dumps([described['pool'], described['bans']])):08x}"

    def stored_legality(self, db: CardDB) -> StoredLegality | None:
        """This format's legality of every printing of ``db`` as its pack holds it, when it was made
        from this format's pool and bans (:meth:`legality_digest`); None otherwise: a format file a
        user adds or changes, or a format made from another (the rotation forecast's), is worked out
        by this code, never answered from a pack made for other files of its id."""
        memos = memos_of(self)
        key = db.identity
        known = memos.stored
        if known is not None and known[0] is key:
            return known[1]  # type: ignore[no-any-return]
        stored = db.stored_legality(self.id)
        if stored is not None:
            if memos.digest is None:
                memos.digest = self.legality_digest()
            if stored.digest != memos.digest or not stored.bans_within(len(self.bans)):
                stored = None
        memos.stored = (key, stored)  # one assignment: a thread reads the pair of one database
        return stored

    def ban_for(self, card: Card, db: CardDB, on: dt.date) -> Ban | None:
        """The first ban in force on ``on`` that covers this printing, or None."""
        bans = self.bans
        if not bans:
            return None
        memos = memos_of(self)
        screen = memos.ban_screen
        if screen is None:
            # a ban covers a card of its name (by name) or a printing of one of its numbers
            # (Ban.covers): a card with neither is covered by none, without a look at each ban
            names = frozenset(name_key(ban.name) for ban in bans if ban.by_name)
            numbers = frozenset(number_key(n) for ban in bans if not ban.by_name for _code, n in ban.printings)
            screen = memos.ban_screen = (names, numbers)
        if card.key not in screen[0] and number_key(card.number) not in screen[1]:
            return None
        for ban in bans:
            if ban.in_force(on) and ban.covers(card, db):
                return ban
        return None

    def why_not_legal(self, card: Card, db: CardDB, on: dt.date) -> str:
        """The reason, as a clause, that ``card`` is outside the pool on ``on``."""
        pool = self.pool
        cset = db.sets[card.set_id]
        legal_from = self.legal_date(card)
        if legal_from is None:
            return f"the release date of its set, {cset.name}, is unknown"
        reach = pool.reprint_rule and card.set_id not in pool.closed_sets
        reprint = " and no functionally identical reprint is legal" if reach else ""
        if legal_from > on:
            if card.release != cset.release:  # a promo of a set's card: legal with that set
                return f"this printing is legal from {legal_from.isoformat()}, as {_previewed(card, db)}{reprint}"
            return f"its set, {cset.name}, is legal from {legal_from.isoformat()}{reprint}"
        if pool.kind == "regulation-marks":
            rotation = pool.rotation_on(on)
            if rotation is not None and not rotation.min_mark:
                start = rotation.start.isoformat()
                resolved = self.rotation_sets(db, rotation)
                if card.set_id in resolved.promo_floors:
                    first = resolved.promo_floors[card.set_id]
                    return (
                        f"only promos from number {first[0]}{first[1]} on of its set, {cset.name}, are in the "
                        f"card pool of the rotation of {start}{reprint}"
                    )
                return f"its set, {cset.name}, is not in the card pool of the rotation of {start}{reprint}"
            floor = pool.min_mark(on)
            if not card.mark:
                return f"it has no regulation mark{reprint}"
            if floor and card.mark < floor:
                return f"its regulation mark {card.mark} has rotated out (the lowest legal mark is {floor}){reprint}"
            mark_from = pool.mark_legal_from(card.mark)
            return f"regulation mark {card.mark} is legal from {mark_from.isoformat() if mark_from else '?'}{reprint}"
        if pool.kind == "sets":
            if card.set_id in pool.closed_sets:
                names = sorted(
                    {a.name for a in pool.allowed for code, _ in a.printings if card.set_id in db.sets_for_code(code)}
                )
                listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)
                only = f"; {self.name} allows only {listed} of it" if names else ""
                return f"its set, {cset.name}, is excluded from the card pool, reprints of legal cards included{only}"
            how = "is excluded from" if card.set_id in pool.exclude_sets else "is not in"
            return f"its set, {cset.name}, {how} the card pool{reprint}"
        return f"its set, {cset.name}, is not in the card pool{reprint}"  # pragma: no cover - "all" takes every set


def _set_legal_date(rule: str, release: str | None) -> dt.date | None:
    """``release``: that day. ``third-friday``: the third Friday counting a Friday release day as the first.

    Checked against the Handbook's regulation-mark table: Scarlet & Violet (released Friday
    2023-03-31) was legal on 2023-04-14, Temporal Forces (2024-03-22) on 2024-04-05 and
    Journey Together (2025-03-28) on 2025-04-11: two weeks after a Friday release.
    """
    return _legal_date((rule, release))


def _previewed(card: Card, db: CardDB) -> str:
    """The card a promo printing released later than its set is the printing of (``the same card in
    Prismatic Evolutions``): a functionally identical printing of the date it takes."""
    for other in db.printings_of(card):
        if other.set_id != card.set_id and other.release == card.release and other.fingerprint == card.fingerprint:
            return f"the same card in {db.sets[other.set_id].name}"
    return "a printing of a later set"  # pragma: no cover - the build dates a promo by such a printing


def _set_ids(db: CardDB, code: str) -> tuple[str, ...]:
    """The set ids a rotation's entry names: a set code (through the database's codes and aliases)
    or, for a set without a code of its own, its set id."""
    return db.sets_for_code(code) or ((code,) if code in db.sets else ())


def _promo_number(number: str) -> int:
    """A promo's number without its prefix (``BW33`` -> 33, ``SWSH001`` -> 1), for a floor."""
    return number_key(number)[1]


@memoise(4096)
def _legal_date(key: tuple[str, str | None]) -> dt.date | None:
    rule, release = key
    if not release:
        return None
    day = dt.date.fromisoformat(release)
    if rule == "release":
        return day
    first = day + dt.timedelta(days=(4 - day.weekday()) % 7)  # Friday is weekday 4
    return first + dt.timedelta(days=14)
