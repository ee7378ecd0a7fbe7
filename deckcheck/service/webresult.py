"""The result of a check as the page's templates show it (``templates/web/_result.html``): problems by
severity with their fixes, the deck's lines, counts, odds, the export, the share and sheet links, the
rotation forecast; each list capped, saying how many more there are."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import current_app, url_for

from ..cards import get_db
from ..decklist.sharelink import encode_deck
from ..engine import forecast as _forecast
from ..engine.odds import p_basic_in_opening_hand, percent
from ..formats import default_formats
from ..problems import ERROR, INFO, WARNING
from ..render import ptcgl_export, section_counts
from . import links
from .deckview import (
    IMAGE_SIZE,
    MAX_EDITS,
    GroupView,
    ProblemView,
    deck_groups,
    echo_rows,
    fix_view,
    fixes_for,
    is_json_deck,
    remove_fix,
)
from .webheaders import image_host
from .webinput import share_path

#: cards in an opening hand
HAND = 7
#: most fixes offered as links on one page (each carries the list: at most ~8 KB apiece)
MAX_FIX_LINKS = 50
#: what one result (the page, or ``POST /extras``'s ``html``) renders at most, whatever the list: errors and
#: warnings, notes, lines of the deck (in each of its two views), line links in one problem. Each one
#: costs ~1 KB of HTML: without a cap 1,000 lines of "1 a" (4 KB) make a 1.95 MB answer. Past a cap the
#: result says how many more there are (all of them are in the API's report and the CLI's).
MAX_SHOWN_PROBLEMS = 50
MAX_SHOWN_NOTES = 20
MAX_SHOWN_LINES = 100
MAX_LINE_LINKS = 10

_SEVERITY_LABELS = ((ERROR, "Errors"), (WARNING, "Warnings"))


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


def sheet_path(text: str, report) -> str | None:
    """The link to a valid deck's registration sheet (:mod:`deckcheck.render.sheet`), or None (not valid, a JSON
    deck's entries, or too long a link)."""
    if not report.valid:
        return None
    path = url_for("web.sheet", d=encode_deck(text), format=report.format, as_of=report.as_of)
    return path if len(path) <= current_app.config["MAX_SHARE_URL_LENGTH"] else None
