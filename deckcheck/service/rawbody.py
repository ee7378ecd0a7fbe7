"""The raw body of a request, read once within the size limit (what the API's views, ``/extras`` and Discord
load), and the body's framing and coding watched at the door for every route.

werkzeug answers 413 for a Content-Length over ``MAX_CONTENT_LENGTH`` but only cuts a chunked body
short, and its checked stream costs more than loading the body; :func:`read_body` reads either within
the limit, through :func:`read_sized_body` when the length is declared.

A body sent in chunks or in a coding is read through :class:`GuardedInput` (:func:`guard_body`, called by
``app.StandardHeaders`` for every request), so whoever reads it meets an HTTP error (a malformed chunk's
400, a Content-Encoding's 415, another transfer coding's 501), and :func:`closes` decides when an answer
ends the connection.
"""

from __future__ import annotations

import io

from flask_smorest import abort
from werkzeug.exceptions import BadRequest, HTTPException, UnsupportedMediaType
from werkzeug.exceptions import NotImplemented as Unimplemented


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


# -- the body's framing and coding, watched at the door ------------------------------------------------------

#: the environ key :func:`closes` sets when the answer must close the connection (the worker honours it)
CLOSE_KEY = "deckcheck.close"
#: the one ``Content-Encoding`` of a request body read here: none (the body as it is)
ACCEPTED_ENCODINGS = ("identity",)
#: the transfer codings of a request body read here: the server's chunked decoding, or none
ACCEPTED_TRANSFER_CODINGS = ("chunked", "identity")


def _cut(text: str, most: int) -> str:
    """``text`` as an answer quotes it: at most ``most`` characters."""
    return text if len(text) <= most else text[: most - 1] + "…"


class MalformedBody(BadRequest):
    """A request body whose transfer coding the server could not read (a chunk size that is not hex, a chunk
    without its CRLF, a malformed trailer): a 400, whoever reads the body."""

    def __init__(self, fault: Exception) -> None:
        super().__init__(
            f"The request body could not be read: its chunked transfer coding is malformed ({_cut(str(fault), 100)}). "
            "Send the body with a Content-Length, or as well-formed chunks."
        )


def refused_encoding(value: str | None) -> UnsupportedMediaType | None:
    """The 415 for a request ``Content-Encoding`` this service does not decode (anything but identity), else None."""
    codings = [c.strip().lower() for c in (value or "").split(",") if c.strip()]
    if all(c in ACCEPTED_ENCODINGS for c in codings):
        return None
    return UnsupportedMediaType(
        f"The request body has Content-Encoding {_cut((value or '').strip(), 40)!r}, "
        "which this service does not accept: send the body uncompressed (no Content-Encoding)."
    )


def refused_transfer_coding(value: str | None) -> Unimplemented | None:
    """The 501 for a ``Transfer-Encoding`` with a coding besides chunked (gzip, deflate, compress: gunicorn
    passes the body on still coded; any other it answers 501 itself), else None."""
    codings = [c.strip(" \t").lower() for c in (value or "").split(",") if c.strip(" \t")]
    if all(c in ACCEPTED_TRANSFER_CODINGS for c in codings):
        return None
    return Unimplemented(
        f"The request body has Transfer-Encoding {_cut((value or '').strip(), 40)!r}: "
        "this service decodes only chunked; send the body uncompressed."
    )


class GuardedInput(io.RawIOBase):
    """The WSGI input of a request whose body needs watching: a chunked one, or one with a Content-Encoding.

    Whoever reads the body (the API's reader, the page's form, ``get_data()``) meets the same answers: a body in
    a coding that is refused raises its 415 at the first read; the server's chunk decoder failing (gunicorn's
    ``InvalidChunkSize``, ``ChunkMissingTerminator``, ``InvalidHeader`` of a trailer; any server's) is a
    :class:`MalformedBody` 400 instead of an exception no handler knows (a 500 and a traceback). ``chunked``
    says the body is sent in chunks, ``ended`` that it was read to its end, ``failed`` that a read raised.
    """

    def __init__(self, stream, refused: HTTPException | None, chunked: bool) -> None:
        super().__init__()
        self._stream, self._refused, self.chunked = stream, refused, chunked
        self.ended = self.failed = False

    def readable(self) -> bool:
        return True

    def _take(self, read, size) -> bytes:
        if self._refused is not None:
            self.failed = True
            raise self._refused
        try:
            data = read(size)
        except (HTTPException, OSError):  # a stalled body's 408 (the worker's), a client gone
            self.failed = True
            raise
        except Exception as exc:  # the server's decoder of the chunked coding
            self.failed = True
            raise MalformedBody(exc) from None
        if not data and size != 0:
            self.ended = True
        return data

    def read(self, size: int | None = -1) -> bytes:
        return self._take(self._stream.read, -1 if size is None else size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._take(self._stream.readline, -1 if size is None else size)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


#: statuses answered while the rest of the body may be unread: the connection cannot carry another request
_CLOSING = ("408", "413")


def guard_body(environ) -> GuardedInput | None:
    """The request's body put behind a :class:`GuardedInput` when it is sent in chunks (or another transfer
    coding, refused) or in a ``Content-Encoding`` (two dictionary look-ups for a usual request), else None."""
    coding, transfer = environ.get("HTTP_CONTENT_ENCODING"), environ.get("HTTP_TRANSFER_ENCODING")
    if transfer is None and not coding:
        return None
    refused = refused_transfer_coding(transfer) or refused_encoding(coding)
    guard = environ["wsgi.input"] = GuardedInput(environ["wsgi.input"], refused, transfer is not None)
    return guard


def closes(environ, status: str, guard: GuardedInput | None) -> bool:
    """Whether the answer ``status`` ends the connection: a 408 or 413 (the rest of the body may be unread),
    or a guarded body that broke or was not read to its end (where the next request would start is
    unknown). Then :data:`CLOSE_KEY` is set, which deckcheck's gunicorn worker honours: gunicorn itself
    drops an application's ``Connection`` header, says ``keep-alive``, and closes the connection when it
    cannot drain the body."""
    if status[:3] in _CLOSING or (guard is not None and (guard.failed or (guard.chunked and not guard.ended))):
        environ[CLOSE_KEY] = True
        return True
    return False
