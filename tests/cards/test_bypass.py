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
from deckcheck.sync import build


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
    ],
)
def test_read_sentence(sentence, kind):
    assert bypass.read_sentence(sentence) == kind


def test_the_rulebook_parenthesis_does_not_end_a_sentence():
    text = (
        "During your turn, you may put up to 2 {C} Pokémon that don't have a Rule Box "
        "(Pokémon V, Pokémon-GX, etc. have Rule Boxes) from your discard pile onto your Bench."
    )
    card = {"name": "Lugia VSTAR", "attacks": [{"name": "Summoning Star", "effect": text}]}
    assert [(f.name, f.kind) for f in bypass.scan_card(card)] == [("Lugia VSTAR", "play")]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["Pokémon ", "from your deck ", "a", " ", "{W} ", "Basic ", "(", ")"]), max_size=2000))
def test_read_sentence_is_linear_on_hostile_text(words):
    start = time.process_time()
    bypass.read_sentence("".join(words) * 5)
    assert time.process_time() - start < 1.0  # a few ms at this size; only backtracking crosses it


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
    assert table["lugia vstar"].name == "Lugia VSTAR"


def test_a_row_without_a_target_or_of_an_unknown_kind_fails_loudly():
    with pytest.raises(ValueError, match=r"row 1: a row needs a name, a source and a target"):
        bypass.read_rows([{"name": "Rabsca", "kind": "play", "source": "attacks", "target": ""}])
    with pytest.raises(ValueError, match=r"row 1: unknown kind 'evolve'"):
        bypass.read_rows([{"name": "Rabsca", "kind": "evolve", "source": "attacks", "target": "any"}])


def test_the_build_fails_on_an_unreviewed_finding_and_on_a_stale_row():
    new = {"name": "Some Card", "effect": "Put a {R} Pokémon from your discard pile onto your Bench."}
    with pytest.raises(build.BuildError, match=r"unreviewed play on Some Card \(effect\)"):
        build._check_bypasses([new], _table())
    reworded = {"name": "Rabsca", "attacks": [{"name": "Revival Blessing", "effect": "Heal 30 damage."}]}
    with pytest.raises(build.BuildError, match=r"the scan no longer finds play on Rabsca"):
        build._check_bypasses([reworded], _table())


@pytest.mark.slow
@pytest.mark.skipif(not SOURCE.exists(), reason=f"needs the card source at {SOURCE} (DECKCHECK_CARD_SOURCE)")
def test_the_whole_card_pool_scan_matches_the_table():
    with gzip.open(SOURCE, "rt", encoding="utf-8") as fh:
        source = json.load(fh)
    scanned = [f for card in source["cards"] for f in bypass.scan_card(card)]
    with_text = {c["name"] for c in source["cards"] if any(True for _ in bypass.texts(c))}
    assert bypass.compare(scanned, _table(), with_text) == []
    assert {f.kind for f in scanned} == set(bypass.KINDS)
