"""The JSON API: every error in its envelope, verdicts, formats, cards, probes and the OpenAPI document.

Request/response cases run twice: through Flask's test client and over real
HTTP against the session's gunicorn (``live_server``).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
from pathlib import Path

import marshmallow
import pytest
import requests

import deckcheck
from deckcheck import cards as cards_module
from deckcheck import create_app
from deckcheck.decklist.parse import count_lines
from deckcheck.engine import check
from deckcheck.formats import default_formats
from deckcheck.problems import REPORT_KEYS
from deckcheck.service.errors import wants_json
from deckcheck.service.schemas import CardSchema, FormatSchema, ReportSchema

DECKS = Path(__file__).resolve().parent.parent / "decks"
GOLDEN = Path(__file__).resolve().parent.parent / "golden"
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
# the legal deck plus two Pidgey (mark G, rotated out on 2026-04-10): 62 cards
ILLEGAL = LEGAL.replace("4 Dreepy TWM 128", "4 Dreepy TWM 128\n2 Pidgey MEW 16")
KNOWN = ", ".join(sorted(default_formats()))
VALIDATE = "/api/v1/validate"
JSON = "application/json"
TEXT = "text/plain; charset=utf-8"


class Answer:
    """Status, headers and parsed JSON of one response, whichever way it was made."""

    def __init__(self, status: int, headers, body: bytes):
        self.status, self.headers, self.body = status, headers, body

    @property
    def json(self):
        return json.loads(self.body)


@pytest.fixture(params=["flask", pytest.param("gunicorn", marks=pytest.mark.server)])
def call(request, client):
    """``call(method, path, data=bytes|None, content_type=str|None) -> Answer``."""
    if request.param == "flask":

        def via_flask(method, path, data=None, content_type=None):
            headers = {"Content-Type": content_type} if content_type else {}
            r = client.open(path, method=method, data=data, headers=headers)
            return Answer(r.status_code, r.headers, r.get_data())

        return via_flask
    base = request.getfixturevalue("live_server")

    def via_http(method, path, data=None, content_type=None):
        headers = {"Content-Type": content_type} if content_type else {}
        r = requests.request(method, base + path, data=data, headers=headers, timeout=30)
        return Answer(r.status_code, r.headers, r.content)

    return via_http


def envelope(code: str, message: str, details: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "details": details or {}}}


#: the answer to a JSON body that is not an object (an array, null, a number...)
_OBJECT_EXAMPLE = 'The JSON body must be an object, e.g. {"decklist": "4 Nest Ball SVI 181", "format": "standard"}.'
NOT_AN_OBJECT = envelope(
    "unprocessable", f"Invalid request: {_OBJECT_EXAMPLE}", {"json": {"_schema": [_OBJECT_EXAMPLE]}}
)


def body(**fields) -> bytes:
    return json.dumps(fields).encode()


# (id, method, path, data, content type, status, expected JSON)
ERROR_CASES = [
    (
        "json-malformed",
        "POST",
        VALIDATE,
        b'{"decklist": "4 Nest Ball SVI 181",}',
        JSON,
        400,
        envelope(
            "bad_request",
            "The request body is not valid JSON: Expecting property name enclosed in double quotes "
            "at line 1, column 36.",
            {"line": 1, "column": 36},
        ),
    ),
    (
        "json-empty-body",
        "POST",
        VALIDATE,
        b"",
        JSON,
        400,
        envelope("bad_request", 'The request body is empty: send a JSON object such as {"decklist": "..."}.'),
    ),
    (
        "json-not-utf8",
        "POST",
        VALIDATE,
        b'{"decklist": "\xe9"}',
        JSON,
        400,
        envelope(
            "bad_request",
            "The request body is not valid UTF-8: byte 0xe9 at offset 14 (invalid continuation byte).",
            {"offset": 14},
        ),
    ),
    (
        "json-too-deep",
        "POST",
        VALIDATE,
        b"[" * 100_000,
        JSON,
        400,
        envelope("bad_request", "The request body nests JSON arrays or objects too deeply to read."),
    ),
    (
        "json-huge-integer",
        "POST",
        VALIDATE,
        b'{"decklist": ' + b"9" * 5000 + b"}",
        JSON,
        400,
        envelope("bad_request", "The request body has a number of more than 4,300 digits."),
    ),
    # JSON the fast reader (orjson) refuses but Python's reads: the same answers as before it
    (
        "json-nan",
        "POST",
        VALIDATE,
        b'{"decklist": NaN}',
        JSON,
        400,
        envelope(
            "bad_request",
            "The request body is not JSON this service reads: NaN is not a JSON number (line 1, column 14).",
            {"line": 1, "column": 14},
        ),
    ),
    (
        "json-integer-past-64-bits",
        "POST",
        VALIDATE,
        b'{"decklist": 18446744073709551616}',
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: decklist: Not a valid string.",
            {"json": {"decklist": ["Not a valid string."]}},
        ),
    ),
    (
        "json-lone-surrogate",
        "POST",
        VALIDATE,
        b'{"decklist": "\\ud800"}',
        JSON,
        422,
        envelope(
            "unprocessable",
            "The request body is not valid Unicode text. Line 1, column 15 holds the JSON escape \\ud800, a lone "
            "surrogate (half of a UTF-16 pair), which is not a character: the text is not valid Unicode. Remove it, "
            "or write the character it was meant to be.",
            {"line": 1, "column": 15, "code_point": "U+D800"},
        ),
    ),
    (
        "text-not-utf8",
        "POST",
        VALIDATE,
        b"4 Pok\xe9 Ball SVI 185",
        TEXT,
        400,
        envelope(
            "bad_request",
            "The decklist is not valid UTF-8: byte 0xe9 at offset 5 (invalid continuation byte).",
            {"offset": 5},
        ),
    ),
    (
        "form-encoded",
        "POST",
        VALIDATE,
        b"decklist=4+Nest+Ball",
        "application/x-www-form-urlencoded",
        415,
        envelope(
            "unsupported_media_type",
            "The request has Content-Type 'application/x-www-form-urlencoded': send a JSON "
            "object as application/json, or the decklist itself as text/plain.",
            {"content_type": "application/x-www-form-urlencoded", "accepted": ["application/json", "text/plain"]},
        ),
    ),
    (
        "no-content-type",
        "POST",
        VALIDATE,
        b"4 Nest Ball SVI 181",
        None,
        415,
        envelope(
            "unsupported_media_type",
            "The request has no Content-Type: send a JSON object as application/json, or "
            "the decklist itself as text/plain.",
            {"content_type": None, "accepted": ["application/json", "text/plain"]},
        ),
    ),
    (
        "text-latin1",
        "POST",
        VALIDATE,
        b"4 Nest Ball SVI 181",
        "text/plain; charset=iso-8859-1",
        415,
        envelope(
            "unsupported_media_type",
            "A text/plain decklist must be UTF-8; the request declares charset=iso-8859-1.",
            {"charset": "iso-8859-1", "accepted": ["utf-8"]},
        ),
    ),
    (
        "unknown-format-json",
        "POST",
        VALIDATE,
        body(decklist="x", format="standart"),
        JSON,
        422,
        envelope(
            "unprocessable",
            f"Invalid request: format: Unknown format 'standart'. Known formats: {KNOWN}.",
            {"json": {"format": [f"Unknown format 'standart'. Known formats: {KNOWN}."]}},
        ),
    ),
    (
        "unknown-format-query",
        "POST",
        VALIDATE + "?format=modified",
        b"x",
        TEXT,
        422,
        envelope(
            "unprocessable",
            f"Invalid request: format: Unknown format 'modified'. Known formats: {KNOWN}.",
            {"query": {"format": [f"Unknown format 'modified'. Known formats: {KNOWN}."]}},
        ),
    ),
    (
        "bad-date-json",
        "POST",
        VALIDATE,
        body(decklist="x", as_of="2026-02-30"),
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: as_of: Not a valid date: use YYYY-MM-DD, e.g. 2026-05-01.",
            {"json": {"as_of": ["Not a valid date: use YYYY-MM-DD, e.g. 2026-05-01."]}},
        ),
    ),
    (
        "bad-date-query",
        "POST",
        VALIDATE + "?as_of=01/05/2026",
        b"x",
        TEXT,
        422,
        envelope(
            "unprocessable",
            "Invalid request: as_of: Not a valid date: use YYYY-MM-DD, e.g. 2026-05-01.",
            {"query": {"as_of": ["Not a valid date: use YYYY-MM-DD, e.g. 2026-05-01."]}},
        ),
    ),
    (
        "json-array",
        "POST",
        VALIDATE,
        b'["4 Nest Ball SVI 181"]',
        JSON,
        422,
        NOT_AN_OBJECT,
    ),
    (
        "json-null",
        "POST",
        VALIDATE,
        b"null",
        JSON,
        422,
        NOT_AN_OBJECT,
    ),
    (
        "unknown-field",
        "POST",
        VALIDATE,
        body(decklist="x", fromat="glc"),
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: fromat: Unknown field; the fields are decklist, format, as_of and forecast.",
            {"json": {"fromat": ["Unknown field; the fields are decklist, format, as_of and forecast."]}},
        ),
    ),
    (
        "missing-decklist",
        "POST",
        VALIDATE,
        body(format="standard"),
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: decklist: A decklist is required: the text of the list, one card per line.",
            {"json": {"decklist": ["A decklist is required: the text of the list, one card per line."]}},
        ),
    ),
    (
        "decklist-not-string",
        "POST",
        VALIDATE,
        body(decklist=["4 Nest Ball SVI 181"]),
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: decklist: Not a valid string.",
            {"json": {"decklist": ["Not a valid string."]}},
        ),
    ),
    (
        "lone-surrogate",
        "POST",
        VALIDATE,
        b'{"decklist": "4 Nest Ball\\ud83d SVI 181"}',
        JSON,
        422,
        envelope(
            "unprocessable",
            "The request body is not valid Unicode text. Line 1, column 26 holds the JSON escape \\ud83d, a lone "
            "surrogate (half of a UTF-16 pair), which is not a character: the text is not valid Unicode. Remove it, "
            "or write the character it was meant to be.",
            {"line": 1, "column": 26, "code_point": "U+D83D"},
        ),
    ),
    (
        "decklist-too-many-bytes",
        "POST",
        VALIDATE,
        b"x" * 65_537,
        TEXT,
        413,
        envelope(
            "payload_too_large",
            "The decklist is 65,537 bytes of UTF-8; the limit is 65,536 bytes.",
            {"limit": 65_536, "size": 65_537, "unit": "bytes"},
        ),
    ),
    (
        "decklist-too-many-bytes-json",
        "POST",
        VALIDATE,
        body(decklist="é" * 32_769),
        JSON,
        413,
        envelope(
            "payload_too_large",
            "The decklist is 65,538 bytes of UTF-8; the limit is 65,536 bytes.",
            {"limit": 65_536, "size": 65_538, "unit": "bytes"},
        ),
    ),
    (
        "decklist-too-many-lines",
        "POST",
        VALIDATE,
        b"1 Nest Ball SVI 181\n" * 1001,
        TEXT,
        413,
        envelope(
            "payload_too_large",
            "The decklist has 1,001 lines; the limit is 1,000 lines.",
            {"limit": 1000, "size": 1001, "unit": "lines"},
        ),
    ),
    (
        "decklist-too-many-lines-cr",
        "POST",
        VALIDATE,
        b"1 Nest Ball SVI 181\r" * 1000 + b"1 Nest Ball SVI 181",
        TEXT,
        413,
        envelope(
            "payload_too_large",
            "The decklist has 1,001 lines; the limit is 1,000 lines.",
            {"limit": 1000, "size": 1001, "unit": "lines"},
        ),
    ),
    # a JSON deck's card entries count as lines, however few lines it is written on (issue 13)
    (
        "decklist-json-too-many-entries",
        "POST",
        VALIDATE,
        ('{"cards": [' + ", ".join(['{"count": 1, "name": "Iono"}'] * 1001) + "]}").encode(),
        TEXT,
        413,
        envelope(
            "payload_too_large",
            "The decklist has 1,001 card entries (each counts as a line); the limit is 1,000 lines.",
            {"limit": 1000, "size": 1001, "unit": "lines"},
        ),
    ),
    (
        "body-too-large",
        "POST",
        VALIDATE,
        b" " * 300_000,
        JSON,
        413,
        envelope(
            "payload_too_large",
            "The request body is larger than the limit of 262,144 bytes.",
            {"limit": 262_144, "unit": "bytes"},
        ),
    ),
    (
        "unknown-endpoint",
        "GET",
        "/api/v1/validations",
        None,
        None,
        404,
        envelope(
            "not_found", "No such endpoint: GET /api/v1/validations. The endpoints are listed at /api/v1/openapi.json."
        ),
    ),
    (
        "api-root",
        "GET",
        "/api",
        None,
        None,
        404,
        envelope("not_found", "No such endpoint: GET /api. The endpoints are listed at /api/v1/openapi.json."),
    ),
    (
        "unknown-format-id",
        "GET",
        "/api/v1/formats/standart",
        None,
        None,
        404,
        envelope("not_found", f"Unknown format 'standart'. Known formats: {KNOWN}."),
    ),
    (
        "get-validate",
        "GET",
        VALIDATE,
        None,
        None,
        405,
        envelope(
            "method_not_allowed", "Method GET is not allowed on /api/v1/validate; allowed: POST.", {"allowed": ["POST"]}
        ),
    ),
    (
        "delete-formats",
        "DELETE",
        "/api/v1/formats",
        None,
        None,
        405,
        envelope(
            "method_not_allowed", "Method DELETE is not allowed on /api/v1/formats; allowed: GET.", {"allowed": ["GET"]}
        ),
    ),
    (
        "post-healthz",
        "POST",
        "/healthz",
        b"{}",
        JSON,
        405,
        envelope("method_not_allowed", "Method POST is not allowed on /healthz; allowed: GET.", {"allowed": ["GET"]}),
    ),
    (
        "query-forecast-not-a-word",
        "POST",
        VALIDATE + "?forecast=1",
        b"4 Nest Ball SVI 181",
        TEXT,
        422,
        envelope(
            "unprocessable",
            "Invalid request: forecast: Not a boolean: use true or false.",
            {"query": {"forecast": ["Not a boolean: use true or false."]}},
        ),
    ),
    (
        "json-forecast-zero",
        "POST",
        VALIDATE,
        b'{"decklist": "4 Nest Ball SVI 181", "forecast": 0}',
        JSON,
        422,
        envelope(
            "unprocessable",
            "Invalid request: forecast: Not a boolean: use true or false.",
            {"json": {"forecast": ["Not a boolean: use true or false."]}},
        ),
    ),
    (
        "cards-limit-over-20",
        "GET",
        "/api/v1/cards?q=ball&limit=21",
        None,
        None,
        422,
        envelope(
            "unprocessable",
            "Invalid request: limit: Must be greater than or equal to 1 and less than or equal to 20.",
            {"query": {"limit": ["Must be greater than or equal to 1 and less than or equal to 20."]}},
        ),
    ),
    (
        "cards-q-too-long",
        "GET",
        "/api/v1/cards?q=" + "a" * 101,
        None,
        None,
        422,
        envelope(
            "unprocessable",
            "Invalid request: q: Longer than maximum length 100.",
            {"query": {"q": ["Longer than maximum length 100."]}},
        ),
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "data", "content_type", "status", "expected"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
@pytest.mark.slow
def test_error_envelope(call, method, path, data, content_type, status, expected):
    answer = call(method, path, data, content_type)
    assert (answer.status, answer.json) == (status, expected)
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.headers["X-Deckcheck-Version"] == deckcheck.__version__


def test_405_names_allowed_methods_in_allow_header(call):
    allow = call("PUT", VALIDATE).headers["Allow"]
    assert sorted(m.strip() for m in allow.split(",")) == ["OPTIONS", "POST"]


def summary_of(answer: Answer) -> tuple:
    data = answer.json
    return answer.status, data["valid"], data["format"], data["as_of"], data["summary"]


def test_legal_deck_is_valid_with_every_card_resolved(call):
    answer = call("POST", VALIDATE, body(decklist=LEGAL, format="standard", as_of=DATE), JSON)
    assert summary_of(answer) == (200, True, "standard", DATE, "Valid for Standard on 2026-05-01: 60 cards.")
    data = answer.json
    assert data["problems"] == []
    assert data["counts"] == {"pokemon": 19, "trainer": 31, "energy": 10, "unknown": 0, "total": 60}
    first = data["cards"][0]
    assert {k: first[k] for k in ("line", "count", "text", "legal", "banned", "resolution")} == {
        "line": 2,
        "count": 4,
        "text": "4 Dreepy TWM 128",
        "legal": True,
        "banned": False,
        "resolution": "printing",
    }
    assert {k: first["card"][k] for k in ("id", "name", "set", "number", "supertype")} == {
        "id": "sv06-128",
        "name": "Dreepy",
        "set": "TWM",
        "number": "128",
        "supertype": "Pokémon",
    }
    assert all(line["legal"] is True for line in data["cards"])


def test_illegal_deck_is_a_200_with_its_problems(call):
    answer = call("POST", VALIDATE, body(decklist=ILLEGAL, as_of=DATE), JSON)
    assert summary_of(answer)[:4] == (200, False, "standard", DATE)
    problems = answer.json["problems"]
    # the wording is the rules' (tested there); the API passes the engine's problems through unchanged
    assert problems == [p.to_dict() for p in check(ILLEGAL, "standard", DATE).problems]
    errors = [(p["rule"], p["code"], p["lines"], p["cards"]) for p in problems if p["severity"] == "error"]
    assert errors == [("deck-size", "R101", [], []), ("not-in-format", "R201", [3], ["sv03.5-016"])]
    assert problems[1]["message"].startswith("Pidgey (MEW 16) (line 3) is not legal in Standard on 2026-05-01")
    pidgey = answer.json["cards"][1]
    assert (pidgey["line"], pidgey["text"], pidgey["legal"], pidgey["card"]["id"]) == (
        3,
        "2 Pidgey MEW 16",
        False,
        "sv03.5-016",
    )


def test_text_plain_takes_options_from_the_query(call):
    as_text = call("POST", f"{VALIDATE}?format=expanded&as_of={DATE}", ILLEGAL.encode(), TEXT)
    as_json = call("POST", VALIDATE, body(decklist=ILLEGAL, format="expanded", as_of=DATE), JSON)
    assert summary_of(as_text) == summary_of(as_json)
    assert as_text.json == as_json.json
    assert summary_of(as_text)[2] == "expanded"


def test_json_body_options_win_over_the_query(call):
    answer = call(
        "POST",
        f"{VALIDATE}?format=expanded&as_of=2025-01-01",
        body(decklist=LEGAL, format="standard", as_of=DATE),
        JSON,
    )
    assert summary_of(answer)[2:4] == ("standard", DATE)


@pytest.mark.slow
def test_a_repeated_json_key_takes_its_last_value(call):
    raw = (
        f'{{"decklist": {json.dumps(ILLEGAL)}, "format": "standard", "format": "expanded", "as_of": "{DATE}"}}'
    ).encode()
    assert summary_of(call("POST", VALIDATE, raw, JSON))[2:4] == ("expanded", DATE)


def test_an_absent_query_string_is_an_empty_query():
    """validate skips reading an empty query string: right only while this holds."""
    from deckcheck.service.api import VALIDATE_QUERY

    assert VALIDATE_QUERY.load({}) == {}
    assert not [
        name
        for name, field in VALIDATE_QUERY.fields.items()
        if field.required or field.load_default is not marshmallow.missing
    ]


def test_null_options_mean_the_defaults(call):
    answer = call("POST", VALIDATE, body(decklist=LEGAL, format=None, as_of=None), JSON)
    assert answer.status == 200
    assert answer.json["format"] == "standard"


@pytest.mark.slow
def test_unknown_query_parameters_are_ignored(call):
    answer = call("POST", f"{VALIDATE}?utm_source=discord&as_of={DATE}", LEGAL.encode(), TEXT)
    assert summary_of(answer)[:2] == (200, True)


@pytest.mark.slow
def test_empty_decklist_is_a_report_with_a_deck_size_error(call):
    answer = call("POST", f"{VALIDATE}?as_of={DATE}", b"", TEXT)
    assert summary_of(answer) == (
        200,
        False,
        "standard",
        DATE,
        f"Not valid for Standard on 2026-05-01: 0 cards, {len(answer.json['problems'])} errors.",
    )
    assert "deck-size" in [p["rule"] for p in answer.json["problems"]]
    assert answer.json["cards"] == []


@pytest.mark.parametrize(
    ("text", "lines"),
    [("x" * 65_536, 1), ("é" * 32_768, 1), ("1 X\n" * 1000, 1000), ("1 X\r\n" * 999 + "1 X", 1000)],
    ids=["bytes", "utf8", "lf", "crlf"],
)
def test_decklists_at_the_limits_are_checked(call, text, lines):
    assert count_lines(text) == lines
    answer = call("POST", f"{VALIDATE}?as_of={DATE}", text.encode(), TEXT)
    assert (answer.status, answer.json["valid"]) == (200, False)


def test_json_plus_suffix_media_type_and_bom_are_accepted(call):
    answer = call("POST", VALIDATE, "\ufeff".encode() + body(decklist=LEGAL, as_of=DATE), "application/vnd.api+json")
    assert summary_of(answer)[:2] == (200, True)


@pytest.mark.parametrize(
    "path", ["/healthz", "/readyz", "/api/v1/formats", "/api/v1/openapi.json", "/api/v1/docs", "/api/v1/nothing-here"]
)
def test_every_response_names_the_version(call, path):
    assert call("GET", path).headers["X-Deckcheck-Version"] == deckcheck.__version__


def test_healthz_and_readyz(call, db):
    assert (call("GET", "/healthz").status, call("GET", "/healthz").json) == (
        200,
        {"status": "ok", "version": deckcheck.__version__},
    )
    ready = call("GET", "/readyz")
    assert (ready.status, ready.json) == (
        200,
        {"status": "ready", "database": db.info(), "database_age_days": db.age_days(dt.date.today())},
    )
    assert ready.json["database"]["newest_set"] == {
        "id": "me05",
        "name": "Pitch Black",
        "code": "PBL",
        "release": "2026-07-17",
    }
    assert ready.json["database"]["built_at"] == db.meta["built_at"]


def test_max_db_age_from_the_environment_adds_the_warning(monkeypatch):
    """DECKCHECK_MAX_DB_AGE (off by default) makes every check of a later date carry stale-database."""
    deck = {"decklist": LEGAL, "as_of": "2026-12-01"}
    plain = create_app({"RATELIMIT_ENABLED": False}).test_client().post(VALIDATE, json=deck).get_json()
    assert plain["valid"] and [p["rule"] for p in plain["problems"]] == []
    monkeypatch.setenv("DECKCHECK_MAX_DB_AGE", "90")
    app = create_app({"RATELIMIT_ENABLED": False})
    assert app.config["MAX_DB_AGE"] == 90
    got = app.test_client().post(VALIDATE, json=deck).get_json()
    assert got["valid"] and [(p["rule"], p["code"], p["severity"]) for p in got["problems"]] == [
        ("stale-database", "C105", "warning")
    ]
    assert got["problems"][0]["message"].startswith(
        "The card database's newest set is Pitch Black, released 2026-07-17, 137 days before 2026-12-01;"
    )
    assert got["summary"] == "Valid for Standard on 2026-12-01: 60 cards, 1 warning."
    monkeypatch.setenv("DECKCHECK_MAX_DB_AGE", "-1")
    with pytest.raises(ValueError, match="MAX_DB_AGE"):
        create_app({"RATELIMIT_ENABLED": False})


def test_validate_reads_its_settings_once_when_the_app_is_made(monkeypatch):
    """The size limits, the default format, the database's age limit and the public address are read when
    the app is made: neither the environment nor the config changed afterwards reaches a running app's
    requests (a request reads no config)."""
    app = create_app(
        {"RATELIMIT_ENABLED": False, "MAX_DECKLIST_BYTES": 300, "MAX_DECKLIST_LINES": 5, "DEFAULT_FORMAT": "expanded"}
    )
    client = app.test_client()
    monkeypatch.setenv("DECKCHECK_MAX_DECKLIST_BYTES", "100000")
    monkeypatch.setenv("DECKCHECK_DEFAULT_FORMAT", "glc")
    app.config.update(
        MAX_DECKLIST_BYTES=100_000, MAX_DECKLIST_LINES=1000, DEFAULT_FORMAT="standard", MAX_DB_AGE=1, PUBLIC_URL=None
    )
    over_bytes = client.post(VALIDATE, json={"decklist": "4 Nest Ball SVI 181\n" * 20, "as_of": "2026-05-01"})
    assert over_bytes.status_code == 413
    assert over_bytes.get_json()["error"]["details"] == {"limit": 300, "size": 400, "unit": "bytes"}
    over_lines = client.post(VALIDATE, json={"decklist": "1 Nest Ball SVI 181\n" * 6, "as_of": "2026-05-01"})
    assert over_lines.status_code == 413
    assert over_lines.get_json()["error"]["details"] == {"limit": 5, "size": 6, "unit": "lines"}
    got = client.post(VALIDATE, json={"decklist": "4 Nest Ball SVI 181\n", "as_of": "2026-12-01"}).get_json()
    assert got["format"] == "expanded"
    assert "stale-database" not in [p["rule"] for p in got["problems"]]


def test_readyz_is_503_in_the_envelope_without_a_database(client, monkeypatch, tmp_path):
    missing = tmp_path / "cards.json.gz"
    monkeypatch.setattr(cards_module, "_current", None)
    monkeypatch.setenv("DECKCHECK_DB", str(missing))
    answer = client.get("/readyz")
    assert (answer.status_code, answer.get_json()) == (
        503,
        envelope(
            "service_unavailable",
            f"The card database is not available: card database not found at {missing} "
            "(build it with 'deckcheck db build')",
        ),
    )
    assert client.post(VALIDATE, json={"decklist": LEGAL}).status_code == 503


def test_unhandled_exception_is_a_logged_500_in_the_envelope(caplog):
    app = create_app({"TESTING": True, "PROPAGATE_EXCEPTIONS": False})

    def explode():
        raise RuntimeError("boom")

    app.add_url_rule("/api/v1/explode", view_func=explode)
    with caplog.at_level(logging.ERROR):
        answer = app.test_client().get("/api/v1/explode")
    assert (answer.status_code, answer.get_json()) == (
        500,
        envelope(
            "internal_error", "Internal error: the service failed to answer this request; the failure has been logged."
        ),
    )
    assert answer.headers["X-Deckcheck-Version"] == deckcheck.__version__
    assert any(r.exc_info and "boom" in str(r.exc_info[1]) for r in caplog.records)


@pytest.mark.parametrize(
    ("path", "json_errors"),
    [
        ("/api/v1/validate", True),
        ("/api", True),
        ("/healthz", True),
        ("/readyz", True),
        ("/", False),
        ("/apiary", False),
        ("/static/style.css", False),
    ],
)
def test_which_paths_get_json_errors(path, json_errors):
    assert wants_json(path) is json_errors


@pytest.mark.slow
def test_formats_lists_every_format_with_rules_pool_and_bans(call):
    answer = call("GET", "/api/v1/formats")
    data = answer.json
    assert answer.status == 200
    assert data["default"] == "standard"
    assert [f["id"] for f in data["formats"]] == sorted(default_formats())
    standard = next(f for f in data["formats"] if f["id"] == "standard")
    assert {"rule": "copy-limit", "parameters": {"limit": 4}, "set_by": "standard"} in standard["rules"]
    assert standard["pool"]["kind"] == "regulation-marks"
    assert call("GET", "/api/v1/formats/glc").json == next(f for f in data["formats"] if f["id"] == "glc")


def test_cards_a_collector_number_alone_keeps_the_printings_with_it(call):
    """The document lets number come without set: it was a 422 (issue 27, row 15); now it narrows the search."""
    from deckcheck.cards.index import number_norm

    named = call("GET", "/api/v1/cards?q=nest%20ball&number=181")
    assert named.status == 200
    assert [c["id"] for c in named.json["cards"] if c["name"] == "Nest Ball"] == ["sv01-181"]
    alone = call("GET", "/api/v1/cards?number=0181&limit=20")
    assert alone.status == 200 and len(alone.json["cards"]) == 20
    assert {number_norm(c["number"]) for c in alone.json["cards"]} == {"181"}


def test_cards_fuzzy_search_puts_nest_ball_first(call):
    found = call("GET", "/api/v1/cards?q=nest%20bal").json["cards"]
    assert found[0]["name"] == "Nest Ball"
    assert 1 <= len(found) <= 20


@pytest.mark.slow
def test_cards_exact_printing(call):
    answer = call("GET", "/api/v1/cards?set=SVI&number=181")
    assert answer.status == 200
    assert [(c["id"], c["name"], c["set"], c["number"]) for c in answer.json["cards"]] == [
        ("sv01-181", "Nest Ball", "SVI", "181")
    ]


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ("q=ball", 20),
        ("q=ball&limit=3", 3),
        ("q=", 0),
        ("q=%20%20", 0),
        ("q=%00", 0),
        ("q=zzzzzzzz", 0),
        ("set=SVI&number=9999", 0),
    ],
)
@pytest.mark.slow
def test_cards_result_counts(call, query, count):
    answer = call("GET", f"/api/v1/cards?{query}")
    assert (answer.status, len(answer.json["cards"])) == (200, count)


# -- the schemas describe the core's dicts exactly ----------------------------

SAMPLES = {p.relative_to(DECKS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(DECKS.rglob("*.txt"))}
SAMPLES.update(
    {
        "illegal": ILLEGAL,
        "empty": "",
        "unresolved": "4 Nest Bal SVI 9999\n3 Pikachu\n",
        "json-deck": '{"cards": [{"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}]}',
    }
)


@pytest.mark.parametrize("deck", sorted(SAMPLES))
@pytest.mark.parametrize("format_id", ["standard", "glc"])
def test_report_schema_matches_report_to_dict(deck, format_id):
    report = check(SAMPLES[deck], format_id, DATE).to_dict()
    assert ReportSchema().validate(report) == {}  # unknown keys and missing keys are both errors


@pytest.mark.parametrize("format_id", sorted(default_formats()))
def test_format_schema_matches_format_to_dict(format_id):
    assert FormatSchema().validate(default_formats()[format_id].to_dict()) == {}


def test_card_schema_matches_card_to_dict(db):
    for card_id in ("sv01-181", "sv06-130", "sv03.5-016"):
        assert CardSchema().validate(db.get(card_id).to_dict()) == {}


# -- the OpenAPI document and its reference page --------------------------------


def test_openapi_document_matches_golden(client):
    """The API contract changes only on purpose: rerun with UPDATE_GOLDEN=1 after a deliberate change."""
    document = client.get("/api/v1/openapi.json").get_json()
    document["info"]["version"] = "<version>"
    document["paths"]["/api/v1/validate"]["post"]["parameters"][0]["schema"]["enum"] = ["<formats>"]
    for schema in ("ValidateRequest",):
        document["components"]["schemas"][schema]["properties"]["format"]["enum"] = ["<formats>"]
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    golden = GOLDEN / "openapi.json"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_openapi_lists_every_operation(client):
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    assert {(p, m) for p, item in paths.items() for m in item if m != "parameters"} == {
        ("/api/v1/validate", "post"),
        ("/api/v1/formats", "get"),
        ("/api/v1/formats/{format_id}", "get"),
        ("/api/v1/cards", "get"),
        ("/healthz", "get"),
        ("/readyz", "get"),
    }
    assert set(paths["/api/v1/validate"]["post"]["requestBody"]["content"]) == {"application/json", "text/plain"}


def test_docs_page_renders_every_operation_without_external_assets(client):
    answer = client.get("/api/v1/docs")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert answer.mimetype == "text/html"
    for heading in (
        "POST</span> /api/v1/validate",
        "GET</span> /api/v1/formats",
        "GET</span> /api/v1/cards",
        "GET</span> /healthz",
        "GET</span> /readyz",
        'id="schema-Report"',
        'id="schema-Error"',
    ):
        assert heading in page
    assert "<script" not in page and "<style" not in page and not re.search(r"<[^>]* style=", page)
    assert "http://" not in page and "https://" not in page
    assert answer.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert "'unsafe-inline'" not in answer.headers["Content-Security-Policy"]
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/static/apidocs.css").status_code == 200


def test_responses_are_compact_ordered_utf8_json(client):
    """The report is encoded by the app's JSON provider (orjson): keys in the report's own
    order (the verdict first), no spaces, UTF-8."""
    answer = client.post("/api/v1/validate", json={"decklist": "4 Nest Ball SVI 181", "as_of": "2026-05-01"})
    body = answer.get_data()
    assert "Pokémon".encode() in body and b"\\u00e9" not in body
    assert body.startswith(b'{"valid":false,"format":"standard","format_name":"Standard","as_of":"2026-05-01",')
    report = answer.get_json()  # json keeps the order it reads
    assert tuple(report) == REPORT_KEYS
    assert list(report["cards"][0]) == [
        "line",
        "count",
        "text",
        "name",
        "name_as_written",
        "language",
        "set",
        "number",
        "resolution",
        "suggestions",
        "legal",
        "legal_via",
        "banned",
        "card",
    ]
    assert list(report["cards"][0]["card"]) == list(cards_module.get_db().find("SVI", "181").to_dict())
    # exactly what the standard library's encoder writes in compact form
    assert body == (json.dumps(report, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
    assert answer.headers["Content-Length"] == str(len(body))


def test_errors_are_compact_json_in_envelope_order(client):
    answer = client.get("/api/v1/nowhere")
    assert answer.status_code == 404
    assert answer.get_data().startswith(b'{"error":{"code":"not_found","message":')


@pytest.mark.parametrize("deck", ["standard-legal-dragapult.txt", "ptcgl-en-charizard.txt", "tricky-names.txt"])
def test_validate_answers_the_report_to_dict_exactly(client, deck):
    """The API writes printings from each card's JSON made once: the same JSON as to_dict()."""
    text = (DECKS / deck).read_text(encoding="utf-8")
    for _ in range(2):  # the second time, from the cards' cached JSON
        answer = client.post(VALIDATE, json={"decklist": text, "as_of": DATE})
        assert answer.get_json() == json.loads(json.dumps(check(text, "standard", DATE).to_dict()))


def test_debug_mode_indents_json_answers():
    app = create_app({"TESTING": True, "DEBUG": True})
    answer = app.test_client().get("/api/v1/formats/standard")
    assert answer.get_data(as_text=True).startswith('{\n  "')
