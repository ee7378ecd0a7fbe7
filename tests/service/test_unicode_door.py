"""Text is valid Unicode at the door: every route that takes text, and ``deckcheck check`` in every output
format, given arbitrary code points (lone surrogates included, raw or as a JSON deck's ``\\ud800`` escape).

Each edge checks its text once (:func:`deckcheck.decklist.validtext.not_unicode`, and the strict JSON reader of
request bodies, :mod:`deckcheck.service.jsonbody`): the API answers 400/422 in its error envelope, the page
and ``/extras`` say where, Discord replies to the user, the CLI reports P104 on the line. Never a 5xx, never a
traceback. Before, a JSON deck holding ``\\ud800`` was a 500 on every route that checks (issue 27, row 1).
"""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from conftest import UNTHROTTLED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_discord import PUBLIC, signed

from deckcheck import create_app
from deckcheck.cli.group import cli as main
from deckcheck.decklist.validtext import not_unicode
from deckcheck.render import OUTPUT_FORMATS

#: every code point, surrogates (category Cs) included
ANY_CHAR = st.characters(exclude_categories=())
#: pieces that make the interesting cases likely: escapes of surrogates (lone, paired, escaped backslash)
PIECES = st.sampled_from(
    ["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\\\ud800", "\ud800", "\udc80", "😀", "é", "\n", "\r\n", '"', "4 "]
)
TEXT = st.lists(st.one_of(ANY_CHAR, PIECES), max_size=12).map("".join)
LINE = st.builds(lambda count, name: f"{count} {name}", st.integers(1, 4), TEXT)
#: a decklist: text lines, or a JSON deck whose names (written with json.dumps: a surrogate as its escape)
#: and raw text may hold anything
DECKLIST = st.one_of(
    st.lists(LINE, max_size=4).map("\n".join),
    st.lists(TEXT, min_size=1, max_size=3).map(
        lambda names: json.dumps({"cards": [{"count": 4, "name": n} for n in names]})
    ),
    st.builds(lambda a, b: '{"cards":[{"count":4,"name":"' + a + '"}]}' + b, TEXT, TEXT),
    TEXT,
)
SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
JSON_DECK = '{"cards":[{"count":4,"name":"\\ud800"}]}'
WHERE = "Line 1, column 30 holds the JSON escape \\ud800, a lone surrogate"


@pytest.fixture(scope="module")
def client():
    app = create_app({"TESTING": False, "RATELIMIT_DEFAULT": UNTHROTTLED, "DISCORD_PUBLIC_KEY": PUBLIC})
    app.config.update(DISCORD_RATELIMIT=UNTHROTTLED)
    return app.test_client()


def raw(text: str) -> bytes:
    """The text's bytes as a hostile client sends them: a surrogate as its (invalid) UTF-8 bytes."""
    return text.encode("utf-8", "surrogatepass")


def not_text(deck: str, *options: str | None) -> bool:
    """Whether a decklist (or a JSON deck in it) or an option, sent in a JSON body, holds a lone surrogate: what
    the door refuses. (Two surrogates side by side are a pair once written as JSON escapes: one character.)"""
    return not_unicode(deck) is not None or not_unicode(json.dumps(options), json=True) is not None


def envelope_error(resp) -> dict:
    assert resp.status_code < 500, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == "application/json"
    if resp.status_code < 400:
        return {}
    error = resp.get_json()["error"]
    assert error["code"] and error["message"]
    return error


# -- the API -------------------------------------------------------------------------------


@SETTINGS
@given(deck=DECKLIST, fmt=st.one_of(st.none(), TEXT), as_of=st.one_of(st.none(), TEXT), style=st.booleans())
def test_validate_json_never_5xx_and_refuses_what_is_not_unicode(client, deck, fmt, as_of, style):
    body = json.dumps({"decklist": deck, "format": fmt, "as_of": as_of})  # a surrogate: its \\u escape
    resp = client.post(
        "/api/v1/validate" + ("?style=chat" if style else ""), data=body, content_type="application/json"
    )
    error = envelope_error(resp)
    if not_unicode(body, json=True):  # a surrogate in the body itself: refused before anything reads it
        assert resp.status_code == 422 and "lone surrogate" in error["message"]
        assert set(error["details"]) == {"line", "column", "code_point"}
    elif not_text(deck):  # in the JSON deck the decklist holds: refused before the check (or a field's 422 first)
        assert resp.status_code == 422
        assert "lone surrogate" in error["message"] or error["message"].startswith("Invalid request: ")


@SETTINGS
@given(deck=DECKLIST, style=st.booleans())
def test_validate_text_never_5xx_and_refuses_what_is_not_unicode(client, deck, style):
    resp = client.post("/api/v1/validate" + ("?style=chat" if style else ""), data=raw(deck), content_type="text/plain")
    error = envelope_error(resp)
    if not_text(deck):
        assert resp.status_code in (400, 422)
        assert "not valid UTF-8" in error["message"] or "lone surrogate" in error["message"]


@SETTINGS
@given(q=TEXT, set_code=TEXT, number=TEXT, format_id=TEXT)
def test_lookups_never_5xx(client, q, set_code, number, format_id):
    query = f"q={quote(raw(q))}&set={quote(raw(set_code))}&number={quote(raw(number))}"
    envelope_error(client.get("/api/v1/cards", query_string=query))
    envelope_error(client.get("/api/v1/formats/" + quote(raw(format_id), safe="")))
    envelope_error(client.get("/api/v1/formats", query_string=query))


@pytest.mark.parametrize("style", ["", "?style=chat"])
def test_the_reported_json_deck_is_a_422_that_says_where(client, style):
    for resp in (
        client.post("/api/v1/validate" + style, json={"decklist": JSON_DECK}),
        client.post("/api/v1/validate" + style, data=JSON_DECK, content_type="text/plain"),
    ):
        assert resp.status_code == 422
        assert resp.get_json()["error"]["message"].startswith("The decklist is not valid Unicode text. " + WHERE)
        assert resp.get_json()["error"]["details"] == {"line": 1, "column": 30, "code_point": "U+D800"}


# -- the page and /extras ------------------------------------------------------------------


@SETTINGS
@given(deck=DECKLIST, fmt=st.one_of(st.none(), TEXT), as_of=st.one_of(st.none(), TEXT))
def test_extras_never_5xx_and_refuses_what_is_not_unicode(client, deck, fmt, as_of):
    resp = client.post(
        "/extras", data=json.dumps({"decklist": deck, "format": fmt, "as_of": as_of}), content_type="application/json"
    )
    assert resp.status_code < 500 and resp.mimetype == "application/json"
    if not_text(deck, fmt, as_of):
        assert resp.status_code == 422 and "lone surrogate" in resp.get_json()["error"]


@SETTINGS
@given(deck=DECKLIST, fmt=TEXT, as_of=TEXT, way=st.sampled_from(["form", "deck", "d"]))
def test_the_page_never_5xx(client, deck, fmt, as_of, way):
    options = f"format={quote(raw(fmt))}&as_of={quote(raw(as_of))}"
    if way == "form":
        resp = client.post(
            "/",
            data=f"decklist={quote(raw(deck))}&{options}",
            content_type="application/x-www-form-urlencoded",
        )
    elif way == "deck":
        resp = client.get("/", query_string=f"deck={quote(raw(deck))}&{options}")
    else:
        token = base64.urlsafe_b64encode(zlib.compress(raw(deck))).rstrip(b"=").decode()
        resp = client.get("/", query_string=f"d={token}&{options}")
    assert resp.status_code < 500 and resp.mimetype == "text/html"


@pytest.mark.parametrize("way", ["form", "deck", "d", "extras"])
def test_the_reported_json_deck_is_refused_on_the_page_saying_where(client, way):
    if way == "form":
        resp = client.post("/", data={"decklist": JSON_DECK})
    elif way == "deck":
        resp = client.get("/", query_string={"deck": JSON_DECK})
    elif way == "d":
        token = base64.urlsafe_b64encode(zlib.compress(JSON_DECK.encode())).rstrip(b"=").decode()
        resp = client.get("/", query_string={"d": token})
    else:
        resp = client.post("/extras", json={"decklist": JSON_DECK})
    assert resp.status_code == 422
    assert WHERE in (resp.get_json()["error"] if way == "extras" else resp.get_data(as_text=True))


@pytest.mark.parametrize("field", ["decklist", "format", "as_of"])
def test_extras_refuses_a_lone_surrogate_in_any_field(client, field):
    body = {"decklist": "4 Nest Ball SVI 181", field: "\ud800"}
    resp = client.post("/extras", data=json.dumps(body), content_type="application/json")
    assert resp.status_code == 422
    assert "holds the JSON escape \\ud800, a lone surrogate" in resp.get_json()["error"]


# -- Discord ------------------------------------------------------------------------------

IDS = iter(range(10**9, 2 * 10**9))


def interaction(options: dict) -> bytes:
    data = {
        "id": "9",
        "name": "decklist",
        "type": 1,
        "options": [{"name": n, "type": 3, "value": v} for n, v in options.items()],
    }
    return json.dumps({"type": 2, "id": str(next(IDS)), "member": {"user": {"id": "7"}}, "data": data}).encode()


@SETTINGS
@given(deck=DECKLIST, fmt=st.one_of(st.none(), TEXT), date=st.one_of(st.none(), TEXT))
def test_discord_never_5xx_and_answers_the_user(client, deck, fmt, date):
    options = {"list": deck, **({"format": fmt} if fmt is not None else {}), **({"date": date} if date else {})}
    body = interaction(options)
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body))
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    answer = resp.get_json()
    assert answer["type"] in (4, 9)
    if not_unicode(body.decode(), json=True):  # in the interaction itself: nothing else is read
        assert answer["data"]["flags"] == 64 and "lone surrogate" in answer["data"]["content"]
    elif not_text(deck):  # in the list's JSON deck: a note to the user (a bad option's first)
        assert answer["data"]["flags"] == 64


@pytest.mark.parametrize(
    "listed, where",
    [
        ("4 Nest Ball SVI 181\n2 Ultra Ball SVI 19\ud800", "Line 2, column 20 holds U+D800"),
        ("```\n4 Nest Ball SVI 181\n\udc00 Iono PAL 185\n```", "Line 2, column 1 holds U+DC00"),
        ("Pokémon: 1 4 Pikachu ex SSP 57 Trainer: 1 4 Nest Ball SVI 181\ud800", "Line 4, column 20 holds U+D800"),
    ],
    ids=["lines", "code-block", "one-line"],
)
def test_discord_names_the_line_and_column_of_the_list_holding_a_lone_surrogate(client, listed, where):
    # the list as answer() reads it (out of its code block, split back into lines), not the interaction's JSON
    body = interaction({"list": listed})
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body))
    assert resp.status_code == 200
    content = resp.get_json()["data"]["content"]
    assert content.startswith(f"This decklist is not valid Unicode text. {where}, a lone surrogate"), content


@pytest.mark.parametrize("kind", ["modal", "message"])
def test_discord_names_the_line_of_a_form_or_message_list_holding_a_lone_surrogate(client, kind):
    listed = "4 Nest Ball SVI 181\n3 Iono\ud800 PAL 185"
    if kind == "modal":
        row = {"type": 1, "components": [{"type": 4, "custom_id": "list", "value": listed}]}
        data = {"custom_id": "decklist|standard|", "components": [row]}
        shape = {"type": 5, "id": str(next(IDS)), "member": {"user": {"id": "7"}}, "data": data}
    else:
        message = {"id": "5", "content": listed}
        data = {
            "id": "9",
            "name": "Check decklist",
            "type": 3,
            "target_id": "5",
            "resolved": {"messages": {"5": message}},
        }
        shape = {"type": 2, "id": str(next(IDS)), "member": {"user": {"id": "7"}}, "data": data}
    body = json.dumps(shape).encode()
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body))
    content = resp.get_json()["data"]["content"]
    assert content.startswith("This decklist is not valid Unicode text. Line 2, column 7 holds U+D800"), content


@pytest.mark.parametrize("option", ["format", "date"])
def test_discord_replies_that_an_option_is_not_unicode(client, option):
    body = interaction({"list": "4 Nest Ball SVI 181", option: "\ud800"})
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body))
    assert resp.status_code == 200
    content = resp.get_json()["data"]["content"]
    assert content.startswith("The interaction is not valid Unicode text. Line 1, column ")
    assert "holds the JSON escape \\\\ud800, a lone surrogate" in content  # markdown-escaped backslash


@pytest.mark.parametrize("timestamp", ["1" + "0" * 400, "-1" + "0" * 400, "1e400", "NaN", "inf"])
def test_discord_refuses_a_timestamp_no_clock_holds(client, timestamp):
    body = interaction({"list": "4 Nest Ball SVI 181"})
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body, timestamp))
    assert resp.status_code == 401
    assert resp.get_json()["error"]["message"] == "X-Signature-Timestamp is not a Unix time in seconds."


@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity", "1" + "0" * 400])
def test_discord_refuses_a_number_past_a_double_in_any_field(client, number):
    body = interaction({"list": "4 Nest Ball SVI 181"}).replace(b'"type": 1,', f'"type": {number},'.encode(), 1)
    resp = client.post("/api/v1/discord/interactions", data=body, headers=signed(body))
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"].startswith("The interaction is not JSON this service reads: ")


# -- the command line ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli():
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(deck=DECKLIST)
def test_check_never_crashes_in_any_output_format(cli, db, tmp_path_factory, output_format, deck):
    folder = tmp_path_factory.mktemp("decks")
    (folder / "deck.json").write_bytes(raw(deck))
    result = cli.invoke(main, ["check", "--output-format", output_format, str(folder / "deck.json")])
    assert result.exit_code in (0, 1), (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    if output_format in ("json", "sarif"):
        json.loads(result.stdout)
    if output_format == "jsonl":
        for line in result.stdout.splitlines():
            json.loads(line)
    if not_text(deck):
        assert result.exit_code == 1


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
def test_check_reports_the_json_deck_s_lone_surrogate_on_its_line(cli, db, tmp_path, output_format):
    (tmp_path / "deck.json").write_text(JSON_DECK, encoding="utf-8")
    result = cli.invoke(main, ["check", "--output-format", output_format, str(tmp_path / "deck.json")])
    assert result.exit_code == 1, (result.output, result.exception)
    if output_format in ("json", "jsonl"):
        (report,) = [json.loads(result.stdout)[0]] if output_format == "json" else [json.loads(result.stdout)]
        (problem,) = report["problems"]
        assert (problem["code"], problem["lines"]) == ("P104", [1])
        assert problem["message"].startswith(WHERE)
    else:
        assert "lone surrogate" in result.stdout


# -- raw bytes that are not UTF-8 in a query string or a form ---------------------------------

ROUTES = [
    ("GET", "/"),
    ("GET", "/api/v1/cards"),
    ("GET", "/api/v1/formats"),
    ("GET", "/api/v1/formats/standard"),
    ("POST", "/api/v1/validate"),
    ("POST", "/extras"),
]


@pytest.mark.parametrize("method, path", ROUTES)
@pytest.mark.parametrize("query", ["deck=4 a\xff", "q=\xed\xa0\x80&format=standard", "format=\xc3"])
def test_a_query_string_that_is_not_utf8_is_a_400_that_says_where(client, method, path, query):
    # the WSGI server hands the raw bytes over as latin-1 (werkzeug read them strictly: a 500)
    resp = client.open(
        path,
        method=method,
        data=b'{"decklist": "4 Nest Ball SVI 181"}',
        content_type="application/json",
        environ_overrides={"QUERY_STRING": query},
    )
    assert resp.status_code == 400
    offset = next(i for i, c in enumerate(query) if ord(c) > 127)
    said = f"The query string is not valid UTF-8: byte 0x{ord(query[offset]):02x} at offset {offset}"
    if path.startswith("/api"):
        assert resp.get_json()["error"]["message"].startswith(said)
    else:
        assert said in resp.get_data(as_text=True)


def test_a_form_that_is_not_utf8_is_refused_on_the_page_not_read_as_empty(client):
    resp = client.post(
        "/", data=b"decklist=4+Nest+Ball\xff&format=standard", content_type="application/x-www-form-urlencoded"
    )
    assert resp.status_code == 400
    assert "The form is not valid UTF-8: byte 0xff at offset 20 (invalid start byte)" in resp.get_data(as_text=True)
    assert "The decklist is empty" not in resp.get_data(as_text=True)


# -- percent-escapes of bytes that are not UTF-8: the same 400 as the raw bytes ------------------------

ESCAPED = [
    ("deck=4+Nest+Ball+SVI+181%ff", 24, "%FF", "invalid start byte"),
    ("deck=4+a&fix=1:%ed%a0%80", 15, "%ED", "invalid continuation byte"),  # a lone surrogate, as UTF-8
    ("name=%c3&deck=4+a", 5, "%C3", "unexpected end of data"),
    ("format=standard&q=Pok%C3%A9mon%e9", 30, "%E9", "unexpected end of data"),
]


@pytest.mark.parametrize("method, path", [*ROUTES, ("GET", "/sheet")])
@pytest.mark.parametrize("query, offset, written, reason", ESCAPED)
def test_a_percent_escape_that_is_not_utf8_in_a_query_is_the_raw_byte_s_400(
    client, method, path, query, offset, written, reason
):
    resp = client.open(
        path,
        method=method,
        data=b'{"decklist": "4 Nest Ball SVI 181"}',
        content_type="application/json",
        environ_overrides={"QUERY_STRING": query},
    )
    assert resp.status_code == 400
    said = (
        f"The query string is not valid UTF-8: byte 0x{written[1:].lower()} (written {written}) at offset {offset} "
        f"({reason}); percent-encode its text as UTF-8."
    )
    if path.startswith("/api"):
        assert resp.get_json()["error"]["message"] == said
    else:
        assert said in resp.get_data(as_text=True)


@pytest.mark.parametrize("query, offset, written, reason", ESCAPED)
def test_a_percent_escape_that_is_not_utf8_in_a_form_is_refused_on_the_page(client, query, offset, written, reason):
    # the form is read whole before any field is looked at: the query's text as a form, the same offset
    resp = client.post("/", data=query, content_type="application/x-www-form-urlencoded")
    assert resp.status_code == 400
    assert (
        f"The form is not valid UTF-8: byte 0x{written[1:].lower()} (written {written}) at offset {offset} ({reason})"
        in resp.get_data(as_text=True)
    )


def test_a_path_that_is_not_utf8_is_a_400_that_says_where(client):
    # the WSGI server hands the path over percent-decoded, its bytes as latin-1 (werkzeug read U+FFFD for each)
    resp = client.get("/", environ_overrides={"PATH_INFO": "/api/v1/formats/\xff\xfe"})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {
        "code": "bad_request",
        "message": "The request path is not valid UTF-8: byte 0xff at offset 16 (invalid start byte); "
        "percent-encode its text as UTF-8.",
        "details": {},
    }


PAIR_BYTES = st.binary(max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pairs=st.lists(st.tuples(PAIR_BYTES, PAIR_BYTES), max_size=6), plus=st.booleans())
def test_strict_pairs_reads_what_parse_qsl_reads_and_points_at_the_first_escape_that_is_not_utf8(pairs, plus):
    from urllib.parse import quote_from_bytes

    from werkzeug.exceptions import BadRequest

    from deckcheck.service.app import strict_pairs

    quote = (lambda b: quote_from_bytes(b).replace("%20", "+")) if plus else quote_from_bytes
    text = "&".join(f"{quote(name)}={quote(value)}" for name, value in pairs)
    try:
        expected = [(name.decode(), value.decode()) for name, value in pairs]
    except UnicodeDecodeError:
        expected = None
    if expected is not None:
        assert strict_pairs(text, "query string") == expected
        return
    with pytest.raises(BadRequest) as refused:
        strict_pairs(text, "query string")
    said = refused.value.description
    offset = int(said.split(" at offset ")[1].split(" ")[0])
    written = said.split("(written ")[1][:3]
    assert text[offset : offset + 3].upper() == written and written.startswith("%")
    assert said.startswith(f"The query string is not valid UTF-8: byte 0x{written[1:].lower()} (written {written})")


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    size=st.integers(1, 60_000),
    bad=st.sampled_from(["%FF", "%ed%a0%80", "%C3", "%80"]),
    tail=st.sampled_from(["", "&format=standard", "%41"]),
)
def test_a_form_at_the_size_limit_with_a_bad_escape_at_its_end_says_where(client, size, bad, tail):
    # up to ~180 KB of escapes (the page's form limit is 3 bytes a byte of a 64 KiB list): the escape is found
    # by one pass over the text, wherever it is
    form = "decklist=" + "%41" * size + bad + tail
    resp = client.post("/", data=form, content_type="application/x-www-form-urlencoded")
    assert resp.status_code == 400
    offset = 9 + 3 * size
    assert f"(written {bad[:3].upper()}) at offset {offset} (" in resp.get_data(as_text=True)


def _multipart(value: bytes, part_type: str = "") -> bytes:
    head = b'--XX\r\nContent-Disposition: form-data; name="decklist"\r\n' + part_type.encode()
    return head + b"\r\n" + value + b"\r\n--XX--\r\n"


@pytest.mark.parametrize(
    "value, said",
    [
        (b"4 Nest Ball SVI 181\xff", "byte 0xff at offset 19 of its value (invalid start byte)"),
        (b"4 Iono \xed\xa0\x80 PAL 185", "byte 0xed at offset 7 of its value (invalid continuation byte)"),
    ],
)
def test_a_multipart_field_that_is_not_utf8_is_refused_not_read_with_replacement_characters(client, value, said):
    resp = client.post("/", data=_multipart(value), content_type="multipart/form-data; boundary=XX")
    assert resp.status_code == 400
    text = resp.get_data(as_text=True)
    assert f"A field of the form is not valid UTF-8: {said}; send its text as UTF-8." in text
    assert "\ufffd" not in text


@pytest.mark.parametrize(
    "body, content_type, said",
    [
        (b"garbage", "multipart/form-data; boundary=XX", "The multipart form could not be read: "),
        (b"garbage", "multipart/form-data", "The multipart form has no boundary"),
    ],
)
def test_a_malformed_multipart_form_is_a_400_not_an_empty_list(client, body, content_type, said):
    resp = client.post("/", data=body, content_type=content_type)
    assert resp.status_code == 400
    assert said in resp.get_data(as_text=True) and "The decklist is empty" not in resp.get_data(as_text=True)


def test_a_multipart_field_in_a_declared_latin1_or_in_utf8_is_read(client):
    for value, part_type in [
        ("4 Poké Ball SVI 181".encode("latin-1"), "Content-Type: text/plain; charset=iso-8859-1\r\n"),
        ("4 Poké Ball SVI 181".encode(), ""),
    ]:
        resp = client.post("/", data=_multipart(value, part_type), content_type="multipart/form-data; boundary=XX")
        assert resp.status_code == 200
        assert "4 Poké Ball SVI 181</textarea>" in resp.get_data(as_text=True)
