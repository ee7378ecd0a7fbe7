"""A format as the API answers it, ``Format.to_dict()``: its rules and parameters, its pool, its ban list."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .fields import doc, iso_date


class FormatRuleSchema(ma.Schema):
    rule = fields.String(required=True)
    parameters = fields.Dict(keys=fields.String(), required=True)
    set_by = fields.String(required=True, metadata=doc("The format whose file sets this rule (itself or a parent)."))


class RotationSchema(ma.Schema):
    from_ = iso_date(required=True, data_key="from", attribute="from")
    lowest_legal_mark = fields.String(
        required=True, allow_none=True, metadata=doc("None for a rotation by sets (before regulation marks).")
    )
    sets = fields.List(fields.String(), metadata=doc("Only for a rotation by sets: its set codes (or set ids)."))
    promos = fields.List(
        fields.String(), metadata=doc("Only for a rotation by sets: promo sets legal from a number on (PR-BLW BW33+).")
    )
    source = fields.String(required=True)
    unconfirmed = fields.String(metadata=doc("Why the date or list is not the announcement's own, when it is not."))


class MarkDateSchema(ma.Schema):
    mark = fields.String(required=True)
    from_ = iso_date(required=True, data_key="from", attribute="from")
    source = fields.String(required=True)


class AllowedSchema(ma.Schema):
    name = fields.String(required=True)
    printings = fields.List(fields.String(), required=True)
    since = iso_date(required=True)
    source = fields.String(required=True)
    unconfirmed = fields.String(metadata=doc("Why the date is not the source's own, when it is not."))


class PoolSchema(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(("regulation-marks", "sets", "all")))
    earliest_date = iso_date(required=True, metadata=doc("Legality before this date is not modelled."))
    reprint_rule = fields.Boolean(required=True)
    set_legal_from = fields.String(required=True, validate=validate.OneOf(("third-friday", "release")))
    rotations = fields.List(fields.Nested(RotationSchema), metadata=doc("Only for kind regulation-marks."))
    mark_dates = fields.List(
        fields.Nested(MarkDateSchema), metadata=doc("Only for kind regulation-marks: when each mark became legal.")
    )
    series = fields.List(fields.String(), metadata=doc("Only for kind sets."))
    include_sets = fields.List(fields.String(), metadata=doc("Only for kind sets."))
    exclude_sets = fields.List(fields.String(), metadata=doc("Only for kind sets."))
    closed_sets = fields.List(
        fields.String(),
        metadata=doc("Only for kind sets: excluded sets whose printings the reprint rule does not make legal either."),
    )
    allow = fields.List(
        fields.Nested(AllowedSchema),
        metadata=doc("Only for kind sets: printings of a closed set that the format allows all the same."),
    )


class BanSchema(ma.Schema):
    name = fields.String(required=True)
    printings = fields.List(fields.String(), required=True)
    since = iso_date(required=True, allow_none=True)
    until = iso_date(required=True, allow_none=True, metadata=doc("The unban's effective date, or none."))
    source = fields.String(required=True)
    unconfirmed = fields.String(metadata=doc("Why a date is not the announcement's own, when it is not."))


class FormatSchema(ma.Schema):
    """A format, its rules and parameters, its pool and ban list: ``Format.to_dict()``."""

    id = fields.String(required=True, metadata=doc("Format id to pass as format.", example="standard"))
    name = fields.String(required=True)
    description = fields.String(required=True)
    extends = fields.String(required=True, allow_none=True)
    rules = fields.List(fields.Nested(FormatRuleSchema), required=True)
    pool = fields.Nested(PoolSchema, required=True)
    bans = fields.List(fields.Nested(BanSchema), required=True)
    sources = fields.List(fields.String(), required=True)


class FormatListSchema(ma.Schema):
    default = fields.String(required=True, metadata=doc("The format used when a request names none."))
    formats = fields.List(fields.Nested(FormatSchema), required=True)
