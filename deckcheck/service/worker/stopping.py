"""A stopping worker: the connections already queued at the listening socket are accepted and answered
rather than reset, then the socket is closed; and the socket filter that makes a listening socket ignore new
connection attempts meanwhile."""

from __future__ import annotations

import socket
import time

from gunicorn.workers import gthread

from .head import DEFER

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


class Stopping(gthread.ThreadWorker):
    """gthread that empties its listening socket's queue when it stops (SIGTERM)."""

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
        if not enabled and not self.alive and DEFER is not None and not getattr(self, "_queue_taken", False):
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
