"""The one normalised name: what is and is not part of a card's name."""

import pytest

from deckcheck.names import basic_energy_type, expand_symbols, fold, lookup_key, name_key

SAME = [
    ("Shaymin-EX", "Shaymin EX"),
    ("Tapu Lele-GX", "Tapu Lele GX"),
    ("Iono’s Bellibolt ex", "Iono's Bellibolt ex"),
    ("Professor's Research (Professor Turo)", "Professor's Research"),
    ("Professor's Research (Professor Magnolia)", "Professor’s Research (Professor Sada)"),
    ("Boss's Orders (Giovanni)", "Boss's Orders"),
    ("Gengar LV.X", "Gengar"),
    ("Gengar LV. 44", "Gengar LV.43"),
    ("Mewtwo δ", "Mewtwo"),
    ("Arceus {*}", "Arceus ◇"),
    ("Arceus Prism Star", "Arceus ◇"),
    ("Basic {R} Energy", "Fire Energy"),
    ("Basic Fire Energy", "Fire Energy"),
    ("Telepathic {P} Energy", "Telepathic Psychic Energy"),
    ("Pokegear 3.0", "Pokégear 3.0"),
    ("POKÉGEAR 3.0", "pokegear 3.0"),
    ("Nest  Ball", "Nest Ball"),
]

DIFFERENT = [
    ("Charizard ex", "Charizard EX"),
    ("Charizard ex", "Charizard"),
    ("Mega Venusaur ex", "M Venusaur-EX"),
    ("Iono's Bellibolt ex", "Bellibolt ex"),
    ("Team Rocket's Mewtwo ex", "Mewtwo ex"),
    ("Alolan Vulpix", "Vulpix"),
    ("Hisuian Zoroark VSTAR", "Zoroark VSTAR"),
    ("Origin Forme Palkia V", "Palkia V"),
    ("Teal Mask Ogerpon ex", "Ogerpon ex"),
    ("Bloodmoon Ursaluna ex", "Ursaluna ex"),
    ("Rapid Strike Urshifu VMAX", "Urshifu VMAX"),
    ("Radiant Greninja", "Greninja"),
    ("Arceus ◇", "Arceus"),
    ("Ethan's Ho-Oh ex", "Ho-Oh ex"),
    ("N's Zoroark ex", "Zoroark ex"),
    ("Professor Juniper", "Professor's Research"),
    ("Lysandre", "Boss's Orders"),
    ("Telepathic {P} Energy", "Psychic Energy"),
]


@pytest.mark.parametrize(("a", "b"), SAME, ids=[f"{a}=={b}" for a, b in SAME])
def test_same_name(a, b):
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT, ids=[f"{a}!={b}" for a, b in DIFFERENT])
def test_different_names(a, b):
    assert name_key(a) != name_key(b)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Iono’s Bellibolt ex", "ionos bellibolt ex"),
        ("Shaymin-EX", "shaymin EX"),
        ("Basic {R} Energy", "fire energy"),
        ("Technical Machine: Devolution", "technical machine devolution"),
        ("Porygon-Z", "porygon z"),
    ],
)
def test_key_shape(name, key):
    assert name_key(name) == key


def test_lookup_key_folds_the_ex_case_too():
    assert lookup_key("Charizard EX") == lookup_key("charizard ex")


@pytest.mark.parametrize(
    ("name", "energy_type"),
    [
        ("Basic {R} Energy", "Fire"),
        ("Basic {Y} Energy", "Fairy"),
        ("Fighting Energy", "Fighting"),
        ("basic darkness energy", "Darkness"),
        ("Telepathic {P} Energy", None),
        ("Double Colorless Energy", None),
        ("Dragon Energy", None),  # there is no basic Dragon Energy
        ("Colorless Energy", None),
        ("Reversal Energy", None),
    ],
)
def test_basic_energy_type(name, energy_type):
    assert basic_energy_type(name) == energy_type


def test_fold_and_symbols():
    assert fold("Pokémon’s") == "Pokemon's"
    assert expand_symbols("Growing {G} Energy") == "Growing Grass Energy"


def test_fold_of_ascii_is_the_unicode_fold():
    """fold() skips the Unicode normalisation for ASCII text; it must not change the answer."""
    import unicodedata

    from deckcheck import names

    def slow(text):
        text = unicodedata.normalize("NFKC", text).translate(names._APOSTROPHES)
        return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))

    for text in [chr(c) for c in range(128)] + ["Boss`s Orders", "Pokegear 3.0", "Arceus {*}", "", "  a  "]:
        assert fold(text) == slow(text), repr(text)
    assert fold("Pokémon’s") == slow("Pokémon’s")


def test_basic_energy_type_memo_is_bounded_and_takes_long_names():
    from deckcheck import names

    assert names._basic_energy_type.cache_info().maxsize is not None
    long_name = "Basic " + " " * 300 + "{R} Energy"
    names._basic_energy_type.cache_clear()
    assert basic_energy_type(long_name) == "Fire"
    assert names._basic_energy_type.cache_info().currsize == 0
    assert basic_energy_type("Basic {R} Energy") == basic_energy_type("Basic {R} Energy") == "Fire"
    assert names._basic_energy_type.cache_info().hits == 1


def test_expand_symbols_without_a_symbol_is_the_same_text():
    assert expand_symbols("Nest Ball") == "Nest Ball"
    assert expand_symbols("Basic {R} Energy {Q}") == "Basic Fire Energy {Q}"
