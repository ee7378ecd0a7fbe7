"""Check a deck against a format: parse, resolve, run every rule, collect a report."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from . import cards as _cards
from .cards import Card, CardDB, Resolution
from .formats import Ban, Format, FormatError, default_formats
from .names import name_key
from .parse import CardLine, ParseResult, parse
from .problems import Counts, Problem, Report, sort_problems
from .rules import REGISTRY


@dataclass
class ResolvedLine:
    """A card line with the printing it resolved to and its legality in the format."""

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

    @property
    def legal(self) -> bool | None:
        if self.card is None:
            return None
        return self.legal_via is not None and self.ban is None

    def to_dict(self) -> dict:
        return {
            "line": self.line, "count": self.count, "text": self.raw, "name": self.name,
            "set": self.set_code, "number": self.number, "resolution": self.method,
            "suggestions": list(self.suggestions), "legal": self.legal,
            "legal_via": self.legal_via.id if self.legal_via is not None and self.legal_via is not self.card else None,
            "banned": self.ban is not None,
            "card": self.card.to_dict() if self.card else None,
        }


@dataclass
class Deck:
    lines: list[ResolvedLine]
    parse_problems: list[Problem] = field(default_factory=list)
    declared_total: int | None = None
    declared_total_line: int | None = None

    @property
    def known(self) -> list[ResolvedLine]:
        return [ln for ln in self.lines if ln.card is not None]

    @property
    def total(self) -> int:
        return sum(ln.count for ln in self.lines)

    def counts(self) -> Counts:
        c = Counts()
        for ln in self.lines:
            kind = {"Pokémon": "pokemon", "Trainer": "trainer", "Energy": "energy"}.get(ln.card.supertype if ln.card else "", "unknown")
            setattr(c, kind, getattr(c, kind) + ln.count)
        return c


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

    def why_not_legal(self, card: Card) -> str:
        pool = self.format.pool
        legal_from = self.format.set_legal_date(self.db, card.set_id)
        if legal_from and legal_from > self.as_of:
            return f"its set is legal from {legal_from.isoformat()}"
        if pool.kind == "regulation-marks":
            floor = pool.min_mark(self.as_of)
            mark = f"regulation mark {card.mark}" if card.mark else "it has no regulation mark"
            return (f"{mark} is not in the pool (lowest legal mark {floor}) and no functionally identical "
                    "reprint is legal")
        if pool.kind == "sets":
            return f"its set ({self.db.sets[card.set_id].name}) is not in the pool and no functionally identical reprint is"
        return "its set was not released by then"


def resolve_lines(parsed: ParseResult, db: CardDB) -> list[ResolvedLine]:
    out = []
    for cl in parsed.cards:
        res: Resolution = db.resolve(cl)
        out.append(ResolvedLine(cl.line, cl.raw, cl.count, cl.name, cl.set_code, cl.number, res.card, res.method,
                                res.suggestions, section=cl.section))
    return out


def _as_date(as_of) -> dt.date:
    if as_of is None:
        return dt.date.today()
    if isinstance(as_of, dt.datetime):
        return as_of.date()
    if isinstance(as_of, dt.date):
        return as_of
    return dt.date.fromisoformat(str(as_of))


def get_format(format: str | Format) -> Format:
    if isinstance(format, Format):
        return format
    formats = default_formats()
    try:
        return formats[format]
    except KeyError:
        raise FormatError(f"unknown format {format!r} (known: {', '.join(sorted(formats))})") from None


def check(deck: str | ParseResult, format: str | Format = "standard", as_of=None, db: CardDB | None = None) -> Report:
    """Check a decklist (text or a parse result) in a format on a date (default today).

    A bad deck is data: every problem is in the report. Only an unknown format
    or a malformed date raises (``FormatError`` / ``ValueError``).
    """
    fmt = get_format(format)
    on = _as_date(as_of)
    db = db or _cards.get_db()
    parsed = deck if isinstance(deck, ParseResult) else parse(deck)
    lines = resolve_lines(parsed, db)
    ctx = Context(fmt, on, db)
    if on < fmt.pool.earliest:
        ctx.date_problem = Problem("date-out-of-range", f"{fmt.name} legality is known from "
                                   f"{fmt.pool.earliest.isoformat()} on; {on.isoformat()} is earlier, so card "
                                   "legality was not checked.")
    else:
        for ln in lines:
            if ln.card is not None:
                ln.legal_via, ln.ban = fmt.legality(ln.card, db, on)
    d = Deck(lines, list(parsed.problems), parsed.declared_total, parsed.declared_total_line)
    problems: list[Problem] = []
    for rule_name, params in fmt.rules.items():
        problems.extend(REGISTRY[rule_name].fn(d, ctx, **params))
    problems.extend(p for p in parsed.problems if p.rule not in fmt.rules)
    counts = d.counts()
    return Report(
        format=fmt.id, format_name=fmt.name, as_of=on.isoformat(), problems=sort_problems(problems), lines=lines,
        counts=counts, database=db.info(), basic_pokemon=sum(ln.count for ln in d.known if ln.card.is_basic_pokemon),
    )
