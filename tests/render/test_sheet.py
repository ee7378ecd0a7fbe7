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


def test_the_layout_counts_each_name_s_lines_and_keeps_the_taller_column_short():
    from deckcheck.render.sheet import DENSITIES, Sheet, SheetRow

    def sheet(pokemon: int, trainers: int, energy: int, name: str = "Nest Ball") -> Sheet:
        rows = [SheetRow(1, name, "SVI", "181", "G") for _ in range(60)]
        return Sheet(
            Player(), "Unlimited", ON, [("P", rows[:pokemon], 0), ("T", rows[:trainers], 0), ("E", rows[:energy], 0)]
        )

    assert sheet(9, 13, 3).layout == ("", ((0, 2), (1,)), 16)
    assert sheet(13, 9, 3).layout == ("", ((0,), (1, 2)), 16)
    assert sheet(1, 0, 59).layout == ("denser", ((0, 1), (2,)), 61)  # many Energy lines: beside both others
    # a name longer than a line of the density takes two: 20 of them are 40 lines and the caption's 2
    wide = "x" * (DENSITIES[0][1] + 1)
    assert sheet(1, 20, 1, wide).layout[::2] == ("dense", 22)
    assert sheet(1, 20, 1, "x" * DENSITIES[0][1]).layout[::2] == ("", 22)
    assert sheet(1, 30, 1, wide).layout[::2] == ("dense", 32)


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


def longest_first(db, wanted) -> list:
    """The printings ``wanted`` keeps, one per name (one per printing for basic Energy), longest names first
    (those that wrap), each found again by its set code and number: what a worst-case list is made of."""
    seen, out = set(), []
    for card in sorted(db.cards.values(), key=lambda c: (-len(c.name), c.id)):
        key = card.id if card.is_basic_energy else card.key
        if key in seen or not wanted(card) or card.is_ace_spec or not card.number.isdigit() or not card.set_code:
            continue
        alone = check(f"1 {card.name} {card.set_code} {card.number}", "unlimited", ON)
        read = alone.lines[0].card if alone.lines else None
        if read is None or read.id != card.id or any(p.rule in LINE_RULES for p in alone.problems):
            continue  # a line of it does not read back as it, or it is not legal on the date
        seen.add(key)
        out.append(card)
        if len(out) == 60:
            break
    return out


#: what a line of one card may have against it in a worst-case list: none of these
LINE_RULES = {"not-in-format", "unknown-card", "name-mismatch", "banned", "unreadable-line"}


def worst_case(db, pokemon: int, trainers: int, energy: int) -> str:
    """A valid Unlimited list of ``pokemon`` Basic Pokémon, ``trainers`` Trainer and ``energy`` Energy lines
    (the longest names there are, one copy each but the first basic Energy, which takes the rest of 60)."""
    pools = worst_case.pools = getattr(worst_case, "pools", None) or (
        longest_first(db, lambda c: c.supertype == "Pokémon" and c.subtypes == ("Basic",)),
        longest_first(db, lambda c: c.supertype == "Trainer" and "Radiant" not in c.subtypes),
        longest_first(db, lambda c: c.supertype == "Energy" and not c.is_basic_energy),
        longest_first(db, lambda c: c.is_basic_energy),
    )
    basic_pokemon, trainer, special, basic = pools
    energies = [basic[0], *special[: energy - 1]] if energy else []
    energies += basic[1 : energy - len(energies) + 1] if energy > len(energies) else []
    cards = [*basic_pokemon[:pokemon], *trainer[:trainers], *energies[1:]]
    lines = [f"1 {c.name} {c.set_code} {c.number}" for c in cards]
    if energy:
        lines.append(f"{60 - len(cards)} {energies[0].name} {energies[0].set_code} {energies[0].number}")
    assert len(lines) == pokemon + trainers + energy
    return "\n".join(lines)


#: the kinds of list whose sheet is tallest: lines of one section, of two, of three
MIXES = {
    "pokemon": lambda n: (n, 0, 60 - n and 1 if n < 60 else 0),
    "trainer": lambda n: (1, n, 0 if n == 59 else 1),
    "energy": lambda n: (1, 0, n),
    "pokemon-trainer": lambda n: (n, 60 - n, 0),
    "thirds": lambda n: (n, n, 60 - 2 * n),
}


def worst_cases(db) -> dict[str, str]:
    """Per mix, the list of each density with the most lines in its taller column (the edge of each), and the
    most lines of all: the lists a density that holds too little would print on two pages."""
    out = {}
    for mix, shape in MIXES.items():
        edges: dict[str, tuple[int, int, str]] = {}
        for n in range(1, 61):
            p, t, e = shape(n)
            if min(p, t, e) < 0 or p < 1 or p + t + e > 60 or (e == 0 and p + t != 60):
                continue
            text = worst_case(db, p, t, e)
            density, _, lines = build_sheet(check(text, "unlimited", ON)).layout
            if lines >= edges.get(density, (0,))[0]:
                edges[density] = (lines, n, text)
        out.update({f"{mix}-{n}": text for _, n, text in edges.values()})
    return out


@pytest.mark.browser
def test_every_valid_deck_prints_its_sheet_on_one_page_of_a4_and_of_letter(db, live_server):
    """The densities hold what the style sheet makes of them: the tallest list of each density, of each mix
    of sections, with the longest names there are (which wrap), printed from the web page (its linked style
    sheet) and from ``deckcheck sheet``'s file, is one page on A4 and on Letter."""
    from playwright.sync_api import sync_playwright

    from deckcheck.decklist.sharelink import encode_deck

    cases = worst_cases(db)
    assert {name.rsplit("-", 1)[0] for name in cases} == set(MIXES) and len(cases) >= 12
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page, blank = browser.new_page(), browser.new_page()
            densities = set()
            for name, text in cases.items():
                sheet = build_sheet(check(text, "unlimited", ON))
                assert sheet.total == 60
                densities.add(sheet.density)
                page.goto(f"{live_server}/sheet?d={encode_deck(text)}&format=unlimited&as_of={ON}")
                assert page.locator(".cards tbody tr").count() == sum(max(1, len(r)) for _, r, _ in sheet.sections)
                web = {paper: pdf_pages(page.pdf(format=paper)) for paper in ("A4", "Letter")}
                # the file on a page of its own (one opened on the web page's origin keeps its CSP: no inline style)
                blank.set_content(render_sheet(sheet))
                cli = {paper: pdf_pages(blank.pdf(format=paper)) for paper in ("A4", "Letter")}
                # laid out alike: the style sheet's font and the same height, printed
                looks = []
                for shown in (page, blank):
                    shown.emulate_media(media="print")
                    looks.append((shown.evaluate(FONT), round(shown.locator("#sheet").bounding_box()["height"])))
                assert looks[0] == looks[1] and looks[0][0].startswith('"Helvetica Neue"'), (name, looks)
                assert (web, cli) == ({"A4": 1, "Letter": 1},) * 2, (name, sheet.density)
            assert densities == {"", "dense", "denser"}
        finally:
            browser.close()


#: the font the sheet's page is set in
FONT = "getComputedStyle(document.documentElement).fontFamily"


def pdf_pages(data: bytes) -> int:
    """The pages of a PDF Chromium printed."""
    assert data.startswith(b"%PDF-")
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", data))
