"""The field helpers every schema of the API uses: a field's OpenAPI description, a date the core already
wrote, a strict boolean, and the ``format`` and ``as_of`` options a request may carry."""

from __future__ import annotations

import datetime as dt

from marshmallow import fields, validate

from ...dates import DATE_FORM, parse_date
from ...formats import default_formats


def doc(text: str, **extra) -> dict:
    """``metadata`` for a field: its OpenAPI description (and example)."""
    return {"description": text, **extra}


def iso_date(**kwargs) -> fields.String:
    """A date the core already wrote as ``YYYY-MM-DD`` (marshmallow's Date dumps only date objects)."""
    return fields.String(metadata={"format": "date", **kwargs.pop("metadata", {})}, **kwargs)


def known_formats() -> list[str]:
    return sorted(default_formats())


class StrictBoolean(fields.Boolean):
    """A boolean as the OpenAPI document says it: JSON's ``true`` or ``false`` in a body, the words ``true``
    or ``false`` in a query string. marshmallow's Boolean also takes ``0``, ``1``, ``"yes"``, ``"on"``...:
    values the document calls invalid must be refused, or a client written from it cannot tell."""

    default_error_messages = {"invalid": "Not a boolean: use true or false."}
    WORDS = {"true": True, "false": False}

    def __init__(self, *, query: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.query = query

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is bool:
            return value
        if self.query and isinstance(value, str) and value in self.WORDS:
            return self.WORDS[value]
        raise self.make_error("invalid")


def format_field(**kwargs) -> fields.String:
    return fields.String(
        validate=validate.OneOf(known_formats(), error="Unknown format {input!r}. Known formats: {choices}."),
        metadata=doc(
            "Format id (see GET /api/v1/formats); default: the service's default format, standard.", example="standard"
        ),
        **kwargs,
    )


class IsoDate(fields.Date):
    """A date as :func:`deckcheck.dates.parse_date` reads one: the page, the command line and Discord read
    the same texts (``2026-05-01``, ``20260501``, blanks around it)."""

    def _deserialize(self, value, attr, data, **kwargs) -> dt.date:
        if not isinstance(value, str):
            raise self.make_error("invalid")
        try:
            return parse_date(value)
        except ValueError:
            raise self.make_error("invalid") from None


def as_of_field(**kwargs) -> fields.Date:
    return IsoDate(
        error_messages={"invalid": f"Not a valid date: use {DATE_FORM}, e.g. 2026-05-01."},
        metadata=doc(
            "Check legality on this date (YYYY-MM-DD); default: the server's date today.", example="2026-05-01"
        ),
        **kwargs,
    )
