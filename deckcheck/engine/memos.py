"""The engine's memos of resolved card lines, held by the engine beside what they were made for.

For each format object, per (database object, date), a :class:`LineTables`: the line memo (line text
-> ``deck.LineFacts``), what a line naming a printing by set code and number comes to, and the
format's legality table for that date (the format's own memo, :meth:`Format.legality_table
<deckcheck.formats.Format.legality_table>`). Lines resolved without a format (a date before the
format's data) have tables per database object and date. An entry goes with the format or database
object it was made for: a swapped-in database, or a format made anew (the rotation forecast's), starts
with none. Each memo is bounded (the sizes below).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from ..formats.memos import LEGALITY_MEMO_DATES
from ..memo import Memo, MemosOf

if TYPE_CHECKING:
    from ..cards import Card, CardDB
    from ..formats import Format

#: card lines one line memo keeps (line text -> LineFacts)
LINE_MEMO_SIZE = 2048
#: the dates the engine keeps tables for, per format object (or per database object without a format): as
#: many as the format keeps legality memos for (a table holds its date's legality memo)
LINE_MEMO_DATES = LEGALITY_MEMO_DATES
#: printings one printings table keeps: at most one entry per card of the database, which never fills it
PRINTINGS_MEMO_SIZE = 1 << 17


class LineTables:
    """What the engine keeps for one format (or none), database object and date: ``lines``, the line memo
    (line text -> ``deck.LineFacts``); ``printings``, what a line naming a printing by set code and number
    comes to (card id -> the card, its legality and what the deck's index needs of it); ``legality``,
    the format's legality table for the date (None without a format)."""

    __slots__ = ("lines", "printings", "legality", "reader")

    def __init__(
        self, legality: Memo[Hashable, Any] | None, reader: Callable[[Card], tuple[Any, Any]] | None = None
    ) -> None:
        self.lines: Memo[str, Any] = Memo(LINE_MEMO_SIZE)
        self.printings: Memo[str, Any] = Memo(PRINTINGS_MEMO_SIZE)
        self.legality = legality
        #: the format's legality of a card on the date, through ``legality`` (:meth:`Format.legality_reader
        #: <deckcheck.formats.Format.legality_reader>`); None without a format
        self.reader = reader


def _by_date() -> Memo[Any, LineTables]:
    return Memo(LINE_MEMO_DATES)


#: format object -> ((database identity, date) -> its tables)
_BY_FORMAT: MemosOf[object, Memo[Any, LineTables]] = MemosOf(_by_date)
#: database object -> (date or None -> the tables of lines resolved without a format)
_BY_DATABASE: MemosOf[object, Memo[Any, LineTables]] = MemosOf(_by_date)


def line_tables(db: CardDB, fmt: Format | None, on: dt.date | None) -> LineTables:
    """The engine's tables for ``fmt`` (or no format), the database object ``db`` and the date ``on``."""
    if fmt is None or on is None:
        memo = _BY_DATABASE.of(db)
        tables = memo.get(on)
        return memo.put(on, LineTables(None)) if tables is None else tables
    memo, key = _BY_FORMAT.of(fmt), (db.identity, on)
    tables = memo.get(key)
    if tables is None:
        tables = memo.put(key, LineTables(fmt.legality_table(db, on), fmt.legality_reader(db, on)))
    return tables


def held(fmt: Format | None = None, db: CardDB | None = None) -> Memo[Any, LineTables]:
    """The memo of tables held for ``fmt`` (by database and date), or without a format for ``db`` (by date)."""
    if fmt is not None:
        return _BY_FORMAT.of(fmt)
    assert db is not None, "held() needs a format or a database"
    return _BY_DATABASE.of(db)


def forget_lines(printings: bool = True) -> None:
    """Empty every line memo the engine holds, and its printings tables unless ``printings`` is false
    (what benchmarks and tests of a never-seen line start from); the formats' legality tables stay theirs."""
    for memo in (*_BY_FORMAT.values(), *_BY_DATABASE.values()):
        for tables in memo.entries.values():
            tables.lines.clear()
            if printings:
                tables.printings.clear()
