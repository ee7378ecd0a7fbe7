"""A printing exists from its release date (issue #28, points 1 and 3): resolution by name chooses
among the printings out on the check's date, preferring one legal then; a line naming a printing
released later is checked as the identical printing out then; and the codes older tools write
(PTCGO promo codes, a code and number written together, basic Energy by its number).

Every card, code and date here is a real one (the examples of the issue; `deckcheck cards` shows
them), and every example is checked cold and warm through every path of the engine
(test_fast_equivalence.assert_same) as well as for its exact verdict."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_fast_equivalence import assert_same, forget_lines

from deckcheck.cards.spellings import split_code_number
from deckcheck.engine import check, get_format
from deckcheck.formats import Format


def _notes(report, skip=("deck-size", "no-basic-pokemon")) -> list[tuple[str, str, str]]:
    return [(p.rule, p.severity, p.message) for p in report.problems if p.rule not in skip]


def _ids(report) -> list[str | None]:
    return [ln.card.id if ln.card is not None else None for ln in report.lines]


# -- 1. resolution by name chooses among the printings out on the date ----------------------------


def test_an_alt_code_takes_a_printing_out_on_the_date_not_a_newer_one():
    # a real German PTCGL export of 2025-07-14: Miraidon PBL 28 (Pitch Black, 2026-07-17) did not exist
    report = check("2 Miraidon SVALT 123", "standard", "2025-08-01")
    (line,) = report.lines
    assert line.card.label == "Miraidon (MCD24 3)" and line.card.release == "2024-12-04"
    assert_same("2 Miraidon SVALT 123\n4 Grookey\n1 Koraidon", "standard", "2025-08-01")
    assert line.legal and line.legal_via.label == "Miraidon (PR-SV 13)"
    assert _notes(report) == [
        (
            "resolved-by-name",
            "info",
            'Line 1: no printing SVALT 123 of "Miraidon" was found, so it was matched by name to Miraidon (MCD24 3), '
            "the newest printing released by 2025-08-01 (Miraidon (PBL 28) was released on 2026-07-17).",
        ),
        (
            "legal-by-reprint",
            "info",
            "Line 1: Miraidon (MCD24 3) is legal as Miraidon (PR-SV 13); play it with that card's text.",
        ),
    ]
    # on a date after Pitch Black's, the newest printing is taken, and nothing more is said
    later = check("2 Miraidon SVALT 123", "standard", "2026-08-01")
    assert _ids(later) == ["me05-028"]
    assert _notes(later) == [
        (
            "resolved-by-name",
            "info",
            'Line 1: no printing SVALT 123 of "Miraidon" was found, so it was matched by name to Miraidon (PBL 28).',
        )
    ]


def test_a_name_alone_takes_the_newest_printing_out_on_the_date():
    report = check("4 Grookey", "unlimited", "2022-04-15")
    assert [ln.card.label for ln in report.lines] == ["Grookey (CRE 16)"]
    assert_same("* 4 Grookey PR-SWSH 1\n4 Grookey\n2 Dragonite V PR-SWSH 154", "unlimited", "2022-04-15")
    assert _notes(report) == [
        (
            "resolved-by-name",
            "info",
            'Line 1: "Grookey" has no set code, so it was matched by name to Grookey (CRE 16), the newest printing '
            "released by 2022-04-15 (Grookey (MEP 52) was released on 2025-09-26).",
        )
    ]


@pytest.mark.parametrize(
    ("text", "fmt", "on", "label", "newest"),
    [
        # Koraidon MCD24 8 (McDonald's 2024, no mark) is the newest out, and not legal in Standard
        ("1 Koraidon", "standard", "2025-08-01", "Koraidon (SSP 116)", "Koraidon (MCD24 8)"),
        # Chansey TWM 133 was out (2024-05-24) but not yet legal (from 2024-06-07)
        ("1 Chansey", "expanded", "2024-06-01", "Chansey (MEW 113)", "Chansey (TWM 133)"),
    ],
)
def test_a_name_matched_prefers_a_printing_legal_in_the_format_on_the_date(text, fmt, on, label, newest):
    report = check(text, fmt, on)
    (line,) = report.lines
    assert line.card.label == label and line.legal and line.legal_via is line.card
    name = text.split(" ", 1)[1]
    fmt_name = {"standard": "Standard", "expanded": "Expanded"}[fmt]
    assert _notes(report) == [
        (
            "resolved-by-name",
            "info",
            f'Line 1: "{name}" has no set code, so it was matched by name to {label}, the newest printing released '
            f"by {on} that is legal in {fmt_name} on that date ({newest} is not).",
        )
    ]


def test_a_json_entry_without_a_number_is_matched_on_the_date():
    entry = json.dumps([{"count": 2, "name": "Miraidon", "set": "SVALT"}, {"count": 1, "name": "Koraidon"}])
    assert _ids(check(entry, "standard", "2025-08-01")) == ["2024sv-3", "sv08-116"]


def test_a_card_not_yet_printed_on_the_date_is_unknown_with_its_first_printing():
    report = check("4 Grookey", "unlimited", "2019-01-01")
    assert _ids(report) == [None]
    assert_same("4 Grookey\n* 4 Grookey PR-SWSH 1\n4 Grookey XYZQ 1", "unlimited", "2019-01-01")
    assert _notes(report) == [
        (
            "unknown-card",
            "error",
            'Line 1: no printing of "Grookey" had been released on 2019-01-01; the card was first printed on '
            "2019-11-15 (Grookey (PR-SW SWSH001)). Its 4 copies still count toward the deck size.",
        )
    ]
    # with a set code the database does not know, unknown-set says the same
    unknown_code = check("4 Grookey XYZQ 1", "unlimited", "2019-01-01")
    assert _notes(unknown_code) == [
        (
            "unknown-set",
            "error",
            'Line 1: no printing of "Grookey" had been released on 2019-01-01; the card was first printed on '
            "2019-11-15 (Grookey (PR-SW SWSH001)). Its 4 copies still count toward the deck size.",
        )
    ]


def _before_its_data() -> Format:
    """Standard with its data starting in 2030: every date here is before it (date-out-of-range), whatever
    history the shipped format files cover."""
    fmt = get_format("standard")
    return fmt.replace(pool=fmt.pool.replace(earliest=dt.date(2030, 1, 1)))


def test_a_date_before_the_formats_data_still_resolves_on_the_date():
    # legality is not checked, but Grookey did not exist on 2019-01-01, and on 2020-03-01 it is SSH 10
    fmt = _before_its_data()
    early = check("4 Grookey", fmt, "2019-01-01")
    assert _ids(early) == [None]
    assert_same("4 Grookey\n4 Nest Ball SVI181\n2 Miraidon SVALT 123", fmt, "2019-01-01")  # type: ignore[arg-type]
    assert sorted(p.rule for p in early.problems if p.severity == "error") == [
        "date-out-of-range",
        "deck-size",
        "no-basic-pokemon",
        "unknown-card",
    ]
    assert _ids(check("4 Grookey", fmt, "2020-03-01")) == ["swsh1-10"]


# -- a printing named after the date -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt", "on", "message"),
    [
        (
            "4 Switch MEG 130",
            "standard",
            "2025-06-01",
            "Line 1: Switch (MEG 130) was released on 2025-09-26, after 2025-06-01; it was checked as the identical "
            "Switch (MEW 206), released on 2023-09-22.",
        ),
        (
            "4 Ultra Ball SVI 196",
            "unlimited",
            "2012-08-11",
            "Line 1: Ultra Ball (SVI 196) was released on 2023-03-31, after 2012-08-11; it was checked as the "
            "identical Ultra Ball (DEX 102), released on 2012-05-09.",
        ),
        (
            # a basic Energy printing from after the date: checked as one of its type out then
            "4 Basic {R} Energy MEE 2",
            "standard",
            "2024-06-01",
            "Line 1: Fire Energy (MEE 2) was released on 2025-09-25, after 2024-06-01; it was checked as the "
            "identical Fire Energy (MFB 16), released on 2023-09-29.",
        ),
    ],
)
def test_a_printing_released_after_the_date_is_checked_as_the_identical_one_out_then(text, fmt, on, message):
    report = check(text, fmt, on)
    (line,) = report.lines
    assert line.legal and line.legal_via.release <= on < line.card.release
    assert _notes(report) == [("legal-by-reprint", "warning", message)]
    assert_same(text + "\n4 Bronzor TEF68\n4 Basic Flame Energy Energy 2\n4 Steel Energy 8", fmt, on)


def test_a_basic_energy_type_not_yet_printed():
    # Fairy Energy was first printed in XY (2014-02-05): by type or by printing, none existed in 2010
    assert _notes(check("4 Fairy Energy", "unlimited", "2010-01-01")) == [
        (
            "unknown-card",
            "error",
            'Line 1: no printing of "Fairy Energy" had been released on 2010-01-01; the card was first printed on '
            "2014-02-05 (Fairy Energy (XY 140)). Its 4 copies still count toward the deck size.",
        )
    ]
    assert _notes(check("4 Fairy Energy XY 140", "unlimited", "2010-01-01")) == [
        (
            "not-in-format",
            "error",
            "Fairy Energy (XY 140) (line 1) is not legal in Unlimited on 2010-01-01: it was released on 2014-02-05, "
            "after 2010-01-01, and no identical printing had been released by then.",
        )
    ]


def test_a_printing_released_after_the_date_with_no_identical_one_out_is_an_error():
    report = check("* 4 Grookey PR-SWSH 1", "unlimited", "2019-01-01")
    assert _ids(report) == ["swshp-SWSH001"]
    assert _notes(report) == [
        (
            "not-in-format",
            "error",
            "Grookey (PR-SW SWSH001) (line 1) is not legal in Unlimited on 2019-01-01: it was released on 2019-11-15, "
            "after 2019-01-01, and no identical printing had been released by then.",
        )
    ]


# -- 3. the codes older and other tools write ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card_id"),
    [
        ("* 4 Grookey PR-SWSH 1", "swshp-SWSH001"),
        ("2 Dragonite V PR-SWSH 154", "swshp-SWSH154"),
        ("2 Dragonite V PR-SWSH SWSH154", "swshp-SWSH154"),
    ],
)
def test_ptcgo_promo_codes_with_padded_or_prefixed_numbers(text, card_id):
    # (PR-SM SM85 and 85, PR-XY XY05 and 5, PR-BW 1, PR-BLW BW01, PR-DP 1, PR-HS 1, PR-NP 01 resolved already)
    report = check(text, "unlimited", "2026-06-01")
    (line,) = report.lines
    assert (line.card.id, line.name_differs) == (card_id, False) and line.method in ("printing", "alias")
    assert not [p for p in report.problems if p.rule in ("unknown-set", "resolved-by-name", "name-mismatch")]


@pytest.mark.parametrize(
    ("text", "card_id"),
    [("4 Bronzor TEF68", "sv05-068"), ("4 Nest Ball SVI181", "sv01-181")],
)
def test_a_code_and_number_written_together(text, card_id):
    report = check(text, "standard", "2024-06-01")
    (line,) = report.lines
    assert (line.card.id, line.method) == (card_id, "printing")
    assert _notes(report, skip=("deck-size", "no-basic-pokemon", "not-in-format")) == []
    assert_same(text, "standard", "2024-06-01")
    # a split that names no printing is not taken: the token stays an unknown set
    missed = check(text.rstrip("0123456789") + "999", "standard", "2024-06-01")
    (line,) = missed.lines
    assert line.method == "name" and line.number is None
    assert [p.rule for p in missed.problems if p.rule == "unknown-set"] == ["unknown-set"]


def test_a_joined_code_and_number_naming_another_card_is_a_name_mismatch():
    report = check("4 Bronzor SVI181", "standard", "2024-06-01")
    assert _ids(report) == ["sv01-181"]
    assert ("name-mismatch", "warning") in [(p.rule, p.severity) for p in report.problems]


@pytest.mark.parametrize(
    ("text", "label", "message"),
    [
        (
            "4 Basic Flame Energy Energy 2",
            "Fire Energy (MFB 16)",
            'Line 1 names "Basic Flame Energy", but ENERGY 2 is Fire Energy; the line was checked as '
            "Fire Energy (MFB 16).",
        ),
        (
            "4 Steel Energy 8",
            "Metal Energy (SVE 8)",
            'Line 1 names "Steel Energy", but basic Energy 8 is Metal Energy; the line was checked as '
            "Metal Energy (SVE 8).",
        ),
        (
            "4 Basic {W} Energy Energy 13",
            "Basic Psychic Energy (MEW 207)",
            'Line 1 names "Basic {W} Energy", but ENERGY 13 is Psychic Energy; the line was checked as '
            "Basic Psychic Energy (MEW 207).",
        ),
    ],
)
def test_basic_energy_by_its_set_and_number_whatever_its_name(text, label, message):
    report = check(text, "standard", "2024-06-01")
    (line,) = report.lines
    assert (line.card.label, line.method, line.name_differs, line.legal) == (label, "basic-energy", True, True)
    assert _notes(report) == [("name-mismatch", "warning", message)]
    assert_same(text, "standard", "2024-06-01")
    # a Special Energy with a number and no set code is that card, not basic Energy number 9
    report = check("4 Double Colorless Energy 9", "unlimited", "2026-06-01")
    assert [ln.card.name for ln in report.lines] == ["Double Colorless Energy"]
    # and a basic Energy name that agrees with its number says nothing
    assert _notes(check("4 Metal Energy 8", "standard", "2024-06-01")) == []


# -- every path of the engine, cold and warm, on the date --------------------------------------------


@pytest.mark.parametrize("fmt", ["unlimited", _before_its_data()], ids=["unlimited", "before-its-data"])
def test_the_line_memos_keep_a_line_per_date(fmt):
    """One line checked on two dates, in either order, warm: each date's own printing (the line memos,
    with a format and without one before its data, are per date)."""
    text = "4 Grookey\n2 Miraidon SVALT 123"
    dates = ("2019-01-01", "2022-04-15", "2025-08-01", "2026-08-01")
    forget_lines()
    alone = {on: _ids(check(text, fmt, on)) for on in dates}
    for order in (dates, dates[::-1]):
        forget_lines()
        for on in order:
            assert _ids(check(text, fmt, on)) == alone[on], on
            assert _ids(check(text, fmt, on)) == alone[on], on
    assert alone["2019-01-01"] == [None, None]
    assert alone["2022-04-15"][0] == "swsh6-16"
    assert alone["2026-08-01"] == ["mep-052", "me05-028"]


# -- the split of a code and number written together --------------------------------------------------


@given(st.text(max_size=30))
@example("TEF68")
@example("SVI181")
@example("SV3PT5")
@example("68")
@example("TEF")
@example("PR-SW1")
@settings(max_examples=500, deadline=None)
def test_split_code_number_is_a_split_of_the_token(token):
    split = split_code_number(token)
    if split is not None:
        code, number = split
        assert code + number == token
        assert number.isdigit() and 1 <= len(number) <= 4 and 2 <= len(code) <= 8
        assert not code[-1].isdigit() and any(ch.isalpha() for ch in code)


def test_split_code_number_examples():
    assert split_code_number("TEF68") == ("TEF", "68")
    assert split_code_number("SVI181") == ("SVI", "181")
    assert split_code_number("SV3PT5") == ("SV3PT", "5")
    assert split_code_number("TEF") is None
    assert split_code_number("TEF12345") is None
    assert split_code_number("68") is None


def test_split_code_number_is_linear_at_the_size_limit():
    # a token of a million digits (or of a million letters and digits) is split in one pass
    for token in ("9" * 1_000_000, "A" * 1_000_000 + "1", "A1" * 500_000):
        started = time.process_time()
        assert split_code_number(token) is None
        assert time.process_time() - started < 1.0
    started = time.process_time()
    report = check("4 Bronzor " + "TEF68" * 2_000, "standard", "2024-06-01")
    assert report.lines[0].card is None or report.lines[0].method == "name"
    assert time.process_time() - started < 5.0


# -- a Black Star promo of a set's card is legal with that set (deckcheck.sync.promos) --------------

_BBT = "4 Pikachu TEF 51\n4 Black Belt's Training PR-SV 219\n52 Basic {L} Energy SVE 4\n"
_CRI = "4 Fennekin CRI 11\n4 Delphox CRI 13\n52 Basic {R} Energy SVE 2\n"
_DRI = "4 Team Rocket's Mewtwo ex DRI 81\n56 Basic {P} Energy SVE 5\n"


def _errors(report) -> list[str]:
    return [p.message for p in report.problems if p.severity == "error"]


def test_a_promo_of_a_later_sets_card_is_not_legal_before_that_set():
    # Black Belt's Training was first printed in Prismatic Evolutions (2025-01-17, legal 2025-01-31);
    # its promo PR-SV 219 is dated with it, not on SVP's first day (2023-03-31)
    assert _errors(check(_BBT, "standard", "2024-06-01")) == [
        "Black Belt's Training (PR-SV 219) (line 2) is not legal in Standard on 2024-06-01: it was released on "
        "2025-01-17, after 2024-06-01, and no identical printing had been released by then (it is legal from "
        "2025-01-31)."
    ]
    assert _errors(check(_BBT, "standard", "2025-01-30")) == [
        "Black Belt's Training (PR-SV 219) (line 2) is not legal in Standard on 2025-01-30: this printing is legal "
        "from 2025-01-31, as the same card in Prismatic Evolutions and no functionally identical reprint is legal."
    ]
    assert check(_BBT, "standard", "2025-01-31").valid
    assert_same(_BBT, "standard", "2024-06-01")


def test_a_set_card_is_not_legal_early_through_its_preview_promo():
    # Fennekin MEP 80 and Delphox MEP 74 preview Chaos Rising (2026-05-22, legal 2026-06-05)
    for day in ("2026-03-06", "2026-05-01"):
        assert _errors(check(_CRI, "standard", day)) == [
            f"Fennekin (CRI 11) (line 1) is not legal in Standard on {day}: it was released on 2026-05-22, after "
            f"{day}, and no identical printing had been released by then (it is legal from 2026-06-05).",
            f"Delphox (CRI 13) (line 2) is not legal in Standard on {day}: it was released on 2026-05-22, after "
            f"{day}, and no identical printing had been released by then (it is legal from 2026-06-05).",
        ]
    assert _errors(check(_CRI, "standard", "2026-06-04"))[1] == (
        "Delphox (CRI 13) (line 2) is not legal in Standard on 2026-06-04: its set, Chaos Rising, is legal from "
        "2026-06-05 and no functionally identical reprint is legal."
    )
    assert check(_CRI, "standard", "2026-06-05").valid
    assert_same(_CRI, "standard", "2026-05-01")


def test_destined_rivals_mewtwo_is_not_legal_early_through_its_promo():
    assert _errors(check(_DRI, "standard", "2025-05-01")) == [
        "Team Rocket's Mewtwo ex (DRI 81) (line 1) is not legal in Standard on 2025-05-01: it was released on "
        "2025-05-30, after 2025-05-01, and no identical printing had been released by then (it is legal from "
        "2025-06-13)."
    ]
    assert not check(_DRI, "standard", "2025-06-12").valid
    assert check(_DRI, "standard", "2025-06-13").valid


def test_a_promo_without_a_set_counterpart_keeps_its_promo_sets_date():
    from deckcheck.cards import get_db

    db = get_db()
    # Pikachu with Grey Felt Hat is only a promo; Snivy BW01 (2011) was reprinted only in McDonald's
    # Collection 2021, of another series: both keep their promo set's first day
    assert db.cards["svp-085"].release == db.sets["svp"].release == "2023-03-31"
    assert db.cards["bwp-BW01"].release == db.sets["bwp"].release == "2011-04-26"
    assert check("4 Snivy PR-BLW BW01\n56 Basic {G} Energy SVE 1\n", "expanded", "2015-01-01").valid
    assert db.cards["svp-205"].release == db.cards["sv10-081"].release == "2025-05-30"
