"""The TCGdex payloads ``deckcheck db sync`` reads, as marshmallow schemas.

Unknown fields are ignored (the API grows); a payload that does not fit is reported with
:func:`reason` and skipped by :mod:`deckcheck.sync.tcgdex`.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

__all__ = [
    "CardBriefSchema",
    "SetBriefSchema",
    "SetSchema",
    "TcgdexCardSchema",
    "ValidationError",
    "load",
    "reason",
]


_ID = validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9._!?%-]*$", error="not a TCGdex id")


class _StrOrInt(fields.Field):
    """TCGdex writes ``localId``, damage and weakness values as a string or a number."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError("must be a string or an integer")
        return str(value)


class _Base(Schema):
    class Meta:
        unknown = EXCLUDE


def _opt(field_cls=fields.String, *args, **kwargs):
    return field_cls(*args, allow_none=True, load_default=None, **kwargs)


class CardCountSchema(_Base):
    official = _opt(fields.Integer)
    total = _opt(fields.Integer)


class SetBriefSchema(_Base):
    """One entry of ``GET /sets``."""

    id = fields.String(required=True, validate=_ID)
    name = fields.String(required=True, validate=validate.Length(min=1))
    cardCount = _opt(fields.Nested, CardCountSchema)


class SerieBriefSchema(_Base):
    id = fields.String(required=True, validate=validate.Length(min=1))
    name = _opt()


class AbbreviationSchema(_Base):
    official = _opt()


class SetSchema(_Base):
    """``GET /sets/{id}``; its card briefs are checked one by one with :class:`CardBriefSchema`."""

    id = fields.String(required=True, validate=_ID)
    name = fields.String(required=True, validate=validate.Length(min=1))
    serie = fields.Nested(SerieBriefSchema, required=True)
    releaseDate = _opt(validate=validate.Regexp(r"^\d{4}-\d{2}-\d{2}$", error="not a YYYY-MM-DD date"))
    cardCount = _opt(fields.Nested, CardCountSchema)
    abbreviation = _opt(fields.Nested, AbbreviationSchema)
    tcgOnline = _opt()
    cards = fields.List(fields.Raw(), required=True)


class CardBriefSchema(_Base):
    id = fields.String(required=True, validate=_ID)
    localId = _StrOrInt(required=True)
    name = _opt()


class _AbilitySchema(_Base):
    type = _opt()
    name = _opt()  # a few old Poké-Powers have no name in TCGdex
    effect = _opt()


class _AttackSchema(_Base):
    name = _opt()  # unnamed in TCGdex for a few old cards (neo4-113)
    cost = fields.List(fields.String(), allow_none=True, load_default=list)
    damage = _opt(_StrOrInt)
    effect = _opt()


class _WeaknessSchema(_Base):
    type = fields.String(required=True)
    value = _opt(_StrOrInt)


class _CardSetSchema(_Base):
    id = fields.String(required=True, validate=_ID)
    name = _opt()


class TcgdexCardSchema(_Base):
    """``GET /cards/{id}``: the fields the database is made from (a TCGdex card payload; the
    ``CardSchema`` of the service's API is another thing: the card the API answers with)."""

    id = fields.String(required=True, validate=_ID)
    localId = _StrOrInt(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1))
    category = fields.String(required=True, validate=validate.OneOf(["Pokemon", "Trainer", "Energy"]))
    set = fields.Nested(_CardSetSchema, required=True)
    rarity = _opt()
    hp = _opt(fields.Integer)
    types = _opt(fields.List, fields.String())
    evolveFrom = _opt()
    stage = _opt()
    suffix = _opt()
    trainerType = _opt()
    energyType = _opt()
    regulationMark = _opt()
    abilities = _opt(fields.List, fields.Nested(_AbilitySchema))
    attacks = _opt(fields.List, fields.Nested(_AttackSchema))
    effect = _opt()
    weaknesses = _opt(fields.List, fields.Nested(_WeaknessSchema))
    resistances = _opt(fields.List, fields.Nested(_WeaknessSchema))
    retreat = _opt(fields.Integer)
    legal = _opt(fields.Dict)
    #: the printing's image base URL, ``<assets host>/<lang>/<serie id>/<set id>/<local id>``
    image = _opt()


#: one instance each: building a marshmallow schema costs more than loading a card with it
_SCHEMAS: dict[type[Schema], Schema] = {
    cls: cls() for cls in (SetBriefSchema, SetSchema, CardBriefSchema, TcgdexCardSchema)
}


def reason(error: ValidationError | Exception) -> str:
    """``name: Missing data for required field.`` from a marshmallow error."""
    if not isinstance(error, ValidationError):
        return str(error)
    out = []

    def walk(prefix, value):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
            for v in value:
                walk(prefix, v)
        else:
            text = " ".join(value) if isinstance(value, list) else str(value)
            out.append(f"{prefix}: {text}" if prefix else text)

    walk("", error.messages)
    return "; ".join(out)[:300]


def load(schema: type[Schema], payload) -> dict:
    """``payload`` validated by (the one instance of) ``schema``.

    :raises ValidationError: when it is not a JSON object or does not fit.
    """
    if not isinstance(payload, dict):
        raise ValidationError(f"expected a JSON object, got {type(payload).__name__}")
    return _SCHEMAS[schema].load(payload)
