"""The connection's socket as the worker holds it: kernel timeouts on blocking reads and writes, and the
answers a client has not taken yet held (within one budget per worker process) for the poller to send."""

from __future__ import annotations

import select
import socket
import struct

from gunicorn.http.errors import NoMoreData

#: bytes of answers a worker holds for clients that have not taken them yet (over it, a write waits on the thread)
MAX_HELD_OUTPUT = 64 * 1024 * 1024


class TimedSocket(socket.socket):
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
            return raw_recv(self, *args)
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
            return raw_sendall(self, data, flags)
        view = memoryview(data).cast("B")
        if not self.out:
            try:
                view = view[raw_send(self, view, socket.MSG_DONTWAIT) :]
            except (BlockingIOError, InterruptedError):
                pass
            if not view:
                return None
        if HELD.take(len(view)):
            self.out += view
            return None
        self.flush_blocking()
        return raw_sendall(self, view)

    def flush_blocking(self) -> None:
        """Send what is held, waiting on this thread (each write bounded by the send timeout)."""
        if self.out:
            held, self.out = self.out, bytearray()
            HELD.give(len(held))
            raw_sendall(self, held)

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


HELD = _Budget(MAX_HELD_OUTPUT)

#: the socket's own recv, without the stall handling (for the non-blocking reads of the head)
raw_recv = socket.socket.recv
raw_send = socket.socket.send
raw_sendall = socket.socket.sendall


def release_held(sock: TimedSocket) -> None:
    """Give a connection's held answer back to the budget (it will not be sent)."""
    if sock.out:
        HELD.give(len(sock.out))
        sock.out = bytearray()


def _timeval(seconds: float) -> bytes:
    whole = int(seconds)
    return struct.pack("ll", whole, int((seconds - whole) * 1_000_000))


def timed_socket(sock: socket.socket, timeout: float, send_timeout: float) -> TimedSocket:
    """``sock`` as a TimedSocket (the same connection: the file descriptor moves to the new object)."""
    timed = TimedSocket(sock.family, sock.type, sock.proto, sock.detach())
    timed.setblocking(False)  # as the socket it replaces (a new socket object assumes blocking)
    timed.in_app, timed.stall_timeout, timed.out = False, timeout, bytearray()
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(timeout))
    timed.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(send_timeout))
    return timed


def readable_within(sock: socket.socket, timeout: float) -> bool:
    """Whether ``sock`` has something to read within ``timeout`` seconds (one poll, no selector object)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(max(0.0, timeout) * 1000))
