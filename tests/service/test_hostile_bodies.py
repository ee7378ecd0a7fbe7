"""Request bodies a server decodes before the app reads them, against ``deckcheck serve`` (gunicorn with deckcheck's
worker) on 127.0.0.1 over raw sockets: a malformed chunked body on every POST route, a body past the limit in
chunks, a body in a Content-Encoding. Each is answered in the route's own error rendering, says
``Connection: close`` when the server closes, and leaves no traceback in the log."""

from __future__ import annotations

import gzip
import html
import json
import socket

import pytest
from test_serve import serve_on_free_port, stop

pytestmark = [pytest.mark.server]

#: every route that reads a request body, with the body's type and how its errors are rendered
POST_ROUTES = [
    ("/api/v1/validate", "text/plain", "api"),
    ("/api/v1/validate", "application/json", "api"),
    ("/extras", "application/json", "extras"),
    ("/", "application/x-www-form-urlencoded", "page"),
    ("/api/v1/discord/interactions", "application/json", "api"),
]
#: chunked bodies gunicorn's decoder refuses, and the words of its complaint
MALFORMED_CHUNKS = {
    "chunk-size": (b"zz\r\n4 a\r\n0\r\n\r\n", "Invalid chunk size"),
    "chunk-terminator": (b"3\r\n4 aXX0\r\n\r\n", "Invalid chunk terminator"),
    "trailer": (b"3\r\n4 a\r\n0\r\nbad trailer\r\n\r\n", "Invalid HTTP Header"),
}


@pytest.fixture(scope="module")
def served():
    proc, port, _base = serve_on_free_port(
        1, {"DECKCHECK_RATELIMIT_ENABLED": "false", "DECKCHECK_DISCORD_PUBLIC_KEY": "ab" * 32}
    )
    yield port
    rc, _out, err = stop(proc)
    # every hostile request was answered by the app or the worker, none by an exception escaping to the log
    assert rc == 0 and "Traceback" not in err and "Error handling request" not in err, err[-3000:]


def exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes, bool]:
    """Send ``request`` on a new connection: (status, headers, body, whether the server then closed it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers["content-length"])
        while len(body) < length:
            chunk = s.recv(65536)
            assert chunk
            body += chunk
        s.settimeout(2)  # a closing server closes at once; an idle kept-alive connection lasts 5 s
        try:
            closed = s.recv(1) == b""
        except TimeoutError:
            closed = False
        return int(lines[0].split()[1]), headers, body[:length], closed


def chunked(path: str, content_type: str, body: bytes, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n{extra}Transfer-Encoding: chunked\r\n\r\n"
    ).encode() + body


def message_of(kind: str, body: bytes) -> str:
    if kind == "api":
        answer = json.loads(body)["error"]
        assert answer["code"] in ("bad_request", "payload_too_large", "unsupported_media_type", "not_implemented"), (
            answer
        )
        return answer["message"]
    if kind == "extras":
        return json.loads(body)["error"]
    return body.decode()


@pytest.mark.parametrize("path, content_type, kind", POST_ROUTES)
@pytest.mark.parametrize("fault", sorted(MALFORMED_CHUNKS))
def test_a_malformed_chunked_body_is_a_400_in_the_route_s_rendering_and_the_connection_closes(
    served, path, content_type, kind, fault
):
    port = served
    body, words = MALFORMED_CHUNKS[fault]
    status, headers, answer, closed = exchange(port, chunked(path, content_type, body))
    assert status == 400
    message = message_of(kind, answer)
    assert "The request body could not be read: its chunked transfer coding is malformed (" in message
    assert words in message
    if kind == "page":
        assert headers["content-type"].startswith("text/html") and 'class="alert-message"' in message
    assert headers["connection"] == "close" and closed


@pytest.mark.parametrize("path, content_type, kind", POST_ROUTES[:4])
def test_a_chunked_body_past_the_limit_is_a_413_that_says_the_connection_closes(served, path, content_type, kind):
    port = served
    size = 300 * 1024
    chunks = b"".join(b"%x\r\n%s\r\n" % (4096, b"a" * 4096) for _ in range(size // 4096)) + b"0\r\n\r\n"
    status, headers, answer, closed = exchange(port, chunked(path, content_type, chunks))
    assert status == 413
    assert headers["connection"] == "close" and closed
    assert "larger than" in message_of(kind, answer)


@pytest.mark.parametrize("path, content_type, kind", POST_ROUTES[:4])
@pytest.mark.parametrize("coding", ["gzip", "br", "x-custom"])
def test_a_body_in_a_content_encoding_is_a_415_saying_the_encoding_is_not_accepted(
    served, path, content_type, kind, coding
):
    port = served
    body = gzip.compress(b"4 Nest Ball SVI 181\n")
    request = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nContent-Encoding: {coding}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    status, _headers, answer, _closed = exchange(port, request)
    assert status == 415
    message = html.unescape(message_of(kind, answer))
    assert f"The request body has Content-Encoding '{coding}', which this service does not accept" in message


def test_an_identity_content_encoding_is_read_as_no_encoding(served):
    port = served
    body = b"4 Nest Ball SVI 181\n"
    request = (
        "POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Encoding: identity\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    status, headers, answer, closed = exchange(port, request)
    assert status == 200 and json.loads(answer)["counts"]["total"] == 4
    assert headers["connection"] == "keep-alive" and not closed


@pytest.mark.parametrize("target", ["/api/v1/formats/%ff%fe", "/api/v1/formats/%ed%a0%80", "/rules%c3"])
def test_a_path_that_is_not_utf8_is_a_400_that_says_where(served, target):
    port = served
    status, _headers, answer, _closed = exchange(port, f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1"))
    assert status == 400
    assert "The request path is not valid UTF-8: byte 0x" in answer.decode()


@pytest.mark.parametrize("path, content_type, kind", POST_ROUTES[:4])
@pytest.mark.parametrize("coding", ["gzip", "deflate", "compress"])
def test_a_body_in_a_transfer_coding_besides_chunked_is_a_501_as_gunicorn_answers_any_other(
    served, path, content_type, kind, coding
):
    # gunicorn takes these three codings and hands the body over still coded; it answers any other 501 itself
    port = served
    body = gzip.compress(b"4 Nest Ball SVI 181\n")
    request = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n"
        f"Transfer-Encoding: {coding}, chunked\r\n\r\n"
    ).encode() + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    status, headers, answer, closed = exchange(port, request)
    assert status == 501
    message = html.unescape(message_of(kind, answer))
    assert f"The request body has Transfer-Encoding '{coding}, chunked': this service decodes only chunked" in message
    assert headers["connection"] == "close" and closed
