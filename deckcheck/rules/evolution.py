"""The evolution rule: a Stage 1 or Stage 2 card whose Pokémon it evolves from is missing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..problems import line_list
from ..registry import WARNING, Finding, rule
from .words import display_name, lines_and_ids, written_name

if TYPE_CHECKING:
    from ..cards.bypass import Bypass
    from ..deck import Context, Deck, KnownLine


@rule(
    "evolution-gap",
    code="R301",
    description=(
        "A Stage 1/2 (or an M Pokémon-EX) whose pre-evolution is missing (owner names count; Rare Candy covers a "
        "missing Stage 1; silent when a card of the deck puts that Pokémon into play, uses its attacks or counts it "
        "in the discard pile without evolving, such as Lugia VSTAR for Archeops, Regidrago VSTAR for Dragon Pokémon "
        "or Night March for Lampent: `data/evolution-bypass.csv`)"
    ),
    severity=WARNING,
    title="An Evolution card whose Pokémon it evolves from is missing",
    needs="evolving",
)
def evolution_gap(deck: Deck, ctx: Context) -> Iterable[Finding]:
    """A Stage 1 or Stage 2 card whose Pokémon it evolves from is nowhere in the deck, unless a
    card of the deck brings it into play or uses its attacks without evolving
    (:mod:`deckcheck.cards.bypass`)."""
    present = deck.copies  # every name in the deck except basic Energy
    candy = "rare candy" in present
    missing: dict[tuple[str, str], list[tuple[KnownLine, str | None]]] = {}
    bypasses = None
    for ln, parent in deck.evolving:  # Stage 1, Stage 2 and M Pokémon-EX (BREAK, VMAX...: not checked)
        if parent in present:
            continue
        card = ln.card
        if bypasses is None:  # the cards of the deck that play Evolutions without evolving
            bypasses = _bypasses(deck, ctx)
        if any(b.reaches(card) for b in bypasses):
            continue  # Lugia VSTAR puts Archeops onto the Bench; Regidrago VSTAR uses Dragons' attacks
        assert card.evolves_from is not None
        basic = None
        if candy and "Stage 2" in card.subtypes:
            grand = ctx.evolves_from_of(card.evolves_from)
            if grand is None or ctx.name_key(grand) in present:
                continue  # Rare Candy evolves the Basic straight into this Stage 2
            basic = grand
        missing.setdefault((card.key, card.evolves_from), []).append((ln, basic))
    return _gaps(deck, ctx, missing) if missing else ()


def _bypasses(deck: Deck, ctx: Context) -> list[Bypass]:
    """The deck's cards that bring Evolutions into play or use their attacks without evolving: a
    printing with that text (or a reprint of it), not another card of the same name."""
    table = ctx.db.bypasses()
    fingerprints: dict[str, str | None] = {}

    def fingerprint_of(card_id: str) -> str | None:
        if card_id not in fingerprints:  # at most the table's printings
            card = ctx.db.get(card_id)
            fingerprints[card_id] = card.fingerprint if card is not None else None
        return fingerprints[card_id]

    found: dict[int, Bypass] = {}
    for ln in deck.known:
        for bypass in table.get(ln.card.key, ()):
            if id(bypass) not in found and bypass.printed_on(ln.card, fingerprint_of):
                found[id(bypass)] = bypass
    return list(found.values())


def _gaps(
    deck: Deck, ctx: Context, missing: dict[tuple[str, str], list[tuple[KnownLine, str | None]]]
) -> Iterator[Finding]:
    owners = _OwnerIndex(deck)
    for (_key, parent_name), found in missing.items():
        lines = [ln for ln, _ in found]
        nums, ids = lines_and_ids(lines)
        basic = found[0][1]
        hint = owners.hint(ctx.name_key(parent_name), parent_name)
        if basic and not hint:
            hint = f"Rare Candy covers a missing Stage 1, not a missing Basic: {basic} is not in your deck either."
        yield Finding(
            f"{written_name(lines[0])}{line_list(nums)} evolves from {parent_name}, which is not in your deck.",
            lines=nums,
            cards=ids,
            hint=hint,
        )


class _OwnerIndex:
    """The deck's Pokémon names by every word-ending of them, so that the hint for each missing
    pre-evolution costs the words of its name, not a pass over the deck (a pass for each gap is
    quadratic in a long list); the first line in the deck wins, as a scan would find it."""

    def __init__(self, deck: Deck) -> None:
        self.full: dict[str, tuple[int, KnownLine]] = {}  # a name key -> (index, its first line)
        self.tails: dict[str, tuple[int, KnownLine]] = {}  # each word-ending of a name key -> the same
        for index, ln in enumerate(deck.known):
            if ln.card.supertype != "Pokémon":
                continue
            key = ln.card.key  # a database name's key: a few words
            self.full.setdefault(key, (index, ln))
            at = key.find(" ")
            while at != -1:
                self.tails.setdefault(key[at + 1 :], (index, ln))
                at = key.find(" ", at + 1)

    def hint(self, parent: str, parent_name: str) -> str | None:
        """``Tadbulb`` is in the deck but ``Iono's Tadbulb`` is needed (or the other way round)."""
        hits = [self.tails.get(parent)]  # a name in the deck ends with the parent's: Iono's Tadbulb
        at = parent.find(" ")
        while at != -1:  # the parent's name ends with a name in the deck: Tadbulb
            hits.append(self.full.get(parent[at + 1 :]))
            at = parent.find(" ", at + 1)
        found = [hit for hit in hits if hit is not None]
        if not found:
            return None
        card = min(found, key=lambda hit: hit[0])[1].card
        return (
            f"{display_name(card)} is a different Pokémon from {parent_name}: an owner's or form name "
            "is part of a Pokémon's name."
        )
