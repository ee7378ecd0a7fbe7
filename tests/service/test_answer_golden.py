"""The bytes ``POST /api/v1/validate`` answers, held against a golden file: real lists (the eight tournament
lists of ``benchmarks/bench_floor.py``, each in its format, and lists with problems of every kind), as JSON
and as text/plain, with the rotation forecast and in the chat style.

The answer is written from precomputed pieces (each card line's JSON, the report's fields); whatever
writes it, the bytes stay these. Only the ``database`` object (its version and build time change with
every build) is taken out, and compared apart with the database's own ``info()``.

Regenerate with ``DECKCHECK_REGEN=1 python -m pytest tests/service/test_answer_golden.py`` and read the
diff: every change in it must be intended.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from deckcheck import cards
from deckcheck.service.app import create_app

HERE = Path(__file__).resolve().parent
DECKS = HERE.parent / "decks"
GOLDEN = HERE / "golden" / "validate-answers.txt"
REGEN = os.environ.get("DECKCHECK_REGEN") == "1"
DATE = "2026-05-01"
PUBLIC_URL = "https://decks.example.org"
DATABASE = b'"database":"<the database\'s info()>"'

#: (name, query string, body as JSON, or the text/plain body)
CASES: list[tuple[str, str, dict | str]] = [
    *(
        (
            f"{path} ({fmt})",
            "",
            {"decklist": (HERE.parent / path).read_text(encoding="utf-8"), "format": fmt, "as_of": DATE},
        )
        for path, fmt in (
            ("decks/standard-legal-dragapult.txt", "standard"),
            ("cli/decks/valid.txt", "standard"),
            ("decks/rules/dragapult-limitless.txt", "standard"),
            ("decks/rules/dragapult-ptcgo.txt", "standard"),
            ("decks/ptcgl-en-charizard.txt", "expanded"),
            ("decks/ptcgl-fr-random-line.txt", "expanded"),
            ("decks/limitless-energy-set-code.txt", "expanded"),
            ("decks/rules/glc-lightning.txt", "glc"),
            ("decks/rules/glc-broken.txt", "glc"),
            ("decks/ptcgl-en-charizard.txt", "standard"),
        )
    ),
    ("unknown cards", "", {"decklist": "4 Nest Bal SVI 9999\n3 Pikachu\n4 Qwertyuiop\n", "as_of": DATE}),
    ("empty", "", {"decklist": "", "as_of": DATE}),
    (
        "before the data",
        "",
        {"decklist": (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8"), "as_of": "1990-01-01"},
    ),
    (
        "forecast",
        "",
        {
            "decklist": (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8"),
            "as_of": "2026-03-01",
            "forecast": True,
        },
    ),
    ("text/plain", f"format=expanded&as_of={DATE}", (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")),
    (
        "chat, valid",
        "style=chat",
        {"decklist": (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8"), "as_of": DATE},
    ),
    (
        "chat, broken",
        "style=chat",
        {"decklist": (DECKS / "rules/glc-broken.txt").read_text(encoding="utf-8"), "format": "glc", "as_of": DATE},
    ),
]


def answers() -> dict[str, bytes]:
    """Each case's answer as sent, its ``database`` object replaced by :data:`DATABASE` (after checking it
    is the database's ``info()``)."""
    client = create_app({"TESTING": True, "RATELIMIT_ENABLED": False, "PUBLIC_URL": PUBLIC_URL}).test_client()
    database = b'"database":' + orjson.dumps(cards.get_db().info())
    out = {}
    for name, query, body in CASES:
        url = "/api/v1/validate" + (f"?{query}" if query else "")
        if isinstance(body, str):
            response = client.post(url, data=body.encode("utf-8"), content_type="text/plain; charset=utf-8")
        else:
            response = client.post(url, json=body)
        assert response.status_code == 200, (name, response.get_data(as_text=True))
        raw = response.get_data()
        assert raw.count(database) == 1, name
        out[name] = raw.replace(database, DATABASE)
    return out


def _written(found: dict[str, bytes]) -> bytes:
    return b"".join(b"=== %s\n%s" % (name.encode("utf-8"), raw) for name, raw in found.items())


def _read(data: bytes) -> dict[str, bytes]:
    out = {}
    for part in data.split(b"=== ")[1:]:
        name, _, raw = part.partition(b"\n")
        out[name.decode("utf-8")] = raw
    return out


def test_validate_answers_are_the_golden_bytes():
    found = answers()
    if REGEN:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_bytes(_written(found))
        pytest.skip("golden written")
    golden = _read(GOLDEN.read_bytes())
    assert list(found) == list(golden)
    for name in golden:
        assert found[name] == golden[name], name
