"""Check a deck against a format: parse, resolve, run every rule, collect a report."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from itertools import compress

from .. import cards as _cards
from ..cards import CardDB
from ..dates import parse_date
from ..deck import Context as Context
from ..deck import Deck as Deck
from ..deck import KnownLine as KnownLine
from ..deck import LineFacts as LineFacts
from ..deck import ResolvedLine as ResolvedLine
from ..decklist.parse import ParseResult, card_rows, plain_lines, read
from ..decklist.validtext import NotUnicode, not_unicode
from ..formats import Format, FormatError, default_formats
from ..memo import Memo, memoise
from ..problems import Problem, Report, sort_problems
from ..registry import REGISTRY

# importing deckcheck.rules registers every rule (the formats name them; the engine runs them)
from ..rules.notes import DATE_OUT_OF_RANGE, SUGGESTIONS_SKIPPED, not_a_decklist, stale_database
from ..rules.reading import NOT_A_DECKLIST
from ..wording import plural
from .groups import rotation_groups
from .lines import ROW_KEY as ROW_KEY
from .lines import SUGGEST_MAX_NAMES as SUGGEST_MAX_NAMES
from .lines import _in_list_language, _read_text
from .lines import resolve_lines as resolve_lines
from .lines import resolve_rows as resolve_rows
from .memos import LINE_MEMO_SIZE as LINE_MEMO_SIZE  # most card lines a line memo keeps (LineFacts)

#: the rule whose problems :func:`~deckcheck.engine.groups.rotation_groups` gathers
NOT_IN_FORMAT = "not-in-format"


def _not_unicode(text: str) -> NotUnicode | None:
    """:func:`~deckcheck.decklist.validtext.not_unicode`, asked only of a text that may hold a lone surrogate:
    one with a ``\\u`` escape, or one that UTF-8 cannot encode (an encode in C costs a tenth of the search)."""
    if "\\u" not in text and (text.isascii() or _encodes(text)):
        return None
    return not_unicode(text)


def _encodes(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


_today = dt.date.today  # a seam for tests


def _as_date(as_of: object) -> dt.date:
    if as_of is None:
        return _today()
    if type(as_of) is str:  # the usual: an ISO date from a request or the command line
        known = _iso_date.memo.get(as_of)
        if known is not None:
            return known
    if isinstance(as_of, dt.datetime):
        return as_of.date()
    if isinstance(as_of, dt.date):
        return as_of
    text = str(as_of)
    return _iso_date(text) if len(text) <= 32 else parse_date(text)


#: dates as given to check(), read once each: a service sees a handful of distinct ones
_iso_date = memoise(256)(parse_date)


def get_format(format: str | Format) -> Format:
    """A shipped format by id (or the Format itself). Raises :class:`FormatError` for an unknown id."""
    if isinstance(format, Format):
        return format
    formats = default_formats()
    try:
        return formats[format]
    except KeyError:
        raise FormatError(f"unknown format {format!r} (known: {', '.join(sorted(formats))})") from None


def _date_problem(fmt: Format, on: dt.date) -> Problem:
    return Problem(
        DATE_OUT_OF_RANGE.name,
        f"{fmt.name} legality is known from {fmt.pool.earliest.isoformat()} on; "
        f"{on.isoformat()} is earlier, so card legality was not checked.",
    )


#: called as ``listener(report, seconds)`` after every check (the service's metrics count problems by
#: rule and time checks with one); a listener must be quick and must not raise
REPORT_LISTENERS: list[Callable[[Report, float], None]] = []

#: a check's date as its report writes it (the same few dates)
_ISO: Memo[dt.date, str] = Memo(256)


def _suggestions_skipped(d: Deck) -> Problem | None:
    """The note for unknown names past :data:`SUGGEST_MAX_NAMES` (:func:`_suggested` gave them none)."""
    if len(d.unknown) <= SUGGEST_MAX_NAMES:
        return None
    names = dict.fromkeys(ln.name for ln in d.unknown)
    if len(names) <= SUGGEST_MAX_NAMES:
        return None
    late = list(names)[SUGGEST_MAX_NAMES:]
    skipped = set(late)
    n = len(late)
    return Problem(
        SUGGESTIONS_SKIPPED.name,
        f"Suggestions were looked up for the first {SUGGEST_MAX_NAMES} unknown card names only; "
        f"{plural(n, 'more unknown name')} got none.",
        lines=tuple(ln.line for ln in d.unknown if ln.name in skipped),
    )


def check(
    deck: str | ParseResult,
    format: str | Format = "standard",
    as_of: object = None,
    db: CardDB | None = None,
    max_db_age: int | None = None,
    forecast: bool = False,
) -> Report:
    """Check a decklist (text or a parse result) in a format on a date (default today).

    ``max_db_age`` (days, off by default) adds a ``stale-database`` warning when the card
    database's newest set was released more than that many days before the date.
    ``forecast=True`` adds the rotation forecast (:mod:`deckcheck.engine.forecast`):
    ``rotation-forecast`` warnings and info, and ``extra["forecast"]``.

    A bad deck is data: every problem is in the report. Only an unknown format, a
    malformed date or a negative ``max_db_age`` raises (``FormatError`` / ``ValueError``).
    """
    started = time.perf_counter()
    fmt = get_format(format)
    on = _as_date(as_of)
    if max_db_age is not None and (not isinstance(max_db_age, int) or isinstance(max_db_age, bool) or max_db_age < 0):
        raise ValueError(f"max_db_age must be a whole number of days >= 0, not {max_db_age!r}")
    db = db or _cards.get_db()
    ctx = Context(fmt, on, db)
    # before the format's data the lines are resolved on the date, without the format
    legal_in: Format | None = fmt
    if on < fmt.pool.earliest:
        ctx.date_problem = _date_problem(fmt, on)
        legal_in = None
    fault = _not_unicode(deck) if isinstance(deck, str) else None
    if fault is not None:  # a lone surrogate (a JSON deck's "\ud800"): no report holding it could be written as UTF-8
        empty = Deck([], [], None, None, db=db)
        iso = _ISO.get(on) or _ISO.put(on, on.isoformat())
        return Report(fmt.id, fmt.name, iso, [fault.problem()], [], empty.counts(), db.info(), 0, {})
    text_lines = plain_lines(deck) if isinstance(deck, str) else None
    if text_lines is not None:  # the usual: a text read line by line, each line read and resolved in one pass
        parsed, lines = _read_text(text_lines, db, legal_in, on)
    else:  # a parse result, a JSON deck or a list in code fences: read into rows, not CardLines
        parsed, rows = (deck, card_rows(deck)) if isinstance(deck, ParseResult) else read(deck)
        lines = resolve_rows(rows, db, legal_in, on)
    d = Deck(lines, parsed.problems, parsed.declared_total, parsed.declared_total_line, db=db)
    if d.localized and _in_list_language(lines, db, legal_in, on):  # names in another language: read in the list's
        d = Deck(lines, parsed.problems, parsed.declared_total, parsed.declared_total_line, db=db)
    problems: list[Problem] = [ctx.date_problem] if ctx.date_problem else []
    steps, wants = fmt.rule_plan()
    for name, fn, args in compress(steps, wants(d)):  # the rules the deck has anything for (Rule.needs)
        # parameters by position (a ** costs a dict); a loop costs less than list.extend on a generator
        for f in fn(d, ctx, *args) if args else fn(d, ctx):
            # the engine stamps the rule's name, code and default severity
            problems.append(Problem.from_finding(REGISTRY[name], f))
    if len(d.unknown) > SUGGEST_MAX_NAMES:
        skipped = _suggestions_skipped(d)
        if skipped:
            problems.append(skipped)
    if parsed.problems:
        # the parser's problems of the rules the format runs (a format can turn one off), and
        # any kind of problem no rule names, as it is
        rules = fmt.rules
        read_problems = [p for p in parsed.problems if p.rule in rules or p.rule not in REGISTRY]
        if NOT_A_DECKLIST.name in rules:  # most lines not card lines: one problem, not one per line
            read_problems = not_a_decklist(read_problems, lines)
        problems.extend(read_problems)
    if max_db_age is not None:
        stale = stale_database(db, on, max_db_age)
        if stale is not None:
            problems.append(stale)
    extra = {}
    if forecast:
        from .forecast import forecast as _forecast

        ahead = _forecast(lines if ctx.date_problem is None else [], fmt, on, db)
        problems.extend(ahead.problems)
        extra["forecast"] = ahead.to_dict()
    # by position (Report's field order): keywords cost a check more to bind
    report = Report(
        fmt.id,
        fmt.name,
        _ISO.get(on) or _ISO.put(on, on.isoformat()),
        sort_problems(problems) if problems else problems,
        lines,
        d.counts(),
        db.info(),
        d.basic_pokemon,
        extra,
    )
    if ctx.date_problem is None and any(p.rule == NOT_IN_FORMAT for p in problems):
        # cards that left the format on one day: one group, one fix (a legal deck never gets here)
        report.groups = rotation_groups(report.problems, lines, fmt, db, on)
    if REPORT_LISTENERS:
        seconds = time.perf_counter() - started
        for listener in REPORT_LISTENERS:
            listener(report, seconds)
    return report
