"""A card printing as the API answers it (``Card.to_dict()``), alone or as a search's results."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .fields import doc

SUPERTYPES = ("Pokémon", "Trainer", "Energy")
MAX_SEARCH_RESULTS = 20


class CardSchema(ma.Schema):
    """One printing, as ``Card.to_dict()`` gives it."""

    id = fields.String(required=True, metadata=doc("Printing id in the card database.", example="sv01-181"))
    name = fields.String(required=True)
    supertype = fields.String(required=True, validate=validate.OneOf(SUPERTYPES))
    subtypes = fields.List(fields.String(), required=True)
    set = fields.String(required=True, metadata=doc("Set code as written in decklists.", example="SVI"))
    set_id = fields.String(required=True, metadata=doc("Set id in the card database.", example="sv01"))
    number = fields.String(required=True)
    regulation_mark = fields.String(required=True, allow_none=True)
    types = fields.List(fields.String(), required=True)
    evolves_from = fields.String(required=True, allow_none=True)
    rarity = fields.String(required=True, allow_none=True)


class CardSearchSchema(ma.Schema):
    cards = fields.List(
        fields.Nested(CardSchema),
        required=True,
        metadata=doc(f"At most {MAX_SEARCH_RESULTS} printings, best match first."),
    )
