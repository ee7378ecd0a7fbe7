"""One JSON error envelope for the API: ``{"error": {"code", "message", "details"}}``.

Every HTTP error under ``/api``, ``/healthz`` and ``/readyz`` (routing 404s and
405s, body limits, validation, unhandled exceptions) is rendered here, so a
client never sees an HTML error page there. Other paths (the web pages) keep
Flask's default HTML error pages unless their blueprint handles them itself.
"""

from __future__ import annotations

import re

from flask import Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException, ServiceUnavailable

from ..cards import DatabaseError
from .paths import API_PREFIX, is_api_path
from .schemas import ERROR_CODES

#: paths (beside the API's, :func:`deckcheck.service.paths.is_api_path`) whose errors are JSON
JSON_PATHS = ("/healthz", "/readyz")


def error_code(status: int, name: str = "") -> str:
    """The stable code for a status: ``422`` -> ``unprocessable``; unlisted ones from the phrase."""
    return ERROR_CODES.get(status) or re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "error"


def envelope(status: int, message: str, details: dict | None = None, name: str = ""):
    """A JSON error response in the envelope."""
    body = {"error": {"code": error_code(status, name), "message": message, "details": details or {}}}
    response = jsonify(body)
    response.status_code = status
    return response


def wants_json(path: str) -> bool:
    return is_api_path(path) or path.startswith(JSON_PATHS)


def summarise_messages(messages: dict) -> str:
    """marshmallow/webargs ``{"json": {"format": ["..."]}}`` -> ``format: ...`` for the message line."""
    parts = []
    for _location, errors in messages.items():
        if isinstance(errors, dict):
            for field_name, texts in errors.items():
                text = " ".join(_flatten(texts))
                parts.append(text if field_name == "_schema" else f"{field_name}: {text}")
        else:
            parts.append(" ".join(_flatten(errors)))
    return "; ".join(parts)


def _flatten(texts) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    if isinstance(texts, dict):
        return [f"{k}: {' '.join(_flatten(v))}" for k, v in texts.items()]
    return [t for item in texts for t in _flatten(item)]


def _default_message(error: HTTPException) -> tuple[str, dict]:
    """A precise sentence (and details) for errors raised by Flask/werkzeug themselves."""
    code = error.code or 500
    if code == 404:
        return (
            f"No such endpoint: {request.method} {request.path}. The endpoints are listed at {API_PREFIX}/openapi.json."
        ), {}
    if code == 405:
        allowed = sorted(m for m in getattr(error, "valid_methods", None) or [] if m not in ("HEAD", "OPTIONS"))
        return (
            f"Method {request.method} is not allowed on {request.path}; allowed: {', '.join(allowed)}.",
            {"allowed": allowed},
        )
    if code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return (f"The request body is larger than the limit of {limit:,} bytes.", {"limit": limit, "unit": "bytes"})
    if code == 500:
        return "Internal error: the service failed to answer this request; the failure has been logged.", {}
    return error.description or error.name, {}


def handle_http_exception(error: HTTPException):
    """Render an HTTP error in the envelope (or leave it to Flask outside the API)."""
    if not wants_json(request.path):
        return error
    data = getattr(error, "data", None) or {}
    message, details = _default_message(error)
    if "messages" in data:  # webargs validation errors: {"query": {"field": ["..."]}}
        details = data["messages"]
        message = "Invalid request: " + summarise_messages(details)
    message = data.get("message", message)
    details = data.get("details", details)
    response = envelope(error.code or 500, message, details, error.name)
    for key, value in error.get_headers():
        if key.lower() != "content-type":
            response.headers[key] = value
    for key, value in (data.get("headers") or {}).items():
        response.headers[key] = value
    return response  # a 408 or 413 says Connection: close (app.StandardHeaders, for every answer)


def handle_database_error(error: DatabaseError):
    """The card database cannot be loaded: 503 (the process is up, the service is not ready)."""
    current_app.logger.error("card database unavailable: %s", error)
    if not wants_json(request.path):
        return ServiceUnavailable()
    return envelope(503, f"The card database is not available: {error}", {})


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(DatabaseError, handle_database_error)
