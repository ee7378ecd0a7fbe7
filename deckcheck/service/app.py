"""The Flask application factory."""

from __future__ import annotations

import codecs
import os
from urllib.parse import parse_qsl, unquote_to_bytes

import orjson
from flask import Flask, Request, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.formparser import FormDataParser, MultiPartParser
from werkzeug.routing import RequestRedirect
from werkzeug.utils import cached_property

from .. import cards
from ..cards import watch as dbwatch
from ..formats import FormatError, default_formats
from ..version import __version__
from . import links, settings
from .paths import is_api_path
from .rawbody import closes, guard_body

#: the request body may be this many times the decklist limit: JSON escapes
#: (\n, \u00e9...) make a body larger than the text it carries
BODY_ALLOWANCE = 4


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON with orjson underneath: a report is ~10 KB of JSON, and the standard
    library's encoder takes longer over it than the whole deck check. Compact; non-ASCII is
    written as UTF-8 rather than ``\\u`` escapes.

    Keys are written in the order the code builds them (``valid`` and ``summary`` first in a
    report, a schema's fields in their declared order), not sorted as Flask's default
    provider does: a dict's order is already fixed, and sorting every object of a report costs
    more than a third of encoding it.
    """

    sort_keys = False
    _OPTIONS = orjson.OPT_NON_STR_KEYS

    def dumps(self, obj, **kwargs) -> str:
        # Flask's response() asks for compact separators: that is orjson's only layout;
        # anything else (an indent in debug mode) goes to the standard library
        if kwargs and kwargs != {"separators": (",", ":")}:
            return super().dumps(obj, **kwargs)
        return orjson.dumps(obj, default=self.default, option=self._OPTIONS).decode("utf-8")

    def response(self, *args, **kwargs):
        """jsonify(): orjson's bytes go out as they are (Flask's own would decode them to a
        str and the response encode it again); the same body, a line break at the end."""
        if (self.compact is None and self._app.debug) or self.compact is False:
            return super().response(*args, **kwargs)
        body = orjson.dumps(
            self._prepare_response_obj(args, kwargs),
            default=self.default,
            option=self._OPTIONS | orjson.OPT_APPEND_NEWLINE,
        )
        # self._app is typed as the sans-IO App, whose response class takes no body
        return self._app.response_class(body, mimetype=self.mimetype)  # type: ignore[arg-type]


def _not_utf8(what: str, exc: UnicodeDecodeError, offset: int | None = None, written: str = "") -> BadRequest:
    """The 400 for text that is not UTF-8: the byte, where it is in what was sent (``offset``, else the error's
    own) and how it was ``written`` there when that was a percent-escape."""
    byte = exc.object[exc.start]
    shown = f"byte 0x{byte:02x}" + (f" (written {written})" if written else "")
    return BadRequest(
        f"The {what} is not valid UTF-8: {shown} at offset {exc.start if offset is None else offset} "
        f"({exc.reason}); percent-encode its text as UTF-8."
    )


def strict_pairs(text: str, what: str) -> list[tuple[str, str]]:
    """The ``name=value`` pairs of a query string or URL-encoded form, every percent-escape read as UTF-8.

    werkzeug keeps an escape of bytes that are not UTF-8 (``%FF``, ``%ED%A0%80``: a lone surrogate) as the
    text ``%FF``, so the list would be checked with a name nobody wrote; here such an escape is the same 400 as
    the raw byte, saying where it is. The usual text is read by one call in C; only a refused one is read
    again, to find the escape.
    """
    try:
        return parse_qsl(text, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        pass
    offset = 0
    for part in text.split("&"):
        for piece, start in _pieces(part, offset):
            raw = unquote_to_bytes(piece.replace("+", " "))
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                at = _escaped_offset(piece, exc.start)
                written = piece[at : at + 3] if piece.startswith("%", at) else ""
                raise _not_utf8(what, exc, start + at, written.upper()) from None
        offset += len(part) + 1
    raise AssertionError("parse_qsl refused text whose every piece is UTF-8")  # pragma: no cover


def _pieces(part: str, offset: int) -> list[tuple[str, int]]:
    """A pair's name and value, each with its offset in the whole text."""
    name, eq, value = part.partition("=")
    return [(name, offset), (value, offset + len(name) + 1)] if eq else [(name, offset)]


def _escaped_offset(piece: str, byte_index: int) -> int:
    """The offset in ``piece`` (percent-escaped text) of the ``byte_index``-th byte it stands for."""
    i = n = 0
    while i < len(piece):
        if n >= byte_index:
            return i
        if piece[i] == "%" and len(unquote_to_bytes(piece[i : i + 3])) == 1:
            i, n = i + 3, n + 1
        else:
            n += len(piece[i].encode("utf-8", "surrogatepass"))
            i += 1
    return i


#: the codec a multipart form's UTF-8 field is read with: UTF-8 that refuses what is not UTF-8 whatever the
#: caller asks (werkzeug reads a field with ``errors="replace"``: U+FFFD for each byte, silently)
STRICT_UTF8 = "deckcheck-strict-utf-8"


def _strict_codec(name: str) -> codecs.CodecInfo | None:
    if name != STRICT_UTF8.replace("-", "_"):
        return None
    utf8 = codecs.lookup("utf-8")
    return codecs.CodecInfo(utf8.encode, lambda data, errors="strict": utf8.decode(data, "strict"), name=STRICT_UTF8)


codecs.register(_strict_codec)


class StrictMultiPartParser(MultiPartParser):
    """werkzeug's multipart parser, whose UTF-8 (or ASCII) fields are read strictly (:data:`STRICT_UTF8`)."""

    def get_part_charset(self, headers) -> str:
        charset = super().get_part_charset(headers)
        return STRICT_UTF8 if charset in ("utf-8", "ascii", "us-ascii") else charset


class StrictFormParser(FormDataParser):
    """werkzeug's form parser, but a URL-encoded form that is not UTF-8, in its raw bytes or once its
    percent-escapes are read, is a 400 that says where (:func:`strict_pairs`), and so is a multipart field that
    is not UTF-8 or a malformed multipart form: werkzeug's own parser takes a decoding error for a malformed
    form and answers an empty one (or, in a multipart field, puts U+FFFD in place of each byte), and the page
    would then call a list it had silently dropped empty, or check a name nobody wrote."""

    def _parse_urlencoded(self, stream, mimetype, content_length, options):
        data = stream.read()
        limit = self.max_content_length
        if content_length is None and limit is not None and len(data) >= limit:
            # a chunked form werkzeug cut short at the limit (it answers 413 only for a declared length)
            raise RequestEntityTooLarge()
        try:
            text = data.decode()
        except UnicodeDecodeError as exc:
            raise _not_utf8("form", exc) from None
        return stream, self.cls(strict_pairs(text, "form")), self.cls()

    def _parse_multipart(self, stream, mimetype, content_length, options):
        """werkzeug's, with :class:`StrictMultiPartParser`; a field that is not UTF-8 or a malformed form is a 400
        that says so (werkzeug answers an empty form for either)."""
        boundary = options.get("boundary", "").encode("ascii", "replace")
        if not boundary:
            raise BadRequest("The multipart form has no boundary: its Content-Type must give one.")
        parser = StrictMultiPartParser(
            stream_factory=self.stream_factory,
            max_form_memory_size=self.max_form_memory_size,
            max_form_parts=self.max_form_parts,
            cls=self.cls,
        )
        try:
            form, files = parser.parse(stream, boundary, content_length)
        except UnicodeDecodeError as exc:
            raise BadRequest(
                f"A field of the form is not valid UTF-8: byte 0x{exc.object[exc.start]:02x} at offset {exc.start} "
                f"of its value ({exc.reason}); send its text as UTF-8."
            ) from None
        except ValueError as exc:
            raise BadRequest(f"The multipart form could not be read: {str(exc)[:100]}.") from None
        return stream, form, files


class DeckcheckRequest(Request):
    """Flask's request, whose query string and form are valid UTF-8 at the door (raw bytes and percent-escapes
    alike, :func:`strict_pairs`).

    werkzeug decodes the query string's raw bytes strictly (a raw byte 0xFF raised UnicodeDecodeError in
    whatever read ``request.args`` first: a 500) but keeps an escape of bytes that are not UTF-8 as written.
    Here either is a 400 that says where, in the API's envelope under ``/api`` and a plain error page
    elsewhere (the page's form says it on the page).
    """

    form_data_parser_class = StrictFormParser

    @cached_property
    def args(self) -> MultiDict[str, str]:
        try:
            text = self.query_string.decode()
        except UnicodeDecodeError as exc:
            raise _not_utf8("query string", exc) from None
        return self.parameter_storage_class(strict_pairs(text, "query string"))


def path_is_utf8() -> None:
    """A ``before_request`` hook: a path whose bytes (raw or percent-escaped: the server hands them over
    decoded) are not UTF-8 is a 400 that says where, not a path werkzeug read with U+FFFD in place of each
    byte (``/api/v1/formats/%ff`` answered "Unknown format '\ufffd'")."""
    path = request.environ.get("PATH_INFO", "")
    if path.isascii():
        return
    raw = path.encode("latin-1", "replace")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8("request path", exc) from None


class DeckcheckFlask(Flask):
    """Flask, with :meth:`ensure_sync`'s answer kept per function, and routing redirects not on ``Host``.

    Flask asks ``ensure_sync`` about the view and every ``before_request``/``after_request``
    hook on every request, and each answer is an ``inspect.iscoroutinefunction`` look at the
    function's code flags (five a validate request). Whether a function
    is a coroutine function does not change: the answer is kept (for the app's own views,
    hooks and handlers: at most :data:`SYNC_MEMO_SIZE` of them).
    """

    request_class = DeckcheckRequest

    #: most functions whose ensure_sync answer is kept (an app has a few dozen views and hooks)
    SYNC_MEMO_SIZE = 512

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict = {}

    def raise_routing_exception(self, request):
        """werkzeug's own redirects (``/static//x`` to ``/static/x``) go to the path on ``PUBLIC_URL``, or the
        root-relative path: werkzeug writes the request's ``Host`` into the address and the page it sends."""
        redirect = request.routing_exception
        if isinstance(redirect, RequestRedirect):
            raise RequestRedirect(links.relocate(redirect.new_url, request.environ, self.config["PUBLIC_URL"]))
        super().raise_routing_exception(request)

    def ensure_sync(self, func):
        sync = self._sync.get(func)
        if sync is None:
            sync = super().ensure_sync(func)
            if len(self._sync) < self.SYNC_MEMO_SIZE:
                self._sync[func] = sync
        return sync


def create_app(config: dict | None = None) -> Flask:
    """Build the app: defaults (:data:`deckcheck.service.settings.DEFAULTS`), then ``DECKCHECK_*`` environment,
    then ``config``.

    The card database is loaded here, once per process (before gunicorn forks).
    """
    app = DeckcheckFlask(__name__)
    app.json = FastJSONProvider(app)
    app.before_request(path_is_utf8)  # first of the hooks: nothing reads a path that is not UTF-8
    app.config.from_mapping(settings.DEFAULTS)
    for name, instead in settings.ENV_REFUSED.items():
        if name in os.environ:
            raise ValueError(f"{name} is not a setting: set {instead} instead (the one knob for it)")
    app.config.from_prefixed_env("DECKCHECK")
    if config:
        app.config.update(config)
    if app.config.get("MAX_CONTENT_LENGTH") is None:
        app.config["MAX_CONTENT_LENGTH"] = BODY_ALLOWANCE * app.config["MAX_DECKLIST_BYTES"]
    max_age = app.config["MAX_DB_AGE"]
    if max_age is not None and (not isinstance(max_age, int) or isinstance(max_age, bool) or max_age < 0):
        raise ValueError(f"MAX_DB_AGE (DECKCHECK_MAX_DB_AGE) must be a whole number of days >= 0, not {max_age!r}")
    if "PUBLIC_BASE_URL" in app.config:
        raise ValueError("PUBLIC_BASE_URL is not a setting: set PUBLIC_URL (DECKCHECK_PUBLIC_URL) instead")
    app.config["PUBLIC_URL"] = links.check_public_url(app.config["PUBLIC_URL"])
    formats = default_formats()  # a broken format file fails here, at start-up
    if app.config["DEFAULT_FORMAT"] not in formats:
        raise FormatError(
            f"DEFAULT_FORMAT {app.config['DEFAULT_FORMAT']!r} is not a format (known: {', '.join(sorted(formats))})"
        )
    if app.config["CARD_DB_PATH"]:
        cards.set_db(cards.load(app.config["CARD_DB_PATH"]))
    else:
        cards.get_db()
    dbwatch.init_app(app)  # a new database file (deckcheck db sync) is swapped in without a restart

    from . import api, discord, ratelimit, web

    api.init_app(app)
    app.register_blueprint(web.bp)
    app.register_blueprint(discord.bp)
    ratelimit.init_app(app)  # rate limits and API keys on /api/v1, CORS on /api
    from . import observe

    observe.init_app(app)  # /metrics, request IDs (deckcheck/service/observe.py)
    app.wsgi_app = StandardHeaders(app.wsgi_app, web.page_headers(app.config))  # type: ignore[method-assign]
    return app


class StandardHeaders:
    """WSGI middleware: the headers every answer carries, whoever made it.

    * ``X-Deckcheck-Version`` on every response, so bug reports and caches can tell;
    * outside ``/api``, and on an HTML page under it (the API reference): the page security
      headers (``web.page_headers``: CSP and friends) unless the response set its own;
    * under ``/api``, for a request without ``Origin`` (not from a browser page, so
      flask-cors adds nothing): ``Vary: Origin``, so a shared cache keeps such an answer
      apart from one to a page; and ``X-Content-Type-Options: nosniff`` on every ``/api``
      answer, so a browser never takes JSON for something else;
    * ``Connection: close`` on an answer after which the connection cannot carry another request (a 408 or
      413, a chunked body broken or not read to its end: :func:`deckcheck.service.rawbody.closes`); a body
      sent in chunks or in a Content-Encoding is read through :class:`deckcheck.service.rawbody.GuardedInput`.

    As Flask ``after_request`` hooks each would go through werkzeug's Headers and the request
    proxy on every request; here they are plain ``(name, value)`` pairs.
    """

    def __init__(self, wsgi_app, page_headers: dict[str, str]) -> None:
        self.wsgi_app = wsgi_app
        self.page_headers = list(page_headers.items())
        self.version = ("X-Deckcheck-Version", __version__)
        self.nosniff = ("X-Content-Type-Options", "nosniff")

    def __call__(self, environ, start_response):
        api = is_api_path(environ.get("PATH_INFO", ""))
        vary = api and "HTTP_ORIGIN" not in environ
        version, page_headers, nosniff = self.version, self.page_headers, self.nosniff
        guard = guard_body(environ)

        def start(status, headers, exc_info=None):
            headers.append(version)
            if closes(environ, status, guard):
                headers[:] = [h for h in headers if h[0].lower() != "connection"]
                headers.append(("Connection", "close"))
            if api:
                headers.append(nosniff)
            if vary:
                _add_vary_origin(headers)
            if not api or _is_html(headers):
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in page_headers if h[0].lower() not in present)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def _is_html(headers: list) -> bool:
    """Whether an answer is a page for people (the API reference under ``/api``): it gets the
    page security headers like any other page."""
    for name, value in headers:  # the value first: a header name is lowered only for a text/html value
        if value.startswith("text/html") and name.lower() == "content-type":
            return True
    return False


def _add_vary_origin(headers: list) -> None:
    """``Vary: Origin``, merged into a Vary header the response already has."""
    for i, (name, value) in enumerate(headers):
        if name.lower() == "vary":
            if "origin" not in {v.strip().lower() for v in value.split(",")}:
                headers[i] = (name, f"{value}, Origin")
            return
    headers.append(("Vary", "Origin"))
