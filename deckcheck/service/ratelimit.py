"""Limits for shared use: per-client rate limits, optional API keys, and CORS.

* All checking work counts against one bucket per client (:func:`is_limited`):
  every request under ``/api/v1/`` (except the Discord endpoint, which limits per
  Discord user itself, and the API documentation, ``/api/v1/docs`` and
  ``/api/v1/openapi.json``), and the web page's checks: the form (``POST /``), share
  links (``GET /?d=...``, ``GET /?deck=...``) and ``POST /extras``. The bucket is the
  API key's when a valid key is sent (``X-API-Key: <key>`` or ``Authorization: Bearer
  <key>``), otherwise the client's address. ``RATELIMIT_DEFAULT`` applies to
  addresses, ``RATELIMIT_KEYED`` to keys (an empty value: no limit). ``/healthz``,
  ``/readyz``, ``/metrics``, the empty web page and its files are never limited; CORS
  preflights (``OPTIONS``) are not counted.
* A key that is sent but is not one of ``API_KEYS`` is a 401 in the error
  envelope (``unauthorized``), so a mistyped key never silently falls back to the
  anonymous limit.
* Over the limit: 429 in the error envelope, code ``rate_limited``, with a
  ``Retry-After`` header (seconds). Every limited response carries
  ``X-RateLimit-Limit``, ``X-RateLimit-Remaining`` and ``X-RateLimit-Reset``
  (Unix time).
* Counters live in ``RATELIMIT_STORAGE_URI``: ``memory://`` or ``redis://host:port``,
  shared by every worker and instance (exact). With ``memory://`` each process counts
  alone, so under gunicorn each worker allows its share of the limit (the limit divided
  by the worker count, rounded up; :func:`set_processes`, called by the gunicorn
  configuration): a client never gets more than the limit from one instance, and may be
  refused a little before it when its requests land unevenly on the workers. If Redis becomes
  unreachable, each process falls back to counting in
  memory (and logs it) rather than failing requests, and returns to Redis once it
  answers again.
* CORS (flask-cors) on ``/api/*`` for the origins in ``CORS_ORIGINS`` ("*" or a
  comma-separated list); ``Retry-After``, ``X-Deckcheck-Version`` and the rate
  limit headers are exposed to scripts. Requests without an ``Origin`` header (not
  from a browser page) get no CORS headers, only ``Vary: Origin``.
* ``TRUSTED_PROXIES``: how many reverse proxies in front of the service set
  ``X-Forwarded-For``/``-Proto``/``-Host``. With the default 0 those headers are
  ignored (a client could forge them); behind a proxy, set it so that clients are
  told apart by their own address rather than the proxy's.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time

import limits as limits_lib
from flask import Flask, current_app, g, request
from flask_cors import CORS
from flask_limiter import Limit, Limiter
from flask_limiter.errors import RateLimitExceeded
from markupsafe import escape
from werkzeug.middleware.proxy_fix import ProxyFix

from ..memo import memoise
from ..wording import plural
from . import errors
from .paths import API_PREFIX, API_ROOT

LIMITED_PREFIX = API_PREFIX + "/"
#: under LIMITED_PREFIX but with limits of their own (Discord) or for people to read (documentation)
EXEMPT_PREFIXES = (API_PREFIX + "/discord/", API_PREFIX + "/docs", API_PREFIX + "/openapi.json")
#: web page routes that run a check: always (POST), or a share link (GET with one of these arguments)
PAGE_CHECKS = {"/": ("d", "deck"), "/extras": ()}
EXPOSED_HEADERS = [
    "Retry-After",
    "X-Deckcheck-Version",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
]
ALLOWED_HEADERS = ["Content-Type", "Authorization", "X-API-Key"]
#: how long browsers may cache a preflight answer (seconds)
CORS_MAX_AGE = 600
#: where CORS applies (a flask-cors resource pattern)
CORS_PATHS = API_ROOT + "/*"
EXTENSION = "deckcheck.limits"


def split_list(value) -> list[str]:
    """A comma-separated string (from the environment) or a list -> its non-empty items."""
    if value is None:
        return []
    items = value if isinstance(value, (list, tuple, set)) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def key_identity(key: str) -> str:
    """What an API key is counted under: a digest, so storage (Redis) never holds the key itself."""
    return "key:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _check_limit(name: str, value) -> str:
    value = "" if value is None else str(value).strip()
    if value:
        try:
            limits_lib.parse_many(value)
        except ValueError:
            raise ValueError(
                f"{name} {value!r} is not a rate limit; write it like '60 per minute' or '10 per second; 1000 per day'"
            ) from None
    return value


def init_app(app: Flask) -> None:
    """Rate limits, API keys and CORS for ``app`` (call after the API is registered)."""
    config = app.config  # its defaults: deckcheck/service/settings.py
    config["RATELIMIT_DEFAULT"] = _check_limit("RATELIMIT_DEFAULT", config["RATELIMIT_DEFAULT"])
    config["RATELIMIT_KEYED"] = _check_limit("RATELIMIT_KEYED", config["RATELIMIT_KEYED"])
    if str(config["RATELIMIT_STORAGE_URI"]).startswith(("redis://", "rediss://", "redis+")):
        # a Redis that stops answering must cost a request half a second, not the OS's connect timeout
        config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 0.5, "socket_timeout": 0.5})
    api_keys = split_list(config["API_KEYS"])

    proxies = int(config["TRUSTED_PROXIES"] or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]  # Flask's way to add middleware
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )

    # before the limiter's own before_request: the key decides the bucket
    app.before_request(_identify_client)
    limiter = Limiter(
        key_func=client_key,
        default_limits=[Limit(_limit_for_client, scope="api", shared=True)],
        storage_uri=config["RATELIMIT_STORAGE_URI"],
        headers_enabled=False,  # set by _rate_limit_headers, consistent with the 429's Retry-After
    )
    limiter.request_filter(_not_limited)
    limiter.init_app(app)
    app.extensions[EXTENSION] = {
        "limiter": limiter,
        "api_keys": api_keys,
        "default": config["RATELIMIT_DEFAULT"],
        "keyed": config["RATELIMIT_KEYED"],
        "in_memory": str(config["RATELIMIT_STORAGE_URI"]).startswith("memory://"),
    }
    app.register_error_handler(RateLimitExceeded, _too_many_requests)
    if limiter.enabled:  # RATELIMIT_ENABLED, read once by init_app
        app.after_request(_rate_limit_headers)

    origins = split_list(config["CORS_ORIGINS"]) or ["*"]
    hooks = app.after_request_funcs.setdefault(None, [])
    before = len(hooks)
    CORS(
        app,
        resources={CORS_PATHS: {"origins": "*" if "*" in origins else origins}},
        send_wildcard="*" in origins,
        expose_headers=EXPOSED_HEADERS,
        allow_headers=ALLOWED_HEADERS,
        methods=["GET", "POST", "OPTIONS"],
        max_age=CORS_MAX_AGE,
        supports_credentials=False,
        # error answers pass through the after_request hooks too (Flask finalises them)
        intercept_exceptions=False,
    )
    if len(hooks) != before + 1:  # pragma: no cover - a flask-cors that registers differently
        raise RuntimeError("flask-cors did not register exactly one after_request hook")
    hooks[before] = _only_with_origin(hooks[before])


def _only_with_origin(cors_headers):
    """flask-cors's response hook, run only for requests that carry an ``Origin`` header.

    Browsers send ``Origin`` with every cross-origin request (and preflight), so a
    request without one (curl, a bot, a server) has no use for CORS headers: it gets
    ``Vary: Origin`` instead (from ``app.StandardHeaders``), so a shared cache never
    hands its answer to a page that needs them (django-cors-headers does the same).
    flask-cors's work per response is a third of a whole trivial Flask request (BENCHMARKS.md).
    """

    def cors_for_browsers(response):
        return cors_headers(response) if "HTTP_ORIGIN" in request.environ else response

    return cors_for_browsers


def _state() -> dict:
    return current_app.extensions[EXTENSION]


def limiter_for(app: Flask | None = None) -> Limiter | None:
    """The app's limiter, or None when rate limits are off."""
    state = (app or current_app).extensions.get(EXTENSION)
    limiter = state and state["limiter"]
    return limiter if limiter and limiter.enabled and limiter.initialized else None


def is_limited_path(path: str) -> bool:
    return path.startswith(LIMITED_PREFIX) and not path.startswith(EXEMPT_PREFIXES)


def is_limited(method: str, path: str, args) -> bool:
    """Does this request count against the client's budget? Every API call and every page check."""
    if method == "OPTIONS":
        return False
    if is_limited_path(path):
        return True
    share_args = PAGE_CHECKS.get(path)
    if share_args is None:
        return False
    return method == "POST" or any(name in args for name in share_args)


def _not_limited() -> bool:
    return not is_limited(request.method, request.path, request.args)


#: gunicorn worker processes counting apart with memory:// storage (set_processes)
_processes = 1


def set_processes(count: int) -> None:
    """How many processes serve the app, each with its own memory:// counters (gunicorn's post_fork)."""
    global _processes
    _processes = max(1, int(count))


def share_of(limit: str, processes: int) -> str:
    """Each process's share of ``limit``: every amount divided by ``processes``, rounded up."""
    if processes <= 1 or not limit:
        return limit
    return "; ".join(
        f"{math.ceil(item.amount / processes)} per {item.multiples} {item.GRANULARITY.name}"
        for item in limits_lib.parse_many(limit)
    )


def sent_key() -> str | None:
    """The API key the request carries, if any: ``X-API-Key``, else ``Authorization: Bearer``."""
    environ = request.environ
    key = environ.get("HTTP_X_API_KEY", "").strip()
    if key:
        return key
    scheme, _, token = environ.get("HTTP_AUTHORIZATION", "").strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def _identify_client():
    """Who is calling: ``g.deckcheck_client`` is the key's identity, unset when anonymous. 401 for a bad key."""
    key = sent_key()
    if key is None:  # anonymous, the usual case: nothing else to look at
        return None
    if not is_limited(request.method, request.path, request.args):
        return None
    api_keys = _state()["api_keys"]
    # compare against every key, in constant time, so timing does not tell how close a guess was
    matched = [k for k in api_keys if hmac.compare_digest(k.encode("utf-8"), key.encode("utf-8"))]
    if not matched:
        message = (
            "The API key is not valid: check it, or send the request without X-API-Key or Authorization "
            "to use the anonymous limit."
            if api_keys
            else "This service has no API keys: send the request without X-API-Key or Authorization."
        )
        response = errors.envelope(401, message, {}, name="Unauthorized")
        response.headers["WWW-Authenticate"] = 'Bearer realm="deckcheck"'
        return response
    g.deckcheck_client = key_identity(matched[0])
    return None


def client_key() -> str:
    """The rate-limit bucket: the API key's identity, or the client's address."""
    return g.get("deckcheck_client") or f"ip:{request.remote_addr or 'unknown'}"


def _limit_for_client() -> str:
    """The limit of the request's bucket (keyed or anonymous), each process's share of it with memory://
    counters: from the settings :func:`init_app` read once, never the config per request."""
    state = _state()
    limit = state["keyed"] if g.get("deckcheck_client") else state["default"]
    if _processes > 1 and state["in_memory"]:
        return _shares((limit, _processes))
    return limit


@memoise(16)
def _shares(key: tuple[str, int]) -> str:
    """:func:`share_of` for (limit, processes), kept (the same few limits are asked on every request)."""
    return share_of(*key)


def _seconds_until(reset_time: float) -> int:
    return max(1, math.ceil(reset_time - time.time()))


def _too_many_requests(error: RateLimitExceeded):
    """429 in the error envelope, with Retry-After."""
    limiter = _state()["limiter"]
    current = limiter.current_limit
    keyed = bool(g.get("deckcheck_client"))
    try:
        retry_after = _seconds_until(current.window.reset_time) if current else 60
    except Exception:  # the storage failed between the hit and now
        retry_after = 60
    limit = str(error.limit.limit)
    who = "for this API key" if keyed else "for each client address"
    message = f"Too many requests: the limit is {limit} {who}. Retry in {plural(retry_after, 'second')}"
    if not keyed and _state()["api_keys"]:
        message += ", or send an API key (X-API-Key) for a higher limit"
    if request.path in PAGE_CHECKS and request.path != "/extras":
        response = current_app.response_class(
            _PAGE_429.format(message=escape(message + ".")), status=429, mimetype="text/html"
        )
    else:
        response = errors.envelope(
            429,
            message + ".",
            {"limit": limit, "retry_after": retry_after, "client": "api-key" if keyed else "address"},
        )
    response.headers["Retry-After"] = str(retry_after)
    _count_rejection()
    return response


#: the web page's answer past the limit (the page's own template may be redesigned; this needs none)
_PAGE_429 = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many checks · deckcheck'
    '</title><link rel="stylesheet" href="/static/deckcheck.css"></head><body><main><h1>Too many checks'
    '</h1><p role="alert">{message}</p><p><a href="/">Back to the checker</a></p></main></body></html>'
)


def _count_rejection() -> None:
    hook = current_app.extensions.get("deckcheck.metrics")
    if hook is not None:
        hook.rate_limited(request)


def _rate_limit_headers(response):
    """X-RateLimit-Limit/-Remaining/-Reset on every limited response."""
    limiter = limiter_for()
    current = limiter.current_limit if limiter else None
    if current is None:
        return response
    try:
        reset_time, remaining = current.window
    except Exception:  # a storage error must not turn an answer into a 500
        current_app.logger.warning("rate limit storage unavailable for the headers", exc_info=True)
        return response
    response.headers["X-RateLimit-Limit"] = str(current.limit.amount)
    response.headers["X-RateLimit-Remaining"] = str(max(0, remaining))
    response.headers["X-RateLimit-Reset"] = str(math.ceil(reset_time))
    if response.status_code == 429 and "Retry-After" not in response.headers:
        response.headers["Retry-After"] = str(_seconds_until(reset_time))
    return response


def hit(limit: str, *identifiers: str) -> int | None:
    """Count one use of a limit of its own (e.g. per Discord user) in the app's rate-limit storage.

    Returns None when allowed (also when rate limits are off or the storage fails), or the
    seconds until the next use is allowed.
    """
    limiter = limiter_for()
    if limiter is None or not limit:
        return None
    if _processes > 1 and str(current_app.config["RATELIMIT_STORAGE_URI"]).startswith("memory://"):
        limit = _shares((limit, _processes)).split(";")[0]  # each worker's share, as for the shared budget
    item = limits_lib.parse(limit)
    prefix = current_app.config.get("RATELIMIT_KEY_PREFIX") or "deckcheck"
    try:
        strategy = limiter.limiter
        if strategy.hit(item, prefix, *identifiers):
            return None
        _count_rejection()
        return _seconds_until(strategy.get_window_stats(item, prefix, *identifiers).reset_time)
    except Exception:
        current_app.logger.warning("rate limit storage unavailable; allowing the request", exc_info=True)
        return None


#: signatures remembered without a shared storage (rate limits off): at most this many, oldest dropped
LOCAL_ONCE_SIZE = 10_000
_local_once: dict[str, float] = {}
_local_once_lock = threading.Lock()


def first_use(namespace: str, key: str, seconds: float) -> bool:
    """True the first time ``key`` is seen within ``seconds``, False for a repeat (a replay).

    Kept in the rate-limit storage, so with Redis a repeat is caught by every instance; with
    ``memory://`` by the process that saw it first. Without a limiter (rate limits off) or when
    the storage fails: a bounded in-process table.
    """
    limiter = limiter_for()
    if limiter is not None:
        prefix = current_app.config.get("RATELIMIT_KEY_PREFIX") or "deckcheck"
        try:
            return limiter.limiter.storage.incr(f"{prefix}/{namespace}/{key}", max(1, math.ceil(seconds))) == 1
        except Exception:
            current_app.logger.warning("rate limit storage unavailable; remembering %s here", namespace, exc_info=True)
    now = time.monotonic()
    with _local_once_lock:
        expiry = _local_once.get(f"{namespace}/{key}")
        if expiry is not None and expiry > now:
            return False
        if len(_local_once) >= LOCAL_ONCE_SIZE:
            for old in [k for k, e in _local_once.items() if e <= now] or [next(iter(_local_once))]:
                del _local_once[old]
        _local_once[f"{namespace}/{key}"] = now + seconds
        return True
