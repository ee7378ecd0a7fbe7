"""The deck registration sheet (:mod:`deckcheck.render.sheet`): its values, its HTML, ``GET /sheet`` and
``deckcheck sheet`` (HTML without a browser, PDF through Chromium)."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from deckcheck.cli import cli
from deckcheck.engine import check
from deckcheck.render.sheet import MAX_FIELD, Player, SheetError, build_sheet, render_sheet

DECKS = Path(__file__).resolve().parent.parent / "decks"
LEGAL_PATH = DECKS / "standard-legal-dragapult.txt"
LEGAL = LEGAL_PATH.read_text(encoding="utf-8")
ON = "2026-05-01"
CHROMIUM = "/usr/bin/chromium"


def rows_of(page: str) -> list[list[str]]:
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", page, re.DOTALL)
        if "<td" in tr
    ]


def test_the_sheet_of_a_valid_deck():
    # two lines of one printing are one row, as in the export
    text = LEGAL.replace("3 Basic {D} Energy SVE 7", "2 Basic {D} Energy SVE 7\n1 Darkness Energy SVE 7")
    sheet = build_sheet(check(text, "standard", ON))
    assert [(title, len(rows), cards) for title, rows, cards in sheet.sections] == [
        ("Pokémon", 9, 19),
        ("Trainer", 13, 31),
        ("Energy", 3, 10),
    ]
    assert sheet.total == 60 and (sheet.format_name, sheet.as_of) == ("Standard", ON)
    energy = sheet.sections[2][1]
    assert [(r.count, r.name, r.set_code, r.number, r.mark) for r in energy] == [
        (4, "Fire Energy", "SVE", "2", ""),
        (3, "Psychic Energy", "SVE", "5", ""),
        (3, "Darkness Energy", "SVE", "7", ""),
    ]
    page = render_sheet(sheet)
    assert rows_of(page)[0] == ["4", "Dreepy", "TWM", "128", "H"]
    assert len(rows_of(page)) == 25
    assert "<style>" in page and "<script" not in page and "@media print" in page


def test_an_invalid_deck_has_no_sheet():
    with pytest.raises(SheetError) as caught:
        build_sheet(check(LEGAL.replace("1 Budew PRE 4", "1 Chansey BS 3"), "standard", ON))
    assert str(caught.value) == (
        "Not valid for Standard on 2026-05-01: 60 cards, 1 error. "
        "A registration sheet is for a valid deck: fix the problems first."
    )


def test_player_fields_are_one_short_line_of_text_and_escaped():
    player = Player("<b>Ash</b>\n\x00Ketchum" + "x" * 200, " 12 34 ", "2000-05-22", "MASTERS")
    assert player.name == ("<b>Ash</b> Ketchum" + "x" * 200)[:MAX_FIELD]
    assert (player.player_id, player.division) == ("12 34", "masters")
    with pytest.raises(SheetError) as caught:  # never dropped for a blank
        Player(division="Champions\n")
    assert str(caught.value) == (
        "“Champions” is not an age division: give junior, senior or masters, or none to tick it by hand."
    )
    page = render_sheet(build_sheet(check(LEGAL, "standard", ON), player))
    assert "&lt;b&gt;Ash&lt;/b&gt; Ketchum" in page and "<b>Ash" not in page


def test_the_web_sheet(client):
    query = {"deck": LEGAL, "format": "standard", "as_of": ON, "name": "Misty", "division": "senior"}
    resp = client.get("/sheet", query_string=query)
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert '<link rel="stylesheet" href="/sheet.css">' in page and "<style>" not in page
    assert re.search(r'id="player-name">Misty<', page)
    assert len(rows_of(page)) == 25
    assert client.get("/sheet.css").mimetype == "text/css"
    bad = client.get(f"/sheet?deck=1%20Iono%20PAL%20185&as_of={ON}")
    assert bad.status_code == 422 and "A registration sheet is for a valid deck" in bad.get_data(as_text=True)
    assert client.get("/sheet").status_code == 400
    # the result links a valid deck's sheet, and only a valid deck's
    result = client.post("/", data={"decklist": LEGAL, "as_of": ON}).get_data(as_text=True)
    link = html.unescape(re.search(r'id="sheet-link" href="([^"]+)"', result).group(1))
    assert client.get(link).status_code == 200
    invalid = client.post("/", data={"decklist": "1 Iono PAL 185", "as_of": ON}).get_data(as_text=True)
    assert 'id="sheet-link"' not in invalid


def test_the_web_sheet_refuses_a_division_it_does_not_have(client):
    resp = client.get("/sheet", query_string={"deck": LEGAL, "as_of": ON, "name": "Misty", "division": "zz"})
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    assert "“zz” is not an age division: give junior, senior or masters, or none to tick it by hand." in page
    assert 'class="sheet' not in page and "Back to the result" in page
    for blank in ("", " "):
        assert client.get("/sheet", query_string={"deck": LEGAL, "as_of": ON, "division": blank}).status_code == 200


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["sheet", *args], env=env)


def test_the_command_writes_html(tmp_path):
    out = tmp_path / "sheet.html"
    result = run(str(LEGAL_PATH), "--as-of", ON, "-o", str(out), "--player-name", "Brock", "--division", "junior")
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert len(rows_of(page)) == 25 and re.search(r'id="player-name">Brock<', page)
    assert "division--on" in page and "Junior<span" in page
    assert "(60 cards) to" in result.stderr
    stdout = run(str(LEGAL_PATH), "--as-of", ON)
    assert stdout.exit_code == 0 and stdout.stdout.startswith("<!doctype html>")


def test_the_command_writes_the_web_page_s_sheet(client, tmp_path):
    """One template, one style sheet: the file ``deckcheck sheet`` writes is the page ``/sheet`` serves for the
    same list and fields, with the style sheet ``/sheet.css`` serves written inside it as it is (escaped,
    the quoted font names broke the rule that sets the font and line height: Times on paper)."""
    fields = {"name": 'Ash "Red" Ketchum', "player_id": "1234567", "dob": "2000-05-22", "division": "masters"}
    web = client.get("/sheet", query_string={"deck": LEGAL, "as_of": ON, **fields}).get_data(as_text=True)
    out = tmp_path / "sheet.html"
    result = run(
        str(LEGAL_PATH), "--as-of", ON, "-o", str(out), "--player-name", fields["name"],
        "--player-id", fields["player_id"], "--birth-date", fields["dob"], "--division", fields["division"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    css = client.get("/sheet.css").get_data(as_text=True)
    assert '"Helvetica Neue"' in css
    assert page.count(css) == 1 and f"<style>\n{css}</style>" in page
    # the same head but for where the style comes from, and the same sheet
    web_head, page_head = web.split("</head>")[0], page.split("</head>")[0]
    web_head = re.sub(r"<link rel=\"icon\"[^>]*>", "", web_head)
    assert web_head.replace('<link rel="stylesheet" href="/sheet.css">', f"<style>\n{css}</style>") == page_head
    assert web[web.index('<main class="sheet') :] == page[page.index('<main class="sheet') :]
    assert "Ash &#34;Red&#34; Ketchum" in page


def test_the_command_refuses_an_invalid_deck(tmp_path):
    deck = tmp_path / "bad.txt"
    deck.write_text("1 Iono PAL 185\n", encoding="utf-8")
    result = run(str(deck), "--as-of", ON, "-o", str(tmp_path / "x.html"))
    assert result.exit_code == 1
    assert "Not valid for Standard on 2026-05-01: 1 card, 3 errors." in result.output
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("where", ["missing/x.html", ".", pytest.param("missing/x.pdf", marks=pytest.mark.browser)])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(tmp_path, where):
    """As ``check --report`` says of the same paths: a missing folder, a folder; nothing written."""
    target = tmp_path / where
    result = run(str(LEGAL_PATH), "--as-of", ON, "-o", str(target), env={"DECKCHECK_CHROMIUM": CHROMIUM})
    reason = "Is a directory" if where == "." else "No such file or directory"
    assert (result.exit_code, result.output) == (1, f"Error: Could not open file '{target}': {reason}\n")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_pdf_without_chromium_says_what_to_do(tmp_path):
    result = run(
        str(LEGAL_PATH), "--as-of", ON, "-o", str(tmp_path / "s.pdf"), env={"DECKCHECK_CHROMIUM": "/nonexistent"}
    )
    assert result.exit_code == 1
    assert "playwright install chromium" in result.output and "--output sheet.html" in result.output
    assert not (tmp_path / "s.pdf").exists()


@pytest.mark.browser
@pytest.mark.parametrize("paper,size", [("a4", (595, 842)), ("letter", (612, 792))])
def test_the_command_prints_a_one_page_pdf(tmp_path, paper, size):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing (bash tests/run.sh installs it)", pytrace=False)
    out = tmp_path / "sheet.pdf"
    result = run(str(LEGAL_PATH), "--as-of", ON, "-o", str(out), "--paper", paper, env={"DECKCHECK_CHROMIUM": CHROMIUM})
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data.startswith(b"%PDF-")
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert [(int(float(w)), int(float(h))) for w, h in boxes] == [size]


def singletons(db, trainers: int) -> str:
    """A valid Unlimited list with one Basic Pokémon, ``trainers`` different Items (one copy each) and basic
    Energy for the rest of 60: a sheet with as many lines as a singleton deck has."""
    seen, items = set(), []
    for card in db.cards.values():
        if (
            card.supertype == "Trainer"
            and card.subtypes == ("Item",)
            and card.key not in seen
            and card.number.isdigit()
        ):
            seen.add(card.key)
            items.append(card)
            if len(items) == trainers:
                break
    lines = ["1 Pikachu BS 58", *(f"1 {c.name} {c.set_code} {c.number}" for c in items)]
    return "\n".join([*lines, f"{60 - len(lines)} Lightning Energy BS 100"])


@pytest.mark.browser
def test_a_sheet_with_many_lines_is_still_one_page(db):
    """The rows get smaller as a column grows (Sheet.density), so even 59 Trainer lines print on one page."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            for trainers, density in ((36, ""), (37, "dense"), (50, "dense"), (51, "denser"), (58, "denser")):
                report = check(singletons(db, trainers), "unlimited", ON)
                sheet = build_sheet(report)
                assert (len(sheet.sections[1][1]), sheet.density) == (trainers, density)
                page.set_content(render_sheet(sheet))
                for paper, size in (("A4", (595, 842)), ("Letter", (612, 792))):
                    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", page.pdf(format=paper))
                    assert [(int(float(w)), int(float(h))) for w, h in boxes] == [size], (trainers, paper)
        finally:
            browser.close()
