"""The JSON API under /api/v1, and the /healthz and /readyz probes.

Built on flask-smorest: each view declares its arguments and responses with
the schemas of :mod:`deckcheck.service.schemas`, and the OpenAPI document is generated
from those declarations.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Flask, current_app, request
from flask_smorest import Api, Blueprint, abort
from marshmallow import ValidationError
from webargs import core as webargs_core
from webargs.flaskparser import FlaskParser

from .. import cards, chat
from ..dates import parse_date
from ..decklist.limits import decklist_limit
from ..decklist.validtext import not_unicode
from ..engine import check
from ..formats import default_formats
from ..names import lookup_key
from ..render.json import cards_json
from ..version import __version__
from . import errors, runtime
from .jsonbody import BodyError, read_json
from .paths import API_PREFIX
from .rawbody import read_body
from .schemas import (
    CardQuerySchema,
    CardSearchSchema,
    ErrorSchema,
    FormatListSchema,
    FormatSchema,
    HealthSchema,
    ReadySchema,
    ReportSchema,
    ValidateQuerySchema,
    ValidateRequestSchema,
)

JSON_TYPE = "application/json"
TEXT_TYPES = ("text/plain",)
UTF8_NAMES = ("utf-8", "utf8", "us-ascii", "ascii")
EXAMPLE_DECK = (
    "Pokémon: 1\n4 Pikachu ex SSP 57\n\nTrainer: 1\n4 Nest Ball SVI 181\n\nEnergy: 1\n52 Basic {L} Energy SVE 4\n"
)
API_DESCRIPTION = """\
Validate Pokémon TCG decklists against Standard, Expanded, Unlimited and Gym Leader Challenge.

* An illegal deck is a successful check: 200 with `valid: false` and the problems.
* Every error is `{{"error": {{"code", "message", "details"}}}}` with a stable `code`.
* Limits: a decklist of {max_bytes:,} bytes of UTF-8 and {max_lines:,} lines, a body of {max_body:,} bytes, at most.
* Unknown query parameters are ignored; unknown JSON fields are a 422.
* Every response carries the service version in the `X-Deckcheck-Version` header.
* Rate limits per client address over all of /api/v1 (an API key in `X-API-Key` or `Authorization: Bearer` has its \
own, higher limit; an unknown key is a 401): past the limit, a 429 `rate_limited` with `Retry-After` in seconds.
* CORS: pages on other origins may call the API from a browser.
"""
VERSION_HEADER = {"X-Deckcheck-Version": {"description": "deckcheck package version", "schema": {"type": "string"}}}
RETRY_AFTER_HEADER = {
    "Retry-After": {"description": "Seconds until the client may call again.", "schema": {"type": "integer"}}
}
RATE_LIMITED = "Too many requests from this client (address or API key): wait Retry-After seconds."


class DeckcheckApi(Api):
    """flask-smorest's Api with deckcheck's error envelope (documented and rendered)."""

    ERROR_SCHEMA = ErrorSchema

    def _register_error_handlers(self):
        errors.init_app(self._app)


class DecklistBodyParser(FlaskParser):
    """Reads the body of ``POST /validate``: a JSON object, or the decklist itself as text/plain."""

    def load_json(self, req, schema):
        # webargs passes the proxy: look it up once, not per attribute
        req = request._get_current_object()  # type: ignore[attr-defined]
        if req.environ.get("CONTENT_TYPE") == JSON_TYPE or webargs_core.is_json(req.mimetype):
            return _json_body(read_body(req))
        if req.mimetype in TEXT_TYPES:
            return {"decklist": _text_body(read_body(req), req.mimetype_params.get("charset"))}
        shown = f"Content-Type {req.mimetype!r}" if req.mimetype else "no Content-Type"
        abort(
            415,
            message=f"The request has {shown}: send a JSON object as application/json, "
            "or the decklist itself as text/plain.",
            details={"content_type": req.mimetype or None, "accepted": ["application/json", "text/plain"]},
        )


class _Blueprint(Blueprint):
    """flask-smorest's Blueprint; its documentation-only decorators add no call to a request.

    ``alt_response`` and ``doc`` wrap the view in a pass-through function that only
    carries documentation (``_apidoc``): five such layers cost more per request than
    a rule of the check. Here the documentation goes on the view itself.
    """

    ARGUMENTS_PARSER = DecklistBodyParser()

    @staticmethod
    def _document_only(decorate):
        def decorator(func):
            func._apidoc = decorate(func)._apidoc
            return func

        return decorator

    def alt_response(self, *args, **kwargs):
        return self._document_only(super().alt_response(*args, **kwargs))

    def arguments(self, schema, *, in_view: bool = False, **kwargs):
        """``in_view=True``: document the arguments only; the view reads them itself with the
        blueprint's webargs parser (``ARGUMENTS_PARSER.parse``: the same loading, unknown-field
        handling and 422 errors), without two call layers per argument set."""
        decorate = super().arguments(schema, **kwargs)
        return self._document_only(decorate) if in_view else decorate

    def response(self, status_code, schema=None, *, in_view: bool = False, **kwargs):
        """``in_view=True``: document the response only; the view returns a finished Response."""
        decorate = super().response(status_code, schema, **kwargs)
        return self._document_only(decorate) if in_view else decorate

    def doc(self, **kwargs):
        return self._document_only(super().doc(**kwargs))


def _utf8(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        abort(
            400,
            message=f"The {what} is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} ({exc.reason}).",
            details={"offset": exc.start},
        )
        raise AssertionError("abort() raises") from exc  # flask-smorest's abort is not typed NoReturn


def _json_body(raw: bytes):
    """The parsed JSON body; 400 when it is empty, not UTF-8 or not strict JSON, 422 when a string in it
    is not valid Unicode (:func:`deckcheck.service.jsonbody.read_json`)."""
    if not raw.strip():
        abort(400, message='The request body is empty: send a JSON object such as {"decklist": "..."}.')
    try:
        return read_json(raw)
    except BodyError as exc:
        abort(exc.status, message=exc.message, details=exc.details)


def _text_body(raw: bytes, charset: str | None) -> str:
    if charset and charset.lower() not in UTF8_NAMES:
        abort(
            415,
            message=f"A text/plain decklist must be UTF-8; the request declares charset={charset}.",
            details={"charset": charset, "accepted": ["utf-8"]},
        )
    return _utf8(raw, "decklist")


def _validate_body() -> dict:
    """The loaded JSON (or text/plain) body of ``POST /validate``.

    A body that loads is read by the parser and the schema directly: webargs' parse()
    would add nothing but calls around the same two steps (its unknown-field setting
    for a JSON body is the schema's own). The usual body is loaded by :func:`load_body_fast`
    (the schema's result without marshmallow's machinery); anything else by the schema. A
    body that does not load goes through webargs' parse() again, for exactly its 422 (the
    messages under "json").
    """
    parser = bp.ARGUMENTS_PARSER
    data = parser.load_json(request, VALIDATE_BODY)
    loaded = load_body_fast(data)
    if loaded is not None:
        return loaded
    try:
        return VALIDATE_BODY.load(data)
    except ValidationError:
        return parser.parse(VALIDATE_BODY, location="json")


def load_body_fast(data: object) -> dict | None:
    """``ValidateRequestSchema().load(data)`` for the usual body, or None for anything else.

    The usual body: a JSON object of the schema's fields only, ``decklist`` a string (valid
    Unicode: the JSON reader, :func:`deckcheck.service.jsonbody.read_json`, refuses any other),
    ``format`` a known format id or null, ``as_of`` an ISO date string or null, ``forecast``
    true, false or null. For it this gives what the schema's load gives
    (the same values, keys in the schema's order) at a tenth of the cost (BENCHMARKS.md);
    any other body is None and goes to marshmallow, which loads it (``"forecast":
    "yes"``...) or answers its 422. tests/service/test_api.py holds the two together (hypothesis).
    """
    if type(data) is not dict or not data.keys() <= _BODY_FIELDS:
        return None
    text = data.get("decklist")
    if type(text) is not str:
        return None
    out: dict = {"decklist": text}
    if "format" in data:
        fmt = data["format"]
        if fmt is not None and (type(fmt) is not str or fmt not in _FORMAT_IDS):
            return None
        out["format"] = fmt
    if "as_of" in data:
        as_of = data["as_of"]
        if as_of is not None:
            if type(as_of) is not str:
                return None
            try:
                as_of = _date_from_iso(as_of)
            except ValueError:
                return None
        out["as_of"] = as_of
    if "forecast" in data:
        forecast = data["forecast"]
        if forecast is not None and type(forecast) is not bool:
            return None
        out["forecast"] = forecast
    return out


class ValidateOptions:
    """The settings ``POST /validate`` reads (the decklist's size limits, the default format, the
    database's age limit, the public address for chat links), read from the app's config once, when the
    API is attached to the app (:func:`init_app`): a request reads them as attributes, never the config.
    The app is configured before it is made (``create_app(config)``, the environment): a config value
    changed on a running app is not seen."""

    __slots__ = ("max_bytes", "max_lines", "default_format", "max_db_age", "public_url")

    def __init__(self, config: Any) -> None:
        self.max_bytes: int = config["MAX_DECKLIST_BYTES"]
        self.max_lines: int = config["MAX_DECKLIST_LINES"]
        self.default_format: str = config["DEFAULT_FORMAT"]
        self.max_db_age: int | None = config["MAX_DB_AGE"]
        self.public_url: str | None = config["PUBLIC_URL"]


#: where an app keeps its :class:`ValidateOptions` (``app.extensions``)
OPTIONS = "deckcheck.api"


def check_limits(text: str, options: ValidateOptions) -> None:
    """422 when the decklist is not valid Unicode (a JSON deck's lone surrogate escape), 413 when it is
    over the limits of ``options``."""
    fault = not_unicode(text)
    if fault is not None:
        abort(422, message=f"The decklist is not valid Unicode text. {fault.message}", details=fault.details())
    over = decklist_limit(text, options.max_bytes, options.max_lines)
    if over is None:
        return
    if over.unit == "bytes":
        message = f"The decklist is {over.size:,} bytes of UTF-8; the limit is {over.limit:,} bytes."
    else:
        message = f"The decklist has {over.measured}; the limit is {over.limit:,} lines."
    abort(413, message=message, details=over.details())


bp = _Blueprint("api", __name__, url_prefix=API_PREFIX, description="Validate decklists, list formats, look up cards.")
ops = _Blueprint("ops", __name__, description="Liveness and readiness probes for load balancers and orchestrators.")


# schema instances, made once: webargs would build (and deep-copy the fields of) a new one per request
VALIDATE_BODY, VALIDATE_QUERY = ValidateRequestSchema(), ValidateQuerySchema()
# what load_body_fast takes from the schema: its fields, the format ids its OneOf accepts, its date reader
_BODY_FIELDS = frozenset(VALIDATE_BODY.fields)
_FORMAT_IDS = frozenset(VALIDATE_BODY.fields["format"].validators[0].choices)  # type: ignore[attr-defined]
#: the schema's date reader (its ``as_of`` field, :class:`~deckcheck.service.schemas.fields.IsoDate`): every entry
#: point's one reading of a date
_date_from_iso = parse_date


@bp.route("/validate", methods=["POST"])
@bp.arguments(
    VALIDATE_BODY,
    location="json",
    in_view=True,
    example={"decklist": EXAMPLE_DECK, "format": "standard", "as_of": "2026-05-01"},
    description="A JSON object, or (text/plain) the decklist itself with format and as_of in the query.",
)
@bp.arguments(VALIDATE_QUERY, location="query", in_view=True)
@bp.doc(requestBody={"content": {"text/plain": {"schema": {"type": "string"}, "example": EXAMPLE_DECK}}})
@bp.response(
    200,
    ReportSchema,
    headers=VERSION_HEADER,
    in_view=True,
    description="The verdict. An illegal deck is a 200 too, with valid false and its problems.",
)
@bp.alt_response(400, schema=ErrorSchema, description="The body is empty, not UTF-8 or not JSON.")
@bp.alt_response(413, schema=ErrorSchema, description="The body, the decklist or its line count is over the limit.")
@bp.alt_response(
    415,
    schema=ErrorSchema,
    description="The body is neither application/json nor UTF-8 text/plain, or is in a Content-Encoding.",
)
@bp.alt_response(429, schema=ErrorSchema, headers=RETRY_AFTER_HEADER, description=RATE_LIMITED)
@bp.alt_response(503, schema=ErrorSchema, description="The card database is not available.")
def validate():
    """Validate a decklist

    Checks the deck against a format on a date (default: the standard format, today).
    Options in the JSON body take precedence over the same options in the query string.
    """
    # the busiest endpoint reads its documented arguments here, body first, as the
    # decorators would (see _Blueprint.arguments)
    body = _validate_body()
    # no query string loads as {} (the query schema has no defaults nor required fields; tested)
    req = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup, not one per use
    query = bp.ARGUMENTS_PARSER.parse(VALIDATE_QUERY, location="query") if req.environ.get("QUERY_STRING") else {}
    text = body["decklist"]
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    options: ValidateOptions = app.extensions[OPTIONS]
    check_limits(text, options)
    as_of = body.get("as_of") or query.get("as_of")
    forecast = body.get("forecast")
    report = check(
        text,
        body.get("format") or query.get("format") or options.default_format,
        as_of,
        max_db_age=options.max_db_age,
        forecast=bool(query.get("forecast") if forecast is None else forecast),
    )
    # the dict already has ReportSchema's exact shape (tests hold them together); a
    # second marshmallow dump would cost as much as the check itself. Card lines go in
    # as JSON encoded once per line text (format and date), but for the line number,
    # joined into one array (render.json.cards_json).
    data = report.to_dict(cards_view=cards_json)
    if query.get("style") == "chat":
        base = options.public_url  # never the request's Host: without PUBLIC_URL, no link
        data["chat"] = chat.reply(report, chat.link_for(base, text, report) if base else None)
    return app.json.response(data)  # jsonify(data) without its two proxy lookups


@bp.route("/formats")
@bp.response(200, FormatListSchema, headers=VERSION_HEADER)
@bp.alt_response(429, schema=ErrorSchema, headers=RETRY_AFTER_HEADER, description=RATE_LIMITED)
def list_formats():
    """List the formats

    Each format with its rules and their parameters, its card pool and its ban list.
    """
    formats = default_formats()
    return {
        "default": current_app.config["DEFAULT_FORMAT"],
        "formats": [formats[fid].to_dict() for fid in sorted(formats)],
    }


@bp.route("/formats/<format_id>")
@bp.response(200, FormatSchema, headers=VERSION_HEADER)
@bp.alt_response(404, schema=ErrorSchema, description="No format has this id.")
@bp.alt_response(429, schema=ErrorSchema, headers=RETRY_AFTER_HEADER, description=RATE_LIMITED)
def get_format(format_id: str):
    """Describe one format"""
    formats = default_formats()
    if format_id not in formats:
        abort(404, message=f"Unknown format {format_id!r}. Known formats: {', '.join(sorted(formats))}.")
    return formats[format_id].to_dict()


@bp.route("/cards")
@bp.arguments(CardQuerySchema(), location="query")
@bp.response(200, CardSearchSchema, headers=VERSION_HEADER)
@bp.alt_response(429, schema=ErrorSchema, headers=RETRY_AFTER_HEADER, description=RATE_LIMITED)
@bp.alt_response(503, schema=ErrorSchema, description="The card database is not available.")
def search_cards(args):
    """Look up cards

    Autocomplete and lookup: an exact printing for set and number, otherwise the
    printings of the exact name, names starting with q, then close names (fuzzy).
    """
    query = args["q"].strip()
    if not lookup_key(query):  # nothing searchable left (blanks, punctuation)
        query = ""
    found = cards.get_db().search(query, args.get("set"), args.get("number"), limit=args["limit"])
    return {"cards": [card.to_dict() for card in found[: args["limit"]]]}


@ops.route("/healthz")
@ops.response(200, HealthSchema, headers=VERSION_HEADER)
def healthz():
    """Liveness: the process answers"""
    return {"status": "ok", "version": __version__}


@ops.route("/readyz")
@ops.response(200, ReadySchema, headers=VERSION_HEADER)
@ops.alt_response(
    503,
    schema=ErrorSchema,
    description="The card database could not be loaded, or the service is shutting down (draining).",
)
def readyz():
    """Readiness: the card database is loaded and the service is not shutting down"""
    if runtime.draining():
        return errors.envelope(503, "The service is shutting down: send new requests elsewhere.", {"draining": True})
    db = cards.get_db()
    return {"status": "ready", "database": db.info(), "database_age_days": db.age_days(dt.date.today())}


def init_app(app: Flask) -> None:
    """Attach flask-smorest (OpenAPI at /api/v1/openapi.json), the API and the probes."""
    from . import apidocs

    for key, value in {
        "API_TITLE": "deckcheck",
        "API_VERSION": __version__,
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": API_PREFIX,
        "OPENAPI_JSON_PATH": "openapi.json",
        "API_SPEC_OPTIONS": {
            "info": {
                "license": {"name": "MIT"},
                "description": API_DESCRIPTION.format(
                    max_bytes=app.config["MAX_DECKLIST_BYTES"],
                    max_lines=app.config["MAX_DECKLIST_LINES"],
                    max_body=app.config["MAX_CONTENT_LENGTH"],
                ),
            }
        },
    }.items():
        app.config.setdefault(key, value)
    app.extensions[OPTIONS] = ValidateOptions(app.config)
    api = DeckcheckApi(app)
    api.register_blueprint(bp)
    api.register_blueprint(ops)
    app.register_blueprint(apidocs.bp)
