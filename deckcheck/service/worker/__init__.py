"""The gunicorn worker ``deckcheck serve`` runs: gunicorn's gthread worker, hardened for clients met without a
proxy in front (slow, idle, pipelining, not reading).

gunicorn's threaded worker hands a connection to a thread as soon as a byte arrives and the
thread then blocks until the whole request head is in, and again while the client takes the answer: a
client that sends one header line every few seconds ("slowloris"), or that never reads what it asked for,
holds that thread for as long as it likes, and a few such clients make ``/healthz`` unreachable. This worker:

* **collects the request head without a thread.** A thread only takes in what has
  arrived (non-blocking) and, while the blank line ending the head is missing, hands the
  connection back to the worker's poller: slow and idle clients wait there, costing a file
  descriptor and a few bytes, not a thread. Bytes of a pipelined request read ahead with the previous one
  start the next head, so its end is found however the segments cut it. A head must be complete within
  ``DECKCHECK_HEADER_TIMEOUT`` seconds (default 10) of the first look at the connection (or the end of the
  previous request), or it is answered 408 (the error envelope) and closed. Idle new connections go to the
  poller after 0.1 s (gunicorn's own wait is 5 s) and are closed quietly after gunicorn's ``keepalive``
  seconds (5), as an idle kept-alive connection is.
* **So is the body, when its length is known and acceptable** (``Content-Length`` up to
  320 KiB, over the API's 256 KiB limit): it must arrive within ``DECKCHECK_BODY_TIMEOUT``
  seconds (default 10) of the end of the head, or a 408. Other bodies (chunked, or too large, which the
  app refuses with a 413 without reading them) are read by the thread, and a read that stalls
  for ``DECKCHECK_BODY_TIMEOUT`` seconds ends the request with a 408 in the error envelope.
* **sends answers without a thread.** What the socket does not take at once is held and sent by the
  poller as the client reads; the thread is free for the next request. The client must take some of it
  every ``DECKCHECK_SEND_TIMEOUT`` seconds (default 10), or the connection is closed. The next pipelined
  request on a connection is only started once the previous answer is out: one answer in flight per
  connection. A worker holds at most :data:`MAX_HELD_OUTPUT` bytes so; past that, a write waits on the
  thread (each write bounded by the send timeout).
* **hands kept-alive connections back.** After ``DECKCHECK_KEEPALIVE_REQUESTS`` requests (default 100) the
  answer says ``Connection: close``; with ``reuse_port`` (deckcheck/service/gunicorn_conf.py) every worker
  has its own listening socket and the system hashes each new connection to one of them, so long-lived
  clients are spread over the workers instead of staying with the one that took them first.

On SIGTERM the worker accepts the connections already queued at the socket, so they are answered
instead of reset, and closes its listening socket (its own, with ``reuse_port``: it first ignores new
connection attempts, which the client retries to another worker's socket). When the whole server stops
with one shared socket, the master first makes the socket ignore new connection attempts (a socket filter
dropping SYNs), so that queue empties for good before the socket closes. While it stops, a
connection whose request has not fully arrived is waited for by a thread (up to its deadline) rather
than handed back to the poller, which gthread would close unanswered.

Requests gunicorn refuses itself, before the app sees them (a request line over its limit: 414;
too many or too long header fields: 431; a malformed request: 400), are answered in the API's
error envelope (``{"error": {"code", "message", "details"}}``, JSON) instead of gunicorn's HTML
page. Everything else is gunicorn's gthread worker. It leans on gthread internals of gunicorn 24+
(the ``_DEFER`` hand-back to the poller); on an older gunicorn it behaves as plain gthread.

The parts, one module each: :mod:`.head` (the head collected without a thread), :mod:`.timedsocket` (the
connection's socket: timeouts, held answers), :mod:`.poller` (held answers sent, graceful closes, expired
connections), :mod:`.stopping` (the queue taken on SIGTERM, the SYN filter) and :mod:`.envelope` (gunicorn's
own answers in the error envelope); :class:`DeckcheckWorker` here puts them together.
"""

from __future__ import annotations

import os

from gunicorn import util

from ..rawbody import CLOSE_KEY
from .envelope import write_json_error
from .head import DEFER as _DEFER
from .head import HeadCollecting
from .poller import AnswerSending
from .stopping import HANDSHAKE_GRACE, Stopping, refuse_new_connections
from .timedsocket import HELD as _HELD
from .timedsocket import MAX_HELD_OUTPUT, TimedSocket
from .timedsocket import TimedSocket as _TimedSocket

#: the worker and its settings; the underscored names are the parts tests/service/test_worker.py looks into
__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEPALIVE_REQUESTS",
    "DEFAULT_SEND_TIMEOUT",
    "HANDSHAKE_GRACE",
    "MAX_HELD_OUTPUT",
    "DeckcheckWorker",
    "TimedSocket",
    "_DEFER",
    "_HELD",
    "_TimedSocket",
    "refuse_new_connections",
    "write_json_error",
]

#: seconds from the first look at a connection (or the end of its previous request) to a complete head
DEFAULT_HEADER_TIMEOUT = 10.0
#: seconds a request body may stall before the request ends with a 408
DEFAULT_BODY_TIMEOUT = 10.0
#: seconds an answer may wait for the client to take any of it before the connection is closed
DEFAULT_SEND_TIMEOUT = 10.0
#: requests one kept-alive connection may make; its last answer says ``Connection: close`` and the client's next
#: connection is hashed to a worker afresh, so a few long-lived clients do not stay on one worker for good
DEFAULT_KEEPALIVE_REQUESTS = 100


def honour_close(app):
    """The application, whose answer closes the connection when it says so (``CLOSE_KEY`` in the environ,
    :func:`deckcheck.service.rawbody.closes`): gunicorn drops an application's ``Connection`` header and
    would say ``keep-alive``, then close anyway when the body cannot be drained."""

    def wsgi(environ, start_response):
        result = app(environ, start_response)
        if environ.get(CLOSE_KEY):
            answer = getattr(start_response, "__self__", None)  # gunicorn's Response, whose head is not out yet
            if answer is not None and hasattr(answer, "force_close"):
                answer.force_close()
        return result

    return wsgi


def _seconds(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    try:
        number = float(value) if value else default
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, not {value!r}") from None
    if number <= 0:
        raise SystemExit(f"{name} must be more than 0 seconds, not {value!r}")
    return number


def _whole(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        number = int(value) if value else default
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {value!r}") from None
    if number < 1:
        raise SystemExit(f"{name} must be at least 1, not {value!r}")
    return number


class DeckcheckWorker(Stopping, AnswerSending, HeadCollecting):
    """gthread with the request head collected off-thread, answers sent by the poller, a body inactivity
    timeout, and the socket's queue answered when it stops."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.header_timeout = _seconds("DECKCHECK_HEADER_TIMEOUT", DEFAULT_HEADER_TIMEOUT)
        self.body_timeout = _seconds("DECKCHECK_BODY_TIMEOUT", DEFAULT_BODY_TIMEOUT)
        self.send_timeout = _seconds("DECKCHECK_SEND_TIMEOUT", DEFAULT_SEND_TIMEOUT)
        self.keepalive_requests = _whole("DECKCHECK_KEEPALIVE_REQUESTS", DEFAULT_KEEPALIVE_REQUESTS)
        #: connections whose answer the poller is sending: the time by which the client must take more of it
        self.sending: dict = {}
        #: connections closing (their answer sent, a FIN behind it): the time by which they are closed
        self.lingering: dict = {}

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = honour_close(self.wsgi)  # type: ignore[has-type]

    def handle_error(self, req, client, addr, exc):
        # gunicorn's own handle_error picks the status and message, then writes them with
        # util.write_error: that one call is answered in the envelope, in this worker process only
        util.write_error = write_json_error
        super().handle_error(req, client, addr, exc)

    def handle_request(self, req, conn):
        timed = conn.sock
        if type(timed) is not TimedSocket:
            return super().handle_request(req, conn)
        conn.dc_served = getattr(conn, "dc_served", 0) + 1
        if conn.dc_served >= self.keepalive_requests:
            req.must_close = True  # gunicorn's answer then says "Connection: close"
        timed.in_app = True
        try:
            return super().handle_request(req, conn)
        finally:
            timed.in_app = False
