"""Deck-building clauses printed on cards (data/deck-rules.csv, deckcheck/cards/deckrules.py) and the
rules that apply them, each kind tested with real printings from the shipped database."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from deckcheck import check
from deckcheck.cards import deckrules, load
from deckcheck.sync import build

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCE = Path(os.environ.get("DECKCHECK_CARD_SOURCE", ROOT.parent / "shared" / "carddata" / "cards.json.gz"))
ON = "2026-05-01"


def _table():
    return deckrules.read_rows(build.read_table(deckrules.TABLE))


def _problems(text: str, fmt: str = "unlimited"):
    # legal-by-reprint: Unlimited's note naming the newest wording (test_reprints.py)
    return [
        (p.rule, p.message) for p in check(text, fmt, ON).problems if p.rule not in ("deck-size", "legal-by-reprint")
    ]


# -- the scan and the table ------------------------------------------------------


@pytest.mark.parametrize(
    "sentence, name, expected",
    [
        ("You may have as many of this card in your deck as you like.", "Arceus", ("any-number", None, None)),
        ("You can't have more than 1 Pokémon Star in your deck.", "Mudkip ☆", ("star-limit", 1, None)),
        ("You can’t have more than 1 Shining Magikarp in your deck.", "Shining Magikarp", ("name-limit", 1, None)),
        (
            "You may have up to 4 Basic Pokémon cards in your deck with Unown in their names.",
            "Unown [J]",
            ("group-limit", 4, "Unown"),
        ),
        ("ACE SPEC: You can't have more than 1 ACE SPEC card in your deck.", "Awakening Drum", ("ace-spec", 1, None)),
        (
            "Radiant Pokémon Rule: You can't have more than 1 Radiant Pokémon in your deck.",
            "Radiant Eevee",
            ("radiant", 1, None),
        ),
        (
            "◇ (Prism Star) Rule: You can't have more than 1 ◇ card with the same name in your deck.",
            "Giratina ◇",
            ("prism-star", 1, None),
        ),
        ("(This card cannot be used at official tournaments.)", "Imakuni?'s Doduo", ("not-tournament", None, None)),
        ("This card can’t be used in official tournaments.", "Zacian", ("not-tournament", None, None)),
        # gameplay sentences that mention the deck are not deck-building clauses
        ("If you have no cards in your deck, you can't play this card.", "Bill", None),
        ("This Pokémon may have up to 2 Pokémon Tool cards attached to it.", "Vespiquen", None),
        ("Each player can't have more than 4 Benched Pokémon.", "Collapsed Stadium", None),
    ],
)
def test_each_printed_clause_is_read(sentence, name, expected):
    assert deckrules.read_clause(sentence, name) == expected


def test_a_deck_building_sentence_no_pattern_reads_stops_the_scan():
    with pytest.raises(ValueError, match="unrecognised deck-building clause"):
        deckrules.read_clause("You can't have more than 2 Pokémon with Pikachu in their names in your deck.", "Pikachu")


def test_a_sentence_about_tournaments_no_pattern_reads_stops_the_scan():
    with pytest.raises(ValueError, match="unrecognised sentence about tournaments"):
        deckrules.read_clause("This card may be used only at Tournament events.", "Pikachu")


def test_every_printing_that_cannot_be_used_at_official_tournaments_is_in_the_table():
    # the seven printings of the card source that say so, and no other
    barred = {row.id: row.name for row in _table() if row.kind == "not-tournament"}
    assert barred == {
        "xy12-112": "Imakuni?'s Doduo",
        "swshp-SWSH132": "Dragapult",
        "swshp-SWSH135": "Zacian",
        "swshp-SWSH136": "Mimikyu",
        "swshp-SWSH137": "Light Toxtricity",
        "swshp-SWSH138": "Hydreigon C",
        "swshp-SWSH144": "Greninja ☆",
    }
    db = load()
    assert db.not_for_tournaments() == dict.fromkeys(barred, "(This card cannot be used at official tournaments.)")
    assert db.deck_rules()["swshp-SWSH144"].kind == "star-limit"  # its other clause is kept


def test_every_row_of_the_table_is_what_the_scan_reads_from_its_text():
    rows = _table()
    assert {row.kind for row in rows} == set(deckrules.KINDS)
    for row in rows:
        if row.kind in deckrules.CLAUSE_KINDS:
            assert deckrules.read_clause(row.text, row.name) == (row.kind, row.limit, row.group), row
        else:
            assert row.source == ("effect" if row.kind == "special-energy" else "subtypes"), row
    assert len({(row.id, row.kind) for row in rows}) == len(rows)


def _card(cid, name, supertype, subtypes, **extra):
    set_id, number = cid.rsplit("-", 1)
    return {
        "id": cid,
        "name": name,
        "supertype": supertype,
        "subtypes": subtypes,
        "set_id": set_id,
        "number": number,
        **extra,
    }


def _source(*cards):
    return {
        "meta": {},
        "cards": list(cards),
        "sets": [
            {
                "id": "neo3",
                "name": "Neo Revelation",
                "series_id": "neo",
                "ptcgl_code": "N3",
                "code_aliases": ["N3"],
                "releaseDate": "2001-09-21",
            },
            {
                "id": "neo1",
                "name": "Neo Genesis",
                "series_id": "neo",
                "ptcgl_code": "N1",
                "code_aliases": ["N1"],
                "releaseDate": "2000-12-16",
            },
        ],
    }


def test_the_build_applies_the_reviewed_rows_and_fails_on_an_unreviewed_clause():
    magikarp = _card(
        "neo3-66",
        "Shining Magikarp",
        "Pokémon",
        ["Basic"],
        rules=["You can't have more than 1 Shining Magikarp in your deck."],
    )
    pichu = _card("neo1-12", "Pichu", "Pokémon", ["Baby"], attacks=[{"name": "Zzzap", "effect": "Zap."}])
    rows = {r["id"]: r for r in build.iter_rows(build.build(_source(magikarp, pichu), built_at="x"))}
    assert rows["neo1-12"]["subtypes"] == ["Basic", "Baby"]  # a Baby Pokémon is a Basic Pokémon
    # a new card printing a clause the table does not list stops the build
    new = _card(
        "neo3-67",
        "Shining Pidgey",
        "Pokémon",
        ["Basic"],
        rules=["You can't have more than 1 Shining Pidgey in your deck."],
    )
    with pytest.raises(build.BuildError, match=r"unreviewed name-limit on neo3-67 Shining Pidgey"):
        build.build(_source(magikarp, pichu, new), built_at="x")
    odd = _card(
        "neo3-68",
        "Unown [?]",
        "Pokémon",
        ["Basic"],
        rules=["You may have up to 2 cards in your deck with Unown in their names."],
    )
    with pytest.raises(build.BuildError, match="unrecognised deck-building clause"):
        build.build(_source(odd), built_at="x")
    # a Pokémon with no stage that is in no row (neither Basic nor reviewed as not Basic) too
    legend = _card("neo3-69", "Lugia LEGEND", "Pokémon", ["LEGEND"])
    with pytest.raises(build.BuildError, match=r"unreviewed not-basic on neo3-69"):
        build.build(_source(legend), built_at="x")


NOT_AT_TOURNAMENTS = "(This card cannot be used at official tournaments.)"
ATTACK = [{"name": "Peck", "cost": ["Colorless"], "damage": "10", "effect": ""}]


def _doduos(*cards):
    sets = [
        {"id": "xy12", "name": "Evolutions", "series_id": "xy", "ptcgl_code": "EVO", "releaseDate": "2016-11-02"},
        {"id": "xy13", "name": "Later", "series_id": "xy", "ptcgl_code": "LTR9", "releaseDate": "2017-02-03"},
    ]
    return {"meta": {}, "cards": list(cards), "sets": sets}


def _doduo(cid, *rules):
    return _card(
        cid, "Imakuni?'s Doduo", "Pokémon", ["Basic"], hp=50, types=["Colorless"], attacks=ATTACK, rules=list(rules)
    )


def test_a_printing_that_cannot_be_used_at_tournaments_shares_no_fingerprint_with_its_text(tmp_path):
    # the sentence is printed text: a printing with the same attacks but without it is another card for the
    # reprint rule, in both directions; two printings that both say it keep one fingerprint
    for table in (ROOT / "data").glob("*.csv"):  # the shipped tables, and a row for the second one
        (tmp_path / table.name).write_text(table.read_text(encoding="utf-8"), encoding="utf-8")
    with (tmp_path / deckrules.TABLE).open("a", encoding="utf-8") as fh:
        fh.write(f"xy13-1,Imakuni?'s Doduo,not-tournament,,,rules,{NOT_AT_TOURNAMENTS}\n")
    source = _doduos(_doduo("xy12-112", NOT_AT_TOURNAMENTS), _doduo("xy12-200"), _doduo("xy13-1", NOT_AT_TOURNAMENTS))
    fps = {r["id"]: r["fingerprint"] for r in build.iter_rows(build.build(source, tmp_path, built_at="x"))}
    assert fps["xy12-112"] == fps["xy13-1"] != fps["xy12-200"]
    # a new printing that says it, not in the table, stops the build
    new = _doduo("xy13-2", NOT_AT_TOURNAMENTS)
    with pytest.raises(build.BuildError, match=r"unreviewed not-tournament on xy13-2 Imakuni\?'s Doduo \(rules\)"):
        build.build(_doduos(new), tmp_path, built_at="x")


def test_a_row_must_name_its_printing_as_the_source_does():
    wrong = _card("neo3-66", "Shining Gyarados", "Pokémon", ["Basic"])
    with pytest.raises(build.BuildError, match=r"neo3-66 is 'Shining Gyarados', not 'Shining Magikarp'"):
        build.build(_source(wrong), built_at="x")


@pytest.mark.slow
@pytest.mark.skipif(not SOURCE.exists(), reason=f"needs the card source at {SOURCE} (DECKCHECK_CARD_SOURCE)")
def test_the_whole_card_pool_scan_matches_the_table():
    with gzip.open(SOURCE, "rt", encoding="utf-8") as fh:
        source = json.load(fh)
    scanned = [f for card in source["cards"] for f in deckrules.scan_card(card, card.get("subtypes") or [])]
    assert deckrules.compare(scanned, _table(), {c["id"]: c["name"] for c in source["cards"]}) == []
    assert {f.kind for f in scanned} == set(deckrules.KINDS)


# -- the rules, one test a kind, with real printings ----------------------------------


def test_any_number_arceus_are_not_counted_by_the_copy_limit():
    assert (
        _problems("12 Arceus AR AR1\n6 Arceus AR AR5\n3 Arceus PR-DPP DP50\n4 Arceus LV.X AR 94\n35 Psychic Energy")
        == []
    )
    problems = _problems("10 Arceus AR AR1\n5 Arceus PR-XY XY83\n45 Psychic Energy")
    assert problems[0][0] == "copy-limit"
    assert problems[0][1] == "You have 5 cards named Arceus (line 2); the limit is 4."
    hint = check("10 Arceus AR AR1\n5 Arceus PR-XY XY83\n45 Psychic Energy", "unlimited", ON).problems[0].hint
    assert hint == (
        'Arceus (AR AR1) says "You may have as many of this card in your deck as you like.", so it '
        "does not count; the other printings do."
    )


def test_one_pokemon_star_per_deck_whatever_the_names():
    assert _problems("1 Mudkip ☆ TRR 107\n3 Mudkip RS 59\n56 Water Energy") == []
    assert _problems("1 Mudkip ☆ TRR 107\n1 Umbreon ☆ P5 17\n58 Water Energy") == [
        (
            "pokemon-star-limit",
            ("You have 2 Pokémon ☆ cards (Mudkip ☆, Umbreon ★) (lines 1, 2); the limit is 1 per deck."),
        )
    ]


def test_a_card_that_limits_its_own_copies():
    assert _problems("1 Shining Magikarp N3 66\n59 Water Energy") == []
    assert _problems("1 Shining Magikarp N3 66\n1 Shining Magikarp CEL CC10\n58 Water Energy") == [
        (
            "printed-copy-limit",
            (
                "You have 2 cards named Shining Magikarp (lines 1, 2); Shining Magikarp (N3 66) says "
                '"You can\'t have more than 1 Shining Magikarp in your deck."'
            ),
        )
    ]
    assert _problems("2 Miracle Energy N4 16\n1 Pichu N1 12\n57 Water Energy") == [
        (
            "printed-copy-limit",
            (
                "You have 2 cards named Miracle Energy (line 1); Miracle Energy (N4 16) says "
                '"You can\'t have more than 1 Miracle Energy in your deck."'
            ),
        )
    ]


def test_four_basic_unown_in_total_when_a_neo_unown_is_in_the_deck():
    assert _problems("2 Unown [A] N2 14\n2 Unown [B] N3 39\n56 Psychic Energy") == []
    # without a card printing the clause, each Unown name has its own 4-copy limit
    assert _problems("4 Unown A DP 65\n4 Unown B DP 66\n52 Psychic Energy") == []
    assert _problems("2 Unown [A] N2 14\n2 Unown [B] N3 39\n1 Unown Q MD 49\n55 Psychic Energy") == [
        (
            "name-group-limit",
            (
                "You have 5 Basic Pokémon cards with Unown in their names (lines 1, 2, 3); Unown [A] "
                '(N2 14) says "You may have up to 4 Basic Pokémon cards in your deck with Unown in their '
                'names."'
            ),
        )
    ]


def test_a_special_energy_named_like_a_basic_one_is_the_printing_given():
    report = check("5 Darkness Energy AQ 142\n2 Darkness Energy\n1 Pichu N1 12\n52 Psychic Energy", "unlimited", ON)
    first, second = report.lines[0], report.lines[1]
    assert (first.card.id, first.card.subtypes, first.method) == ("ecard2-142", ("Special",), "printing")
    assert second.card.is_basic_energy and second.method == "basic-energy"
    assert [(p.rule, p.message) for p in report.problems] == [
        ("copy-limit", "You have 5 cards named Darkness Energy (line 1); the limit is 4.")
    ]


def test_a_baby_pokemon_is_a_basic_pokemon():
    report = check("1 Pichu N1 12\n59 Lightning Energy", "unlimited", ON)
    assert report.basic_pokemon == 1 and report.problems == []
    assert report.lines[0].card.subtypes == ("Basic", "Baby")


def test_a_pokemon_legend_is_not_a_basic_pokemon():
    assert [
        p.rule for p in check("1 Lugia LEGEND HS 113\n1 Lugia LEGEND HS 114\n58 Water Energy", "unlimited", ON).problems
    ] == ["no-basic-pokemon"]


def test_a_printing_given_is_never_silently_replaced_by_another_card():
    report = check("4 Basic {R} Energy SVE 5\n4 Basic {R} Energy SVE 10\n4 Fire Energy SVI 1", "standard", ON)
    assert [(ln.card.id, ln.method, ln.name_differs) for ln in report.lines] == [
        ("sve-005", "printing", True),
        ("sve-010", "printing", False),
        ("mee-002", "name", False),
    ]
    assert [p.message for p in report.problems if p.rule == "name-mismatch"] == [
        (
            'Line 1 names "Basic {R} Energy", but SVE 5 is Psychic Energy; the line was checked as Psychic Energy '
            "(SVE 5)."
        )
    ]
    # SVI 1 is Pineco: the Fire Energy line falls back to its type, and says so
    assert [p.message for p in report.problems if p.rule == "resolved-by-name"] == [
        'Line 3: no printing SVI 1 of "Fire Energy" was found, so it was matched by name to Fire Energy (MEE 2).'
    ]
