"""deckcheck/cards/kinds.py: what a printing is for a deck, one small number, worked out once per printing."""

from __future__ import annotations

import pytest

from deckcheck import cards
from deckcheck.cards.kinds import (
    ACE_SPEC,
    BASIC_ENERGY,
    BASIC_POKEMON,
    ENERGY,
    EVOLVES,
    KIND_VALUES,
    OTHER,
    POKEMON,
    POKEMON_STAR,
    PRISM_STAR,
    RADIANT,
    TRAINER,
    kind_of,
)


@pytest.mark.parametrize(
    "fields, bits",
    [
        (("Pokémon", ("Basic",), None), BASIC_POKEMON),
        (("Pokémon", ("Basic", "Radiant"), None), BASIC_POKEMON | RADIANT),
        (("Pokémon", ("Stage 1",), "Dreepy"), POKEMON | EVOLVES),
        (("Pokémon", ("Stage 1",), None), POKEMON),  # names nothing it evolves from
        (("Pokémon", ("MEGA", "EX"), "Venusaur-EX"), POKEMON | EVOLVES),  # an M Pokémon-EX
        (("Pokémon", ("VSTAR",), "Arceus V"), POKEMON),  # not played by evolving a Pokémon of its name
        (("Pokémon", ("Basic", "Star"), None), BASIC_POKEMON | POKEMON_STAR),
        (("Pokémon", ("Basic", "Prism Star"), None), BASIC_POKEMON | PRISM_STAR),
        (("Trainer", ("Item", "ACE SPEC"), None), TRAINER | ACE_SPEC),
        (("Trainer", ("Stadium", "Prism Star"), None), TRAINER | PRISM_STAR),
        (("Energy", ("Basic",), None), BASIC_ENERGY),
        (("Energy", ("Special", "ACE SPEC"), None), ENERGY | ACE_SPEC),
        (("Energy", ("Basic", "ACE SPEC"), None), BASIC_ENERGY),  # basic Energy: no other kind, no limit
        (("Unknown", (), None), OTHER),
    ],
)
def test_a_printings_kind_from_its_fields(fields, bits):
    assert kind_of(*fields) == bits and bits in KIND_VALUES


def test_the_shipped_pack_holds_every_printings_kind_as_kind_of_works_it_out():
    """The tripwire of KIND_VERSION: kind_of changed without the version bumped (and the data rebuilt) fails
    here, on the shipped pack."""
    db = cards.load(cards.default_path())  # a database of its own: its cards carry the pack's kinds
    wrong = []
    for row in range(len(db.cards)):
        card = db.cards.at(row)
        assert card._kind is not None, card.id  # read from the pack, not worked out
        if card._kind != kind_of(card.supertype, card.subtypes, card.evolves_from):
            wrong.append(card.id)
    assert wrong == []
