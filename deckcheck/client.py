"""A Python client for the deckcheck JSON API (the one module that calls the service over HTTP).

    from deckcheck.client import Client

    with Client("https://deckcheck.example") as api:
        report = api.validate(open("deck.txt").read(), format="standard", as_of="2026-05-01")
        print(report.valid, report.summary)        # the library's own Report type
        for problem in report.problems:
            print(problem.code, problem.message)

Every call has a timeout. Connection failures and ``503 Service Unavailable`` are
retried (``retries`` times, exponential backoff, honouring ``Retry-After`` up to
``max_retry_after`` seconds); nothing else is. Errors are exceptions that carry
the API's error envelope (``status``, ``code``, ``message``, ``details``):

* :class:`InvalidRequest` (400, 413, 415, 422), :class:`Unauthorized` (401, a bad
  API key), :class:`NotFound` (404, 405), :class:`RateLimited` (429, with
  ``retry_after``), other 4xx as :class:`ClientError`;
* :class:`ServerError` for 5xx;
* :class:`ConnectionFailed` when no answer came (refused, DNS, timeout);
* all of them are :class:`DeckcheckError`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from .problems import Report
from .service.paths import API_PREFIX  # imports nothing: no Flask here
from .sync.fetch import CappedRetry  # the one retry policy (imports requests, urllib3 and deckcheck.cards.files)
from .version import __version__

DEFAULT_TIMEOUT = 10.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.5
#: a Retry-After longer than this is not waited for: the error is raised instead
DEFAULT_MAX_RETRY_AFTER = 30.0
RETRY_STATUSES = frozenset({503})


class DeckcheckError(Exception):
    """An answer the service did not give successfully, with its error envelope.

    :ivar status: HTTP status (None when no answer came).
    :ivar code: the envelope's stable code (``unprocessable``, ``rate_limited``...).
    :ivar message: the envelope's sentence.
    :ivar details: the envelope's structured details.
    :ivar response: the :class:`requests.Response`, when there was one.
    """

    def __init__(
        self,
        message: str,
        status: int | None = None,
        code: str = "error",
        details: dict | None = None,
        response: requests.Response | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details or {}
        self.response = response

    def __str__(self) -> str:
        where = f"HTTP {self.status} " if self.status is not None else ""
        return f"{where}{self.code}: {self.message}"


class ConnectionFailed(DeckcheckError):
    """No answer: the connection was refused or reset, the name did not resolve, or the call timed out."""


class ClientError(DeckcheckError):
    """A 4xx: the request needs changing."""


class InvalidRequest(ClientError):
    """400, 413, 415 or 422: the body, its size, its type or a field is wrong (see ``details``)."""


class Unauthorized(ClientError):
    """401: the API key sent is not one the service knows."""


class NotFound(ClientError):
    """404 or 405: no such endpoint, format or method."""


class RateLimited(ClientError):
    """429: over the rate limit; ``retry_after`` is the seconds to wait (from ``Retry-After``)."""

    def __init__(self, *args, retry_after: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServerError(DeckcheckError):
    """A 5xx: the service failed (503 is retried before this is raised)."""


_BY_STATUS = {
    400: InvalidRequest,
    401: Unauthorized,
    404: NotFound,
    405: NotFound,
    413: InvalidRequest,
    415: InvalidRequest,
    422: InvalidRequest,
    429: RateLimited,
}


def _retry_after_seconds(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = dt.datetime.strptime(value, "%a, %d %b %Y %H:%M:%S GMT").replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def error_from_response(response: requests.Response) -> DeckcheckError:
    """The exception for a non-2xx answer, from its error envelope (or its status when there is none)."""
    status = response.status_code
    code, message = f"http_{status}", f"{status} {response.reason or ''}".strip()
    details: dict = {}
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code") or code)
        message = str(error.get("message") or message)
        found = error.get("details")
        details = found if isinstance(found, dict) else {}
    elif response.text.strip():
        message = f"{message}: {response.text.strip()[:200]}"
    if status == 429:
        return RateLimited(message, status, code, details, response, retry_after=_retry_after_seconds(response))
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ClientError if status >= 400 else DeckcheckError)
    return cls(message, status, code, details, response)


class Client:
    """The deckcheck API at ``base_url`` (e.g. ``https://deckcheck.example``).

    :param timeout: seconds for each call (connect and read), or a ``(connect, read)`` pair.
    :param session: a :class:`requests.Session` to use (its adapters are left alone); by default
        the client makes its own, with the retries below mounted.
    :param retries: how many times to retry a refused connection or a 503.
    :param backoff_factor: exponential backoff between retries (urllib3's: 0, 2x, 4x... this).
    :param max_retry_after: a 503 asking to wait longer than this (seconds) is raised, not waited for.
    :param api_key: sent as ``X-API-Key`` (lifts the anonymous rate limit where keys are configured).
    """

    def __init__(
        self,
        base_url: str,
        timeout: float | tuple[float, float] = DEFAULT_TIMEOUT,
        session: requests.Session | None = None,
        *,
        retries: int = DEFAULT_RETRIES,
        backoff_factor: float = DEFAULT_BACKOFF,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        api_key: str | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._own_session = session is None
        self.session = session or requests.Session()
        if self._own_session:
            retry = CappedRetry(
                total=retries,
                connect=retries,
                read=False,
                status=retries,
                other=0,
                redirect=False,
                status_forcelist=RETRY_STATUSES,
                allowed_methods=None,  # POST too: validate is idempotent
                backoff_factor=backoff_factor,
                respect_retry_after_header=True,
                raise_on_status=False,
                max_retry_after=max_retry_after,
            )
            adapter = HTTPAdapter(max_retries=retry)
            self.session.mount("http://", adapter)
            self.session.mount("https://", adapter)
        self.headers = {"Accept": "application/json", "User-Agent": f"deckcheck-client/{__version__}"}
        if api_key:
            self.headers["X-API-Key"] = api_key

    # -- plumbing ----------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs) -> Any:
        """One call; the decoded JSON of a 2xx, else the matching :class:`DeckcheckError`."""
        url = f"{self.base_url}{path}"
        headers = {**self.headers, **kwargs.pop("headers", {})}
        try:
            response = self.session.request(method, url, headers=headers, timeout=self.timeout, **kwargs)
        except requests.Timeout as exc:
            raise ConnectionFailed(f"No answer from {url} within {self.timeout} s: {exc}", code="timeout") from exc
        except requests.ConnectionError as exc:
            raise ConnectionFailed(f"Could not connect to {url}: {exc}", code="connection_failed") from exc
        except requests.RequestException as exc:
            raise ConnectionFailed(f"The call to {url} failed: {exc}", code="connection_failed") from exc
        if not response.ok:
            raise error_from_response(response)
        try:
            return response.json()
        except ValueError as exc:
            raise DeckcheckError(
                f"The answer from {url} is not JSON.", response.status_code, "bad_response", response=response
            ) from exc

    def close(self) -> None:
        if self._own_session:
            self.session.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the API ------------------------------------------------------------------------

    @staticmethod
    def _options(format: str | None, as_of) -> dict:
        body = {}
        if format is not None:
            body["format"] = format
        if as_of is not None:
            body["as_of"] = as_of.isoformat() if isinstance(as_of, dt.date) else str(as_of)
        return body

    def validate(self, text: str, format: str | None = None, as_of: str | dt.date | None = None) -> Report:
        """Check a decklist: the same :class:`~deckcheck.problems.Report` as ``deckcheck.check`` gives.

        ``format`` and ``as_of`` default to the service's (standard, today).
        """
        return Report.from_dict(
            self.request("POST", API_PREFIX + "/validate", json={"decklist": text, **self._options(format, as_of)})
        )

    def chat(self, text: str, format: str | None = None, as_of: str | dt.date | None = None) -> str:
        """The verdict as a chat message of at most 2,000 characters (``POST /api/v1/validate?style=chat``)."""
        data = self.request(
            "POST",
            API_PREFIX + "/validate",
            params={"style": "chat"},
            json={"decklist": text, **self._options(format, as_of)},
        )
        return data["chat"]

    def formats(self) -> dict:
        """``{"default": <id>, "formats": [<format>, ...]}``: every format's rules, pool and bans."""
        return self.request("GET", API_PREFIX + "/formats")

    def format(self, format_id: str) -> dict:
        """One format (:class:`NotFound` for an unknown id)."""
        return self.request("GET", f"{API_PREFIX}/formats/{requests.utils.quote(format_id, safe='')}")

    def cards(
        self, query: str = "", set: str | None = None, number: str | None = None, limit: int | None = None
    ) -> list[dict]:
        """Card printings: by name (exact, prefix, then fuzzy), or the exact printing for set and number."""
        params: dict[str, Any] = {"q": query}
        if set is not None:
            params["set"] = set
        if number is not None:
            params["number"] = number
        if limit is not None:
            params["limit"] = limit
        return self.request("GET", API_PREFIX + "/cards", params=params)["cards"]
