"""Deck-building clauses printed on cards, and card categories the source data gets wrong.

Some cards change the deck-construction rules for themselves (Tournament Handbook and the
rulebook: a card's text overrides the rules). A scan of every card's text in the source
data, at build time, finds these sentences:

``any-number``
    "You may have as many of this card in your deck as you like." (Arceus AR1-AR9, the DP
    promo Arceus and Arceus LV.X): the copy limit does not count these printings.
``name-limit``
    "You can't have more than 1 Shining Magikarp in your deck." (the Neo Shining Pokémon,
    Miracle Energy): at most ``limit`` cards with that name, whenever one of them is in the deck.
``star-limit``
    "You can't have more than 1 Pokémon Star in your deck." (every Pokémon ☆): at most 1
    Pokémon ☆ in the whole deck, whatever the names.
``group-limit``
    "You may have up to 4 Basic Pokémon cards in your deck with Unown in their names." (the
    Neo Unown): at most ``limit`` Basic Pokémon whose name holds ``group``, in total.
``not-tournament``
    "(This card cannot be used at official tournaments.)" (Imakuni?'s Doduo EVO 112, some Sword &
    Shield Black Star promos): the printing may not be played in a tournament deck, whatever a
    reprint of it; its fingerprint is kept apart from every other printing's at build, so the
    reprint rule never joins it to one.
``ace-spec``, ``radiant``, ``prism-star``
    The ACE SPEC, Radiant Pokémon and Prism Star rules, already rules of their own; listed so
    that the scan is complete and the card is checked to carry the right subtype.

and card categories that are traps:

``special-energy``
    an Energy named like a basic Energy (``Darkness Energy``) that has text: a Special Energy.
``basic-pokemon``
    a Pokémon the data tags with no stage (the Baby Pokémon of the Neo and e-Card eras): Basic.
``not-basic``
    a Pokémon with no stage in the data that is not Basic either (LEGEND, V-UNION), reviewed.

``data/deck-rules.csv`` is the reviewed table of every finding, one printing a row, with the
clause text and the field it was found in (``source``), or ``reviewed: <reason>`` for a row
the scan cannot make (a printing whose text the source lacks). The build fails on a finding
that is not in the table; the rules (``deckcheck.rules``) read the table at run time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..names import BASIC_ENERGY_NAME
from ..patterns import Pattern
from ..value import Value

#: kinds of row in ``data/deck-rules.csv``
CLAUSE_KINDS = (
    "any-number",
    "name-limit",
    "star-limit",
    "group-limit",
    "not-tournament",
    "ace-spec",
    "radiant",
    "prism-star",
)
CATEGORY_KINDS = ("special-energy", "basic-pokemon", "not-basic")
KINDS = CLAUSE_KINDS + CATEGORY_KINDS
TABLE = "deck-rules.csv"

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
# the scan's patterns: only a build reads card text (compiled on first use)
_SENTENCE_END = Pattern(r"(?<=[.!])\s+")
_ANY_NUMBER = Pattern(r"You may have as many of this card in your deck as you like\.?")
_MORE_THAN = Pattern(r"(?:[^:]{1,40}: )?You can't have more than ([0-9]{1,2}) ([^.]{1,60}?) in your deck\.?")
_UP_TO = Pattern(
    r"You may have up to ([0-9]{1,2}) (Basic Pokémon) cards in your deck with ([^ .]{1,30}) in their names\.?"
)
_NOT_TOURNAMENT = Pattern(
    r"\(?This card (?:cannot|can't|may not) be used (?:at|in) (?:any )?official (?:tournaments|tournament play)\.?\)?"
)
# a sentence about tournaments that _NOT_TOURNAMENT does not read: the build stops on it
_TOURNAMENT = Pattern(r"(?i:tournament)")
# a sentence about building a deck that none of the patterns above reads: the build stops on it
_DECK_BUILDING = Pattern(r"can't have more than|may have (?:as many|up to)|as many of this card")
_NAMED_KINDS = {
    "ACE SPEC card": "ace-spec",
    "Pokémon Star": "star-limit",
    "Radiant Pokémon": "radiant",
    "◇ card with the same name": "prism-star",
}
_STAGES = frozenset({"Basic", "Stage 1", "Stage 2", "BREAK", "VMAX", "VSTAR", "MEGA", "Level-Up", "Restored"})


class Finding(Value):
    """One clause or category found on one printing (a row of ``data/deck-rules.csv``)."""

    __slots__ = __match_args__ = ("id", "name", "kind", "limit", "group", "source", "text")

    id: str
    name: str
    kind: str
    limit: int | None
    group: str | None
    source: str
    text: str

    def __init__(
        self,
        id: str,
        name: str,
        kind: str,
        limit: int | None = None,
        group: str | None = None,
        source: str = "",
        text: str = "",
    ) -> None:
        self.id, self.name, self.kind, self.limit, self.group = id, name, kind, limit, group
        self.source, self.text = source, text

    @property
    def key(self) -> tuple[str, str, int | None, str | None]:
        """What a scan finding and a table row must agree on."""
        return (self.id, self.kind, self.limit, self.group)


def _texts(card: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(field, text)`` for every piece of text a source record has."""
    for rule in card.get("rules") or ():
        yield "rules", rule
    if card.get("effect"):
        yield "effect", card["effect"]
    for field in ("abilities", "attacks"):
        for part in card.get(field) or ():
            if isinstance(part, dict) and part.get("effect"):
                yield field, part["effect"]


def read_clause(sentence: str, card_name: str) -> tuple[str, int | None, str | None] | None:
    """``(kind, limit, group)`` of a deck-building sentence, None for any other sentence.

    :raises ValueError: for a sentence about deck building that no known clause reads.
    """
    text = " ".join(sentence.translate(_APOSTROPHES).split())
    if _TOURNAMENT.search(text):
        if _NOT_TOURNAMENT.fullmatch(text):
            return "not-tournament", None, None
        raise ValueError(f"unrecognised sentence about tournaments: {text!r}")
    if not _DECK_BUILDING.search(text) or "in your deck" not in text:
        return None
    if _ANY_NUMBER.fullmatch(text):
        return "any-number", None, None
    m = _MORE_THAN.fullmatch(text)
    if m:
        limit, what = int(m.group(1)), m.group(2)
        if what in _NAMED_KINDS:
            return _NAMED_KINDS[what], limit, None
        if what == card_name:
            return "name-limit", limit, None
    m = _UP_TO.fullmatch(text)
    if m:
        return "group-limit", int(m.group(1)), m.group(3)
    raise ValueError(f"unrecognised deck-building clause: {text!r}")


def scan_card(card: dict[str, Any], subtypes: list[str]) -> list[Finding]:
    """Every clause and category trap of one source record (``subtypes`` before the table's fixes)."""
    found: dict[tuple[object, ...], Finding] = {}
    for field, text in _texts(card):
        for sentence in _SENTENCE_END.split(text):
            try:
                clause = read_clause(sentence, card["name"])
            except ValueError as exc:
                raise ValueError(f"{card['id']} {card['name']}: {exc}") from None
            if clause is not None:
                kind, limit, group = clause
                finding = Finding(card["id"], card["name"], kind, limit, group, field, sentence.strip())
                found.setdefault(finding.key, finding)
    name, supertype = card["name"].strip(), card["supertype"]
    if supertype == "Energy" and BASIC_ENERGY_NAME.fullmatch(name) and (card.get("effect") or card.get("attacks")):
        text = card.get("effect") or ""
        found.setdefault(
            (card["id"], "special-energy"),
            Finding(card["id"], card["name"], "special-energy", source="effect", text=text),
        )
    if supertype == "Pokémon" and not card.get("evolvesFrom") and _STAGES.isdisjoint(subtypes):
        kind = "basic-pokemon" if "Baby" in subtypes else "not-basic"
        found.setdefault(
            (card["id"], kind), Finding(card["id"], card["name"], kind, source="subtypes", text=" ".join(subtypes))
        )
    return list(found.values())


def read_rows(rows: list[dict[str, str]], where: str = TABLE) -> list[Finding]:
    """The rows of ``data/deck-rules.csv`` (as :func:`deckcheck.cards.files.read_table` gives them)."""
    out = []
    for n, row in enumerate(rows, start=1):
        kind = (row.get("kind") or "").strip()
        if kind not in KINDS:
            raise ValueError(f"{where} row {n}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        limit = (row.get("limit") or "").strip()
        if limit and not limit.isdigit():
            raise ValueError(f"{where} row {n}: limit {limit!r} is not a whole number")
        if not (row.get("id") or "").strip() or not (row.get("source") or "").strip():
            raise ValueError(f"{where} row {n}: a row needs an id and a source")
        out.append(
            Finding(
                row["id"].strip(),
                (row.get("name") or "").strip(),
                kind,
                int(limit) if limit else None,
                (row.get("group") or "").strip() or None,
                row["source"].strip(),
                (row.get("text") or "").strip(),
            )
        )
    return out


def compare(scanned: list[Finding], table: list[Finding], card_names: dict[str, str]) -> list[str]:
    """What is wrong between a scan of the source and the reviewed table, as messages.

    Every finding must be a row; a row must name a printing of the source by its name (rows
    of printings the source lacks are skipped: a partial source still builds); a row from a
    text field must be found by the scan when the source has that text.
    """
    rows = {row.key: row for row in table}
    errors = [
        f"{TABLE}: unreviewed {f.kind} on {f.id} {f.name} ({f.source}): {f.text!r}; add a row"
        for f in scanned
        if f.key not in rows
    ]
    seen = {f.key for f in scanned}
    has_text = {f.id for f in scanned}
    for row in table:
        name = card_names.get(row.id)
        if name is None:
            continue
        if name != row.name:
            errors.append(f"{TABLE}: {row.id} is {name!r}, not {row.name!r}")
        elif not row.source.startswith("reviewed") and row.key not in seen and row.id in has_text:
            errors.append(f"{TABLE}: the scan no longer finds {row.kind} on {row.id} {row.name}")
    return errors


class DeckRule(Value):
    """What a printing's clause means for the rules (see the module docstring); a value, read-only by
    convention."""

    __slots__ = __match_args__ = ("kind", "limit", "group", "text")

    kind: str
    limit: int | None
    group: str | None
    text: str

    def __init__(self, kind: str, limit: int | None, group: str | None, text: str) -> None:
        self.kind, self.limit, self.group, self.text = kind, limit, group, text


def load_rules(directory: Path | None = None) -> tuple[dict[str, DeckRule], dict[str, str]]:
    """From the reviewed table (categories are applied at build): card id -> its deck-building
    clause, and card id -> the sentence that keeps it out of tournaments (``not-tournament``)."""
    from .files import read_table  # the table reader of every data/ table

    out, barred = {}, {}
    for row in read_rows(read_table(TABLE, directory)):
        if row.kind in ("any-number", "name-limit", "star-limit", "group-limit"):
            out[row.id] = DeckRule(row.kind, row.limit, row.group, row.text)
        elif row.kind == "not-tournament":
            barred[row.id] = row.text
    return out, barred
