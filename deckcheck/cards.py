"""The card database: loaded once per process, shared read-only, and card resolution.

A card's identity is its printing (set and collector number). Resolution goes
(set code, number) -> alias tables -> (name, set) -> name only (newest
printing) -> unresolved with "did you mean" suggestions.
"""

from __future__ import annotations

import datetime as dt
import gc
import gzip
import hashlib
import logging
import os
import threading
import zlib
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import orjson

from .dbfile import FIELDS, SCHEMA_VERSION, data_dir, read_table
from .deckrules import DeckRule, load_rules
from .index import (
    SEP,
    IndexError_,
    build_index,
    check_index,
    fingerprint,
    number_key,
    number_norm,
    rows_digest,
)
from .names import MEMO_MAX_LEN, basic_energy_type, lookup_key
from .parse import CardLine

log = logging.getLogger(__name__)

DEFAULT_DB_FILE = "cards.json.gz"
#: resolutions a database keeps (a dict per database, emptied when full)
RESOLVE_MEMO_SIZE = 8192
RULE_BOX_SUBTYPES = frozenset(
    {
        "ex",
        "EX",
        "GX",
        "V",
        "VMAX",
        "VSTAR",
        "V-UNION",
        "BREAK",
        "Radiant",
        "Prism Star",
        "ACE SPEC",
        "MEGA",
        "TAG TEAM",
        "LEGEND",
        "Level-Up",
        "Star",
    }
)


class DatabaseError(Exception):
    """The card database file is missing, unreadable or inconsistent."""


@dataclass(frozen=True, slots=True)
class CardSet:
    id: str
    name: str
    series: str | None
    code: str | None
    aliases: tuple[str, ...]
    release: str | None
    official_count: int | None
    #: where the set's card images live under the image host (``en/sv/sv01``), or None
    image: str | None = None


@dataclass(frozen=True, slots=True)
class Card:
    """One printing. ``key`` is the normalised name used by the copy rule."""

    id: str
    name: str
    supertype: str
    subtypes: tuple[str, ...]
    evolves_from: str | None
    types: tuple[str, ...]
    mark: str | None
    set_id: str
    number: str
    rarity: str | None
    fingerprint: str
    set_code: str
    release: str
    series: str
    key: str
    #: what :meth:`to_dict` answers, made on its first call; a cache, not part of the card's value
    _view: dict | None = field(default=None, init=False, repr=False, compare=False)
    #: what :meth:`json_fragment` answers, made on its first call; a cache too
    _json: orjson.Fragment | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def is_basic_energy(self) -> bool:
        return self.supertype == "Energy" and "Basic" in self.subtypes

    @property
    def is_basic_pokemon(self) -> bool:
        return self.supertype == "Pokémon" and "Basic" in self.subtypes

    @property
    def is_ace_spec(self) -> bool:
        return "ACE SPEC" in self.subtypes

    @property
    def is_radiant(self) -> bool:
        return self.supertype == "Pokémon" and "Radiant" in self.subtypes

    @property
    def is_prism_star(self) -> bool:
        return "Prism Star" in self.subtypes

    @property
    def has_rule_box(self) -> bool:
        return bool(RULE_BOX_SUBTYPES.intersection(self.subtypes))

    @property
    def stage(self) -> str | None:
        for s in ("Basic", "Stage 1", "Stage 2", "BREAK", "VMAX", "VSTAR", "V-UNION", "MEGA", "Level-Up", "Restored"):
            if s in self.subtypes:
                return s
        return None

    @property
    def label(self) -> str:
        """``Nest Ball (SVI 181)`` for messages."""
        return f"{self.name} ({self.set_code} {self.number})"

    @property
    def image_id(self) -> str | None:
        """The printing's TCGdex local id (``sv01-001`` -> ``001``), the last part of its image
        URL; None for a card TCGdex does not have (``ptcgio:`` ids)."""
        prefix = self.set_id + "-"
        return self.id[len(prefix) :] if self.id.startswith(prefix) and len(self.id) > len(prefix) else None

    def to_dict(self) -> dict:
        # a report asks for the same few cards again and again: a copy of the view made once,
        # with new lists (the view itself never leaves the card, so no caller can change it)
        view = self._view
        if view is None:
            view = {
                "id": self.id,
                "name": self.name,
                "supertype": self.supertype,
                "subtypes": None,
                "set": self.set_code,
                "set_id": self.set_id,
                "number": self.number,
                "regulation_mark": self.mark,
                "types": None,
                "evolves_from": self.evolves_from,
                "rarity": self.rarity,
            }
            object.__setattr__(self, "_view", view)
        out = view.copy()
        out["subtypes"], out["types"] = [*self.subtypes], [*self.types]
        return out

    def json_fragment(self) -> orjson.Fragment:
        """:meth:`to_dict` as compact JSON (its key order), encoded once: orjson writes it as it
        is into a card line's JSON (``ResolvedLine.json_fragment``), so a new line does not
        build and encode the same printing's dict again."""
        fragment = self._json
        if fragment is None:
            fragment = orjson.Fragment(orjson.dumps(self.to_dict()))
            object.__setattr__(self, "_json", fragment)
        return fragment


@dataclass(frozen=True, slots=True)
class Resolution:
    """How a card line was matched to a printing.

    ``method`` is one of ``printing``, ``alias``, ``name-and-set``, ``name``,
    ``basic-energy`` or ``unresolved``.
    """

    card: Card | None
    method: str
    suggestions: tuple[str, ...] = ()
    #: the printing found by set code and number has a different name from the one written
    name_differs: bool = False


@dataclass(frozen=True, slots=True)
class _Alias:
    sets: tuple[str, ...]
    prefix: str
    offset: int
    action: str


class _Cards(Mapping):
    """Card id -> :class:`Card`, each made from its row on first use: a database has ~21,000
    cards and a check meets a few dozen, so loading makes none (:meth:`materialise` makes all)."""

    __slots__ = ("_ids", "_made", "_make")

    def __init__(self, ids: dict[str, int], make):
        self._ids = ids  # card id -> its row (the last row of an id)
        self._made: list[Card | None] = [None] * (max(ids.values()) + 1 if ids else 0)
        self._make = make

    def at(self, row: int) -> Card:
        """The card of row ``row`` (made once)."""
        card = self._made[row]
        if card is None:
            card = self._made[row] = self._make(row)
        return card

    def __getitem__(self, card_id: str) -> Card:
        return self.at(self._ids[card_id])

    def get(self, card_id, default=None):
        row = self._ids.get(card_id)
        return default if row is None else self.at(row)

    def __contains__(self, card_id) -> bool:
        return card_id in self._ids

    def __iter__(self):
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def values(self) -> list[Card]:  # type: ignore[override] - a list: every card, made now
        at = self.at
        return [at(row) for row in self._ids.values()]

    def items(self) -> list[tuple[str, Card]]:  # type: ignore[override]
        at = self.at
        return [(card_id, at(row)) for card_id, row in self._ids.items()]


class _Printings(Mapping):
    """A lookup key -> the printings (a tuple of cards), from an index table key -> rows;
    each tuple made on first use and kept."""

    __slots__ = ("_cards", "_made", "_rows")

    def __init__(self, rows: dict[str, list[int]], cards: _Cards):
        self._rows, self._cards, self._made = rows, cards, {}

    def slot(self, key: str) -> tuple[Card, ...]:
        """The printings under the index's own key (empty when there are none)."""
        hit = self._made.get(key)
        if hit is None:
            rows = self._rows.get(key)
            if rows is None:
                return ()
            at = self._cards.at
            hit = self._made[key] = tuple([at(row) for row in rows])
        return hit

    def _key(self, key):
        return key

    def __getitem__(self, key) -> tuple[Card, ...]:
        hit = self.slot(self._key(key))
        if not hit:
            raise KeyError(key)
        return hit

    def get(self, key, default=None):
        return self.slot(self._key(key)) or default

    def __contains__(self, key) -> bool:
        return self._key(key) in self._rows

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class _ByNumber(_Printings):
    """(set id, :func:`number_key`) -> printings; the index keys them ``set id SEP number_norm``."""

    __slots__ = ()

    def _key(self, key):
        set_id, (prefix, digits, suffix) = key
        return f"{set_id}{SEP}{prefix}{digits}{suffix}" if digits >= 0 else f"{set_id}{SEP}{prefix}"

    def __iter__(self):
        for key in self._rows:
            set_id, _, norm = key.partition(SEP)
            yield set_id, number_key(norm)


@dataclass
class CardDB:
    """All printings with their indexes. Build with :func:`load`; never mutated after."""

    cards: dict[str, Card]
    sets: dict[str, CardSet]
    meta: dict
    version: str
    path: str | None = None
    _by_code: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _aliases: dict[str, _Alias] = field(default_factory=dict)
    #: (set id, number key) -> printings; find() asks it by the index's own key (number_slot)
    _by_number: Mapping = field(default_factory=dict)
    #: lookup key (lower-cased name key) -> printings, newest first
    _by_name: Mapping = field(default_factory=dict)
    _names: list[str] = field(default_factory=list)
    _basic_energy: dict[str, Card] = field(default_factory=dict)
    #: card id -> the deck-building clause it prints (``data/deck-rules.csv``)
    _deck_rules: dict[str, DeckRule] = field(default_factory=dict)
    #: (name, set code, number) -> Resolution; on the database object, so a swapped-in
    #: database starts empty and never answers from another one's cards
    _memo: dict[tuple, Resolution] = field(default_factory=dict, repr=False, compare=False)
    #: the engine's card lines resolved without a format (engine.LineFacts), on the database
    #: object for the same reason
    _lines: dict = field(default_factory=dict, repr=False, compare=False)
    #: (name, limit) -> what :meth:`suggest` found, bounded like the memo above
    _suggested: dict[tuple, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    #: the longest name key (how long a query can be and still be close to a name)
    _longest_name: int = 0
    #: what :meth:`info` answers, made on its first call
    _info: dict | None = field(default=None, repr=False, compare=False)
    #: the newest set with cards (:meth:`newest_set`), found when the database is indexed
    _newest: CardSet | None = field(default=None, repr=False, compare=False)
    #: every set id, upper-cased (:meth:`knows_set`)
    _set_ids: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def info(self) -> dict:
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

    def age_days(self, on) -> int | None:
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
        return self._by_name.get(lookup_key(name), ())

    def printings_of(self, card: Card) -> tuple[Card, ...]:
        return self._by_name.get(card.key.lower(), ())

    def sets_for_code(self, code: str) -> tuple[str, ...]:
        code = code.upper()
        alias = self._aliases.get(code)
        own = self._by_code.get(code, ())
        return own + tuple(s for s in (alias.sets if alias else ()) if s not in own)

    def find(self, set_code: str, number: str) -> Card | None:
        """The printing with this set code and collector number, through the alias table."""
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

    def deck_rules(self) -> dict[str, DeckRule]:
        """Card id -> the deck-building clause that printing carries (read only)."""
        return self._deck_rules

    def basic_energy(self, energy_type: str) -> Card | None:
        return self._basic_energy.get(energy_type)

    def suggest(self, name: str, limit: int = 3) -> tuple[str, ...]:
        """Up to ``limit`` card names close to ``name`` (rapidfuzz; memoised for short names)."""
        memo = self._suggested
        hit = memo.get((name, limit))
        if hit is None:
            hit = self._suggest(name, limit)
            if len(name) <= MEMO_MAX_LEN:
                if len(memo) >= RESOLVE_MEMO_SIZE:
                    memo.clear()
                memo[(name, limit)] = hit
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
        """Cards for lookup and autocomplete: exact printing, else exact name, else fuzzy names."""
        if set_code and number:
            hit = self.find(set_code, number)
            return [hit] if hit else []
        pool_sets = set(self.sets_for_code(set_code)) if set_code else None
        keep = (lambda c: c.set_id in pool_sets) if pool_sets is not None else (lambda c: True)
        key = lookup_key(query or "")
        if not key:
            # no name to look for (empty, blanks or punctuation): a set's cards, or nothing
            return [c for c in self.cards.values() if keep(c)][:limit] if pool_sets is not None else []
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

    def resolve(self, line: CardLine) -> Resolution:
        """Match one parsed card line to a printing; never raises (see :meth:`resolve_parts`)."""
        return self.resolve_parts(line.name, line.set_code, line.number)

    def resolve_parts(self, name: str, set_code: str | None, number: str | None, suggest: bool = True) -> Resolution:
        """Match a card line's name, set code and number to a printing; never raises.

        Only these matter, so answers are memoised on them (at most
        :data:`RESOLVE_MEMO_SIZE`, in this database object only). An unresolved answer gets
        suggestions from :meth:`suggest` unless ``suggest`` is false (the engine asks for them
        itself, for a bounded number of names per deck).
        """
        key = (name, set_code, number)
        memo = self._memo
        hit = memo.get(key)
        if hit is None:
            hit = self._resolve(*key)
            if all(part is None or len(part) <= MEMO_MAX_LEN for part in key):
                if len(memo) >= RESOLVE_MEMO_SIZE:
                    memo.clear()
                memo[key] = hit
        if suggest and hit.card is None and not hit.suggestions:
            found = self.suggest(name)
            if found:
                hit = Resolution(None, hit.method, found)
                if key in memo:
                    memo[key] = hit
        return hit

    def resolution_memo(self) -> dict[tuple, Resolution]:
        """The memo of :meth:`resolve_parts`, ``(name, set code, number) -> Resolution``: a hot
        loop may look in it first and call ``resolve_parts`` on a miss. Read only."""
        return self._memo

    def line_memo(self) -> dict:
        """The engine's memo of card lines resolved without a format (line text ->
        ``engine.LineFacts``, bounded by the engine)."""
        return self._lines

    def clear_memo(self) -> None:
        """Forget the memoised resolutions, suggestions and lines (benchmarks use it to time cold lookups)."""
        self._memo.clear()
        self._suggested.clear()
        self._lines.clear()

    def _resolve(self, name: str, set_code: str | None, number: str | None) -> Resolution:
        code = (set_code or "").upper()
        alias = self._aliases.get(code)
        energy = basic_energy_type(name)
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
                    return Resolution(card, "printing" if code in self._by_code else "alias", (), differs)
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


def _alias_numbers(number: str, alias: _Alias) -> list[str]:
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


def _load_aliases(directory: Path | None) -> dict[str, _Alias]:
    out = {}
    for row in read_table("set-aliases.csv", directory):
        action = row.get("action") or "lookup"
        if action not in ("lookup", "by-name", "energy"):
            raise DatabaseError(f"set-aliases.csv: unknown action {action!r} for {row['alias']}")
        out[row["alias"].upper()] = _Alias(
            tuple((row.get("sets") or "").split()), row.get("prefix") or "", int(row.get("offset") or 0), action
        )
    return out


def from_dict(raw: dict, version: str, path: str | None = None, directory: Path | None = None) -> CardDB:
    """Index a database dict (as written by :mod:`deckcheck.sync.build`).

    Every row is checked here, so a card made later from its row cannot fail. The lookup
    index stored in the file (:mod:`deckcheck.index`) is used when this code made it, after
    a check of its shape; otherwise it is built from the rows.
    """
    if raw.get("schema") != SCHEMA_VERSION or list(raw.get("fields", [])) != list(FIELDS):
        raise DatabaseError(f"card database {path or ''} has an unknown layout (schema {raw.get('schema')!r})")
    sets = {
        s["id"]: CardSet(
            s["id"],
            s["name"],
            s.get("series"),
            s.get("code"),
            tuple(s.get("aliases") or ()),
            s.get("release"),
            s.get("official_count"),
            s.get("image"),
        )
        for s in raw["sets"]
    }
    # what a card takes from its set, once per set
    facts = {sid: (s.code or sid.upper(), s.release or "", s.series or "") for sid, s in sets.items()}
    rows = raw["cards"]
    _check_rows(rows, facts)
    ids = dict(zip(map(itemgetter(0), rows), range(len(rows))))  # the last row of an id wins
    releases = {sid: f[1] for sid, f in facts.items()}
    index = raw.get("index")
    if not _usable(index, rows, releases, path):  # none, made by other code, or not of these rows
        index = build_index(rows, releases, ids)
    keys = index["keys"]
    # identical subtype and type lists share one tuple (a few dozen distinct ones for 20,000 cards)
    shared: dict[tuple, tuple] = {}

    def make(i: int) -> Card:
        (cid, name, supertype, subtypes, evolves_from, types, mark, set_id, number, rarity, fp) = rows[i]
        subtypes, types = tuple(subtypes), tuple(types)
        subtypes, types = shared.setdefault(subtypes, subtypes), shared.setdefault(types, types)
        return Card(
            cid,
            name,
            supertype,
            subtypes,
            evolves_from,
            types,
            mark,
            set_id,
            number,
            rarity,
            fp,
            *facts[set_id],
            keys[i],
        )

    cards = _Cards(ids, make)
    db = CardDB(cards=cards, sets=sets, meta=raw.get("meta", {}), version=version, path=path)  # type: ignore[arg-type]
    with_cards = set(map(itemgetter(7), rows)) if len(ids) == len(rows) else {rows[i][7] for i in ids.values()}
    _index(db, directory, index, with_cards)
    return db


def _check_rows(rows, facts: dict) -> None:
    """Every card row has the columns of :data:`FIELDS` with the types a Card needs and a known
    set (column by column, at C speed: loading checks all ~21,000 rows every time)."""
    if type(rows) is not list or set(map(type, rows)) - {list}:
        raise ValueError("the cards are not a list of rows")
    width = len(FIELDS)
    if set(map(len, rows)) - {width}:
        raise ValueError(f"a card row does not have the {width} columns {', '.join(FIELDS)}")
    # what a Card is made from and later code relies on: id, name and number are text, subtypes
    # and types are lists (the set id is checked against the sets below)
    for col, kinds in ((0, {str}), (1, {str}), (3, {list}), (5, {list}), (8, {str})):
        if set(map(type, map(itemgetter(col), rows))) - kinds:
            raise ValueError(f"a card row's {FIELDS[col]} is not a {next(iter(kinds)).__name__}")
    unknown = set(map(itemgetter(7), rows)) - facts.keys()
    if unknown:
        set_id = min(unknown)
        raise DatabaseError(f"card {next(r[0] for r in rows if r[7] == set_id)} names unknown set {set_id}")


def _usable(index, rows: list, releases: dict[str, str], path: str | None) -> bool:
    """Can loading take this stored index as it is (:mod:`deckcheck.index`)?"""
    if not isinstance(index, dict) or index.get("fingerprint") != fingerprint():
        return False
    try:
        if index.get("rows") != rows_digest(rows, releases):
            raise IndexError_("it was made from other card rows")
        check_index(index, len(rows))
    except (IndexError_, TypeError) as exc:
        log.warning("card database %s: stored index not used (%s); indexing the cards at load", path or "-", exc)
        return False
    return True


def _index(db: CardDB, directory: Path | None, index: dict, with_cards: set[str]) -> None:
    by_code: dict[str, list[str]] = {}
    for s in db.sets.values():
        for code in {s.code or "", *s.aliases} - {""}:
            by_code.setdefault(code.upper(), []).append(s.id)
    for s in db.sets.values():  # a set's id, "base1", names it when no set has it as a code
        by_code.setdefault(s.id.upper(), [s.id])
    # a set whose own code it is comes before sets that only list it as an alias (TR is Team
    # Rocket, an alias of Team Rocket Returns); a code shared by a main set and its subset
    # (SHF, CEL, BRS...) looks in the main set first
    db._by_code = {
        k: tuple(sorted(v, key=lambda sid: ((db.sets[sid].code or "").upper() != k, len(sid), sid)))
        for k, v in by_code.items()
    }
    db._aliases = _load_aliases(directory)
    try:
        db._deck_rules = load_rules(directory)
    except ValueError as exc:
        raise DatabaseError(str(exc)) from exc
    cards = db.cards
    assert isinstance(cards, _Cards)
    db._by_number = _ByNumber(index["by_number"], cards)
    db._by_name = _Printings(index["by_name"], cards)
    db._names = list(index["by_name"])
    db._longest_name = max(map(len, db._names), default=0)
    db._newest = newest_of(db.sets.values(), with_cards)
    db._set_ids = frozenset(sid.upper() for sid in db.sets)
    db._basic_energy = {kind: cards.at(row) for kind, row in index["basic_energy"].items()}


def newest_of(sets, with_cards: set[str]) -> CardSet | None:
    """The latest-released of ``sets`` whose id is in ``with_cards`` (an announced set with no
    cards yet does not count); ties go to the set with the larger official count, then the id."""
    dated = [s for s in sets if s.release and s.id in with_cards]
    return max(dated, key=lambda s: (s.release, s.official_count or 0, s.id)) if dated else None


def newest_set_info(s: CardSet) -> dict:
    """A set as the database's facts name it: ``{"id", "name", "code", "release"}``."""
    return {"id": s.id, "name": s.name, "code": s.code, "release": s.release}


def default_path() -> Path:
    env = os.environ.get("DECKCHECK_DB")
    return Path(env) if env else data_dir() / DEFAULT_DB_FILE


def load(path: str | os.PathLike | None = None) -> CardDB:
    """Read and index a database file. Raises :class:`DatabaseError` with a clear reason."""
    path = Path(path) if path else default_path()
    with _gc_paused():
        try:
            blob = path.read_bytes()
            raw = orjson.loads(gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob)
        except FileNotFoundError as exc:
            raise DatabaseError(f"card database not found at {path} (build it with 'deckcheck db build')") from exc
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            raise DatabaseError(f"card database at {path} is unreadable: {exc}") from exc
        version = hashlib.sha256(blob).hexdigest()[:12]
        try:
            return from_dict(raw, version, str(path))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatabaseError(f"card database at {path} is malformed: {exc!r}") from exc


@contextmanager
def _gc_paused():
    """No cyclic garbage collection while a database is read and indexed.

    Loading makes a few hundred thousand containers and no reference cycles; every
    collection the allocations would trigger meanwhile walks the whole growing heap, about
    40% of the loading time. The collector's previous state comes back afterwards (two
    loads at once leave it enabled as long as it was enabled before the first).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_lock = threading.Lock()
_current: CardDB | None = None


def get_db() -> CardDB:
    """The process-wide database, loaded on first use."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = load()
                # the database's ~400,000 objects (and what the process imported) never become
                # garbage: out of the collector's generations, no collection walks them again,
                # interpreter exit included (~0.25 s of CPU at the end of a short CLI run), and a
                # forked worker does not touch their pages to do so
                gc.freeze()
    return _current


def set_db(db: CardDB) -> None:
    """Swap the process-wide database (a new file from ``db sync``); readers keep their reference."""
    global _current
    _current = db


# -- hot swap: a running service picks up a new database file (``deckcheck db sync``) ----------

import signal
import time

#: seconds between two looks at the database file's modification time (0: only on SIGHUP)
DEFAULT_RELOAD_INTERVAL = 30.0


def _file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(mtime in ns, size, inode) of the file, or None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class DatabaseWatcher:
    """Notices a new database file and swaps it in, without a restart and without failing a request.

    :meth:`maybe_reload` runs before every request and costs one clock read when nothing is
    due. The file's (mtime, size, inode) is looked at every ``interval`` seconds (0: never on
    a timer), at the first request of a process forked after the watcher was made (a
    gunicorn worker of a preloaded master) and after :meth:`request_reload` (SIGHUP). A
    changed file is loaded and checked completely by :func:`load` in a background thread,
    then :func:`set_db` swaps the module's reference: requests in flight keep the database
    they started with, later ones get the new one. A file that does not load is logged and
    the current database stays (the same broken file is not retried until it changes or a
    SIGHUP asks).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        interval: float = DEFAULT_RELOAD_INTERVAL,
        *,
        background: bool = True,
        clock=time.monotonic,
    ):
        self.path = Path(path)
        self.interval = float(interval)
        self.background = background
        self.clock = clock
        self.swaps = 0
        self.last_error: str | None = None
        self._stamp = _file_stamp(self.path)
        self._next = clock() + self.interval
        self._requested = False
        self._look_now = False
        self._missing_logged = False
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._loading = False

    def request_reload(self) -> None:
        """Look at the file on the next :meth:`maybe_reload`, due or not, and load it even
        if its stamp did not change. Only sets a flag: safe in a signal handler."""
        self._requested = True

    def _due(self) -> bool:
        return self._requested or self._look_now or (self.interval > 0 and self.clock() >= self._next)

    def maybe_reload(self) -> None:
        """Start a reload if one is due and the file changed (a Flask ``before_request`` hook)."""
        if self._pid != os.getpid():  # a forked worker: its own lock, and a look right away
            self._pid, self._lock, self._loading, self._look_now = os.getpid(), threading.Lock(), False, True
        if not self._due():
            return
        with self._lock:
            if self._loading or not self._due():
                return
            forced, self._requested, self._look_now = self._requested, False, False
            self._next = self.clock() + self.interval
            stamp = _file_stamp(self.path)
            if stamp is None:
                if not self._missing_logged:
                    log.warning("card database %s cannot be read; keeping the loaded one", self.path)
                    self._missing_logged = True
                return
            self._missing_logged = False
            if stamp == self._stamp and not forced:
                return
            self._loading = True
        if self.background:
            threading.Thread(target=self.reload, args=(stamp,), name="deckcheck-db-reload", daemon=True).start()
        else:
            self.reload(stamp)

    def reload(self, stamp: tuple[int, int, int] | None = None) -> bool:
        """Load the file and swap it in; True when the database in use changed."""
        try:
            current = _current
            if current is not None and current.path and Path(current.path) != self.path:
                log.info("card database in use comes from %s, not %s: not swapping", current.path, self.path)
                return False
            try:
                new = load(self.path)
            except Exception as exc:  # noqa: BLE001 - DatabaseError, and zlib.error from a corrupt gzip
                self.last_error = str(exc) if isinstance(exc, DatabaseError) else f"unreadable: {exc!r}"
                log.error(
                    "new card database not swapped in, keeping version %s: %s", current.version if current else "-", exc
                )
                return False
            self.last_error = None
            if current is not None and new.version == current.version:
                return False
            set_db(new)
            self.swaps += 1
            log.warning(
                "card database swapped in: version %s -> %s (%d cards, built %s) from %s",
                current.version if current else "-",
                new.version,
                len(new.cards),
                new.meta.get("built_at"),
                self.path,
            )
            return True
        finally:
            self._stamp = stamp or _file_stamp(self.path)
            self._loading = False


_watcher: DatabaseWatcher | None = None


def _on_sighup(signum, frame) -> None:
    if _watcher is not None:
        _watcher.request_reload()


def install_sighup_handler() -> bool:
    """Make SIGHUP ask the watcher for a reload (on the next request) in this process.

    Only from the main thread, and only where SIGHUP has no other handler (a gunicorn
    worker resets it to the default, which would end the worker; call this from
    gunicorn's ``post_worker_init``). Returns whether the handler is in place.
    """
    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, _on_sighup):
        return False
    signal.signal(signal.SIGHUP, _on_sighup)
    return True


def init_app(app) -> DatabaseWatcher | None:
    """Hot swap for a Flask app: watch the file the loaded database came from.

    Config ``DB_RELOAD_INTERVAL`` (env ``DECKCHECK_DB_RELOAD_INTERVAL``): seconds between
    looks at the file, default 30, 0 for SIGHUP only.
    """
    global _watcher
    interval = float(app.config.setdefault("DB_RELOAD_INTERVAL", DEFAULT_RELOAD_INTERVAL))
    db = get_db()
    if not db.path:
        return None
    _watcher = watcher = DatabaseWatcher(db.path, interval)
    install_sighup_handler()
    app.before_request(watcher.maybe_reload)
    return watcher
