"""Serving without a proxy in front (issue 27): connections spread over the workers, a client that does not
read its answers cannot hold a worker, pipelined heads in any pieces are answered, a stalled request gets a
408 at its own deadline.

Everything runs for real on 127.0.0.1: gunicorn with deckcheck's settings and worker (``deckcheck serve``, or
``tests/bigapp.py`` where an answer larger than the socket buffers is needed).
"""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT, start_gunicorn
from slowclients import probe
from test_serve import serve_on_free_port, stop

DECK = (Path(__file__).resolve().parent.parent / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

pytestmark = [pytest.mark.slow, pytest.mark.server]


def read_answer(sock: socket.socket, pending: bytearray) -> tuple[int, dict, bytes]:
    """One HTTP answer from ``sock`` (bytes read beyond it stay in ``pending``)."""
    while b"\r\n\r\n" not in pending:
        chunk = sock.recv(65536)
        assert chunk, f"closed after {bytes(pending)!r}"
        pending += chunk
    head, _, _ = bytes(pending).partition(b"\r\n\r\n")
    del pending[: len(head) + 4]
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", 0))
    while len(pending) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed inside a body"
        pending += chunk
    body = bytes(pending[:length])
    del pending[:length]
    return int(lines[0].split()[1]), headers, body


def _bigapp(workers: int, env: dict | None = None):
    return start_gunicorn(
        "bigapp:app", env={"GUNICORN_CMD_ARGS": f"--pythonpath {ROOT / 'tests'}", **(env or {})}, workers=workers
    )


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except Exception:  # noqa: BLE001
        proc.kill()
        proc.wait()


def _until_every_worker_answers(port: int, workers: int) -> None:
    """Wait (bounded) until ``workers`` workers answered new connections: each opens its socket as it starts."""
    seen = set()
    for _ in range(300):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            seen.add(read_answer(sock, bytearray())[2].split()[1])
        if len(seen) == workers:
            return
        time.sleep(0.05)
    raise AssertionError(f"only {len(seen)} workers answered")


def test_keep_alive_connections_spread_over_the_workers():
    """40 kept-alive connections, 3 requests each, to 3 workers: no worker answers more than 60% (it was
    100% on one with one shared socket). The connections' hash decides: 60% is 3.6 standard deviations above
    a third, with 40 connections."""
    proc, base = _bigapp(3)
    port = int(base.rsplit(":", 1)[1])
    answered: Counter = Counter()
    conns = []
    try:
        _until_every_worker_answers(port, 3)
        for _ in range(40):
            conns.append((socket.create_connection(("127.0.0.1", port), timeout=10), bytearray()))
        for _round in range(3):
            for sock, pending in conns:
                sock.sendall(b"GET /who HTTP/1.1\r\nHost: x\r\n\r\n")
                status, _, body = read_answer(sock, pending)
                assert status == 200
                answered[body.split()[1]] += 1
    finally:
        for sock, _ in conns:
            sock.close()
        _stop(proc)
    assert sum(answered.values()) == 120
    assert len(answered) == 3 and max(answered.values()) <= 72, answered


def test_clients_that_never_read_their_answers_cannot_hold_the_workers():
    """8 clients pipeline 4 requests for 2 MiB each and read nothing: the workers go on answering probes."""
    proc, base = _bigapp(2, {"DECKCHECK_SEND_TIMEOUT": "20"})
    port = int(base.rsplit(":", 1)[1])
    hogs = []
    answers = []
    try:
        for _ in range(8):
            hog = socket.create_connection(("127.0.0.1", port), timeout=10)
            hog.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n" * 4)
            hogs.append(hog)
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            answers.append(probe(base, DECK)[0])  # /healthz, at most 5 s
            time.sleep(0.2)
    finally:
        for hog in hogs:
            hog.close()
        _stop(proc)
    assert answers and set(answers) == {200}, answers


def test_a_pipelined_head_split_across_segments_is_answered():
    proc, port, _base = serve_on_free_port(1)
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = bytearray()
        sock.sendall(HEALTHZ + b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r")
        time.sleep(0.3)
        sock.sendall(b"\n")
        first, second = read_answer(sock, pending), read_answer(sock, pending)
        sock.close()
    finally:
        stop(proc)
    assert first[0] == 200 and json.loads(first[2])["status"] == "ok"
    assert second[0] == 200 and "database" in json.loads(second[2])


def _sent_then_wait(port: int, parts: list[bytes], pause: float) -> tuple[bytes, float]:
    """Send ``parts`` with ``pause`` seconds between them; everything the server sent until it closed, and when."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    start = time.monotonic()
    for i, part in enumerate(parts):
        if i:
            time.sleep(pause)
        sock.sendall(part)
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except ConnectionResetError:
        pass
    sock.close()
    return answer, time.monotonic() - start


def test_a_pause_longer_than_the_keepalive_inside_a_head_or_body_is_waited_for():
    """The head and body timeouts (10 s) are what a request gets, not gunicorn's keepalive (5 s)."""
    proc, port, _base = serve_on_free_port(1)
    try:
        head, _ = _sent_then_wait(port, [b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\nConnection: close\r\n\r\n"], 6)
        body = b"4 Nest Ball SVI 181\n"
        post, _ = _sent_then_wait(
            port,
            [
                b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:5],
                body[5:],
            ],
            6,
        )
    finally:
        stop(proc)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n"), head
    assert post.startswith(b"HTTP/1.1 200 OK\r\n"), post


def test_a_stalled_head_or_body_gets_a_408_in_the_error_envelope():
    proc, port, _base = serve_on_free_port(1, {"DECKCHECK_HEADER_TIMEOUT": "2", "DECKCHECK_BODY_TIMEOUT": "2"})
    try:
        head, _ = _sent_then_wait(port, [b"GET /healthz HTTP/1.1\r\nHost: x\r\n"], 0)
        body, _ = _sent_then_wait(
            port, [b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n4 Nest"], 0
        )
    finally:
        stop(proc)
    for answer, part in ((head, "head"), (body, "body")):
        status, _, rest = answer.partition(b"\r\n")
        assert status == b"HTTP/1.1 408 Request Timeout", answer
        assert b"\r\nConnection: close\r\n" in answer
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["error"] == {
            "code": "request_timeout",
            "message": f"Request Timeout: the request {part} did not arrive within 2 seconds",
            "details": {},
        }
