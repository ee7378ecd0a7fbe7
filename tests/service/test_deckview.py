"""The deck page's additions (deckcheck/service/deckview.py and the result template): fixes, card
images, notes apart from problems, counts that agree with the export, header checks."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckcheck import create_app
from deckcheck.service.deckview import BROKEN_FIX, MAX_EDITS, FixError, apply_edits, header_notes, image_url, read_edits
from deckcheck.service.web import decode_deck, encode_deck, page_headers

DECKS = Path(__file__).resolve().parent.parent / "decks"
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
ONE_BAD = LEGAL.replace("1 Budew PRE 4", "1 Chansey BS 3")
FIXABLE = LEGAL.replace("4 Ultra Ball MEG 131", "5 Ultra Ball MEG 131").replace(
    "4 Rare Candy MEG 125", "4 Rare Candee MEG"
)


def post(client, decklist, format="standard", as_of=DATE):
    return client.post("/", data={"decklist": decklist, "format": format, "as_of": as_of})


def body(resp) -> str:
    return resp.get_data(as_text=True)


def fix_links(text: str) -> dict[str, str]:
    """label -> href of every fix link on the page."""
    return {
        html.unescape(label): html.unescape(href)
        for href, label in re.findall(r'<a class="fix" href="([^"]+)"[^>]*>([^<]+)</a>', text)
    }


def summary(text: str) -> str:
    return html.unescape(re.search(r'class="verdict-summary">([^<]*)<', text).group(1))


# -- edits ----------------------------------------------------------------------------


def test_apply_edits_replaces_and_removes_lines_by_their_numbers():
    text = "a\r\nb\nc\n"
    assert apply_edits(text, [(2, "B"), (1, "")]) == "B\nc\n"
    assert apply_edits("a\nb", [(2, "x")]) == "a\nx"
    assert apply_edits("a\nb\nc", [(1, ""), (3, "")]) == "b"
    with pytest.raises(FixError):
        apply_edits("a\nb\n", [(3, "x")])  # the blank after the last line end is not a line


@pytest.mark.parametrize("values", [[], ["0:x"], ["x:y"], ["12"], ["3:a\nb"], ["1:x"] * (MAX_EDITS + 1)])
def test_read_edits_refuses_malformed_fixes(values):
    with pytest.raises(FixError) as caught:
        read_edits(values)
    assert str(caught.value) == BROKEN_FIX


@pytest.mark.slow
@given(st.lists(st.text(alphabet="ab \n", max_size=8), min_size=1, max_size=8), st.data())
def test_an_edit_touches_only_its_line(lines, data):
    def split(text):  # the lines, without the empty "line" after a final line end
        parts = text.split("\n")
        return parts[:-1] if len(parts) > 1 and parts[-1] == "" else parts

    text = "\n".join(line.replace("\n", "") for line in lines)
    before = split(text)
    n = data.draw(st.integers(1, len(before)))
    out = split(apply_edits(text, read_edits([f"{n}:new"])))
    assert out[n - 1] == "new" and out[: n - 1] == before[: n - 1] and out[n:] == before[n:]


# -- fix links without JavaScript ---------------------------------------------------------


@pytest.mark.slow
def test_fixes_are_links_to_the_fixed_list(client):
    page = body(post(client, FIXABLE))
    assert summary(page) == "Not valid for Standard on 2026-05-01: 61 cards, 3 errors, 1 warning."
    links = fix_links(page)
    assert set(links) == {
        "Set to the limit, 4",
        "Use Rare Candy (MEG 125)",  # the recommended printing: the newest regular art legal on the date
        "Use Rare Candy (MEG 175)",  # behind it; the other names suggested have no legal printing
    }
    query = parse_qs(urlsplit(links["Set to the limit, 4"]).query)
    assert query["fix"] == ["14:4 Ultra Ball MEG 131"] and query["format"] == ["standard"] and query["as_of"] == [DATE]
    assert decode_deck(query["d"][0], 65536) == FIXABLE
    # the link answers with the share link of the fixed list
    resp = client.get(links["Set to the limit, 4"])
    assert resp.status_code == 303
    fixed = FIXABLE.replace("5 Ultra Ball MEG 131", "4 Ultra Ball MEG 131")
    assert resp.headers["Location"] == f"/?d={encode_deck(fixed)}&format=standard&as_of={DATE}#verdict"
    page = body(client.get(resp.headers["Location"]))
    assert summary(page) == "Not valid for Standard on 2026-05-01: 60 cards, 1 error."
    page = body(client.get(client.get(fix_links(page)["Use Rare Candy (MEG 125)"]).headers["Location"]))
    assert summary(page) == "Valid for Standard on 2026-05-01: 60 cards."
    assert "4 Rare Candy MEG 125\n" in html.unescape(
        re.search(r'<textarea id="decklist"[^>]*>(.*?)</textarea>', page, re.DOTALL).group(1)
    )


@pytest.mark.slow
def test_legal_printing_fix(client):
    page = body(post(client, ONE_BAD))
    link = fix_links(page)["Use the legal printing, Chansey (TWM 133)"]
    assert parse_qs(urlsplit(link).query)["fix"] == ["9:1 Chansey TWM 133"]
    assert (
        summary(body(client.get(client.get(link).headers["Location"]))) == "Valid for Standard on 2026-05-01: 60 cards."
    )


@pytest.mark.slow
def test_copy_limit_fix_over_several_lines_takes_from_the_last(client):
    deck = "3 Nest Ball SVI 181\n2 Nest Ball PAF 84\n1 Nest Ball SVI 181\n"
    link = fix_links(body(post(client, deck)))["Set to the limit, 4"]
    assert parse_qs(urlsplit(link).query)["fix"] == ["2:1 Nest Ball PAF 84", "3:"]
    fixed = client.get(link).headers["Location"]
    assert decode_deck(parse_qs(urlsplit(fixed).query)["d"][0], 65536) == "3 Nest Ball SVI 181\n1 Nest Ball PAF 84\n"


@pytest.mark.slow
def test_fix_text_is_shown_as_text(client):
    token = encode_deck("4 Nest Ball SVI 181\n")
    link = f"/?d={token}&format=standard&fix=1:<script>alert(1)</script>"
    page = body(client.get(client.get(link).headers["Location"]))
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.slow
@pytest.mark.parametrize("fix", ["9:x", "0:x", "x", "1:a\nb"])
def test_broken_fix_link_is_a_message(client, fix):
    resp = client.get("/", query_string={"d": encode_deck("4 Nest Ball SVI 181\n"), "fix": fix})
    assert resp.status_code == 400
    assert html.escape(BROKEN_FIX, quote=False) in body(resp) or BROKEN_FIX.replace("'", "&#39;") in body(resp)


def test_json_deck_gets_no_text_fixes(client):
    deck = '{"cards": [{"count": 5, "name": "Nest Ball", "set": "SVI", "number": "181"}]}'
    assert fix_links(body(post(client, deck))) == {}


# -- what the result shows -------------------------------------------------------------------


def test_notes_are_apart_from_problems(client):
    page = body(post(client, "Pokémon: 1\n4 Dreepy\n" + LEGAL.split("\n", 2)[2].replace("4 Dreepy TWM 128\n", "")))
    problems = page[page.index('aria-labelledby="problems-title"') : page.index('aria-labelledby="deck-title"')]
    notes = page[page.index('aria-labelledby="notes-title"') : page.index('aria-labelledby="counts-title"')]
    assert "No problems found." in problems and "matched by name" not in problems
    assert "Notes (1)" in notes and "has no set code, so it was matched by name" in html.unescape(notes)


@pytest.mark.slow
def test_only_lines_with_problems_is_the_default_for_an_invalid_deck(client):
    assert re.search(r'id="only-problems" checked>', body(post(client, ONE_BAD)))
    # a valid deck with a warning (Total Cards: 61) opens on the whole deck; one without any has no switch
    warned = body(post(client, LEGAL.replace("Total Cards: 60", "Total Cards: 61")))
    assert re.search(r'id="only-problems">', warned) and "Show only lines with problems (1)" in warned
    assert 'id="only-problems"' not in body(post(client, LEGAL))


@pytest.mark.slow
def test_counts_table_agrees_with_the_export(client):
    page = body(post(client, FIXABLE))
    table = dict(re.findall(r'<tr><th scope="row">([^<]+)</th><td>(\d+)</td></tr>', page))
    export = html.unescape(re.search(r'<textarea id="export"[^>]*>(.*?)</textarea>', page, re.DOTALL).group(1))
    headers = dict(re.findall(r"^(Pokémon|Trainer|Energy): (\d+)$", export, re.MULTILINE))
    assert headers == table == {"Pokémon": "19", "Trainer": "32", "Energy": "10"}
    assert "Including 4 cards not recognised" in page


def test_header_notes():
    assert header_notes(LEGAL) == {}  # PTCGL's line counts
    assert header_notes(LEGAL.replace("Pokémon: 9", "Pokémon: 19")) == {}  # Limitless's card counts
    assert header_notes(LEGAL.replace("Trainer: 13", "Trainer: 32")) == {
        12: "This header says 32, but the Trainer section under it has 31 cards on 13 lines."
    }
    assert header_notes('{"cards": []}') == {}


def test_header_note_is_shown_on_its_line(client):
    page = body(post(client, LEGAL.replace("Trainer: 13", "Trainer: 32")))
    row = page[page.index('id="line-12"') :]
    row = row[: row.index("</li>")]
    assert "This header says 32, but the Trainer section under it has 31 cards on 13 lines." in row
    assert "is-flagged" in page[page.index('id="line-12"') - 200 : page.index('id="line-12"') + 200]


def test_date_field_is_a_date_field(client):
    """The browser's date picker (no pattern: the server reads YYYY-MM-DD and YYYYMMDD alike)."""
    page = body(client.get("/"))
    field = re.search(r'<input type="date" id="as_of"[^>]*>', page, re.DOTALL).group(0)
    assert "pattern=" not in field and 'name="as_of"' in field


# -- card images -------------------------------------------------------------------------------


def test_images_with_alt_text_size_and_lazy_loading(client):
    page = body(post(client, LEGAL))
    images = re.findall(r"<img [^>]*>", page)
    assert len(images) == 25
    assert (
        '<img class="tile-img" src="https://assets.tcgdex.net/en/sv/sv06/128/low.webp" alt="Dreepy (TWM 128)" '
        'width="245" height="337" loading="lazy" decoding="async">'
    ) in images
    assert re.search(r'id="view-cards" value="cards" checked>', page)


def test_images_off(app):
    off = create_app({"TESTING": True, "CARD_IMAGES": False})
    resp = post(off.test_client(), LEGAL)
    assert "<img" not in body(resp) and re.search(r'id="view-text" value="text" checked>', body(resp))
    assert "img-src 'self';" in resp.headers["Content-Security-Policy"]
    assert "img-src 'self';" in page_headers({"CARD_IMAGES": "off"})["Content-Security-Policy"]


def test_image_host_setting():
    csp = page_headers({"CARD_IMAGE_HOST": "http://127.0.0.1:8080/"})["Content-Security-Policy"]
    assert "img-src 'self' http://127.0.0.1:8080;" in csp
    for bad in ("https://x.test/path", "x.test", "https://a.test; script-src *"):
        with pytest.raises(ValueError):
            page_headers({"CARD_IMAGE_HOST": bad})


def test_image_url(db):
    card = db.find("SVI", "181")
    assert image_url(card, db, "https://h.test") == "https://h.test/en/sv/sv01/181/low.webp"
    assert image_url(card, db, None) is None and image_url(None, db, "https://h.test") is None
    only_ptcgio = next(c for c in db.cards.values() if c.id.startswith("ptcgio:"))
    assert only_ptcgio.image_id is None and image_url(only_ptcgio, db, "https://h.test") is None


def test_problem_shows_the_cards_it_is_about(client):
    page = body(post(client, LEGAL.replace("1 Budew PRE 4", "1 Budew PRE 99")))  # the card of PRE 99
    problem = page[page.index('id="problem-1"') :]
    problem = problem[: problem.index("</li>")]
    assert (
        '<a href="#card-9"><img class="problem-card" src="https://assets.tcgdex.net/en/sv/sv08.5/099/low.webp" '
        'alt="Black Belt&#39;s Training (PRE 99)"'
    ) in problem


def test_fix_links_are_bounded(client):
    """Each fix link carries the whole list: past MAX_FIX_LINKS a fix is a button for the script."""
    from deckcheck.service.web import MAX_FIX_LINKS

    page = body(post(client, "".join(f"1 Ultra Bal {n}\n" for n in range(MAX_FIX_LINKS + 10))))
    assert len(set(re.findall(r'<a class="fix" href="([^"]+)"', page))) == MAX_FIX_LINKS
    assert (
        len(set(re.findall(r'<button type="button" class="fix button--link" data-edits="([^"]+)" hidden>', page))) > 0
    )


@pytest.mark.parametrize(
    "text, json",
    [
        ('{"cards": []}', True),
        ('\ufeff  [{"count": 1}]', True),
        ('Here:\n```\n{"cards": []}\n```\n', True),
        ("4 Nest Ball SVI 181\n", False),
        ("```\n4 Nest Ball SVI 181\n```\n", False),
        ("[Trainer]\n", False),
    ],
)
def test_is_json_deck_follows_the_parser(text, json):
    from deckcheck.decklist.parse import parse
    from deckcheck.service.deckview import is_json_deck

    assert is_json_deck(text) is json
    assert (parse(text).source == "json") is json


def test_the_page_shows_translated_names_as_written_and_stays_english(client):
    german = (DECKS / "rules" / "de-names.txt").read_text(encoding="utf-8")
    page = body(post(client, german))
    tiles = [html.unescape(t) for t in re.findall(r'<span class="tile-name">([^<]*)</span>', page)]
    assert tiles[:3] == ["Grolldra (Dreepy)", "Phandra (Drakloak)", "Katapuldra-ex (Dragapult ex)"]
    assert "Energy Switch" in tiles  # a card whose German name is the English one: as it is
    assert summary(page) == "Not valid for Standard on 2026-05-01: 61 cards, 3 errors."
    assert "Card names were recognised in German on 21 lines" in html.unescape(page)
