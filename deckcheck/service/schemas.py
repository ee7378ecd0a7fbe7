"""marshmallow schemas for every request and response of the JSON API.

They validate what callers send and describe what the service answers; the
OpenAPI document at ``/api/v1/openapi.json`` is generated from them. Response
schemas describe the dicts that ``to_dict()`` builds in the core modules
exactly: a key always written is required, a key written only sometimes
(``chat``, ``forecast``) is not, and no other key is allowed.
tests/service/test_report_shape.py compares ``Report.to_dict`` with
:class:`ReportSchema` key by key over real answers, both ways; the schemathesis
run checks the served answers against the document.
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ..formats import default_formats
from ..problems import CATALOGUE, SEVERITIES

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
FORECAST_DOC = (
    "true: also forecast the next Standard rotation (announced in the format file, else assumed: the "
    "lowest legal mark up by one): rotation-forecast warnings for the cards it would make illegal, "
    "info for those a functionally identical reprint keeps legal, and the forecast field."
)
#: ``style`` values of ``POST /api/v1/validate``
STYLES = ("full", "chat")
RESOLUTIONS = ("printing", "alias", "name-and-set", "name", "basic-energy", "unresolved")
SUPERTYPES = ("Pokémon", "Trainer", "Energy")
MAX_SEARCH_RESULTS = 20
MAX_QUERY_CHARS = 100


def _doc(text: str, **extra) -> dict:
    """``metadata`` for a field: its OpenAPI description (and example)."""
    return {"description": text, **extra}


def _iso_date(**kwargs) -> fields.String:
    """A date the core already wrote as ``YYYY-MM-DD`` (marshmallow's Date dumps only date objects)."""
    return fields.String(metadata={"format": "date", **kwargs.pop("metadata", {})}, **kwargs)


def _known_formats() -> list[str]:
    return sorted(default_formats())


# -- requests ----------------------------------------------------------------


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


def _format_field(**kwargs) -> fields.String:
    return fields.String(
        validate=validate.OneOf(_known_formats(), error="Unknown format {input!r}. Known formats: {choices}."),
        metadata=_doc(
            "Format id (see GET /api/v1/formats); default: the service's default format, standard.", example="standard"
        ),
        **kwargs,
    )


def _as_of_field(**kwargs) -> fields.Date:
    return fields.Date(
        error_messages={"invalid": "Not a valid date: use YYYY-MM-DD, e.g. 2026-05-01."},
        metadata=_doc(
            "Check legality on this date (YYYY-MM-DD); default: the server's date today.", example="2026-05-01"
        ),
        **kwargs,
    )


class ValidateRequestSchema(ma.Schema):
    """The JSON body of ``POST /api/v1/validate`` (null options mean the default)."""

    error_messages = {
        "type": 'The JSON body must be an object, e.g. {"decklist": "4 Nest Ball SVI 181", "format": "standard"}.',
        "unknown": "Unknown field; the fields are decklist, format, as_of and forecast.",
    }

    decklist = fields.String(
        required=True,
        error_messages={"required": "A decklist is required: the text of the list, one card per line."},
        metadata=_doc(
            "The decklist as text (PTCGL/PTCGO/Limitless export, one card per line) or a JSON deck. "
            "At most 64 KiB of UTF-8 and 1,000 lines by default.",
            example="Pokémon: 1\n4 Pikachu ex SSP 57\n",
        ),
    )
    format = _format_field(allow_none=True)
    as_of = _as_of_field(allow_none=True)
    forecast = StrictBoolean(allow_none=True, metadata=_doc(FORECAST_DOC, example=True))


class ValidateQuerySchema(ma.Schema):
    """Query parameters of ``POST /api/v1/validate`` (the way to pass options with a text/plain body)."""

    format = _format_field()
    as_of = _as_of_field()
    style = fields.String(
        validate=validate.OneOf(STYLES, error="Unknown style {input!r}. Known styles: {choices}."),
        metadata=_doc(
            "chat: also answer the verdict as one chat message (the chat field) of at most 2,000 "
            "characters, for bots; default: full (the report alone).",
            example="chat",
        ),
    )
    forecast = StrictBoolean(query=True, metadata=_doc(FORECAST_DOC, example=True))


class CardQuerySchema(ma.Schema):
    """Query parameters of ``GET /api/v1/cards``."""

    q = fields.String(
        load_default="",
        validate=validate.Length(max=MAX_QUERY_CHARS),
        metadata=_doc("Card name or the start of one; matched exactly, by prefix, then fuzzily.", example="nest bal"),
    )
    set = fields.String(
        validate=validate.Length(min=1, max=20),
        metadata=_doc("Set code as written in decklists (SVI, PAL, PR-SV...).", example="SVI"),
    )
    number = fields.String(
        validate=validate.Length(min=1, max=20),
        metadata=_doc(
            "Collector number. With set, returns that exact printing; without, keeps the printings with this number.",
            example="181",
        ),
    )
    limit = fields.Integer(
        load_default=MAX_SEARCH_RESULTS,
        validate=validate.Range(min=1, max=MAX_SEARCH_RESULTS),
        metadata=_doc(f"At most this many results (1 to {MAX_SEARCH_RESULTS})."),
    )


# -- responses ---------------------------------------------------------------


class CardSchema(ma.Schema):
    """One printing, as ``Card.to_dict()`` gives it."""

    id = fields.String(required=True, metadata=_doc("Printing id in the card database.", example="sv01-181"))
    name = fields.String(required=True)
    supertype = fields.String(required=True, validate=validate.OneOf(SUPERTYPES))
    subtypes = fields.List(fields.String(), required=True)
    set = fields.String(required=True, metadata=_doc("Set code as written in decklists.", example="SVI"))
    set_id = fields.String(required=True, metadata=_doc("Set id in the card database.", example="sv01"))
    number = fields.String(required=True)
    regulation_mark = fields.String(required=True, allow_none=True)
    types = fields.List(fields.String(), required=True)
    evolves_from = fields.String(required=True, allow_none=True)
    rarity = fields.String(required=True, allow_none=True)


class CardLineSchema(ma.Schema):
    """One card line of the decklist and the printing it resolved to."""

    line = fields.Integer(
        required=True, metadata=_doc("1-based line number in the text (entry number in a JSON deck).")
    )
    count = fields.Integer(required=True)
    text = fields.String(required=True, metadata=_doc("The line as written."))
    name = fields.String(required=True, metadata=_doc("The card name as written."))
    name_as_written = fields.String(
        required=True,
        metadata=_doc("The card name as the player wrote it, in any language (the card's own name is card.name)."),
    )
    language = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The language the name was recognised in when it is the card's name in another language "
            "(TCGdex codes: fr, de, es, it, pt, es-mx); null for an English name or an unknown card.",
            example="fr",
        ),
    )
    set = fields.String(required=True, allow_none=True, metadata=_doc("The set code as written."))
    number = fields.String(required=True, allow_none=True, metadata=_doc("The collector number as written."))
    resolution = fields.String(
        required=True, validate=validate.OneOf(RESOLUTIONS), metadata=_doc("How the line was matched to a printing.")
    )
    suggestions = fields.List(
        fields.String(), required=True, metadata=_doc("Close card names when the line could not be resolved.")
    )
    legal = fields.Boolean(
        required=True, allow_none=True, metadata=_doc("Legal in the format on the date; null when the card is unknown.")
    )
    legal_via = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc("Id of a functionally identical reprint that makes this printing legal."),
    )
    banned = fields.Boolean(required=True)
    card = fields.Nested(CardSchema, required=True, allow_none=True)


class ProblemSchema(ma.Schema):
    """One thing wrong (or worth saying) about the deck."""

    rule = fields.String(
        required=True,
        validate=validate.OneOf(sorted(CATALOGUE)),
        metadata=_doc("Stable rule name.", example="copy-limit"),
    )
    code = fields.String(required=True, metadata=_doc("Stable code.", example="R102"))
    severity = fields.String(required=True, validate=validate.OneOf(SEVERITIES))
    message = fields.String(required=True, metadata=_doc("One sentence naming the cards, counts and limit."))
    lines = fields.List(fields.Integer(), required=True, metadata=_doc("Line numbers the problem is about."))
    cards = fields.List(fields.String(), required=True, metadata=_doc("Card ids the problem is about."))
    hint = fields.String(required=True, allow_none=True, metadata=_doc("A likely mistake, when there is one."))


class ReplacementSchema(ma.Schema):
    line = fields.Integer(required=True)
    card = fields.String(required=True, metadata=_doc("The card id on the line."))
    legal = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The recommended printing of the same name legal on the date (newest regular art first), or null."
        ),
    )


class ProblemGroupSchema(ma.Schema):
    """Problems with one cause and one fix, for a person to read as one; each is also in ``problems``."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(("rotated-out",)),
        metadata=_doc("rotated-out: the cards' regulation mark left the format on date."),
    )
    rule = fields.String(required=True, validate=validate.OneOf(sorted(CATALOGUE)))
    message = fields.String(
        required=True,
        metadata=_doc("One sentence.", example="9 cards on 6 lines rotated out on 2026-04-10 (regulation mark G)."),
    )
    date = _iso_date(required=True, allow_none=True)
    before = fields.Boolean(
        required=True, metadata=_doc("True when they left before date, the earliest rotation the format file knows.")
    )
    marks = fields.List(fields.String(), required=True)
    problems = fields.List(
        fields.Integer(), required=True, metadata=_doc("Indices of the group's problems in problems.")
    )
    lines = fields.List(fields.Integer(), required=True, metadata=_doc("The lines: removing them all fixes the group."))
    cards = fields.List(fields.String(), required=True, metadata=_doc("The card id on each line."))
    replacements = fields.List(fields.Nested(ReplacementSchema), required=True)


class CountsSchema(ma.Schema):
    pokemon = fields.Integer(required=True)
    trainer = fields.Integer(required=True)
    energy = fields.Integer(required=True)
    # a field named like marshmallow's `unknown` option (a report's count of unresolved copies)
    unknown = fields.Integer(  # type: ignore[assignment]
        required=True, metadata=_doc("Copies of cards that could not be resolved.")
    )
    total = fields.Integer(required=True)


class NewestSetSchema(ma.Schema):
    """The latest-released set the card database has cards of: nothing newer is known to it."""

    id = fields.String(required=True, metadata=_doc("Set id in the card database.", example="me05"))
    name = fields.String(required=True, metadata=_doc("Set name.", example="Pitch Black"))
    code = fields.String(required=True, allow_none=True, metadata=_doc("Set code in decklists.", example="PBL"))
    release = _iso_date(required=True, metadata=_doc("Release date.", example="2026-07-17"))


class DatabaseSchema(ma.Schema):
    """Which card database answered: ``CardDB.info()``."""

    version = fields.String(required=True, metadata=_doc("Content hash of the database file."))
    built_at = fields.String(required=True, allow_none=True)
    sources = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata=_doc("Upstream data sources and their revisions."),
    )
    cards = fields.Integer(required=True)
    sets = fields.Integer(required=True)
    newest_set = fields.Nested(
        NewestSetSchema,
        required=True,
        allow_none=True,
        metadata=_doc(
            "The newest set the database knows (null when it has no dated set); a set released later is unknown "
            "to it until `deckcheck db sync`."
        ),
    )


class ForecastRotationSchema(ma.Schema):
    date = _iso_date(required=True, metadata=_doc("From this day the lowest legal mark is lowest_mark."))
    lowest_mark = fields.String(required=True, metadata=_doc("The lowest legal regulation mark after it.", example="I"))
    announced = fields.Boolean(
        required=True,
        metadata=_doc(
            "True: a rotation in the format file. False: assumed (the lowest mark up by one, a year after the last)."
        ),
    )
    source = fields.String(required=True, metadata=_doc("The announcement, or the assumption made."))


class ForecastLineSchema(ma.Schema):
    """A line the rotation would make illegal."""

    line = fields.Integer(required=True)
    card = fields.String(required=True, metadata=_doc("The printing's id."))
    label = fields.String(required=True, metadata=_doc("As messages name it.", example="Dreepy (TWM 128)"))
    mark = fields.String(required=True, allow_none=True)


class KeptLineSchema(ForecastLineSchema):
    """A line whose printing rotates out, kept legal by a functionally identical reprint."""

    via = fields.String(required=True, metadata=_doc("The reprint that keeps the line legal (its id)."))
    via_label = fields.String(required=True, metadata=_doc("The reprint as messages name it."))
    via_mark = fields.String(required=True, allow_none=True, metadata=_doc("The reprint's regulation mark."))


class ForecastSchema(ma.Schema):
    rotation = fields.Nested(
        ForecastRotationSchema,
        required=True,
        allow_none=True,
        metadata=_doc("None when the format does not rotate by regulation marks."),
    )
    rotating = fields.List(
        fields.Nested(ForecastLineSchema),
        required=True,
        metadata=_doc("Lines the rotation would make illegal (rotation-forecast warnings)."),
    )
    kept_by_reprint = fields.List(
        fields.Nested(KeptLineSchema),
        required=True,
        metadata=_doc(
            "Lines whose printing rotates out but a functionally identical reprint keeps legal "
            "(rotation-forecast info)."
        ),
    )


class ReportSchema(ma.Schema):
    """The verdict on one deck in one format on one date: ``Report.to_dict()``."""

    valid = fields.Boolean(required=True, metadata=_doc("True when there is no problem of severity error."))
    format = fields.String(required=True)
    format_name = fields.String(required=True)
    as_of = _iso_date(required=True, metadata=_doc("The date legality was checked on."))
    summary = fields.String(required=True, metadata=_doc("One line for a chat bot or a CI log."))
    problems = fields.List(
        fields.Nested(ProblemSchema),
        required=True,
        metadata=_doc("Errors first, then warnings, then info; by line within each."),
    )
    groups = fields.List(
        fields.Nested(ProblemGroupSchema),
        required=True,
        metadata=_doc("Problems gathered by cause (cards that rotated out on one date), each also in problems."),
    )
    cards = fields.List(fields.Nested(CardLineSchema), required=True)
    counts = fields.Nested(CountsSchema, required=True)
    basic_pokemon = fields.Integer(required=True)
    database = fields.Nested(DatabaseSchema, required=True)
    chat = fields.String(
        metadata=_doc(
            "Only with style=chat: the verdict and the problems as one chat message of at most 2,000 characters "
            "(Discord's limit), ending with a link to the full result on the web page when it had to be cut.",
            example="✅ Valid for Standard on 2026-05-01 (60 cards).",
        )
    )
    forecast = fields.Nested(ForecastSchema, metadata=_doc("Only with forecast true: the rotation forecast."))


class FormatRuleSchema(ma.Schema):
    rule = fields.String(required=True)
    parameters = fields.Dict(keys=fields.String(), required=True)
    set_by = fields.String(required=True, metadata=_doc("The format whose file sets this rule (itself or a parent)."))


class RotationSchema(ma.Schema):
    from_ = _iso_date(required=True, data_key="from", attribute="from")
    lowest_legal_mark = fields.String(
        required=True, allow_none=True, metadata=_doc("None for a rotation by sets (before regulation marks).")
    )
    sets = fields.List(fields.String(), metadata=_doc("Only for a rotation by sets: its set codes (or set ids)."))
    promos = fields.List(
        fields.String(), metadata=_doc("Only for a rotation by sets: promo sets legal from a number on (PR-BLW BW33+).")
    )
    source = fields.String(required=True)
    unconfirmed = fields.String(metadata=_doc("Why the date or list is not the announcement's own, when it is not."))


class MarkDateSchema(ma.Schema):
    mark = fields.String(required=True)
    from_ = _iso_date(required=True, data_key="from", attribute="from")
    source = fields.String(required=True)


class PoolSchema(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(("regulation-marks", "sets", "all")))
    earliest_date = _iso_date(required=True, metadata=_doc("Legality before this date is not modelled."))
    reprint_rule = fields.Boolean(required=True)
    set_legal_from = fields.String(required=True, validate=validate.OneOf(("third-friday", "release")))
    rotations = fields.List(fields.Nested(RotationSchema), metadata=_doc("Only for kind regulation-marks."))
    mark_dates = fields.List(
        fields.Nested(MarkDateSchema), metadata=_doc("Only for kind regulation-marks: when each mark became legal.")
    )
    series = fields.List(fields.String(), metadata=_doc("Only for kind sets."))
    include_sets = fields.List(fields.String(), metadata=_doc("Only for kind sets."))
    exclude_sets = fields.List(fields.String(), metadata=_doc("Only for kind sets."))


class BanSchema(ma.Schema):
    name = fields.String(required=True)
    printings = fields.List(fields.String(), required=True)
    since = _iso_date(required=True, allow_none=True)
    until = _iso_date(required=True, allow_none=True, metadata=_doc("The unban's effective date, or none."))
    source = fields.String(required=True)
    unconfirmed = fields.String(metadata=_doc("Why a date is not the announcement's own, when it is not."))


class FormatSchema(ma.Schema):
    """A format, its rules and parameters, its pool and ban list: ``Format.to_dict()``."""

    id = fields.String(required=True, metadata=_doc("Format id to pass as format.", example="standard"))
    name = fields.String(required=True)
    description = fields.String(required=True)
    extends = fields.String(required=True, allow_none=True)
    rules = fields.List(fields.Nested(FormatRuleSchema), required=True)
    pool = fields.Nested(PoolSchema, required=True)
    bans = fields.List(fields.Nested(BanSchema), required=True)
    sources = fields.List(fields.String(), required=True)


class FormatListSchema(ma.Schema):
    default = fields.String(required=True, metadata=_doc("The format used when a request names none."))
    formats = fields.List(fields.Nested(FormatSchema), required=True)


class CardSearchSchema(ma.Schema):
    cards = fields.List(
        fields.Nested(CardSchema),
        required=True,
        metadata=_doc(f"At most {MAX_SEARCH_RESULTS} printings, best match first."),
    )


class HealthSchema(ma.Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ok",)))
    version = fields.String(required=True, metadata=_doc("deckcheck package version."))


class ReadySchema(ma.Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ready",)))
    database = fields.Nested(DatabaseSchema, required=True)
    database_age_days = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_doc("Days from the newest set's release to today (null when unknown).", example=137),
    )


class ErrorBodySchema(ma.Schema):
    code = fields.String(
        required=True,
        metadata=_doc(
            "Stable machine-readable code: " + ", ".join(ERROR_CODES.values()) + ".", example="unprocessable"
        ),
    )
    message = fields.String(required=True, metadata=_doc("One sentence for a person."))
    details = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata=_doc(
            "Structured detail: for 422 the field errors by location ({'json': {'format': [...]}}); "
            "for 413 limit, size and unit; for 405 allowed; otherwise empty."
        ),
    )


class ErrorSchema(ma.Schema):
    """The one envelope of every error under /api, /healthz and /readyz."""

    error = fields.Nested(ErrorBodySchema, required=True)
