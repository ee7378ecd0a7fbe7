"""Problems gathered by cause: the cards that rotated out on one date are one group with one fix
(:mod:`deckcheck.engine.groups`), and the printing a fix recommends (:mod:`deckcheck.rules.recommend`)."""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path

import pytest

from deckcheck.engine import check, get_format
from deckcheck.engine.groups import left_on
from deckcheck.problems import Report
from deckcheck.rules.recommend import is_regular_art, legal_printings
from deckcheck.service.schemas import ReportSchema

DECKS = Path(__file__).resolve().parent.parent / "decks"
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
ON = dt.date(2026, 5, 1)


@pytest.mark.parametrize(
    "mark,expected",
    [
        ("G", (dt.date(2026, 4, 10), False)),
        ("F", (dt.date(2025, 4, 11), False)),
        ("E", (dt.date(2024, 4, 5), False)),
        ("D", (dt.date(2023, 4, 14), False)),
        # the first rotation by mark (lowest mark D from 2021-09-10) took out C; a card with no mark left
        # by then, in one of the rotations by sets before it (the mark alone does not say which)
        ("C", (dt.date(2021, 9, 10), False)),
        (None, (dt.date(2021, 9, 10), True)),
        ("H", None),
        ("J", None),
    ],
)
def test_when_a_mark_left_standard(mark, expected):
    assert left_on(get_format("standard"), mark, ON) == expected


def test_a_mark_not_yet_rotated_on_an_earlier_date():
    assert left_on(get_format("standard"), "G", dt.date(2026, 4, 9)) is None
    assert left_on(get_format("expanded"), "A", ON) is None  # Expanded does not rotate by marks


def test_the_cards_that_rotated_out_on_one_date_are_one_group():
    report = check(CHARIZARD, "standard", "2026-05-01")
    g, f = sorted(report.groups, key=lambda x: x.date, reverse=True)
    assert g.message == "27 cards on 12 lines rotated out on 2026-04-10 (regulation mark G)."
    assert (g.kind, g.rule, g.date, g.before, g.marks) == ("rotated-out", "not-in-format", "2026-04-10", False, ("G",))
    assert g.lines == (2, 3, 4, 6, 10, 11, 12, 14, 19, 22, 23, 24)
    assert f.message == "2 cards on 2 lines rotated out on 2025-04-11 (regulation mark F)."
    assert f.lines == (5, 18)
    # each card keeps its own problem, which the group points at
    for group in (g, f):
        assert [report.problems[i].lines for i in group.problems] == [(n,) for n in group.lines]
        assert {report.problems[i].rule for i in group.problems} == {"not-in-format"}
    assert len([p for p in report.problems if p.rule == "not-in-format"]) == 14
    # per card, the legal printing of the same name when there is one
    legal = {r["line"]: r["legal"] for r in g.replacements}
    assert legal[4] == "me02.5-020"  # Charmander (ASC 20)
    assert legal[3] == "me02-042"  # Mimikyu (PFL 42)
    assert legal[2] is None  # no Pidgey is legal


def test_one_rotated_card_is_a_group_of_one_and_a_legal_deck_has_none():
    lone = CHARIZARD.split("\n")
    report = check("\n".join(lone[:3]), "standard", "2026-05-01")  # Pidgey and Mimikyu: two lines
    assert len(report.groups) == 1
    # a card alone in leaving on its date is still a block, with the fix that removes its line
    report = check("\n".join(lone[:2]), "standard", "2026-05-01")
    (one,) = report.groups
    assert (one.message, one.lines) == ("2 cards on 1 line rotated out on 2026-04-10 (regulation mark G).", (2,))
    assert [(report.problems[i].rule, report.problems[i].lines) for i in one.problems] == [("not-in-format", (2,))]
    assert check((DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8"), "standard", ON).groups == []
    # a legal list with one card of mark G: its own problem stays, in a group of one
    swapped = (
        (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8").replace("1 Budew PRE 4", "1 Iono PAL 185")
    )
    report = check(swapped, "standard", ON)
    (iono,) = report.groups
    assert iono.message == "1 card on 1 line rotated out on 2026-04-10 (regulation mark G)."
    assert [report.problems[i].rule for i in iono.problems] == ["not-in-format"]
    assert iono.replacements == ({"line": iono.lines[0], "card": iono.cards[0], "legal": None},)
    # before the rotation the same list has no rotated group
    assert [x.date for x in check(CHARIZARD, "standard", "2026-03-01").groups] == ["2025-04-11"]


def test_groups_in_the_json_and_back():
    report = check(CHARIZARD, "standard", "2026-05-01")
    data = report.to_dict()
    assert ReportSchema().validate(data) == {}
    assert [x["message"] for x in data["groups"]] == [x.message for x in report.groups]
    back = Report.from_dict(data)
    assert back.groups == report.groups
    assert back.to_dict() == data


def test_the_api_answers_the_groups(client):
    answer = client.post("/api/v1/validate", json={"decklist": CHARIZARD, "as_of": "2026-05-01"}).get_json()
    assert [x["message"] for x in answer["groups"]] == [
        "2 cards on 2 lines rotated out on 2025-04-11 (regulation mark F).",
        "27 cards on 12 lines rotated out on 2026-04-10 (regulation mark G).",
    ]
    assert len([p for p in answer["problems"] if p["rule"] == "not-in-format"]) == 14


def test_the_recommended_printing_is_the_newest_regular_art_one(db):
    fmt = get_format("standard")
    boss = legal_printings("Boss's Orders", fmt, db, ON)
    # ASC 256 is a full art (Ultra Rare): after the regular ones; PAL (mark G) is not legal on the date
    assert [c.label for c in boss] == ["Boss's Orders (ASC 183)", "Boss's Orders (MEG 114)", "Boss's Orders (ASC 256)"]
    assert not is_regular_art(db.get("sv02-265"), db)
    assert legal_printings("Boss's Orders", fmt, db, None)[0].label == "Boss's Orders (ASC 183)"
    assert legal_printings("No Such Card", fmt, db, ON) == []


def test_a_group_at_the_line_limit(client):
    """999 rotated lines (the most a list has, with one for the date): one group in the API; the page shows
    the first members and says how many more, and its remove-all fix (more edits than a link carries) is
    for the page's script."""
    from deckcheck.service.web import MAX_SHOWN_PROBLEMS

    cards = ("1 Iono PAL 185", "1 Nest Ball SVI 181", "2 Arven SVI 166")
    text = "\n".join(cards[i % 3] for i in range(999))
    answer = client.post("/api/v1/validate", json={"decklist": text, "as_of": "2026-05-01"}).get_json()
    (group,) = answer["groups"]
    assert group["message"] == "1,332 cards on 999 lines rotated out on 2026-04-10 (regulation mark G)."
    assert len(group["lines"]) == len(group["problems"]) == 999
    page = client.post("/", data={"decklist": text, "as_of": "2026-05-01"}).get_data(as_text=True)
    assert page.count("problem--member") == MAX_SHOWN_PROBLEMS
    assert f"… and {999 - MAX_SHOWN_PROBLEMS} more lines of this group not shown." in page
    assert re.search(r'group-fix"><button type="button" class="fix button--link" data-edits="fix=1%3A', page)


def test_the_page_offers_to_remove_a_lone_rotated_card(client):
    """A card alone in leaving the format on its date is a block with the fix that removes its line, with and
    without the page's script (a link); its own problem stays in the API's problems."""
    swapped = (
        (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8").replace("1 Budew PRE 4", "1 Iono PAL 185")
    )
    page = client.post("/", data={"decklist": swapped, "as_of": "2026-05-01"}).get_data(as_text=True)
    assert page.count('class="problem-group ') == 1
    assert "1 card on 1 line rotated out on 2026-04-10 (regulation mark G)." in page
    link = re.search(r'<a class="fix" href="([^"]+)"[^>]*>Remove the line that rotated out</a>', page)
    assert link is not None
    fixed = client.get(html.unescape(link.group(1)))
    assert fixed.status_code == 303
    after = client.get(fixed.headers["Location"]).get_data(as_text=True)
    assert "Not valid for Standard on 2026-05-01: 59 cards, 1 error, 1 warning." in after and "Iono" not in after
    answer = client.post("/api/v1/validate", json={"decklist": swapped, "as_of": "2026-05-01"}).get_json()
    assert [p["rule"] for p in answer["problems"]] == ["not-in-format"]
    assert [g["lines"] for g in answer["groups"]] == [[9]]
