"""The one normalised name: what is and is not part of a card's name."""

import pytest

from deckcheck.names import basic_energy_type, dropped_at_end, expand_symbols, fold, lookup_key, name_key

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
    ("Nidoran♀", "Nidoran ♀"),
    ("Nidoran♀ δ", "Nidoran♀"),
    ("Charizard ☆ δ", "Charizard ☆"),
    ("Umbreon ★", "Umbreon ☆"),
    ("Umbreon {star}", "Umbreon ☆"),
    ("Unown [A]", "Unown A"),
    ("Ho-Oh", "Ho Oh"),
    ("EXP. ALL", "EXP.ALL"),
    ("ナッシー[Exeggutor]", "Exeggutor"),
    ("Thought Wave Machine (Rocket's Secret Machine)", "Thought Wave Machine"),
    ("Pikachu (Delta Species)", "Pikachu"),
    ("Gengar\u3000LV.X", "Gengar"),
    ("Nest\u00a0Ball", "Nest Ball"),
    ("Ne\u0301st Ball", "Nest Ball"),  # a combining mark
    ("Challenge!", "Challenge"),  # attached punctuation is not the Unown mark
    ("Magnezone Prime", "Magnezone"),  # the HGSS Prime label
    # the gender signs typed as letters or words
    ("Nidoran F", "Nidoran♀"),
    ("Team Rocket's Nidoran (M)", "Team Rocket's Nidoran♂"),
    ("Nidoran Female", "Nidoran ♀"),
    # PTCGO writes a Unit or Blend Energy's types as letters, TCGdex as words, PTCGL-style as symbols
    ("Unit Energy GRW", "Unit Energy GrassFireWater"),
    ("Unit Energy {G}{R}{W}", "Unit Energy GrassFireWater"),
    ("Unit Energy FDY", "Unit Energy FightingDarknessFairy"),
    ("Unit Energy LPM", "Unit Energy LightningPsychicMetal"),
    ("Blend Energy GRPD", "Blend Energy Grass Fire Psychic Darkness"),
    ("Blend Energy WLFM", "Blend Energy Water Lightning Fighting Metal"),
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
    ("Nidoran♀", "Nidoran♂"),
    ("Team Rocket's Nidoran♀", "Team Rocket's Nidoran♂"),
    ("Giovanni's Nidoran ♀", "Giovanni's Nidoran ♂"),
    ("Unown !", "Unown ?"),
    ("Unown !", "Unown"),
    ("Unown A", "Unown B"),
    ("Miracle Sphere α", "Miracle Sphere β"),
    ("Mystery Plate δ", "Mystery Plate γ"),
    ("Mystery Plate δ", "Mystery Plate"),  # a Trainer's letter is part of its name
    ("δ Rainbow Energy", "Rainbow Energy"),
    ("Alakazam ◇", "Alakazam ☆"),
    ("PokéDex (HANDY909)", "Pokédex"),
    ("Ancient Technical Machine [Ice]", "Ancient Technical Machine [Rock]"),
    ("Poké Blower +", "Poké Blower"),
    ("Nidoran F", "Nidoran M"),
    ("Nidoran F", "Nidoran"),
    ("Unit Energy GRW", "Unit Energy LPM"),
    ("Blend Energy GRPD", "Blend Energy WLFM"),
    ("Unit Energy GRW", "Blend Energy GRW"),
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

    assert names._basic_energy_type.memo.size == names.NAME_MEMO_SIZE
    long_name = "Basic " + " " * 300 + "{R} Energy"
    names._basic_energy_type.clear()
    assert basic_energy_type(long_name) == "Fire"
    assert len(names._basic_energy_type.memo) == 0
    assert basic_energy_type("Basic {R} Energy") == basic_energy_type("Basic {R} Energy") == "Fire"
    assert list(names._basic_energy_type.memo) == ["Basic {R} Energy"]


def test_expand_symbols_without_a_symbol_is_the_same_text():
    assert expand_symbols("Nest Ball") == "Nest Ball"
    assert expand_symbols("Basic {R} Energy {Q}") == "Basic Fire Energy {Q}"


def test_keys_of_the_reference_examples():
    assert name_key("Team Rocket's Nidoran♀") == "team rockets nidoran ♀"
    assert name_key("Team Rocket's Nidoran♂") == "team rockets nidoran ♂"
    assert name_key("Unown ?") == "unown ?"
    assert name_key("Miracle Sphere α") == "miracle sphere α"


def test_name_key_memo_keeps_short_names_only():
    from deckcheck import names

    names._name_key_memo.clear()
    long_name = "Nest" + " " * (names.MEMO_MAX_LEN + 10) + "Ball"
    assert name_key(long_name) == "nest ball"
    assert names.memo_sizes()["name_key"] == 0
    assert name_key("Nest Ball") == "nest ball"
    assert names.memo_sizes()["name_key"] == 1
    assert names._name_key_memo.memo.size == names.NAME_MEMO_SIZE


@pytest.mark.parametrize(
    ("line", "card_id"),
    [
        ("1 Unown [A]", "dp1-65"),  # Unown A, the newest printing of the name
        ("1 Ancient Technical Machine [Rock]", "ex5-85"),
        ("1 Unown [A] N2 14", "neo2-14"),
        ("1 Nest Ball [SVI]", "sv01-181"),  # a real bracketed set code still is one
    ],
)
def test_a_bracketed_name_part_is_not_taken_for_a_set_code(line, card_id):
    import deckcheck

    report = deckcheck.check(line, "unlimited", "2026-05-01")
    (ln,) = report.lines
    assert ln.card.id == card_id
    assert [p.rule for p in report.problems if p.rule == "unknown-set"] == []


def test_a_bracketed_name_part_reads_as_part_of_the_name():
    import deckcheck

    report = deckcheck.check("1 Unown [A]", "unlimited", "2026-05-01")
    assert [p.message for p in report.problems if p.rule == "resolved-by-name"] == [
        'Line 1: "Unown [A]" has no set code, so it was matched by name to Unown A (DP 65).'
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 EXP. ALL", 'Line 1: "EXP. ALL" has no set code, so it was matched by name to EXP. ALL (RG 91).'),
        (
            "4 Unit Energy LPM",
            'Line 1: "Unit Energy LPM" has no set code, so it was matched by name to '
            "Unit Energy LightningPsychicMetal (UPR 138).",
        ),
    ],
)
def test_a_name_part_read_as_a_set_code_is_quoted_as_written(line, message):
    """The last word of a name that looks like a set code is quoted as the list writes it, without
    the brackets of ``Unown [A]`` ("EXP. [ALL]" before)."""
    import deckcheck

    report = deckcheck.check(line, "unlimited", "2026-05-01")
    assert [p.message for p in report.problems if p.rule == "resolved-by-name"] == [message]
    assert [p.rule for p in report.problems if p.rule == "unknown-set"] == []


@pytest.mark.parametrize(
    "name, dropped",
    [
        ("Gengar LV.X", ["lv", "x"]),
        ("Gengar LV. 44", ["lv", "44"]),
        ("Latias δ", ["δ"]),
        ("Latias Delta Species", ["delta", "species"]),
        ("Magnezone Prime", ["prime"]),
        ("Charizard ☆ δ", ["δ"]),
        ("Arceus Prism Star", ["prism", "star"]),
        ("Arceus {*}", []),
        ("Mystery Plate δ", []),  # a Trainer whose δ is part of its name
        ("Gengar", []),
    ],
)
def test_dropped_at_end_is_what_the_name_key_leaves_off(name, dropped):
    assert dropped_at_end(name) == dropped
    base = name.rsplit(" ", len(dropped))[0] if dropped else name
    if dropped and dropped != ["prism", "star"]:
        assert name_key(name) == name_key(base)
