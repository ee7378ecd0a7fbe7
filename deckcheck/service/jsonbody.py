"""The one reader of JSON request bodies: the API's ``POST /api/v1/validate``, the page's ``POST /extras``
and Discord's interactions all read their JSON with :func:`read_json`.

It reads strict JSON (RFC 8259 as orjson reads it), so that every string a body carries is valid
Unicode and every number is finite: a lone surrogate escape (``"\\ud800"``), ``NaN``, ``Infinity`` or a
number past a double (``1e400``) is refused here, at the door, with a :class:`BodyError` that says what
and where, and nothing behind the door meets text it cannot write out again or a number it cannot
compare. Each edge words the error in its own envelope.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import orjson

from ..decklist.validtext import not_unicode

BOM = b"\xef\xbb\xbf"


class BodyError(Exception):
    """A body that is not strict JSON: the HTTP ``status`` (400 unreadable, 422 not valid Unicode),
    a sentence for people and ``details`` for programs."""

    def __init__(self, status: int, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details = status, message, details or {}


def read_json(raw: bytes, what: str = "request body") -> Any:
    """The JSON value of ``raw`` (a UTF-8 BOM allowed), or :class:`BodyError` naming ``what``.

    The usual body is read once, by orjson; a body it refuses is read again only to say why.
    """
    body = raw.removeprefix(BOM)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        strict = exc
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyError(
            400,
            f"The {what} is not valid UTF-8: byte 0x{body[exc.start]:02x} at offset {exc.start + len(raw) - len(body)} "
            f"({exc.reason}).",
            {"offset": exc.start + len(raw) - len(body)},
        ) from None
    fault = not_unicode(text, json=True)
    if fault is not None:
        raise BodyError(422, f"The {what} is not valid Unicode text. {fault.message}", fault.details())
    try:  # Python's reader words a syntax error best, and names what strict JSON refuses
        json.loads(text, parse_constant=_constant, parse_float=_finite)
    except _Refused as exc:
        raise BodyError(
            400,
            f"The {what} is not JSON this service reads: {exc} (line {strict.lineno}, column {strict.colno}).",
            {"line": strict.lineno, "column": strict.colno},
        ) from None
    except json.JSONDecodeError as exc:
        raise BodyError(
            400,
            f"The {what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
            {"line": exc.lineno, "column": exc.colno},
        ) from None
    except RecursionError:
        raise BodyError(400, f"The {what} nests JSON arrays or objects too deeply to read.") from None
    except ValueError:
        raise BodyError(400, f"The {what} has a number of more than {sys.get_int_max_str_digits():,} digits.") from None
    # Python reads it, strict JSON does not (nesting past orjson's 1,024 levels)
    raise BodyError(
        400,
        f"The {what} is not JSON this service reads: {strict.msg} at line {strict.lineno}, column {strict.colno}.",
        {"line": strict.lineno, "column": strict.colno},
    )


class _Refused(ValueError):
    """What strict JSON refuses that Python's reader takes, in words."""


def _constant(name: str) -> float:
    raise _Refused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:20] + "…"
        raise _Refused(f"the number {shown} is past the range of a double")
    return value
