"""The paste-a-decklist web page at ``/``.

``GET /`` shows the form; with a share link's query (``d=`` zlib+base64url of
the exact text, or ``deck=`` plain text, plus ``format`` and ``as_of``) it
shows the result directly, and with ``fix=<line>:<new line>`` it applies a fix
and redirects to the fixed list's share link (:mod:`deckcheck.service.deckview`).
``POST /`` is the JavaScript-free form submit. The page's own script
(``static/deckcheck.js``) checks while typing through ``POST /extras``, which
answers the result rendered by the same template, so the result has a single
implementation here.

Every response outside ``/api`` carries a strict Content-Security-Policy: no
inline script or style anywhere, templates are autoescaped, and user text is
only ever rendered as text.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from ..cards import get_db
from ..decklist import sharelink
from ..decklist.limits import decklist_limit
from ..decklist.sharelink import encode_deck
from ..decklist.validtext import not_unicode
from ..engine import check
from ..engine import forecast as _forecast
from ..engine.odds import p_basic_in_opening_hand, percent
from ..formats import default_formats
from ..problems import CATALOGUE, ERROR, INFO, WARNING
from ..render import ptcgl_export, section_counts
from ..render.sheet import Player, SheetError, build_sheet, render_sheet, sheet_css
from . import links
from .deckview import (
    IMAGE_SIZE,
    MAX_EDITS,
    FixError,
    GroupView,
    ProblemView,
    apply_edits,
    deck_groups,
    echo_rows,
    fix_view,
    fixes_for,
    is_json_deck,
    read_edits,
    remove_fix,
)
from .jsonbody import BodyError, read_json

bp = Blueprint("web", __name__)


@bp.context_processor
def _card_data() -> dict:
    """The footer's "card data up to Pitch Black, 2026-07-17": the database in use, on every page."""
    return {"card_data": get_db().info()}


#: on every response outside /api, unless it sets its own (added by app.StandardHeaders);
#: ``{images}`` is the card image host when card images are on (:func:`page_headers`)
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'{images}; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
#: where card images come from unless CARD_IMAGE_HOST says otherwise: TCGdex's asset server
DEFAULT_IMAGE_HOST = "https://assets.tcgdex.net"
_HOST = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?")


def image_host(config) -> str | None:
    """The card image origin (``CARD_IMAGE_HOST``) when ``CARD_IMAGES`` is on, else None.

    :raises ValueError: for a host that is not ``http(s)://name[:port]`` (it goes into the CSP).
    """
    on = config.get("CARD_IMAGES", True)
    if not on or (isinstance(on, str) and on.strip().lower() in ("0", "false", "no", "off", "")):
        return None
    host = str(config.get("CARD_IMAGE_HOST") or DEFAULT_IMAGE_HOST).rstrip("/")
    if not _HOST.fullmatch(host):
        raise ValueError(f"CARD_IMAGE_HOST {host!r} is not an origin such as {DEFAULT_IMAGE_HOST}")
    return host


def page_headers(config) -> dict[str, str]:
    """The security headers with the CSP's ``img-src`` allowing exactly the card image host."""
    host = image_host(config)
    headers = dict(SECURITY_HEADERS)
    headers["Content-Security-Policy"] = headers["Content-Security-Policy"].format(images=f" {host}" if host else "")
    return headers


#: cards in an opening hand
HAND = 7
#: most fixes offered as links on one page (each carries the list: at most ~8 KB apiece)
MAX_FIX_LINKS = 50
#: what one result (the page, or ``POST /extras``'s ``html``) renders at most, whatever the list: errors and
#: warnings, notes, lines of the deck (in each of its two views), line links in one problem. Each one
#: costs ~1 KB of HTML: without a cap 1,000 lines of "1 a" (4 KB) made a 1.95 MB answer. Past a cap the
#: result says how many more there are (all of them are in the API's report and the CLI's).
MAX_SHOWN_PROBLEMS = 50
MAX_SHOWN_NOTES = 20
MAX_SHOWN_LINES = 100
MAX_LINE_LINKS = 10

_SEVERITY_LABELS = ((ERROR, "Errors"), (WARNING, "Warnings"))
BROKEN_LINK = (
    "This share link is broken or incomplete, so no decklist could be read from it. "
    "Ask for the link again, or paste the list into the form."
)


class InputError(Exception):
    """Input the page cannot check; ``message`` is shown to the user as text."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- share links --------------------------------------------------------------


def decode_deck(token: str, max_bytes: int) -> str:
    """The decklist a share link carries (:func:`deckcheck.decklist.sharelink.decode_deck`); anything else is an
    :class:`InputError`, never a crash."""
    try:
        return sharelink.decode_deck(token, max_bytes)
    except sharelink.LinkError as exc:
        raise (InputError(too_big_message(max_bytes), 413) if exc.too_big else InputError(BROKEN_LINK)) from None


def share_path(text: str, format_id: str, as_of: str) -> str:
    """The root-relative link that reproduces a result (the date is pinned)."""
    return url_for("web.index", d=encode_deck(text), format=format_id, as_of=as_of)


# -- input --------------------------------------------------------------------


def too_big_message(max_bytes: int) -> str:
    return (
        f"This decklist is larger than the {max_bytes // 1024} KiB this service checks. "
        "A deck list is usually under 2 KiB: paste only the list."
    )


def check_limits(text: str) -> None:
    """The API's limits: MAX_DECKLIST_BYTES of UTF-8 and MAX_DECKLIST_LINES lines."""
    over = decklist_limit(text, current_app.config["MAX_DECKLIST_BYTES"], current_app.config["MAX_DECKLIST_LINES"])
    if over is not None and over.unit == "bytes":
        raise InputError(too_big_message(over.limit), 413)
    if over is not None:
        raise InputError(
            f"This decklist has {over.measured}; this service checks at most {over.limit:,}. Paste only the list.", 413
        )


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
        raise InputError(
            f"“{value[:40]}” is not a date. Use the form YYYY-MM-DD, for example 2026-05-01, "
            "or leave the date empty for today."
        ) from None


# -- the result, as the template shows it ---------------------------------------


def opening_hand(report) -> dict | None:
    deck_size = report.counts.total
    if deck_size <= 0:
        return None
    basics = min(report.basic_pokemon, deck_size)
    p = p_basic_in_opening_hand(basics, deck_size, HAND)
    return {
        "basics": basics,
        "deck_size": deck_size,
        "hand": min(HAND, deck_size),
        "probability": p,
        "percent": percent(p),
    }


def share_info(text: str, report) -> dict:
    path = share_path(text, report.format, report.as_of)
    limit = current_app.config["MAX_SHARE_URL_LENGTH"]
    if len(path) > limit:
        return {
            "path": None,
            "url": None,
            "note": f"This list is too long for a share link ({len(path):,} characters; "
            f"servers refuse links over {limit:,}). Share the export below instead.",
        }
    # on PUBLIC_URL, never the request's Host; without it the path (the page's script makes it whole)
    return {"path": path, "url": links.absolute(path) or path, "note": None}


def result_view(text: str, report) -> dict:
    host = image_host(current_app.config)
    share = share_info(text, report)
    problems = [
        ProblemView(f"problem-{i}", p.code, p.severity, p.message, p.hint, p.lines, rule=p.rule)
        for i, p in enumerate(report.problems, start=1)
    ]
    groups: list[dict[str, Any]] = [
        {"severity": sev, "label": label, "items": [p for p in problems if p.severity == sev]}
        for sev, label in _SEVERITY_LABELS
    ]
    rows = echo_rows(text, report, problems, host)
    editable = not is_json_deck(text)  # a JSON deck's "lines" are entries: no text edits apply
    links = 0  # each link carries the whole list: past MAX_FIX_LINKS, fixes need the script

    def linked(fix):
        nonlocal links
        links += 1
        return fix_view(fix, share["path"] if links <= MAX_FIX_LINKS else None)

    if editable:
        fmt = default_formats()[report.format]
        for i, fixes in fixes_for(report, fmt, get_db()).items():
            problems[i].fixes = [linked(f) for f in fixes]
        unknown = {r.line: r for r in rows if r.status == "unknown"}
        for pv, p in zip(problems, report.problems, strict=False):
            if p.rule == "unknown-card" and len(p.lines) == 1:
                pv.pick = unknown.get(p.lines[0])
    for g in groups:  # the heading counts problems (a group's block stands for its members)
        g["total"] = len(g["items"])
    gather_groups(report, problems, groups, rows, linked if editable else None)
    room = MAX_SHOWN_PROBLEMS  # a wall of problems helps nobody: the first ones, and how many more
    for g in groups:
        hidden = g["items"][room:]
        g["items"] = g["items"][:room]
        g["hidden"] = sum(len(i.members) + i.more if isinstance(i, GroupView) else 1 for i in hidden)
        room -= len(g["items"])
    notes = [p for p in problems if p.severity == INFO]
    return {
        "report": report,
        "groups": [g for g in groups if g["items"]],
        "more_problems": sum(int(g["hidden"]) for g in groups),
        "notes": notes[:MAX_SHOWN_NOTES],
        "more_notes": max(0, len(notes) - MAX_SHOWN_NOTES),
        "notes_total": len(notes),
        "rows": rows[:MAX_SHOWN_LINES],
        "more_lines": max(0, len(rows) - MAX_SHOWN_LINES),
        "line_links": MAX_LINE_LINKS,
        "line_cap": MAX_SHOWN_LINES,
        "deck": deck_groups(rows, MAX_SHOWN_LINES),
        "flagged": sum(r.flagged for r in rows),
        "images": host is not None,
        "image_size": IMAGE_SIZE,
        "counts": report.counts,
        "sections": section_counts(report),
        "odds": opening_hand(report),
        "export": ptcgl_export(report),
        "share": share,
        "sheet": sheet_path(text, report),
        "forecast": forecast_view(report),
    }


def gather_groups(report, problems: list[ProblemView], groups: list[dict], rows, linked) -> None:
    """Each of ``report.groups`` as one block in its severity's list, where its first problem was, holding
    its problems (each as its card and mark: the block says why) and the fix that removes them all."""
    by_line = {r.line: r for r in rows}
    for n, group in enumerate(report.groups, start=1):
        members = [problems[i] for i in group.problems if 0 <= i < len(problems)]
        if not members:
            continue
        for pv in members:
            row = by_line.get(pv.lines[0]) if pv.lines else None
            if row is not None and row.card:
                mark = row.mark or "none"
                pv.short = f"{row.count} {row.card}, mark {mark}"
        fix = remove_fix(group)
        if linked is None:
            view = None
        elif len(fix.edits) <= MAX_EDITS:
            view = linked(fix)
        else:  # more edits than a link carries: the page's script applies them
            view = fix_view(fix, None)
        block = GroupView(
            f"group-{n}",
            members[0].severity,
            group.message,
            view,
            members[:MAX_SHOWN_PROBLEMS],
            group.rule,
            members[0].code,
            more=max(0, len(members) - MAX_SHOWN_PROBLEMS),
        )
        for g in groups:
            items = g["items"]
            if members[0] in items:
                at = items.index(members[0])
                g["items"] = (
                    [p for p in items[:at] if p not in members] + [block] + [p for p in items[at:] if p not in members]
                )


def forecast_view(report):
    """The next rotation's effect on the list (templates/web/_forecast.html); None outside Standard-like formats."""
    fmt = default_formats().get(report.format)
    if fmt is None or fmt.pool.kind != "regulation-marks":
        return None
    ahead = _forecast.forecast(report.lines, fmt, dt.date.fromisoformat(report.as_of), get_db())
    return ahead if ahead.rotation else None


def run_check(text: str, format_value: str | None, date_value: str | None):
    """Validate the input like the API does, then check the deck."""
    fault = not_unicode(text)
    if fault is not None:
        raise InputError(f"This decklist is not valid Unicode text. {fault.message}", 422)
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
            except HTTPException as exc:  # 413 from Werkzeug's form size limit; 400 for a form that is not UTF-8
                too_big = exc.code == 413 or not exc.description
                message = too_big_message(current_app.config["MAX_DECKLIST_BYTES"]) if too_big else exc.description
                raise InputError(str(message), exc.code or 400) from None
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
            body = read_json(request.get_data(cache=False))
        except BodyError as exc:
            raise InputError(exc.message, exc.status) from None
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

_CODE_SPAN = re.compile(r"`([^`]*)`")


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


def sheet_path(text: str, report) -> str | None:
    """The link to a valid deck's registration sheet (:mod:`deckcheck.render.sheet`), or None (not valid, a JSON
    deck's entries, or too long a link)."""
    if not report.valid:
        return None
    path = url_for("web.sheet", d=encode_deck(text), format=report.format, as_of=report.as_of)
    return path if len(path) <= current_app.config["MAX_SHARE_URL_LENGTH"] else None


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
