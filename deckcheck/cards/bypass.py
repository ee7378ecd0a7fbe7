"""Cards that bring Evolution Pokémon into play, or use their attacks, without evolving.

A winning list may play a Stage 1 or Stage 2 Pokémon without the Pokémon it evolves from on
purpose: Lugia VSTAR puts Archeops from the discard pile onto the Bench, Regidrago VSTAR uses
the attacks of the Dragon Pokémon in the discard pile. The evolution rule
(:mod:`deckcheck.rules.evolution`) stays silent on a card that such a card in the deck reaches.
A scan of every card's text at build time finds the sentences that do this:

``play``
    "Put up to 3 {W} Pokémon from your discard pile onto your Bench." (Kingdra ex): a Pokémon
    of any stage put into play from the discard pile or the deck, not only Basic Pokémon.
``copy``
    "Choose an attack from a Dragon Pokémon in your discard pile and use it as this attack."
    (Regidrago VSTAR): the attacks of Pokémon that are never in play.
``count``
    "This attack does 20 damage times the number of Pokémon in your discard pile that have the
    Night March attack." (Joltik, Pumpkaboo and Lampent): the Evolution Pokémon with that attack
    (Lampent) are played to be discarded and counted, never evolved into (Night March, Mad Party,
    United Wings).

``data/evolution-bypass.csv`` is the reviewed table: one card name, kind and reach a row, the
sentence it was found in (``source`` is the text field) or ``reviewed: <reason>`` for a card
whose text the source lacks (Lugia VSTAR's VSTAR Power). ``target`` says which Pokémon the
card reaches, written by a person from the sentence: conditions joined by `` & ``, each one of
``any``, ``type:T`` (the Pokémon's type), ``subtype:S``, ``no-rule-box``, ``name:N``,
``name-has:W`` (a word of its name) and ``evolves-from:N``; a card that reaches two kinds of
Pokémon has a row for each. The build fails on a finding that is not in the table, and on a
row the scan no longer finds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from ..names import name_key
from ..patterns import Pattern

TABLE = "evolution-bypass.csv"
KINDS = ("play", "copy", "count")
#: the subtypes that carry a Rule Box (the rulebook: Pokémon ex, EX, GX, V, VMAX, VSTAR,
#: V-UNION, BREAK, TAG TEAM, MEGA, Radiant and Prism Star cards)
RULE_BOX = frozenset({"ex", "EX", "GX", "V", "VMAX", "VSTAR", "V-UNION", "BREAK", "TAG TEAM", "MEGA", "Radiant"})
RULE_BOX_MARKS = RULE_BOX | {"Prism Star"}

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
# the scan's patterns (a build reads card text) and the table's (read at load), compiled on first use:
# a sentence ends at . or ! followed by a blank, outside the rulebook's "(... etc. have Rule Boxes.)"
_SENTENCE_END = Pattern(r"(?<=[.!])(?<!etc\.)\s+")
#: a Pokémon of any stage put onto the Bench from the discard pile or the deck (every run bounded)
_PLAY = Pattern(
    r"\bPokémon\b[^.]{0,120}\bfrom your (?:discard pile|deck)\b[^.]{0,60}\bonto your Bench\b"
    r"|\b(?:search|look at)[^.]{0,40}\byour (?:deck|discard pile)\b[^.]{0,120}\bput (?:it|them) onto your Bench\b"
)
#: the attacks of Pokémon in the discard pile used as this Pokémon's own
_COPY = Pattern(
    r"\battacks? (?:of|from) (?:a|an|any|1|one|each)?\b[^.]{0,80}\bPokémon\b[^.]{0,60}\bin your discard pile\b"
)
#: the Pokémon in the discard pile with a named attack, counted by this one (Night March)
_COUNT = Pattern(r"\bPokémon in your discard pile that ha(?:s|ve) the\b[^.]{1,40}\battack\b")
#: "Basic Pokémon" (or "Basic {W} Pokémon") alone: the sentence cannot reach an Evolution
_BASIC_ONLY = Pattern(r"\bBasic (?:\{[A-Z]\} |[A-Z][a-z']{1,20} )?Pokémon\b")
#: a reminder in brackets, "(Pokémon V, Pokémon-GX, etc. have Rule Boxes.)": not part of what a sentence does
_REMINDER = Pattern(r"\([^()]*\)")
#: the conditions of a ``target`` that name a value (``type:Water``); ``any`` and ``no-rule-box`` stand alone
VALUE_CONDITIONS = frozenset({"type", "subtype", "name", "name-has", "evolves-from"})


class _Card(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def types(self) -> tuple[str, ...]: ...
    @property
    def subtypes(self) -> tuple[str, ...]: ...
    @property
    def evolves_from(self) -> str | None: ...


class Finding:
    """One sentence of one card that reaches Pokémon without evolving (a row of the table)."""

    __slots__ = ("name", "kind", "source", "text", "target")

    def __init__(self, name: str, kind: str, source: str = "", text: str = "", target: str = "any") -> None:
        self.name, self.kind, self.source, self.text, self.target = name, kind, source, text, target

    def __repr__(self) -> str:
        return f"Finding({self.name!r}, {self.kind!r}, {self.source!r}, {self.text!r}, {self.target!r})"

    @property
    def key(self) -> tuple[str, str]:
        """What a scan finding and a table row must agree on."""
        return (self.name, self.kind)


def texts(card: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of every ability, attack and Trainer effect a source record has."""
    if card.get("effect"):
        yield "effect", card["effect"]
    for field in ("abilities", "attacks"):
        for part in card.get(field) or ():
            if isinstance(part, dict) and isinstance(part.get("effect"), str):
                yield field, part["effect"]


def read_sentence(sentence: str) -> str | None:
    """The kind (``play``, ``copy`` or ``count``) of a sentence that reaches Evolution Pokémon, else None."""
    text = " ".join(_REMINDER.sub("", sentence.translate(_APOSTROPHES)).split())
    if "opponent" in text:
        return None  # the opponent's Pokémon, or their attacks: not this deck's Evolutions
    for kind, pattern in (("play", _PLAY), ("copy", _COPY), ("count", _COUNT)):
        m = pattern.search(text)
        if m and not _BASIC_ONLY.compiled().search(text, 0, m.end()):
            return kind
    return None


def scan_card(card: dict[str, Any]) -> list[Finding]:
    """Every finding of one source record, one per kind."""
    found: dict[tuple[str, str], Finding] = {}
    for field, text in texts(card):
        for sentence in _SENTENCE_END.split(text):
            kind = read_sentence(sentence)
            if kind is not None:
                finding = Finding(card["name"], kind, field, sentence.strip())
                found.setdefault(finding.key, finding)
    return list(found.values())


def parse_target(target: str) -> tuple[tuple[str, str], ...]:
    """The conditions of a ``target`` as ``(what, value)`` pairs.

    :raises ValueError: for a condition outside the table's vocabulary.
    """
    out = []
    for part in target.split("&"):
        condition = part.strip()
        if condition in ("any", "no-rule-box"):
            out.append((condition, ""))
            continue
        what, colon, value = condition.partition(":")
        # a value starts and ends with a character that is no blank (the part is stripped: its end is)
        if not colon or what not in VALUE_CONDITIONS or not value or value[0].isspace():
            raise ValueError(f"unknown target condition {condition!r}")
        out.append((what, value))
    return tuple(out)


def read_rows(rows: list[dict[str, str]], where: str = TABLE) -> list[Finding]:
    """The rows of ``data/evolution-bypass.csv`` (as :func:`deckcheck.cards.files.read_table` gives them)."""
    out = []
    for n, row in enumerate(rows, start=1):
        kind = (row.get("kind") or "").strip()
        if kind not in KINDS:
            raise ValueError(f"{where} row {n}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        name, source, target = ((row.get(k) or "").strip() for k in ("name", "source", "target"))
        if not name or not source or not target:
            raise ValueError(f"{where} row {n}: a row needs a name, a source and a target")
        try:
            parse_target(target)
        except ValueError as exc:
            raise ValueError(f"{where} row {n}: {exc}") from None
        out.append(Finding(name, kind, source, (row.get("text") or "").strip(), target))
    return out


def compare(scanned: Iterable[Finding], table: list[Finding], with_text: set[str]) -> list[str]:
    """What is wrong between a scan of the source and the reviewed table, as messages: every
    finding must have a row; a row from a text field must be found by the scan when the source
    has text for that card name (``with_text``)."""
    scanned = list(scanned)
    rows = {row.key for row in table}
    errors = [
        f"{TABLE}: unreviewed {f.kind} on {f.name} ({f.source}): {f.text!r}; add a row with its target"
        for f in scanned
        if f.key not in rows
    ]
    seen = {f.key for f in scanned}
    for row in table:
        if not row.source.startswith("reviewed") and row.key not in seen and row.name in with_text:
            errors.append(f"{TABLE}: the scan no longer finds {row.kind} on {row.name}")
    return list(dict.fromkeys(errors))


class Bypass:
    """A card that reaches Pokémon without evolving, and which Pokémon (its table rows)."""

    __slots__ = ("name", "targets")

    def __init__(self, name: str, targets: tuple[tuple[tuple[str, str], ...], ...]) -> None:
        self.name, self.targets = name, targets

    def reaches(self, card: _Card) -> bool:
        """Whether this card brings ``card`` into play or uses its attacks without evolving."""
        return any(all(_holds(what, value, card) for what, value in target) for target in self.targets)


def _holds(what: str, value: str, card: _Card) -> bool:
    if what == "any":
        return True
    if what == "no-rule-box":
        return RULE_BOX_MARKS.isdisjoint(card.subtypes)
    if what == "type":
        return value in card.types
    if what == "subtype":
        return value in card.subtypes
    if what == "name":
        return name_key(card.name) == name_key(value)
    if what == "name-has":
        return value in card.name.split()
    return card.evolves_from is not None and name_key(card.evolves_from) == name_key(value)


def load_bypasses(directory: Path | None = None) -> dict[str, Bypass]:
    """Name key -> what the card of that name reaches, from the reviewed table."""
    from .files import read_table  # the table reader of every data/ table

    targets: dict[str, list[tuple[tuple[str, str], ...]]] = {}
    names: dict[str, str] = {}
    for row in read_rows(read_table(TABLE, directory)):
        key = name_key(row.name)
        names.setdefault(key, row.name)
        targets.setdefault(key, []).append(parse_target(row.target))
    return {key: Bypass(names[key], tuple(found)) for key, found in targets.items()}
