"""Check a deck against a format: parse, resolve, run every rule, collect a report."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field

import orjson

from . import cards as _cards
from .cards import LINE_MEMO_SIZE as LINE_MEMO_SIZE  # most card lines a line memo keeps (LineFacts)
from .cards import Card, CardDB, Resolution
from .formats import Ban, Format, FormatError, default_formats
from .memo import memoise
from .names import name_key
from .parse import CardRow, ParseResult, card_rows, read
from .problems import Counts, Problem, Report, sort_problems
from .rules import stale_database

#: most distinct unknown card names one deck gets "did you mean" suggestions for (each is a fuzzy
#: search of every card name); the rest get none and the report says how many (suggestions-skipped)
SUGGEST_MAX_NAMES = 25


class LineFacts:
    """What a card line comes to in one format, on one date, with one database: the printing
    it names, how it was matched, its legality, and (made on first use) its JSON after the line
    number.

    Real lists share most of their lines, so :func:`resolve_rows` keeps these per line text
    (:meth:`Format.line_memo`, or :meth:`CardDB.line_memo` without a format) and every deck with
    the line gets the same facts. They hold the count, name, set code and number they were made
    for: a row with the same text but other values (a JSON deck's entry can be written as
    anything) gets new facts.
    """

    __slots__ = (
        "count",
        "name",
        "set_code",
        "number",
        "card",
        "method",
        "suggestions",
        "name_differs",
        "legal_via",
        "ban",
        "json_tail",
    )

    def __init__(
        self,
        count: int,
        name: str,
        set_code: str | None,
        number: str | None,
        res: Resolution,
        legal_via: Card | None,
        ban: Ban | None,
    ) -> None:
        self.count, self.name, self.set_code, self.number = count, name, set_code, number
        self.card, self.method, self.name_differs = res.card, res.method, res.name_differs
        # an unknown card's suggestions are looked up on first use, for a bounded number of names per deck
        self.suggestions: tuple[str, ...] | None = res.suggestions if res.card or res.suggestions else None
        self.legal_via, self.ban = legal_via, ban
        self.json_tail: bytes | None = None  # ResolvedLine.json_fragment() after '{"line":N,'


@dataclass(slots=True)
class ResolvedLine:
    """A card line with the printing it resolved to and its legality in the format.

    Made by :func:`resolve_rows` and not changed afterwards: ``facts`` (shared with every
    deck that has the same line) holds its encoded JSON.
    """

    line: int
    raw: str
    count: int
    name: str
    set_code: str | None
    number: str | None
    card: Card | None
    method: str
    suggestions: tuple[str, ...] = ()
    legal_via: Card | None = None
    ban: Ban | None = None
    section: str | None = None
    name_differs: bool = False
    facts: LineFacts | None = field(default=None, repr=False, compare=False)

    @property
    def legal(self) -> bool | None:
        if self.card is None:
            return None
        return self.legal_via is not None and self.ban is None

    def to_dict(self, card_view=None) -> dict:
        """The line as JSON-ready values; ``card_view(card)`` writes the printing (default ``Card.to_dict``)."""
        card, via, ban = self.card, self.legal_via, self.ban
        known = card is not None
        return {
            "line": self.line,
            "count": self.count,
            "text": self.raw,
            "name": self.name,
            "set": self.set_code,
            "number": self.number,
            "resolution": self.method,
            "suggestions": [*self.suggestions],
            "legal": (via is not None and ban is None) if known else None,  # self.legal, without the call
            "legal_via": via.id if via is not None and via is not card else None,
            "banned": ban is not None,
            "card": (card.to_dict() if card_view is None else card_view(card)) if known else None,
        }

    def json_fragment(self) -> orjson.Fragment:
        """``to_dict(card_view=Card.json_fragment)`` as JSON (what the API writes for the line).

        Everything after the line number is the same for every deck with this line in this
        format on this date, so that part is encoded once, on the shared :class:`LineFacts`.
        """
        facts = self.facts
        tail = facts.json_tail if facts is not None else None
        if tail is None:
            view = self.to_dict(Card.json_fragment)
            del view["line"]  # the first key: the rest follows it
            tail = orjson.dumps(view)[1:]
            if facts is not None:
                facts.json_tail = tail
        return orjson.Fragment(b'{"line":%d,%b' % (self.line, tail))


class Deck:
    """The resolved lines of one decklist, indexed in one pass for the rules.

    ``by_name`` groups every known line except basic Energy by normalised name (the copy
    rule's groups, and the names present for evolution and exclusive groups);
    ``pokemon``, ``radiant``, ``ace_spec`` and ``prism_star`` list the lines of those kinds.
    """

    __slots__ = (
        "lines",
        "known",
        "unknown",
        "parse_problems",
        "declared_total",
        "declared_total_line",
        "total",
        "basic_pokemon",
        "tally",
        "by_name",
        "pokemon",
        "radiant",
        "ace_spec",
        "prism_star",
    )

    def __init__(
        self,
        lines: list[ResolvedLine],
        parse_problems: list[Problem] | None = None,
        declared_total: int | None = None,
        declared_total_line: int | None = None,
    ) -> None:
        self.lines = lines
        self.parse_problems = parse_problems or []
        self.declared_total = declared_total
        self.declared_total_line = declared_total_line
        known, unknown, pokemon, radiant, ace_spec, prism_star = [], [], [], [], [], []
        by_name: dict[str, list[ResolvedLine]] = {}
        n_pokemon = n_trainer = n_energy = n_unknown = basic = 0  # local counters: no dict on this hot path
        for ln in lines:
            card, count = ln.card, ln.count
            if card is None:
                unknown.append(ln)
                n_unknown += count
                continue
            known.append(ln)
            sub, kind = card.subtypes, card.supertype
            if kind == "Pokémon":
                n_pokemon += count
                pokemon.append(ln)
                if "Basic" in sub:
                    basic += count
                if "Radiant" in sub:
                    radiant.append(ln)
            elif kind == "Trainer":
                n_trainer += count
            elif kind == "Energy":
                n_energy += count
                if "Basic" in sub:
                    continue  # basic Energy: no limit by name, no other kind
            else:
                n_unknown += count
            if "ACE SPEC" in sub:
                ace_spec.append(ln)
            if "Prism Star" in sub:
                prism_star.append(ln)
            key = card.key
            group = by_name.get(key)
            if group is None:
                by_name[key] = [ln]
            else:
                group.append(ln)
        self.known, self.unknown, self.by_name = known, unknown, by_name
        self.pokemon, self.radiant, self.ace_spec, self.prism_star = pokemon, radiant, ace_spec, prism_star
        self.tally = (n_pokemon, n_trainer, n_energy, n_unknown)
        self.total, self.basic_pokemon = n_pokemon + n_trainer + n_energy + n_unknown, basic

    def counts(self) -> Counts:
        return Counts(*self.tally)


@dataclass
class Context:
    """What a rule may know besides the deck."""

    format: Format
    as_of: dt.date
    db: CardDB
    date_problem: Problem | None = None

    @staticmethod
    def name_key(name: str) -> str:
        return name_key(name)

    def evolves_from_of(self, name: str) -> str | None:
        """What the newest printing named ``name`` evolves from."""
        found = self.db.by_name(name)
        return found[0].evolves_from if found else None


def resolve_lines(
    parsed: ParseResult, db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> list[ResolvedLine]:
    """Each parsed card line with the printing it names (or None), and its legality in ``fmt`` on ``on``
    when they are given (in the same pass: the lines are made once, with every field)."""
    return resolve_rows(card_rows(parsed), db, fmt, on)


def resolve_rows(
    rows: list[CardRow], db: CardDB, fmt: Format | None = None, on: dt.date | None = None
) -> list[ResolvedLine]:
    """:func:`resolve_lines` for the card rows of :func:`~deckcheck.parse.read`."""
    if fmt is None:
        table, memo = None, db.line_memo()
    else:
        table, memo = fmt.legality_table(db, on), fmt.line_memo(db, on)
    known = db.resolution_memo()  # looked in before calling resolve_parts: a call per line costs more
    new, out = object.__new__, []
    asked: set[str] = set()  # the unknown names given suggestions, the first SUGGEST_MAX_NAMES
    for n, section, fields in rows:
        raw, count, name = fields["raw"], fields["count"], fields["name"]
        set_code, number = fields["set_code"], fields["number"]
        facts = memo.get(raw)
        if (
            facts is None
            or facts.name != name
            or facts.number != number
            or facts.set_code != set_code
            or facts.count != count
        ):
            res = known.get((name, set_code, number)) or db.resolve_parts(name, set_code, number, suggest=False)
            card = res.card
            via = ban = None
            if card is not None and table is not None:
                via, ban = table.get(card.id) or fmt.legality(card, db, on)
            facts = memo.put(raw, LineFacts(count, name, set_code, number, res, via, ban))
        # ResolvedLine(...) set slot by slot, inline: the generated __init__ behind a class call
        # (or any helper call) was a third of a line's resolution
        ln = new(ResolvedLine)
        ln.line = n
        ln.raw = raw
        ln.count = count
        ln.name = name
        ln.set_code = set_code
        ln.number = number
        ln.card = facts.card
        ln.method = facts.method
        ln.legal_via = facts.legal_via
        ln.ban = facts.ban
        ln.section = section
        ln.name_differs = facts.name_differs
        ln.facts = facts
        suggestions = facts.suggestions
        if facts.card is None:
            if name in asked or len(asked) < SUGGEST_MAX_NAMES:
                asked.add(name)
                if suggestions is None:
                    suggestions = facts.suggestions = db.suggest(name)
            else:  # over the budget: none, and not the shared facts' JSON (which may have some)
                suggestions, ln.facts = (), None
        ln.suggestions = suggestions or ()
        out.append(ln)
    return out


_today = dt.date.today  # a seam for tests


def _as_date(as_of) -> dt.date:
    if as_of is None:
        return _today()
    if isinstance(as_of, dt.datetime):
        return as_of.date()
    if isinstance(as_of, dt.date):
        return as_of
    text = str(as_of)
    return _iso_date(text) if len(text) <= 32 else dt.date.fromisoformat(text)


#: dates as given to check(), read once each: a service sees a handful of distinct ones
_iso_date = memoise(256)(dt.date.fromisoformat)


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
        "date-out-of-range",
        f"{fmt.name} legality is known from {fmt.pool.earliest.isoformat()} on; "
        f"{on.isoformat()} is earlier, so card legality was not checked.",
    )


#: called as ``listener(report, seconds)`` after every check (the service's metrics count problems by
#: rule and time checks with one); a listener must be quick and must not raise
REPORT_LISTENERS: list = []


def _suggestions_skipped(d: Deck) -> Problem | None:
    """The note for unknown names past :data:`SUGGEST_MAX_NAMES` (:func:`resolve_rows` gave them none)."""
    if len(d.unknown) <= SUGGEST_MAX_NAMES:
        return None
    names = dict.fromkeys(ln.name for ln in d.unknown)
    if len(names) <= SUGGEST_MAX_NAMES:
        return None
    late = list(names)[SUGGEST_MAX_NAMES:]
    skipped = set(late)
    n = len(late)
    return Problem(
        "suggestions-skipped",
        f"Suggestions were looked up for the first {SUGGEST_MAX_NAMES} unknown card names only; "
        f"{n} more unknown name{'s' if n != 1 else ''} got none.",
        lines=tuple(ln.line for ln in d.unknown if ln.name in skipped),
    )


def check(
    deck: str | ParseResult,
    format: str | Format = "standard",
    as_of=None,
    db: CardDB | None = None,
    max_db_age: int | None = None,
    forecast: bool = False,
) -> Report:
    """Check a decklist (text or a parse result) in a format on a date (default today).

    ``max_db_age`` (days, off by default) adds a ``stale-database`` warning when the card
    database's newest set was released more than that many days before the date.
    ``forecast=True`` adds the rotation forecast (:mod:`deckcheck.forecast`):
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
    # a text is read into rows, not CardLines: the report never shows those
    parsed, rows = (deck, card_rows(deck)) if isinstance(deck, ParseResult) else read(deck)
    ctx = Context(fmt, on, db)
    if on < fmt.pool.earliest:
        ctx.date_problem = _date_problem(fmt, on)
        lines = resolve_rows(rows, db)
    else:
        lines = resolve_rows(rows, db, fmt, on)
    d = Deck(lines, parsed.problems, parsed.declared_total, parsed.declared_total_line)
    problems: list[Problem] = [ctx.date_problem] if ctx.date_problem else []
    for fn, params in fmt.rule_plan():
        # an empty ** still costs a dict; a loop costs less than list.extend on a generator
        for problem in fn(d, ctx, **params) if params else fn(d, ctx):
            problems.append(problem)
    skipped = _suggestions_skipped(d)
    if skipped:
        problems.append(skipped)
    if parsed.problems:
        problems.extend(p for p in parsed.problems if p.rule not in fmt.rules)
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
    report = Report(
        format=fmt.id,
        format_name=fmt.name,
        as_of=on.isoformat(),
        problems=sort_problems(problems),
        lines=lines,
        counts=d.counts(),
        database=db.info(),
        basic_pokemon=d.basic_pokemon,
        extra=extra,
    )
    if REPORT_LISTENERS:
        seconds = time.perf_counter() - started
        for listener in REPORT_LISTENERS:
            listener(report, seconds)
    return report
