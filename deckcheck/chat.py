"""Chat-ready answers: a report as one message that fits in a chat (Discord: 2,000 characters).

Pure functions of a :class:`~deckcheck.problems.Report` (no request, no app)::

    ✅ Valid for Standard on 2026-05-01 (60 cards).

    ❌ Not valid for Standard on 2026-05-01: 3 errors, 1 warning.
    • line 12: You have 5 cards named Nest Ball; a deck may have at most 4.
    • line 30 (warning): ...
    … and 2 more problems: https://deckcheck.example/?d=...

The first line is the verdict, then one line per problem (errors, then warnings,
then notes, as the report orders them). When they do not all fit, the reply is
cut after the last whole problem line that leaves room for "… and N more
problems: <link>", the link being the web page's share link that reproduces the
full result. Lengths are counted in UTF-16 code units (what Discord's client
counts), which is never less than the number of characters, so a reply is
within the limit by either count.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from .decklist.sharelink import encode_deck
from .problems import ERROR, INFO, WARNING, Problem, Report, line_list
from .wording import noun, plural

#: Discord's limit for a message's content
LIMIT = 2000
#: Discord's limits for an embed's description and title
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_TITLE_LIMIT = 256
#: a single problem line is cut to this length, so one long message cannot hide the others
MAX_LINE = 400
#: share links longer than this are not put in a reply; the web page's address is, instead
MAX_LINK = 1000
#: at most this many line numbers before a problem ("lines 3, 7, 9, …")
MAX_LINE_NUMBERS = 5

ELLIPSIS = "…"
_SEVERITY_LABEL = {ERROR: "", WARNING: "warning", INFO: "note"}


def length(text: str) -> int:
    """Length in UTF-16 code units: characters outside the BMP (most emoji) count twice."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-16 code units, ending in "…" when cut."""
    if length(text) <= limit:
        return text
    if limit <= 0:
        return ""
    width, end = 0, 0
    for i, ch in enumerate(text):
        w = 2 if ord(ch) > 0xFFFF else 1
        if width + w > limit - 1:
            break
        width, end = width + w, i + 1
    return text[:end].rstrip() + ELLIPSIS


def verdict(report: Report) -> str:
    """The first line: ``✅ Valid for Standard on 2026-05-01 (60 cards).`` or ``❌ Not valid ...: 3 errors.``"""
    errors, warnings = len(report.errors), len(report.warnings)
    where = " ".join(f"for {report.format_name} on {report.as_of}".split())  # one line, whatever the name
    if report.valid:
        text = f"✅ Valid {where} ({plural(report.counts.total, 'card')})"
        if warnings:
            text += f", with {plural(warnings, 'warning')}"
    else:
        text = f"❌ Not valid {where}: {plural(errors, 'error')}"
        if warnings:
            text += f", {plural(warnings, 'warning')}"
    return truncate(text + ".", MAX_LINE)


def _where(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    shown = ", ".join(str(n) for n in lines[:MAX_LINE_NUMBERS])
    if len(lines) > MAX_LINE_NUMBERS:
        shown += ", " + ELLIPSIS
    return f"{noun(len(lines), 'line')} {shown}"


def problem_line(problem: Problem, escape: Callable[[str], str] | None = None) -> str:
    """``• line 12: <message>``; ``(warning)``/``(note)`` after the lines for the milder severities.

    The message's own "(line 12)" is dropped, since the line is named up front; the
    hint is left to the full result. ``escape`` (e.g. Discord markdown) applies to
    the message only.
    """
    message = problem.message.replace(line_list(problem.lines), "", 1) if problem.lines else problem.message
    message = " ".join(message.split())  # one line, however the message was written
    if escape:
        message = escape(message)
    where, label = _where(problem.lines), _SEVERITY_LABEL.get(problem.severity, problem.severity)
    if where and label:
        prefix = f"{where} ({label}): "
    elif where or label:
        prefix = f"{where or label}: "
    else:
        prefix = ""
    return truncate(f"• {prefix}{message}", MAX_LINE)


def _more(n: int, link: str | None) -> str:
    text = f"{ELLIPSIS} and {plural(n, 'more problem')}"
    return f"{text}: {link}" if link else text + "."


def fit(head: list[str], items: list[str], link: str | None, limit: int) -> str:
    """``head`` and as many whole ``items`` as fit in ``limit``, then "… and N more problems: link".

    Lines are joined by newlines. Without room for the link, the footer goes without it.
    """
    sizes = [length(x) + 1 for x in items]  # each with the newline before it
    base = sum(length(x) + 1 for x in head) - 1 if head else -1  # -1: no newline before the first line
    if base + sum(sizes) <= limit:
        return "\n".join(head + items)
    for with_link in (True, False) if link else (False,):
        used, best = base, None
        for k in range(len(items) + 1):
            if k:
                used += sizes[k - 1]
            if used + 1 + length(_more(len(items) - k, link if with_link else None)) <= limit:
                best = k
            elif used > limit:
                break
        if best is not None:
            footer = _more(len(items) - best, link if with_link else None)
            return "\n".join(head + items[:best] + [footer])
    # not even the head and a bare footer fit (a tiny limit): cut what there is
    return truncate("\n".join(head + [_more(len(items), None)]), limit)


def body(
    report: Report,
    link: str | None = None,
    limit: int = EMBED_DESCRIPTION_LIMIT,
    escape: Callable[[str], str] | None = None,
) -> str:
    """The problem lines alone (an embed's description under the verdict as title), cut to ``limit``."""
    return fit([], [problem_line(p, escape) for p in report.problems], link, limit)


def reply(
    report: Report, link: str | None = None, limit: int = LIMIT, escape: Callable[[str], str] | None = None
) -> str:
    """The verdict and the problems as one message of at most ``limit`` (2,000) characters.

    :param link: the full result (see :func:`link_for`), shown only when the reply is cut.
    :param escape: applied to each problem's message (user text may appear in it).
    """
    return fit([verdict(report)], [problem_line(p, escape) for p in report.problems], link, limit)


def share_url(base_url: str, text: str, report: Report) -> str:
    """The web page's share link that reproduces this result (the web page's own encoding, date pinned)."""
    query = urlencode({"d": encode_deck(text), "format": report.format, "as_of": report.as_of})
    return f"{base_url.rstrip('/')}/?{query}"


def link_for(base_url: str, text: str, report: Report, max_length: int = MAX_LINK) -> str:
    """The share link, or the web page's address when the link would crowd out the problems."""
    url = share_url(base_url, text, report)
    return url if length(url) <= max_length else base_url.rstrip("/") + "/"
