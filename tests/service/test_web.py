"""The web page at / through the Flask test client: form, result, share links, limits, safety."""

from __future__ import annotations

import base64
import html
import re
import zlib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import SHIPPED_FORMATS

from deckcheck.decklist.parse import count_lines
from deckcheck.service.web import SECURITY_HEADERS, InputError, decode_deck, encode_deck, page_headers

DECKS = Path(__file__).resolve().parent.parent / "decks"

DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https://assets.tcgdex.net; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def post(client, decklist, format="standard", as_of=DATE):
    return client.post("/", data={"decklist": decklist, "format": format, "as_of": as_of})


def page(resp) -> str:
    return resp.get_data(as_text=True)


def element(body: str, element_id: str) -> str:
    """The opening tag and text of the element with this id, up to its matching <li>/<section> end (rough)."""
    start = body.index(f'id="{element_id}"')
    start = body.rindex("<", 0, start)
    tag = re.match(r"<(\w+)", body[start:]).group(1)
    return body[start : body.index(f"</{tag}>", start)]


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def share_href(body: str) -> str:
    return html.unescape(re.search(r'id="share-link" href="([^"]+)"', body).group(1))


# -- the form -----------------------------------------------------------------


def test_form_renders_with_labels_and_assets(client):
    resp = client.get("/")
    assert resp.status_code == 200
    body = page(resp)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in body
    assert '<html lang="en">' in body
    for control in ("decklist", "format", "as_of"):
        assert f'<label for="{control}">' in body
        assert f'id="{control}" name="{control}"' in body
    for fmt in SHIPPED_FORMATS:
        assert f'<option value="{fmt}"' in body
    assert re.search(r'<option value="standard"[^>]* selected>', body)
    assert 'href="#decklist"' in body and "Skip to the decklist" in body
    assert 'type="submit"' in body and ">Validate<" in body
    assert 'id="verdict"' not in body
    # every asset is served by the app: no CDN, no inline script or style
    for src in re.findall(r'(?:src|href)="([^"#]+)"', body):
        assert src.startswith("/"), src
    assert "<script>" not in body and "style=" not in body and "<style" not in body
    for asset in ("/static/deckcheck.css", "/static/deckcheck.js", "/static/favicon.svg"):
        assert asset in body
        got = client.get(asset)
        assert got.status_code == 200 and got.data


@pytest.mark.slow
def test_security_headers_on_pages_and_assets(client):
    for resp in (client.get("/"), post(client, LEGAL), client.get("/static/deckcheck.js"), client.get("/nowhere")):
        assert resp.headers["Content-Security-Policy"] == CSP
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "same-origin"
    assert page_headers({})["Content-Security-Policy"] == CSP
    assert SECURITY_HEADERS["X-Content-Type-Options"] == "nosniff"


def test_api_paths_keep_their_own_headers(client):
    assert "Content-Security-Policy" not in client.get("/api/v1/nowhere").headers


def test_script_never_uses_inner_html():
    js = (DECKS.parent.parent / "deckcheck" / "service" / "static" / "deckcheck.js").read_text(encoding="utf-8")
    assert "innerHTML" not in js and "outerHTML" not in js and "insertAdjacentHTML" not in js
    assert "document.write" not in js and "eval(" not in js
    # the one HTML it parses is the server's result template, answered by POST /extras
    assert js.count("parseFromString") == 1 and "parseFromString(answer.html" in js


# -- results ------------------------------------------------------------------


def test_post_legal_deck(client):
    resp = post(client, LEGAL)
    assert resp.status_code == 200
    body = page(resp)
    verdict = element(body, "verdict")
    assert 'data-valid="true"' in verdict and "autofocus" in verdict and 'tabindex="-1"' in verdict
    assert text_of(verdict) == "✓ Valid Valid for Standard on 2026-05-01: 60 cards. Print the deck registration sheet"
    assert "No problems found." in body
    # every card line is marked legal, with its resolved name and set
    assert body.count("status status--legal") == 25
    assert "Dragapult ex (TWM 130)" in text_of(element(body, "line-4"))
    # counts and the opening hand (10 Basics in 60: the rules guide's 74.1%)
    assert re.search(r"<th scope=\"row\">Total</th><td>60</td>", body)
    assert "74.1%" in text_of(element(body, "odds")) and "10 Basic Pokémon in 60 cards" in body
    # the form keeps what was sent
    assert 'value="2026-05-01"' in body and html.escape("4 Dreepy TWM 128", quote=False) in body
    assert 'action="/#verdict"' in body


def test_post_illegal_deck_marks_lines_and_groups_problems(client):
    body = page(post(client, CHARIZARD))
    verdict = element(body, "verdict")
    assert 'data-valid="false"' in verdict and "Not valid for Standard on 2026-05-01" in text_of(verdict)
    assert "Errors (14)" in body
    iono = text_of(element(body, "line-22"))
    assert "3 Iono PAL 185" in iono and "Not legal" in iono and "Iono (PAL 185)" in iono and "R201" in iono
    # the problem links to its line and the line links back to the problem
    problem_id = re.search(r'<a class="badge badge--error" href="#(problem-\d+)">', element(body, "line-22")).group(1)
    assert 'href="#line-22">line 22</a>' in element(body, problem_id)
    # a legal reprint is named (which one is the engine's choice)
    assert re.search(r"legal as Boss&#39;s Orders \([A-Z]+ \d+\)", element(body, "line-20"))


def test_unparsed_line_and_headers_are_echoed(client):
    body = page(post(client, "Dresseur : 1\n4 Iono PAL 185\n\nRandom line at the end\n"))
    last = text_of(element(body, "line-4"))
    assert "Random line at the end" in last and "Not a card line" in last and "P101" in last
    assert text_of(element(body, "line-1")) == "Line 1 Dresseur : 1"
    assert 'id="line-3"' not in body  # blank lines are not echoed


def test_unknown_card_shows_suggestions(client):
    body = page(post(client, "4 Pikachuu\n"))
    row = text_of(element(body, "line-1"))
    assert "Unknown card" in row and "Did you mean Pikachu" in row


def test_json_deck_echoes_entries(client):
    deck = '{"cards": [{"count": 4, "name": "Iono", "set": "PAL", "number": "185"}, {"count": 0, "name": "x"}]}'
    body = page(post(client, deck))
    assert "Iono (PAL 185)" in text_of(element(body, "line-1"))
    assert 'id="line-2"' in body  # the broken entry is listed with its problem


def test_leading_blank_line_keeps_line_numbers(client):
    body = page(post(client, "\n4 Iono PAL 185\n"))
    assert "Iono (PAL 185)" in text_of(element(body, "line-2"))
    # the textarea starts with a newline the browser drops, so the blank first line survives
    assert re.search(r"required>\n\n4 Iono PAL 185", body)


def test_crlf_from_the_browser_is_the_same_list(client):
    a = page(post(client, CHARIZARD))
    b = page(post(client, CHARIZARD.replace("\n", "\r\n")))
    assert share_href(a) == share_href(b)


@pytest.mark.slow
def test_date_out_of_range_marks_lines_unchecked(client):
    body = page(post(client, LEGAL, as_of="2001-01-01"))
    assert "Legality not checked" in text_of(element(body, "line-2"))


# -- safety -------------------------------------------------------------------


def test_user_text_is_escaped(client):
    evil = '<script>alert(1)</script>\n4 <img src=x onerror=alert(2)> SVI 1\n"><b>bold</b>'
    resp = post(client, evil)
    assert resp.status_code == 200
    body = page(resp)
    assert "<script>alert(1)</script>" not in body
    assert "<img src=x" not in body and "<b>bold</b>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in element(body, "line-1")
    # the only script on the page is the app's own file
    assert re.findall(r"<script[^>]*>", body) == ['<script src="/static/deckcheck.js" defer>']


def test_hostile_format_and_date_are_escaped(client):
    body = page(post(client, LEGAL, format="<b>x</b>"))
    assert "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt;" in body
    body = page(post(client, LEGAL, as_of='"><script>'))
    assert '"><script>' not in body


# -- share links --------------------------------------------------------------


def test_share_link_round_trip(client):
    body = page(post(client, CHARIZARD, format="expanded"))
    href = share_href(body)
    query = parse_qs(urlsplit(href).query)
    assert query["format"] == ["expanded"] and query["as_of"] == [DATE]
    assert decode_deck(query["d"][0], 64 * 1024) == CHARIZARD
    assert len(href) < len(CHARIZARD)  # compact
    assert re.fullmatch(r"[A-Za-z0-9_-]+", query["d"][0])
    shown = client.get(href)
    assert shown.status_code == 200
    again = page(shown)
    assert text_of(element(again, "verdict")) == text_of(element(body, "verdict"))
    assert text_of(element(again, "line-22")) == text_of(element(body, "line-22"))
    assert re.search(r'<option value="expanded"[^>]* selected>', again)
    # the link is offered for copying: root-relative without PUBLIC_URL, never on the request's Host
    assert f'value="{html.escape(href)}"' in again


def test_share_link_pins_today(client):
    body = page(client.post("/", data={"decklist": LEGAL, "format": "standard", "as_of": ""}))
    as_of = parse_qs(urlsplit(share_href(body)).query)["as_of"][0]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", as_of)


def test_plain_deck_parameter(client):
    resp = client.get("/", query_string={"deck": LEGAL, "format": "standard", "as_of": DATE})
    assert resp.status_code == 200 and 'data-valid="true"' in page(resp)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "not base64!",
        "A",  # impossible base64 length
        base64.urlsafe_b64encode(b"plain bytes, not zlib").decode().rstrip("="),
        encode_deck(LEGAL)[:-12],  # truncated
        base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe not utf-8")).decode().rstrip("="),
        base64.urlsafe_b64encode(zlib.compress(b"x") + b"trailing").decode().rstrip("="),
    ],
)
def test_broken_share_link(client, token):
    resp = client.get("/", query_string={"d": token, "format": "standard"})
    assert resp.status_code == 400
    body = page(resp)
    assert "share link is broken" in body and 'role="alert"' in body
    assert 'id="decklist"' in body and 'id="verdict"' not in body


def test_share_link_that_inflates_too_far(client):
    bomb = base64.urlsafe_b64encode(zlib.compress(b"4 Iono PAL 185\n" * 100_000, 9)).decode().rstrip("=")
    assert len(bomb) < 4000
    resp = client.get("/", query_string={"d": bomb})
    assert resp.status_code == 413 and "larger than the 64 KiB" in page(resp)


def test_decode_deck_unit():
    assert decode_deck(encode_deck("4 Iono PAL 185\n"), 100) == "4 Iono PAL 185\n"
    with pytest.raises(InputError) as err:
        decode_deck(encode_deck("x" * 101), 100)
    assert err.value.status == 413


@pytest.mark.slow
def test_share_link_too_long_for_a_url(client):
    lines = "\n".join(f"1 Card number {i} with a long unique name {i * 7919} XYZ {i}" for i in range(900))
    body = page(post(client, lines))
    assert 'id="share-link"' not in body and "too long for a share link" in body
    assert 'data-valid="false"' in body  # the result itself is still shown


# -- input errors ----------------------------------------------------------------


def test_unknown_format(client):
    resp = post(client, LEGAL, format="modern")
    assert resp.status_code == 400
    body = page(resp)
    assert "“modern” is not a format this service knows" in body and "Standard, Expanded" in body
    assert 'id="decklist"' in body and "4 Dreepy TWM 128" in body


def test_bad_date(client):
    for bad in ("2026-13-01", "yesterday", "01/05/2026"):
        resp = post(client, LEGAL, as_of=bad)
        assert resp.status_code == 400, bad
        assert "is not a date" in page(resp) and "YYYY-MM-DD" in page(resp)


def test_bad_date_in_share_link(client):
    resp = client.get("/", query_string={"d": encode_deck(LEGAL), "as_of": "never"})
    assert resp.status_code == 400 and "is not a date" in page(resp)


def test_empty_decklist(client):
    resp = post(client, "  \n ")
    assert resp.status_code == 400 and "The decklist is empty" in page(resp)


def test_oversize_bytes(client):
    big = "4 Iono PAL 185 " + "x" * (64 * 1024)
    resp = post(client, big)
    assert resp.status_code == 413
    body = page(resp)
    assert "larger than the 64 KiB" in body and 'id="decklist"' in body and 'role="alert"' in body


@pytest.mark.slow
def test_oversize_lines(client):
    resp = post(client, "1 Iono PAL 185\n" * 1001)
    assert resp.status_code == 413 and "1,001 lines" in page(resp) and "at most 1,000" in page(resp)
    assert post(client, "1 Iono PAL 185\n" * 1000).status_code == 200


def test_oversize_body_is_refused_unread(client):
    resp = client.post("/", data={"decklist": "x" * (400 * 1024)})
    assert resp.status_code == 413
    assert "larger than the 64 KiB" in page(resp) and 'id="decklist"' in page(resp)


def test_count_lines():
    assert count_lines("") == 0
    assert count_lines("a") == 1
    assert count_lines("a\n") == 1
    assert count_lines("a\r\nb\rc\n\n") == 4


def test_get_preselects_format(client):
    assert re.search(r'<option value="glc"[^>]* selected>', page(client.get("/?format=glc")))


# -- the script's extras endpoint -------------------------------------------------


@pytest.mark.slow
def test_extras(client):
    resp = client.post("/extras", json={"decklist": LEGAL, "format": "standard", "as_of": DATE})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["export"].startswith("Pokémon: 19\n") and data["export"].endswith("Total Cards: 60\n")
    # the result as the page shows it: the same template as a submitted form
    assert (
        data["html"].lstrip().startswith('<section id="verdict"') and "Valid for Standard on 2026-05-01" in data["html"]
    )
    assert data["html"] in page(post(client, LEGAL))
    assert data["opening_hand"]["percent"] == "74.1%" and data["opening_hand"]["basics"] == 10
    assert data["share"]["path"].startswith("/?d=")
    assert decode_deck(parse_qs(urlsplit(data["share"]["path"]).query)["d"][0], 65536) == LEGAL
    assert resp.headers["Content-Security-Policy"] == CSP
    via = client.post("/extras", json={"decklist": CHARIZARD, "as_of": DATE}).get_json()["legal_via"]
    assert re.fullmatch(r"Boss's Orders \([A-Z]+ \d+\)", via["20"])


@pytest.mark.parametrize(
    "body, status, words",
    [
        (None, 400, "not valid JSON: Expecting value at line 1, column 1"),
        ({"decklist": "x" * 300_000}, 413, "64 KiB"),  # past MAX_CONTENT_LENGTH or the page's own cut-off
        ({"decklist": 5}, 400, "JSON object"),
        ({"decklist": LEGAL, "format": 3}, 400, "must be strings"),
        ({"decklist": LEGAL, "format": "nope"}, 400, "not a format"),
        ({"decklist": LEGAL, "as_of": "2026-02-30"}, 400, "not a date"),
        ({"decklist": "x" * 70_000}, 413, "64 KiB"),
    ],
)
def test_extras_errors(client, body, status, words):
    resp = client.post("/extras", json=body) if body is not None else client.post("/extras", data="nope")
    assert resp.status_code == status
    assert words in resp.get_json()["error"]


class _FailingInput:
    """A WSGI input whose every read raises ``fault`` (a server's chunk decoder failing, a stalled body)."""

    def __init__(self, fault: Exception) -> None:
        self.fault = fault

    def read(self, *args):
        raise self.fault

    readline = read


def _stalled():
    from werkzeug.exceptions import RequestTimeout

    return RequestTimeout("The request body stalled for 10 seconds: the request was abandoned.")


@pytest.mark.parametrize(
    "fault, headers, status, said",
    [
        (_stalled, {"Transfer-Encoding": "chunked"}, 408, "The request body stalled for 10 seconds"),
        (
            lambda: ValueError("Invalid chunk size: b'zz'"),
            {"Transfer-Encoding": "chunked"},
            400,
            "The request body could not be read: its chunked transfer coding is malformed (Invalid chunk size: b'zz').",
        ),
        (
            None,
            {"Content-Encoding": "br"},
            415,
            "The request body has Content-Encoding 'br', which this service does not accept",
        ),
    ],
    ids=["stalled", "malformed-chunks", "encoded"],
)
@pytest.mark.parametrize("route", ["/extras", "/"])
def test_a_body_that_cannot_be_read_is_worded_by_what_happened_not_as_too_big(
    client, route, fault, headers, status, said
):
    body = b'{"decklist": "4 Nest Ball SVI 181"}' if route == "/extras" else b"decklist=4+Nest+Ball+SVI+181"
    overrides = {"wsgi.input": _FailingInput(fault())} if fault else {}
    resp = client.post(
        route,
        data=body,
        headers=headers,
        content_type="application/json" if route == "/extras" else "application/x-www-form-urlencoded",
        environ_overrides={**overrides, "wsgi.input_terminated": True},
    )
    assert resp.status_code == status
    message = resp.get_json()["error"] if route == "/extras" else html.unescape(page(resp))
    assert said in message
    assert "larger than" not in message
    assert resp.headers["Connection"] == "close"  # the rest of the body is unread or unreadable


@pytest.mark.parametrize("extra", [{"zap": 1}, {"Decklist": "x"}, {"forecast": True, "style": "chat"}])
def test_extras_refuses_an_unknown_field_as_the_api_does(client, extra):
    body = {"decklist": LEGAL, "as_of": DATE, **extra}
    api = client.post("/api/v1/validate", json=body).get_json()["error"]["message"]
    resp = client.post("/extras", json=body)
    assert resp.status_code == 422
    assert resp.get_json() == {"error": api}
    (unknown,) = [name for name in extra if name != "forecast"]
    assert api == f"Invalid request: {unknown}: Unknown field; the fields are decklist, format, as_of and forecast."


@pytest.mark.parametrize(
    "raw",
    [b"[" * 50_000 + b"]" * 50_000, b'{"decklist": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"],
    ids=["array", "in-object"],
)
def test_extras_refuses_json_nested_too_deeply_to_read(client, raw):
    # 100 KB: under the body limit, but past the JSON reader's recursion limit (it was a 500)
    resp = client.post("/extras", data=raw, content_type="application/json")
    assert resp.status_code == 400
    assert resp.get_json() == {"error": "The request body nests JSON arrays or objects too deeply to read."}


@pytest.mark.slow
def test_footer_names_the_card_data_in_use(client, db):
    """Every page says how far the card data goes (issue 19): a newer set is unknown to it."""
    for resp in (client.get("/"), post(client, "4 Pikachu ex ZZZ 57\n")):
        footer = text_of(page(resp).split('<p class="card-data">', 1)[1].split("</p>", 1)[0])
        assert footer == (
            f"Card data up to Pitch Black, 2026-07-17 (database {db.version}, built {db.meta['built_at'][:10]})."
        )


# -- links never on the Host header (issue 27, row 11) ---------------------------------------------

EVIL = "http://evil.example"


@pytest.mark.parametrize("public_url", [None, "https://decks.example.org"])
def test_links_are_on_public_url_never_on_the_host_header(db, public_url):
    from nacl.signing import SigningKey

    from deckcheck import create_app

    key = SigningKey.generate()
    app = create_app(
        {
            "TESTING": True,
            "RATELIMIT_ENABLED": False,
            "PUBLIC_URL": public_url,
            "DISCORD_PUBLIC_KEY": key.verify_key.encode().hex(),
        }
    )
    client = app.test_client()
    bad = CHARIZARD + "\n".join(f"1 Unknown Card {i}" for i in range(40))  # a long reply: the link is offered
    answers = {
        "page": client.post("/", data={"decklist": LEGAL, "as_of": DATE}, base_url=EVIL),
        "extras": client.post("/extras", json={"decklist": LEGAL, "as_of": DATE}, base_url=EVIL),
        "chat": client.post("/api/v1/validate?style=chat", json={"decklist": bad, "as_of": DATE}, base_url=EVIL),
        "static": client.get("/static//deckcheck.css", base_url=EVIL),
    }
    import json as _json
    import time as _time

    body = _json.dumps(
        {
            "type": 2,
            "id": "1",
            "member": {"user": {"id": "5"}},
            "data": {"name": "decklist", "type": 1, "options": [{"name": "list", "type": 3, "value": bad}]},
        }
    ).encode()
    stamp = str(int(_time.time()))
    answers["discord"] = client.post(
        "/api/v1/discord/interactions",
        data=body,
        base_url=EVIL,
        headers={
            "X-Signature-Ed25519": key.sign(stamp.encode() + body).signature.hex(),
            "X-Signature-Timestamp": stamp,
            "Content-Type": "application/json",
        },
    )
    for name, resp in answers.items():
        assert "evil.example" not in resp.get_data(as_text=True) + str(resp.headers), name
    assert answers["static"].status_code == 308
    assert answers["static"].headers["Location"] == (public_url or "") + "/static/deckcheck.css"
    share = answers["extras"].get_json()["share"]
    assert share["url"] == (public_url or "") + share["path"]
    assert f'value="{html.escape(share["url"])}"' in page(answers["page"])
    chat = answers["chat"].get_json()["chat"]
    embed = answers["discord"].get_json()["data"]["embeds"][0]
    if public_url:
        assert f"{public_url}/?d=" in chat and embed["url"].startswith(f"{public_url}/?d=")
    else:  # no absolute link to give: none rather than one on a host the client chose
        assert "/?d=" not in chat and "url" not in embed


@pytest.mark.parametrize(
    "value",
    [
        "decks.example.org",
        "ftp://decks.example.org",
        "https://",
        "https://a b",
        "https://x.org/?q=1",
        "https://user@x.org",
        "https://x.org:99999",
        "javascript:alert(1)",
    ],
)
def test_a_public_url_that_is_no_base_url_stops_the_app_at_start_up(value):
    from deckcheck import create_app

    with pytest.raises(ValueError, match="is not a public base URL such as https://decks.example.org"):
        create_app({"TESTING": True, "PUBLIC_URL": value})


def test_the_old_name_of_the_public_url_is_refused(monkeypatch):
    from deckcheck import create_app

    monkeypatch.setenv("DECKCHECK_PUBLIC_BASE_URL", "https://decks.example.org")
    with pytest.raises(ValueError, match="set DECKCHECK_PUBLIC_URL instead"):
        create_app({"TESTING": True})


# -- a bounded answer (issue 27, row 12) --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1 a\n" * 1000,
        "".join(f"1 a{i}\n" for i in range(1000)),
        "4 Nest Ball SVI 181\n" * 1000,
        "x\n" * 1000,
        "".join(f"1 {'ab ' * 200}{i}\n" for i in range(100)),
    ],
    ids=["1-a", "distinct", "legal", "unread", "long-lines"],
)
def test_extras_answers_a_page_of_the_result_whatever_the_list(client, text):
    """1,000 lines of "1 a" (4 KB) made a 1.95 MB answer: at most MAX_SHOWN_* things are rendered, the
    rest counted; the answer stays under 512 KB (the request's own text echoed, once or twice, included)."""
    from deckcheck.service import web

    resp = client.post("/extras", json={"decklist": text, "as_of": DATE})
    assert resp.status_code == 200
    assert len(resp.data) < 512 * 1024
    result = resp.get_json()["html"]
    assert result.count('<li id="problem-') <= web.MAX_SHOWN_PROBLEMS + web.MAX_SHOWN_NOTES
    assert result.count('<li id="line-') <= web.MAX_SHOWN_LINES
    assert result.count('<li id="card-') <= web.MAX_SHOWN_LINES
    lines = count_lines(text)
    if lines > web.MAX_SHOWN_LINES:
        assert f"{lines - web.MAX_SHOWN_LINES} more lines of the list not shown (the first 100 are)." in result


def test_the_readme_states_the_page_s_caps_once_and_as_the_code_has_them():
    """One truth: the README gives the caps of a page of the result in one place, the numbers of
    deckcheck/service/webresult.py, and nowhere else a number of lines or problems the page lists."""
    from deckcheck.service import webresult

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    stated = re.search(
        r"renders at most \*\*(\d+)\*\* errors and warnings, \*\*(\d+)\*\* notes, \*\*(\d+)\*\* lines of the list"
        r".*? and \*\*(\d+)\*\* line links per problem",
        text,
    )
    assert stated is not None
    assert tuple(int(n) for n in stated.groups()) == (
        webresult.MAX_SHOWN_PROBLEMS,
        webresult.MAX_SHOWN_NOTES,
        webresult.MAX_SHOWN_LINES,
        webresult.MAX_LINE_LINKS,
    )
    elsewhere = re.findall(r"(?:lists|shows|renders) at most \**[\d,]+\**(?: \w+)* (?:lines|problems)", text)
    assert elsewhere == [], elsewhere


def test_the_result_says_how_many_problems_are_not_shown(client):
    from deckcheck.service import web

    text = "1 a\n" * 1000
    result = client.post("/extras", json={"decklist": text, "as_of": DATE}).get_json()["html"]
    errors = sum(
        p["severity"] == "error"
        for p in client.post("/api/v1/validate", json={"decklist": text, "as_of": DATE}).get_json()["problems"]
    )
    assert errors > 1000
    assert f'<h3 class="severity-heading">Errors ({errors})</h3>' in result
    assert f"{errors - web.MAX_SHOWN_PROBLEMS} more errors not shown: fix these first" in result
    assert result.count('<li id="problem-') == web.MAX_SHOWN_PROBLEMS
