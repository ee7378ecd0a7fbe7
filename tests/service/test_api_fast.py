"""The API's fast paths answer what the slower code they stand in for answers: the usual
``POST /api/v1/validate`` body loaded without marshmallow (against the schema's own load), and a
report's card lines written as one JSON array (against encoding ``to_dict()``)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest
from conftest import SHIPPED_FORMATS
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError, fields

from deckcheck.dates import parse_date
from deckcheck.engine import ResolvedLine, check
from deckcheck.render.json import cards_json
from deckcheck.service import api, rawbody
from deckcheck.service.schemas import StrictBoolean, ValidateRequestSchema
from deckcheck.service.schemas.fields import IsoDate

DECKS = Path(__file__).parent.parent / "decks"
SCHEMA = ValidateRequestSchema()


def _schema_load(data):
    try:
        return SCHEMA.load(data)
    except ValidationError:
        return None


def test_the_fast_reader_knows_every_field_of_the_schema():
    """A field added to (or changed in) the schema must be taught to load_body_fast too."""
    assert list(SCHEMA.fields) == ["decklist", "format", "as_of", "forecast"]
    kinds = {name: type(f) for name, f in SCHEMA.fields.items()}
    assert kinds == {
        "decklist": fields.String,
        "format": fields.String,
        "as_of": IsoDate,
        "forecast": StrictBoolean,
    }
    assert [f.allow_none for f in SCHEMA.fields.values()] == [False, True, True, True]
    assert SCHEMA.fields["decklist"].required and not any(f.required for f in list(SCHEMA.fields.values())[1:])
    assert api._FORMAT_IDS == set(SCHEMA.fields["format"].validators[0].choices)
    as_of = SCHEMA.fields["as_of"]
    assert api._date_from_iso is parse_date and type(as_of)._deserialize is IsoDate._deserialize
    assert not as_of.validators and not SCHEMA.fields["forecast"].validators
    assert not SCHEMA._hooks or not any(SCHEMA._hooks.values())  # no pre_load/post_load/validates_schema


TEXTS = st.one_of(
    st.sampled_from(["4 Nest Ball SVI 181\n", "", "Pokémon: 1\n1 Pikachu ex SSP 57", "\ud800", "a\udfffb"]),
    st.text(max_size=20),
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False, width=16),
    st.sampled_from([*SHIPPED_FORMATS, "Standard", "nope", "2026-05-01", "20260501", "2026-02-30", "true"]),
    st.sampled_from(["2026-W18-5", "1999-12-31", " 2026-05-01", "2026-05-01T00:00", "0001-01-01", "yes", "0"]),
    TEXTS,
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
KEYS = st.sampled_from(["decklist", "format", "as_of", "forecast", "style", "Decklist", ""])
BODIES = st.one_of(
    st.dictionaries(KEYS, st.one_of(VALUES, TEXTS), max_size=5),
    st.fixed_dictionaries(
        {"decklist": TEXTS},
        optional={"format": VALUES, "as_of": VALUES, "forecast": VALUES},
    ),
    VALUES,
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(BODIES)
def test_fast_body_loads_what_the_schema_loads(data):
    fast = api.load_body_fast(data)
    if fast is None:
        return  # the schema reads it (loads or answers its 422)
    slow = SCHEMA.load(data)
    assert fast == slow
    assert list(fast) == list(slow)  # the same keys in the same order
    assert [type(v) for v in fast.values()] == [type(v) for v in slow.values()]


@pytest.mark.parametrize(
    "data",
    [
        {"decklist": "4 Nest Ball SVI 181"},
        {"decklist": "4 Nest Ball SVI 181", "format": "standard", "as_of": "2026-05-01"},
        {"decklist": "Pokémon: 1\n", "format": None, "as_of": None, "forecast": None},
        {"forecast": True, "as_of": "2026-05-01", "decklist": "x", "format": "glc"},
        {"decklist": "x", "forecast": False},
    ],
)
def test_the_usual_bodies_take_the_fast_path(data):
    fast = api.load_body_fast(data)
    assert fast is not None and fast == SCHEMA.load(data) and list(fast) == list(SCHEMA.load(data))
    if data.get("as_of"):
        assert fast["as_of"] == dt.date(2026, 5, 1)


@pytest.mark.parametrize(
    "data",
    [
        {"decklist": "x", "forecast": "true"},  # the schema refuses it: a 422
        {"decklist": "x", "forecast": 1},
        {"decklist": "x", "format": "nope"},  # a 422 from the schema
        {"decklist": "x", "as_of": "2026-02-30"},
        {"decklist": "x", "style": "chat"},
        {"format": "standard"},
        ["decklist"],
        "4 Nest Ball SVI 181",
        None,
    ],
)
def test_anything_else_goes_to_the_schema(data):
    assert api.load_body_fast(data) is None


def test_the_view_answers_the_schema_s_422_for_what_the_fast_reader_leaves(client):
    answer = client.post("/api/v1/validate", json={"decklist": "4 Nest Ball SVI 181", "format": "nope"})
    assert answer.status_code == 422
    assert answer.get_json()["error"]["details"] == {
        "json": {"format": ["Unknown format 'nope'. Known formats: " + ", ".join(sorted(api._FORMAT_IDS)) + "."]}
    }
    for loose in ("true", 0, 1):  # the OpenAPI document says boolean: JSON's true or false only
        answer = client.post("/api/v1/validate", json={"decklist": "4 Nest Ball SVI 181", "forecast": loose})
        assert answer.status_code == 422
        assert answer.get_json()["error"]["details"] == {"json": {"forecast": ["Not a boolean: use true or false."]}}


@pytest.fixture
def client():
    from deckcheck.service.app import create_app

    return create_app({"TESTING": True, "RATELIMIT_ENABLED": False}).test_client()


@pytest.mark.parametrize("deck", sorted(DECKS.glob("*.txt")), ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", SHIPPED_FORMATS)
def test_cards_json_is_the_lines_encoded(deck, fmt):
    report = check(deck.read_text(encoding="utf-8"), fmt, "2026-05-01")
    by_line = orjson.dumps(report.to_dict(line_view=ResolvedLine.json_fragment))
    assert orjson.dumps(report.to_dict(cards_view=cards_json)) == by_line
    assert orjson.loads(by_line) == orjson.loads(orjson.dumps(report.to_dict()))


def test_cards_json_edges():
    assert orjson.dumps(cards_json([])) == b"[]"
    # line numbers past the table of openers, and a line whose facts are not shared
    text = "\n" * 1500 + "4 Nest Ball SVI 181\n" + "".join(f"1 Nosuchcard{i} XYZ 1\n" for i in range(30))
    report = check(text, "standard", "2026-05-01")
    import datetime as dt

    from deckcheck import cards
    from deckcheck.engine import get_format
    from deckcheck.engine.memos import line_tables

    shared = line_tables(cards.get_db(), get_format("standard"), dt.date(2026, 5, 1)).lines
    assert report.lines[0].line == 1501 and any(line.facts is not shared.get(line.raw) for line in report.lines)
    assert orjson.dumps(cards_json(report.lines)) == orjson.dumps([line.json_fragment() for line in report.lines])


def _environ(body: bytes, length: str | None, terminated: bool) -> dict:
    import io

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/v1/validate",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "wsgi.url_scheme": "http",
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(body),
    }
    if length is not None:
        environ["CONTENT_LENGTH"] = length
    if terminated:  # gunicorn's
        environ["wsgi.input_terminated"] = True
    return environ


def _outcome(read):
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return type(exc), getattr(exc, "code", None)


@pytest.mark.parametrize("terminated", [True, False])
@pytest.mark.parametrize(
    ("body", "length"),
    [
        (b'{"decklist": "4 Nest Ball SVI 181"}', "35"),
        (b"", "0"),
        (b"", None),
        (b'{"decklist": "x"}', "40"),  # shorter than announced: a client gone
        (b'{"decklist": "x"}', "5"),  # longer than announced
        (b'{"decklist": "x"}', " 17"),
        (b'{"decklist": "x"}', "1_7"),
        (b"x" * 10, "300000"),  # over MAX_CONTENT_LENGTH
        (b"x" * 262145, "10"),  # a stream longer than MAX_CONTENT_LENGTH
        (b"x" * 262144, "10"),
        (b'{"decklist": "x"}', "\u0661\u0667"),  # digits, not ASCII ones
    ],
)
def test_a_sized_body_is_read_as_werkzeug_reads_it(body, length, terminated):
    from flask import request

    from deckcheck.service.app import create_app

    app = create_app({"TESTING": True, "RATELIMIT_ENABLED": False})
    with app.request_context(_environ(body, length, terminated)):
        expected = _outcome(lambda: request.get_data(cache=True))
    with app.request_context(_environ(body, length, terminated)):
        got = _outcome(lambda: rawbody.read_body(request._get_current_object()))
        if isinstance(got, bytes):
            assert request.get_data() is got or request.get_data() == got  # kept where get_data finds it
    assert got == expected
    fast = length is not None and length.isdigit() and length.isascii() and int(length) <= 262144
    # werkzeug reads a server-ended stream to its end (up to the limit), else Content-Length bytes
    fast = fast and (len(body) <= 262144 if terminated else len(body) >= int(length))
    with app.request_context(_environ(body, length, terminated)):
        assert (rawbody.read_sized_body(request._get_current_object()) is not None) is fast
