"""The answer's shape, written by ``Report.to_dict`` (deckcheck/problems.py) and declared by the
marshmallow ``ReportSchema`` (deckcheck/service/schemas/, which the OpenAPI document is made of): the two
agree at every nesting level, over real answers of ``POST /api/v1/validate``.

Every key an answer has is declared, with a type its value has (a JSON string, integer, boolean, array or
object, null only where the schema allows null, a date as ``YYYY-MM-DD``, a value its validators accept);
every key declared required is there; and every key the schema declares, at any level, is written with a
value (not null) by some answer of the corpus: a key declared but never written is a drift too.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

import marshmallow as ma
import pytest
from conftest import SHIPPED_FORMATS
from marshmallow import fields

from deckcheck.problems import Report
from deckcheck.service.schemas import ReportSchema

DECKS = Path(__file__).resolve().parent.parent / "decks"
DATE = "2026-05-01"
#: the rotation of 2026-04-10 announced, not yet in force: the forecast names the G-mark cards
BEFORE_ROTATION = "2026-03-01"
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")


def _corpus() -> Iterator[tuple[str, dict]]:
    """(id, request body): real lists of every kind a report describes."""
    for path in sorted(DECKS.rglob("*.txt")):  # valid and invalid lists, exports of every site, JSON decks
        yield path.relative_to(DECKS).as_posix(), {"decklist": path.read_text(encoding="utf-8"), "as_of": DATE}
    for fmt in SHIPPED_FORMATS:  # each format's own rules and pool, on a date each knows
        yield f"charizard-{fmt}", {"decklist": CHARIZARD, "format": fmt, "as_of": DATE}
    yield "unknown-cards", {"decklist": "4 Nest Bal SVI 9999\n3 Pikachu\n4 Qwertyuiop\n", "as_of": DATE}
    yield "empty", {"decklist": "", "as_of": DATE}
    yield "translated", {"decklist": "4 Hyper Ball SVI 196\n4 Nest Ball SVI 181\n1 Lilia\n4 Faiblo Ball\n"}
    yield "forecast-announced", {"decklist": CHARIZARD, "as_of": BEFORE_ROTATION, "forecast": True}
    yield "forecast-assumed", {"decklist": CHARIZARD, "as_of": DATE, "forecast": True}
    yield "forecast-none", {"decklist": CHARIZARD, "format": "expanded", "as_of": DATE, "forecast": True}
    yield "before-the-data", {"decklist": CHARIZARD, "as_of": "1990-01-01"}


CORPUS = dict(_corpus())
CHAT = ("invalid-chat", "empty-chat")


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    """Each request of the corpus answered by the API (the JSON as sent), and twice in the chat style;
    then each read back by the client (``Report.from_dict``) and written again."""
    from deckcheck.service.app import create_app

    client = create_app({"TESTING": True, "RATELIMIT_ENABLED": False}).test_client()
    out: dict[str, dict] = {}
    for name, body in CORPUS.items():
        response = client.post("/api/v1/validate", json=body)
        assert response.status_code == 200, (name, response.get_data(as_text=True))
        out[name] = json.loads(response.get_data())
    for name, deck in zip(CHAT, ("standard-legal-dragapult.txt", "rules/glc-broken.txt"), strict=True):
        text = (DECKS / deck).read_text(encoding="utf-8")
        response = client.post("/api/v1/validate?style=chat", json={"decklist": text, "as_of": DATE})
        assert response.status_code == 200, (name, response.get_data(as_text=True))
        out[name] = json.loads(response.get_data())
    for name in list(out):
        out[f"{name}, read back"] = Report.from_dict(out[name]).to_dict()
    return out


# -- the comparison ---------------------------------------------------------------------------------

#: the JSON type each kind of field declares (a bool is not an integer here, as in JSON)
SCALARS: dict[type[fields.Field], type] = {fields.String: str, fields.Integer: int, fields.Boolean: bool}


def _key(name: str, field: fields.Field) -> str:
    return field.data_key or name


def declared(schema: ma.Schema, where: str = "report") -> Iterator[str]:
    """Every key path a schema declares, nested schemas included (``report.cards[].card.id``)."""
    for name, field in schema.fields.items():
        path = f"{where}.{_key(name, field)}"
        yield path
        while isinstance(field, fields.List):
            field, path = field.inner, path + "[]"
        if isinstance(field, fields.Nested):
            yield from declared(field.schema, path)


def disagreements(schema: ma.Schema, value: object, written: set[str], where: str = "report") -> list[str]:
    """Where ``value`` (a dict as the answer has it) differs from ``schema``; each key path written with a
    value (not null) is added to ``written``."""
    if type(value) is not dict:
        return [f"{where}: {type(value).__name__}, declared an object ({type(schema).__name__})"]
    fields_by_key = {_key(name, field): field for name, field in schema.fields.items()}
    found = [
        f"{where}.{key}: written, not declared in {type(schema).__name__}" for key in value if key not in fields_by_key
    ]
    for key, field in fields_by_key.items():
        if key in value:
            found += _field(field, value[key], written, f"{where}.{key}")
        elif field.required:
            found.append(f"{where}.{key}: declared required in {type(schema).__name__}, not written")
    return found


def _field(field: fields.Field, value: object, written: set[str], where: str) -> list[str]:
    if value is None:
        return [] if field.allow_none else [f"{where}: null, declared not nullable"]
    written.add(re.sub(r"\[\d+\]", "[]", where))
    if isinstance(field, fields.Nested):
        return disagreements(field.schema, value, written, where)
    if isinstance(field, fields.List):
        if type(value) is not list:
            return [f"{where}: {type(value).__name__}, declared an array"]
        return [e for i, item in enumerate(value) for e in _field(field.inner, item, written, f"{where}[{i}]")]
    if isinstance(field, fields.Dict):
        if type(value) is not dict:
            return [f"{where}: {type(value).__name__}, declared an object"]
        found = []
        for k, v in value.items():
            if field.key_field is not None:
                found += _field(field.key_field, k, set(), f"{where} key {k!r}")
            if field.value_field is not None:
                found += _field(field.value_field, v, set(), f"{where}[{k!r}]")
        return found
    kind = next((SCALARS[c] for c in type(field).__mro__ if c in SCALARS), None)
    if kind is None:
        return [f"{where}: declared as {type(field).__name__}, a field this comparison does not know"]
    if type(value) is not kind:
        return [f"{where}: {type(value).__name__} {value!r}, declared {kind.__name__}"]
    found = []
    if field.metadata.get("format") == "date":
        try:
            ok = re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None and bool(dt.date.fromisoformat(value))
        except ValueError:
            ok = False
        if not ok:
            found.append(f"{where}: {value!r}, declared a date (YYYY-MM-DD)")
    for validator in field.validators:
        try:
            validator(value)
        except ma.ValidationError as exc:
            found.append(f"{where}: {value!r}: {exc.messages}")
    return found


# -- the tests ----------------------------------------------------------------------------------------


def test_the_comparison_finds_each_kind_of_disagreement(answers):
    good = answers["ptcgl-en-charizard.txt"]
    assert good["problems"] and good["cards"][0]["card"] is not None
    assert disagreements(ReportSchema(), good, set()) == []
    bad = json.loads(json.dumps(good))
    bad["problems"][0]["severity_rank"] = 1  # a key the schema does not declare, one level down
    del bad["cards"][0]["card"]["rarity"]  # a required key missing, two levels down
    bad["counts"]["total"] = True  # a bool where an integer is declared
    bad["cards"][0]["count"] = "4"  # a string where an integer is declared
    bad["database"]["cards"] = None  # null where null is not allowed
    bad["as_of"] = "2026-5-1"  # not a date as declared
    bad["problems"][0]["severity"] = "fatal"  # not one of the declared values
    bad["database"]["sources"] = {"tcgdex": 3}  # an object's value of the wrong type
    assert disagreements(ReportSchema(), bad, set()) == [
        "report.as_of: '2026-5-1', declared a date (YYYY-MM-DD)",
        "report.problems[0].severity_rank: written, not declared in ProblemSchema",
        "report.problems[0].severity: 'fatal': ['Must be one of: error, warning, info.']",
        "report.cards[0].count: str '4', declared int",
        "report.cards[0].card.rarity: declared required in CardSchema, not written",
        "report.counts.total: bool True, declared int",
        "report.database.sources['tcgdex']: int 3, declared str",
        "report.database.cards: null, declared not nullable",
    ]


@pytest.mark.parametrize("name", [*CORPUS, *CHAT])
def test_every_key_of_the_answer_is_declared_with_its_type(answers, name):
    for answer in (answers[name], answers[f"{name}, read back"]):
        assert disagreements(ReportSchema(), answer, set()) == []


def test_every_declared_key_is_written_by_some_answer(answers):
    """The other way round: a key the schema declares (at any level) that no answer writes with a value
    is a key ``to_dict`` does not write, or one the corpus misses (then add a list that has it)."""
    written: set[str] = set()
    for answer in answers.values():
        disagreements(ReportSchema(), answer, written)
    assert [path for path in declared(ReportSchema()) if path not in written] == []
