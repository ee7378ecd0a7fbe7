"""What the web page reads from a request, checked as the API checks it: the list (from the form, a share
link or JSON), its format and date, the size limits; and the share link, the page's address of a list.
Anything the page cannot check is an :class:`InputError`, whose message the page shows as text."""

from __future__ import annotations

from flask import current_app, url_for
from werkzeug.exceptions import HTTPException

from ..dates import parse_date
from ..decklist import sharelink
from ..decklist.limits import decklist_limit
from ..decklist.sharelink import encode_deck
from ..decklist.validtext import not_unicode
from ..engine import check
from ..formats import default_formats
from .errors import summarise_messages
from .schemas import ValidateRequestSchema

#: the fields of the API's JSON body (``POST /api/v1/validate``), the ones ``POST /extras`` reads too
_BODY_FIELDS = frozenset(ValidateRequestSchema().fields)

BROKEN_LINK = (
    "This share link is broken or incomplete, so no decklist could be read from it. "
    "Ask for the link again, or paste the list into the form."
)


class InputError(Exception):
    """Input the page cannot check; ``message`` is shown to the user as text."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- share links --------------------------------------------------------------


def decode_deck(token: str, max_bytes: int) -> str:
    """The decklist a share link carries (:func:`deckcheck.decklist.sharelink.decode_deck`); anything else is an
    :class:`InputError`, never a crash."""
    try:
        return sharelink.decode_deck(token, max_bytes)
    except sharelink.LinkError as exc:
        raise (InputError(too_big_message(max_bytes), 413) if exc.too_big else InputError(BROKEN_LINK)) from None


def share_path(text: str, format_id: str, as_of: str) -> str:
    """The root-relative link that reproduces a result (the date is pinned)."""
    return url_for("web.index", d=encode_deck(text), format=format_id, as_of=as_of)


# -- input --------------------------------------------------------------------


def too_big_message(max_bytes: int) -> str:
    return (
        f"This decklist is larger than the {max_bytes // 1024} KiB this service checks. "
        "A deck list is usually under 2 KiB: paste only the list."
    )


def body_error(exc: HTTPException) -> InputError:
    """An HTTP error met reading the request's body (or its query), in the page's words for what happened: too
    big (413, the decklist limit in KiB), else what the error says (a stalled body's 408, a malformed one's
    400, a refused Content-Encoding's 415, text that is not UTF-8)."""
    status = exc.code or 400
    if status == 413:
        return InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), 413)
    return InputError(str(exc.description or f"The request could not be read: {exc.name}."), status)


def unknown_fields(body: dict) -> str | None:
    """The API's 422 message for the fields of a JSON body that its schema does not know
    (:class:`deckcheck.service.schemas.ValidateRequestSchema`, worded as the API words it), or None."""
    unknown = [name for name in body if name not in _BODY_FIELDS]
    if not unknown:
        return None
    said = ValidateRequestSchema.error_messages["unknown"]
    return "Invalid request: " + summarise_messages({"json": {name[:60]: [said] for name in unknown}})


def check_limits(text: str) -> None:
    """The API's limits: MAX_DECKLIST_BYTES of UTF-8 and MAX_DECKLIST_LINES lines."""
    over = decklist_limit(text, current_app.config["MAX_DECKLIST_BYTES"], current_app.config["MAX_DECKLIST_LINES"])
    if over is not None and over.unit == "bytes":
        raise InputError(too_big_message(over.limit), 413)
    if over is not None:
        raise InputError(
            f"This decklist has {over.measured}; this service checks at most {over.limit:,}. Paste only the list.", 413
        )


def read_format(value: str | None) -> str:
    formats = default_formats()
    value = (value or "").strip() or current_app.config.get("DEFAULT_FORMAT", "standard")
    if value not in formats:
        names = ", ".join(f.name for f in formats.values())
        raise InputError(f"“{value[:60]}” is not a format this service knows. Choose one of: {names}.")
    return value


def read_date(value: str | None) -> str | None:
    """A date as every entry point reads one (:func:`deckcheck.dates.parse_date`), as ``YYYY-MM-DD``; None
    for today."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        return parse_date(value).isoformat()
    except ValueError:
        raise InputError(
            f"“{value[:40]}” is not a date. Use the form YYYY-MM-DD, for example 2026-05-01, "
            "or leave the date empty for today."
        ) from None


def run_check(text: str, format_value: str | None, date_value: str | None):
    """Validate the input like the API does, then check the deck."""
    fault = not_unicode(text)
    if fault is not None:
        raise InputError(f"This decklist is not valid Unicode text. {fault.message}", 422)
    fmt = read_format(format_value)
    as_of = read_date(date_value)
    check_limits(text)
    if not text.strip():
        raise InputError("The decklist is empty: paste a list, one card per line, like “4 Nest Ball SVI 181”.")
    return check(text, fmt, as_of, max_db_age=current_app.config["MAX_DB_AGE"])
