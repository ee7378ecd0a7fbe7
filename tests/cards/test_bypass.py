"""The cards that bring Evolution Pokémon into play without evolving (deckcheck/cards/bypass.py):
the scan of card text, the reviewed table, and what the evolution rule does with them
(tests/rules/test_rules.py holds the rule's verdicts on real lists)."""

from __future__ import annotations

import gzip
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_deckrules import SOURCE

from deckcheck import cards
from deckcheck.cards import bypass
from deckcheck.cards.files import read_table
from deckcheck.names import name_key
from deckcheck.sync import reviewed
from deckcheck.sync.tables import BuildError


def _table():
    return bypass.read_rows(read_table(bypass.TABLE))


@pytest.mark.parametrize(
    "sentence, kind",
    [
        ("Put up to 3 {W} Pokémon from your discard pile onto your Bench.", "play"),
        ("Choose an attack from a Dragon Pokémon in your discard pile and use it as this attack.", "copy"),
        ("If both of them are heads, search your deck for a Pokémon and put it onto your Bench.", "play"),
        (
            "This attack does 20 damage times the number of Pokémon in your discard pile that have the Night March "
            "attack.",
            "count",
        ),
        ("This attack does 20 damage for each Pokémon in your discard pile that has the Mad Party attack.", "count"),
        ("This attack does 10 damage for each Pokémon in your discard pile.", None),
        ("You may search your deck for up to 2 Pokémon VMAX and put them onto your Bench.", "play"),
        # Basic Pokémon only: nothing that evolves is reached
        ("Put 1 Basic Pokémon card from your discard pile onto your Bench.", None),
        ("Search your deck for up to 2 Basic {L} Pokémon and put them onto your Bench.", None),
        ("You may search your deck for any number of Basic Lillie's Pokémon and put them onto your Bench.", None),
        ("This Pokémon can use the attacks of any Basic Pokémon in your discard pile.", None),
        # the opponent's Pokémon, and sentences about the hand
        ("Put a Pokémon from your opponent's discard pile onto their Bench.", None),
        ("Search your deck for a Pokémon, reveal it, and put it into your hand.", None),
        # a sentence that opens with its verb, and every phrasing of a Pokémon put onto the Bench
        ("Search your deck for up to 2 Stage 1 Pokémon and put them onto your Bench.", "play"),
        ("Search your deck for a Pokémon and put it onto your Bench. Then, shuffle your deck.", "play"),
        ("Look at the top 7 cards of your deck and put a {D} Pokémon you find there onto your Bench.", "play"),
        ("Search your deck for a Poliwag, a Poliwhirl, and a Poliwrath, and put them onto your Bench.", "play"),
        (
            "Once during each player's turn, that player may search their deck for up to 2 Pokémon that evolve from "
            "Unidentified Fossil, put those Pokémon onto their Bench, and shuffle their deck.",
            "play",
        ),
        ("Search your deck for up to 3 Basic Rapid Strike Pokémon and put them onto your Bench.", None),
        ("Search your deck for up to 2 basic Pokémon SP and put them onto your Bench.", None),
        ("Search your deck for a Baby Pokémon card and put it onto your Bench.", None),
        (
            "Your opponent reveals their hand, and you put a Basic Pokémon you find there onto your opponent's Bench.",
            None,
        ),
        ("When you play this Pokémon from your hand onto your Bench during your turn, you may draw 3 cards.", None),
        # the attacks of a Pokémon never in play, not of the Pokémon in play or the opponent's
        (
            "Discard the top card of your deck, and if that card is a Pokémon that doesn't have a Rule Box, choose 1 "
            "of its attacks and use it as this attack. (Pokémon ex, Pokémon V, etc. have Rule Boxes.)",
            "copy",
        ),
        ("Mew can use the attacks of all Pokémon in the Lost Zone (both yours and your opponent's).", "copy"),
        ("Mew ex can use the attacks of all Pokémon in play as its own.", None),
        ("Choose 1 of your opponent's Active Pokémon's attacks and use it as this attack.", None),
        ("Choose an attack from 1 of this Pokémon's previous Evolutions and use it as this attack.", None),
        (
            "This attack does 10 damage for each Pokémon in your discard pile that has the United Wings attack to 1 of "
            "your opponent's Benched Pokémon.",
            "count",
        ),
    ],
)
def test_read_sentence(sentence, kind):
    assert bypass.read_sentence(sentence) == kind


EVOLUTIONS = frozenset(map(name_key, ["Haunter", "Kirlia", "Team Aqua's Sharpedo"]))


@pytest.mark.parametrize(
    "sentence, kind",
    [
        # a named Pokémon: an Evolution (a name some Stage 1 or Stage 2 card has) or not
        (
            "When this Pokémon is Knocked Out, search your deck for up to 2 Haunter and put them onto your Bench.",
            "play",
        ),
        ("Search your deck for up to 3 Kirlia and put them onto your Bench.", "play"),
        ("Search your deck for Weedle and put it onto your Bench.", None),
        ("Put up to 3 Duskull from your discard pile onto your Bench.", None),
        ("Search your deck for up to 2 Rare Fossil cards and put them onto your Bench.", None),
        ("If heads, choose a Stadium card from your discard pile and put it into play.", None),
        # by a word of the name
        ("Search your deck for a Pokémon with Team Aqua in its name and put it onto your Bench.", "play"),
        (
            'You may search your deck for any number of Pokémon that have "Rotom" in their name and put them onto your '
            "Bench.",
            None,
        ),
    ],
)
def test_a_named_pokemon_reaches_an_evolution_only_when_one_has_the_name(sentence, kind):
    assert bypass.read_sentence(sentence, evolutions=EVOLUTIONS) == kind


def _card(text: str, subtypes=("Stage 2",), name="Some Pokémon", card_id="xx-1"):
    return {"id": card_id, "name": name, "subtypes": list(subtypes), "abilities": [{"name": "A", "effect": text}]}


def test_the_cards_found_there_are_read_with_the_earlier_sentences():
    reuniclus = (
        "Look at the top 8 cards of your deck. You may put any number of Pokémon you find there onto your Bench."
    )
    chandelure = (
        "Discard the top 5 cards of your deck. This attack does 60 more damage for each Pokémon you discarded in this "
        "way. Then, put any number of Fire Pokémon you discarded in this way onto your Bench."
    )
    malamar = (
        "Your opponent reveals their hand. You may discard a Pokémon you find there and use one of that Pokémon's "
        "non-GX attacks as this attack."
    )
    persian = (
        "Reveal the top 10 cards of your opponent's deck. You may choose an attack from a Pokémon you find there and "
        "use it as this attack. Shuffle the revealed cards into your opponent's deck."
    )
    assert [(f.kind, f.text) for f in bypass.scan_card(_card(reuniclus))] == [
        ("play", "You may put any number of Pokémon you find there onto your Bench.")
    ]
    assert [f.kind for f in bypass.scan_card(_card(chandelure))] == ["play"]
    assert bypass.scan_card(_card(malamar)) == [] and bypass.scan_card(_card(persian)) == []


def test_a_pokemon_that_puts_itself_onto_the_bench_reaches_an_evolution_only_when_it_is_one():
    gengar = "Once during your turn, if this Pokémon is in your discard pile, you may put it onto your Bench."
    luxray = (
        "Once during your turn, if this Pokémon is in your hand and you have more Prize cards remaining than your "
        "opponent, you may put this Pokémon onto your Bench."
    )
    for text in (gengar, luxray):
        assert [f.kind for f in bypass.scan_card(_card(text))] == ["play"], text
        assert bypass.scan_card(_card(text, subtypes=("Basic", "V"))) == [], text


def test_the_rulebook_parenthesis_does_not_end_a_sentence():
    text = (
        "During your turn, you may put up to 2 {C} Pokémon that don't have a Rule Box "
        "(Pokémon V, Pokémon-GX, etc. have Rule Boxes) from your discard pile onto your Bench."
    )
    card = {"id": "swsh12-139", "name": "Lugia VSTAR", "attacks": [{"name": "Summoning Star", "effect": text}]}
    assert [(f.name, f.kind, f.cards) for f in bypass.scan_card(card)] == [
        ("Lugia VSTAR", "play", frozenset({"swsh12-139"}))
    ]


_HOSTILE_WORDS = [
    "Pokémon ", "from your deck ", "a", " ", "{W} ", "Basic ", "(", ")", "put ", "Put it ", "onto your Bench",
    "search ", "Search your deck for ", "you find there ", "Kirlia ", "use it as this attack", ". ", "this Pokémon ",
    'that have "', '" in their name ',
]  # fmt: skip


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(_HOSTILE_WORDS), max_size=2000))
def test_read_sentence_and_scan_card_are_linear_on_hostile_text(words):
    """The text of one card at ~5,000 words (the longest real one has ~150), sentences or one run-on sentence."""
    text = "".join(words) * 5
    evolutions = frozenset({name_key("Kirlia")})
    start = time.process_time()
    bypass.read_sentence(text, [text] * 3, True, evolutions)
    bypass.scan_card({"id": "xx-1", "name": "X", "subtypes": ["Stage 1"], "effect": text}, evolutions)
    assert time.process_time() - start < 2.0  # ~50 ms at this size; only backtracking or a quadratic crosses it


def test_a_word_of_a_name_drops_a_possessive():
    sharpedo = cards.get_db().find("MA", "5")  # Team Aqua's Sharpedo
    assert sharpedo is not None and sharpedo.name == "Team Aqua's Sharpedo"
    assert bypass.Bypass("Archie", (bypass.parse_target("name-has:Aqua"),)).reaches(sharpedo)
    assert not bypass.Bypass("Maxie", (bypass.parse_target("name-has:Magma"),)).reaches(sharpedo)


def test_targets():
    regidrago = bypass.Bypass("Regidrago VSTAR", (bypass.parse_target("type:Dragon"),))
    lugia = bypass.Bypass("Lugia VSTAR", (bypass.parse_target("type:Colorless & no-rule-box"),))
    db = cards.get_db()
    archeops, dragapult, cinccino_ex = db.find("SIT", "147"), db.find("TWM", "130"), db.find("SIT", "139")
    assert regidrago.reaches(dragapult) and not regidrago.reaches(archeops)
    assert lugia.reaches(archeops) and not lugia.reaches(dragapult) and not lugia.reaches(cinccino_ex)
    with pytest.raises(ValueError, match="unknown target condition 'colour:red'"):
        bypass.parse_target("type:Fire & colour:red")


def test_the_database_loads_the_table_by_name_key():
    table = cards.get_db().bypasses()
    assert set(table) >= {"lugia vstar", "regidrago vstar", "rabsca"}
    assert [b.name for b in table["lugia vstar"]] == ["Lugia VSTAR"]
    # a card whose printings say different things has a Bypass for each
    omanyte = {b.cards: b.targets for b in table["omanyte"]}
    assert omanyte[frozenset({"neo2-60"})] == (bypass.parse_target("evolves-from:Mysterious Fossil"),)
    assert bypass.parse_target("name:Lileep") in omanyte[frozenset({"ex16-56"})]


def test_a_row_without_a_target_or_of_an_unknown_kind_fails_loudly():
    with pytest.raises(ValueError, match=r"row 1: a row needs a name, a source and a target"):
        bypass.read_rows([{"name": "Rabsca", "kind": "play", "source": "attacks", "target": ""}])
    with pytest.raises(ValueError, match=r"row 1: unknown kind 'evolve'"):
        bypass.read_rows([{"name": "Rabsca", "kind": "evolve", "source": "attacks", "target": "any"}])
    with pytest.raises(ValueError, match=r"row 1: play on Rabsca lists no printing \(cards\)"):
        bypass.read_rows([{"name": "Rabsca", "kind": "play", "source": "attacks", "target": "any", "cards": " "}])


def test_the_build_fails_on_an_unreviewed_finding_and_on_a_stale_row():
    new = {"id": "xx-1", "name": "Some Card", "effect": "Put a {R} Pokémon from your discard pile onto your Bench."}
    with pytest.raises(BuildError, match=r"unreviewed play on Some Card \(effect\)"):
        reviewed.check_bypasses([new], _table())
    reworded = {
        "id": "sv02-099",
        "name": "Rabsca",
        "attacks": [{"name": "Revival Blessing", "effect": "Heal 30 damage."}],
    }
    with pytest.raises(BuildError, match=r"the scan no longer finds play on Rabsca \(sv02-099\)$"):
        reviewed.check_bypasses([reworded], _table())
    rabsca = [r for r in _table() if r.name == "Rabsca"][0]
    reprint = {"id": "xx-9", "name": "Rabsca", "attacks": [{"name": "Revival", "effect": rabsca.text}]}
    with pytest.raises(BuildError, match=r"play on Rabsca is on cards xx-9 too$"):
        reviewed.check_bypasses([reprint], _table())


@pytest.mark.slow
@pytest.mark.skipif(not SOURCE.exists(), reason=f"needs the card source at {SOURCE} (DECKCHECK_CARD_SOURCE)")
def test_the_whole_card_pool_scan_matches_the_table():
    with gzip.open(SOURCE, "rt", encoding="utf-8") as fh:
        source = json.load(fh)
    evolutions = bypass.evolution_names(source["cards"])
    scanned = [f for card in source["cards"] for f in bypass.scan_card(card, evolutions)]
    with_text = {c["id"] for c in source["cards"] if any(True for _ in bypass.texts(c))}
    assert bypass.compare(scanned, _table(), with_text) == []
    # the shipped table is what the scan derives: the same cards and kinds, on the same printings
    table = [row for row in _table() if not row.source.startswith("reviewed")]
    assert bypass._printings(table) == bypass._printings(scanned)
    assert {f.kind for f in scanned} == set(bypass.KINDS)
    found = {f.key for f in scanned}
    # the cards an acceptance audit found missing, each in a phrasing of its own
    for name in ("Tatsugiri ex", "Reuniclus", "Grimsley's Move", "Dream Ball", "Hypno", "Politoed", "Chandelure",
                 "Parasect", "Single Strike Style Mustard"):  # fmt: skip
        assert (name, "play") in found, name
    assert ("Slowking", "copy") in found
    # and the cards that put Basic Pokémon only onto the Bench are no finding
    for name in ("Buddy-Buddy Poffin", "Nest Ball", "Brawly", "Weedle", "Duskull", "Rotom", "Unown C", "Beldum"):
        assert (name, "play") not in found, name
