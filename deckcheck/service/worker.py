"""The gunicorn worker ``deckcheck serve`` runs: gunicorn's gthread worker, hardened against slow clients.

gunicorn's threaded worker hands a connection to a thread as soon as a byte arrives and the
thread then blocks until the whole request head is in: a client that sends one header line
every few seconds ("slowloris") holds that thread for as long as it likes, and a few such
clients made ``/healthz`` unreachable. This worker changes two things:

* **The request head is collected without a thread.** A thread only takes in what has
  arrived (non-blocking) and, while the blank line ending the head is missing, hands the
  connection back to the worker's poller: slow and idle clients wait there, costing a file
  descriptor and a few bytes, not a thread. A head must be complete within
  ``DECKCHECK_HEADER_TIMEOUT`` seconds (default 10) of the first look at the connection, or
  the connection is closed. Idle new connections go to the poller after 0.1 s (gunicorn's
  own wait is 5 s) and are closed after gunicorn's ``keepalive`` seconds.
* **So is the body, when its length is known and acceptable** (``Content-Length`` up to
  320 KiB, over the API's 256 KiB limit): it must arrive within ``DECKCHECK_BODY_TIMEOUT``
  seconds (default 10) of the end of the head. Other bodies (chunked, or too large, which the
  app refuses with a 413 without reading them) are read by the thread, and a read that stalls
  for ``DECKCHECK_BODY_TIMEOUT`` seconds ends the request with a 408 in the error envelope.

On SIGTERM the worker accepts the connections already queued at the socket, so they are answered
instead of reset, and closes its copy of the listening socket. When the whole server stops, the master
first makes the socket ignore new connection attempts (a socket filter dropping SYNs), so that queue
empties for good before the socket closes. While it stops, a
connection whose request has not fully arrived is waited for by a thread (up to its deadline) rather
than handed back to the poller, which gthread would close unanswered.

Requests gunicorn refuses itself, before the app sees them (a request line over its limit: 414;
too many or too long header fields: 431; a malformed request: 400), are answered in the API's
error envelope (``{"error": {"code", "message", "details"}}``, JSON) instead of gunicorn's HTML
page. Everything else is gunicorn's gthread worker. It leans on gthread internals of gunicorn 24+
(the ``_DEFER`` hand-back to the poller); on an older gunicorn it behaves as plain gthread.
"""

from __future__ import annotations

import os
import re
import select
import socket
import struct
import time

from gunicorn import util
from gunicorn.http.errors import NoMoreData
from gunicorn.workers import gthread

#: seconds from the first look at a connection (or the end of its previous request) to a complete head
DEFAULT_HEADER_TIMEOUT = 10.0
#: seconds a request body may stall before the request ends with a 408
DEFAULT_BODY_TIMEOUT = 10.0
#: a head longer than this is handed to gunicorn's parser as it is (which refuses it with its own limits)
MAX_HEAD = 64 * 1024
#: how long a thread waits for the first byte of a new connection before handing it back to the poller
FIRST_BYTE_WAIT = 0.1
#: a body up to this long (the API's limit, 4 x 64 KiB, and some) is taken in before a thread serves it
MAX_BODY = 320 * 1024
_END = b"\r\n\r\n"
_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*([0-9]{1,12})[ \t]*(?=\r\n|$)", re.I)


#: the error code of the envelope for each status gunicorn answers by itself
_ERROR_CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "request_header_fields_too_large",
    500: "internal_error",
    501: "not_implemented",
}


def write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error`` in the API's error envelope (JSON, not an HTML page)."""
    import orjson

    body = (
        orjson.dumps(
            {
                "error": {
                    "code": _ERROR_CODES.get(status_int, "bad_request"),
                    "message": f"{reason}: {mesg}" if mesg else reason,
                    "details": {},
                }
            }
        )
        + b"\n"
    )
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


def _body_length(head: bytes) -> int | None:
    """The Content-Length of a request head; None for none (or a chunked or odd one: the parser decides)."""
    if b"transfer-encoding" in head.lower():
        return None
    found = _LENGTH.findall(head)
    return int(found[0]) if len(found) == 1 else None


_DEFER = getattr(gthread, "_DEFER", None)

#: Linux's SO_ATTACH_FILTER (the socket module does not name it)
_SO_ATTACH_FILTER = 26
#: classic BPF over the TCP header: a segment with the SYN flag (a new connection) is dropped, any other passes
_DROP_SYN = (
    (0x30, 0, 0, 13),  # ldb [13]: the flags byte
    (0x45, 1, 0, 0x02),  # jset #SYN: drop
    (0x06, 0, 0, 0xFFFFFFFF),  # ret: the whole segment
    (0x06, 0, 0, 0),
)  # ret: nothing (dropped)
#: seconds a stopping worker waits for handshakes under way to reach the queue before it closes the socket
HANDSHAKE_GRACE = 0.02


def refuse_new_connections(listener) -> bool:
    """Make a TCP listening socket ignore new connection attempts (their SYN) while the connections already
    queued, or mid-handshake, stay. Closing a listening socket resets every connection still in its queue,
    and clients connect faster than a worker can accept-then-close; with new SYNs dropped, the queue can be
    emptied first and a late client is refused (its retried SYN finds no socket) instead of reset after
    sending its request. The filter is on the socket all workers share, and stays until it closes: only for
    a server that stops (the gunicorn master, before it closes its copy: deckcheck.service.runtime.install_drain),
    never for a worker that is replaced. False where the system refuses it."""
    import ctypes
    import struct

    if listener.family not in (socket.AF_INET, socket.AF_INET6):
        return False

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *step) for step in _DROP_SYN))
    try:
        listener.setsockopt(
            socket.SOL_SOCKET, _SO_ATTACH_FILTER, bytes(_Program(len(_DROP_SYN), ctypes.addressof(code)))
        )
    except OSError:
        return False
    return True


def _seconds(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    try:
        number = float(value) if value else default
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, not {value!r}") from None
    if number <= 0:
        raise SystemExit(f"{name} must be more than 0 seconds, not {value!r}")
    return number


class _TimedSocket(socket.socket):
    """The connection's socket, with an inactivity timeout on every blocking read and write.

    The timeout is the kernel's (``SO_RCVTIMEO``, ``SO_SNDTIMEO``), set once per connection: the socket
    stays in plain blocking mode, so a read or write is one system call (a Python-level timeout, as
    ``settimeout`` gives, polls before each one and costs a switch of the interpreter lock each time).
    Every method but ``recv`` is the socket's own.

    A read that times out while the application reads the body raises werkzeug's ``RequestTimeout``
    (a 408 through the app's error handlers); anywhere else gunicorn's ``NoMoreData`` (the connection
    is closed quietly). A write that times out raises ``BlockingIOError``, which ends the request.
    """

    __slots__ = ("in_app", "stall_timeout")
    in_app: bool
    stall_timeout: float

    def recv(self, *args):
        try:
            return _recv(self, *args)
        except BlockingIOError:
            if self.gettimeout() is not None:  # a non-blocking read found nothing: not a stall
                raise
            if self.in_app:
                from werkzeug.exceptions import RequestTimeout

                raise RequestTimeout(
                    f"The request body stalled for more than {self.stall_timeout:g} seconds."
                ) from None
            raise NoMoreData() from None


#: the socket's own recv, without the stall handling (for the non-blocking reads of the head)
_recv = socket.socket.recv


def _timed(sock: socket.socket, timeout: float) -> _TimedSocket:
    """``sock`` as a _TimedSocket (the same connection: the file descriptor moves to the new object)."""
    timed = _TimedSocket(sock.family, sock.type, sock.proto, sock.detach())
    timed.setblocking(False)  # as the socket it replaces (a new socket object assumes blocking)
    timed.in_app, timed.stall_timeout = False, timeout
    seconds = int(timeout)
    value = struct.pack("ll", seconds, int((timeout - seconds) * 1_000_000))
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)
    return timed


def _readable(sock: socket.socket, timeout: float) -> bool:
    """Whether ``sock`` has something to read within ``timeout`` seconds (one poll, no selector object)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(max(0.0, timeout) * 1000))


class DeckcheckWorker(gthread.ThreadWorker):
    """gthread with the request head collected off-thread and a body inactivity timeout."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.header_timeout = _seconds("DECKCHECK_HEADER_TIMEOUT", DEFAULT_HEADER_TIMEOUT)
        self.body_timeout = _seconds("DECKCHECK_BODY_TIMEOUT", DEFAULT_BODY_TIMEOUT)

    def handle(self, conn):
        if _DEFER is None or conn.cfg.is_ssl or conn.is_http2:
            return super().handle(conn)
        try:
            state = self._collect_head(conn)
            while state == "wait" and not self.alive:
                # stopping: the poller is about to close, so this thread waits for the rest of the request
                # (until the connection's deadline) instead of handing it back to be dropped
                _readable(conn.sock, conn.dc_deadline - time.monotonic())
                state = self._collect_head(conn)
        except OSError:
            return False  # reset by the peer: finish_request closes it
        if state == "wait":
            return _DEFER
        if state == "expired":
            self.log.debug("closing %s: no complete request within %gs", conn.client, self.header_timeout)
            conn.dc_expired = True  # finish_request closes it at once
            return False
        conn.data_ready = True  # the head is here: gunicorn must not wait for data again
        return super().handle(conn)

    def _collect_head(self, conn) -> str:
        """Take in what has arrived; 'ready' once the head (and a body of known, acceptable
        length) is complete, or the peer closed; 'wait' or 'expired' otherwise."""
        sock = conn.sock
        if type(sock) is not _TimedSocket:
            sock = conn.sock = _timed(sock, self.body_timeout)
            conn.dc_head, conn.dc_deadline, conn.dc_need = bytearray(), None, None
        if conn.dc_deadline is None:
            conn.dc_deadline = time.monotonic() + self.header_timeout
        if conn.parser is not None and conn.dc_need is None and _END in conn.parser.unreader.buf.getvalue():
            return self._ready(conn)  # a pipelined request already read ahead by the parser
        # a new connection: its request is usually here already; if not, a short wait for its first byte,
        # then the poller waits instead of a thread
        first_look = not conn.initialized and not conn.dc_head and not conn.data_ready
        head = conn.dc_head
        while True:
            want = MAX_HEAD if conn.dc_need is None else conn.dc_need - len(head)
            if want <= 0:
                return self._ready(conn)
            try:
                chunk = _recv(sock, want, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                if first_look:
                    first_look = False
                    if _readable(sock, FIRST_BYTE_WAIT):
                        continue
                    return "wait"
                break
            first_look = False
            if not chunk:  # the peer closed: gunicorn's parser sees the end
                return self._ready(conn)
            start = max(0, len(head) - 3)
            head += chunk  # a bytearray: linear however small the pieces
            if conn.dc_need is None:
                end = head.find(_END, start)
                if end >= 0:
                    body = _body_length(bytes(head[:end]))
                    if not body or body > MAX_BODY:
                        return self._ready(conn)
                    # the body is taken in off-thread too, with a fresh allowance of time
                    conn.dc_need = end + 4 + body
                    conn.dc_deadline = time.monotonic() + self.body_timeout
                elif len(head) >= MAX_HEAD:
                    return self._ready(conn)
        return "expired" if time.monotonic() > conn.dc_deadline else "wait"

    def _ready(self, conn) -> str:
        conn.dc_deadline, conn.dc_need = None, None
        head, conn.dc_head = conn.dc_head, bytearray()
        if head:
            conn.init()  # makes the parser if the connection has none yet (gunicorn's handle makes it blocking)
            conn.parser.unreader.buf.seek(0, os.SEEK_END)
            # bytes the parser already holds (read ahead) come first
            conn.parser.unreader.buf.write(head)
        return "ready"

    def finish_request(self, conn, fs):
        # gthread closes a connection handed back (``_DEFER``) once the worker is stopping, unanswered; a
        # connection whose thread gave it back just before SIGTERM goes to a thread again, which waits for
        # its request (see handle)
        if not self.alive and not fs.cancelled() and fs.exception() is None and fs.result() is _DEFER:
            self.enqueue_req(conn)
            return
        if getattr(conn, "dc_expired", False):
            # no complete request in time: closed at once (gunicorn's graceful close would linger up to 2 s on
            # this thread, the worker's main thread)
            self.nr_conns -= 1
            conn.close()
            return
        super().finish_request(conn, fs)

    def accept(self, listener):
        # a stopping worker closes its listening socket (_take_the_queue); a readable event the poller reported
        # before must not end the worker with EBADF (that would reset every connection it holds)
        try:
            super().accept(listener)
        except OSError:
            if self.alive:
                raise

    def set_accept_enabled(self, enabled):
        if enabled and not self.alive:  # stopping: the listening socket may be closed already
            return
        super().set_accept_enabled(enabled)
        if not enabled and not self.alive and _DEFER is not None and not getattr(self, "_queue_taken", False):
            # run() stops accepting here, on the worker's own thread, once SIGTERM ended its loop
            self._queue_taken = True
            self._take_the_queue()

    def _take_the_queue(self) -> None:
        """Stopping: take every connection already queued at the socket, then close this worker's copy of
        the socket. Each queued connection is answered (``Connection: close``) rather than reset, and once
        every worker has closed its copy (the master closed its own before), new connections are refused
        by the system. Done on the worker's thread, not in the SIGTERM handler: a handler runs between two
        bytecodes of that thread, and its ``nr_conns += 1`` could be lost inside the thread's own
        ``nr_conns -= 1``, letting the worker exit with a connection still open (a reset)."""
        for listener in self.sockets:
            self._accept_queued(listener)
            # connections mid-handshake finish (a round trip) and queue: take those too. When the whole server
            # stops, the master has made the socket ignore new connection attempts (refuse_new_connections),
            # so this empties the queue for good; when only this worker is replaced, the others go on
            # accepting from the same socket
            time.sleep(HANDSHAKE_GRACE)
            self._accept_queued(listener)
            listener.close()

    def _accept_queued(self, listener) -> None:
        for _ in range(self.worker_connections):
            try:
                client_sock, client_addr = listener.accept()
            except OSError:  # BlockingIOError: nothing (more) queued
                return
            self.nr_conns += 1
            client_sock.setblocking(True)
            self.enqueue_req(gthread.TConn(self.cfg, client_sock, client_addr, listener.getsockname()))

    def handle_error(self, req, client, addr, exc):
        # gunicorn's own handle_error picks the status and message, then writes them with
        # util.write_error: that one call is answered in the envelope, in this worker process only
        util.write_error = write_json_error
        super().handle_error(req, client, addr, exc)

    def handle_request(self, req, conn):
        timed = conn.sock
        if type(timed) is not _TimedSocket:
            return super().handle_request(req, conn)
        timed.in_app = True
        try:
            return super().handle_request(req, conn)
        finally:
            timed.in_app = False
