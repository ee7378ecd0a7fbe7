"""The deck as the rules see it: each card line resolved to its printing (:class:`ResolvedLine`, with the
:class:`LineFacts` it shares with every deck holding the same line), the lines indexed in one pass
(:class:`Deck`), and what else a rule may know (:class:`Context`).

The engine (:mod:`deckcheck.engine`) makes them; the rules (:mod:`deckcheck.rules`) read them. Both
import this module, so neither imports the other for these types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import orjson

from .cards import Card, CardDB, Resolution
from .cards.kinds import (
    ACE_SPEC,
    BASIC_ENERGY,
    BASIC_POKEMON,
    ENERGY,
    EVOLVES,
    KIND_MASK,
    OTHER,
    POKEMON,
    POKEMON_STAR,
    PRISM_STAR,
    RADIANT,
    TRAINER,
)
from .context import Context as Context
from .formats import Ban
from .problems import Counts, Problem


class LineFacts:
    """What a card line comes to in one format, on one date, with one database: the line as
    written (its text, count, name, set code and number), the printing it names, how it was
    matched, its legality, what :class:`Deck` needs of it (``profile``) and (made on first use)
    its JSON after the line number.

    Real lists share most of their lines, so the engine keeps these per line text
    (:mod:`deckcheck.engine.memos`, per format, database object and date) and every deck with
    the line gets the same facts. A :class:`ResolvedLine` is a line number and a section around them.
    """

    __slots__ = (
        "raw",
        "count",
        "name",
        "set_code",
        "number",
        "card",
        "method",
        "suggestions",
        "name_differs",
        "language",
        "legal_via",
        "ban",
        "json_tail",
        "profile",
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
        raw: str = "",
    ) -> None:
        self.raw, self.count, self.name, self.set_code, self.number = raw, count, name, set_code, number
        self.card, self.method, self.name_differs = res.card, res.method, res.name_differs
        self.language = res.language  # the name's language when it is no English name (localnames)
        # an unknown card's suggestions are looked up on first use, for a bounded number of names per deck
        self.suggestions: tuple[str, ...] | None = res.suggestions if res.card or res.suggestions else None
        self.legal_via, self.ban = legal_via, ban
        self.json_tail: bytes | None = None  # ResolvedLine.json_fragment() after '{"line":N,'
        self.profile: LineProfile | None = None  # what Deck needs of the line (line_profile), on first use

    def alone(self, suggestions: tuple[str, ...]) -> LineFacts:
        """A copy of these facts with other suggestions, shared with no other line (its JSON is its own)."""
        copy: LineFacts = object.__new__(LineFacts)
        for slot in LineFacts.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.suggestions, copy.json_tail = suggestions, None
        return copy


def _from_facts(slot: str) -> property:
    return property(attrgetter(f"facts.{slot}"), doc=f"The line's {slot} (its :class:`LineFacts`').")


class ResolvedLine:
    """A card line with the printing it resolved to and its legality in the format: its line
    number and section in this deck, and the :class:`LineFacts` it shares with every deck that
    has the same line (``raw``, ``count``, ``name``, ``card``, ``legal_via``... read them).

    Made by the engine and not changed afterwards.
    """

    __slots__ = ("line", "section", "facts")

    #: the values that make a line (what ``==`` compares and ``repr`` shows), in the constructor's order
    FIELDS = (
        "line",
        "raw",
        "count",
        "name",
        "set_code",
        "number",
        "card",
        "method",
        "suggestions",
        "legal_via",
        "ban",
        "section",
        "name_differs",
        "language",
    )

    line: int
    section: str | None
    facts: LineFacts

    def __init__(
        self,
        line: int,
        raw: str,
        count: int,
        name: str,
        set_code: str | None,
        number: str | None,
        card: Card | None,
        method: str,
        suggestions: tuple[str, ...] = (),
        legal_via: Card | None = None,
        ban: Ban | None = None,
        section: str | None = None,
        name_differs: bool = False,
        language: str | None = None,
    ) -> None:
        res = Resolution(card, method, suggestions, name_differs, language)
        facts = LineFacts(count, name, set_code, number, res, legal_via, ban, raw)
        facts.suggestions = suggestions
        self.line, self.section, self.facts = line, section, facts

    raw: str = _from_facts("raw")  # type: ignore[assignment]
    count: int = _from_facts("count")  # type: ignore[assignment]
    name: str = _from_facts("name")  # type: ignore[assignment]
    set_code: str | None = _from_facts("set_code")  # type: ignore[assignment]
    number: str | None = _from_facts("number")  # type: ignore[assignment]
    card: Card | None = _from_facts("card")  # type: ignore[assignment]
    method: str = _from_facts("method")  # type: ignore[assignment]
    legal_via: Card | None = _from_facts("legal_via")  # type: ignore[assignment]
    ban: Ban | None = _from_facts("ban")  # type: ignore[assignment]
    name_differs: bool = _from_facts("name_differs")  # type: ignore[assignment]
    language: str | None = _from_facts("language")  # type: ignore[assignment]

    @property
    def suggestions(self) -> tuple[str, ...]:
        return self.facts.suggestions or ()

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in ResolvedLine.FIELDS])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not ResolvedLine:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # equal by value, and not frozen

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(ResolvedLine.FIELDS, self._values(), strict=True))
        return f"ResolvedLine({shown})"

    @property
    def legal(self) -> bool | None:
        facts = self.facts
        if facts.card is None:
            return None
        return facts.legal_via is not None and facts.ban is None

    def to_dict(self, card_view: Callable[[Card], Any] | None = None) -> dict[str, Any]:
        """The line as JSON-ready values; ``card_view(card)`` writes the printing (default ``Card.to_dict``)."""
        facts = self.facts
        card, via, ban = facts.card, facts.legal_via, facts.ban
        return {
            "line": self.line,
            "count": facts.count,
            "text": facts.raw,
            "name": facts.name,
            "name_as_written": facts.name,
            "language": facts.language,
            "set": facts.set_code,
            "number": facts.number,
            "resolution": facts.method,
            "suggestions": [*(facts.suggestions or ())],
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
        tail = facts.json_tail
        if tail is None:
            view = self.to_dict(Card.json_fragment)
            del view["line"]  # the first key: the rest follows it
            tail = facts.json_tail = orjson.dumps(view)[1:]
        return tail


if TYPE_CHECKING:

    class KnownLine(ResolvedLine):
        """A line whose card was found: what :class:`Deck` lists as ``known``, ``by_name``,
        ``pokemon``... (a name for the type checker; at run time, a ResolvedLine)."""

        card: Card

else:
    KnownLine = ResolvedLine


# -- what each line is, for the deck's one pass ----------------------------------------------

# a line's kind of card (the first item of its profile, :func:`line_profile`): an index into the deck's tally
_POKEMON, _BASIC_POKEMON, _TRAINER, _ENERGY, _BASIC_ENERGY, _OTHER = (
    POKEMON,
    BASIC_POKEMON,
    TRAINER,
    ENERGY,
    BASIC_ENERGY,
    OTHER,
)
_UNKNOWN = OTHER + 1
# the lists of :class:`Deck` a line belongs to (the profile's marks, indices into the deck's lists);
# ``Deck.pokemon`` is made from the lines' kinds, when a rule asks (most lines of a deck are Pokémon)
(
    _UNKNOWN_LINES,
    _RADIANT,
    _ACE_SPEC,
    _PRISM_STAR,
    _POKEMON_STAR,
    _CLAUSES,
    _NAME_MATCHED,
    _SET_UNMATCHED,
    _NAME_DIFFERS,
    _BANNED,
    _NOT_LEGAL,
    _REPRINTED,
    _LOCALIZED,
    _NOT_TOURNAMENT,
) = range(14)
#: resolutions that did not go through a line's set code (every other one found its set; a line
#: with one of these may name a set the database lacks)
NOT_BY_SET = frozenset({"name", "unresolved"})


#: (kind, name key or None, marks, the key of the name an evolution card evolves from or None): what
#: :class:`Deck` needs of a line, the same for every deck with the line
LineProfile = tuple[int, "str | None", tuple[int, ...], "str | None"]


def line_profile(
    ln: LineFacts | ResolvedLine, clauses: Mapping[str, object], barred: Mapping[str, object] | None = None
) -> LineProfile:
    """What a resolved line (or its facts) is for :class:`Deck`: its kind of card, the name key it counts under
    (None for basic Energy and unknown cards), the indices of the deck's lists it belongs to and,
    for a Stage 1, Stage 2 or M Pokémon-EX, the key of the name it evolves from.

    It depends on the line's facts (printing, resolution, legality), the database's deck-building
    clauses (``clauses``, :meth:`CardDB.deck_rules`) and its printings kept out of tournaments
    (``barred``, :meth:`CardDB.not_for_tournaments`) only, so it is kept on the shared
    :class:`LineFacts`: a line a process has seen is indexed with one look-up.
    """
    marks: list[int] = []
    card = ln.card
    if card is None:
        marks.append(_UNKNOWN_LINES)
    if ln.set_code is not None and ln.method in NOT_BY_SET:
        marks.append(_SET_UNMATCHED)
    if card is None:
        return _UNKNOWN, None, tuple(marks), None
    bits = card.kind  # the printing's own part, worked out once (the pack holds it): cards/kinds.py
    kind = bits & KIND_MASK
    key = None if kind == _BASIC_ENERGY else card.key  # basic Energy: no limit by name, no other kind
    parent = card.evolves_key if bits & EVOLVES else None
    if bits > KIND_MASK:
        if bits & RADIANT:
            marks.append(_RADIANT)
        if bits & POKEMON_STAR:
            marks.append(_POKEMON_STAR)
        if bits & ACE_SPEC:
            marks.append(_ACE_SPEC)
        if bits & PRISM_STAR:
            marks.append(_PRISM_STAR)
    if card.id in clauses:
        marks.append(_CLAUSES)
    if barred and card.id in barred:
        marks.append(_NOT_TOURNAMENT)
    if ln.method == "name":
        marks.append(_NAME_MATCHED)
    if ln.name_differs:
        marks.append(_NAME_DIFFERS)
    if ln.language is not None:
        marks.append(_LOCALIZED)
    via, ban = ln.legal_via, ln.ban
    if ban is not None:
        marks.append(_BANNED)
    elif via is None:
        marks.append(_NOT_LEGAL)
    elif via is not card:  # (basic Energy: a printing from after the date, checked as one out then)
        marks.append(_REPRINTED)
    return kind, key, tuple(marks), parent


class Deck:
    """The resolved lines of one decklist, indexed in one pass for the rules.

    ``copies`` adds up the copies of every known card except basic Energy by normalised name (the
    names present, for evolution and exclusive groups), ``most_copies`` is its largest total and
    ``by_name`` (made when asked) groups those lines by name: the copy rule's groups; ``pokemon``, ``radiant``,
    ``ace_spec``, ``prism_star`` and ``pokemon_star`` list the lines of those kinds;
    ``evolving`` the Stage 1, Stage 2 and M Pokémon-EX with the key of the name they evolve from
    (``(line, key)``); ``clauses``
    the lines whose printing carries a deck-building clause (``data/deck-rules.csv``);
    ``name_matched`` the lines matched by name alone, ``set_unmatched`` the lines (unknown
    cards included) with a set code their resolution did not go through, ``name_differs``
    those whose set code and number name another card; ``banned``, ``not_legal`` (neither
    legal nor banned) and ``reprinted`` (legal through another printing; basic Energy only when its
    printing was released after the date) their legality; ``localized`` the lines whose name was
    read in another language; ``not_tournament`` those whose printing says it cannot be used at
    official tournaments. Every list keeps the lines' order.
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
        "copies",
        "_by_name",
        "most_copies",
        "_pokemon",
        "radiant",
        "ace_spec",
        "prism_star",
        "pokemon_star",
        "evolving",
        "clauses",
        "name_matched",
        "set_unmatched",
        "name_differs",
        "banned",
        "not_legal",
        "reprinted",
        "localized",
        "not_tournament",
    )

    def __init__(
        self,
        lines: list[ResolvedLine],
        parse_problems: list[Problem] | None = None,
        declared_total: int | None = None,
        declared_total_line: int | None = None,
        *,
        db: CardDB,
    ) -> None:
        self.lines = lines
        self.parse_problems = parse_problems or []
        self.declared_total = declared_total
        self.declared_total_line = declared_total_line
        clauses, barred = db.deck_rules(), db.not_for_tournaments()
        # one list per mark (the literal costs less than a comprehension)
        marked: list[list[Any]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], []]
        evolving: list[tuple[Any, str]] = []
        tally = [0, 0, 0, 0, 0, 0, 0]  # copies by kind
        copies: dict[str, int] = {}
        for ln in lines:
            facts = ln.facts
            profile = facts.profile
            if profile is None:
                profile = facts.profile = line_profile(facts, clauses, barred)
            kind, key, marks, parent = profile
            count = facts.count
            tally[kind] += count
            if marks:
                for mark in marks:
                    marked[mark].append(ln)
            if parent is not None:
                evolving.append((ln, parent))
            if key is not None:
                copies[key] = copies.get(key, 0) + count
        unknown = marked[_UNKNOWN_LINES]
        self.unknown: list[ResolvedLine] = unknown
        # lines with a card (KnownLine for the type checker)
        known: list[Any] = [ln for ln in lines if ln.facts.card is not None] if unknown else [*lines]
        self.known: list[KnownLine] = known
        self.copies = copies
        self._by_name: dict[str, list[KnownLine]] | None = None
        self.most_copies = max(copies.values()) if copies else 0
        self.evolving: list[tuple[KnownLine, str]] = evolving
        self._pokemon: list[KnownLine] | None = None
        (
            _,
            self.radiant,
            self.ace_spec,
            self.prism_star,
            self.pokemon_star,
            self.clauses,
            self.name_matched,
            self.set_unmatched,
            self.name_differs,
            self.banned,
            self.not_legal,
            self.reprinted,
            self.localized,
            self.not_tournament,
        ) = marked
        pokemon, basic, trainer, energy, basic_energy, other, unknowns = tally
        self.tally = (pokemon + basic, trainer, energy + basic_energy, other + unknowns)
        self.total, self.basic_pokemon = sum(tally), basic

    @property
    def by_name(self) -> dict[str, list[KnownLine]]:
        """The known lines but basic Energy by name key (``copies``' keys, in their order), each
        name's lines in line order (made on first use: only a rule with something to say asks)."""
        made = self._by_name
        if made is None:
            made = {}
            for ln in self.known:
                key = ln.facts.profile[1]  # type: ignore[index]
                if key is not None:
                    made.setdefault(key, []).append(ln)
            self._by_name = made
        return made

    @property
    def pokemon(self) -> list[KnownLine]:
        """The Pokémon lines (made on first use, from the lines' kinds)."""
        made = self._pokemon
        if made is None:
            kinds = (_POKEMON, _BASIC_POKEMON)
            made = self._pokemon = [ln for ln in self.lines if ln.facts.profile[0] in kinds]  # type: ignore[index,misc]
        return made

    radiant: list[KnownLine]
    ace_spec: list[KnownLine]
    prism_star: list[KnownLine]
    pokemon_star: list[KnownLine]
    clauses: list[KnownLine]
    name_matched: list[KnownLine]
    #: unknown lines included
    set_unmatched: list[ResolvedLine]
    name_differs: list[KnownLine]
    banned: list[KnownLine]
    not_legal: list[KnownLine]
    reprinted: list[KnownLine]
    #: the lines whose name was read in another language (:mod:`deckcheck.cards.localnames`)
    localized: list[KnownLine]
    #: the lines whose printing cannot be used at official tournaments (``data/deck-rules.csv``)
    not_tournament: list[KnownLine]

    def counts(self) -> Counts:
        return Counts(*self.tally)
