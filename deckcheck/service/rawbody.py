"""The raw body of a request, read once within the size limit (what the API's views load).

werkzeug answers 413 for a Content-Length over ``MAX_CONTENT_LENGTH`` but only cuts a chunked body
short, and its checked stream costs more than loading the body; :func:`read_body` reads either within
the limit, through :func:`read_sized_body` when the length is declared.
"""

from __future__ import annotations

import io

from flask_smorest import abort


def read_body(req) -> bytes:
    """The body; werkzeug raises 413 past MAX_CONTENT_LENGTH, but a chunked body it only cuts short."""
    raw = read_sized_body(req)
    if raw is not None:
        return raw
    raw = req.get_data(cache=True)
    limit = req.max_content_length
    if req.content_length is None and limit is not None and len(raw) >= limit:
        abort(
            413,
            message=f"The request body is larger than the limit of {limit:,} bytes.",
            details={"limit": limit, "unit": "bytes"},
        )
    return raw


def read_sized_body(req) -> bytes | None:
    """``req.get_data(cache=True)`` for a body with a Content-Length within MAX_CONTENT_LENGTH, read
    from the WSGI input at once, or None when werkzeug must read it (no or a malformed length, one
    over the limit, a body already read).

    werkzeug's checked stream (``LimitedStream``, the length and limit looked up on the way) costs
    more than the rest of reading and loading the body (BENCHMARKS.md). Read the
    way werkzeug reads it: to the end of a stream the server ends (``wsgi.input_terminated``, as
    gunicorn does), else Content-Length bytes. A read that werkzeug would refuse (a client gone
    early, a stream over the limit) is handed back to werkzeug as if untouched, for its own
    answer. The bytes are kept where ``get_data()`` finds them.
    """
    environ = req.environ
    length = environ.get("CONTENT_LENGTH")
    if not length or not length.isdigit() or not length.isascii() or "_cached_data" in req.__dict__:
        return None
    size, limit = int(length), req.max_content_length
    if limit is None or size > limit or "stream" in req.__dict__:
        return None
    stream = environ["wsgi.input"]
    if "wsgi.input_terminated" in environ:
        # the server ends the stream (gunicorn: at Content-Length); werkzeug reads to its end, up to the limit
        chunks, total = [], 0
        while chunk := stream.read(limit + 1 - total):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                break
        raw = b"".join(chunks)
        complete = total <= limit
    else:  # werkzeug reads exactly Content-Length bytes
        raw = stream.read(size) if size else b""
        complete = len(raw) == size
    if not complete:
        environ["wsgi.input"] = _Replay(raw, stream)
        return None
    req._cached_data = raw
    return raw


class _Replay(io.RawIOBase):
    """A WSGI input whose first bytes were read already: those, then the rest of the stream."""

    def __init__(self, head: bytes, rest) -> None:
        super().__init__()
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        chunk = self._rest.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)
