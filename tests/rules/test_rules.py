"""One test per rule, plus the traps from issue #3: exact verdicts, rule names and messages.

Decks are built as text with :func:`deck` (card lines padded to 60 with basic Energy) and
checked with :func:`assert_legal` / :func:`assert_problems`, which print the report's
problems when they fail (as Showdown's ``assert.legalTeam`` does). Every check pins its
date; nothing here depends on today.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import deckcheck
from deckcheck.cards import get_db
from deckcheck.formats import default_formats
from deckcheck.rules import PLAYED_AS_POKEMON
from deckcheck.rules.recommend import legal_printings

MAY = "2026-05-01"  # after the 2026 rotation (G out)
MARCH = "2026-03-01"  # before it (G legal)
PSYCHIC = "Basic {P} Energy SVE 5"


def deck(*lines: str, size: int = 60, energy: str = PSYCHIC) -> str:
    """A decklist of ``lines`` (``"4 Nest Ball SVI 181"``), padded to ``size`` cards with basic Energy.

    The lines are numbered from 1 in the order given; the padding line comes last.
    """
    copies = sum(int(line.split()[0]) for line in lines)
    body = list(lines)
    if size > copies:
        body.append(f"{size - copies} {energy}")
    return "\n".join(body) + "\n"


def _show(report) -> str:
    lines = [report.summary]
    lines += [
        f"  {p.code} [{p.rule}] {p.severity} {list(p.lines)}: {p.message} | hint: {p.hint}" for p in report.problems
    ]
    return "\n".join(lines)


def assert_legal(text: str, fmt: str, as_of: str):
    """No errors and no warnings (info is fine); the report is returned."""
    report = deckcheck.check(text, fmt, as_of)
    loud = [p for p in report.problems if p.severity != "info"]
    assert report.valid and not loud, "expected a legal deck:\n" + _show(report)
    return report


def assert_problems(text: str, fmt: str, as_of: str, rules: list[str]):
    """Exactly these error/warning rules (as a multiset, in report order); the report is returned."""
    report = deckcheck.check(text, fmt, as_of)
    got = [p.rule for p in report.problems if p.severity != "info"]
    assert sorted(got) == sorted(rules), f"expected {rules}:\n" + _show(report)
    return report


def only(report, rule: str):
    """The single problem of ``rule`` in ``report``."""
    found = [p for p in report.problems if p.rule == rule]
    assert len(found) == 1, _show(report)
    return found[0]


# -- deck-size -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "message"),
    [
        (59, "Your deck has 59 cards; it must have exactly 60 (add 1)."),
        (61, "Your deck has 61 cards; it must have exactly 60 (remove 1)."),
        (1, "Your deck has 1 card; it must have exactly 60 (add 59)."),
    ],
    ids=["59", "61", "1"],
)
def test_deck_size(size, message):
    report = assert_problems(deck("1 Dreepy TWM 128", size=size), "standard", MAY, ["deck-size"])
    problem = only(report, "deck-size")
    assert (problem.message, problem.code, problem.severity, problem.lines) == (message, "R101", "error", ())


def test_deck_of_60_is_fine():
    assert_legal(deck("4 Dreepy TWM 128"), "standard", MAY)


def test_unknown_cards_count_toward_60():
    report = assert_problems(deck("4 Dreepy TWM 128", "3 Nest Bal SVI 999"), "standard", MAY, ["unknown-card"])
    assert report.counts.total == 60 and report.counts.unknown == 3
    problem = only(report, "unknown-card")
    assert problem.message == (
        'Line 2: no card named "Nest Bal" SVI 999 was found in the card database; '
        "its 3 copies still count toward the deck size."
    )
    assert problem.hint == "Did you mean Nest Ball, Net Ball or Beast Ball?"
    assert (problem.code, problem.lines) == ("C101", (2,))


def test_deck_size_hint_names_unknown_cards():
    report = assert_problems(
        deck("4 Dreepy TWM 128", "3 Nest Bal SVI 999", size=58), "standard", MAY, ["unknown-card", "deck-size"]
    )
    assert only(report, "deck-size").hint == "The total includes 3 cards that could not be identified."


# -- copy-limit --------------------------------------------------------------------


def test_five_copies_split_over_printings():
    text = deck("4 Dreepy TWM 128", "3 Ultra Ball MEG 131", "2 Ultra Ball ASC 213")
    problem = only(assert_problems(text, "standard", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 5 cards named Ultra Ball (lines 2, 3); the limit is 4."
    assert problem.hint == "Different printings of a card count together toward the limit."
    assert (problem.code, problem.lines, problem.cards) == ("R102", (2, 3), ("me01-131", "me02.5-213"))


def test_five_copies_over_lines_of_one_printing():
    text = deck("4 Dreepy TWM 128", "2 Ultra Ball MEG 131", "3 Ultra Ball MEG 131")
    problem = only(assert_problems(text, "standard", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 5 cards named Ultra Ball (lines 2, 3); the limit is 4."
    assert problem.hint is None


def test_four_copies_over_printings_are_fine():
    assert_legal(deck("4 Dreepy TWM 128", "2 Ultra Ball SVI 196", "2 Ultra Ball MEG 131"), "standard", MAY)


def test_professors_research_with_different_professors_sums_to_five():
    text = deck(
        "4 Dreepy TWM 128", "3 Professor's Research (Professor Magnolia) SSH 178", "2 Professor's Research CEL 24"
    )
    problem = only(assert_problems(text, "expanded", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 5 cards named Professor's Research (lines 2, 3); the limit is 4."
    assert problem.hint == (
        "Professor's Research (Professor Magnolia) and Professor's Research (Professor Oak) "
        "share the name Professor's Research; the subtitle in brackets is not part of a "
        "card's name."
    )


@pytest.mark.parametrize(
    ("lines", "message", "hint"),
    [
        (
            ("3 Gengar LV.X AR 97", "2 Gengar AR 16"),
            "You have 5 cards named Gengar (lines 1, 2); the limit is 4.",
            "Gengar and Gengar LV.X share the name Gengar; a level (LV.X, LV.43) is not part of a card's name.",
        ),
        (
            ("3 Latias δ DS 8", "2 Latias TEF 67"),
            "You have 5 cards named Latias (lines 1, 2); the limit is 4.",
            "Latias and Latias δ share the name Latias; δ (Delta Species) is not part of a Pokémon's name.",
        ),
    ],
    ids=["level", "delta-species"],
)
def test_a_level_or_delta_species_is_not_part_of_the_name_the_message_gives(lines, message, hint):
    # the rulebook: Gengar and Gengar LV.X are both "named Gengar"; the message names that shared name
    problem = only(deckcheck.check(deck(*lines), "unlimited", MAY), "copy-limit")
    assert (problem.message, problem.hint, problem.lines) == (message, hint, (1, 2))


def test_owner_names_are_part_of_the_name():
    # 4 + 4 is fine: Iono's Bellibolt ex and Bellibolt ex are different names
    text = deck("4 Iono's Tadbulb JTG 52", "4 Iono's Bellibolt ex JTG 53", "4 Tadbulb PAL 77", "4 Bellibolt ex PAL 79")
    report = assert_legal(text, "standard", MARCH)
    assert [ln.card.key for ln in report.lines[:4]] == [
        "ionos tadbulb",
        "ionos bellibolt ex",
        "tadbulb",
        "bellibolt ex",
    ]


def test_twenty_basic_fire_energy_are_fine():
    assert_legal(deck("4 Dreepy TWM 128", "20 Basic {R} Energy SVE 10", "16 Fire Energy SVE 2"), "standard", MAY)


def test_basic_energy_is_decided_by_the_database_not_the_name():
    text = deck("4 Dreepy TWM 128", "5 Telepathic {P} Energy POR 88")
    problem = only(assert_problems(text, "standard", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 5 cards named Telepathic Psychic Energy (line 2); the limit is 4."
    assert problem.hint == "Telepathic {P} Energy is a Special Energy, so the 4-copy limit applies."


def test_reversal_energy_is_special():
    # TCGdex marks Reversal Energy as basic (energyType "Normal"); the database fixes it
    text = deck("4 Dreepy TWM 128", "5 Reversal Energy PAL 192")
    report = assert_problems(text, "standard", MARCH, ["copy-limit"])
    assert report.lines[1].card.subtypes == ("Special",)
    assert only(report, "copy-limit").hint == "Reversal Energy is a Special Energy, so the 4-copy limit applies."
    assert_legal(deck("4 Dreepy TWM 128", "4 Reversal Energy PAL 192"), "standard", MARCH)


# -- no-basic-pokemon ----------------------------------------------------------------


def test_no_basic_pokemon():
    report = assert_problems(deck("4 Ultra Ball MEG 131"), "standard", MAY, ["no-basic-pokemon"])
    problem = only(report, "no-basic-pokemon")
    assert (problem.message, problem.hint, problem.code) == (
        "Your deck has no Basic Pokémon; it needs at least 1.",
        None,
        "R103",
    )
    assert report.basic_pokemon == 0


@pytest.mark.parametrize(
    ("lines", "hint"),
    [
        (
            ["4 Unidentified Fossil UNM 210"],
            "Unidentified Fossil is an Item played as if it were a Pokémon; it is not a Basic Pokémon card.",
        ),
        (
            ["1 Robo Substitute PHF 102", "1 Lillie's Poké Doll CEC 197"],
            "Robo Substitute and Lillie's Poké Doll are Items played as if they were Pokémon; they are not Basic "
            "Pokémon cards.",
        ),
    ],
    ids=["fossil", "robo-substitute-and-doll"],
)
def test_items_played_as_pokemon_do_not_count(lines, hint):
    report = assert_problems(deck(*lines), "expanded", MAY, ["no-basic-pokemon"])
    assert only(report, "no-basic-pokemon").hint == hint


def test_played_as_pokemon_names_are_in_the_database(db):
    missing = [key for key in PLAYED_AS_POKEMON if not db.by_name(key)]
    assert missing == []


# -- radiant, ACE SPEC, Prism Star -----------------------------------------------------


def test_two_different_radiants():
    text = deck("4 Dreepy TWM 128", "1 Radiant Greninja ASR 46", "1 Radiant Charizard PGO 11")
    problem = only(assert_problems(text, "expanded", MAY, ["radiant-limit"]), "radiant-limit")
    assert problem.message == (
        "You have 2 Radiant Pokémon cards (Radiant Greninja, Radiant Charizard) (lines 2, 3); the limit is 1 per deck."
    )
    assert problem.hint == "The limit is 1 Radiant Pokémon card in total, not 1 of each."
    assert (problem.code, problem.cards) == ("R104", ("swsh10-046", "swsh10.5-011"))


def test_one_radiant_is_fine():
    assert_legal(deck("4 Dreepy TWM 128", "1 Radiant Greninja ASR 46"), "expanded", MAY)


def test_prime_catcher_plus_master_ball():
    text = deck("4 Dreepy TWM 128", "1 Prime Catcher TEF 157", "1 Master Ball TEF 153")
    problem = only(assert_problems(text, "standard", MAY, ["ace-spec-limit"]), "ace-spec-limit")
    assert problem.message == (
        "You have 2 ACE SPEC cards (Prime Catcher, Master Ball) (lines 2, 3); the limit is 1 per deck."
    )
    assert problem.hint == "The limit is 1 ACE SPEC card in total, not 1 of each."
    assert problem.code == "R105"


def test_two_copies_of_one_ace_spec():
    problem = only(
        assert_problems(deck("4 Dreepy TWM 128", "2 Prime Catcher TEF 157"), "standard", MAY, ["ace-spec-limit"]),
        "ace-spec-limit",
    )
    assert problem.message == "You have 2 ACE SPEC cards (Prime Catcher) (line 2); the limit is 1 per deck."
    assert problem.hint is None


def test_black_and_white_ace_spec_comes_from_the_table():
    # Computer Search BCR 137 carries no ACE SPEC flag in TCGdex (data/ace-spec.csv)
    text = deck("4 Dreepy TWM 128", "1 Computer Search BCR 137", "1 Dowsing Machine PLS 128")
    problem = only(assert_problems(text, "expanded", MAY, ["ace-spec-limit"]), "ace-spec-limit")
    assert problem.message == (
        "You have 2 ACE SPEC cards (Computer Search, Dowsing Machine) (lines 2, 3); the limit is 1 per deck."
    )


def test_two_different_prism_star_cards_are_fine():
    assert_legal(deck("4 Dreepy TWM 128", "1 Lunala ◇ UPR 62", "1 Solgaleo {*} UPR 89"), "expanded", MAY)


def test_two_prism_star_cards_of_one_name():
    problem = only(
        assert_problems(
            deck("4 Dreepy TWM 128", "1 Lunala ◇ UPR 62", "1 Lunala Prism Star UPR 62"),
            "expanded",
            MAY,
            ["prism-star-limit"],
        ),
        "prism-star-limit",
    )
    assert problem.message == "You have 2 cards named Lunala ◇ (lines 2, 3); the limit for a Prism Star card is 1."
    assert problem.hint == "Prism Star cards with different names are fine; the limit is per name."
    assert problem.code == "R106"


# -- legality ------------------------------------------------------------------------

ROTATING = deck(
    "4 Charmander PAF 7",
    "3 Charmeleon PAF 8",
    "3 Charizard ex OBF 125",
    "4 Iono PAL 185",
    "4 Rare Candy SVI 191",
    "4 Ultra Ball SVI 196",
    energy="Basic {R} Energy SVE 2",
)


def test_standard_deck_legal_before_the_rotation_and_not_after():
    assert_legal(ROTATING, "standard", "2026-04-09")
    report = assert_problems(ROTATING, "standard", "2026-04-10", ["not-in-format"] * 4)
    # Rare Candy SVI 191 and Ultra Ball SVI 196 (mark G) stay legal through their mark I reprints
    assert [(ln.card.label, ln.legal, ln.legal_via and ln.legal_via.id) for ln in report.lines[3:6]] == [
        ("Iono (PAL 185)", False, None),
        ("Rare Candy (SVI 191)", True, "me01-125"),  # Rare Candy MEG 125
        ("Ultra Ball (SVI 196)", True, "me02.5-213"),  # Ultra Ball ASC 213, the newest of MEG 131 and others
    ]
    problem = report.problems[3]
    assert problem.message == (
        "Iono (PAL 185) (line 4) is not legal in Standard on 2026-04-10: its regulation mark "
        "G has rotated out (the lowest legal mark is H) and no functionally identical reprint "
        "is legal."
    )
    assert (problem.code, problem.lines, problem.cards) == ("R201", (4,), ("sv02-185",))


def test_pokemon_tcg_live_rotates_earlier():
    assert_legal(ROTATING, "standard", "2026-03-26")
    report = assert_problems(ROTATING, "standard-ptcgl", "2026-03-26", ["not-in-format"] * 4)
    assert report.format_name == "Standard (Pokémon TCG Live)"
    assert_legal(ROTATING, "standard-ptcgl", "2026-03-25")


def test_iono_legal_in_march_not_in_may():
    text = deck("4 Dreepy TWM 128", "4 Iono PAL 185")
    assert_legal(text, "standard", MARCH)
    assert_problems(text, "standard", MAY, ["not-in-format"])


def test_hint_for_a_legal_printing_with_different_text():
    problem = only(
        assert_problems(deck("4 Dreepy TWM 128", "1 Potion BS 94"), "standard", MAY, ["not-in-format"]), "not-in-format"
    )
    assert problem.message == (
        "Potion (BS 94) (line 2) is not legal in Standard on 2026-05-01: it has no regulation "
        "mark and no functionally identical reprint is legal."
    )
    assert problem.hint == (
        "Potion (POR 83) is legal, but its text differs from this printing's, so the reprint "
        "rule does not cover this one."
    )


def test_a_set_is_legal_from_the_third_friday():
    # Chaos Rising: released Friday 2026-05-22, legal 2026-06-05
    text = deck("4 Mareep CRI 27")
    problem = only(assert_problems(text, "standard", "2026-06-04", ["not-in-format"]), "not-in-format")
    assert problem.message == (
        "Mareep (CRI 27) (line 1) is not legal in Standard on 2026-06-04: its set, Chaos "
        "Rising, is legal from 2026-06-05 and no functionally identical reprint is legal."
    )
    assert_legal(text, "standard", "2026-06-05")


def test_a_regulation_mark_is_legal_from_its_handbook_date():
    # Ascended Heroes' own date is 2026-02-13, but the J mark is legal from 2026-03-06
    text = deck("4 Dreepy TWM 128", "2 Poké Pad ASC 198")
    problem = only(assert_problems(text, "standard", "2026-03-05", ["not-in-format"]), "not-in-format")
    assert problem.message == (
        "Poké Pad (ASC 198) (line 2) is not legal in Standard on 2026-03-05: regulation mark "
        "J is legal from 2026-03-06 and no functionally identical reprint is legal."
    )
    assert_legal(text, "standard", "2026-03-06")


def test_date_before_the_data():
    # Standard's history starts with Modified's EX Deoxys-on rotation of 2006-09-01
    report = assert_problems(deck("4 Jirachi DX 9"), "standard", "2006-08-31", ["date-out-of-range"])
    problem = only(report, "date-out-of-range")
    assert problem.message == (
        "Standard legality is known from 2006-09-01 on; 2006-08-31 is earlier, so card legality was not checked."
    )
    assert (problem.code, problem.severity) == ("R203", "error")
    assert report.lines[0].legal is False  # nothing was marked legal


def test_expanded_ban():
    problem = only(
        assert_problems(deck("4 Dreepy TWM 128", "1 Red Card GEN 71"), "expanded", MAY, ["banned"]), "banned"
    )
    assert problem.message == "Red Card (GEN 71) (line 2) is banned in Expanded since 2019-11-15."
    assert (problem.hint, problem.code) == (None, "R202")


def test_expanded_ban_is_by_printing():
    # Duskull CEC 83 is on the list from the first list in our sources that shows it (2026-07-24)
    text = deck("4 Duskull CEC 83")
    problem = only(assert_problems(text, "expanded", "2026-08-01", ["banned"]), "banned")
    assert problem.hint == "The ban covers CEC 83 only; other printings of Duskull are not banned."
    assert_legal(deck("4 Duskull PRE 35"), "expanded", "2026-08-01")


def test_expanded_ban_has_a_date():
    text = deck("1 Medicham V EVS 83")
    assert_legal(text, "expanded", "2026-04-09")
    problem = only(assert_problems(text, "expanded", "2026-04-10", ["banned"]), "banned")
    assert problem.message == "Medicham V (EVS 83) (line 1) is banned in Expanded since 2026-04-10."
    assert problem.hint is None  # every printing of Medicham V is on the list


def test_ban_by_name():
    problem = only(
        assert_problems(
            deck("1 Pikachu TEF 51", "1 Double Colorless Energy SUM 136", energy="Basic {L} Energy SVE 4"),
            "glc",
            MAY,
            ["banned"],
        ),
        "banned",
    )
    assert problem.message == (
        "Double Colorless Energy (SUM 136) (line 2) is banned in Gym Leader Challenge since "
        "2025-04-24: every printing of Double Colorless Energy is banned."
    )


def test_sets_pool_message():
    problem = only(
        assert_problems(deck("4 Dreepy TWM 128", "1 Computer Search BS 71"), "expanded", MAY, ["not-in-format"]),
        "not-in-format",
    )
    assert problem.message == (
        "Computer Search (BS 71) (line 2) is not legal in Expanded on 2026-05-01: its set, "
        "Base Set, is not in the card pool and no functionally identical reprint is legal."
    )
    assert problem.hint == (
        "Computer Search (BCR 137) is legal, but its text differs from this printing's, so the "
        "reprint rule does not cover this one."
    )


def test_unlimited_takes_everything():
    assert_legal(deck("4 Dreepy TWM 128", "1 Computer Search BS 71", "4 Red Card GEN 71"), "unlimited", MAY)


# -- parsing problems carried into the report ------------------------------------------


def test_unparsed_line():
    report = assert_problems(deck("4 Dreepy TWM 128") + "Random line at the end\n", "standard", MAY, ["unparsed-line"])
    problem = only(report, "unparsed-line")
    assert (problem.code, problem.lines) == ("P101", (3,))


def test_total_mismatch():
    report = assert_problems(deck("4 Dreepy TWM 128") + "\nTotal Cards: 59\n", "standard", MAY, ["total-mismatch"])
    problem = only(report, "total-mismatch")
    assert problem.message == "The list says Total Cards: 59, but its card lines add up to 60."
    assert (problem.code, problem.severity, problem.lines) == ("P102", "warning", (4,))
    assert report.valid


def test_resolved_by_name_is_info():
    report = assert_legal(deck("4 Dreepy", "1 Ultra Ball TWM 999"), "standard", MAY)
    infos = [p for p in report.problems if p.rule == "resolved-by-name"]
    assert [p.message for p in infos] == [
        'Line 1: "Dreepy" has no set code, so it was matched by name to Dreepy (ASC 158).',
        'Line 2: no printing TWM 999 of "Ultra Ball" was found, so it was matched by name to Ultra Ball (ASC 213).',
    ]
    assert {(p.code, p.severity) for p in infos} == {("C102", "info")}


# -- evolution-gap ---------------------------------------------------------------------


def test_evolution_gap_names_the_missing_pokemon():
    problem = only(
        assert_problems(
            deck("4 Dreepy TWM 128", "2 Dragapult ex TWM 130", "1 Dragapult ex PRE 73"),
            "standard",
            MAY,
            ["evolution-gap"],
        ),
        "evolution-gap",
    )
    assert problem.message == "Dragapult ex (lines 2, 3) evolves from Drakloak, which is not in your deck."
    assert (problem.code, problem.severity, problem.hint) == ("R301", "warning", None)


def test_rare_candy_covers_a_missing_stage_1():
    assert_legal(deck("4 Dreepy TWM 128", "3 Dragapult ex TWM 130", "4 Rare Candy MEG 125"), "standard", MAY)


def test_rare_candy_does_not_cover_a_missing_basic():
    problem = only(
        assert_problems(
            deck("1 Budew PRE 4", "3 Dragapult ex TWM 130", "4 Rare Candy MEG 125"), "standard", MAY, ["evolution-gap"]
        ),
        "evolution-gap",
    )
    assert problem.hint == (
        "Rare Candy covers a missing Stage 1, not a missing Basic: Dreepy is not in your deck either."
    )


def test_regidrago_vstar_uses_the_attacks_of_dragons_it_never_evolves():
    # Regidrago VSTAR's Apex Dragon uses the attacks of Dragon Pokémon in the discard pile:
    # Dragapult ex without Dreepy or Drakloak is on purpose (data/evolution-bypass.csv)
    lines = ("3 Regidrago V SIT 135", "3 Regidrago VSTAR SIT 136", "2 Dragapult ex TWM 130")
    assert_legal(deck(*lines, energy="Basic {G} Energy SVE 1"), "expanded", "2024-08-01")


def test_lugia_vstar_puts_colourless_pokemon_without_a_rule_box_onto_the_bench():
    lugia = ("4 Lugia V SIT 138", "3 Lugia VSTAR SIT 139")
    assert_legal(deck(*lugia, "4 Archeops SIT 147", energy="Basic {L} Energy SVE 4"), "standard", "2023-06-01")
    # Summoning Star reaches {C} Pokémon without a Rule Box only: a Stage 2 of another type still warns
    problem = only(
        assert_problems(
            deck(*lugia, "4 Archeops SIT 147", "2 Gardevoir ex SVI 86", energy="Basic {L} Energy SVE 4"),
            "standard",
            "2023-06-01",
            ["evolution-gap"],
        ),
        "evolution-gap",
    )
    assert problem.message == "Gardevoir ex (line 4) evolves from Kirlia, which is not in your deck."


def test_night_march_and_united_wings_count_evolutions_played_to_be_discarded():
    # Night March (Joltik, Pumpkaboo, Lampent PHF) counts the Night March Pokémon in the discard pile:
    # the 2016 lists played Lampent without Litwick, to discard it (data/evolution-bypass.csv, count)
    night_march = ("4 Joltik PHF 26", "4 Pumpkaboo PHF 44", "4 Lampent PHF 42", "4 Double Colorless Energy XY 130")
    assert_legal(deck(*night_march, energy="Psychic Energy"), "standard", "2016-08-19")
    # United Wings counts Kilowattrel the same way; a Stage 1 with no such attack still warns
    wings = ("4 Murkrow PAL 131", "4 Flamigo PAL 170", "2 Kilowattrel PAF 22")
    assert_legal(deck(*wings, energy="Basic {G} Energy SVE 1"), "standard", "2024-06-01")
    problem = only(
        assert_problems(
            deck(*night_march, "2 Kirlia SIT 68", energy="Psychic Energy"), "unlimited", "2024-06-01", ["evolution-gap"]
        ),
        "evolution-gap",
    )
    assert problem.message == "Kirlia (line 5) evolves from Ralts, which is not in your deck."


_DRAGAPULT = (Path(__file__).parent.parent / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
#: the Dragapult list with Dusknoir and neither Duskull nor Dusclops (60 cards: Budew fills the gap)
_PLAIN_GAP = _DRAGAPULT.replace("2 Duskull PRE 35\n1 Dusclops PRE 36\n", "").replace("1 Budew PRE 4", "4 Budew PRE 4")


def test_a_plain_missing_stage_1_in_a_real_list_still_warns():
    problem = only(assert_problems(_PLAIN_GAP, "standard", MAY, ["evolution-gap"]), "evolution-gap")
    assert problem.message == "Dusknoir (line 5) evolves from Dusclops, which is not in your deck."
    assert (
        problem.hint == "Rare Candy covers a missing Stage 1, not a missing Basic: Duskull is not in your deck either."
    )


@pytest.mark.parametrize(
    "lines",
    [
        # Tatsugiri ex's Attract Customers: "Look at the top 10 cards of your deck. You may put any number of
        # Pokémon you find there onto your Bench."
        "1 Budew PRE 4\n3 Tatsugiri ex SSP 142",
        # Reuniclus's Summoning Gate: the same sentence (its own line is whole)
        "1 Budew PRE 4\n1 Solosis TEF 70\n1 Duosion TEF 71\n1 Reuniclus TEF 72",
    ],
)
def test_cards_that_put_the_pokemon_found_in_the_deck_onto_the_bench_silence_the_gap(lines):
    assert_legal(_PLAIN_GAP.replace("4 Budew PRE 4", lines), "standard", MAY)


def test_grimsleys_move_puts_a_darkness_stage_1_onto_the_bench():
    # "Look at the top 7 cards of your deck and put a {D} Pokémon you find there onto your Bench.": Farigiraf ex
    # (a {D} Stage 1) without Girafarig is on purpose
    grimsley = (
        _DRAGAPULT.replace("1 Budew PRE 4", "2 Farigiraf ex TEF 108")
        .replace("2 Crispin SCR 133", "1 Crispin SCR 133\n1 Grimsley's Move PFL 90")
        .replace("1 Hilda WHT 84\n", "")
    )
    assert_legal(grimsley, "standard", MAY)
    # without Grimsley's Move, the gap warns
    problem = only(
        assert_problems(
            grimsley.replace("1 Grimsley's Move PFL 90", "1 Crispin SCR 133"), "standard", MAY, ["evolution-gap"]
        ),
        "evolution-gap",
    )
    assert problem.message == "Farigiraf ex (line 9) evolves from Girafarig, which is not in your deck."


@pytest.mark.parametrize(
    "bypass, target",
    [
        ("1 Dream Ball EVS 146", "2 Drakloak TWM 129"),  # "Search your deck for a Pokémon and put it onto your Bench."
        ("1 Hypno SIT 61", "2 Drakloak TWM 129"),  # Psy Call: "Search your deck for up to 2 Stage 1 Pokémon ..."
        ("1 Parasect MEW 47", "2 Dolliv SVI 22"),  # "... a number of {G} Pokémon ... onto your Bench."
        ("1 Slowking SCR 58", "2 Drakloak TWM 129"),  # Seek Inspiration: the attacks of the deck's top card
        ("1 Single Strike Style Mustard BST 134", "2 Houndoom BST 96"),
        # a reprint whose text the source lacks: the same fingerprint as BST 134's
        ("1 Single Strike Style Mustard BRS TG28", "2 Houndoom BST 96"),
    ],
)
def test_more_cards_that_play_evolutions_without_evolving(bypass, target):
    lines = [bypass, target, "1 Budew PRE 4"] + (["2 Slowpoke SCR 57"] if "Slowking" in bypass else [])
    lines += ["2 Drowzee SIT 60"] if "Hypno" in bypass else []
    lines += ["2 Paras MEW 46"] if "Parasect" in bypass else []
    assert_legal(deck(*lines), "unlimited", MAY)


def test_a_card_of_the_same_name_without_that_text_does_not_silence_the_gap():
    # Mew Prime (TM 97) uses the attacks of the Pokémon in the Lost Zone; Mew CEL 11 does not
    assert_legal(deck("1 Mew TM 97", "2 Drakloak TWM 129"), "unlimited", MAY)
    problem = only(
        assert_problems(deck("1 Mew CEL 11", "2 Drakloak TWM 129"), "unlimited", MAY, ["evolution-gap"]),
        "evolution-gap",
    )
    assert problem.message == "Drakloak (line 2) evolves from Dreepy, which is not in your deck."
    # Hypno SVI 83 copies the opponent's attacks: its Drowzee is there, Drakloak's Dreepy is not
    assert_problems(
        deck("1 Drowzee SIT 60", "1 Hypno SVI 83", "2 Drakloak TWM 129"), "unlimited", MAY, ["evolution-gap"]
    )


def test_a_card_that_only_searches_for_basic_pokemon_does_not_silence_the_gap():
    # Nest Ball and Buddy-Buddy Poffin put Basic Pokémon onto the Bench; Weedle's Multiply names a Basic
    for searcher in ("4 Nest Ball SVI 181", "4 Buddy-Buddy Poffin TEF 144", "4 Weedle PRC 1"):
        problem = only(
            assert_problems(deck(searcher, "2 Drakloak TWM 129", "1 Budew PRE 4"), "unlimited", MAY, ["evolution-gap"]),
            "evolution-gap",
        )
        assert problem.message == "Drakloak (line 2) evolves from Dreepy, which is not in your deck.", searcher


def test_an_m_pokemon_ex_evolves_from_its_pokemon_ex_and_a_shining_pokemon_is_basic():
    # M Venusaur-EX Mega Evolves from Venusaur-EX (no card puts it into play otherwise); Shining Gyarados is a
    # Basic Pokémon, played without Magikarp
    problem = only(
        assert_problems(deck("2 M Venusaur-EX XY 2", "1 Budew PRE 4"), "unlimited", MAY, ["evolution-gap"]),
        "evolution-gap",
    )
    assert problem.message == "M Venusaur-EX (line 1) evolves from Venusaur-EX, which is not in your deck."
    assert_legal(deck("2 Venusaur-EX XY 1", "2 M Venusaur-EX XY 2"), "unlimited", MAY)
    assert_legal(deck("1 Shining Gyarados N3 65"), "unlimited", MAY)


def test_a_bypass_card_only_counts_when_it_is_in_the_deck():
    problem = only(
        assert_problems(deck("4 Lugia V SIT 138", "4 Archeops SIT 147"), "standard", "2023-06-01", ["evolution-gap"]),
        "evolution-gap",
    )
    assert problem.message == "Archeops (line 2) evolves from Archen, which is not in your deck."


def test_owner_names_count_for_evolution():
    problem = only(
        assert_problems(deck("4 Tadbulb TWM 73", "3 Iono's Bellibolt ex JTG 53"), "standard", MAY, ["evolution-gap"]),
        "evolution-gap",
    )
    assert problem.message == "Iono's Bellibolt ex (line 2) evolves from Iono's Tadbulb, which is not in your deck."
    assert problem.hint == (
        "Tadbulb is a different Pokémon from Iono's Tadbulb: an owner's or form name is part of a Pokémon's name."
    )
    assert_legal(deck("4 Iono's Tadbulb JTG 52", "3 Iono's Bellibolt ex JTG 53"), "standard", MAY)


def test_owner_hint_either_way():
    """The other way round too (Iono's Tadbulb in the deck, a Bellibolt needs Tadbulb); each gap's hint
    is looked up, not found by a pass over the deck per gap (1,000 lines with 700 gaps took 0.5 s)."""
    problems = assert_problems(
        deck("4 Iono's Tadbulb JTG 52", "1 Nidoran♀ MEW 29", "2 Bellibolt TWM 74", "2 Team Rocket's Nidorina DRI 115"),
        "unlimited",
        MAY,
        ["evolution-gap"] * 2,
    ).problems
    assert sorted((p.lines, p.hint) for p in problems if p.rule == "evolution-gap") == [
        (
            (3,),
            "Iono's Tadbulb is a different Pokémon from Tadbulb: an owner's or form name is part of a Pokémon's name.",
        ),
        (
            (4,),
            "Nidoran♀ is a different Pokémon from Team Rocket's Nidoran♀: an owner's or form name is part of a "
            "Pokémon's name.",
        ),
    ]


# -- Gym Leader Challenge ----------------------------------------------------------------

LIGHTNING = "Basic {L} Energy SVE 4"


def glc(*lines: str) -> str:
    return deck("1 Pikachu TEF 51", "1 Raichu TEF 52", *lines, energy=LIGHTNING)


def test_glc_legal_singleton():
    assert_legal(glc("1 Ultra Ball MEG 131", "1 Boss's Orders MEG 114", "1 Professor Juniper BLW 101"), "glc", MAY)


def test_glc_singleton():
    problem = only(assert_problems(glc("2 Ultra Ball MEG 131"), "glc", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 2 cards named Ultra Ball (line 3); the limit is 1."


def test_glc_single_type():
    problem = only(assert_problems(glc("1 Dreepy TWM 128"), "glc", MAY, ["single-type"]), "single-type")
    assert problem.message == (
        "All Pokémon in a Gym Leader Challenge deck must share one type; most of yours are "
        "Lightning, but Dreepy (Dragon) is not (line 3)."
    )
    assert (problem.code, problem.cards) == ("G101", ("sv06-128",))


def test_glc_single_type_tie():
    problem = only(
        assert_problems(glc("1 Dreepy TWM 128", "1 Drakloak TWM 129"), "glc", MAY, ["single-type"]), "single-type"
    )
    assert problem.message == (
        "All Pokémon in a Gym Leader Challenge deck must share one type; yours are split "
        "between Lightning and Dragon: Dreepy (Dragon) and Drakloak (Dragon) are not "
        "Lightning (lines 3, 4)."
    )


def test_glc_dual_type_fits_when_one_type_matches():
    # Galvantula STS 42 is Lightning/Grass; Joltik SCR 50 is Lightning
    assert_legal(glc("1 Joltik SCR 50", "1 Galvantula STS 42"), "glc", MAY)
    problem = only(
        assert_problems(
            deck("1 Sewaddle WHT 1", "1 Joltik SCR 50", "1 Galvantula STS 42", energy=LIGHTNING),
            "glc",
            MAY,
            ["single-type"],
        ),
        "single-type",
    )
    assert problem.message == (
        "All Pokémon in a Gym Leader Challenge deck must share one type; yours are split "
        "between Grass and Lightning: Joltik (Lightning) is not Grass (line 2)."
    )


def test_glc_rule_box():
    problem = only(
        assert_problems(
            glc("1 Pikachu ex SSP 57", "1 Radiant Greninja ASR 46"), "glc", MAY, ["rule-box", "single-type"]
        ),
        "rule-box",
    )
    assert problem.message == (
        "Cards with a Rule Box are not allowed in Gym Leader Challenge: Pikachu ex and Radiant Greninja (lines 3, 4)."
    )
    assert problem.code == "G102"


def test_glc_no_ace_spec():
    problem = only(assert_problems(glc("1 Master Ball TEF 153"), "glc", MAY, ["ace-spec-limit"]), "ace-spec-limit")
    assert problem.message == "ACE SPEC cards are not allowed in Gym Leader Challenge: Master Ball (line 3)."


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ["1 Boss's Orders MEG 114", "1 Lysandre FLF 90"],
            "A Gym Leader Challenge deck may have only one of Boss's Orders or Lysandre; yours has Boss's Orders and "
            "Lysandre (lines 3, 4).",
        ),
        (
            ["1 Professor's Research SVI 189", "1 Professor Sycamore XY 122", "1 Professor Juniper BLW 101"],
            "A Gym Leader Challenge deck may have only one of Professor's Research, Professor Sycamore or Professor "
            "Juniper; yours has Professor's Research, Professor Sycamore and Professor Juniper (lines 3, 4, 5).",
        ),
    ],
    ids=["boss-lysandre", "professors"],
)
def test_glc_exclusive_groups(lines, message):
    problem = only(assert_problems(glc(*lines), "glc", MAY, ["exclusive-group"]), "exclusive-group")
    assert (problem.message, problem.code) == (message, "G103")


def test_glc_two_of_one_exclusive_name_is_a_copy_problem_only():
    assert_problems(glc("2 Boss's Orders MEG 114"), "glc", MAY, ["copy-limit"])


def test_glc_ban_has_a_date():
    text = glc("1 Dimension Valley PHF 93")
    assert_legal(text, "glc", "2026-04-19")
    assert_problems(text, "glc", "2026-04-20", ["banned"])


def test_glc_pool_starts_at_black_and_white():
    problem = only(assert_problems(glc("1 Pichu HS 28"), "glc", MAY, ["not-in-format"]), "not-in-format")
    assert problem.message == (
        "Pichu (HS 28) (line 3) is not legal in Gym Leader Challenge on 2026-05-01: its set, "
        "HeartGold SoulSilver, is not in the card pool and no functionally identical reprint "
        "is legal."
    )


def test_glc_classic_collection_allows_only_reshiram_and_zekrom():
    # GLC FAQ: of Celebrations Classic Collection, only Reshiram and Zekrom are legal: the two are
    # allowed by name in both numberings of the card data, every other one is not legal even where
    # a legal card has its text (the reprint rule does not reach the set)
    for line in ("1 Reshiram CEL CC020", "1 Reshiram CEL 113"):
        report = assert_legal(deck(line, energy="Basic {R} Energy SVE 2"), "glc", MAY)
        assert report.lines[0].legal_via is report.lines[0].card
    for line in ("1 Zekrom CEL CC021", "1 Zekrom CEL 114"):
        assert_legal(deck(line, energy="Basic {L} Energy SVE 4"), "glc", MAY)
    # before Celebrations was legal, not even those two
    early = only(deckcheck.check(deck("1 Reshiram CEL CC020"), "glc", "2021-10-21"), "not-in-format")
    assert early.message == (
        "Reshiram (CEL CC020) (line 1) is not legal in Gym Leader Challenge on 2021-10-21: its set, Celebrations "
        "Classic Collection, is legal from 2021-10-22."
    )
    why = (
        "its set, Celebrations Classic Collection, is excluded from the card pool, reprints of legal cards "
        "included; Gym Leader Challenge allows only Reshiram and Zekrom of it."
    )
    report = assert_problems(
        deck("1 Charmander PAF 7", "1 Charizard CEL CC002", energy="Basic {R} Energy SVE 2"),
        "glc",
        MAY,
        ["not-in-format"],
    )
    assert (
        only(report, "not-in-format").message
        == f"Charizard (CEL CC002) (line 2) is not legal in Gym Leader Challenge on 2026-05-01: {why}"
    )


AUDIT_GLC_CC = (
    "Pokémon: 1\n1 Pikachu TEF 51\nTrainer: 1\n1 Here Comes Team Rocket! CEL CC6\n"
    "Energy: 1\n58 Basic {L} Energy SVE 4\n"
)


def test_glc_classic_collection_is_not_legal_through_a_reprint_with_its_text():
    # Here Comes Team Rocket! CC006 has EVO 113's text; GLC does not let the reprint rule reach the set
    report = deckcheck.check(AUDIT_GLC_CC, "glc", MAY)
    assert not report.valid
    assert [(p.rule, p.code, p.severity, p.lines, p.message) for p in report.problems] == [
        (
            "not-in-format",
            "R201",
            "error",
            (4,),
            "Here Comes Team Rocket! (CEL CC006) (line 4) is not legal in Gym Leader Challenge on 2026-05-01: its set, "
            "Celebrations Classic Collection, is excluded from the card pool, reprints of legal cards included; Gym "
            "Leader Challenge allows only Reshiram and Zekrom of it.",
        )
    ]
    assert report.lines[1].legal_via is None
    assert report.problems[0].hint == (
        "Here Comes Team Rocket! (EVO 113) has the same text and is legal: play that printing instead."
    )
    # Expanded keeps the Handbook's reprint rule for it: "any version of the card" (reference 3.9, 3.10)
    report = deckcheck.check(AUDIT_GLC_CC, "expanded", MAY)
    assert report.valid
    assert [(p.rule, p.message) for p in report.problems] == [
        (
            "legal-by-reprint",
            "Line 4: Here Comes Team Rocket! (CEL CC006) is legal as Here Comes Team Rocket! (EVO 113); play it with "
            "that card's text.",
        )
    ]


# -- not-tournament-legal ---------------------------------------------------------

DODUO = "Pokémon: 1\n1 Imakuni?'s Doduo EVO 112\nEnergy: 1\n59 Basic {P} Energy SVE 5\n"
TOURNAMENT_SAYS = 'the card says "This card cannot be used at official tournaments."'


@pytest.mark.parametrize(
    "fmt, name",
    [
        ("glc", "Gym Leader Challenge"),
        ("expanded", "Expanded"),
        ("unlimited", "Unlimited"),
        ("standard", "Standard"),
        ("standard-ptcgl", "Standard (Pokémon TCG Live)"),
    ],
)
def test_a_printing_that_cannot_be_used_at_official_tournaments_is_an_error(fmt, name):
    report = deckcheck.check(DODUO, fmt, MAY)
    assert not report.valid
    # one problem for the line, whatever the pool says of it (Standard: no regulation mark)
    assert [(p.rule, p.code, p.severity, p.lines, p.cards, p.message, p.hint) for p in report.problems] == [
        (
            "not-tournament-legal",
            "R205",
            "error",
            (2,),
            ("xy12-112",),
            f"Imakuni?'s Doduo (EVO 112) (line 2) cannot be played in {name}: {TOURNAMENT_SAYS}",
            None,
        )
    ]


def test_the_sword_and_shield_promos_that_cannot_be_used_at_official_tournaments():
    text = "Pokémon: 2\n1 Greninja ☆ PR-SW SWSH144\n1 Hydreigon C PR-SW SWSH138\nEnergy: 1\n58 Basic {W} Energy SVE 3\n"
    report = deckcheck.check(text, "expanded", MAY)
    assert not report.valid
    assert [(p.rule, p.lines, p.message) for p in report.problems] == [
        (
            "not-tournament-legal",
            (2,),
            f"Greninja ☆ (PR-SW SWSH144) (line 2) cannot be played in Expanded: {TOURNAMENT_SAYS}",
        ),
        (
            "not-tournament-legal",
            (3,),
            f"Hydreigon C (PR-SW SWSH138) (line 3) cannot be played in Expanded: {TOURNAMENT_SAYS}",
        ),
    ]


@pytest.mark.parametrize(
    "name, number",
    [("Dragapult", "SWSH132"), ("Zacian", "SWSH135"), ("Mimikyu", "SWSH136"), ("Light Toxtricity", "SWSH137")],
)
def test_every_promo_that_says_so_is_an_error(name, number):
    report = deckcheck.check(deck(f"1 {name} PR-SW {number}"), "expanded", MAY)
    problem = only(report, "not-tournament-legal")
    assert problem.message == f"{name} (PR-SW {number}) (line 1) cannot be played in Expanded: {TOURNAMENT_SAYS}"
    assert "not-in-format" not in [p.rule for p in report.problems]


def test_a_legal_printing_of_the_same_name_is_named_as_the_fix():
    report = deckcheck.check(deck("1 Zacian PR-SW SWSH135"), "expanded", MAY)
    problem = only(report, "not-tournament-legal")
    assert problem.hint is not None
    assert problem.hint.endswith(" has the same name and is legal, but its text differs from this printing's.")
    assert not problem.hint.startswith("Zacian (PR-SW SWSH135)")


def test_a_line_by_name_does_not_choose_a_printing_that_cannot_be_used_at_tournaments():
    # on the day Mimikyu SWSH136 became legal it was the newest Mimikyu out; a line by name takes the
    # newest one a tournament takes instead
    db = get_db()
    expanded = default_formats()["expanded"]
    barred = db.get("swshp-SWSH136")
    on = expanded.set_legal_date(db, barred.set_id)
    report = deckcheck.check(deck("1 Mimikyu"), "expanded", on.isoformat())
    card = report.lines[0].card
    assert card.name == "Mimikyu" and card.id != barred.id
    assert report.lines[0].legal_via is not None
    assert [p.rule for p in report.problems if p.severity == "error"] == []
    # nor does a fix offer it
    assert barred not in legal_printings("Mimikyu", expanded, db, on)
    assert legal_printings("Mimikyu", expanded, db, on)[0].id == card.id
    # Greninja ☆ has one printing, which says it: named by it, still reported
    report = deckcheck.check(deck("1 Greninja ☆"), "expanded", MAY)
    assert report.lines[0].card.id == "swshp-SWSH144"
    assert "not-tournament-legal" in [p.rule for p in report.problems]


# -- name-mismatch ----------------------------------------------------------------


def test_printing_wins_over_a_contradicting_name_with_a_warning():
    report = assert_problems(deck("4 Riolu PAL 112", "4 Nest Ball SVI 181"), "standard", MARCH, ["name-mismatch"])
    problem = only(report, "name-mismatch")
    assert problem.message == (
        'Line 1 names "Riolu", but PAL 112 is Makuhita; the line was checked as Makuhita (PAL 112).'
    )
    assert (problem.severity, problem.code, problem.lines) == ("warning", "C103", (1,))


@pytest.mark.parametrize(
    "line",
    [
        "4 Boss’s Orders PAL 172",
        "4 Shaymin EX ROS 77",
        "4 Basic {P} Energy SVE 5",
        "4 Professor's Research SVI 189",
        "4 pokegear 3.0 SVI 186",
    ],
)
def test_spelling_variants_are_not_a_mismatch(line):
    report = deckcheck.check(deck(line, "4 Nest Ball SVI 181"), "unlimited", MARCH)
    assert [p for p in report.problems if p.rule == "name-mismatch"] == []


# -- names the key must keep apart (issue 13) -------------------------------------

RULE_DECKS = Path(__file__).resolve().parent.parent / "decks" / "rules"


def test_team_rocket_nidoran_standard_list_is_legal():
    """4 Team Rocket's Nidoran♀ and 4 Team Rocket's Nidoran♂: two names, 4 copies each."""
    report = assert_legal((RULE_DECKS / "team-rocket-nidoran.txt").read_text(encoding="utf-8"), "standard", MAY)
    keys = {ln.card.key: ln.count for ln in report.lines if "Nidoran" in ln.name}
    assert keys == {"team rockets nidoran ♀": 4, "team rockets nidoran ♂": 4}
    assert [ln.card.id for ln in report.lines if "Nidoran" in ln.name] == ["sv10-114", "sv10-117"]
    assert report.counts.unknown == 0 and report.problems == []


def test_team_rocket_nidoran_glc_singleton_list_is_legal():
    report = assert_legal((RULE_DECKS / "glc-team-rocket-nidoran.txt").read_text(encoding="utf-8"), "glc", MAY)
    assert report.counts.unknown == 0 and report.problems == []


def test_five_of_one_nidoran_is_still_five():
    text = deck(
        "4 Team Rocket's Nidoran♀ DRI 114",
        "1 Team Rocket's Nidoran ♀ DRI 114",
        "4 Team Rocket's Nidoran♂ DRI 117",
        energy="Basic {D} Energy SVE 7",
    )
    problem = only(assert_problems(text, "standard", MAY, ["copy-limit"]), "copy-limit")
    assert problem.message == "You have 5 cards named Team Rocket's Nidoran♀ (lines 1, 2); the limit is 4."


def test_unown_letters_and_marks_are_different_names():
    text = deck("4 Unown ! LA 42", "4 Unown ? LA 82", "4 Unown J LA 76", "4 Unown R LA 77")
    report = deckcheck.check(text, "unlimited", MAY)
    assert [p.rule for p in report.problems if p.rule == "copy-limit"] == []
    assert [ln.card.key for ln in report.lines[:4]] == ["unown !", "unown ?", "unown j", "unown r"]


# -- unknown-set and stale-database (issue 19) -------------------------------------------

NEWER = "4 Pikachu ex ZZZ 57\n4 Mystery Newcard ABC 12\n"
UPDATE = 'update the card database with "deckcheck db sync" or a newer release of deckcheck.'


def test_unknown_set_codes_are_named_with_the_newest_set_and_how_to_update():
    report = deckcheck.check(NEWER, "standard", "2026-12-01")
    assert [(p.rule, p.code, p.severity, p.lines) for p in report.problems] == [
        ("deck-size", "R101", "error", ()),
        ("unknown-set", "C104", "error", (2,)),
        ("unknown-set", "C104", "warning", (1,)),
    ]
    line2, line1 = report.problems[1], report.problems[2]
    assert line1.message == (
        "Line 1: the card database knows no set ZZZ (its newest set is Pitch Black, released "
        '2026-07-17), so "Pikachu ex" was matched by name to Pikachu ex (ASC 57).'
    )
    assert line1.hint == f"If ZZZ is a set released after Pitch Black, {UPDATE}"
    assert line1.cards == ("me02.5-057",)
    assert line2.message == (
        "Line 2: the card database knows no set ABC (its newest set is Pitch Black, released "
        '2026-07-17), and no card named "Mystery Newcard" was found; its 4 copies still count '
        "toward the deck size."
    )
    assert line2.hint == f"If ABC is a set released after Pitch Black, {UPDATE}"
    # one problem per line: not also resolved-by-name / unknown-card; the copies still count
    assert report.counts.to_dict() == {"pokemon": 4, "trainer": 0, "energy": 0, "unknown": 4, "total": 8}
    assert [(ln.method, ln.card.id if ln.card else None) for ln in report.lines] == [
        ("name", "me02.5-057"),
        ("unresolved", None),
    ]


def test_the_unknown_set_comes_before_the_name_match_in_the_cli_text():
    from deckcheck.render import render

    text = render("text", [("<stdin>", deckcheck.check(NEWER, "standard", "2026-12-01"))])
    line1 = next(t for t in text.splitlines() if t.startswith("<stdin>:1:"))
    assert line1.index("knows no set ZZZ") < line1.index("matched by name")
    assert "Pitch Black, released 2026-07-17" in line1 and "deckcheck db sync" in line1


@pytest.mark.parametrize(
    "line",
    [
        "4 Pikachu ex PR-SW 999",  # an alias row of data/set-aliases.csv
        "4 Pikachu ex SVALT 12",  # a by-name alias (PTCGL-only prints)
        "4 Pikachu ex TWM 999",  # a set's own code, a number it does not have
    ],
)
def test_known_sets_and_aliases_are_not_unknown(line):
    report = deckcheck.check(deck("4 Pikachu ex ASC 57", line, size=8), "unlimited", MAY)
    assert not [p for p in report.problems if p.rule == "unknown-set"]
    assert [p.rule for p in report.problems if p.lines == (2,)] == ["resolved-by-name"]


def test_basic_energy_with_an_unknown_set_is_only_a_note():
    """Basic Energy resolves by its type whatever the set; the unknown set is said, as info."""
    report = assert_legal(deck("4 Dreepy TWM 128", energy="Psychic Energy QQQ 5"), "standard", MAY)
    problem = only(report, "unknown-set")
    assert (problem.severity, problem.lines) == ("info", (2,))
    assert problem.message == (
        "Line 2: the card database knows no set QQQ (its newest set is Pitch Black, released "
        '2026-07-17), so "Psychic Energy" was matched by name to Psychic Energy (MEE 5).'
    )
    assert [p.rule for p in report.problems] == ["unknown-set"]


def test_knows_set_is_case_blind_and_covers_aliases():
    db = deckcheck.engine._cards.get_db()
    assert db.knows_set("PBL") and db.knows_set("pbl") and db.knows_set("CRZ-GG") and db.knows_set("Energy")
    assert db.knows_set("ME05") and db.knows_set("sv03.5")  # set ids
    assert not db.knows_set("ZZZ") and not db.knows_set("")


def test_without_the_rule_the_old_problems_come_back(tmp_path):
    import shutil

    from deckcheck.cards.files import data_dir
    from deckcheck.formats import load_formats

    shutil.copy(data_dir() / "formats" / "standard.toml", tmp_path / "standard.toml")
    (tmp_path / "quiet.toml").write_text('name = "Quiet"\nextends = "standard"\n[rules]\nunknown-set = false\n')
    report = deckcheck.check(NEWER, load_formats(tmp_path)["quiet"], "2026-12-01")
    assert [(p.rule, p.lines) for p in report.problems] == [
        ("deck-size", ()),
        ("unknown-card", (2,)),
        ("resolved-by-name", (1,)),
    ]


def test_stale_database_warning_only_when_asked():
    text = deck("4 Dreepy TWM 128")
    assert not [p for p in deckcheck.check(text, "standard", "2026-12-01").problems if p.rule == "stale-database"]
    problem = only(deckcheck.check(text, "standard", "2026-12-01", max_db_age=90), "stale-database")
    assert (problem.code, problem.severity, problem.lines) == ("C105", "warning", ())
    assert problem.message == (
        "The card database's newest set is Pitch Black, released 2026-07-17, 137 days "
        "before 2026-12-01; the most allowed is 90 days."
    )
    assert problem.hint == f"Cards from sets released after Pitch Black are unknown to it: {UPDATE}"
    # 137 days old is within 137; a date before the release is never stale
    assert deckcheck.check(text, "standard", "2026-12-01", max_db_age=137).problems == []
    assert deckcheck.check(text, "standard", "2026-05-01", max_db_age=0).problems == []
    for bad in (-1, "90", 1.5, True):
        with pytest.raises(ValueError, match="max_db_age must be a whole number of days"):
            deckcheck.check(text, "standard", "2026-12-01", max_db_age=bad)


# -- the registry: metadata with the rule, the catalogue derived from it ----------------------


def test_readme_table_is_the_catalogue():
    """The README's rule table has one row per registered rule and problem kind, with its code and
    severity (the description may say more than the registered title)."""
    from deckcheck.registry import CATALOGUE

    readme = (Path(__file__).parent.parent.parent / "README.md").read_text(encoding="utf-8")
    rows = [line.split(" | ") for line in readme.splitlines() if re.match(r"\| [PCRG]\d{3} \|", line)]
    table = {cells[1]: (cells[0][2:], cells[2].split()[0]) for cells in rows}
    assert len(table) == len(rows)
    assert table == {name: (spec.code, spec.severity) for name, spec in CATALOGUE.items()}
    # the description is the registry's (what the rules page at /rules shows)
    described = {cells[1]: " | ".join(cells[3:]).removesuffix(" |") for cells in rows}
    assert described == {name: spec.about for name, spec in CATALOGUE.items()}


def test_the_engine_stamps_the_rule_name_code_and_severity(tmp_path):
    """A rule yields Findings; the engine makes each a Problem with the rule's name, its code and
    (unless the finding says otherwise) its registered severity."""
    from deckcheck.cards.files import data_dir
    from deckcheck.formats import load_formats
    from deckcheck.registry import CATALOGUE, INFO, REGISTRY, WARNING, Finding, rule

    @rule("test-rule", code="T999", severity=WARNING, title="A rule of this test", lines="int")
    def test_rule(deck, ctx, lines):
        """Says something about the deck."""
        yield Finding(f"{deck.total} cards.", lines=tuple(range(lines, 0, -1)))
        yield Finding("A note.", severity=INFO)

    try:
        assert REGISTRY["test-rule"] is CATALOGUE["test-rule"] and REGISTRY["test-rule"].fn is test_rule
        shutil.copy(data_dir() / "formats" / "standard.toml", tmp_path / "standard.toml")
        (tmp_path / "t.toml").write_text('name = "T"\nextends = "standard"\n[rules]\ntest-rule = { lines = 2 }\n')
        report = deckcheck.check(deck("4 Dreepy TWM 128"), load_formats(tmp_path)["t"], MAY)
    finally:
        del REGISTRY["test-rule"], CATALOGUE["test-rule"]
    assert [(p.rule, p.code, p.severity, p.lines, p.message) for p in report.problems] == [
        ("test-rule", "T999", "warning", (1, 2), "60 cards."),
        ("test-rule", "T999", "info", (), "A note."),
    ]


def test_formats_and_rules_do_not_import_each_other():
    """The registry is the piece both share: formats imports it, not the rules; no rule module
    imports formats; the registry imports nothing of deckcheck's; the core imports no click."""
    import ast

    package = Path(deckcheck.__file__).parent

    def imports(path: Path) -> set[str]:
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found.add("." * node.level + (node.module or ""))
                found.update("." * node.level + (node.module + "." if node.module else "") + a.name for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        return found

    assert not {m for path in (package / "formats").glob("*.py") for m in imports(path) if ".rules" in m}
    for path in (package / "rules").glob("*.py"):
        assert not {m for m in imports(path) if m.startswith("..formats")}, path.name
    assert not {m for m in imports(package / "registry.py") if m.startswith(".")}
    # rules yield Findings and the engine names the problem: only notes.py (no format runs it) makes Problems
    for path in (package / "rules").glob("*.py"):
        assert ("..problems.Problem" in imports(path)) == (path.name == "notes.py"), path.name
    core = [package / "registry.py", package / "problems.py"]
    for folder in ("formats", "engine", "render", "rules", "cards", "decklist"):
        core += sorted((package / folder).glob("*.py"))
    for path in core:
        assert not {m for m in imports(path) if m.split(".")[0] == "click"}, path.name


def test_a_finding_stamped_by_the_engine_is_the_problem_the_constructor_makes():
    """Problem.from_finding (the engine's fast path) gives the same value as Problem(...): code and
    default severity from the catalogue, lines sorted and unique, cards a tuple, a bad severity refused."""
    from deckcheck.problems import Problem
    from deckcheck.registry import CATALOGUE, INFO, Finding

    spec = CATALOGUE["copy-limit"]
    for finding in (
        Finding("Five.", lines=(7, 3, 7), cards=["a", "b"], hint="Fewer."),
        Finding("One.", lines=(4,)),
        Finding("Note.", severity=INFO),
        Finding("Listed.", lines=[2, 1]),  # type: ignore[arg-type]
    ):
        made = Problem.from_finding(spec, finding)
        expected = Problem("copy-limit", finding.message, finding.lines, finding.cards, finding.hint, finding.severity)
        assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
        fields = [(getattr(made, f), type(getattr(made, f))) for f in Problem.FIELDS]
        assert fields == [(getattr(expected, f), type(getattr(expected, f))) for f in Problem.FIELDS]
    assert Problem.from_finding(spec, Finding("x", lines=(7, 3, 7))).lines == (3, 7)
    with pytest.raises(ValueError, match="unknown severity"):
        Problem.from_finding(spec, Finding("x", severity="fatal"))


def test_the_report_values_are_plain_classes_with_slots():
    """Problem, ProblemGroup, Counts, ReportedLine and Report are made by plain ``__init__``s over slots:
    no dataclass code generated when deckcheck.problems is imported, no ``__dict__`` per problem; each
    is equal by its fields, and the frozen ones hash by them."""
    from deckcheck import problems

    for cls in (problems.Problem, problems.ProblemGroup, problems.Counts, problems.ReportedLine, problems.Report):
        assert not hasattr(cls, "__dataclass_fields__"), cls.__name__
        assert cls.__slots__ == cls.FIELDS, cls.__name__
    made = problems.Problem("copy-limit", "Five.", (7, 3), ("a",))
    assert not hasattr(made, "__dict__")
    assert made == problems.Problem("copy-limit", "Five.", [3, 7], ["a"]) != problems.Problem("copy-limit", "Six.")
    assert hash(made) == hash(problems.Problem("copy-limit", "Five.", (3, 7), ("a",)))
    assert problems.Counts(1, 2) == problems.Counts(1, 2, 0, 0) != problems.Counts(2, 1)
    assert repr(problems.Counts(1, 2)) == "Counts(pokemon=1, trainer=2, energy=0, unknown=0)"
