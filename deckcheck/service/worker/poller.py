"""What the worker's poller does besides accepting: send held answers as clients take them, close
connections gracefully without a thread waiting, and close the connections whose time ran out."""

from __future__ import annotations

import selectors
import socket
import struct
import time
from concurrent.futures import Future
from functools import partial

from gunicorn.workers import gthread

from .envelope import write_json_error
from .head import DEFER
from .timedsocket import HELD, TimedSocket, raw_recv, raw_send, release_held

#: seconds a closing connection's last bytes are given to reach the client (read side drained meanwhile)
LINGER = 2.0


class AnswerSending(gthread.ThreadWorker):
    """gthread whose poller takes a connection over once its thread is done with it: it sends held answers
    (``sending``), lingers over closing connections (``lingering``) and closes expired ones. The worker sets
    those two dicts, ``header_timeout``, ``body_timeout`` and ``send_timeout``."""

    def finish_request(self, conn, fs):
        result = fs.result() if not fs.cancelled() and fs.exception() is None else False
        # gthread closes a connection handed back (``_DEFER``) once the worker is stopping, unanswered; a
        # connection whose thread gave it back just before SIGTERM goes to a thread again, which waits for
        # its request (see handle)
        if not self.alive and result is DEFER:
            self.enqueue_req(conn)
            return
        if getattr(conn, "dc_expired", False):
            # no complete request in time: a 408, closed at once (gunicorn's graceful close would linger up to
            # 2 s on this thread, the worker's main thread)
            self.nr_conns -= 1
            self._close_unfinished(conn)
            return
        sock = conn.sock
        if type(sock) is TimedSocket and sock.out:
            if sock.fileno() < 0 or result is DEFER:  # closed on the thread (a broken answer): nothing to send
                release_held(sock)
            else:
                # the answer is sent from here, as the client takes it; then the connection goes on as gthread
                # would have it (the next pipelined request, the keep-alive poller, or closed)
                sock.setblocking(False)
                self.sending[conn] = (time.monotonic() + self.send_timeout, result)
                self.poller.register(sock, selectors.EVENT_WRITE, partial(self._on_writable, conn))
                return
        if not result and type(sock) is TimedSocket:
            # gthread's graceful close waits up to 2 s on this thread (the poller's) for the client to close too:
            # the poller does that wait instead
            self._linger(conn)
            return
        super().finish_request(conn, fs)
        if result is DEFER and self.alive and type(sock) is TimedSocket and (conn.dc_head or conn.dc_need):
            # part of a request is in: it has until its own deadline (gthread gives a hand-back its keepalive)
            conn.timeout = conn.dc_deadline

    def _on_writable(self, conn, _fileobj=None) -> None:
        """The poller found the connection writable: send what the client takes of its held answer."""
        sock = conn.sock
        try:
            while sock.out:
                n = raw_send(sock, sock.out, socket.MSG_DONTWAIT)
                del sock.out[:n]
                HELD.give(n)
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
                if not raw_recv(conn.sock, 65536, socket.MSG_DONTWAIT):
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
        release_held(conn.sock)
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
        if type(sock) is TimedSocket and (conn.dc_head or conn.dc_need):
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
