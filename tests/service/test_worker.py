"""The slow-client worker (deckcheck/service/worker/) in process: a real DeckcheckWorker serving the real app over
real loopback TCP connections, its ``handle`` called as a worker thread calls it and ``finish_request`` as
the poller's thread does (tests/service/test_slow_clients.py runs it under gunicorn)."""

from __future__ import annotations

import json
import os
import selectors
import socket
import struct
import time
from concurrent.futures import Future

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger
from gunicorn.workers.gthread import TConn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckcheck.service import worker as dcworker

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
#: what ``handle`` returns to hand a connection back to the poller
DEFER = dcworker._DEFER


@pytest.fixture()
def make(app, monkeypatch):
    """A worker (timeouts in seconds, None: the defaults) and new connections to it: (conn, client)."""
    opened, workers = [], []

    def make_worker(header=None, body=None, send=None):
        for name, value in (
            ("DECKCHECK_HEADER_TIMEOUT", header),
            ("DECKCHECK_BODY_TIMEOUT", body),
            ("DECKCHECK_SEND_TIMEOUT", send),
        ):
            if value is not None:
                monkeypatch.setenv(name, str(value))
        cfg = Config()
        w = dcworker.DeckcheckWorker(0, os.getppid(), [], None, 30, cfg, Logger(cfg))
        w.wsgi, w.alive = app, True
        w.poller = selectors.DefaultSelector()  # the worker's poller (gthread makes it in init_process)
        workers.append(w)

        def connect():
            with socket.create_server(("127.0.0.1", 0)) as listener:
                client = socket.create_connection(listener.getsockname(), timeout=10)
                server, addr = listener.accept()
            server.setblocking(True)  # as gthread's accept
            w.nr_conns += 1
            conn = TConn(cfg, server, addr, ("127.0.0.1", 8000))
            opened.append((conn, client))
            return conn, client

        return w, connect

    yield make_worker
    for conn, client in opened:
        conn.sock.close()  # the worker's socket object (the connection moved to it from the accepted one)
        client.close()
    for w in workers:
        w.tmp.close()  # the heartbeat file every gunicorn worker opens
        w.poller.close()


_pending: dict[int, bytes] = {}


def read_response(client: socket.socket) -> tuple[int, dict, bytes]:
    """One response (what a read took in beyond it is kept for the next call)."""
    data = _pending.pop(client.fileno(), b"")
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        assert chunk, f"closed after {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers["content-length"])
    while len(rest) < length:
        rest += client.recv(65536)
    _pending[client.fileno()] = rest[length:]
    return int(lines[0].split()[1]), headers, rest[:length]


def finish(w, conn, result) -> None:
    """What the poller's thread does once ``handle`` returned ``result``."""
    done = Future()
    done.set_result(result)
    w.finish_request(conn, done)


def test_a_request_is_served_and_the_connection_kept(make):
    w, connect = make()
    conn, client = connect()
    client.sendall(HEALTHZ)
    assert w.handle(conn) is True
    status, headers, body = read_response(client)
    assert status == 200 and json.loads(body)["status"] == "ok" and headers["x-request-id"]
    conn.sock.setblocking(False)  # back in the poller, as finish_request leaves it
    client.sendall(HEALTHZ)
    assert w.handle(conn) is True
    assert read_response(client)[0] == 200


def test_a_head_in_pieces_goes_back_to_the_poller_until_it_is_complete(make):
    w, connect = make()
    conn, client = connect()
    client.sendall(b"GET /healthz HTTP/1.1\r\n")
    assert w.handle(conn) is DEFER
    client.sendall(b"Host: x\r\n")
    assert w.handle(conn) is DEFER
    client.sendall(b"\r\n")
    assert w.handle(conn) is True
    assert read_response(client)[0] == 200


def test_a_new_connection_that_sends_nothing_goes_back_to_the_poller(make):
    w, connect = make()
    conn, client = connect()
    assert w.handle(conn) is DEFER
    client.sendall(HEALTHZ)
    conn.data_ready = True  # the poller saw it readable (on_pending_socket_readable)
    assert w.handle(conn) is True
    assert read_response(client)[0] == 200


def test_pipelined_requests_are_each_answered(make):
    w, connect = make()
    conn, client = connect()
    client.sendall(HEALTHZ + b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert w.handle(conn) is True
    assert w.handle(conn) is True  # the second was read ahead: finish_request hands it back to a thread
    assert read_response(client)[0] == 200
    assert read_response(client)[0] == 200


def test_a_post_body_of_known_length_is_taken_in_before_the_app_runs(make):
    w, connect = make()
    conn, client = connect()
    body = json.dumps({"decklist": "4 Nest Ball SVI 181\n", "as_of": "2026-05-01"}).encode()
    head = (
        f"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    client.sendall(head + body[:10])
    assert w.handle(conn) is DEFER  # the rest of the body is awaited off-thread
    client.sendall(body[10:])
    assert w.handle(conn) is True
    status, _, answer = read_response(client)
    assert status == 200 and json.loads(answer)["valid"] is False


def test_a_chunked_body_that_stalls_ends_with_a_408_in_the_error_envelope(make):
    w, connect = make(body=0.3)
    conn, client = connect()
    client.sendall(
        b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n5\r\n4 Nes"
    )
    w.handle(conn)
    status, headers, body = read_response(client)
    assert status == 408
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"] == "request_timeout"


def test_a_head_not_complete_in_time_gets_a_408_is_closed_at_once_and_counted_once(make):
    w, connect = make(header=0.2)
    conn, client = connect()
    client.sendall(b"GET /healthz HTTP/1.1\r\n")
    assert w.handle(conn) is DEFER
    before = w.nr_conns
    client.sendall(b"Host: x\r\n")
    time.sleep(0.3)
    assert w.handle(conn) is False
    finish(w, conn, False)
    status, headers, body = read_response(client)
    assert (status, headers["connection"]) == (408, "close")
    assert json.loads(body)["error"] == {
        "code": "request_timeout",
        "message": "Request Timeout: the request head did not arrive within 0.2 seconds",
        "details": {},
    }
    assert client.recv(100) == b""  # the worker closed its side; it reads what comes until the client closes
    assert conn in w.lingering
    client.close()
    w._on_lingering(conn)
    assert w.nr_conns == before - 1 and not w.lingering


def test_the_socket_keeps_the_stall_timeout_in_the_kernel_and_stays_blocking(make):
    w, connect = make(body=2.5, send=0.5)
    conn, client = connect()
    client.sendall(HEALTHZ)
    assert w.handle(conn) is True
    assert isinstance(conn.sock, dcworker._TimedSocket)
    assert conn.sock.gettimeout() is None  # plain blocking: no poll before each read and write
    sec, usec = struct.unpack("ll", conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16))
    assert (sec, usec) == (2, 500_000)
    sec, usec = struct.unpack("ll", conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, 16))
    assert (sec, usec) == (0, 500_000)


def test_a_pipelined_head_whose_blank_line_is_split_across_segments_is_answered(make):
    """The first request's read also took in the start of the second, up to half of its blank line."""
    w, connect = make()
    conn, client = connect()
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client.sendall(HEALTHZ + b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r")
    assert w.handle(conn) is True
    assert read_response(client)[0] == 200
    assert w.handle(conn) is DEFER  # the rest of the second head is awaited off-thread
    client.sendall(b"\n")
    assert w.handle(conn) is True
    status, _, body = read_response(client)
    assert status == 200 and "database" in json.loads(body)


def test_pipelined_requests_cut_in_two_anywhere_are_each_answered(make):
    """Three pipelined requests (one with a body) sent in two segments: all three answered in order, wherever
    the cut falls (inside a head's blank line, a body, between requests)."""
    w, connect = make()
    body = b"4 Nest Ball SVI 181\n"
    stream = (
        HEALTHZ
        + b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
        + b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    ends = [i for i in range(len(stream)) if stream.startswith(b"\r\n\r\n", i)]
    # every cut near a head's end (inside its blank line), and every 9th byte elsewhere
    cuts = sorted({*range(1, len(stream), 9), *(i for end in ends for i in range(end - 1, end + 5))})
    for cut in cuts:
        conn, client = connect()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each part its own segment, at once
        answers = []
        for part in (stream[:cut], stream[cut:]):
            client.sendall(part)
            _readable(conn.sock, 1.0)
            time.sleep(0.001)  # all of the part has arrived
            while w.handle(conn) is True:
                conn.sock.setblocking(False)  # back in the poller, as finish_request leaves it
                answers.append(read_response(client))
        assert [status for status, _, _ in answers] == [200, 200, 200], cut
        assert json.loads(answers[1][2])["valid"] is False and "database" in json.loads(answers[2][2])


def _readable(sock, seconds: float) -> None:
    import select

    select.select([sock], [], [], seconds)


BIG = 24 * 1024 * 1024


def big_answer(environ, start_response):
    """A WSGI app answering BIG bytes (more than the socket buffers of loopback hold)."""
    start_response("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(BIG))])
    return [b"x" * BIG]


def _unread_request(make, send):
    w, connect = make(send=send)
    w.wsgi = big_answer
    conn, client = connect()
    client.sendall(HEALTHZ + HEALTHZ)  # two pipelined requests; the client reads nothing yet
    return w, conn, client


def _pump(w, conn, client) -> int:
    """The client reads, the worker's poller sends (as its EVENT_WRITE fires): bytes read, once all is sent."""
    import select

    got = 0
    while conn in w.sending:
        readable, writable, _ = select.select([client], [conn.sock], [], 5)
        assert readable or writable, "stuck"
        if readable:
            got += len(client.recv(1 << 20))
        if writable:
            w._on_writable(conn)
    return got


def test_an_answer_the_client_does_not_read_is_held_and_sent_by_the_poller_not_the_thread(make):
    w, conn, client = _unread_request(make, send=10)
    queued = []
    w.enqueue_req = queued.append  # what finish_request gives a thread
    assert w.handle(conn) is True  # the thread is free at once: it did not wait for the client
    held = len(conn.sock.out)
    assert 0 < held <= BIG and dcworker._HELD.used == held
    finish(w, conn, True)
    assert conn in w.sending and not queued  # the second request waits for the first answer to go out
    got = _pump(w, conn, client)
    assert dcworker._HELD.used == 0 and queued == [conn]  # then a thread takes the second request
    assert w.handle(conn) is True
    finish(w, conn, True)
    got += _pump(w, conn, client)
    client.settimeout(0.5)
    try:
        while chunk := client.recv(1 << 20):
            got += len(chunk)
    except TimeoutError:
        pass
    assert BIG * 2 < got < BIG * 2 + 1000  # both answers whole (each with its head)
    assert conn in w.keepalived_conns  # then kept alive as usual


def test_a_client_that_takes_nothing_for_the_send_timeout_is_closed_and_its_bytes_given_back(make):
    w, conn, client = _unread_request(make, send=0.2)
    assert w.handle(conn) is True
    finish(w, conn, True)
    before = w.nr_conns
    time.sleep(0.3)
    w.murder_pending()
    assert conn not in w.sending and w.nr_conns == before - 1 and dcworker._HELD.used == 0
    assert conn.sock.fileno() == -1  # closed
    with pytest.raises(ConnectionResetError):  # at once, its unsent answer dropped
        while client.recv(1 << 20):
            pass


def test_a_kept_alive_connection_is_closed_after_its_share_of_requests(make, monkeypatch):
    """The last request a connection may make is answered with ``Connection: close``, so the client's next
    connection is placed afresh (SO_REUSEPORT hashes it to any worker)."""
    monkeypatch.setenv("DECKCHECK_KEEPALIVE_REQUESTS", "3")
    w, connect = make()
    conn, client = connect()
    answers = []
    for _ in range(3):
        client.sendall(HEALTHZ)
        answers.append(w.handle(conn))
        conn.sock.setblocking(False)
        answers.append(read_response(client)[1]["connection"])
    assert answers == [True, "keep-alive", True, "keep-alive", False, "close"]


def test_the_readmes_table_of_timeouts_is_the_codes(monkeypatch):
    """README's "Timeouts" table states every timeout with the default the code has (one definition each)."""
    import re
    from pathlib import Path
    from types import SimpleNamespace

    from test_serve import _settings

    from deckcheck.service import runtime

    monkeypatch.delenv("DECKCHECK_REUSE_PORT", raising=False)
    gunicorn_conf = SimpleNamespace(**_settings(monkeypatch))
    assert gunicorn_conf.reuse_port is True  # a socket per worker unless told otherwise
    assert _settings(monkeypatch, DECKCHECK_REUSE_PORT="0")["reuse_port"] is False

    readme = (Path(__file__).resolve().parent.parent.parent / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^  \| [^|]+ \| (`[^`]+`|gunicorn `\w+`) \| ([0-9.]+)(?: s)? \|", readme, re.M))
    assert rows == {
        "`DECKCHECK_HEADER_TIMEOUT`": f"{dcworker.DEFAULT_HEADER_TIMEOUT:g}",
        "`DECKCHECK_BODY_TIMEOUT`": f"{dcworker.DEFAULT_BODY_TIMEOUT:g}",
        "`DECKCHECK_SEND_TIMEOUT`": f"{dcworker.DEFAULT_SEND_TIMEOUT:g}",
        "gunicorn `keepalive`": f"{gunicorn_conf.keepalive:g}",
        "`DECKCHECK_KEEPALIVE_REQUESTS`": f"{dcworker.DEFAULT_KEEPALIVE_REQUESTS}",
        "`DECKCHECK_TIMEOUT`": f"{gunicorn_conf.timeout:g}",
        "gunicorn `graceful_timeout`": f"{gunicorn_conf.graceful_timeout:g}",
        "`DECKCHECK_DRAIN_SECONDS`": f"{runtime.DEFAULT_DRAIN_SECONDS:g}",
    }
    assert f"at most {dcworker.MAX_HELD_OUTPUT // 1024 // 1024} MiB of answers" in readme


_REQUESTS = [
    HEALTHZ,
    b"GET /readyz HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 3000 + b"\r\n\r\n",
    b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\n"
    b"4 Nest Ball SVI 181\n",
]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    picks=st.lists(st.integers(0, len(_REQUESTS) - 1), min_size=1, max_size=4),
    cuts=st.lists(st.floats(0, 1, exclude_min=True, exclude_max=True), max_size=6),
)
def test_pipelined_requests_in_any_segments_are_answered_in_order(make, picks, cuts):
    """Any run of pipelined requests (a long header among them, a body), cut into segments anywhere: every
    request is answered, in order."""
    w, connect = make()
    conn, client = connect()
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stream = b"".join(_REQUESTS[i] for i in picks)
    bounds = sorted({0, len(stream), *(max(1, int(c * len(stream))) for c in cuts)})
    answers = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        client.sendall(stream[start:end])
        _readable(conn.sock, 1.0)
        time.sleep(0.001)
        while w.handle(conn) is True:
            conn.sock.setblocking(False)
            answers.append(read_response(client)[0])
    assert answers == [200] * len(picks)
