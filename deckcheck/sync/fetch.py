"""Bounded HTTP downloads: every byte ``deckcheck db sync`` and ``deckcheck db pull`` fetch comes
through :func:`fetch`.

A server may be hostile or broken; whatever it sends, a download ends within its bounds:

- **a total deadline** (:class:`Deadline`): besides the per-read socket timeout, a wall-clock end for
  the whole download, retries and redirects included. When it passes, a watchdog shuts the
  download's sockets down, so a body or a head trickling one byte at a time ends there too;
- **a byte cap** on every body, on the wire and after its ``Content-Encoding`` is undone (gzip and
  deflate are inflated here, piece by piece, never past the cap: a gzip-encoded answer is capped
  like any other); another coding is refused;
- **one host** (or a list of them): a redirect to another host, or from https to http, is refused
  with a clear message, never followed;
- **retries** by urllib3's :class:`~urllib3.util.Retry` (:class:`CappedRetry`, the one retry policy
  of both commands and of :mod:`deckcheck.client`) on connection errors, 429 and 5xx, honouring
  ``Retry-After`` up to a cap.

Every failure is a :class:`DownloadError` with a one-line message. The limits are defined here
(and the database file's in :mod:`deckcheck.cards.files`) and listed in the README's section on keeping
the database current.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.client import HTTPException
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError, InvalidHeader, MaxRetryError, ReadTimeoutError, ResponseError
from urllib3.util import Retry

from ..cards.files import Inflate, InflateError

#: the most a published ``.sha256`` may hold (``sha256sum`` format: 64 hex digits, two spaces, a name)
CHECKSUM_MAX_BYTES = 512
#: the most one TCGdex (or pokemontcg.io) answer may hold, on the wire and decoded: the largest,
#: a page of 250 pokemontcg.io cards, is about 1 MB
API_MAX_BYTES = 16 * 1024 * 1024
#: the most one ``db pull`` round (the checksum and the database) may take, seconds (``--deadline``)
PULL_DEADLINE = 600.0
#: the most one ``db sync`` run may take, seconds (``--deadline``); a first full sync takes minutes
SYNC_DEADLINE = 3 * 3600.0
#: the most one API answer of ``db sync`` may take, retries included, seconds
ANSWER_DEADLINE = 120.0
#: the longest ``Retry-After`` ``db sync`` and ``db pull`` wait for; a longer one ends the download
MAX_RETRY_AFTER = 120.0
#: the longest wait between two retries of one request (urllib3's backoff is capped here)
BACKOFF_MAX = 30.0
#: redirects followed per download (all on the allowed hosts)
MAX_REDIRECTS = 5
#: the codings asked for, and the only ones undone (bounded); a server sending another is refused
ACCEPT_ENCODING = "gzip, deflate"
RETRY_STATUSES = (429, 500, 502, 503, 504)
CHUNK = 64 * 1024


class DownloadError(Exception):
    """A download failed: ``url`` and why, in one line."""

    def __init__(self, url: str, reason: str, status: int | None = None):
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.status = status


class BodyBrokeOff(DownloadError):
    """The answer's body broke off or is not whole (worth fetching again)."""


class DeadlineExceeded(DownloadError):
    """The download's total deadline passed before the answer was whole."""


class Deadline:
    """A wall-clock end, ``seconds`` from now (monotonic), for a download or a whole run."""

    def __init__(self, seconds: float, what: str):
        self.seconds = seconds
        self.what = what
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def sooner(self, seconds: float, what: str) -> Deadline:
        """This deadline, or one ``seconds`` from now if that comes first."""
        return Deadline(seconds, what) if seconds < self.remaining() else self

    def exceeded(self, url: str) -> DeadlineExceeded:
        return DeadlineExceeded(url, f"no complete answer within {self.what}'s deadline of {self.seconds:g} s")


# ---------------------------------------------------------------------------
# The watchdog: the connections of the download running in this thread
# ---------------------------------------------------------------------------


class _Watch:
    """The connections one download used; :meth:`fire` (at its deadline) shuts their sockets down,
    which ends a read blocked in another thread at once, and refuses any connection after that."""

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.fired = False
        self._conns: list = []
        self._lock = threading.Lock()

    def add(self, conn) -> None:
        with self._lock:
            if self.fired:
                raise _Fired()
            self._conns.append(conn)

    def fire(self) -> None:
        with self._lock:
            self.fired = True
            for conn in self._conns:
                sock = getattr(conn, "sock", None)
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


class _Fired(Exception):
    """A connection or a retry's wait asked for past the deadline (urllib3 does not catch it: the
    download ends)."""


_local = threading.local()
#: the downloads running now, in any thread (what :func:`stop_all` ends)
_running: set[_Watch] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


@contextmanager
def _watched(deadline: Deadline) -> Iterator[_Watch]:
    watch = _Watch(deadline)
    timer = threading.Timer(max(0.0, deadline.remaining()), watch.fire)
    timer.daemon = True
    with _running_lock:
        _running.add(watch)
    if _stopping.is_set():
        watch.fire()
    else:
        timer.start()
    outer = getattr(_local, "watch", None)
    _local.watch = watch
    try:
        yield watch
    finally:
        timer.cancel()
        _local.watch = outer
        with _running_lock:
            _running.discard(watch)


def stop_all() -> None:
    """End every download running in this process now and any started later (the process is being
    stopped: SIGTERM), so threads blocked on a slow server let it exit at once."""
    _stopping.set()
    with _running_lock:
        watches = list(_running)
    for watch in watches:
        watch.fire()


def _current_watch() -> _Watch | None:
    return getattr(_local, "watch", None)


class _WatchedPool(HTTPConnectionPool):
    """A pool whose every connection handed out is reported to the running download's watchdog."""

    def _get_conn(self, timeout=None):
        conn = super()._get_conn(timeout)
        watch = _current_watch()
        if watch is not None:
            try:
                watch.add(conn)
            except _Fired:
                self._put_conn(conn)
                raise
        return conn


class _WatchedHTTPSPool(_WatchedPool, HTTPSConnectionPool):
    pass


_POOLS = {"http": _WatchedPool, "https": _WatchedHTTPSPool}


class CappedRetry(Retry):
    """urllib3's :class:`~urllib3.util.Retry`, the one retry policy of every HTTP call deckcheck makes
    (``db sync``, ``db pull`` and the API client :mod:`deckcheck.client`): a ``Retry-After`` longer
    than ``max_retry_after`` is never slept through: the answer that asked for it is handed back at
    once (with ``raise_on_status=False``) for the caller to report; and within a bounded download
    (:func:`fetch`) no wait outlasts the download's deadline."""

    def __init__(self, *args, max_retry_after: float = MAX_RETRY_AFTER, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_retry_after = max_retry_after

    def new(self, **kw):
        return super().new(**{"max_retry_after": self.max_retry_after, **kw})

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if response is not None and self.respect_retry_after_header:
            wait = self.get_retry_after(response)
            if wait is not None and wait > self.max_retry_after:
                # with raise_on_status=False urllib3 hands this response back: the caller reports its status
                raise MaxRetryError(
                    _pool,
                    url,
                    ResponseError(f"Retry-After of {wait:g} s is longer than the {self.max_retry_after:g} s waited"),
                )
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def sleep(self, response=None) -> None:
        watch = _current_watch()
        if watch is not None:
            wait = (self.get_retry_after(response) if response is not None else None) or self.get_backoff_time()
            if wait >= watch.deadline.remaining():
                raise _Fired()
        super().sleep(response)


class _Adapter(HTTPAdapter):
    """requests' adapter whose connection pools report each connection to the running download's watchdog."""

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


class BoundedSession(requests.Session):
    """A :class:`requests.Session` that stays on ``hosts``: a redirect elsewhere (or from https to
    http) raises :class:`DownloadError` instead of being followed."""

    def __init__(self, hosts: Iterable[str], *, retries: int, backoff: float, pool_size: int, user_agent: str):
        super().__init__()
        self.hosts = frozenset(h.lower() for h in hosts)
        self.max_redirects = MAX_REDIRECTS
        retry = CappedRetry(
            total=retries,
            connect=retries,
            read=retries,
            status=retries,
            other=0,
            backoff_factor=backoff,
            backoff_max=BACKOFF_MAX,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset({"GET"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        adapter = _Adapter(max_retries=retry, pool_connections=2, pool_maxsize=max(1, pool_size))
        self.mount("http://", adapter)
        self.mount("https://", adapter)
        self.headers.update({"User-Agent": user_agent, "Accept-Encoding": ACCEPT_ENCODING})

    def get_redirect_target(self, resp):
        target = super().get_redirect_target(resp)
        if target is None:
            return None
        where = urljoin(resp.url, target)
        parts, came_from = urlsplit(where), urlsplit(resp.url)
        host = (parts.hostname or "").lower()
        if host not in self.hosts or parts.scheme not in ("http", "https"):
            resp.close()
            raise DownloadError(
                resp.url,
                f"redirected to another host ({host or where}); refused: a download stays on "
                + ", ".join(sorted(self.hosts)),
            )
        if came_from.scheme == "https" and parts.scheme != "https":
            resp.close()
            raise DownloadError(resp.url, f"redirected from https to {where}; refused")
        return target


def host_of(url: str) -> str:
    """The host a download of ``url`` stays on. :raises DownloadError: not an http(s) URL with a host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DownloadError(url, "not an http:// or https:// URL with a host")
    return parts.hostname.lower()


def open_session(
    urls: Iterable[str],
    *,
    allow_hosts: Iterable[str] = (),
    retries: int = 3,
    backoff: float = 0.5,
    pool_size: int = 1,
    what: str = "db pull",
) -> BoundedSession:
    """A session for downloads from the hosts of ``urls`` (and ``allow_hosts``)."""
    from ..version import __version__

    hosts = [host_of(u) for u in urls] + [h.strip().lower() for h in allow_hosts if h.strip()]
    return BoundedSession(
        hosts, retries=retries, backoff=backoff, pool_size=pool_size, user_agent=f"deckcheck/{__version__} ({what})"
    )


# ---------------------------------------------------------------------------
# One download
# ---------------------------------------------------------------------------


def fetch(
    session: requests.Session,
    url: str,
    *,
    cap: int,
    deadline: Deadline,
    timeout: float | tuple[float, float],
    params: dict | None = None,
    sink: Callable[[bytes], None] | None = None,
) -> bytes:
    """The body of ``GET url`` (HTTP 200 only), decoded, at most ``cap`` bytes, whole by ``deadline``;
    with ``sink``, each decoded piece goes to it instead and ``b""`` is returned.

    :raises DownloadError: the status is not 200, the body is over ``cap`` (on the wire or
        decoded), broke off (:class:`BodyBrokeOff`), came too slowly (:class:`DeadlineExceeded`),
        or the server or a redirect could not be reached or is refused.
    """
    if deadline.remaining() <= 0:
        raise deadline.exceeded(url)
    connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
    left = deadline.remaining()
    with _watched(deadline) as watch:
        try:
            with session.get(url, params=params, timeout=(min(connect, left), min(read, left)), stream=True) as answer:
                if answer.status_code != 200:
                    raise DownloadError(url, _status_reason(answer), answer.status_code)
                body = _read(answer, url, cap, sink)
        except DownloadError as exc:
            # a read timeout cut to the time left, or a socket the watchdog shut: the deadline ended it
            if (
                (watch.fired or deadline.remaining() <= 0)
                and not isinstance(exc, DeadlineExceeded)
                and exc.status is None
            ):
                raise deadline.exceeded(url) from None
            raise
        except (_Fired, requests.RequestException, OSError) as exc:
            if watch.fired or deadline.remaining() <= 0 or isinstance(exc, _Fired):
                raise deadline.exceeded(url) from None
            if isinstance(exc, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError):
                raise BodyBrokeOff(url, f"the answer broke off ({exc.__class__.__name__})") from None
            raise DownloadError(url, short_reason(exc)) from None
        if watch.fired:  # the socket was shut down as the body ended: it may be cut short
            raise deadline.exceeded(url)
    return body


def _status_reason(answer: requests.Response) -> str:
    """``HTTP <status>``, and the ``Retry-After`` that was not waited for (:class:`CappedRetry`)."""
    reason = f"HTTP {answer.status_code}"
    value = answer.headers.get("Retry-After")
    if value and answer.status_code in RETRY_STATUSES:
        try:
            wait = CappedRetry(0).parse_retry_after(value)
        except InvalidHeader:
            return reason
        if wait > MAX_RETRY_AFTER:
            reason += f" asking to retry after {wait:g} s, longer than the {MAX_RETRY_AFTER:g} s waited"
    return reason


def _read(answer: requests.Response, url: str, cap: int, sink: Callable[[bytes], None] | None) -> bytes:
    """The body, its ``Content-Encoding`` undone, within ``cap`` on the wire and decoded."""
    length = answer.headers.get("Content-Length", "")
    if length.strip().isdigit() and int(length) > cap:
        raise DownloadError(url, f"the answer is larger than {cap:,} bytes (Content-Length {int(length):,})")
    coding = answer.headers.get("Content-Encoding", "identity").strip().lower() or "identity"
    if coding not in ("identity", "gzip", "x-gzip", "deflate"):
        raise DownloadError(
            url, f"the answer's Content-Encoding {coding[:40]!r} is not one asked for ({ACCEPT_ENCODING})"
        )
    inflate = None if coding == "identity" else Inflate(cap, gzip=coding != "deflate")
    pieces: list[bytes] = []
    out = sink or pieces.append
    wire = 0
    try:
        for block in answer.raw.stream(CHUNK, decode_content=False):
            wire += len(block)
            if wire > cap:
                raise DownloadError(url, f"the answer is larger than {cap:,} bytes")
            if inflate is None:
                out(block)
            else:
                for piece in inflate.feed(block):
                    out(piece)
        if inflate is not None:
            inflate.end()
    except InflateError as exc:
        raise DownloadError(url, f"the answer's {coding} encoding is unusable: {exc}") from None
    except ReadTimeoutError:
        raise DownloadError(url, "timed out (ReadTimeoutError)") from None
    except (HTTPError, HTTPException, OSError) as exc:  # a body cut short, a dropped connection
        raise BodyBrokeOff(url, f"the answer broke off ({exc.__class__.__name__})") from None
    return b"".join(pieces)


def short_reason(exc: BaseException) -> str:
    """One line for a requests/urllib3 failure (which wraps the cause in long reprs)."""
    text = str(exc)
    m = re.search(r"\(Caused by (\w+)\(", text)
    kind = m.group(1) if m else exc.__class__.__name__
    if "timed out" in text.lower() or isinstance(exc, requests.Timeout):
        return f"timed out ({kind})"
    if "too many" in text.lower() and "error responses" in text.lower():
        return f"too many error responses ({kind})"
    if isinstance(exc, requests.TooManyRedirects):
        return f"more than {MAX_REDIRECTS} redirects"
    return kind if m else " ".join(text.split())[:200]
