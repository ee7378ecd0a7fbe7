"""The request head (and a body of known, acceptable length) collected without a thread: a thread takes in
what has arrived and, while the request is incomplete, hands the connection back to the worker's poller
(gthread's ``_DEFER``), where a slow or idle client costs a file descriptor, not a thread."""

from __future__ import annotations

import io
import os
import re
import socket
import time
from functools import cache

from gunicorn.workers import gthread

from .timedsocket import TimedSocket, raw_recv, readable_within, timed_socket

#: a head longer than this is handed to gunicorn's parser as it is (which refuses it with its own limits)
MAX_HEAD = 64 * 1024
#: how long a thread waits for the first byte of a new connection before handing it back to the poller
FIRST_BYTE_WAIT = 0.1
#: a body up to this long (the API's limit, 4 x 64 KiB, and some) is taken in before a thread serves it
MAX_BODY = 320 * 1024
_END = b"\r\n\r\n"


@cache
def _length() -> re.Pattern[bytes]:
    """A request head's Content-Length field (its value: up to 12 digits)."""
    return re.compile(rb"\r\ncontent-length:[ \t]*([0-9]{1,12})[ \t]*(?=\r\n|$)", re.I)


def _body_length(head: bytes) -> int | None:
    """The Content-Length of a request head; None for none (or a chunked or odd one: the parser decides)."""
    if b"transfer-encoding" in head.lower():
        return None
    found = _length().findall(head)
    return int(found[0]) if len(found) == 1 else None


#: gthread's value for "hand the connection back to the poller" (gunicorn 24+; None on an older gunicorn)
DEFER = getattr(gthread, "_DEFER", None)


class HeadCollecting(gthread.ThreadWorker):
    """gthread whose threads serve a request only once its head (and a short body) is in; the worker sets
    ``header_timeout``, ``body_timeout`` and ``send_timeout``."""

    def handle(self, conn):
        if DEFER is None or conn.cfg.is_ssl or conn.is_http2:
            return super().handle(conn)
        try:
            state = self._collect_head(conn)
            while state == "wait" and not self.alive:
                # stopping: the poller is about to close, so this thread waits for the rest of the request
                # (until the connection's deadline) instead of handing it back to be dropped
                readable_within(conn.sock, conn.dc_deadline - time.monotonic())
                state = self._collect_head(conn)
        except OSError:
            return False  # reset by the peer: finish_request closes it
        if state == "wait":
            return DEFER
        if state == "expired":
            conn.dc_expired = True  # finish_request answers 408 and closes it at once
            return False
        conn.data_ready = True  # the head is here: gunicorn must not wait for data again
        return super().handle(conn)

    def _collect_head(self, conn) -> str:
        """Take in what has arrived; 'ready' once the head (and a body of known, acceptable
        length) is complete, or the peer closed; 'wait' or 'expired' otherwise."""
        sock = conn.sock
        if type(sock) is not TimedSocket:
            sock = conn.sock = timed_socket(sock, self.body_timeout, self.send_timeout)
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
                chunk = raw_recv(sock, want, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                if first_look:
                    first_look = False
                    if readable_within(sock, FIRST_BYTE_WAIT):
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
