"""A stand-in app for the slow-reader tests (tests/service/test_fair_serving.py): ``GET /big`` answers 2 MiB, anything
else a few bytes. Served by a real gunicorn with deckcheck's settings and worker, it makes answers larger than
the socket buffers of loopback hold, whatever size deckcheck's own answers have."""

from __future__ import annotations

import os

#: the size of ``/big``'s answer: more than a loopback socket pair buffers, after four of them
BIG = 2 * 1024 * 1024
_BODY = b"x" * BIG


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/big":
        start_response("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(BIG))])
        return [_BODY]
    body = f"ok {os.getpid()}\n".encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
