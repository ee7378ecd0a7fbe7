"""The paste-a-decklist web page at ``/``.

``GET /`` shows the form; with a share link's query (``d=`` zlib+base64url of
the exact text, or ``deck=`` plain text, plus ``format`` and ``as_of``) it
shows the result directly. ``POST /`` is the JavaScript-free form submit. The
page's own script (``static/deckcheck.js``) validates while typing through the
JSON API and asks ``POST /extras`` for what only the page needs (the PTCGL
export, the share link, the opening-hand odds), so every derived value has a
single implementation here.

Every response outside ``/api`` carries a strict Content-Security-Policy: no
inline script or style anywhere, templates are autoescaped, and user text is
only ever rendered as text.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import zlib
from dataclasses import dataclass, field

from flask import Blueprint, current_app, jsonify, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from . import forecast as _forecast
from .cards import get_db
from .engine import check
from .formats import default_formats
from .odds import p_basic_in_opening_hand, percent
from .parse import count_lines
from .problems import ERROR, INFO, WARNING
from .render import ptcgl_export

bp = Blueprint("web", __name__)


@bp.context_processor
def _card_data() -> dict:
    """The footer's "card data up to Pitch Black, 2026-07-17": the database in use, on every page."""
    return {"card_data": get_db().info()}

#: on every response outside /api, unless it sets its own (added by app.StandardHeaders)
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

#: cards in an opening hand
HAND = 7
#: longest share link offered (config MAX_SHARE_URL_LENGTH): deckcheck/gunicorn_conf.py accepts request
#: lines up to 8190 bytes ("GET " + link + " HTTP/1.1"), nginx and Apache 8 KiB by default
DEFAULT_MAX_SHARE_URL = 8000

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_TOKEN = re.compile(r"[A-Za-z0-9_-]+")
_SEVERITY_LABELS = ((ERROR, "Errors"), (WARNING, "Warnings"), (INFO, "Notes"))

BROKEN_LINK = ("This share link is broken or incomplete, so no decklist could be read from it. "
               "Ask for the link again, or paste the list into the form.")


class InputError(Exception):
    """Input the page cannot check; ``message`` is shown to the user as text."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- share links --------------------------------------------------------------

def encode_deck(text: str) -> str:
    """The exact text, zlib-compressed and base64url-encoded without padding."""
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).rstrip(b"=").decode("ascii")


def decode_deck(token: str, max_bytes: int) -> str:
    """Inverse of :func:`encode_deck`; anything else is an :class:`InputError`, never a crash.

    Decompression stops at ``max_bytes`` so a small link cannot expand into a
    huge text.
    """
    # zlib output is at most ~0.1% bigger than its input, and base64 adds a third
    if not token or len(token) > 2 * max_bytes + 64 or not _TOKEN.fullmatch(token):
        raise InputError(BROKEN_LINK)
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise InputError(BROKEN_LINK) from None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, max_bytes + 1)
    except zlib.error:
        raise InputError(BROKEN_LINK) from None
    if len(raw) > max_bytes or inflater.unconsumed_tail:
        raise InputError(too_big_message(max_bytes), 413)
    if not inflater.eof or inflater.unused_data:
        raise InputError(BROKEN_LINK)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(BROKEN_LINK) from None


def share_path(text: str, format_id: str, as_of: str) -> str:
    """The root-relative link that reproduces a result (the date is pinned)."""
    return url_for("web.index", d=encode_deck(text), format=format_id, as_of=as_of)


# -- input --------------------------------------------------------------------

def too_big_message(max_bytes: int) -> str:
    return (f"This decklist is larger than the {max_bytes // 1024} KiB this service checks. "
            "A deck list is usually under 2 KiB: paste only the list.")


def check_limits(text: str) -> None:
    """The API's limits: MAX_DECKLIST_BYTES of UTF-8 and MAX_DECKLIST_LINES lines."""
    max_bytes = current_app.config["MAX_DECKLIST_BYTES"]
    max_lines = current_app.config["MAX_DECKLIST_LINES"]
    if len(text.encode("utf-8")) > max_bytes:
        raise InputError(too_big_message(max_bytes), 413)
    lines = count_lines(text)
    if lines > max_lines:
        raise InputError(f"This decklist has {lines:,} lines; this service checks at most {max_lines:,}. "
                         "Paste only the list.", 413)


def read_format(value: str | None) -> str:
    formats = default_formats()
    value = (value or "").strip() or current_app.config.get("DEFAULT_FORMAT", "standard")
    if value not in formats:
        names = ", ".join(f.name for f in formats.values())
        raise InputError(f"“{value[:60]}” is not a format this service knows. Choose one of: {names}.")
    return value


def read_date(value: str | None) -> str | None:
    """An ISO date (YYYY-MM-DD) or None for today."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise InputError(f"“{value[:40]}” is not a date. Use the form YYYY-MM-DD, for example 2026-05-01, "
                         "or leave the date empty for today.") from None


def is_json_deck(text: str) -> bool:
    """The parser reads a text starting with ``{`` (after a BOM and blanks) as a JSON deck."""
    return text.lstrip("\ufeff").lstrip().startswith("{")


# -- the result, as the template shows it ---------------------------------------

@dataclass
class ProblemView:
    id: str
    code: str
    severity: str
    message: str
    hint: str | None
    lines: tuple[int, ...]


@dataclass
class Row:
    """One line of the list echoed back with its marks."""

    line: int
    text: str
    status: str | None = None  # legal | not-legal | banned | unknown | unchecked | unread
    status_text: str = ""
    icon: str = ""
    card: str | None = None  # resolved name and set, e.g. "Iono (PAL 185)"
    via: str | None = None  # the legal reprint, when it is another printing
    suggestions: tuple[str, ...] = ()
    problems: list[ProblemView] = field(default_factory=list)

    @property
    def worst(self) -> str | None:
        sev = {p.severity for p in self.problems}
        return next((s for s in (ERROR, WARNING, INFO) if s in sev), None)


_STATUS = {
    "legal": ("✓", "Legal"),
    "not-legal": ("✗", "Not legal"),
    "banned": ("✗", "Banned"),
    "unknown": ("?", "Unknown card"),
    "unchecked": ("–", "Legality not checked"),
    "unread": ("✗", "Not a card line"),
}


def _row_for_card(ln, unchecked: bool) -> Row:
    row = Row(ln.line, ln.raw)
    if ln.card is None:
        row.status = "unknown"
        row.suggestions = tuple(ln.suggestions)
    else:
        row.card = ln.card.label
        if unchecked:
            row.status = "unchecked"
        elif ln.ban is not None:
            row.status = "banned"
        elif ln.legal:
            row.status = "legal"
            if ln.legal_via is not None and ln.legal_via is not ln.card:
                row.via = ln.legal_via.label
        else:
            row.status = "not-legal"
    return row


def echo_rows(text: str, report, problems: list[ProblemView]) -> list[Row]:
    """Every non-blank line as pasted (JSON decks: every entry), with its marks."""
    unchecked = any(p.rule == "date-out-of-range" for p in report.problems)
    by_line = {ln.line: _row_for_card(ln, unchecked) for ln in report.lines}
    rows: dict[int, Row] = {}
    if is_json_deck(text):
        rows.update(by_line)
    else:
        for n, raw in enumerate(_LINE_BREAK.split(text.removeprefix("\ufeff")), start=1):
            if raw.strip():
                rows[n] = by_line.get(n) or Row(n, raw)
    for pv, problem in zip(problems, report.problems):
        for n in problem.lines:
            row = rows.setdefault(n, Row(n, ""))
            row.problems.append(pv)
            if problem.rule == "unparsed-line" and row.status is None:
                row.status = "unread"
    for row in rows.values():
        if row.status:
            row.icon, row.status_text = _STATUS[row.status]
    return [rows[n] for n in sorted(rows)]


def opening_hand(report) -> dict | None:
    deck_size = report.counts.total
    if deck_size <= 0:
        return None
    basics = min(report.basic_pokemon, deck_size)
    p = p_basic_in_opening_hand(basics, deck_size, HAND)
    return {
        "basics": basics, "deck_size": deck_size, "hand": min(HAND, deck_size), "probability": p,
        "percent": percent(p),
    }


def share_info(text: str, report) -> dict:
    path = share_path(text, report.format, report.as_of)
    limit = current_app.config.get("MAX_SHARE_URL_LENGTH", DEFAULT_MAX_SHARE_URL)
    if len(path) > limit:
        return {"path": None, "url": None,
                "note": f"This list is too long for a share link ({len(path):,} characters; "
                        f"servers refuse links over {limit:,}). Share the export below instead."}
    return {"path": path, "url": request.host_url.rstrip("/") + path, "note": None}


def result_view(text: str, report) -> dict:
    problems = [ProblemView(f"problem-{i}", p.code, p.severity, p.message, p.hint, p.lines)
                for i, p in enumerate(report.problems, start=1)]
    groups = [{"severity": sev, "label": label, "items": [p for p in problems if p.severity == sev]}
              for sev, label in _SEVERITY_LABELS]
    return {
        "report": report,
        "groups": [g for g in groups if g["items"]],
        "rows": echo_rows(text, report, problems),
        "counts": report.counts,
        "odds": opening_hand(report),
        "export": ptcgl_export(report),
        "share": share_info(text, report),
        "forecast": forecast_view(report),
    }


def forecast_view(report):
    """The next rotation's effect on the list (templates/web/_forecast.html); None outside Standard-like formats."""
    fmt = default_formats().get(report.format)
    if fmt is None or fmt.pool.kind != "regulation-marks":
        return None
    ahead = _forecast.forecast(report.lines, fmt, dt.date.fromisoformat(report.as_of), get_db())
    return ahead if ahead.rotation else None


def run_check(text: str, format_value: str | None, date_value: str | None):
    """Validate the input like the API does, then check the deck."""
    fmt = read_format(format_value)
    as_of = read_date(date_value)
    check_limits(text)
    if not text.strip():
        raise InputError("The decklist is empty: paste a list, one card per line, like “4 Nest Ball SVI 181”.")
    return check(text, fmt, as_of, max_db_age=current_app.config["MAX_DB_AGE"])


# -- views ----------------------------------------------------------------------

def _body_too_big(per_byte: int) -> bool:
    """Refuse a body that cannot hold an acceptable decklist before reading it.

    A URL-encoded form spends at most 3 bytes per byte of text (``%XX``), JSON 6 (``\\uXXXX``).
    """
    length = request.content_length
    return length is not None and length > per_byte * current_app.config["MAX_DECKLIST_BYTES"] + 4096


@bp.route("/", methods=["GET", "POST"])
def index():
    formats = list(default_formats().values())
    page = {"formats": formats, "decklist": "", "format": current_app.config.get("DEFAULT_FORMAT", "standard"),
            "as_of": "", "error": None, "result": None}
    status = 200
    text: str | None = None
    try:
        if request.method == "POST":
            if _body_too_big(3):
                raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), 413)
            try:
                form = request.form
            except HTTPException as exc:  # e.g. 413 from Werkzeug's form size limit
                raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), exc.code or 400) \
                    from None
            # browsers send a textarea with CRLF line ends; the textarea itself holds LF
            text = form.get("decklist", "").replace("\r\n", "\n")
            page.update(decklist=text, format=form.get("format", page["format"]), as_of=form.get("as_of", ""))
        elif "d" in request.args or "deck" in request.args:
            page.update(format=request.args.get("format", page["format"]), as_of=request.args.get("as_of", ""))
            if "d" in request.args:
                text = decode_deck(request.args["d"], current_app.config["MAX_DECKLIST_BYTES"])
            else:
                text = request.args["deck"]
            page["decklist"] = text
        else:
            page["format"] = request.args.get("format", page["format"])
            page["as_of"] = request.args.get("as_of", "")
        if text is not None:
            report = run_check(text, page["format"], page["as_of"])
            page["result"] = result_view(text, report)
            page["format"], page["as_of"] = report.format, page["as_of"].strip()
    except InputError as exc:
        page["error"], status = exc.message, exc.status
    return render_template("web/index.html", **page), status


@bp.route("/extras", methods=["POST"])
def extras():
    """What the page's script needs besides the API's report: export, share link, odds.

    JSON in (same as ``POST /api/v1/validate``): ``{"decklist", "format", "as_of"}``.
    """
    try:
        if _body_too_big(6):
            raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), 413)
        try:
            body = request.get_json(silent=True)
        except HTTPException as exc:  # e.g. 413 past MAX_CONTENT_LENGTH
            raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), exc.code or 400) from None
        if not isinstance(body, dict) or not isinstance(body.get("decklist"), str):
            raise InputError("Send a JSON object with a “decklist” string.")
        fmt, as_of = body.get("format"), body.get("as_of")
        if not isinstance(fmt, (str, type(None))) or not isinstance(as_of, (str, type(None))):
            raise InputError("“format” and “as_of” must be strings.")
        report = run_check(body["decklist"], fmt, as_of)
    except InputError as exc:
        return jsonify({"error": exc.message}), exc.status
    return jsonify({
        "export": ptcgl_export(report),
        "share": share_info(body["decklist"], report),
        "opening_hand": opening_hand(report),
        # the API names a legal reprint by id; the page shows it as "Name (SET 123)"
        "legal_via": {str(ln.line): ln.legal_via.label for ln in report.lines
                      if ln.legal_via is not None and ln.legal_via is not ln.card},
        "database": report.database,
    })
