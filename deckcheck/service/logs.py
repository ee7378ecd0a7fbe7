"""Structured logs for the service: one JSON object per line, on stderr (errors, app) and stdout (access).

Every line has ``time`` (ISO 8601, UTC, milliseconds), ``level``, ``logger``, ``message`` and,
inside a request, ``request_id`` (the client's ``X-Request-ID`` when it sent a usable one,
otherwise a new one; the answer echoes it: :mod:`deckcheck.service.observe`). Access lines (one per
request, from gunicorn) add ``method``, ``path``, ``status``, ``bytes``, ``duration_ms``,
``remote`` and ``user_agent``. Every library's records reach the root handler: Flask-Limiter's
"storage unreachable" warnings, for one, which its own ``NullHandler`` would swallow were the root
without a handler.

gunicorn uses :class:`GunicornLogger` (``logger_class`` in ``deckcheck/service/gunicorn_conf.py``);
``DECKCHECK_LOG_FORMAT=text`` keeps gunicorn's plain text lines instead.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
import time

import orjson
from gunicorn.glogging import Logger

#: the current request's ID (set by deckcheck.service.observe around each request)
request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("deckcheck_request_id", default=None)

#: attributes every LogRecord has; anything else on a record was passed in ``extra=`` and is logged too
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON (orjson; the standard library's encoder for what orjson refuses)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._second: int | None = None
        self._stamp = ""

    def _time(self, created: float) -> str:
        """``created`` as ISO 8601 UTC with milliseconds; the part up to the second is made once a second."""
        second = int(created)
        if second != self._second:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second, self._stamp = second, stamp
        else:
            stamp = self._stamp
        return f"{stamp}.{int((created - second) * 1000):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "time": self._time(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            out["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in out and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        try:
            return orjson.dumps(out, default=str).decode("utf-8")
        except TypeError:  # what orjson does not take (an integer over 64 bits, a dict with non-string keys)
            return json.dumps(out, default=str, ensure_ascii=False)


def json_enabled() -> bool:
    return os.environ.get("DECKCHECK_LOG_FORMAT", "json").strip().lower() != "text"


def configure_root(level: int = logging.INFO, stream=None) -> None:
    """One JSON handler on the root logger (stderr), so every library's records are written."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_deckcheck", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._deckcheck = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)


class GunicornLogger(Logger):
    """gunicorn's logger writing JSON lines, with one structured access line per request."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        self._json = json_enabled()
        if not self._json:
            return
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(JsonFormatter())
        configure_root(self.loglevel)

    def access(self, resp, req, environ, request_time) -> None:
        if not getattr(self, "_json", True):
            return super().access(resp, req, environ, request_time)
        access_log = self.access_log
        if not self.access_log_enabled or not access_log.isEnabledFor(logging.INFO):
            return
        rid = None
        for name, value in resp.headers or ():
            if name.lower() == "x-request-id":  # the ID the app answered with (deckcheck.observe); the last one
                rid = value
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        try:
            status = int(status)
        except (TypeError, ValueError):
            pass
        fields = {
            "request_id": rid or environ.get("HTTP_X_REQUEST_ID", "")[:128] or None,
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "query_bytes": len(environ.get("QUERY_STRING", "")),
            "status": status,
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 2),
            "remote": environ.get("REMOTE_ADDR"),
            "user_agent": environ.get("HTTP_USER_AGENT", "")[:200],
        }
        try:
            # Logger.info without the search of the call stack for a caller that no JSON line shows
            record = access_log.makeRecord(
                access_log.name, logging.INFO, "(unknown file)", 0, "access", (), None, "(unknown function)", fields
            )
            access_log.handle(record)
        except Exception:  # pragma: no cover - as gunicorn's own
            self.exception("access log line failed")
