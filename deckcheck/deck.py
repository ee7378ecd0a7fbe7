"""The deck as the rules see it: each card line resolved to its printing (:class:`ResolvedLine`, with the
:class:`LineFacts` it shares with every deck holding the same line), the lines indexed in one pass
(:class:`Deck`), and what else a rule may know (:class:`Context`).

The engine (:mod:`deckcheck.engine`) makes them; the rules (:mod:`deckcheck.rules`) read them. Both
import this module, so neither imports the other for these types.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from .cards import Card, CardDB, Resolution
from .formats import Ban, Format
from .names import name_key
from .problems import Counts, Problem


class LineFacts:
    """What a card line comes to in one format, on one date, with one database: the printing
    it names, how it was matched, its legality, and (made on first use) its JSON after the line
    number.

    Real lists share most of their lines, so :func:`resolve_rows` keeps these per line text
    (:meth:`Format.line_memo`, or :meth:`CardDB.line_memo` without a format) and every deck with
    the line gets the same facts. They hold the count, name, set code and number they were made
    for: a row with the same text but other values (a JSON deck's entry can be written as
    anything) gets new facts.
    """

    __slots__ = (
        "count",
        "name",
        "set_code",
        "number",
        "card",
        "method",
        "suggestions",
        "name_differs",
        "legal_via",
        "ban",
        "json_tail",
    )

    def __init__(
        self,
        count: int,
        name: str,
        set_code: str | None,
        number: str | None,
        res: Resolution,
        legal_via: Card | None,
        ban: Ban | None,
    ) -> None:
        self.count, self.name, self.set_code, self.number = count, name, set_code, number
        self.card, self.method, self.name_differs = res.card, res.method, res.name_differs
        # an unknown card's suggestions are looked up on first use, for a bounded number of names per deck
        self.suggestions: tuple[str, ...] | None = res.suggestions if res.card or res.suggestions else None
        self.legal_via, self.ban = legal_via, ban
        self.json_tail: bytes | None = None  # ResolvedLine.json_fragment() after '{"line":N,'


@dataclass(slots=True)
class ResolvedLine:
    """A card line with the printing it resolved to and its legality in the format.

    Made by :func:`resolve_rows` and not changed afterwards: ``facts`` (shared with every
    deck that has the same line) holds its encoded JSON.
    """

    line: int
    raw: str
    count: int
    name: str
    set_code: str | None
    number: str | None
    card: Card | None
    method: str
    suggestions: tuple[str, ...] = ()
    legal_via: Card | None = None
    ban: Ban | None = None
    section: str | None = None
    name_differs: bool = False
    facts: LineFacts | None = field(default=None, repr=False, compare=False)

    @property
    def legal(self) -> bool | None:
        if self.card is None:
            return None
        return self.legal_via is not None and self.ban is None

    def to_dict(self, card_view: Callable[[Card], Any] | None = None) -> dict[str, Any]:
        """The line as JSON-ready values; ``card_view(card)`` writes the printing (default ``Card.to_dict``)."""
        card, via, ban = self.card, self.legal_via, self.ban
        return {
            "line": self.line,
            "count": self.count,
            "text": self.raw,
            "name": self.name,
            "set": self.set_code,
            "number": self.number,
            "resolution": self.method,
            "suggestions": [*self.suggestions],
            "legal": (via is not None and ban is None) if card is not None else None,  # self.legal, without the call
            "legal_via": via.id if via is not None and via is not card else None,
            "banned": ban is not None,
            "card": (card.to_dict() if card_view is None else card_view(card)) if card is not None else None,
        }

    def json_fragment(self) -> orjson.Fragment:
        """``to_dict(card_view=Card.json_fragment)`` as JSON (what the API writes for the line).

        Everything after the line number is the same for every deck with this line in this
        format on this date, so that part is encoded once, on the shared :class:`LineFacts`.
        """
        return orjson.Fragment(b'{"line":%d,%b' % (self.line, self.json_tail()))

    def json_tail(self) -> bytes:
        """The line's JSON after ``{"line":N,`` (:meth:`json_fragment`), encoded once per :class:`LineFacts`."""
        facts = self.facts
        tail = facts.json_tail if facts is not None else None
        if tail is None:
            view = self.to_dict(Card.json_fragment)
            del view["line"]  # the first key: the rest follows it
            tail = orjson.dumps(view)[1:]
            if facts is not None:
                facts.json_tail = tail
        return tail


if TYPE_CHECKING:

    class KnownLine(ResolvedLine):
        """A line whose card was found: what :class:`Deck` lists as ``known``, ``by_name``,
        ``pokemon``... (a name for the type checker; at run time, a ResolvedLine)."""

        card: Card

else:
    KnownLine = ResolvedLine


class Deck:
    """The resolved lines of one decklist, indexed in one pass for the rules.

    ``by_name`` groups every known line except basic Energy by normalised name (the copy
    rule's groups, and the names present for evolution and exclusive groups);
    ``pokemon``, ``radiant``, ``ace_spec`` and ``prism_star`` list the lines of those kinds.
    """

    __slots__ = (
        "lines",
        "known",
        "unknown",
        "parse_problems",
        "declared_total",
        "declared_total_line",
        "total",
        "basic_pokemon",
        "tally",
        "by_name",
        "pokemon",
        "radiant",
        "ace_spec",
        "prism_star",
    )

    def __init__(
        self,
        lines: list[ResolvedLine],
        parse_problems: list[Problem] | None = None,
        declared_total: int | None = None,
        declared_total_line: int | None = None,
    ) -> None:
        self.lines = lines
        self.parse_problems = parse_problems or []
        self.declared_total = declared_total
        self.declared_total_line = declared_total_line
        unknown: list[ResolvedLine] = []
        # lines with a card (KnownLine for the type checker)
        known: list[Any] = []
        pokemon: list[Any] = []
        radiant: list[Any] = []
        ace_spec: list[Any] = []
        prism_star: list[Any] = []
        by_name: dict[str, list[Any]] = {}
        n_pokemon = n_trainer = n_energy = n_unknown = basic = 0  # local counters: no dict on this hot path
        for ln in lines:
            card, count = ln.card, ln.count
            if card is None:
                unknown.append(ln)
                n_unknown += count
                continue
            known.append(ln)
            sub, kind = card.subtypes, card.supertype
            if kind == "Pokémon":
                n_pokemon += count
                pokemon.append(ln)
                if "Basic" in sub:
                    basic += count
                if "Radiant" in sub:
                    radiant.append(ln)
            elif kind == "Trainer":
                n_trainer += count
            elif kind == "Energy":
                n_energy += count
                if "Basic" in sub:
                    continue  # basic Energy: no limit by name, no other kind
            else:
                n_unknown += count
            if "ACE SPEC" in sub:
                ace_spec.append(ln)
            if "Prism Star" in sub:
                prism_star.append(ln)
            key = card.key
            group = by_name.get(key)
            if group is None:
                by_name[key] = [ln]
            else:
                group.append(ln)
        self.known: list[KnownLine] = known
        self.unknown = unknown
        self.by_name: dict[str, list[KnownLine]] = by_name
        self.pokemon: list[KnownLine] = pokemon
        self.radiant: list[KnownLine] = radiant
        self.ace_spec: list[KnownLine] = ace_spec
        self.prism_star: list[KnownLine] = prism_star
        self.tally = (n_pokemon, n_trainer, n_energy, n_unknown)
        self.total, self.basic_pokemon = n_pokemon + n_trainer + n_energy + n_unknown, basic

    def counts(self) -> Counts:
        return Counts(*self.tally)


@dataclass
class Context:
    """What a rule may know besides the deck."""

    format: Format
    as_of: dt.date
    db: CardDB
    date_problem: Problem | None = None

    @staticmethod
    def name_key(name: str) -> str:
        return name_key(name)

    def evolves_from_of(self, name: str) -> str | None:
        """What the newest printing named ``name`` evolves from."""
        found = self.db.by_name(name)
        return found[0].evolves_from if found else None
