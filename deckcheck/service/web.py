"""The paste-a-decklist web page at ``/``: its routes.

``GET /`` shows the form; with a share link's query (``d=`` zlib+base64url of
the exact text, or ``deck=`` plain text, plus ``format`` and ``as_of``) it
shows the result directly, and with ``fix=<line>:<new line>`` it applies a fix
and redirects to the fixed list's share link (:mod:`deckcheck.service.deckview`).
``POST /`` is the JavaScript-free form submit. The page's own script
(``static/deckcheck.js``) checks while typing through ``POST /extras``, which
answers the result rendered by the same template, so the result has a single
implementation (:mod:`deckcheck.service.webresult`). ``/rules`` lists every rule, ``/sheet`` prints a valid
deck's registration sheet.

What a request carries is read and checked by :mod:`deckcheck.service.webinput`; every response outside
``/api`` carries the headers of :mod:`deckcheck.service.webheaders` (a strict Content-Security-Policy: no
inline script or style anywhere). Templates are autoescaped, and user text is only ever rendered as text.
"""

from __future__ import annotations

import datetime as dt

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from ..cards import get_db
from ..decklist.sharelink import encode_deck
from ..formats import default_formats
from ..patterns import Pattern
from ..problems import CATALOGUE
from ..render import ptcgl_export
from ..render.sheet import FieldError, Player, SheetError, build_sheet, render_sheet, sheet_css
from .deckview import FixError, apply_edits, read_edits
from .jsonbody import BodyError, read_json
from .rawbody import read_body
from .webheaders import SECURITY_HEADERS, page_headers
from .webinput import (
    InputError,
    body_error,
    check_limits,
    decode_deck,
    read_date,
    read_format,
    run_check,
    share_path,
    too_big_message,
    unknown_fields,
)
from .webresult import (
    MAX_FIX_LINKS,
    MAX_SHOWN_LINES,
    MAX_SHOWN_NOTES,
    MAX_SHOWN_PROBLEMS,
    opening_hand,
    result_view,
    share_info,
)

#: what the page's modules define and others import from here (the app, the chat replies, the tests)
__all__ = [
    "MAX_FIX_LINKS",
    "MAX_SHOWN_LINES",
    "MAX_SHOWN_NOTES",
    "MAX_SHOWN_PROBLEMS",
    "SECURITY_HEADERS",
    "InputError",
    "bp",
    "decode_deck",
    "encode_deck",
    "page_headers",
    "share_path",
]

bp = Blueprint("web", __name__)


@bp.context_processor
def _card_data() -> dict:
    """The footer's "card data up to Pitch Black, 2026-07-17": the database in use, on every page."""
    return {"card_data": get_db().info()}


def _body_too_big(per_byte: int) -> bool:
    """Refuse a body that cannot hold an acceptable decklist before reading it.

    A URL-encoded form spends at most 3 bytes per byte of text (``%XX``), JSON 6 (``\\uXXXX``).
    """
    length = request.content_length
    return length is not None and length > per_byte * current_app.config["MAX_DECKLIST_BYTES"] + 4096


@bp.route("/", methods=["GET", "POST"])
def index():
    formats = list(default_formats().values())
    page = {
        "formats": formats,
        "decklist": "",
        "format": current_app.config.get("DEFAULT_FORMAT", "standard"),
        "as_of": "",
        "error": None,
        "result": None,
    }
    status = 200
    text: str | None = None
    try:
        if request.method == "POST":
            if _body_too_big(3):
                raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), 413)
            try:
                form = request.form
            except HTTPException as exc:  # past the size limit, not UTF-8, malformed chunks, a stall, a coding
                raise body_error(exc) from None
            # browsers send a textarea with CRLF line ends; the textarea itself holds LF
            text = form.get("decklist", "").replace("\r\n", "\n")
            page.update(decklist=text, format=form.get("format", page["format"]), as_of=form.get("as_of", ""))
        elif "d" in request.args or "deck" in request.args:
            page.update(format=request.args.get("format", page["format"]), as_of=request.args.get("as_of", ""))
            if "d" in request.args:
                text = decode_deck(request.args["d"], current_app.config["MAX_DECKLIST_BYTES"])
            else:
                text = request.args["deck"]
            if "fix" in request.args:
                fixed = _apply_fix(text, page["format"], page["as_of"])
                if isinstance(fixed, tuple):  # the fixed list's share link: the address to keep
                    return redirect(fixed[0], 303)
                text = fixed
            page["decklist"] = text
        else:
            page["format"] = request.args.get("format", page["format"])
            page["as_of"] = request.args.get("as_of", "")
        if text is not None:
            report = run_check(text, page["format"], page["as_of"])
            page["result"] = result_view(text, report)
            # the date as the date field holds it (YYYY-MM-DD), when one was given
            page["format"], page["as_of"] = report.format, report.as_of if page["as_of"].strip() else ""
    except InputError as exc:
        page["error"], status = exc.message, exc.status
    page["descriptions"] = format_descriptions(page["as_of"])
    return render_template("web/index.html", **page), status


def format_descriptions(date_value: str | None) -> dict[str, str]:
    """Each format's description on the form's date (today when it is empty or not a date)."""
    try:
        on = dt.date.fromisoformat(read_date(date_value) or "")
    except (InputError, ValueError):
        on = dt.date.today()
    return {fid: f.description_on(on) for fid, f in default_formats().items()}


def _apply_fix(text: str, format_value: str, date_value: str) -> str | tuple[str]:
    """A fix link: the fixed text, or ``(share path of the fixed list,)`` when it has one."""
    try:
        fixed = apply_edits(text, read_edits(request.args.getlist("fix")))
    except FixError as exc:
        raise InputError(str(exc)) from None
    check_limits(fixed)
    fmt, as_of = read_format(format_value), read_date(date_value)
    path = (
        url_for("web.index", d=encode_deck(fixed), format=fmt, as_of=as_of)
        if as_of
        else url_for("web.index", d=encode_deck(fixed), format=fmt)
    )
    if len(path) > current_app.config["MAX_SHARE_URL_LENGTH"]:
        return fixed
    return (path + "#verdict",)


@bp.route("/extras", methods=["POST"])
def extras():
    """The result for the page's script: ``html`` (the result template, as a form submit
    gets it), plus the export, share link, odds and legal reprints as values.

    JSON in (same as ``POST /api/v1/validate``): ``{"decklist", "format", "as_of"}``.
    """
    try:
        if _body_too_big(6):
            raise InputError(too_big_message(current_app.config["MAX_DECKLIST_BYTES"]), 413)
        try:
            body = read_json(read_body(request))
        except BodyError as exc:
            raise InputError(exc.message, exc.status) from None
        except HTTPException as exc:  # past the size limit, malformed chunks, a stall, a coding
            raise body_error(exc) from None
        if not isinstance(body, dict) or not isinstance(body.get("decklist"), str):
            raise InputError("Send a JSON object with a “decklist” string.")
        unknown = unknown_fields(body)
        if unknown:
            raise InputError(unknown, 422)
        fmt, as_of = body.get("format"), body.get("as_of")
        if not isinstance(fmt, (str, type(None))) or not isinstance(as_of, (str, type(None))):
            raise InputError("“format” and “as_of” must be strings.")
        report = run_check(body["decklist"], fmt, as_of)
    except InputError as exc:
        return jsonify({"error": exc.message}), exc.status
    return jsonify(
        {
            # the result as the page shows it, from the same template as a submitted form
            "html": render_template("web/_result.html", result=result_view(body["decklist"], report)),
            "export": ptcgl_export(report),
            "share": share_info(body["decklist"], report),
            "opening_hand": opening_hand(report),
            # the API names a legal reprint by id; the page shows it as "Name (SET 123)"
            # the format's description on the checked date (the page's help under the format)
            "format_description": default_formats()[report.format].description_on(dt.date.fromisoformat(report.as_of)),
            "legal_via": {
                str(ln.line): ln.legal_via.label
                for ln in report.lines
                if ln.legal_via is not None and ln.legal_via is not ln.card
            },
            "database": report.database,
        }
    )


# -- the rules page -------------------------------------------------------------------


#: A `code` span in a rule's description.
_CODE_SPAN = Pattern(r"`([^`]*)`")


def _segments(text: str) -> list[tuple[str, bool]]:
    """A description's text and its `code` spans, as (text, is_code) pairs for the template."""
    parts = _CODE_SPAN.split(text)
    return [(part, i % 2 == 1) for i, part in enumerate(parts) if part]


@bp.route("/rules")
def rules():
    """Every rule and problem kind of the registry (the codes a result links to), with its description,
    the module that defines it and the formats that run it; then each format's sources."""
    formats = default_formats()
    entries = []
    for spec in sorted(CATALOGUE.values(), key=lambda s: s.code):
        run_by = [{"name": f.name, "params": f.rules[spec.name]} for f in formats.values() if spec.name in f.rules]
        entries.append(
            {
                "spec": spec,
                "about": _segments(spec.about),
                "source": spec.module.replace(".", "/") + ".py" if spec.module else None,
                "run_by": run_by,
            }
        )
    return render_template("web/rules.html", entries=entries, formats=list(formats.values()))


# -- the deck registration sheet --------------------------------------------------------


@bp.route("/sheet")
def sheet():
    """A valid deck's registration sheet, ready to print: the list as a share link carries it (``d=`` or
    ``deck=``, ``format``, ``as_of``), and the player's ``name``, ``player_id``, ``dob`` and ``division``
    when given (blank on the sheet otherwise)."""
    args = request.args
    try:
        if "d" in args:
            text = decode_deck(args["d"], current_app.config["MAX_DECKLIST_BYTES"])
        elif "deck" in args:
            text = args["deck"]
        else:
            raise InputError("No decklist was given: open the sheet from the result of a valid deck.")
        report = run_check(text, args.get("format"), args.get("as_of"))
        player = Player(args.get("name", ""), args.get("player_id", ""), args.get("dob", ""), args.get("division", ""))
        made = build_sheet(report, player)
    except InputError as exc:
        return render_template("web/sheet_error.html", message=exc.message, back=None), exc.status
    except FieldError as exc:  # a field of the address the sheet cannot print: said, never dropped
        back = share_path(text, report.format, report.as_of) + "#verdict"
        return render_template("web/sheet_error.html", message=str(exc), back=back), 400
    except SheetError as exc:
        back = share_path(text, report.format, report.as_of) + "#verdict"
        return render_template("web/sheet_error.html", message=str(exc), back=back), 422
    screen = {
        "back": share_path(text, report.format, report.as_of) + "#verdict",
        "action": url_for("web.sheet"),
        "icon": url_for("static", filename="favicon.svg"),
        "hidden": [("d", encode_deck(text)), ("format", report.format), ("as_of", report.as_of)],
    }
    return render_sheet(made, stylesheet=url_for("web.sheet_style"), screen=screen)


@bp.route("/sheet.css")
def sheet_style():
    """The registration sheet's style sheet (the page's CSP allows no inline style)."""
    response = Response(sheet_css(), mimetype="text/css")
    response.cache_control.public = True
    response.cache_control.max_age = 3600
    return response
