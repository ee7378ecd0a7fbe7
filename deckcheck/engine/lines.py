"""Resolving a list's card lines: each line's printing, its legality in a format on a date and what
the deck's index needs of it (:class:`~deckcheck.deck.LineFacts`), kept in the line memos; and the
one pass that reads a text's lines and resolves them (:func:`_read_text`), :func:`~deckcheck.engine.check`'s
first step."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from ..cards import Card, CardDB, Resolution
from ..cards.localnames import list_language
from ..cards.usuallines import PrintedLine
from ..deck import LineFacts, ResolvedLine, line_profile
from ..decklist.fastline import BULLETS, COUNTS, card_parts, read_new
from ..decklist.lineread import CARD, HEADER, read_line
from ..decklist.parse import CardRow, ParseResult, card_rows, file_line
from ..formats import Ban, Format
from .memos import line_tables

#: most distinct unknown card names one deck gets "did you mean" suggestions for (each is a fuzzy
#: search of every card name); the rest get none and the report says how many (suggestions-skipped)
SUGGEST_MAX_NAMES = 25


def resolve_lines(
    parsed: ParseResult, db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> list[ResolvedLine]:
    """Each parsed card line with the printing it names (or None), and its legality in ``fmt`` on ``on``
    when they are given (in the same pass: the lines are made once, with every field)."""
    return resolve_rows(card_rows(parsed), db, fmt, on)


#: what a row's key in a line memo starts with (:func:`resolve_rows`): a line break, which no line of
#: a text has, so a row (a JSON deck's entry may be written as anything) never meets the facts
#: :func:`~deckcheck.engine.check` keeps under a text's line, and those are trusted without comparing fields
ROW_KEY = "\n"


class _Lines:
    """What resolving lines in one format on one date needs (:func:`_new_facts`), found once per check.
    Without a format (a date before the format's data) the lines are still resolved on the date: a
    printing chosen by name is one out on it (:meth:`~deckcheck.cards.db.CardDB.on_date`)."""

    __slots__ = ("db", "fmt", "on", "_day", "memo", "reader", "printings", "known", "clauses", "barred")

    def __init__(self, db: CardDB, fmt: Format | None, on: dt.date | None) -> None:
        self.db, self.known, self.clauses = db, db.resolution_memo(), db.deck_rules()
        self.barred = db.not_for_tournaments()
        self._day: str | None = None  # the date as ISO text (:attr:`day`), made on first use
        if fmt is None or on is None:
            self.fmt, self.on, self.memo, self.reader, self.printings = (
                None,
                on,
                line_tables(db, None, on).lines,
                None,
                None,
            )
        else:
            tables = line_tables(db, fmt, on)
            self.fmt, self.on, self.memo, self.reader, self.printings = (
                fmt,
                on,
                tables.lines,
                tables.reader,
                tables.printings,
            )

    def legality(self, card: Card) -> tuple[Card | None, Ban | None]:
        """(the printing that makes ``card`` legal, the ban on it) in the format on the date; (None, None)
        without a format (a date before the format's data)."""
        reader = self.reader
        return (None, None) if reader is None else reader(card)

    @property
    def day(self) -> str | None:
        """The date as ISO text, as a printing's release is written (compared with it); made when a
        line the memos do not hold first asks (a check of lines seen before never does)."""
        day = self._day
        if day is None and self.on is not None:
            day = self._day = self.on.isoformat()
        return day

    def by_name(self, res: Resolution) -> Resolution:
        """A resolution by name (``name``: no set code, an ALT or unknown one) on the date, preferring
        a printing legal then: when the newest printing out on the date is not legal in the format
        (nor legal through a reprint), the newest one out that is, else that one
        (:meth:`~deckcheck.cards.db.CardDB.released_printings`). A printing that cannot be used at
        official tournaments is never the legal one chosen."""
        card, day = res.card, self.day
        if card is None or res.method != "name" or self.fmt is None or day is None:
            return res
        barred = self.barred
        via, ban = self.legality(card)
        if via is not None and ban is None and card.id not in barred:
            return res
        for other in self.db.released_printings(card, day):
            if other is not card and other.id not in barred:
                via, ban = self.legality(other)
                if via is not None and ban is None:
                    return Resolution(other, res.method, (), res.name_differs, res.language)
        return res


def _new_facts(at: _Lines, raw: str, count: int, name: str, set_code: str | None, number: str | None) -> LineFacts:
    """The facts of a line the memos do not hold."""
    db = at.db
    # the usual line names its printing by set code, number and printed name: a few look-ups, and
    # the printing's legality and profile are the same for every line naming it
    card = db.printing_named(name, set_code, number) if set_code and number else None
    if card is not None:
        return _printing_facts(at, raw, count, (card, name, set_code, number))  # type: ignore[arg-type]
    res = at.known.get((name, set_code, number)) or db.resolve_parts(name, set_code, number, suggest=False)
    if res.language is not None and set_code is not None and number is None and res.card is not None:
        whole = f"{name} {set_code}"  # the reader's "set code" may be the name's last word (Lugia V ASTRO)
        if db.local_whole(whole, res.card):
            name, set_code = whole, None
    # the resolution is the same on every date; the printing chosen by name is one out on this date
    res = at.by_name(db.on_date(res, at.day))
    via, ban = at.legality(res.card) if res.card is not None else (None, None)
    return LineFacts(count, name, set_code, number, res, via, ban, raw)


#: ``object.__new__``, bound once (a new line's facts are made without their ``__init__``)
_new_object = object.__new__


def _printing_facts(at: _Lines, raw: str, count: int, hit: PrintedLine) -> LineFacts:
    """The facts of a new line whose printing ``hit`` names, (card, name, set code, number), as
    :meth:`~deckcheck.cards.db.CardDB.printing_named` or :meth:`~deckcheck.cards.db.CardDB.printed_line`
    match it (what ``resolve_parts`` answers as ``Resolution(card, "printing")``); its legality and
    profile from the format's printing table when the card is there. The one pass calls it for every
    usual line it has not seen: the parts come as the index's tuple, unpacked here."""
    # LineFacts(count, name, set_code, number, Resolution(card, "printing"), via, ban, raw) set slot
    # by slot: no Resolution made, no __init__ call, no tuple of values
    facts: LineFacts = _new_object(LineFacts)
    card, facts.name, facts.set_code, facts.number = hit
    facts.raw = raw
    facts.count = count
    facts.card = card
    facts.method = "printing"
    facts.name_differs = False
    facts.language = None
    facts.suggestions = ()
    facts.json_tail = None
    printings = at.printings
    entry = printings.get(card.id) if printings is not None else None
    if entry is not None and entry[0] is card:  # this database's card (another of its version has its own)
        _, facts.legal_via, facts.ban, facts.profile = entry
        return facts
    facts.legal_via, facts.ban = at.legality(card)
    facts.profile = line_profile(facts, at.clauses, at.barred)
    if printings is not None:
        printings.put(card.id, (card, facts.legal_via, facts.ban, facts.profile))
    return facts


def resolve_rows(
    rows: list[CardRow], db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> list[ResolvedLine]:
    """:func:`resolve_lines` for the card rows of :func:`~deckcheck.decklist.parse.read` (or of a JSON deck)."""
    at = _Lines(db, fmt, on)
    memo = at.memo
    new, out = object.__new__, []
    asked: set[str] = set()  # the unknown names given suggestions, the first SUGGEST_MAX_NAMES
    for n, section, fields in rows:
        raw, count, name = fields["raw"], fields["count"], fields["name"]
        set_code, number = fields["set_code"], fields["number"]
        key = ROW_KEY + raw
        facts = memo.get(key)
        if (
            facts is None
            or facts.name != name
            or facts.number != number
            or facts.set_code != set_code
            or facts.count != count
        ):
            facts = memo.put(key, _new_facts(at, raw, count, name, set_code, number))
        if facts.card is None:
            facts = _suggested(facts, db, asked)
        ln = new(ResolvedLine)
        ln.line, ln.section, ln.facts = n, section, facts
        out.append(ln)
    return out


def _suggested(facts: LineFacts, db: CardDB, asked: set[str]) -> LineFacts:
    """The facts of an unknown card's line with its suggestions looked up, for the first
    :data:`SUGGEST_MAX_NAMES` names of a deck (``asked``); past them, a copy with none."""
    name = facts.name
    if name in asked or len(asked) < SUGGEST_MAX_NAMES:
        asked.add(name)
        if facts.suggestions is None:
            facts.suggestions = db.suggest(name)
        return facts
    return facts.alone(())  # over the budget: none, and not the shared facts' JSON (which may have some)


def _read_text(
    lines: list[str], db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> tuple[ParseResult, list[ResolvedLine]]:
    """:func:`~deckcheck.decklist.parse.read` and :func:`resolve_rows` of a text's lines in one pass: a line
    the line memo holds is a card line with its facts (one look-up); any other is read (a card line
    of the usual shape by :func:`~deckcheck.decklist.fastline.card_parts`, else the parser's memo or
    :func:`~deckcheck.decklist.fastline.read_new`) and, when a card line, resolved and kept. The parse result
    holds the problems and the declared total, not the headers: a header sets the section of the card
    lines after it, and :func:`~deckcheck.engine.check` reports no headers
    (:func:`~deckcheck.decklist.parse.parse` does)."""
    at = _Lines(db, fmt, on)
    memo = at.memo
    facts_of, put = memo.get, memo.put
    known, classify, usual = read_line.memo.get, read_new, card_parts
    # an entry of the index may hold the card's row, not yet the card (looked at below)
    printed: Callable[[str], PrintedLine | None] = db.known_lines().get  # type: ignore[assignment]
    printed_line, counts, bullets = db.printed_line, COUNTS.get, BULLETS
    # the line memo's put written out below (a call costs about what the rest of a known line's
    # path does), with its bounds
    lmemo, size = memo.entries, memo.size
    max_len = memo.max_len if memo.max_len is not None else float("inf")
    result, new, out = ParseResult(), object.__new__, []
    asked: set[str] = set()
    section: str | None = None
    for n, raw in enumerate(lines, start=1):
        if not raw:
            continue
        facts = facts_of(raw)
        if facts is None:
            # a line the parser's memo holds (a header, a card line read before); else the usual
            # line (a count, a blank, a printing's name, set code and number as the database's index
            # of them writes them: CardDB.printed_line) with one split and one look-up; else the
            # usual card line's parts by the pattern, without the parser's field dict and memo entry
            # (the line memo keeps the line); else read as the parser reads it
            kind = known(raw)
            if kind is None:
                head, _, rest = raw.partition(" ")
                if head in bullets:  # PTCGO's "* 4 Dreepy TWM 128"
                    head, _, rest = rest.partition(" ")
                count = counts(head)
                if count is not None:
                    hit = printed(rest)
                    if hit is None or hit[0].__class__ is int:  # type: ignore[comparison-overlap]  # a row: no card yet
                        hit = printed_line(rest)
                    if hit is not None:
                        facts = _printing_facts(at, raw, count, hit)
                        if len(raw) <= max_len:
                            if len(lmemo) >= size and raw not in lmemo:
                                lmemo.clear()
                            lmemo[raw] = facts
                if facts is None:
                    # the pattern's card line starts with a count or a bullet: a header goes to the reader
                    parts = usual(raw) if count is not None or raw[0] in bullets else None
                    if parts is not None:
                        facts = put(raw, _new_facts(at, raw, *parts))
                    else:
                        kind = classify(raw)
            if facts is None:
                what = kind[0]  # type: ignore[index]
                if what != CARD:
                    # a header opens its section; check() reports no headers (parse() does), so none is made
                    section = kind[1] if what == HEADER else file_line(result, n, kind, section)  # type: ignore[index,arg-type]
                    continue
                fields = kind[1]  # type: ignore[index]
                count, name, set_code, number = fields["count"], fields["name"], fields["set_code"], fields["number"]
                facts = put(raw, _new_facts(at, raw, count, name, set_code, number))
        if facts.card is None:
            facts = _suggested(facts, db, asked)
        ln = new(ResolvedLine)
        ln.line = n
        ln.section = section
        ln.facts = facts
        out.append(ln)
    return result, out


def _in_list_language(
    lines: list[ResolvedLine], db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> bool:
    """Read a list in its language when some of its names are in another (:mod:`deckcheck.cards.localnames`):
    a name-only line whose name that language writes for another card than the one it was read as
    (in :data:`~deckcheck.cards.localnames.LANGUAGES`' order) is that language's card, and an unknown
    card's "did you mean" names are that language's names (for the first :data:`SUGGEST_MAX_NAMES`
    names, as :func:`_suggested`). The lines changed get facts of their own (the shared ones are
    the line's in any list). Asked only for a list with a name read in another language (its
    :class:`Deck`'s ``localized``); answers whether a line now names another card (the deck is then
    made again: other suggestions change no list of it)."""
    localized = [ln for ln in lines if ln.facts.language is not None]
    lang = list_language(localized, db.local_names())
    if lang is None:
        return False
    changed = False
    at: _Lines | None = None
    asked: set[str] = set()
    for ln in lines:
        facts = ln.facts
        if facts.card is None and facts.method != "printing":
            # a name another language writes for a card not printed yet on the date (German Ultraball,
            # Beast Ball, 2018): in the list's language it may be a card that was (Spanish Ultraball)
            res = db.resolve_in(facts.name, facts.set_code, facts.number, lang)
            if res is not None and res.card is not None:
                at = at or _Lines(db, fmt, on)
                res = at.by_name(db.on_date(res, at.day))
                if res.card is not None:
                    via, ban = at.legality(res.card)
                    ln.facts = LineFacts(
                        facts.count, facts.name, facts.set_code, facts.number, res, via, ban, facts.raw
                    )
                    changed = True
                    continue
        if facts.card is None:
            name = facts.name
            if name in asked or len(asked) < SUGGEST_MAX_NAMES:
                asked.add(name)
                ln.facts = facts.alone(db.suggest_in(name, lang))  # the deck's lists hold the line: no new deck
        elif facts.language not in (None, lang) and facts.method not in ("printing", "alias"):
            res = db.resolve_in(facts.name, facts.set_code, facts.number, lang)
            if res is None:
                continue
            at = at or _Lines(db, fmt, on)
            res = at.by_name(db.on_date(res, at.day))  # a printing out on the date, as every name
            if res.card is not None and res.card is not facts.card:
                via, ban = at.legality(res.card)
                ln.facts = LineFacts(facts.count, facts.name, facts.set_code, facts.number, res, via, ban, facts.raw)
                changed = True
                continue
        if facts.card is not None and facts.language not in (None, lang):
            # the same card's name in the list's language too (Charizard Radiante, Spanish and Portuguese):
            # the line says the list's language, as the note counts it
            names = db.local_names()
            if names is not None and lang in names.languages_of(facts.name, facts.card.key.lower()):
                res = Resolution(facts.card, facts.method, (), facts.name_differs, lang)
                ln.facts = LineFacts(
                    facts.count, facts.name, facts.set_code, facts.number, res, facts.legal_via, facts.ban, facts.raw
                )
                changed = True
    return changed
