"""The rotation forecast (``--forecast``, ``"forecast": true``, the web page's "Next rotation") on real lists.

Real 2026 lists from tests/decks: the Dragapult list that won-era Standard played after the
2026-04-10 rotation (in its PTCGL, Limitless and PTCGO spellings), checked on 2026-05-01 when
no further rotation is announced (so the forecast assumes H out: every H-mark card named), and
the Charizard list checked on 2026-03-01, when the format file announces the 2026-04-10 rotation
(G out: the G-mark cards named, and the reprints that keep four of them legal).
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from conftest import SHIPPED_FORMATS

from deckcheck.cli import cli
from deckcheck.engine import check, get_format
from deckcheck.engine.forecast import next_rotation
from deckcheck.formats import load_formats
from deckcheck.problems import ERROR, INFO, WARNING, Report
from deckcheck.service.schemas import ReportSchema

DECKS = Path(__file__).resolve().parent.parent / "decks"
ROOT = Path(__file__).resolve().parent.parent.parent
DRAGAPULT = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
#: the shipped formats whose pool is not by regulation marks (sets, or every card): none has a forecast
NOT_BY_MARKS = [fid for fid in SHIPPED_FORMATS if get_format(fid).pool.kind != "regulation-marks"]
H_CARDS = [
    "Dreepy (TWM 128)",
    "Drakloak (TWM 129)",
    "Dragapult ex (TWM 130)",
    "Duskull (PRE 35)",
    "Dusclops (PRE 36)",
    "Dusknoir (PRE 37)",
    "Fezandipiti ex (SFA 38)",
    "Budew (PRE 4)",
    "Munkidori (TWM 95)",
    "Buddy-Buddy Poffin (TEF 144)",
    "Night Stretcher (SFA 61)",
    "Crispin (SCR 133)",
    "Prime Catcher (TEF 157)",
]


def forecast_of(report: Report) -> dict:
    return report.extra["forecast"]


@pytest.mark.parametrize(
    "deck", ["standard-legal-dragapult.txt", "rules/dragapult-limitless.txt", "rules/dragapult-ptcgo.txt"]
)
def test_a_2026_list_names_its_h_mark_cards_under_the_assumed_rotation(db, deck):
    report = check((DECKS / deck).read_text(encoding="utf-8"), "standard", "2026-05-01", db=db, forecast=True)
    fc = forecast_of(report)
    assert fc["rotation"] == {
        "date": "2027-04-10",
        "lowest_mark": "I",
        "announced": False,
        "source": "An assumption: the format file announces no rotation after 2026-05-01, so this assumes the usual "
        "yearly one (mark H out) a year after the last (2026-04-10).",
    }
    assert [r["label"] for r in fc["rotating"]] == H_CARDS
    assert {r["mark"] for r in fc["rotating"]} == {"H"}
    assert fc["kept_by_reprint"] == []  # no H-mark card of this list has an I or J reprint
    assert report.valid  # warnings only: legal today
    warnings = [p for p in report.problems if p.rule == "rotation-forecast"]
    assert len(warnings) == 13 and {(p.code, p.severity) for p in warnings} == {("R401", WARNING)}


def test_the_exact_warning_labels_the_assumption(db):
    report = check(DRAGAPULT, "standard", "2026-05-01", db=db, forecast=True)
    first = next(p for p in report.problems if p.rule == "rotation-forecast")
    assert first.message == (
        "Dreepy (TWM 128) (line 2) would not be legal after the next rotation (assumed: lowest "
        "legal mark I from about 2027-04-10): its regulation mark H rotates out and no "
        "functionally identical reprint has mark I or later."
    )
    assert first.hint.startswith("An assumption: ")
    assert first.lines == (2,) and first.cards == ("sv06-128",)


def test_the_announced_rotation_in_the_format_file_names_cards_and_their_reprints(db):
    report = check(CHARIZARD, "standard", "2026-03-01", db=db, forecast=True)
    fc = forecast_of(report)
    assert fc["rotation"]["announced"] is True
    assert (fc["rotation"]["date"], fc["rotation"]["lowest_mark"]) == ("2026-04-10", "H")
    assert [r["label"] for r in fc["rotating"]] == [
        "Pidgey (MEW 16)",
        "Mimikyu (PAL 97)",
        "Charmander (PAF 7)",
        "Charmeleon (PAF 8)",
        "Pidgeotto (MEW 17)",
        "Cleffa (OBF 80)",
        "Pidgeot ex (OBF 164)",
        "Charizard ex (OBF 125)",
        "Nest Ball (SVI 181)",
        "Iono (PAL 185)",
        "Arven (SVI 166)",
        "Super Rod (PAL 188)",
    ]
    assert [(r["label"], r["via_label"], r["via_mark"]) for r in fc["kept_by_reprint"]] == [
        ("Boss's Orders (PAL 172)", "Boss's Orders (ASC 183)", "I"),
        ("Ultra Ball (SVI 196)", "Ultra Ball (ASC 213)", "I"),
        ("Switch (SVI 194)", "Switch (PFL 123)", "I"),
        ("Rare Candy (SVI 191)", "Rare Candy (MEG 125)", "I"),
    ]
    kept = [p for p in report.problems if p.rule == "rotation-forecast" and p.severity == INFO]
    assert kept[0].message == (
        "Boss's Orders (PAL 172) (line 20) stays legal after the next rotation (announced for "
        "2026-04-10: lowest legal mark H) through its functionally identical reprint Boss's "
        "Orders (ASC 183) (mark I)."
    )
    assert kept[0].hint is None  # announced, not assumed

    # what the forecast says is what the check on the rotation day says
    def illegal(on):
        return {ln.line for ln in check(CHARIZARD, "standard", on, db=db).lines if ln.legal is False}

    assert illegal("2026-03-01") == {5, 18}  # Rotom V and Forest Seal Stone (mark F) are out already
    assert sorted(illegal("2026-04-10") - illegal("2026-03-01")) == [r["line"] for r in fc["rotating"]]


def test_an_announced_rotation_added_to_the_format_file_is_used(tmp_path, db):
    shutil.copytree(ROOT / "data" / "formats", tmp_path / "formats")
    standard = tmp_path / "formats" / "standard.toml"
    standard.write_text(
        standard.read_text(encoding="utf-8").replace(
            '''[[pool.mark_dates]]
mark = "G"''',
            '''[[pool.rotations]]
from = "2027-04-09"
lowest_mark = "I"
source = "2027 rotation announcement (a test)"

[[pool.mark_dates]]
mark = "G"''',
            1,
        ),
        encoding="utf-8",
    )
    fmt = load_formats(tmp_path / "formats")["standard"]
    rotation = next_rotation(fmt, dt.date(2026, 5, 1))
    assert (rotation.date, rotation.lowest_mark, rotation.announced, rotation.source) == (
        dt.date(2027, 4, 9),
        "I",
        True,
        "2027 rotation announcement (a test)",
    )
    report = check(DRAGAPULT, fmt, "2026-05-01", db=db, forecast=True)
    assert forecast_of(report)["rotation"]["announced"] is True
    assert [r["label"] for r in forecast_of(report)["rotating"]] == H_CARDS
    assert all(p.hint is None for p in report.problems if p.rule == "rotation-forecast")


@pytest.mark.parametrize("format_id", NOT_BY_MARKS)
def test_formats_that_do_not_rotate_by_marks_get_no_forecast(db, format_id):
    report = check(DRAGAPULT, format_id, "2026-05-01", db=db, forecast=True)
    assert forecast_of(report) == {"rotation": None, "rotating": [], "kept_by_reprint": []}
    assert not any(p.rule == "rotation-forecast" for p in report.problems)


def test_the_assumed_date_is_after_the_check_date():
    fmt = get_format("standard")
    assert next_rotation(fmt, dt.date(2027, 6, 1)).date == dt.date(2028, 4, 10)
    assert next_rotation(fmt, dt.date(2026, 4, 9)).date == dt.date(2026, 4, 10)  # announced, in the file
    # any date a check may have: the anniversary after it, or none past the last date there is
    assert next_rotation(fmt, dt.date(9998, 4, 10)).date == dt.date(9999, 4, 10)
    assert next_rotation(fmt, dt.date(9999, 4, 9)).date == dt.date(9999, 4, 10)
    for last_day in (dt.date(9999, 4, 10), dt.date(9999, 12, 31)):
        assert next_rotation(fmt, last_day) is None, last_day


def test_the_last_dates_there_are_get_a_forecast_answer_everywhere(client, runner):
    """A check on 9999-04-10 or later has no rotation left to forecast: a report, never an error."""
    for on in ("9999-04-10", "9999-12-31"):
        resp = client.post(f"/api/v1/validate?forecast=true&as_of={on}", data=b"4 a", content_type="text/plain")
        assert resp.status_code == 200 and resp.get_json()["forecast"]["rotation"] is None, resp.get_data()
        assert client.get(f"/?deck=4%20a&as_of={on}").status_code == 200
        assert client.post("/extras", json={"decklist": "4 a", "as_of": on}).status_code == 200
        result = runner.invoke(cli, ["check", "-", "--as-of", on, "--forecast"], input="4 a\n")
        assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output


@pytest.mark.parametrize("deck", sorted(p.name for p in DECKS.glob("*.txt")))
@pytest.mark.parametrize("on", ["2026-03-01", "2026-05-01"])
def test_the_forecast_is_never_an_error_and_never_changes_the_verdict(db, deck, on):
    text = (DECKS / deck).read_text(encoding="utf-8")
    plain, ahead = check(text, "standard", on, db=db), check(text, "standard", on, db=db, forecast=True)
    assert ahead.valid == plain.valid
    assert [p for p in ahead.problems if p.rule != "rotation-forecast"] == plain.problems
    assert {p.severity for p in ahead.problems if p.rule == "rotation-forecast"} <= {WARNING, INFO}
    assert ERROR not in {p.severity for p in ahead.problems if p.rule == "rotation-forecast"}
    assert "forecast" not in plain.to_dict() and "forecast" in ahead.to_dict()
    assert ReportSchema().validate(ahead.to_dict()) == {}


# -- the command line, the API and the web page ---------------------------------------------------


def test_cli_forecast(runner, monkeypatch):
    monkeypatch.chdir(DECKS)
    result = runner.invoke(cli, ["check", "standard-legal-dragapult.txt", "--as-of", "2026-05-01", "--forecast"])
    assert result.exit_code == 0  # warnings do not fail a deck...
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "standard-legal-dragapult.txt:2: rotation-forecast (warning) Dreepy (TWM 128) (line 2) "
        "would not be legal after the next rotation"
    )
    assert lines[-1] == "Checked 1 deck: all passed (13 warnings)."
    result = runner.invoke(
        cli, ["check", "standard-legal-dragapult.txt", "--as-of", "2026-05-01", "--forecast", "--fail-on", "warning"]
    )
    assert result.exit_code == 1  # ...unless warnings fail the run
    plain = runner.invoke(cli, ["check", "standard-legal-dragapult.txt", "--as-of", "2026-05-01"])
    assert "rotation-forecast" not in plain.stdout


def test_api_forecast(client):
    resp = client.post("/api/v1/validate", json={"decklist": CHARIZARD, "as_of": "2026-03-01", "forecast": True})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["forecast"]["rotation"]["announced"] is True
    assert [k["via_label"] for k in data["forecast"]["kept_by_reprint"]] == [
        "Boss's Orders (ASC 183)",
        "Ultra Ball (ASC 213)",
        "Switch (PFL 123)",
        "Rare Candy (MEG 125)",
    ]
    assert ReportSchema().validate(data) == {}
    plain = client.post("/api/v1/validate", json={"decklist": CHARIZARD, "as_of": "2026-03-01"}).get_json()
    assert "forecast" not in plain and not any(p["rule"] == "rotation-forecast" for p in plain["problems"])
    text = client.post(
        "/api/v1/validate?as_of=2026-05-01&forecast=true", data=DRAGAPULT.encode(), content_type="text/plain"
    ).get_json()
    assert [r["label"] for r in text["forecast"]["rotating"]] == H_CARDS
    # the body wins over the query string
    off = client.post("/api/v1/validate?forecast=true", json={"decklist": DRAGAPULT, "forecast": False}).get_json()
    assert "forecast" not in off
    bad = client.post("/api/v1/validate", json={"decklist": DRAGAPULT, "forecast": "soon"})
    assert bad.status_code == 422 and "forecast" in bad.get_json()["error"]["details"]["json"]


def test_web_page_shows_the_next_rotation(client):
    page = client.post("/", data={"decklist": CHARIZARD, "format": "standard", "as_of": "2026-03-01"}).get_data(
        as_text=True
    )
    section = page[page.index('<section class="panel forecast-panel"') :]
    assert "Announced: from 2026-04-10 the lowest legal regulation mark is H." in section
    assert "Would become illegal (12)" in section and "Charizard ex (OBF 125), mark G" in section
    assert '<a href="#line-27">line 27</a>: Ultra Ball (SVI 196) through Ultra Ball (ASC 213) (mark I)' in section
    assumed = client.post("/", data={"decklist": DRAGAPULT, "format": "standard", "as_of": "2026-05-01"}).get_data(
        as_text=True
    )
    assert "<strong>Assumption:</strong> no rotation is announced yet" in assumed
    assert "Dreepy (TWM 128), mark H" in assumed
    expanded = client.post("/", data={"decklist": DRAGAPULT, "format": "expanded", "as_of": "2026-05-01"}).get_data(
        as_text=True
    )
    assert "forecast-panel" not in expanded


def test_no_forecast_when_the_next_rotation_is_by_sets():
    """Before regulation marks a rotation names sets: no forecast (no lowest mark to compare);
    from the last rotation by sets on, the next rotation by mark is forecast."""
    fmt = get_format("standard")
    assert next_rotation(fmt, dt.date(2019, 1, 1)) is None  # UPR-on of 2019-08-15 is by sets
    rotation = next_rotation(fmt, dt.date(2021, 1, 1))
    assert (rotation.date, rotation.lowest_mark, rotation.announced) == (dt.date(2021, 9, 10), "D", True)
