"""The card database: all printings with their indexes, and card resolution.

A card's identity is its printing (set and collector number). Resolution goes
(set code, number) -> alias tables -> (name, set) -> name only (newest
printing) -> unresolved with "did you mean" suggestions; on a check's date, a printing chosen by
name is one released by then (:meth:`CardDB.on_date`). Its memos (:mod:`deckcheck.memo`)
are held by the database object's :class:`DBMemos`, so a swapped-in database starts empty.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..memo import Memo
from ..names import BASIC_ENERGY_TYPES, ENERGY_TYPES, basic_energy_type, lookup_key
from .bypass import Bypass
from .deckrules import DeckRule
from .index import SEP, number_norm
from .printings import Card, CardSet, CardTable, DatabaseError, NumberTable, PrintingTable, Resolution, SetAlias

if TYPE_CHECKING:
    from .localnames import LocalNames

#: the longest collector number looked up: no printing's is longer (the pool's longest, SWSH001, has 7
#: characters); a longer one written in a list (a JSON "number", the Limitless builder's Energy tail)
#: finds nothing without being read as an integer (int() refuses over 4,300 digits)
MAX_NUMBER_LEN = 16


def _written_energy() -> dict[str, str]:
    """The basic Energy names as lists write them (``Basic {R} Energy``, ``Basic Fire Energy``,
    ``Fire Energy``, ``{R} Energy``) -> the type :func:`~deckcheck.names.basic_energy_type` reads
    (tests/decklist/test_fast_paths.py checks every entry against it)."""
    out: dict[str, str] = {}
    for letter, word in ENERGY_TYPES.items():
        if word in BASIC_ENERGY_TYPES:
            for written in (word, f"{{{letter}}}"):
                out[f"{written} Energy"] = out[f"Basic {written} Energy"] = word
    return out


#: a basic Energy name as lists write it -> its type: a never-seen line's name read without
#: :func:`basic_energy_type`'s tokens (any other name goes to it)
WRITTEN_ENERGY = _written_energy()

#: the resolutions that chose a printing by name (no set code, an ALT or unknown code, basic Energy by
#: its type): among the printings released on the check's date (:meth:`CardDB.on_date`)
CHOSEN_BY_NAME = frozenset({"name", "basic-energy"})

#: the number PTCGO and early PTCGL lists write after a basic Energy with no set code (``* 11 Lightning
#: Energy 4``, ``8 Fire Energy 2``) -> its type: the types in their usual order, Grass 1 to Fairy 9
#: (reference 2.2 and 2.4; :meth:`CardDB.energy_by_number`)
NUMBERED_ENERGY = {str(i): word for i, word in enumerate(BASIC_ENERGY_TYPES, start=1)}

#: the longest set code a code and number written together may start with (``SVI181``, ``TEF68``:
#: :func:`split_code_number`), and the longest number it may end with
_JOINED_CODE_MAX, _JOINED_NUMBER_MAX = 8, 4


def split_code_number(token: str) -> tuple[str, str] | None:
    """``TEF68`` -> (``TEF``, ``68``): a set code and a collector number written together, split
    before the digits that end it; None when the token does not end in 1 to 4 digits after a code
    of 2 to 8 characters with a letter. Linear: one strip of the digits at the end. Whether the split
    names a printing is the database's to say (:meth:`CardDB.resolve_parts` takes it only then)."""
    head = token.rstrip("0123456789")
    digits = len(token) - len(head)
    if not (0 < digits <= _JOINED_NUMBER_MAX and 1 < len(head) <= _JOINED_CODE_MAX):
        return None
    if not (head.isascii() and head.replace("-", "").isalnum() and any(ch.isalpha() for ch in head)):
        return None
    return head, token[len(head) :]


@functools.cache
def _written_energy_keys() -> dict[str, str]:
    """:data:`WRITTEN_ENERGY`'s names -> their lookup keys (a printing's is ``card.key.lower()``)."""
    return {written: lookup_key(written) for written in WRITTEN_ENERGY}


#: the name endings lists write with a blank or a hyphen (``Dragapult ex`` / ``Dragapult-ex``, ``Shaymin-EX``
#: / ``Shaymin EX``, ``Xurkitree-GX``: the reference's card-data traps); the index of usual lines holds
#: a printing under both spellings (:meth:`CardDB._written_names`)
_SUFFIX_ENDINGS = (" ex", "-ex", " EX", "-EX", " GX", "-GX")

#: resolutions and suggestions a database keeps (each memo emptied when full)
RESOLVE_MEMO_SIZE = 8192
#: card lines the engine's line memos keep (one per database and date, one per format, database and date)
LINE_MEMO_SIZE = 2048
#: the dates a database keeps a line memo for (lines resolved without a format: a date before it)
LINE_MEMO_DATES = 4
#: a set code's usual lines are indexed (:meth:`CardDB.printed_line`) when this many of its lines have
#: been read the long way: indexing a code costs about what reading ~180 of its lines the long way
#: does (~1.4M instructions against ~8k a line, BENCHMARKS.md), so a process pays at most about twice
#: the better of the two (rent, then buy): one that checks a few lists reads them the long way, a
#: long-running one indexes the codes it meets often; a server's master indexes every code before it
#: forks (:meth:`CardDB.index_usual_lines`)
INDEX_AFTER = 160


class DBMemos:
    """The memos of one card database, held by it: a swapped-in database starts empty and never
    answers from another one's cards."""

    __slots__ = ("resolved", "suggested", "suggested_in", "lines")

    def __init__(self) -> None:
        #: (name, set code, number) -> Resolution
        self.resolved: Memo[tuple[str, str | None, str | None], Resolution] = Memo(RESOLVE_MEMO_SIZE)
        #: (name, limit) -> what :meth:`CardDB.suggest` found
        self.suggested: Memo[tuple[str, int], tuple[str, ...]] = Memo(RESOLVE_MEMO_SIZE)
        #: (name, language, limit) -> what :meth:`CardDB.suggest_in` found
        self.suggested_in: Memo[tuple[str, str, int], tuple[str, ...]] = Memo(RESOLVE_MEMO_SIZE)
        #: the engine's card lines resolved without a format, per date (a printing chosen by name is
        #: one out on it): date -> (line text -> engine.LineFacts), at most :data:`LINE_MEMO_DATES` dates
        self.lines: Memo[dt.date | None, Memo[str, Any]] = Memo(LINE_MEMO_DATES)

    def clear(self) -> None:
        """Forget every entry of every memo."""
        self.resolved.clear()
        self.suggested.clear()
        self.suggested_in.clear()
        self.lines.clear()


#: where :meth:`CardDB.printing_named` looks for a set code's numbers: its first set's number-index
#: key prefix (``sv01`` + SEP), its other sets' prefixes, and the number index's ``made.get`` and
#: ``slot`` (bound once, not looked up on every line)
Place = tuple[str, tuple[str, ...], Callable[[str], "tuple[Card, ...] | None"], Callable[[str], "tuple[Card, ...]"]]


#: what :meth:`CardDB.printed_line` answers: (the printing, name, set code, number as the line writes them)
PrintedLine = tuple[Card, str, str, str]
#: an entry of its table: the same, or the card's row until the card is first asked for
PrintedEntry = tuple[Card | int, str, str, str]


class UsualLines:
    """What :meth:`CardDB.printed_line` keeps, held by the database: a swapped-in database starts with
    none. Bounded by the database (its set codes, names, numbers and printings)."""

    __slots__ = ("table", "codes", "misses", "numbers", "names", "by_set")

    def __init__(self) -> None:
        #: the usual line's text after its count (``Nest Ball SVI 181``) -> (the printing or its row,
        #: name, set code, number), for the indexed codes
        self.table: dict[str, PrintedEntry] = {}
        #: the set codes indexed
        self.codes: set[str] = set()
        #: set code -> its lines read the long way before it is indexed (:data:`INDEX_AFTER`)
        self.misses: dict[str, int] = {}
        #: one string per number, and each name's usual shape (both repeat from code to code)
        self.numbers: dict[str, str] = {}
        self.names: dict[str, bool] = {}
        #: set id -> its ``by_number`` keys, made on the first code indexed
        self.by_set: dict[str, list[str]] | None = None


def _no_card(row: int) -> Card:
    raise KeyError(row)  # an empty table has no rows


@dataclass
class CardDB:
    """All printings with their indexes. Build with :func:`load`; never mutated after."""

    cards: CardTable
    sets: dict[str, CardSet]
    meta: dict[str, Any]
    version: str
    path: str | None = None
    _by_code: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _aliases: dict[str, SetAlias] = field(default_factory=dict)
    #: (set id, number key) -> printings; find() asks it by the index's own key (number_slot)
    _by_number: NumberTable = field(default_factory=lambda: NumberTable({}, CardTable({}, _no_card)))
    #: lookup key (lower-cased name key) -> printings, newest first
    _by_name: PrintingTable = field(default_factory=lambda: PrintingTable({}, CardTable({}, _no_card)))
    _names: list[str] = field(default_factory=list)
    _basic_energy: dict[str, Card] = field(default_factory=dict)
    #: card id -> the deck-building clause it prints (``data/deck-rules.csv``)
    _deck_rules: dict[str, DeckRule] = field(default_factory=dict)
    #: name key -> what that card reaches without evolving (``data/evolution-bypass.csv``)
    _bypasses: dict[str, Bypass] = field(default_factory=dict)
    #: the memos of resolution, suggestions and the engine's lines, held by this object
    _memos: DBMemos = field(default_factory=DBMemos, repr=False, compare=False)
    #: the longest name key (how long a query can be and still be close to a name)
    _longest_name: int = 0
    #: what :meth:`info` answers, made on its first call
    _info: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    #: the newest set with cards (:meth:`newest_set`), found when the database is indexed
    _newest: CardSet | None = field(default=None, repr=False, compare=False)
    #: every set id, upper-cased (:meth:`knows_set`)
    _set_ids: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    #: set code -> where :meth:`printing_named` looks for its numbers (:data:`Place`), for the codes
    #: it looks in; made on its first call (:meth:`_printing_places`)
    _places: dict[str, Place] = field(default_factory=dict, repr=False, compare=False)
    #: the index of usual lines (:meth:`printed_line`), made code by code
    _usual: UsualLines = field(default_factory=UsualLines, repr=False, compare=False)
    #: basic Energy name key -> type (:meth:`_energy_types`), made on first use
    _energy_keys: dict[str, str] | None = field(default=None, repr=False, compare=False)
    #: what the formats' tables of this database are kept under (:meth:`Format.line_tables
    #: <deckcheck.formats.Format.line_tables>`): an object of its own, not its version (another
    #: database object of the same version has cards of its own, and the tables answer with cards)
    identity: object = field(default_factory=object, init=False, repr=False, compare=False)
    #: the card names in other languages (:meth:`local_names`), read on first use (False until then)
    _local: Any = field(default=False, repr=False, compare=False)

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

    def bypasses(self) -> dict[str, Bypass]:
        """Name key -> the Evolution Pokémon that card brings into play or uses without evolving."""
        return self._bypasses

    def basic_energy(self, energy_type: str) -> Card | None:
        return self._basic_energy.get(energy_type)

    def energy_by_number(self, name: str, set_code: str | None, number: str | None) -> str | None:
        """The basic Energy type that a line's set code and number name, whatever its name says:
        Limitless's ``Energy`` pseudo set numbers its basic Energy as the set of its row in
        ``data/set-aliases.csv`` does (``Basic {P} Energy Energy 13`` is SVE 13, Psychic), and a
        basic Energy with a number and no set code is :data:`NUMBERED_ENERGY`'s (``Steel Energy 8``
        is Metal). None for any other line, or a number that names no basic Energy."""
        if not number or len(number) > MAX_NUMBER_LEN:
            return None
        if set_code is None:
            return NUMBERED_ENERGY.get(number.lstrip("0")) if name[-6:].casefold() == "energy" else None
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

    # -- names in other languages ---------------------------------------------

    def local_names(self) -> LocalNames | None:
        """The card names in other languages (:mod:`deckcheck.cards.localnames`), read from the file
        beside the database on first use; None when there is none (a database of its own).

        :raises DatabaseError: when that file is malformed.
        """
        local = self._local
        if local is False:
            from .localnames import NAMES_FILE, NamesError, read_names

            try:
                local = read_names(Path(self.path).parent / NAMES_FILE) if self.path else None
            except NamesError as exc:
                raise DatabaseError(str(exc)) from exc
            self._local = local
        return local  # type: ignore[no-any-return]

    def suggest_in(self, name: str, lang: str, limit: int = 3) -> tuple[str, ...]:
        """:meth:`suggest` for a list written in ``lang``: names as that language writes them, from
        its names and the English names of the cards it has none of its own for (memoised as
        :meth:`suggest`)."""
        local = self.local_names()
        if local is None:
            return self.suggest(name, limit)
        memo = self._memos.suggested_in
        hit = memo.get((name, lang, limit))
        if hit is None:
            hit = memo.put((name, lang, limit), local.suggest(name, lang, self._names, self._display, limit))
        return hit

    def _local_whole(self, name: str, set_code: str | None, number: str | None) -> Resolution | None:
        """A name in another language whose last word the reader took for a set code: ``Lugia V ASTRO``
        (Italian for Lugia VSTAR), ``Passe de Combat VIP`` (French for Battle VIP Pass) read as name and
        code with no number. When that code is no set the database knows and the whole text is a name
        in another language, the line is that name's card; None otherwise (English names ending so,
        ``Old PC``, are read by :meth:`_resolve`'s bracket rule)."""
        if not set_code or number or self.knows_set(set_code):
            return None
        whole = f"{name} {set_code}"
        if self.by_name(whole):
            return None
        local = self.local_names()
        if local is None or not local.entries(whole):
            return None
        res = self._resolve_local(whole, None, None, None)
        return res if res.card is not None else None

    def local_whole(self, written: str, card: Card) -> bool:
        """Is ``written`` a name of ``card`` in another language (:meth:`_local_whole` read the line so)?"""
        local = self.local_names()
        return local is not None and local.language_of(written, card.key.lower()) is not None

    def resolve_in(self, name: str, set_code: str | None, number: str | None, lang: str) -> Resolution | None:
        """The resolution of a name-only line (a set code and number that found no printing) read in
        ``lang`` first: what :meth:`resolve_parts` answers when a name several languages write for
        different cards is read in the list's language. None when ``name`` is no name in ``lang``."""
        local = self.local_names()
        if local is None or not any(e[0] == lang for e in local.entries(name)):
            return None
        return self._resolve_local(name, set_code, number, lang)

    def _display(self, key: str) -> str:
        """The name of the newest printing of a lookup key (a key of the name index)."""
        return self._by_name[key][0].name

    def _language_of(self, name: str, card: Card) -> str | None:
        """The language in which ``name`` is a name of ``card`` (its English name's), or None."""
        local = self.local_names()
        return local.language_of(name, card.key.lower()) if local is not None else None

    def _local_bearer(self, code: str, number: str, name: str) -> tuple[Card, str] | None:
        """The printing at this set code and number (:meth:`find_named`'s places) whose name in another
        language ``name`` is, with that language; None when there is none."""
        local = self.local_names()
        if local is None:
            return None
        for lang, _written, english in local.entries(name):
            for other in english:
                bearer = self.find_named(code, number, other)
                if bearer is not None:
                    return bearer, lang
        return None

    def _resolve_local(self, name: str, set_code: str | None, number: str | None, prefer: str | None) -> Resolution:
        """A line whose name is no English card name, read as a name in another language: resolved
        as the English name it is (the same choice of printing as an English line's), with the
        language; unresolved when it is no card's name in any language."""
        local = self.local_names()
        picked = local.pick(name, prefer) if local is not None else None
        if picked is None:
            return Resolution(None, "unresolved")
        lang, english = picked
        res = self._resolve(english, set_code, number)
        if res.card is None:
            return Resolution(None, "unresolved")
        # the English name's printing: a set code and number that find another card say so, as they would
        return Resolution(res.card, res.method, (), res.name_differs, None if res.name_differs else lang)

    # -- resolution ----------------------------------------------------------

    def resolve_parts(self, name: str, set_code: str | None, number: str | None, suggest: bool = True) -> Resolution:
        """Match a card line's name, set code and number to a printing; never raises.

        Only these matter, so answers are memoised on them (at most
        :data:`RESOLVE_MEMO_SIZE`, in this database object only). An unresolved answer gets
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

    def printing_named(self, name: str, set_code: str, number: str) -> Card | None:
        """The printing the usual line names (``Nest Ball SVI 181``): when the set code and number
        find a printing in the sets of that code bearing the name written (the same name key),
        that card, which :meth:`resolve_parts` would match by ``printing``; None for any other
        line (ask ``resolve_parts``). A few dict look-ups (and the name's key when it is not
        written as printed) and no Resolution made: a never-seen line of the usual shape costs
        little more than a line seen before.

        The number is looked up as written first: every key of the number index is its own
        :func:`~deckcheck.cards.index.number_norm` (``181``, ``TG1``), so a number found as written is
        its own norm, and one that is not its norm (``TG01``, ``007``) is never found so; only a
        number not found as written is normalised."""
        place = self._places.get(set_code)
        if place is None:
            place = self._place(set_code)
            if place is None:
                return None
        first, others, made, slot = place
        key = first + number
        hit = made(key) or slot(key)
        if not hit:  # what find() answers (it looks in the code's own sets first)
            for prefix in others:
                key = prefix + number
                hit = slot(key)
                if hit:
                    break
            else:
                if len(number) > MAX_NUMBER_LEN:
                    return None
                norm = number_norm(number)
                if norm == number:
                    return None
                for prefix in (first, *others):
                    hit = slot(prefix + norm)
                    if hit:
                        break
                else:
                    return None
        card = hit[0]
        # the name as printed, or the same name written otherwise (Basic {R} Energy,
        # Boss’s Orders, Dragapult-ex: its key is the card's): _resolve's name checks all
        # pass (no basic Energy on a wrong number) and the name does not differ
        return card if card.name == name or lookup_key(name) == card.key.lower() else None

    def indexed_codes(self) -> frozenset[str]:
        """The set codes whose usual lines :meth:`printed_line` has indexed so far."""
        return frozenset(self._usual.codes)

    def printed_lines(self) -> dict[str, PrintedEntry]:
        """The table of :meth:`printed_line` (read only): a hot loop looks a line's text after its
        count up here first and calls :meth:`printed_line` on a miss or an entry that holds a row."""
        return self._usual.table

    def printed_line(self, rest: str) -> PrintedLine | None:
        """``(card, name, set code, number)`` when ``rest`` is the text after a count of a usual line
        (``Nest Ball SVI 181``) that :meth:`printing_named` matches: the parts
        :func:`~deckcheck.decklist.fastline.card_parts` reads and the card ``printing_named`` answers for them,
        found with one look-up. A set code's lines are indexed at its :data:`INDEX_AFTER`-th line: every
        number of its sets with the name printed on the card :meth:`printing_named` finds there (and
        the other spellings of :meth:`_written_names`: ``Boss’s Orders``, ``Dragapult-ex``, ``Basic {R}
        Energy``); a line written any other way (another spelling, Limitless's ``Energy`` pseudo set) is
        None: read it the long way. A ``PH`` tag after the number is taken as the reader takes it (it is
        not one of the parts). An entry holds the card's row until its first use (making a card costs
        microseconds; a list meets a few of a code's). Bounded by the database: ~42,000 entries with
        every code indexed."""
        table = self._usual.table
        hit = table.get(rest)
        if hit is None:
            if rest[-3:] == " PH":  # the tag a placeholder card's line may end with (not one of the parts)
                rest = rest[:-3]
                hit = table.get(rest)
            if hit is None:
                parts = rest.rsplit(" ", 2)
                if len(parts) != 3 or parts[1] in self._usual.codes:
                    return None
                code = parts[1]
                if code not in (self._places or self._printing_places()):
                    return None  # no code printing_named looks in (the set of indexed codes stays bounded)
                # a code is indexed at its INDEX_AFTER-th line read the long way (rent, then buy)
                misses = self._usual.misses
                seen = misses.get(code, 0) + 1
                if seen < INDEX_AFTER:
                    misses[code] = seen
                    return None
                self._index_code(code)
                hit = table.get(rest)
                if hit is None:
                    return None
        row = hit[0]
        if type(row) is int:
            table[rest] = hit = (self.cards.at(row), hit[1], hit[2], hit[3])
        return hit  # type: ignore[return-value]  # a card now

    def index_usual_lines(self) -> int:
        """Index every set code's usual lines now (:meth:`printed_line` does it code by code on first
        use): what a server's master does before its workers fork, so they share the table instead of
        each making its own. ~0.3 s and ~10 MB for the shipped database; answers the number of entries."""
        for code in list(self._places or self._printing_places()):
            if code not in self._usual.codes:
                self._index_code(code)
        return len(self._usual.table)

    def _index_code(self, code: str) -> None:
        """Index a set code's usual lines into the table of :meth:`printed_line`: each of its sets'
        numbers in :meth:`printing_named`'s order (a number an earlier set has is that set's), with
        the card printing_named finds there (the first printing under the number), read in bulk."""
        # the line reader's shape of a usual line (fastline imports no database)
        from ..decklist.fastline import usual_code, usual_name

        place = (self._places or self._printing_places()).get(code)
        if place is not None and usual_code(code):  # (a code of another shape is never read as one)
            table = self._usual.table
            first, others, _made, _slot = place
            by_set = self._set_slots()
            claimed: set[str] = set()
            usual = self._usual.names  # name -> usual_name (names repeat from code to code)
            one = self._usual.numbers  # one string per number (the same few hundred in every set)
            tail = f" {code} "
            for prefix in (first, *others):
                cut = len(prefix)
                keys = [key for key in by_set.get(prefix[:-1], ()) if key[cut:] not in claimed]
                rows = self._by_number.first_rows(keys)
                for key, row, (name, printed, energy) in zip(keys, rows, self.cards.peek(rows), strict=True):
                    norm = key[cut:]
                    claimed.add(norm)
                    # the number as the index keys it (its norm) and as printed (044 for 44): 1 to 4
                    # digits (a norm is its number without leading zeros: a printed one is digits too)
                    if not (len(norm) < 5 and norm.isdigit() and norm.isascii()):
                        continue
                    norm = one.setdefault(norm, norm)
                    ok = usual.get(name)
                    if ok is None:
                        ok = usual[name] = usual_name(name)
                    numbers = (
                        (norm, one.setdefault(printed, printed))
                        if printed != norm and len(printed) < 5 and printed.isdigit() and printed.isascii()
                        else (norm,)
                    )
                    if ok and "'" not in name and not energy and not name.endswith(_SUFFIX_ENDINGS):
                        # the usual: the printed name only
                        for number in numbers:
                            table.setdefault(name + tail + number, (row, name, code, number))
                        continue
                    for spelling in self._written_names(row, name, energy):
                        if ok if spelling is name else usual_name(spelling):
                            for number in numbers:
                                table.setdefault(spelling + tail + number, (row, spelling, code, number))
        self._usual.codes.add(code)

    def _written_names(self, row: int, name: str, energy: bool) -> tuple[str, ...]:
        """The names a line writes printing ``row`` (named ``name``) with that :meth:`printing_named`
        takes for it: the name printed; with a typographic apostrophe (``Boss’s Orders``, as
        Limitless writes it); with a blank for the hyphen before ``ex``, ``EX`` or ``GX``, or the other
        way round (``Dragapult-ex``, ``Shaymin EX``: :data:`_SUFFIX_ENDINGS`); a basic Energy's as lists
        write them (``Basic {R} Energy``, ``Basic Fire Energy``, ``{R} Energy``)."""
        suffixed = name.endswith(_SUFFIX_ENDINGS)
        if "'" not in name and not energy and not suffixed:
            return (name,)
        key = self.cards.at(row).key.lower()
        others: list[str] = []
        for written in (name, name.replace("'", "\u2019")) if "'" in name else (name,):
            if suffixed:
                cut = len(written) - 3
                others.append(written[:cut] + ("-" if written[cut] == " " else " ") + written[cut + 1 :])
            if written is not name:
                others.append(written)
        others = [w for w in others if lookup_key(w) == key]
        if energy:
            others += [w for w, k in _written_energy_keys().items() if k == key and w != name]
        return (name, *others)

    def _set_slots(self) -> dict[str, list[str]]:
        """Set id -> its ``by_number`` keys, in the index's order (one pass over the keys, made once)."""
        made = self._usual.by_set
        if made is None:
            made = {}
            prefix, keys = "\0", []  # a set's keys come one after the other: partition only at a new set
            for key in self._by_number.index_keys():
                if not key.startswith(prefix):
                    set_id = key.partition(SEP)[0]
                    prefix, keys = set_id + SEP, made.setdefault(set_id, [])
                keys.append(key)
            self._usual.by_set = made
        return made

    def _place(self, set_code: str) -> Place | None:
        """:meth:`printing_named`'s place of a code not found as written: the upper-case code's
        (on the first call, the table made first)."""
        places = self._places
        if not places:  # not made yet (or a database without sets)
            return self._printing_places().get(set_code.upper())
        code = set_code.upper()
        return places.get(code) if code != set_code else None

    def _printing_places(self) -> dict[str, Place]:
        """Make :attr:`_places` (a new dict, then set: no thread reads it half made): each set
        code (upper case) whose sets :meth:`printing_named` looks in (not a code of
        ``data/set-aliases.csv`` that says not to look up its number) -> the number-index key
        prefix of each of its sets, in :meth:`find`'s order, the first apart. Bounded by the
        database's sets; made once (~400 codes)."""
        aliases, slot = self._aliases, self._by_number.slot
        made: Callable[[str], tuple[Card, ...] | None] = self._by_number.made.get
        places: dict[str, Place] = {
            code: (ids[0] + SEP, tuple(set_id + SEP for set_id in ids[1:]), made, slot)
            for code, ids in self._by_code.items()
            if ids and code.upper() == code and (code not in aliases or aliases[code].action == "lookup")
        }
        self._places = places
        return places

    def resolution_memo(self) -> Memo[tuple[str, str | None, str | None], Resolution]:
        """The memo of :meth:`resolve_parts`, ``(name, set code, number) -> Resolution``: a hot
        loop may look in it first and call ``resolve_parts`` on a miss. Read only."""
        return self._memos.resolved

    def line_memo(self, on: dt.date | None = None) -> Memo[str, Any]:
        """The engine's memo of card lines resolved without a format on the date ``on`` (line text ->
        ``engine.LineFacts``; None: lines resolved on no date)."""
        memos = self._memos.lines
        memo = memos.get(on)
        return memos.put(on, Memo(LINE_MEMO_SIZE)) if memo is None else memo

    def clear_memo(self) -> None:
        """Forget the memoised resolutions, suggestions and lines (benchmarks use it to time cold lookups)."""
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
        written = WRITTEN_ENERGY.get(name) or basic_energy_type(name)
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
        energy = WRITTEN_ENERGY.get(name) or basic_energy_type(name)
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


#: how lists write the Elite Four glyph of the Platinum-era SP Pokémon (Rising Rivals, Supreme Victors,
#: reprinted in Celebrations' Classic Collection), printed as a 4 after the name; the card data writes E4
E4_GLYPHS = ("4", "⁴")


def e4_spelling(name: str) -> str | None:
    """``Infernape 4``, ``Infernape⁴``, ``Infernape 4 LV.X`` -> ``Infernape E4`` (``... E4 LV.X``):
    the card data's spelling of a name ending in the Elite Four glyph, else None. A name is
    resolved under it only when it names no card as written and this spelling does
    (:meth:`CardDB._resolve`). Linear: one split, the last two tokens looked at."""
    if not name or E4_GLYPHS[0] not in name and E4_GLYPHS[1] not in name:
        return None
    tokens = name.split()
    tail: list[str] = []
    if len(tokens) > 2 and tokens[-1].upper().replace(".", "") == "LVX":
        tokens, tail = tokens[:-1], tokens[-1:]
    if not tokens:
        return None
    last = tokens[-1]
    if last in E4_GLYPHS and len(tokens) > 1 and tokens[-2][-1].isalpha():
        head = tokens[:-1]  # "Infernape 4"
    elif len(last) > 1 and last[-1] in E4_GLYPHS and last[-2].isalpha():
        head = tokens[:-1] + [last[:-1]]  # "Infernape⁴", "Infernape4"
    else:
        return None
    return " ".join([*head, "E4", *tail])


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
