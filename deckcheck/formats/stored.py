"""A format's legality worked out for every printing when the database's pack is written, and read
back at a check: per printing, the runs of days over which its answer (:meth:`Format.legality
<deckcheck.formats.legality.FormatLegality.legality>`: the printing that makes it legal, the ban
on it) stays the same.

The answer of a printing changes only on a day its format file or the card data names: its own
(and each functionally identical reprint's) first legal day, a release (basic Energy), a rotation,
a regulation mark's first day, a ban's start and end, the day an excluded printing is allowed
(:func:`_days`). :func:`legality_columns` asks the format's own code on each of those days and
keeps a run where the answer changes; the stored runs are used only for a format whose pool and
bans are those they were made from
(:meth:`~deckcheck.formats.legality.FormatLegality.legality_digest`), read with the set-alias table
they were made with (:func:`~deckcheck.cards.packfacts.aliases_check`): a format file a user adds
or changes is answered by its code, as without a pack (``tests/formats/test_stored.py`` holds the
two equal over the whole pool).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from ..cards import Card, CardDB

if TYPE_CHECKING:
    from .format import Format


def _days(fmt: Format, db: CardDB, card: Card) -> list[dt.date]:
    """The days ``card``'s answer in ``fmt`` may change on, in order (the first: the earliest day)."""
    days = {dt.date.min}
    pool = fmt.pool
    days.update(r.start for r in pool.rotations)
    days.update(m.start for m in pool.mark_dates)
    for other in db.printings_of(card):  # its reprints (and, for basic Energy, its type's printings)
        legal = fmt.legal_date(other)
        if legal is not None:
            days.add(legal)
        if other.release:
            days.add(dt.date.fromisoformat(other.release))
    legal = fmt.legal_date(card)
    if legal is not None:
        days.add(legal)
    if card.release:
        days.add(dt.date.fromisoformat(card.release))
    days.update(a.since for a in pool.allowed)  # (few: every printing takes them, its reprints' included)
    for ban in fmt.bans:
        if ban.covers(card, db):
            days.update(day for day in (ban.since, ban.until) if day is not None)
    return sorted(days)


def legality_columns(fmt: Format, db: CardDB) -> dict[str, Any]:
    """The runs of every row of ``db`` in ``fmt``: ``sizes`` (runs per row), and per run its first
    day (``starts``, a proleptic ordinal; 0 for a row's first run, which begins at the earliest
    day), the row of the printing that makes it legal plus one (``via``, 0: not legal) and the index
    of the ban on it in ``fmt.bans`` plus one (``ban``, 0: none); with the format's ``digest``."""
    rows = {card_id: row for row, card_id in enumerate(_row_ids(db))}
    bans = {id(ban): i + 1 for i, ban in enumerate(fmt.bans)}
    sizes: list[int] = []
    starts: list[int] = []
    vias: list[int] = []
    banned: list[int] = []
    for row in range(len(rows)):
        card = db.cards.at(row)
        last: tuple[int, int] | None = None
        runs = 0
        for day in _days(fmt, db, card):
            via = fmt.legal_via(card, db, day)
            ban = fmt.ban_for(card, db, day)
            answer = (0 if via is None else rows[via.id] + 1, 0 if ban is None else bans[id(ban)])
            if answer != last:
                starts.append(day.toordinal() if runs else 0)
                vias.append(answer[0])
                banned.append(answer[1])
                last = answer
                runs += 1
        sizes.append(runs)
    return {"digest": fmt.legality_digest(), "sizes": sizes, "starts": starts, "via": vias, "ban": banned}


def _row_ids(db: CardDB) -> list[str]:
    """The card id of each row (a database read from a dict whose ids are unique: row order)."""
    ids = list(db.cards)
    if len(ids) != len(db.cards._made):
        raise ValueError("a card id is on two rows: the pack's legality needs one row per card")
    return ids
