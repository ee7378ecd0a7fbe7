"""The plain value classes (deckcheck/cards/value.py): the values a check makes (cards, resolutions,
sets, ban and rotation entries...) are ``__slots__`` classes with their own ``__init__``, with a
frozen dataclass's equality, hash and repr, and no dataclass code generated for them at import."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from deckcheck.cards.deckrules import DeckRule, Finding
from deckcheck.cards.printings import Card, CardSet, Resolution, SetAlias
from deckcheck.deck import Context
from deckcheck.formats.pool import Ban, MarkDate, Rotation
from deckcheck.value import Value

PLAIN = [Card, CardSet, Resolution, SetAlias, Finding, DeckRule, Ban, Rotation, MarkDate]


@pytest.mark.parametrize("cls", [*PLAIN, Context], ids=lambda cls: cls.__name__)
def test_values_a_check_makes_are_plain_slots_classes(cls: type) -> None:
    assert not dataclasses.is_dataclass(cls)
    assert "__dict__" not in dir(cls) and cls.__slots__


def _card(**changes: object) -> Card:
    fields = dict(
        id="sv01-181",
        name="Nest Ball",
        supertype="Trainer",
        subtypes=("Item",),
        evolves_from=None,
        types=(),
        mark="G",
        set_id="sv01",
        number="181",
        rarity="Uncommon",
        fingerprint="fp",
        set_code="SVI",
        release="2023-03-31",
        series="Scarlet & Violet",
        key="nest ball",
    )
    fields.update(changes)
    return Card(**fields)  # type: ignore[arg-type]


def test_a_card_is_equal_hashed_and_shown_by_its_fields_only() -> None:
    card, same = _card(), _card()
    assert card == same and not card != same and hash(card) == hash(same) and card is not same
    assert len({card, same}) == 1
    card.to_dict()  # fills the card's caches: no part of its value
    assert card == same and hash(card) == hash(same) and repr(card) == repr(same)
    assert card != _card(number="182") and _card(number="182") != card
    assert repr(card).startswith("Card(id='sv01-181', name='Nest Ball', supertype='Trainer', ")
    assert repr(card).endswith("series='Scarlet & Violet', key='nest ball')") and "_view" not in repr(card)
    assert Card.__match_args__[-1] == "key" and len(Card.__match_args__) == 15


def test_values_of_other_classes_are_never_equal() -> None:
    rule, alias = DeckRule("any-number", None, None, ""), SetAlias((), "", 0, "lookup")
    assert rule != alias and not rule == alias and rule != ("any-number", None, None, "")
    assert Resolution(None, "unresolved") == Resolution(None, "unresolved", (), False, None)
    assert Resolution(None, "unresolved") != Resolution(None, "name")


def test_defaults_and_keywords_are_a_dataclass_s() -> None:
    ban = Ban("Lysandre's Trump Card", (), dt.date(2015, 1, 1), "src")
    assert (ban.until, ban.unconfirmed) == (None, "") and ban.by_name
    assert Rotation(dt.date(2024, 4, 5), "F", "src", unconfirmed="x").sets == ()
    assert Finding("id", "n", "ace-spec", source="subtypes").key == ("id", "ace-spec", None, None)
    mark = MarkDate("H", dt.date(2024, 4, 5), "s")
    assert repr(mark) == "MarkDate(mark='H', start=datetime.date(2024, 4, 5), source='s')"
    assert issubclass(MarkDate, Value) and hash(mark) == hash(MarkDate("H", dt.date(2024, 4, 5), "s"))


def test_a_cards_evolves_key_is_the_name_key_of_what_it_evolves_from():
    from deckcheck.names import name_key

    assert _card().evolves_key is None
    stage1 = _card(supertype="Pokémon", subtypes=("Stage 1",), evolves_from="Drakloak’s  Friend")
    assert stage1.evolves_key == name_key("Drakloak’s  Friend") and stage1 == _card(
        supertype="Pokémon", subtypes=("Stage 1",), evolves_from="Drakloak’s  Friend"
    )


def test_replace_makes_a_changed_copy_through_the_classes_init():
    rotation = Rotation(dt.date(2026, 4, 10), "H", "https://example.invalid/rotation")
    moved = rotation.replace(min_mark="I")
    assert moved == Rotation(dt.date(2026, 4, 10), "I", "https://example.invalid/rotation")
    assert rotation.min_mark == "H" and moved is not rotation
    with pytest.raises(TypeError, match="Rotation has no field 'mark'"):
        rotation.replace(mark="I")
