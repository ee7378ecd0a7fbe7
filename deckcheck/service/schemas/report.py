"""The verdict on one deck, ``Report.to_dict()``: its problems and their groups, its card lines, counts,
the database that answered and the rotation forecast."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...problems import CATALOGUE, SEVERITIES
from .cards import CardSchema
from .fields import doc, iso_date

RESOLUTIONS = ("printing", "alias", "name-and-set", "name", "basic-energy", "unresolved")


class CardLineSchema(ma.Schema):
    """One card line of the decklist and the printing it resolved to."""

    line = fields.Integer(required=True, metadata=doc("1-based line number in the text (entry number in a JSON deck)."))
    count = fields.Integer(required=True)
    text = fields.String(required=True, metadata=doc("The line as written."))
    name = fields.String(required=True, metadata=doc("The card name as written."))
    name_as_written = fields.String(
        required=True,
        metadata=doc("The card name as the player wrote it, in any language (the card's own name is card.name)."),
    )
    language = fields.String(
        required=True,
        allow_none=True,
        metadata=doc(
            "The language the name was recognised in when it is the card's name in another language "
            "(TCGdex codes: fr, de, es, it, pt, es-mx); null for an English name or an unknown card.",
            example="fr",
        ),
    )
    set = fields.String(required=True, allow_none=True, metadata=doc("The set code as written."))
    number = fields.String(required=True, allow_none=True, metadata=doc("The collector number as written."))
    resolution = fields.String(
        required=True, validate=validate.OneOf(RESOLUTIONS), metadata=doc("How the line was matched to a printing.")
    )
    suggestions = fields.List(
        fields.String(), required=True, metadata=doc("Close card names when the line could not be resolved.")
    )
    legal = fields.Boolean(
        required=True, allow_none=True, metadata=doc("Legal in the format on the date; null when the card is unknown.")
    )
    legal_via = fields.String(
        required=True,
        allow_none=True,
        metadata=doc("Id of a functionally identical reprint that makes this printing legal."),
    )
    banned = fields.Boolean(required=True)
    card = fields.Nested(CardSchema, required=True, allow_none=True)


class ProblemSchema(ma.Schema):
    """One thing wrong (or worth saying) about the deck."""

    rule = fields.String(
        required=True,
        validate=validate.OneOf(sorted(CATALOGUE)),
        metadata=doc("Stable rule name.", example="copy-limit"),
    )
    code = fields.String(required=True, metadata=doc("Stable code.", example="R102"))
    severity = fields.String(required=True, validate=validate.OneOf(SEVERITIES))
    message = fields.String(required=True, metadata=doc("One sentence naming the cards, counts and limit."))
    lines = fields.List(fields.Integer(), required=True, metadata=doc("Line numbers the problem is about."))
    cards = fields.List(fields.String(), required=True, metadata=doc("Card ids the problem is about."))
    hint = fields.String(required=True, allow_none=True, metadata=doc("A likely mistake, when there is one."))


class ReplacementSchema(ma.Schema):
    line = fields.Integer(required=True)
    card = fields.String(required=True, metadata=doc("The card id on the line."))
    legal = fields.String(
        required=True,
        allow_none=True,
        metadata=doc(
            "The recommended printing of the same name legal on the date (newest regular art first), or null."
        ),
    )


class ProblemGroupSchema(ma.Schema):
    """Problems with one cause and one fix, for a person to read as one; each is also in ``problems``."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(("rotated-out",)),
        metadata=doc("rotated-out: the cards' regulation mark left the format on date."),
    )
    rule = fields.String(required=True, validate=validate.OneOf(sorted(CATALOGUE)))
    message = fields.String(
        required=True,
        metadata=doc("One sentence.", example="9 cards on 6 lines rotated out on 2026-04-10 (regulation mark G)."),
    )
    date = iso_date(required=True, allow_none=True)
    before = fields.Boolean(
        required=True, metadata=doc("True when they left before date, the earliest rotation the format file knows.")
    )
    marks = fields.List(fields.String(), required=True)
    problems = fields.List(
        fields.Integer(), required=True, metadata=doc("Indices of the group's problems in problems.")
    )
    lines = fields.List(fields.Integer(), required=True, metadata=doc("The lines: removing them all fixes the group."))
    cards = fields.List(fields.String(), required=True, metadata=doc("The card id on each line."))
    replacements = fields.List(fields.Nested(ReplacementSchema), required=True)


class CountsSchema(ma.Schema):
    pokemon = fields.Integer(required=True)
    trainer = fields.Integer(required=True)
    energy = fields.Integer(required=True)
    # a field named like marshmallow's `unknown` option (a report's count of unresolved copies)
    unknown = fields.Integer(  # type: ignore[assignment]
        required=True, metadata=doc("Copies of cards that could not be resolved.")
    )
    total = fields.Integer(required=True)


class NewestSetSchema(ma.Schema):
    """The latest-released set the card database has cards of: nothing newer is known to it."""

    id = fields.String(required=True, metadata=doc("Set id in the card database.", example="me05"))
    name = fields.String(required=True, metadata=doc("Set name.", example="Pitch Black"))
    code = fields.String(required=True, allow_none=True, metadata=doc("Set code in decklists.", example="PBL"))
    release = iso_date(required=True, metadata=doc("Release date.", example="2026-07-17"))


class DatabaseSchema(ma.Schema):
    """Which card database answered: ``CardDB.info()``."""

    version = fields.String(required=True, metadata=doc("Content hash of the database file."))
    built_at = fields.String(required=True, allow_none=True)
    sources = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata=doc("Upstream data sources and their revisions."),
    )
    cards = fields.Integer(required=True)
    sets = fields.Integer(required=True)
    newest_set = fields.Nested(
        NewestSetSchema,
        required=True,
        allow_none=True,
        metadata=doc(
            "The newest set the database knows (null when it has no dated set); a set released later is unknown "
            "to it until `deckcheck db sync`."
        ),
    )


class ForecastRotationSchema(ma.Schema):
    date = iso_date(required=True, metadata=doc("From this day the lowest legal mark is lowest_mark."))
    lowest_mark = fields.String(required=True, metadata=doc("The lowest legal regulation mark after it.", example="I"))
    announced = fields.Boolean(
        required=True,
        metadata=doc(
            "True: a rotation in the format file. False: assumed (the lowest mark up by one, a year after the last)."
        ),
    )
    source = fields.String(required=True, metadata=doc("The announcement, or the assumption made."))


class ForecastLineSchema(ma.Schema):
    """A line the rotation would make illegal."""

    line = fields.Integer(required=True)
    card = fields.String(required=True, metadata=doc("The printing's id."))
    label = fields.String(required=True, metadata=doc("As messages name it.", example="Dreepy (TWM 128)"))
    mark = fields.String(required=True, allow_none=True)


class KeptLineSchema(ForecastLineSchema):
    """A line whose printing rotates out, kept legal by a functionally identical reprint."""

    via = fields.String(required=True, metadata=doc("The reprint that keeps the line legal (its id)."))
    via_label = fields.String(required=True, metadata=doc("The reprint as messages name it."))
    via_mark = fields.String(required=True, allow_none=True, metadata=doc("The reprint's regulation mark."))


class ForecastSchema(ma.Schema):
    rotation = fields.Nested(
        ForecastRotationSchema,
        required=True,
        allow_none=True,
        metadata=doc("None when the format does not rotate by regulation marks."),
    )
    rotating = fields.List(
        fields.Nested(ForecastLineSchema),
        required=True,
        metadata=doc("Lines the rotation would make illegal (rotation-forecast warnings)."),
    )
    kept_by_reprint = fields.List(
        fields.Nested(KeptLineSchema),
        required=True,
        metadata=doc(
            "Lines whose printing rotates out but a functionally identical reprint keeps legal "
            "(rotation-forecast info)."
        ),
    )


class ReportSchema(ma.Schema):
    """The verdict on one deck in one format on one date: ``Report.to_dict()``."""

    valid = fields.Boolean(required=True, metadata=doc("True when there is no problem of severity error."))
    format = fields.String(required=True)
    format_name = fields.String(required=True)
    as_of = iso_date(required=True, metadata=doc("The date legality was checked on."))
    summary = fields.String(required=True, metadata=doc("One line for a chat bot or a CI log."))
    problems = fields.List(
        fields.Nested(ProblemSchema),
        required=True,
        metadata=doc("Errors first, then warnings, then info; by line within each."),
    )
    groups = fields.List(
        fields.Nested(ProblemGroupSchema),
        required=True,
        metadata=doc("Problems gathered by cause (cards that rotated out on one date), each also in problems."),
    )
    cards = fields.List(fields.Nested(CardLineSchema), required=True)
    counts = fields.Nested(CountsSchema, required=True)
    basic_pokemon = fields.Integer(required=True)
    database = fields.Nested(DatabaseSchema, required=True)
    chat = fields.String(
        metadata=doc(
            "Only with style=chat: the verdict and the problems as one chat message of at most 2,000 characters "
            "(Discord's limit), ending with a link to the full result on the web page when it had to be cut.",
            example="✅ Valid for Standard on 2026-05-01 (60 cards).",
        )
    )
    forecast = fields.Nested(ForecastSchema, metadata=doc("Only with forecast true: the rotation forecast."))
