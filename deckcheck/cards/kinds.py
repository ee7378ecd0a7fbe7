"""What a printing is for a deck, as one small number: its kind (the deck's tally counts by it) and the
limits and checks its subtypes bring (Radiant, Pokémon ☆, ACE SPEC, Prism Star, evolving from a named
Pokémon). A card fact, the same for every deck and date: the pack's build works it out for every printing
(its ``kind`` column, read in place), a card read otherwise at its first use (:attr:`Card.kind
<deckcheck.cards.printings.Card.kind>`); :func:`deckcheck.deck.line_profile` reads it.
"""

from __future__ import annotations

from collections.abc import Collection

from .bypass import EVOLVING

#: the kinds (the low bits; :data:`KIND_MASK`), in the order of the deck's tally
POKEMON, BASIC_POKEMON, TRAINER, ENERGY, BASIC_ENERGY, OTHER = range(6)
KIND_MASK = 0b111
#: the subtypes' bits above the kind
RADIANT, POKEMON_STAR, ACE_SPEC, PRISM_STAR, EVOLVES = (1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7)
#: every bit a kind may have: a value outside them is no kind (a pack holding one fails its load)
KIND_VALUES = frozenset(kind | marks for kind in range(OTHER + 1) for marks in range(0, 1 << 8, 1 << 3))
#: bumped by a person whenever :func:`kind_of` answers otherwise for a card: a pack built with another
#: version is not read (its cards work their kinds out), and tests/cards/test_kinds.py fails on the
#: shipped pack until it is rebuilt
KIND_VERSION = 1


def kind_of(supertype: str, subtypes: Collection[str], evolves_from: str | None) -> int:
    """The kind and subtype bits of a printing with these fields."""
    if supertype == "Pokémon":
        bits = BASIC_POKEMON if "Basic" in subtypes else POKEMON
        if "Radiant" in subtypes:
            bits |= RADIANT
        if "Star" in subtypes:
            bits |= POKEMON_STAR
        if evolves_from and not EVOLVING.isdisjoint(subtypes):
            bits |= EVOLVES  # Stage 1, Stage 2 or an M Pokémon-EX: the evolution rule looks for its Pokémon
    elif supertype == "Trainer":
        bits = TRAINER
    elif supertype == "Energy":
        bits = BASIC_ENERGY if "Basic" in subtypes else ENERGY
    else:
        bits = OTHER
    if bits != BASIC_ENERGY:
        if "ACE SPEC" in subtypes:
            bits |= ACE_SPEC
        if "Prism Star" in subtypes:
            bits |= PRISM_STAR
    return bits
