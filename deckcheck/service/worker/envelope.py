"""The answers gunicorn writes by itself (a request it refuses before the app sees it, a request that timed
out), in the API's error envelope: ``{"error": {"code", "message", "details"}}``, JSON, not an HTML page."""

from __future__ import annotations

from gunicorn import util

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
