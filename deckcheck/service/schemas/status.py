"""The service's own answers: health, readiness, and the one error envelope with its stable codes."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .fields import doc
from .report import DatabaseSchema

#: the stable ``error.code`` values, by HTTP status (see :mod:`deckcheck.service.errors`)
ERROR_CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    500: "internal_error",
    503: "service_unavailable",
}


class HealthSchema(ma.Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ok",)))
    version = fields.String(required=True, metadata=doc("deckcheck package version."))


class ReadySchema(ma.Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ready",)))
    database = fields.Nested(DatabaseSchema, required=True)
    database_age_days = fields.Integer(
        required=True,
        allow_none=True,
        metadata=doc("Days from the newest set's release to today (null when unknown).", example=137),
    )


class ErrorBodySchema(ma.Schema):
    code = fields.String(
        required=True,
        metadata=doc("Stable machine-readable code: " + ", ".join(ERROR_CODES.values()) + ".", example="unprocessable"),
    )
    message = fields.String(required=True, metadata=doc("One sentence for a person."))
    details = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata=doc(
            "Structured detail: for 422 the field errors by location ({'json': {'format': [...]}}); "
            "for 413 limit, size and unit; for 405 allowed; otherwise empty."
        ),
    )


class ErrorSchema(ma.Schema):
    """The one envelope of every error under /api, /healthz and /readyz."""

    error = fields.Nested(ErrorBodySchema, required=True)
