"""Card lines written with a card id of the source (TCGdex-based tools: ``4 Professor Oak
base1-88``; pokemontcg.io ids: ``swsh12pt5-160``) and basic Energy lines with tokens that are no
printing (the Limitless builder's ``6 Fire Energy BRS R``, PTCGO's ``Psychic Energy XYEnergy 8``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import deckcheck
from deckcheck.decklist.parse import parse


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("4 Professor Oak base1-88", ("Professor Oak", "BASE1", "88")),
        ("1 Pikachu swsh12pt5-160", ("Pikachu", "SWSH12PT5", "160")),
        ("1 Mew ex sv03.5-151", ("Mew ex", "SV03.5", "151")),
        ("2 Copycat hgss1-90", ("Copycat", "HGSS1", "90")),
        ("1 Dialga LV.X dp7-100", ("Dialga LV.X", "DP7", "100")),
        ("4 Switch tk-hs-g-28", ("Switch", "TK-HS-G", "28")),
        ("6 Fire Energy BRS R", ("Fire Energy", "BRS", "R")),
        ("4 Fire Energy SUM R", ("Fire Energy", "SUM", "R")),
        ("18 Psychic Energy XYEnergy 8", ("Psychic Energy", "XYENERGY", "8")),
        ("4 Basic {R} Energy XYZ", ("Basic {R} Energy", "XYZ", None)),
        # unchanged: no card id, no stray Energy tokens
        ("1 Alph Lithograph hgss1-ONE", ("Alph Lithograph", "HGSS1", "ONE")),
        ("1 Jangmo-o", ("Jangmo-o", None, None)),
        ("1 Tapu Koko-gx", ("Tapu Koko-gx", None, None)),
        ("4 Fire Energy", ("Fire Energy", None, None)),
        ("10 Fire Energy Energy 2", ("Fire Energy", "ENERGY", "2")),
        ("4 Iono PAL 185", ("Iono", "PAL", "185")),
        ("1 Professor's Research (Professor Oak)", ("Professor's Research (Professor Oak)", None, None)),
        ("2 Fire Energy of the Fire Realm x", ("Fire Energy of the Fire Realm x", None, None)),
    ],
)
def test_card_id_and_energy_tails_parse(line, fields):
    (card,) = parse(line).cards
    assert (card.name, card.set_code, card.number) == fields


def _ids(db, *set_ids):
    return [c for c in db.cards.values() if c.set_id in set_ids]


def test_every_card_of_a_set_resolves_by_its_tcgdex_id(db):
    cards = _ids(db, "base1", "sv03.5", "swsh12.5", "hgss1", "dp7", "tk-hs-g", "sv01")
    assert len(cards) > 700
    for card in cards:
        (line,) = parse(f"1 {card.name} {card.id}").cards
        res = db.resolve_parts(line.name, line.set_code, line.number)
        assert (res.card.id, res.method, res.name_differs) == (card.id, "printing", False), card.id


@pytest.mark.parametrize(
    ("written", "card_id"),
    [
        ("swsh12pt5-160", "swsh12.5-160"),
        ("sv3pt5-151", "sv03.5-151"),
        ("sv1-196", "sv01-196"),
        ("me2pt5-213", "me02.5-213"),
        ("sm35-68", "sm3.5-68"),
        ("base6-1", "lc-1"),
    ],
)
def test_pokemontcg_io_ids_resolve_through_the_alias_table(db, written, card_id):
    name = db.get(card_id).name
    (line,) = parse(f"1 {name} {written}").cards
    res = db.resolve_parts(line.name, line.set_code, line.number)
    assert (res.card.id, res.method) == (card_id, "alias")


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["base1-88", "sv03.5-151", "hgss1-90", "swsh12.5-160", "dp7-100"]),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz'.", min_size=1, max_size=30),
)
def test_a_card_id_wins_over_any_name_written(card_id, name):
    """Whatever name is written before it, a card id as the last token is the printing read."""
    cards = parse(f"3 {name.strip() or 'X'}x {card_id}").cards
    assert len(cards) == 1 and (cards[0].set_code, cards[0].number) == tuple(card_id.upper().rsplit("-", 1))


UNLIMITED_IDS = """\
4 Professor Oak base1-88
4 Bill base1-91
4 Copycat hgss1-90
1 Pikachu swsh12pt5-160
1 Mew ex sv03.5-151
1 Regigigas dp7-100
45 Water Energy base1-102
"""


def test_a_valid_unlimited_list_written_in_card_ids():
    report = deckcheck.check(UNLIMITED_IDS, "unlimited", "2026-05-01")
    assert report.valid, [p.message for p in report.problems]
    # no unknown card; the only notes are the Unlimited wording rule (Handbook 4.2.2)
    assert [(p.rule, p.severity, p.message) for p in report.problems] == [
        ("legal-by-reprint", "info", f"Line {n}: {old} is legal; play it with the text of its newest printing, {new}.")
        for n, old, new in [
            (1, "Professor Oak (BS 88)", "Professor Oak (B2 116)"),
            (2, "Bill (BS 91)", "Bill (LC 108)"),
            (3, "Copycat (HS 90)", "Copycat (EVS 143)"),
            (5, "Mew ex (MEW 151)", "Mew ex (PAF 216)"),
        ]
    ]
    assert [ln.card.id for ln in report.lines] == [
        "base1-88",
        "base1-91",
        "hgss1-90",
        "swsh12.5-160",
        "sv03.5-151",
        "dp7-100",
        "base1-102",
    ]


LIMITLESS_ENERGY = """\
4 Lechonk SVI 155
4 Ultra Ball SVI 196
6 Fire Energy BRS R
4 Fire Energy SUM R
18 Psychic Energy XYEnergy 8
24 Water Energy Energy 3
"""


def test_limitless_builder_and_ptcgo_energy_lines_resolve_by_type():
    report = deckcheck.check(LIMITLESS_ENERGY, "standard", "2024-01-15")
    assert report.valid, [p.message for p in report.problems]
    # by type, the newest printing released by the date (MEE, 2025-09-25, was not yet)
    assert [ln.card.label for ln in report.lines[2:]] == [
        "Fire Energy (MFB 16)",
        "Fire Energy (MFB 16)",
        "Basic Psychic Energy (MEW 207)",
        "Water Energy (MFB 32)",
    ]
    # every note is info; an unknown set (XYEnergy) is said by unknown-set instead of resolved-by-name
    assert [(p.rule, p.severity, p.message) for p in report.problems] == [
        (
            "resolved-by-name",
            "info",
            'Line 3: no printing BRS R of "Fire Energy" was found, so it was matched by name to Fire Energy (MFB 16), '
            "the newest printing released by 2024-01-15 (Fire Energy (MEE 2) was released on 2025-09-25).",
        ),
        (
            "resolved-by-name",
            "info",
            'Line 4: no printing SUM R of "Fire Energy" was found, so it was matched by name to Fire Energy (MFB 16), '
            "the newest printing released by 2024-01-15 (Fire Energy (MEE 2) was released on 2025-09-25).",
        ),
        (
            "unknown-set",
            "info",
            "Line 5: the card database knows no set XYENERGY (its newest set is Pitch Black, "
            'released 2026-07-17), so "Psychic Energy" was matched by name to Basic Psychic Energy '
            "(MEW 207), the newest printing released by 2024-01-15 (Psychic Energy (MEE 5) was released on "
            "2025-09-25).",
        ),
    ]


def test_limitless_sp_code_of_the_sword_and_shield_promos_resolves_in_text_as_in_json():
    # data/set-aliases.csv has SP (Limitless's code of the SWSH promos) and a Limitless JSON entry with
    # "set": "SP" resolved, but a text line read SP as part of the name: 'no card named "Zacian V SP 18"'
    report = deckcheck.check("1 Zacian V SP 18\n", "unlimited", "2026-05-01")
    (line,) = report.lines
    assert (line.name, line.set_code, line.number) == ("Zacian V", "SP", "18")
    assert line.card is not None and line.card.id == "swshp-SWSH018"
    assert [p.rule for p in report.problems if p.severity != "info"] == ["deck-size"]
