"""The Python client (deckcheck/client.py) against the real app served on 127.0.0.1.

Most calls go to the session's gunicorn (``live_server``). Retries, timeouts and
odd answers are tested through small real HTTP servers in threads that answer
from a script (503s, slow answers, a proxy's HTML page) and then pass requests on
to the real app: no mock of requests or urllib3.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
import requests
from conftest import free_port

from deckcheck import check, create_app
from deckcheck.client import (
    Client,
    ClientError,
    ConnectionFailed,
    DeckcheckError,
    InvalidRequest,
    NotFound,
    RateLimited,
    ServerError,
    Unauthorized,
)
from deckcheck.problems import Problem, Report

DECKS = Path(__file__).resolve().parent / "decks"
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
UNAVAILABLE = {"error": {"code": "service_unavailable", "message": "Restarting.", "details": {}}}


@pytest.fixture()
def api(live_server):
    with Client(live_server, timeout=30) as client:
        yield client


# -- the API, through the client ---------------------------------------------------------


@pytest.mark.parametrize(
    "deck", ["standard-legal-dragapult.txt", "ptcgl-en-charizard.txt", "json-deck.txt", "tricky-names.txt"]
)
def test_validate_gives_the_librarys_report_with_the_same_json(api, live_server, deck):
    text = (DECKS / deck).read_text(encoding="utf-8")
    report = api.validate(text, format="standard", as_of=DATE)
    direct = requests.post(
        f"{live_server}/api/v1/validate", json={"decklist": text, "format": "standard", "as_of": DATE}, timeout=30
    ).json()
    assert isinstance(report, Report)
    assert all(isinstance(p, Problem) for p in report.problems)
    assert report.to_dict() == direct
    local = check(text, "standard", DATE)
    assert (report.valid, report.summary, report.problems) == (local.valid, local.summary, local.problems)


def test_validate_defaults_dates_and_other_formats(api):
    assert api.validate(LEGAL, as_of=dt.date(2026, 5, 1)).format == "standard"
    glc = api.validate(LEGAL, format="glc", as_of=DATE)
    assert (glc.format, glc.format_name, glc.valid) == ("glc", "Gym Leader Challenge", False)
    assert api.validate(LEGAL).as_of == dt.date.today().isoformat()


def test_chat_reply(api):
    reply = api.chat(CHARIZARD, as_of=DATE)
    assert reply.startswith("❌ Not valid for Standard on 2026-05-01: ") and len(reply) <= 2000


def test_formats_and_cards(api):
    formats = api.formats()
    assert formats["default"] == "standard"
    assert "glc" in [f["id"] for f in formats["formats"]]
    assert api.format("glc")["name"] == "Gym Leader Challenge"
    assert api.cards("nest bal")[0]["name"] == "Nest Ball"
    assert [c["id"] for c in api.cards(set="SVI", number="181")] == ["sv01-181"]
    assert len(api.cards("ball", limit=3)) == 3


# -- errors carry the envelope --------------------------------------------------------------


def test_an_unknown_format_is_an_invalid_request_with_the_envelope(api):
    with pytest.raises(InvalidRequest) as caught:
        api.validate(LEGAL, format="standart")
    error = caught.value
    assert (error.status, error.code) == (422, "unprocessable")
    assert error.message.startswith("Invalid request: format: Unknown format 'standart'.")
    assert list(error.details) == ["json"] and "format" in error.details["json"]
    assert str(error).startswith("HTTP 422 unprocessable: Invalid request: format:")
    assert isinstance(error, ClientError) and isinstance(error, DeckcheckError)


def test_a_decklist_over_the_limit_is_an_invalid_request(api):
    with pytest.raises(InvalidRequest) as caught:
        api.validate("1 Nest Ball SVI 181\n" * 1001)
    assert (caught.value.status, caught.value.code, caught.value.details) == (
        413,
        "payload_too_large",
        {"limit": 1000, "size": 1001, "unit": "lines"},
    )


def test_an_unknown_format_id_is_not_found(api):
    with pytest.raises(NotFound) as caught:
        api.format("standart")
    assert (caught.value.status, caught.value.code) == (404, "not_found")
    assert caught.value.message.startswith("Unknown format 'standart'.")


def test_an_unknown_api_key_is_unauthorized(live_server):
    with Client(live_server, api_key="not-a-key") as client, pytest.raises(Unauthorized) as caught:
        client.formats()
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")


class ServedApp:
    """``create_app(config)`` served by wsgiref in a thread on 127.0.0.1 (the real app, its own config)."""

    def __init__(self, **config):
        class Quiet(WSGIRequestHandler):
            def log_message(self, *args):
                pass

        self.server = make_server("127.0.0.1", 0, create_app({"TESTING": True, **config}), handler_class=Quiet)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.slow
def test_over_the_limit_is_rate_limited_with_retry_after_and_not_retried():
    served = ServedApp(RATELIMIT_DEFAULT="2 per minute")
    try:
        client = Client(served.url, timeout=10)
        client.formats()
        client.formats()
        started = time.monotonic()
        with pytest.raises(RateLimited) as caught:
            client.formats()
        assert time.monotonic() - started < 1  # a 429 is the caller's to handle, not retried
        error = caught.value
        assert (error.status, error.code) == (429, "rate_limited")
        assert 1 <= error.retry_after <= 60 and error.details["retry_after"] == int(error.retry_after)
    finally:
        served.close()


# -- retries, timeouts, odd answers -------------------------------------------------------------


class Scripted:
    """A real HTTP server in a thread: answers from ``script`` first, then passes requests on to ``upstream``.

    Script items: ``(status, headers, body)`` to answer, or ``("sleep", seconds)`` to answer late.
    """

    def __init__(self, script=(), upstream: str | None = None, sock: socket.socket | None = None):
        self.script, self.upstream, self.seen = list(script), upstream, []
        self.listen_late = sock is not None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def handle_any(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.seen.append((self.command, self.path))
                step = outer.script.pop(0) if outer.script else None
                if step and step[0] == "sleep":
                    time.sleep(step[1])
                    step = None
                if step:
                    status, headers, payload = step
                else:
                    answer = requests.request(
                        self.command,
                        outer.upstream + self.path,
                        data=body,
                        timeout=30,
                        headers={"Content-Type": self.headers.get("Content-Type", "")},
                    )
                    status, payload = answer.status_code, answer.content
                    headers = {k: v for k, v in answer.headers.items() if k.lower() in ("content-type", "retry-after")}
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = handle_any

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that gave up (timeout) is expected here

        self.server = Server(("127.0.0.1", 0), Handler, bind_and_activate=sock is None)
        self.server.daemon_threads = True
        if sock is not None:
            self.server.socket.close()
            self.server.socket = sock
        self.url = f"http://127.0.0.1:{self.server.socket.getsockname()[1]}"

    def start(self) -> Scripted:
        if self.listen_late:
            self.server.server_activate()  # listen() on the socket bound earlier
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def unavailable(retry_after: str | None = "0"):
    headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
    return 503, headers, json.dumps(UNAVAILABLE).encode()


@pytest.mark.slow
def test_a_503_is_retried_then_the_real_answer_comes_through(live_server):
    server = Scripted([unavailable(), unavailable(None)], upstream=live_server).start()
    try:
        report = Client(server.url, timeout=30, backoff_factor=0.05).validate(LEGAL, as_of=DATE)
        assert report.valid and report.to_dict() == check(LEGAL, "standard", DATE).to_dict()
        assert server.seen == [("POST", "/api/v1/validate")] * 3  # POST is retried: validate is idempotent
    finally:
        server.close()


@pytest.mark.slow
def test_retry_after_on_a_503_is_honoured(live_server):
    server = Scripted([unavailable("1")], upstream=live_server).start()
    try:
        started = time.monotonic()
        assert Client(server.url, timeout=30, backoff_factor=0).formats()["default"] == "standard"
        assert time.monotonic() - started >= 0.9
        assert len(server.seen) == 2
    finally:
        server.close()


@pytest.mark.slow
def test_503s_past_the_retries_are_a_server_error_with_the_envelope():
    server = Scripted([unavailable()] * 10).start()
    try:
        with pytest.raises(ServerError) as caught:
            Client(server.url, timeout=10, retries=2, backoff_factor=0.01).formats()
        error = caught.value
        assert (error.status, error.code, error.message, error.details) == (
            503,
            "service_unavailable",
            "Restarting.",
            {},
        )
        assert len(server.seen) == 3
    finally:
        server.close()


@pytest.mark.slow
def test_a_retry_after_longer_than_the_client_waits_is_raised_at_once():
    server = Scripted([unavailable("3600")]).start()
    try:
        started = time.monotonic()
        with pytest.raises(ServerError) as caught:
            Client(server.url, timeout=10, max_retry_after=5).formats()
        assert time.monotonic() - started < 2
        assert caught.value.status == 503 and len(server.seen) == 1
    finally:
        server.close()


@pytest.mark.slow
def test_other_errors_are_not_retried_and_need_no_envelope():
    server = Scripted([(502, {"Content-Type": "text/html"}, b"<h1>Bad Gateway</h1>")]).start()
    try:
        with pytest.raises(ServerError) as caught:
            Client(server.url, timeout=10).formats()
        assert (caught.value.status, caught.value.code) == (502, "http_502")
        assert "<h1>Bad Gateway</h1>" in caught.value.message and len(server.seen) == 1
    finally:
        server.close()


@pytest.mark.slow
def test_a_refused_connection_is_retried_until_the_server_listens(live_server):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # bound but not listening: connections are refused
    server = Scripted(upstream=live_server, sock=sock)
    timer = threading.Timer(0.3, server.start)
    timer.start()
    try:
        started = time.monotonic()
        formats = Client(server.url, timeout=10, retries=6, backoff_factor=0.2).formats()
        assert formats["default"] == "standard" and time.monotonic() - started >= 0.3
    finally:
        timer.join()
        server.close()


def test_nothing_listening_is_a_connection_failure():
    started = time.monotonic()
    with pytest.raises(ConnectionFailed) as caught:
        Client(f"http://127.0.0.1:{free_port()}", timeout=5, retries=2, backoff_factor=0.01).formats()
    assert caught.value.status is None and caught.value.code == "connection_failed"
    assert time.monotonic() - started < 5


@pytest.mark.slow
def test_every_call_has_a_timeout_and_a_slow_answer_is_not_retried(live_server):
    server = Scripted([("sleep", 2)], upstream=live_server).start()
    try:
        started = time.monotonic()
        with pytest.raises(ConnectionFailed) as caught:
            Client(server.url, timeout=0.3).formats()
        assert caught.value.code == "timeout" and time.monotonic() - started < 1.5
        assert len(server.seen) == 1
    finally:
        server.close()


def test_a_session_of_your_own_is_used_as_it_is(live_server):
    with requests.Session() as session:
        session.headers["X-Test"] = "1"
        client = Client(live_server + "/", session=session, timeout=30)
        assert client.session is session and client.formats()["default"] == "standard"
        client.close()
        assert client.formats()["default"] == "standard"  # not closed: it is the caller's
