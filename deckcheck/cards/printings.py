"""The values of the card database: printings, sets, resolutions, and the tables that hold them.

A :class:`Card` is one printing; the tables (:class:`CardTable`, :class:`PrintingTable`,
:class:`NumberTable`) make each card from its row of the database file on first use, so loading
a database of ~21,000 cards makes none of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from ..names import name_key
from ..value import Value
from .files import FIELDS
from .index import SEP, number_key
from .kinds import BASIC_ENERGY, KIND_MASK, kind_of


class DatabaseError(Exception):
    """The card database file is missing, unreadable or inconsistent."""


class CardSet(Value):
    """A set of the database: its id, name, series, code, the codes lists also write for it, release
    date and official card count, and where its card images live under the image host
    (``en/sv/sv01``), or None."""

    __slots__ = ("id", "name", "series", "code", "aliases", "release", "official_count", "image")
    __match_args__ = __slots__

    def __init__(
        self,
        id: str,
        name: str,
        series: str | None,
        code: str | None,
        aliases: tuple[str, ...],
        release: str | None,
        official_count: int | None,
        image: str | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.series = series
        self.code = code
        self.aliases = aliases
        self.release = release
        self.official_count = official_count
        self.image = image


class Card(Value):
    """One printing. ``key`` is the normalised name used by the copy rule. A plain value
    (:class:`~deckcheck.value.Value`): a check makes the cards it meets, so making one is
    a few stores."""

    __slots__ = (
        *FIELDS,  # the database row's columns, in their order
        "set_code",
        "release",
        "series",
        "key",
        # caches, no part of the card's value: what to_dict and json_fragment answer, the name key of
        # evolves_from and the kind (the pack holds both; made on first use otherwise)
        "_view",
        "_json",
        "_parent",
        "_kind",
    )
    __match_args__ = __slots__[:15]

    def __init__(
        self,
        id: str,
        name: str,
        supertype: str,
        subtypes: tuple[str, ...],
        evolves_from: str | None,
        types: tuple[str, ...],
        mark: str | None,
        set_id: str,
        number: str,
        rarity: str | None,
        fingerprint: str,
        set_code: str,
        release: str,
        series: str,
        key: str,
    ) -> None:
        self.id = id
        self.name = name
        self.supertype = supertype
        self.subtypes = subtypes
        self.evolves_from = evolves_from
        self.types = types
        self.mark = mark
        self.set_id = set_id
        self.number = number
        self.rarity = rarity
        self.fingerprint = fingerprint
        self.set_code = set_code
        self.release = release
        self.series = series
        self.key = key
        self._view: dict[str, Any] | None = None
        self._json: orjson.Fragment | None = None
        self._parent: str | None = None
        self._kind: int | None = None

    @property
    def evolves_key(self) -> str | None:
        """The name key of the card it evolves from (:func:`~deckcheck.names.name_key` of
        ``evolves_from``), None when it names none; the pack holds it for each of its values."""
        key = self._parent
        if key is None and self.evolves_from is not None:
            key = self._parent = name_key(self.evolves_from)
        return key

    @property
    def kind(self) -> int:
        """What the printing is for a deck (:func:`~deckcheck.cards.kinds.kind_of`): the pack holds it for
        each of its printings; worked out at the first use otherwise."""
        bits = self._kind
        if bits is None:
            bits = self._kind = kind_of(self.supertype, self.subtypes, self.evolves_from)
        return bits

    @property
    def is_basic_energy(self) -> bool:
        return self.kind & KIND_MASK == BASIC_ENERGY

    @property
    def is_ace_spec(self) -> bool:
        return "ACE SPEC" in self.subtypes

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

    def to_dict(self) -> dict[str, Any]:
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
            self._view = view
        out = view.copy()
        out["subtypes"], out["types"] = [*self.subtypes], [*self.types]
        return out

    def json_fragment(self) -> orjson.Fragment:
        """:meth:`to_dict` as compact JSON (its key order), encoded once: orjson writes it as it
        is into a card line's JSON (``ResolvedLine.json_fragment``), so a new line does not
        build and encode the same printing's dict again."""
        fragment = self._json
        if fragment is None:
            # a copy: the bytes orjson.dumps returns keep its whole 4 KiB buffer, ~20x this JSON
            fragment = orjson.Fragment(bytes(memoryview(orjson.dumps(self.to_dict()))))
            self._json = fragment
        return fragment


class Resolution(Value):
    """How a card line was matched to a printing.

    ``method`` is one of ``printing``, ``alias``, ``name-and-set``, ``name``,
    ``basic-energy`` or ``unresolved``; ``name_differs``: the printing found by set code and number
    has a different name from the one written; ``language``: the language (``fr``...) of the name
    written, when it is the card's name in another language (:mod:`deckcheck.cards.localnames`),
    None for an English name.
    """

    __slots__ = ("card", "method", "suggestions", "name_differs", "language")
    __match_args__ = __slots__

    def __init__(
        self,
        card: Card | None,
        method: str,
        suggestions: tuple[str, ...] = (),
        name_differs: bool = False,
        language: str | None = None,
    ) -> None:
        self.card = card
        self.method = method
        self.suggestions = suggestions
        self.name_differs = name_differs
        self.language = language


class SetAlias(Value):
    """A row of ``data/set-aliases.csv``: a set code other tools write and where to look."""

    __slots__ = ("sets", "prefix", "offset", "action")
    __match_args__ = __slots__

    def __init__(self, sets: tuple[str, ...], prefix: str, offset: int, action: str) -> None:
        self.sets = sets
        self.prefix = prefix
        self.offset = offset
        self.action = action


#: what :meth:`CardTable.peek` answers of a row: (name, number, whether a basic Energy)
Peek = tuple[str, str, bool]


class CardTable(Mapping[str, Card]):
    """Card id -> :class:`Card`, each made from its row on first use: a database has ~21,000
    cards and a check meets a few dozen, so loading makes none (:meth:`materialise` makes all)."""

    __slots__ = ("_ids", "_made", "_make", "_peek", "_making")

    def __init__(
        self, ids: dict[str, int], make: Callable[[int], Card], peek: Callable[[list[int]], list[Peek]] | None = None
    ) -> None:
        self._ids = ids  # card id -> its row (the last row of an id)
        self._made: list[Card | None] = [None] * (max(ids.values()) + 1 if ids else 0)
        self._make = make
        self._peek = peek
        self._making = threading.Lock()  # held while a card is made (at most once per card)

    def peek(self, rows: list[int]) -> list[Peek]:
        """(name, number, whether a basic Energy) of each row of ``rows``, without making their cards
        when the table was given a ``peek`` (a card costs microseconds to make: an index over a set's
        rows makes none)."""
        peek = self._peek
        if peek is not None:
            return peek(rows)
        at = self.at
        return [(card.name, card.number, card.is_basic_energy) for card in map(at, rows)]

    def at(self, row: int) -> Card:
        """The card of row ``row`` (made once: one object, whatever threads ask for it first; the
        engine tells a printing legal as itself from a reprint by identity)."""
        card = self._made[row]
        if card is None:
            with self._making:
                card = self._made[row]
                if card is None:
                    card = self._made[row] = self._make(row)
        return card

    def __getitem__(self, card_id: str) -> Card:
        return self.at(self._ids[card_id])

    def row_of(self, card_id: str) -> int:
        """The row of a card id (the last row of an id). Raises KeyError for an id not here."""
        return self._ids[card_id]

    def get(self, card_id: str, default: Card | None = None) -> Card | None:  # type: ignore[override]
        row = self._ids.get(card_id)
        return default if row is None else self.at(row)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def values(self) -> list[Card]:  # type: ignore[override]  # a list: every card, made now
        at = self.at
        return [at(row) for row in self._ids.values()]

    def items(self) -> list[tuple[str, Card]]:  # type: ignore[override]
        at = self.at
        return [(card_id, at(row)) for card_id, row in self._ids.items()]


class PrintingTable(Mapping[Any, tuple[Card, ...]]):
    """A lookup key -> the printings (a tuple of cards), from an index table key -> rows;
    each tuple made on first use and kept."""

    __slots__ = ("_cards", "made", "_rows")

    def __init__(self, rows: dict[str, list[int]], cards: CardTable) -> None:
        self._rows, self._cards = rows, cards
        #: the index's own key -> its printings, for each key asked so far (read only: a hot loop
        #: may look here first and call :meth:`slot` on a miss)
        self.made: dict[str, tuple[Card, ...]] = {}

    def slot(self, key: str) -> tuple[Card, ...]:
        """The printings under the index's own key (empty when there are none)."""
        hit = self.made.get(key)
        if hit is None:
            rows = self._rows.get(key)
            if rows is None:
                return ()
            at = self._cards.at
            hit = self.made[key] = tuple([at(row) for row in rows])
        return hit

    def _key(self, key: Any) -> Any:
        return key

    def index_keys(self) -> Iterator[str]:
        """The index's own keys, in its order."""
        return iter(self._rows)

    def first_rows(self, keys: list[str]) -> list[int]:
        """The row of the first printing under each of ``keys`` (the index's own keys, :meth:`index_keys`)."""
        rows = self._rows
        firsts = getattr(rows, "firsts", None)  # a packed table's (deckcheck.cards.pack.Groups), without slices
        return firsts(keys) if firsts is not None else [rows[key][0] for key in keys]

    def __getitem__(self, key: Any) -> tuple[Card, ...]:
        hit = self.slot(self._key(key))
        if not hit:
            raise KeyError(key)
        return hit

    def get(self, key: Any, default: Any = None) -> Any:
        return self.slot(self._key(key)) or default

    def __contains__(self, key: object) -> bool:
        return self._key(key) in self._rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class NumberTable(PrintingTable):
    """(set id, :func:`number_key`) -> printings; the index keys them ``set id SEP number_norm``."""

    __slots__ = ()

    def _key(self, key: Any) -> str:
        set_id, (prefix, digits, suffix) = key
        return f"{set_id}{SEP}{prefix}{digits}{suffix}" if digits >= 0 else f"{set_id}{SEP}{prefix}"

    def __iter__(self) -> Iterator[tuple[str, tuple[str, int, str]]]:
        for key in self._rows:
            set_id, _, norm = key.partition(SEP)
            yield set_id, number_key(norm)
