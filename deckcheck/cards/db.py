"""The card database: all printings with their indexes, and card resolution.

A card's identity is its printing (set and collector number). Resolution goes
(set code, number) -> alias tables -> (name, set) -> name only (newest
printing) -> unresolved with "did you mean" suggestions; on a check's date, a printing chosen by
name is one released by then (:meth:`~deckcheck.cards.releases.ReleaseRules.on_date`). Its memos
(:mod:`deckcheck.memo`) are held by the database object's
:class:`~deckcheck.cards.dbmemos.DBMemos`, so a swapped-in database starts empty.

:class:`CardDB` is this module's look-ups and resolution with three bases, one job each, whose
methods are the database's own (no call added on a line's path): the index of usual lines
(:mod:`deckcheck.cards.usuallines`), the date rules (:mod:`deckcheck.cards.releases`) and the
names in other languages (:mod:`deckcheck.cards.inlanguage`). How lists write what the card data
writes otherwise is :mod:`deckcheck.cards.spellings`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from itertools import islice
from typing import Any

from ..memo import Memo
from ..names import basic_energy_type, lookup_key
from .bypass import Bypass
from .dbmemos import DBMemos
from .deckrules import DeckRule
from .index import SEP, number_norm
from .inlanguage import OtherLanguages
from .packfacts import StoredLegality
from .printings import Card, CardSet, CardTable, NumberTable, PrintingTable, Resolution, SetAlias
from .releases import ReleaseRules
from .spellings import MAX_NUMBER_LEN, NUMBERED_ENERGY, WRITTEN_ENERGY, e4_spelling, split_code_number
from .usuallines import Place, UsualLineIndex, UsualLines

#: the look-ups of the spellings' tables (:mod:`deckcheck.cards.spellings`), bound once: CPython
#: compiles ``NAME.get(...)`` on an imported name as an attribute load that makes a bound method on
#: every call, and resolution reads these for every new line
_written_type = WRITTEN_ENERGY.get
_numbered_type = NUMBERED_ENERGY.get


def _no_card(row: int) -> Card:
    raise KeyError(row)  # an empty table has no rows


class CardDB(UsualLineIndex, ReleaseRules, OtherLanguages):
    """All printings with their indexes. Build with :func:`~deckcheck.cards.load`; never mutated after
    (its tables and memos fill on use). Two databases are two objects: equal only when the same."""

    def __init__(
        self, cards: CardTable, sets: dict[str, CardSet], meta: dict[str, Any], version: str, path: str | None = None
    ) -> None:
        self.cards = cards
        self.sets = sets
        self.meta = meta
        self.version = version
        self.path = path
        self._by_code: dict[str, tuple[str, ...]] = {}
        self._aliases: dict[str, SetAlias] = {}
        #: (set id, number key) -> printings; find() asks it by the index's own key (number_slot)
        self._by_number = NumberTable({}, CardTable({}, _no_card))
        #: lookup key (lower-cased name key) -> printings, newest first
        self._by_name = PrintingTable({}, CardTable({}, _no_card))
        self._names: list[str] = []
        self._basic_energy: dict[str, Card] = {}
        #: card id -> the deck-building clause it prints (``data/deck-rules.csv``)
        self._deck_rules: dict[str, DeckRule] = {}
        #: card id -> its sentence "This card cannot be used at official tournaments" (``data/deck-rules.csv``)
        self._not_tournament: dict[str, str] = {}
        #: name key -> what that card reaches without evolving (``data/evolution-bypass.csv``)
        self._bypasses: dict[str, tuple[Bypass, ...]] = {}
        #: the memos of resolution, suggestions and the engine's lines, held by this object
        self._memos = DBMemos()
        #: the longest name key (how long a query can be and still be close to a name)
        self._longest_name = 0
        #: what :meth:`info` answers, made on its first call
        self._info: dict[str, Any] | None = None
        #: the newest set with cards (:meth:`newest_set`), found when the database is indexed
        self._newest: CardSet | None = None
        #: every set id, upper-cased (:meth:`knows_set`)
        self._set_ids: frozenset[str] = frozenset()
        #: set code -> where :meth:`printing_named` looks for its numbers (:data:`Place`), for the codes
        #: it looks in; made code by code (:meth:`_place`), or all at once (:meth:`_printing_places`)
        self._places: dict[str, Place] = {}
        #: the index of usual lines (:meth:`printed_line`), made code by code
        self._usual = UsualLines()
        #: basic Energy name key -> type (:meth:`_energy_types`), made on first use
        self._energy_keys: dict[str, str] | None = None
        #: what the formats' and the engine's tables of this database are kept under
        #: (:mod:`deckcheck.engine.memos`): an object of its own, not its version (another
        #: database object of the same version has cards of its own, and the tables answer with cards)
        self.identity = object()
        #: the card names in other languages (:meth:`local_names`), read on first use (False until then)
        self._local: Any = False
        #: format id -> its legality of every row, as the pack holds it (:meth:`stored_legality`)
        self._legality: dict[str, StoredLegality] = {}

    def info(self) -> dict[str, Any]:
        """What a report says about the database it used (a new dict each call): its version,
        build time, sources' versions, size and newest set (``/readyz``, ``db status``, metrics)."""
        info = self._info
        if info is None:  # the database never changes: made once, copied for each report
            newest = self.newest_set()
            info = self._info = {
                "version": self.version,
                "built_at": self.meta.get("built_at"),
                "sources": self.meta.get("sources", {}),
                "cards": len(self.cards),
                "sets": len(self.sets),
                "newest_set": newest_set_info(newest) if newest else None,
            }
        return info.copy()

    def stored_legality(self, format_id: str) -> StoredLegality | None:
        """The legality of every printing in the format ``format_id`` that the database's pack holds
        (:mod:`deckcheck.formats.stored`: the format checks it was made from its own pool and bans),
        or None."""
        return self._legality.get(format_id)

    def newest_set(self) -> CardSet | None:
        """The set with the latest release date that has cards in this database (None when empty).

        The database knows nothing released after it: a decklist naming a newer set is the
        sign that the database, not the list, is out of date.
        """
        return self._newest

    def knows_set(self, code: str) -> bool:
        """Is ``code`` (any case) a set this database knows: a set's own code, one of its
        aliases, a row of ``data/set-aliases.csv`` (including the ``by-name`` and ``energy``
        pseudo sets) or a set id (``me05``)? The one place that decides whether a line's set
        is unknown."""
        key = code.upper()
        return key in self._by_code or key in self._aliases or key in self._set_ids

    def age_days(self, on: dt.date) -> int | None:
        """Days from the newest set's release to ``on`` (a date); None when that is not known."""
        newest = self._newest
        if newest is None or not newest.release:
            return None
        return (on - dt.date.fromisoformat(newest.release)).days

    # -- lookups -------------------------------------------------------------

    def get(self, card_id: str) -> Card | None:
        return self.cards.get(card_id)

    def by_name(self, name: str) -> tuple[Card, ...]:
        """Every printing with this name, newest first."""
        return self._by_name.slot(lookup_key(name))

    def printings_of(self, card: Card) -> tuple[Card, ...]:
        return self._by_name.slot(card.key.lower())

    def sets_for_code(self, code: str) -> tuple[str, ...]:
        code = code.upper()
        alias = self._aliases.get(code)
        own = self._by_code.get(code, ())
        return own + tuple(s for s in (alias.sets if alias else ()) if s not in own)

    def find(self, set_code: str, number: str) -> Card | None:
        """The printing with this set code and collector number, through the alias table."""
        if len(number) > MAX_NUMBER_LEN:
            return None
        code = set_code.upper()
        slot = self._by_number.slot
        norm = SEP + number_norm(number)
        for set_id in self._by_code.get(code, ()):
            hit = slot(set_id + norm)
            if hit:
                return hit[0]
        alias = self._aliases.get(code)
        if alias is None or alias.action != "lookup":
            return None
        for candidate in _alias_numbers(number, alias):
            norm = SEP + number_norm(candidate)
            for set_id in alias.sets:
                hit = slot(set_id + norm)
                if hit:
                    return hit[0]
        return None

    def find_named(self, set_code: str, number: str, name: str) -> Card | None:
        """The printing with this set code and collector number that bears ``name`` (its name key),
        where several share them: a code of two sets (``CEL`` is Celebrations and its Classic
        Collection: ``Charizard CEL 4`` is the Classic Collection's, CEL 4 in Celebrations is
        Palkia), or one number for several cards (pokemontcg.io's Classic Collection numbers four
        cards 15). None when none bears that name. Looked at in :meth:`find`'s order."""
        if len(number) > MAX_NUMBER_LEN:
            return None
        code = set_code.upper()
        alias = self._aliases.get(code)
        places = [(set_id, number) for set_id in self._by_code.get(code, ())]
        if alias is not None and alias.action == "lookup":
            places += [(set_id, n) for n in _alias_numbers(number, alias) for set_id in alias.sets]
        key = lookup_key(name)
        for set_id, n in places:
            for card in self._by_number.slot(set_id + SEP + number_norm(n)):
                if card.name == name or key == card.key.lower():
                    return card
        return None

    def deck_rules(self) -> dict[str, DeckRule]:
        """Card id -> the deck-building clause that printing carries (read only)."""
        return self._deck_rules

    def not_for_tournaments(self) -> dict[str, str]:
        """Card id -> the printed sentence that keeps that printing out of official tournaments
        ("This card cannot be used at official tournaments."), read only."""
        return self._not_tournament

    def bypasses(self) -> dict[str, tuple[Bypass, ...]]:
        """Name key -> the Evolution Pokémon that card brings into play or uses without evolving, for
        each set of its printings with that text."""
        return self._bypasses

    def basic_energy(self, energy_type: str) -> Card | None:
        return self._basic_energy.get(energy_type)

    def energy_by_number(self, name: str, set_code: str | None, number: str | None) -> str | None:
        """The basic Energy type that a line's set code and number name, whatever its name says:
        Limitless's ``Energy`` pseudo set numbers its basic Energy as the set of its row in
        ``data/set-aliases.csv`` does (``Basic {P} Energy Energy 13`` is SVE 13, Psychic), and a
        basic Energy with a number and no set code is
        :data:`~deckcheck.cards.spellings.NUMBERED_ENERGY`'s (``Steel Energy 8`` is Metal). None for any
        other line, or a number that names no basic Energy."""
        if not number or len(number) > MAX_NUMBER_LEN:
            return None
        if set_code is None:
            return _numbered_type(number.lstrip("0")) if name[-6:].casefold() == "energy" else None
        alias = self._aliases.get(set_code.upper())
        if alias is None or alias.action != "energy":
            return None
        norm = SEP + number_norm(number)
        types = self._energy_types()
        for set_id in alias.sets:
            for card in self._by_number.slot(set_id + norm):
                if card.is_basic_energy:
                    return types.get(card.key)
        return None

    def _energy_types(self) -> dict[str, str]:
        """A basic Energy printing's name key -> its type (``fire energy`` -> ``Fire``), made once from
        each type's newest printing (every printing of a type has its key)."""
        made = self._energy_keys
        if made is None:
            made = self._energy_keys = {card.key: kind for kind, card in self._basic_energy.items()}
        return made

    def suggest(self, name: str, limit: int = 3) -> tuple[str, ...]:
        """Up to ``limit`` card names close to ``name`` (rapidfuzz; memoised for short names)."""
        memo = self._memos.suggested
        hit = memo.get((name, limit))
        if hit is None:
            hit = memo.put((name, limit), self._suggest(name, limit))
        return hit

    def _suggest(self, name: str, limit: int) -> tuple[str, ...]:
        query = lookup_key(name)
        # QRatio is at most 200*m/(n+m) for lengths n > m, under the cutoff of 60 once n > 7m/3:
        # a query that long cannot match any name, and is not compared with 4,500 of them
        if not query or 3 * len(query) > 7 * self._longest_name:
            return ()
        # imported here: only a line that resolves to nothing needs it
        from rapidfuzz import fuzz, process

        hits = process.extract(query, self._names, scorer=fuzz.QRatio, limit=limit * 3, score_cutoff=60)
        seen, out = set(), []
        for key, _score, _ in hits:
            display = self._by_name[key][0].name
            if display not in seen:
                seen.add(display)
                out.append(display)
        return tuple(out[:limit])

    def search(
        self, query: str = "", set_code: str | None = None, number: str | None = None, limit: int = 20
    ) -> list[Card]:
        """Cards for lookup and autocomplete: exact printing, else exact name, else fuzzy names; a set code
        alone keeps the set's printings, a collector number alone the printings with that number."""
        if set_code and number:
            hit = self.find(set_code, number)
            return [hit] if hit else []
        pool_sets = set(self.sets_for_code(set_code)) if set_code else None
        wanted = number_norm(number.strip()) if number else None
        keep: Callable[[Card], bool]
        if pool_sets is not None:
            keep = lambda c: c.set_id in pool_sets  # noqa: E731
        elif wanted is not None:
            keep = lambda c: number_norm(c.number) == wanted  # noqa: E731
        else:
            keep = lambda c: True  # noqa: E731
        key = lookup_key(query or "")
        if not key:
            # no name to look for (empty, blanks or punctuation): a set's or a number's cards, or nothing
            if pool_sets is None and wanted is None:
                return []
            return list(islice((c for c in self.cards.values() if keep(c)), limit))
        from rapidfuzz import fuzz, process

        out: list[Card] = [c for c in self.by_name(query) if keep(c)]
        prefixed = [k for k in self._names if k.startswith(key) and k != key]
        fuzzy = (
            [k for k, _s, _i in process.extract(key, self._names, scorer=fuzz.QRatio, limit=limit, score_cutoff=60)]
            if 3 * len(key) <= 7 * self._longest_name
            else []
        )  # see _suggest
        for k in prefixed[:limit] + fuzzy:
            out.extend(c for c in self._by_name[k] if keep(c))
            if len(out) >= limit:
                break
        seen, unique = set(), []
        for c in out:
            if c.id not in seen:
                seen.add(c.id)
                unique.append(c)
        return unique[:limit]

    # -- resolution ----------------------------------------------------------

    def resolve_parts(self, name: str, set_code: str | None, number: str | None, suggest: bool = True) -> Resolution:
        """Match a card line's name, set code and number to a printing; never raises.

        Only these matter, so answers are memoised on them (at most
        :data:`~deckcheck.cards.dbmemos.RESOLVE_MEMO_SIZE`, in this database object only). An unresolved answer gets
        suggestions from :meth:`suggest` unless ``suggest`` is false (the engine asks for them
        itself, for a bounded number of names per deck).
        """
        key = (name, set_code, number)
        memo = self._memos.resolved
        hit = memo.get(key)
        if hit is None:
            hit = self._local_whole(name, set_code, number) or self._resolve(name, set_code, number)
            if hit.card is None:  # no English name: a name in another language (the same index)
                hit = self._resolve_local(name, set_code, number, None)
            hit = memo.put(key, hit)
        if suggest and hit.card is None and not hit.suggestions:
            found = self.suggest(name)
            if found:
                hit = Resolution(None, hit.method, found)
                if key in memo:
                    memo.put(key, hit)
        return hit

    def resolution_memo(self) -> Memo[tuple[str, str | None, str | None], Resolution]:
        """The memo of :meth:`resolve_parts`, ``(name, set code, number) -> Resolution``: a hot
        loop may look in it first and call ``resolve_parts`` on a miss. Read only."""
        return self._memos.resolved

    def clear_memo(self) -> None:
        """Forget the memoised resolutions and suggestions (benchmarks use it to time cold lookups)."""
        self._memos.clear()

    def _joined(self, set_code: str | None, number: str | None) -> tuple[str | None, str | None]:
        """A set code and number written together (``4 Bronzor TEF68``: the reader's set code ``TEF68``,
        no number) split, when the token is no set the database knows and the split names a printing
        (:func:`split_code_number`); else the two as they are."""
        if set_code and not number and not self.knows_set(set_code):
            split = split_code_number(set_code)
            if split is not None and self.find(*split) is not None:
                return split
        return set_code, number

    def _numbered_energy(self, name: str, set_code: str | None, number: str | None) -> Resolution | None:
        """A basic Energy whose set code and number name its type (:meth:`energy_by_number`), matched
        by that type: ``name_differs`` when the name written is not that type's (``Basic Flame Energy
        Energy 2`` is Fire Energy). None when they name no type, or the name is another card's (``Double
        Colorless Energy 9`` is not Fairy Energy)."""
        numbered = self.energy_by_number(name, set_code, number)
        if numbered is None:
            return None
        written = _written_type(name) or basic_energy_type(name)
        if written is None:
            named = self.by_name(name)
            if named and not named[0].is_basic_energy:
                return None
        card = self.basic_energy(numbered)
        return Resolution(card, "basic-energy", (), written != numbered) if card is not None else None

    def _resolve(self, name: str, set_code: str | None, number: str | None) -> Resolution:
        glyph = e4_spelling(name)
        if glyph is not None and not self.by_name(name) and self.by_name(glyph):
            name = glyph  # "Infernape 4" is Infernape E4: resolved, and compared, under the card data's name
        set_code, number = self._joined(set_code, number)
        numbered = self._numbered_energy(name, set_code, number)
        if numbered is not None:
            return numbered
        code = (set_code or "").upper()
        alias = self._aliases.get(code)
        energy = _written_type(name) or basic_energy_type(name)
        if code and number and (alias is None or alias.action == "lookup"):
            card = self.find(code, number)
            if card is not None:
                if energy and not card.is_basic_energy and lookup_key(name) != card.key.lower():
                    # a basic Energy name on a wrong number: fall through to the type (the printing
                    # given is kept when it has that name: Darkness Energy EX 158 is a Special Energy)
                    card = None
                else:
                    # a basic Energy of another type than the name says is flagged too (the printing wins)
                    differs = lookup_key(name) != card.key.lower()
                    bearer = self.find_named(code, number, name) if differs else None
                    if bearer is not None:  # another printing at this code and number bears the name
                        card, differs = bearer, False
                    # the printing's name in another language (Hyper Ball SVI 196 is Ultra Ball): no mismatch;
                    # of a code several sets print (ORP is Lost Origin and Perfect Order in French), the one
                    # that bears it
                    language = self._language_of(name, card) if differs else None
                    if differs and language is None:
                        card, language = self._local_bearer(code, number, name) or (card, None)
                    method = "printing" if code in self._by_code else "alias"
                    return Resolution(card, method, (), differs and language is None, language)
        if energy and self.basic_energy(energy):
            if code and (alias is None or alias.action == "lookup"):
                # a wrong number in a set whose card of this name is a Special Energy named like a
                # basic type (Darkness Energy N1 105 for N1 104): that card, never the basic Energy
                in_set = set(self.sets_for_code(code))
                for card in self.by_name(name):
                    if card.set_id in in_set and not card.is_basic_energy:
                        return Resolution(card, "name-and-set")
            # a set code that found no printing (a wrong number, the Limitless builder's "BRS R",
            # an unknown set): matched by its type, and the line says so; the Limitless "Energy"
            # pseudo set and a bare name are no printing to miss
            missed = code and (alias is None or alias.action == "lookup")
            return Resolution(self.basic_energy(energy), "name" if missed else "basic-energy")
        if code and not number:
            # "Unown [A]", "Ancient Technical Machine [Rock]": the bracket the parser took for a set
            # code is part of a printed name
            bracketed = self.by_name(f"{name} [{set_code}]")
            if bracketed:
                return Resolution(bracketed[0], "name")
        named = self.by_name(name)
        if named and code and (alias is None or alias.action == "lookup"):
            in_set = set(self.sets_for_code(code))
            for card in named:
                if card.set_id in in_set:
                    return Resolution(card, "name-and-set")
        if named:
            return Resolution(named[0], "name")
        return Resolution(None, "unresolved")


def _alias_numbers(number: str, alias: SetAlias) -> list[str]:
    """Candidate collector numbers for an alias row (prefix and Limitless offsets)."""
    digits = number.strip()
    if not digits.isdigit():
        return [digits]
    out = []
    if alias.offset and int(digits) > alias.offset:
        out.append(f"{alias.prefix}{int(digits) - alias.offset}")
    elif not alias.offset:
        out.append(f"{alias.prefix}{digits}")
    return out


def newest_set_info(s: CardSet) -> dict[str, str | None]:
    """A set as the database's facts name it: ``{"id", "name", "code", "release"}``."""
    return {"id": s.id, "name": s.name, "code": s.code, "release": s.release}
