"""The gunicorn worker ``deckcheck serve`` runs: gunicorn's gthread worker, hardened for clients met without a
proxy in front (slow, idle, pipelining, not reading).

gunicorn's threaded worker hands a connection to a thread as soon as a byte arrives and the
thread then blocks until the whole request head is in, and again while the client takes the answer: a
client that sends one header line every few seconds ("slowloris"), or that never reads what it asked for,
holds that thread for as long as it likes, and a few such clients made ``/healthz`` unreachable. This worker:

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
"""

from __future__ import annotations

import io
import os
import re
import select
import selectors
import socket
import struct
import time
from concurrent.futures import Future
from functools import partial

from gunicorn import util
from gunicorn.http.errors import NoMoreData
from gunicorn.workers import gthread

#: seconds from the first look at a connection (or the end of its previous request) to a complete head
DEFAULT_HEADER_TIMEOUT = 10.0
#: seconds a request body may stall before the request ends with a 408
DEFAULT_BODY_TIMEOUT = 10.0
#: seconds an answer may wait for the client to take any of it before the connection is closed
DEFAULT_SEND_TIMEOUT = 10.0
#: requests one kept-alive connection may make; its last answer says ``Connection: close`` and the client's next
#: connection is hashed to a worker afresh, so a few long-lived clients do not stay on one worker for good
DEFAULT_KEEPALIVE_REQUESTS = 100
#: seconds a closing connection's last bytes are given to reach the client (read side drained meanwhile)
LINGER = 2.0
#: bytes of answers a worker holds for clients that have not taken them yet (over it, a write waits on the thread)
MAX_HELD_OUTPUT = 64 * 1024 * 1024
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
    408: "request_timeout",
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


def _whole(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        number = int(value) if value else default
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {value!r}") from None
    if number < 1:
        raise SystemExit(f"{name} must be at least 1, not {value!r}")
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

    __slots__ = ("in_app", "out", "stall_timeout")
    in_app: bool
    stall_timeout: float
    #: what the client has not taken yet of the answers written while ``in_app`` (sent by the worker's poller)
    out: bytearray

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

    def sendall(self, data, flags=0):
        """While the app answers: what the socket takes at once is sent, the rest is held (``out``) for the
        worker's poller to send, so a client that does not read cannot hold the thread. Over the worker's
        budget (:data:`MAX_HELD_OUTPUT`) the thread waits, each write bounded by the send timeout."""
        if not self.in_app or flags:
            return _sendall(self, data, flags)
        view = memoryview(data).cast("B")
        if not self.out:
            try:
                view = view[_send(self, view, socket.MSG_DONTWAIT) :]
            except (BlockingIOError, InterruptedError):
                pass
            if not view:
                return None
        if _HELD.take(len(view)):
            self.out += view
            return None
        self.flush_blocking()
        return _sendall(self, view)

    def flush_blocking(self) -> None:
        """Send what is held, waiting on this thread (each write bounded by the send timeout)."""
        if self.out:
            held, self.out = self.out, bytearray()
            _HELD.give(len(held))
            _sendall(self, held)

    def sendfile(self, file, offset=0, count=None):
        """A file answer goes through :meth:`sendall` while the app answers (held like any other bytes)."""
        if not self.in_app:
            return super().sendfile(file, offset, count)
        file.seek(offset)
        left = count
        sent = 0
        while left is None or left > 0:
            piece = file.read(65536 if left is None else min(65536, left))
            if not piece:
                break
            self.sendall(piece)
            sent += len(piece)
            left = None if left is None else left - len(piece)
        return sent


class _Budget:
    """Bytes of held answers in this worker process (its threads share it), at most ``limit``."""

    def __init__(self, limit: int):
        import threading

        self.limit, self.used, self._lock = limit, 0, threading.Lock()

    def take(self, n: int) -> bool:
        with self._lock:
            if self.used + n > self.limit:
                return False
            self.used += n
            return True

    def give(self, n: int) -> None:
        with self._lock:
            self.used -= n


_HELD = _Budget(MAX_HELD_OUTPUT)

#: the socket's own recv, without the stall handling (for the non-blocking reads of the head)
_recv = socket.socket.recv
_send = socket.socket.send
_sendall = socket.socket.sendall


def _release(sock: _TimedSocket) -> None:
    """Give a connection's held answer back to the budget (it will not be sent)."""
    if sock.out:
        _HELD.give(len(sock.out))
        sock.out = bytearray()


def _timeval(seconds: float) -> bytes:
    whole = int(seconds)
    return struct.pack("ll", whole, int((seconds - whole) * 1_000_000))


def _timed(sock: socket.socket, timeout: float, send_timeout: float) -> _TimedSocket:
    """``sock`` as a _TimedSocket (the same connection: the file descriptor moves to the new object)."""
    timed = _TimedSocket(sock.family, sock.type, sock.proto, sock.detach())
    timed.setblocking(False)  # as the socket it replaces (a new socket object assumes blocking)
    timed.in_app, timed.stall_timeout, timed.out = False, timeout, bytearray()
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(timeout))
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(send_timeout))
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
        self.send_timeout = _seconds("DECKCHECK_SEND_TIMEOUT", DEFAULT_SEND_TIMEOUT)
        self.keepalive_requests = _whole("DECKCHECK_KEEPALIVE_REQUESTS", DEFAULT_KEEPALIVE_REQUESTS)
        #: connections whose answer the poller is sending: the time by which the client must take more of it
        self.sending: dict = {}
        #: connections closing (their answer sent, a FIN behind it): the time by which they are closed
        self.lingering: dict = {}

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
            conn.dc_expired = True  # finish_request answers 408 and closes it at once
            return False
        conn.data_ready = True  # the head is here: gunicorn must not wait for data again
        return super().handle(conn)

    def _collect_head(self, conn) -> str:
        """Take in what has arrived; 'ready' once the head (and a body of known, acceptable
        length) is complete, or the peer closed; 'wait' or 'expired' otherwise."""
        sock = conn.sock
        if type(sock) is not _TimedSocket:
            sock = conn.sock = _timed(sock, self.body_timeout, self.send_timeout)
            conn.dc_head, conn.dc_deadline, conn.dc_need = bytearray(), None, None
        if conn.dc_deadline is None:
            conn.dc_deadline = time.monotonic() + self.header_timeout
        if conn.parser is not None and conn.dc_need is None and not conn.dc_head:
            # bytes of the next request the parser read ahead (pipelining) start the head collected here, so its
            # end is found wherever it falls: in them, in later segments, or split across both
            held = conn.parser.unreader.buf.getvalue()
            if held:
                conn.parser.unreader.buf = io.BytesIO()
                conn.dc_head += held
                if self._scan(conn, 0):
                    return self._ready(conn)
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
            if self._scan(conn, start):
                return self._ready(conn)
        return "expired" if time.monotonic() > conn.dc_deadline else "wait"

    def _scan(self, conn, start: int) -> bool:
        """Whether the request collected so far is ready for gunicorn's parser; notes where its body ends
        once the head is complete. ``start``: where the end of the head may begin (earlier bytes were looked at)."""
        head = conn.dc_head
        if conn.dc_need is None:
            end = head.find(_END, start)
            if end < 0:
                return len(head) >= MAX_HEAD
            body = _body_length(bytes(head[:end]))
            if not body or body > MAX_BODY:
                return True
            # the body is taken in off-thread too, with a fresh allowance of time
            conn.dc_need = end + 4 + body
            conn.dc_deadline = time.monotonic() + self.body_timeout
        return len(head) >= conn.dc_need

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
        result = fs.result() if not fs.cancelled() and fs.exception() is None else False
        # gthread closes a connection handed back (``_DEFER``) once the worker is stopping, unanswered; a
        # connection whose thread gave it back just before SIGTERM goes to a thread again, which waits for
        # its request (see handle)
        if not self.alive and result is _DEFER:
            self.enqueue_req(conn)
            return
        if getattr(conn, "dc_expired", False):
            # no complete request in time: a 408, closed at once (gunicorn's graceful close would linger up to
            # 2 s on this thread, the worker's main thread)
            self.nr_conns -= 1
            self._close_unfinished(conn)
            return
        sock = conn.sock
        if type(sock) is _TimedSocket and sock.out:
            if sock.fileno() < 0 or result is _DEFER:  # closed on the thread (a broken answer): nothing to send
                _release(sock)
            else:
                # the answer is sent from here, as the client takes it; then the connection goes on as gthread
                # would have it (the next pipelined request, the keep-alive poller, or closed)
                sock.setblocking(False)
                self.sending[conn] = (time.monotonic() + self.send_timeout, result)
                self.poller.register(sock, selectors.EVENT_WRITE, partial(self._on_writable, conn))
                return
        if not result and type(sock) is _TimedSocket:
            # gthread's graceful close waits up to 2 s on this thread (the poller's) for the client to close too:
            # the poller does that wait instead
            self._linger(conn)
            return
        super().finish_request(conn, fs)
        if result is _DEFER and self.alive and type(sock) is _TimedSocket and (conn.dc_head or conn.dc_need):
            # part of a request is in: it has until its own deadline (gthread gives a hand-back its keepalive)
            conn.timeout = conn.dc_deadline

    def _on_writable(self, conn, _fileobj=None) -> None:
        """The poller found the connection writable: send what the client takes of its held answer."""
        sock = conn.sock
        try:
            while sock.out:
                n = _send(sock, sock.out, socket.MSG_DONTWAIT)
                del sock.out[:n]
                _HELD.give(n)
                self.sending[conn] = (time.monotonic() + self.send_timeout, self.sending[conn][1])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # reset by the peer
            self._drop_sending(conn)
            return
        self.poller.unregister(sock)
        _deadline, result = self.sending.pop(conn)
        done: Future = Future()
        done.set_result(result)
        self.finish_request(conn, done)

    def _linger(self, conn) -> None:
        """Close a connection gracefully (RFC 9112 section 9.6) without a thread waiting: a FIN after the answer,
        then the poller reads (and drops) what the client still sends until it closes or :data:`LINGER`
        seconds pass, so the system does not answer those bytes with a reset that could destroy the answer."""
        sock = conn.sock
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ, partial(self._on_lingering, conn))
        except (OSError, ValueError, KeyError):
            self.nr_conns -= 1
            conn.close()
            return
        self.lingering[conn] = time.monotonic() + LINGER

    def _on_lingering(self, conn, _fileobj=None) -> None:
        try:
            for _ in range(16):
                if not _recv(conn.sock, 65536, socket.MSG_DONTWAIT):
                    break  # the client closed too
            else:
                return  # more to come (up to 1 MiB a turn): the poller calls again
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._end_linger(conn)

    def _end_linger(self, conn) -> None:
        self.lingering.pop(conn, None)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass
        self.nr_conns -= 1
        conn.close()

    def _drop_sending(self, conn) -> None:
        """Close a connection whose client stopped taking its answer (or went away)."""
        self.sending.pop(conn, None)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass
        _release(conn.sock)
        self.nr_conns -= 1
        try:
            # a reset, not a FIN queued behind bytes the client will not read: the system frees the connection's
            # buffers now instead of keeping it (orphaned, with its unsent answer) until its retries give up
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        conn.close()

    def murder_pending(self):
        """Close the connections handed back to the poller whose time ran out: one with part of a request in
        gets a 408 first (an idle one is closed quietly, as a kept-alive one); and the connections whose
        client took nothing of its answer for the send timeout. gthread's own assumes one timeout for all."""
        now = time.monotonic()
        if self.pending_conns:
            expired = [conn for conn in self.pending_conns if conn.timeout <= now]
            for conn in expired:
                self.pending_conns.remove(conn)
                try:
                    self.poller.unregister(conn.sock)
                except (KeyError, ValueError, OSError):
                    pass
                self.nr_conns -= 1
                self._close_unfinished(conn)
        for conn in [conn for conn, (deadline, _result) in self.sending.items() if deadline <= now]:
            self.log.debug("closing %s: the answer was not taken within %gs", conn.client, self.send_timeout)
            self._drop_sending(conn)
        for conn in [conn for conn, deadline in self.lingering.items() if deadline <= now]:
            self._end_linger(conn)

    def _close_unfinished(self, conn) -> None:
        """Close a connection whose request did not arrive in time (it is no longer counted in ``nr_conns``):
        a 408 in the error envelope if part of it came, then a graceful close; quietly if none did (an idle
        connection)."""
        sock = conn.sock
        if type(sock) is _TimedSocket and (conn.dc_head or conn.dc_need):
            waited = self.body_timeout if conn.dc_need else self.header_timeout
            self.log.debug("closing %s: no complete request within %gs", conn.client, waited)
            part = "body" if conn.dc_need else "head"
            try:
                write_json_error(
                    sock, 408, "Request Timeout", f"the request {part} did not arrive within {waited:g} seconds"
                )
            except OSError:
                conn.close()
                return
            self.nr_conns += 1  # counted again while it lingers
            self._linger(conn)
            return
        conn.close()

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
            if self.cfg.reuse_port:
                # the socket is this worker's own (one of the port's group, SO_REUSEPORT): the system hashes new
                # connections to it until it closes, so it first ignores them (a client's retried SYN then goes
                # to another worker's socket, or is refused once the whole server stopped), then the queue is
                # taken and stays empty
                refuse_new_connections(listener)
                time.sleep(HANDSHAKE_GRACE)
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
        conn.dc_served = getattr(conn, "dc_served", 0) + 1
        if conn.dc_served >= self.keepalive_requests:
            req.must_close = True  # gunicorn's answer then says "Connection: close"
        timed.in_app = True
        try:
            return super().handle_request(req, conn)
        finally:
            timed.in_app = False
