"""The app factory's WSGI middleware: headers every answer carries."""

from __future__ import annotations

import pytest
from werkzeug.test import Client
from werkzeug.wrappers import Response

import deckcheck
from deckcheck.service.app import StandardHeaders, create_app

PAGE = {"Content-Security-Policy": "default-src 'self'", "X-Content-Type-Options": "nosniff"}
VERSION = ("X-Deckcheck-Version", deckcheck.__version__)
NOSNIFF = ("X-Content-Type-Options", "nosniff")


def answering(*headers):
    """A WSGI app answering 200 with ``headers``, wrapped in StandardHeaders."""

    def app(environ, start_response):
        return Response("ok", headers=list(headers))(environ, start_response)

    return Client(StandardHeaders(app, PAGE))


@pytest.mark.parametrize(
    ("path", "origin", "sent", "expected"),
    [
        # pages: the security headers, unless the page set its own
        ("/", None, [], [VERSION, *PAGE.items()]),
        ("/static/deckcheck.js", "https://a.example", [], [VERSION, *PAGE.items()]),
        (
            "/docs",
            None,
            [("content-security-policy", "default-src 'none'")],
            [("content-security-policy", "default-src 'none'"), VERSION, ("X-Content-Type-Options", "nosniff")],
        ),
        ("/apis", None, [], [VERSION, *PAGE.items()]),  # not under /api
        # the API without Origin: Vary: Origin, merged into a Vary the answer has; nosniff on every API answer
        ("/api", None, [], [VERSION, NOSNIFF, ("Vary", "Origin")]),
        ("/api/v1/validate", None, [], [VERSION, NOSNIFF, ("Vary", "Origin")]),
        ("/api/v1/validate", None, [("Vary", "Accept")], [("Vary", "Accept, Origin"), VERSION, NOSNIFF]),
        ("/api/v1/validate", None, [("Vary", "accept, origin")], [("Vary", "accept, origin"), VERSION, NOSNIFF]),
        # the API with Origin: flask-cors answers the page (and adds Vary itself when it must)
        ("/api/v1/validate", "https://a.example", [], [VERSION, NOSNIFF]),
        # a page for people under /api (the API reference): the page headers as well
        (
            "/api/v1/docs",
            None,
            [("Content-Type", "text/html; charset=utf-8")],
            [VERSION, NOSNIFF, ("Vary", "Origin"), *((k, v) for k, v in PAGE.items() if k != "X-Content-Type-Options")],
        ),
    ],
)
def test_standard_headers(path, origin, sent, expected):
    headers = {"Origin": origin} if origin else {}
    answer = answering(*sent).get(path, headers=headers)
    got = [(name, value) for name, value in answer.headers.items() if name not in ("Content-Type", "Content-Length")]
    assert got == expected


def test_the_database_has_one_knob_deckcheck_db(monkeypatch):
    """DECKCHECK_CARD_DB_PATH would be a second way to name the database file: refused, naming the one knob."""
    monkeypatch.setenv("DECKCHECK_CARD_DB_PATH", "/nowhere/cards.json.gz")
    with pytest.raises(ValueError) as err:
        create_app({"TESTING": True})
    assert str(err.value) == "DECKCHECK_CARD_DB_PATH is not a setting: set DECKCHECK_DB instead (the one knob for it)"
