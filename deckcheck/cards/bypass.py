"""Cards that bring Evolution Pokémon into play, or use their attacks, without evolving.

A winning list may play a Stage 1 or Stage 2 Pokémon without the Pokémon it evolves from on
purpose: Lugia VSTAR puts Archeops from the discard pile onto the Bench, Regidrago VSTAR uses
the attacks of the Dragon Pokémon in the discard pile. The evolution rule
(:mod:`deckcheck.rules.evolution`) stays silent on a card that such a card in the deck reaches.
A scan of every card's text at build time finds the sentences that do this (case-insensitive,
sentence by sentence, a sentence that names the cards "you find there" or "discarded in this way"
read with the earlier sentences of its text):

``play``
    "Put up to 3 {W} Pokémon from your discard pile onto your Bench." (Kingdra ex), "Look at the
    top 8 cards of your deck. You may put any number of Pokémon you find there onto your Bench."
    (Reuniclus), "Search your deck for up to 3 Kirlia and put them onto your Bench." (Kirlia), "if
    this Pokémon is in your discard pile, you may put it onto your Bench" (Gengar, a Stage 2): a
    Pokémon put into play from the player's deck, discard pile, hand, Lost Zone or Prize cards
    that may be a Stage 1 or Stage 2 one. A sentence that reaches Basic Pokémon only ("Basic
    Pokémon", a named Pokémon no Stage 1 or Stage 2 card is called, a Basic card that puts itself
    onto the Bench) or the opponent's cards is no finding.
``copy``
    "Choose an attack from a Dragon Pokémon in your discard pile and use it as this attack."
    (Regidrago VSTAR), "Discard the top card of your deck, and if that card is a Pokémon ...,
    choose 1 of its attacks and use it as this attack." (Slowking): the attacks of Pokémon that
    are never in play (discard pile, deck, Lost Zone; not the Pokémon in play or the opponent's).
``count``
    "This attack does 20 damage times the number of Pokémon in your discard pile that have the
    Night March attack." (Joltik, Pumpkaboo and Lampent): the Evolution Pokémon with that attack
    (Lampent) are played to be discarded and counted, never evolved into (Night March, Mad Party,
    United Wings).

``data/evolution-bypass.csv`` is the reviewed table: one card name, kind and reach a row, the
sentence it was found in (``source`` is the text field) or ``reviewed: <reason>`` for a card
whose text the source lacks (Lugia VSTAR's VSTAR Power), and ``cards``, the printings (card ids)
whose text has it: another card of the same name does not reach anything (Mew Prime uses the
attacks in the Lost Zone, the other Mew do not), a reprint with the same text (fingerprint)
does. ``target`` says which Pokémon the card reaches, written by a person from the sentence:
conditions joined by `` & ``, each one of ``any``, ``type:T`` (the Pokémon's type),
``subtype:S``, ``no-rule-box``, ``name:N``, ``name-has:W`` (a word of its name, a possessive's
``'s`` dropped), ``evolves-from:N`` and ``evolves-from-has:W``; a card that reaches two kinds of
Pokémon has a row for each (a row that leaves ``cards`` empty has those of the row before, of
the same card and kind; printings with different sentences have rows of their own). The build fails
on a finding that is not in the table, on a row the scan no longer finds, and on a row whose
printings are not the scan's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
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
#: the cards played by evolving a Pokémon in play, which the evolution rule checks (:mod:`deckcheck.deck`):
#: Stage 1, Stage 2 and the M Pokémon-EX of the XY era ("MEGA" without a stage: they evolve from the
#: Pokémon-EX of their name; the Mega Evolution ex of later sets are Stage 1 or Stage 2 too); BREAK,
#: LV.X, VMAX and VSTAR are not
EVOLVING = frozenset({"Stage 1", "Stage 2", "MEGA"})

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
# the scan's patterns (a build reads card text) and the table's (read at load), compiled on first use;
# every one is case-insensitive ("Search your deck" and "If heads, search your deck" alike) and every
# run in them is bounded, so a sentence is read in time linear in its length
_I = re.IGNORECASE
# a sentence ends at . or ! followed by a blank, outside the rulebook's "(... etc. have Rule Boxes.)"
_SENTENCE_END = Pattern(r"(?<=[.!])(?<!etc\.)\s+")
#: a card put into play: "put (them|any number of Pokémon you find there|...) onto your Bench", "into
#: play", "face down as your Active Pokémon"; the shortest clause from a put or play to its place
_PUT = Pattern(
    r"(?<!\bin )(?<!\binto )(?<!\bwhen you )\b(?:put|play)s? [^.]{0,160}?"
    r"(?:\b(?:onto|on) (?:your|their) Bench\b|\binto play\b|\bas your Active Pokémon\b)",
    _I,
)
#: the attacks of another Pokémon used as this one's: "use it as this attack", "use one of that
#: Pokémon's attacks as this attack", "can use the attacks of ..."
_USE = Pattern(
    r"\buse (?:it|them|(?:1|one|any) of [^.]{0,60}?attacks) as (?:this|its own|their own) attack\b"
    r"|\bcan use the attacks of\b[^.]{0,120}",
    _I,
)
#: the Pokémon in the discard pile with a named attack, counted by this one (Night March)
_COUNT = Pattern(r"\bPokémon in your discard pile that ha(?:s|ve) the\b[^.]{1,40}\battack\b", _I)
#: where a card comes from: a zone and whose it is ("your deck", "your opponent's hand", "the Lost Zone")
_SOURCE = Pattern(
    r"\b(?P<whose>(?:your |the )?opponent's|his or her|your|their|the) "
    r"(?P<zone>deck|discard pile|hand|Lost Zone|Prize cards?|face-down Prize cards?)\b",
    _I,
)
#: the player's own zones a card is put into play or used from without being evolved into ("put a
#: Pokémon from your hand onto your Bench" is not how a Stage 1 is played: it evolves from one in play)
_OWN_ZONES = frozenset(
    {
        "deck",
        "discard pile",
        "hand",
        "lost zone",
        "prize card",
        "prize cards",
        "face-down prize card",
        "face-down prize cards",
    }
)
#: the cards of an earlier sentence, named again: "any number of Pokémon you find there", "discarded in this way"
_BACK = Pattern(r"\b(?:find there|in this way|that card|the revealed|the chosen)\b", _I)
#: how many earlier sentences such a sentence is read with ("Look at the top 8 cards of your deck." is the one
#: before; Chandelure's "Discard the top 5 cards of your deck." two before): a text's sentences are read in
#: time linear in their number
BACK_SENTENCES = 3
#: the Pokémon in play, the Defending or the opponent's Pokémon, or this Pokémon's own earlier
#: stages: attacks used from there reach no Pokémon the deck did not evolve
_IN_PLAY = Pattern(r"\b(?:in play|Benched|Defending|Active Pokémon's|previous Evolutions?)\b", _I)
#: "Basic Pokémon" (or "Basic {W} Pokémon", "Basic Rapid Strike Pokémon", "Baby Pokémon") alone: the
#: clause cannot reach an Evolution
_BASIC_ONLY = Pattern(r"\b(?:Basic|Baby) (?:\{[A-Z]\} |(?:[A-Z][\w']{0,20} ){1,3})?Pokémon\b", _I)
#: an Evolution named next to a Basic ("a Basic Pokémon or Evolution card"): the Basic no longer vetoes
_EVOLUTION = Pattern(r"\b(?:Evolution|Stage [12]|evolves? from)\b", _I)
#: this card itself, put into play: "put this Pokémon onto your Bench", "you may play it onto your Bench"
#: (when the clause names this Pokémon and searches for, looks at or chooses no other card)
_SELF_PUT = Pattern(r"^(?:put|play)s? (?:this Pokémon|it)\b", _I)
_SELF_NAMED = Pattern(r"\bthis Pokémon\b", _I)
#: a clause that finds another card first: its "it" is that card ("search your deck for Goomy and put it")
_OTHER_CARD = Pattern(r"\b(?:search|look at|reveal|choose|discard(?! pile))", _I)
#: a Pokémon described, not named: "a Pokémon", "{W} Pokémon", "Pokémon VMAX", "Stage 1 Pokémon"
#: (after the player's own and this Pokémon are set aside: "evolve 1 of your Pokémon")
_GENERIC = Pattern(r"\bPokémon\b|\bevolves? from\b", _I)
_NOT_GENERIC = Pattern(r"\b(?:this|your) Pokémon\b", _I)
#: a Pokémon by a word of its name: "Pokémon that have "Rotom" in their name", "a Pokémon with Team Aqua in its name"
_NAME_HAS = Pattern(r"\bPokémon (?:that ha(?:s|ve)|with) \"?(?P<word>[^\".]{1,40}?)\"? in (?:its|their) name\b", _I)
#: the longest card name, in words, a clause is read for ("Pikachu with Grey Felt Hat")
_NAME_WORDS = 6
_WORD = Pattern(r"[^\s,.;:!?\"]+")
#: a reminder in brackets, "(Pokémon V, Pokémon-GX, etc. have Rule Boxes.)": not part of what a sentence does
_REMINDER = Pattern(r"\([^()]*\)")
#: the conditions of a ``target`` that name a value (``type:Water``); ``any`` and ``no-rule-box`` stand alone
VALUE_CONDITIONS = frozenset({"type", "subtype", "name", "name-has", "evolves-from", "evolves-from-has"})


class _Printing(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def fingerprint(self) -> str | None: ...


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
    """One sentence of one card that reaches Pokémon without evolving (a row of the table), and
    the printings (card ids) whose text has it."""

    __slots__ = ("name", "kind", "source", "text", "target", "cards")

    def __init__(
        self,
        name: str,
        kind: str,
        source: str = "",
        text: str = "",
        target: str = "any",
        cards: frozenset[str] = frozenset(),
    ) -> None:
        self.name, self.kind, self.source, self.text, self.target = name, kind, source, text, target
        self.cards = cards

    def __repr__(self) -> str:
        return (
            f"Finding({self.name!r}, {self.kind!r}, {self.source!r}, {self.text!r}, {self.target!r}, "
            f"{sorted(self.cards)!r})"
        )

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


def _clean(sentence: str) -> str:
    return " ".join(_REMINDER.sub("", sentence.translate(_APOSTROPHES)).split())


def _sources(text: str) -> tuple[bool, bool]:
    """Whether ``text`` names one of the player's own zones a card can leave without being evolved
    into (deck, discard pile, Lost Zone, Prize cards), and whether it names an opponent's zone."""
    own = other = False
    for m in _SOURCE.finditer(text):
        whose = m.group("whose").lower()
        if (
            "opponent" in whose
            or whose == "his or her"
            or (whose == "their" and "opponent" in text[: m.start()].lower())
        ):
            other = True  # "your opponent reveals their hand"; "that player may search their deck" is the player's
        elif m.group("zone").lower() in _OWN_ZONES:
            own = True
    return own, other


def _from(region: str, before: list[str]) -> tuple[bool, bool]:
    """The zones of a clause: its own, or those of the nearest earlier sentence that names one when
    the clause names the cards of an earlier sentence ("you find there", "in this way")."""
    own, other = _sources(region)
    if own or other or not _BACK.search(region):
        return own, other
    for earlier in reversed(before):
        own, other = _sources(earlier)
        if own or other:
            break
    return own, other


def _basic_only(region: str) -> bool:
    return bool(_BASIC_ONLY.search(region)) and not _EVOLUTION.search(region)


def _names_an_evolution(region: str, evolutions: frozenset[str] | None) -> bool:
    """Whether a clause that puts a named card into play ("search your deck for up to 2 Haunter")
    names a Stage 1 or Stage 2 Pokémon: every run of up to :data:`_NAME_WORDS` words looked up in
    ``evolutions`` (name keys); with no names to look in, a named card counts."""
    if evolutions is None:
        return True
    words = [m.group(0) for m in _WORD.finditer(region)]
    for i in range(len(words)):
        for j in range(i + 1, min(i + _NAME_WORDS, len(words)) + 1):
            if name_key(" ".join(words[i:j])) in evolutions:
                return True
    return False


def _has_an_evolution(word: str, evolutions: frozenset[str] | None) -> bool:
    """Whether ``word`` is a word of the name of a Stage 1 or Stage 2 card (``Aqua`` of Team Aqua's
    Sharpedo); with no names to look in, it is."""
    if evolutions is None:
        return True
    word = name_key(word).lower()
    # a name key drops apostrophes: Team Aqua's Sharpedo is "team aquas sharpedo"
    return any(f" {word} " in padded or f" {word}s " in padded for padded in (f" {k.lower()} " for k in evolutions))


def _puts(text: str, earlier: list[str], evolution: bool, evolutions: frozenset[str] | None) -> bool:
    """Whether a sentence puts an Evolution card into play from the player's deck, discard pile,
    Lost Zone or Prize cards, or this Stage 1 or Stage 2 card from wherever its text allows."""
    start = 0
    for m in _PUT.finditer(text):
        region, start = text[start : m.end()], m.end()
        if "opponent" in m.group(0).lower() or _basic_only(region):
            continue
        own, other = _from(region, earlier)
        if _SELF_PUT.match(m.group(0)) and _SELF_NAMED.search(region) and not _OTHER_CARD.search(region):
            if not evolution:
                continue  # a Basic Pokémon that puts itself onto the Bench
        elif not _GENERIC.search(_NOT_GENERIC.sub("", region)) and not _names_an_evolution(region, evolutions):
            continue  # named cards, none of them an Evolution: "search your deck for Weedle"
        elif (has := _NAME_HAS.search(region)) and not _has_an_evolution(has.group("word"), evolutions):
            continue  # "Pokémon that have "Rotom" in their name": no Evolution has
        if own and not other:
            return True
    return False


def read_sentence(
    sentence: str, before: Iterable[str] = (), evolution: bool = True, evolutions: frozenset[str] | None = None
) -> str | None:
    """The kind (``play``, ``copy`` or ``count``) of a sentence that reaches Evolution Pokémon, else None.

    ``before`` are the earlier sentences of the same ability, attack or effect (read when the sentence
    names the cards found there); ``evolution`` is whether the card itself is a Stage 1 or Stage 2 (a
    Pokémon that puts itself onto the Bench reaches an Evolution only then); ``evolutions`` are the
    name keys of every Stage 1 and Stage 2 card (:func:`evolution_names`), by which a sentence that
    names the cards it puts into play reaches an Evolution or not (without them, a named card counts).
    """
    text = _clean(sentence)
    earlier = [_clean(s) for s in list(before)[-BACK_SENTENCES:]]
    if _puts(text, earlier, evolution, evolutions):
        return "play"
    m = _USE.search(text)
    if m and not _IN_PLAY.search(text) and not _basic_only(text[: m.end()]):
        own, other = _from(text, earlier)
        if own and not other:
            return "copy"
    m = _COUNT.search(text)
    if m and not _basic_only(text[: m.end()]):
        return "count"
    return None


def evolution_names(cards: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The name keys of the Evolution cards (:data:`EVOLVING`) among source records."""
    return frozenset(name_key(c["name"]) for c in cards if not EVOLVING.isdisjoint(c.get("subtypes") or ()))


def scan_card(card: dict[str, Any], evolutions: frozenset[str] | None = None) -> list[Finding]:
    """Every finding of one source record, one per kind (``evolutions`` as :func:`read_sentence`)."""
    found: dict[tuple[str, str], Finding] = {}
    evolution = not EVOLVING.isdisjoint(card.get("subtypes") or ())
    for field, text in texts(card):
        sentences = _SENTENCE_END.split(text)
        for n, sentence in enumerate(sentences):
            kind = read_sentence(sentence, sentences[max(0, n - BACK_SENTENCES) : n], evolution, evolutions)
            if kind is not None:
                finding = Finding(card["name"], kind, field, sentence.strip(), cards=frozenset({card["id"]}))
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
    out: list[Finding] = []
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
        cards = frozenset((row.get("cards") or "").split())
        if not cards and out and out[-1].key == (name, kind):
            cards = out[-1].cards  # a row that repeats the one before for another target
        if not cards:
            raise ValueError(f"{where} row {n}: {kind} on {name} lists no printing (cards)")
        out.append(Finding(name, kind, source, (row.get("text") or "").strip(), target, cards))
    return out


def _printings(rows: Iterable[Finding]) -> dict[tuple[str, str], frozenset[str]]:
    """The printings of each card name and kind: the union of its rows'."""
    out: dict[tuple[str, str], frozenset[str]] = {}
    for row in rows:
        out[row.key] = out.get(row.key, frozenset()) | row.cards
    return out


def compare(scanned: Iterable[Finding], table: list[Finding], with_text: set[str]) -> list[str]:
    """What is wrong between a scan of the source and the reviewed table, as messages: every
    finding must have a row listing its printing; a row from a text field must be found by the
    scan on each of its printings the source has text for (``with_text``, card ids: a source may
    hold some printings only)."""
    scanned = list(scanned)
    rows = _printings(table)
    seen = _printings(scanned)
    errors = []
    for f in scanned:
        if f.key not in rows:
            errors.append(
                f"{TABLE}: unreviewed {f.kind} on {f.name} ({f.source}): {f.text!r}; add a row with its target"
            )
        elif not f.cards <= rows[f.key]:
            errors.append(f"{TABLE}: {f.kind} on {f.name} is on cards {' '.join(sorted(f.cards - rows[f.key]))} too")
    for row in table:
        if row.source.startswith("reviewed"):
            continue
        lost = (rows[row.key] & with_text) - seen.get(row.key, frozenset())
        if lost:
            errors.append(f"{TABLE}: the scan no longer finds {row.kind} on {row.name} ({' '.join(sorted(lost))})")
    return list(dict.fromkeys(errors))


class Bypass:
    """A card that reaches Pokémon without evolving, which Pokémon (its table rows), and the
    printings whose text does it: another card of the same name (Mew, Hypno) does not."""

    __slots__ = ("name", "targets", "cards")

    def __init__(
        self, name: str, targets: tuple[tuple[tuple[str, str], ...], ...], cards: frozenset[str] = frozenset()
    ) -> None:
        self.name, self.targets, self.cards = name, targets, cards

    def printed_on(self, card: _Printing, fingerprint_of: Callable[[str], str | None]) -> bool:
        """Whether ``card`` is one of this card's printings: one the table lists, or one with the
        same text (a reprint whose text the source lacks has its fingerprint); ``fingerprint_of``
        gives a card id's."""
        if card.id in self.cards:
            return True
        return card.fingerprint is not None and any(fingerprint_of(i) == card.fingerprint for i in self.cards)

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
        return value in _words(card.name)
    if what == "evolves-from-has":
        return card.evolves_from is not None and value in _words(card.evolves_from)
    return card.evolves_from is not None and name_key(card.evolves_from) == name_key(value)


def _words(name: str) -> list[str]:
    """The words of a name, a possessive's ``'s`` dropped (Team Aqua's Sharpedo: Team, Aqua, Sharpedo)."""
    return [w[:-2] if w.endswith(("'s", "’s")) else w for w in name.split()]


def load_bypasses(directory: Path | None = None) -> dict[str, tuple[Bypass, ...]]:
    """Name key -> what the cards of that name reach, from the reviewed table: a :class:`Bypass` for each
    set of printings (Omanyte NEO Discovery reaches what evolves from Mysterious Fossil, Omanyte
    Legend Maker the Pokémon it names)."""
    from .files import read_table  # the table reader of every data/ table

    # name key -> the printings of its rows -> their targets (one Bypass for each set of printings)
    groups: dict[str, dict[frozenset[str], list[tuple[tuple[str, str], ...]]]] = {}
    names: dict[str, str] = {}
    for row in read_rows(read_table(TABLE, directory)):
        key = name_key(row.name)
        names.setdefault(key, row.name)
        groups.setdefault(key, {}).setdefault(row.cards, []).append(parse_target(row.target))
    return {
        key: tuple(Bypass(names[key], tuple(targets), cards) for cards, targets in by_cards.items())
        for key, by_cards in groups.items()
    }
