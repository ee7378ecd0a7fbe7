"""The requests: the JSON body and query of ``POST /api/v1/validate``, the query of ``GET /api/v1/cards``."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .cards import MAX_SEARCH_RESULTS
from .fields import StrictBoolean, as_of_field, doc, format_field

FORECAST_DOC = (
    "true: also forecast the next Standard rotation (announced in the format file, else assumed: the "
    "lowest legal mark up by one): rotation-forecast warnings for the cards it would make illegal, "
    "info for those a functionally identical reprint keeps legal, and the forecast field."
)
#: ``style`` values of ``POST /api/v1/validate``
STYLES = ("full", "chat")
MAX_QUERY_CHARS = 100


class ValidateRequestSchema(ma.Schema):
    """The JSON body of ``POST /api/v1/validate`` (null options mean the default)."""

    error_messages = {
        "type": 'The JSON body must be an object, e.g. {"decklist": "4 Nest Ball SVI 181", "format": "standard"}.',
        "unknown": "Unknown field; the fields are decklist, format, as_of and forecast.",
    }

    decklist = fields.String(
        required=True,
        error_messages={"required": "A decklist is required: the text of the list, one card per line."},
        metadata=doc(
            "The decklist as text (PTCGL/PTCGO/Limitless export, one card per line) or a JSON deck. "
            "At most 64 KiB of UTF-8 and 1,000 lines by default.",
            example="Pokémon: 1\n4 Pikachu ex SSP 57\n",
        ),
    )
    format = format_field(allow_none=True)
    as_of = as_of_field(allow_none=True)
    forecast = StrictBoolean(allow_none=True, metadata=doc(FORECAST_DOC, example=True))


class ValidateQuerySchema(ma.Schema):
    """Query parameters of ``POST /api/v1/validate`` (the way to pass options with a text/plain body)."""

    format = format_field()
    as_of = as_of_field()
    style = fields.String(
        validate=validate.OneOf(STYLES, error="Unknown style {input!r}. Known styles: {choices}."),
        metadata=doc(
            "chat: also answer the verdict as one chat message (the chat field) of at most 2,000 "
            "characters, for bots; default: full (the report alone).",
            example="chat",
        ),
    )
    forecast = StrictBoolean(query=True, metadata=doc(FORECAST_DOC, example=True))


class CardQuerySchema(ma.Schema):
    """Query parameters of ``GET /api/v1/cards``."""

    q = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_QUERY_CHARS),
        metadata=doc("Card name or the start of one; matched exactly, by prefix, then fuzzily.", example="nest bal"),
    )
    set = fields.String(
        validate=validate.Length(min=1, max=20),
        metadata=doc("Set code as written in decklists (SVI, PAL, PR-SV...).", example="SVI"),
    )
    number = fields.String(
        validate=validate.Length(min=1, max=20),
        metadata=doc(
            "Collector number. With set, returns that exact printing; without, keeps the printings with this number.",
            example="181",
        ),
    )
    limit = fields.Integer(
        load_default=MAX_SEARCH_RESULTS,
        validate=validate.Range(min=1, max=MAX_SEARCH_RESULTS),
        metadata=doc(f"At most this many results (1 to {MAX_SEARCH_RESULTS})."),
    )
