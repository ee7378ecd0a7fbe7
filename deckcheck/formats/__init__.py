"""Formats are data: one TOML file per format in ``data/formats/``.

A format names its rules with their parameters, its card pool, its ban list and
its exclusive groups, and may extend another. A broken format file is a
:class:`FormatError` at start-up (naming the file), never a wrong verdict later.
The mini-language is described in the README ("Format files").
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..cards import LINE_MEMO_SIZE, Card, CardDB
from ..cards.files import data_dir
from ..cards.index import number_key
from ..memo import Memo, MemosOf, memoise
from ..names import name_key
from ..registry import ALWAYS, REGISTRY, RuleFn, check_rule_params, load_builtin_rules
from ..registry import FormatError as FormatError
from .pool import Ban as Ban
from .pool import MarkDate as MarkDate
from .pool import Pool as Pool
from .pool import Rotation as Rotation

POOL_KINDS = ("regulation-marks", "sets", "all")
SET_LEGAL_RULES = ("third-friday", "release")
_TOP_KEYS = ("id", "name", "description", "extends", "sources", "rules", "pool", "bans")
_POOL_KEYS = {
    "regulation-marks": ("kind", "earliest", "set_legal_from", "reprint_rule", "rotations", "mark_dates"),
    "sets": ("kind", "earliest", "set_legal_from", "reprint_rule", "series", "include_sets", "exclude_sets"),
    "all": ("kind", "earliest", "set_legal_from", "reprint_rule"),
}
_ROTATION_KEYS = ("from", "lowest_mark", "sets", "promos", "source", "unconfirmed")
_MARK_DATE_KEYS = ("mark", "from", "source")
_BAN_KEYS = ("name", "printings", "all_printings", "since", "until", "source", "unconfirmed")
#: a table read from a format file
Table = dict[str, Any]


#: the answers one legality memo keeps (one per database and date): :meth:`Format.legality`
#: by card id, and the rules' explanations beside them (a few per card: a database of 21,000 cards
#: never fills it)
LEGALITY_MEMO_SIZE = 1 << 17


class RulePlan(NamedTuple):
    """The rules a format runs (:meth:`Format.rule_plan`): ``steps``, (rule name, rule function, its
    parameters' values in the order the function takes them) in file order, and ``wants(deck)``,
    for each step whether the deck has what the rule needs (``Rule.needs``: its value, true or
    not), in one call. ``itertools.compress(steps, wants(deck))`` is the steps to run."""

    steps: list[tuple[str, RuleFn, tuple[Any, ...]]]
    wants: Callable[[Any], tuple[Any, ...]]


def _nothing(deck: object) -> tuple[Any, ...]:
    return ()


class LineTables:
    """What the engine keeps for one format, database object and date (:meth:`Format.line_tables`):
    ``lines``, its line memo (line text -> ``engine.LineFacts``, at most ``LINE_MEMO_SIZE``);
    ``printings``, what a line naming a printing by set code and number comes to (card id -> the card,
    its legality and what the deck's index needs of it: at most one entry per card of the database);
    ``legality``, the format's legality table for the date (:meth:`Format.legality_table`)."""

    __slots__ = ("lines", "printings", "legality")

    def __init__(self, legality: Memo[Hashable, Any]) -> None:
        self.lines: Memo[str, Any] = Memo(LINE_MEMO_SIZE)
        self.printings: Memo[str, Any] = Memo(LEGALITY_MEMO_SIZE)
        self.legality = legality


class FormatMemos:
    """The memos of one :class:`Format` (a frozen value), held beside it by :data:`FORMAT_MEMOS`:
    per (database object, date), at most 64 legality memos and 4 of the engine's
    :class:`LineTables`, the rule plan and what screens a card from the bans (:meth:`Format.ban_for`)."""

    __slots__ = ("legality", "lines", "plan", "ban_screen", "rotation_sets")

    def __init__(self) -> None:
        self.legality: Memo[tuple[object, dt.date], Memo[Hashable, Any]] = Memo(64)
        self.lines: Memo[tuple[object, dt.date], LineTables] = Memo(4)
        self.plan: RulePlan | None = None
        self.ban_screen: tuple[frozenset[str], frozenset[tuple[str, int, str]]] | None = None
        #: per (database object, rotation date): the set ids of a rotation by sets and its promo
        #: floors by set id (:meth:`Format.rotation_sets`); one entry per rotation of the file
        self.rotation_sets: Memo[tuple[object, dt.date], RotationSets] = Memo(256)


class RotationSets(NamedTuple):
    """A rotation by sets resolved against one database: the ids of its sets, and for its promo
    sets the first legal number's key by set id."""

    sets: frozenset[str]
    promo_floors: dict[str, tuple[str, int, str]]


#: every format's memos, by the format's identity (a format can be made with other values, as the
#: rotation forecast does: that one starts with memos of its own)
FORMAT_MEMOS: MemosOf[Format, FormatMemos] = MemosOf(FormatMemos)


@dataclass(frozen=True)
class Format:
    id: str
    name: str
    description: str
    rules: dict[str, dict[str, Any]]  # rule name -> parameters, in file order
    pool: Pool
    bans: tuple[Ban, ...]
    sources: tuple[str, ...]
    extends: str | None = None
    path: str = ""
    rule_sources: dict[str, str] = field(default_factory=dict)  # rule -> format id that set it

    def to_dict(self) -> dict[str, Any]:
        """The public description served by ``GET /api/v1/formats``."""
        pool = {
            "kind": self.pool.kind,
            "earliest_date": self.pool.earliest.isoformat(),
            "reprint_rule": self.pool.reprint_rule,
            "set_legal_from": self.pool.legal_delay,
        }
        if self.pool.kind == "regulation-marks":
            pool["rotations"] = [_rotation_dict(r) for r in self.pool.rotations]
            pool["mark_dates"] = [
                {"mark": m.mark, "from": m.start.isoformat(), "source": m.source} for m in self.pool.mark_dates
            ]
        if self.pool.kind == "sets":
            pool["series"] = sorted(self.pool.series)
            pool["include_sets"] = sorted(self.pool.include_sets)
            pool["exclude_sets"] = sorted(self.pool.exclude_sets)
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "extends": self.extends,
            "rules": [
                {"rule": r, "parameters": p, "set_by": self.rule_sources.get(r, self.id)} for r, p in self.rules.items()
            ],
            "pool": pool,
            "bans": [
                {
                    "name": b.name,
                    "printings": [f"{s} {n}" for s, n in b.printings] or ["all printings"],
                    "since": b.since.isoformat() if b.since else None,
                    "until": b.until.isoformat() if b.until else None,
                    "source": b.source,
                    **({"unconfirmed": b.unconfirmed} if b.unconfirmed else {}),
                }
                for b in self.bans
            ],
            "sources": list(self.sources),
        }

    def description_on(self, on: dt.date) -> str:
        """The format in one sentence on the date ``on``: a rotating format says the rotation in force then
        (the marks legal and since when, or the first legal set); any other, or a date before its first
        rotation, its file's ``description``."""
        pool = self.pool
        rotation = pool.rotation_on(on) if pool.kind == "regulation-marks" else None
        if rotation is None:
            return self.description
        since = rotation.start.isoformat()
        if not rotation.min_mark:
            return f"Sets {rotation.sets[0]} and later since {since}." if rotation.sets else self.description
        floor = rotation.min_mark
        # every mark from the lowest legal one to the newest out on the date (a mark without a date is out)
        top = max([m.mark for m in pool.mark_dates if m.start <= on] + [floor])
        marks = [chr(c) for c in range(ord(floor), ord(top) + 1)]
        return f"Regulation-mark format: {', '.join(marks)} and later marks since {since}."

    # -- legality ------------------------------------------------------------

    def set_legal_date(self, db: CardDB, set_id: str) -> dt.date | None:
        """The first day a set's cards may be played (None when its release date is unknown)."""
        return _set_legal_date(self.pool.legal_delay, db.sets[set_id].release)

    def in_pool(self, card: Card, db: CardDB, on: dt.date) -> bool:
        """Is this exact printing in the pool on ``on`` (before the reprint rule)?"""
        if card.is_basic_energy:
            # basic Energy is always legal, whatever its set, once the printing exists
            return not card.release or card.release <= on.isoformat()
        legal_from = self.set_legal_date(db, card.set_id)
        if legal_from is None or legal_from > on:
            return False
        pool = self.pool
        if pool.kind == "all":
            return True
        if pool.kind == "sets":
            if card.set_id in pool.exclude_sets:
                return False
            return card.set_id in pool.include_sets or card.series in pool.series
        rotation = pool.rotation_on(on)
        if rotation is None:
            return False
        if not rotation.min_mark:
            return self._in_rotation_sets(card, db, rotation)
        floor = rotation.min_mark
        if not (card.mark and card.mark >= floor):
            return False
        mark_from = pool.mark_legal_from(card.mark)
        return mark_from is None or mark_from <= on

    def rotation_sets(self, db: CardDB, rotation: Rotation) -> RotationSets:
        """A rotation by sets against ``db``: its set codes (or set ids) as set ids, and its promo
        floors by set id; memoised per database and rotation."""
        memo, key = FORMAT_MEMOS.of(self).rotation_sets, (db.identity, rotation.start)
        hit = memo.get(key)
        if hit is None:
            floors: dict[str, tuple[str, int, str]] = {}
            for code, number in rotation.promos:
                for set_id in _set_ids(db, code):
                    floors[set_id] = number_key(number)
            sets = frozenset(s for code in rotation.sets for s in _set_ids(db, code))
            hit = memo.put(key, RotationSets(sets, floors))
        return hit

    def _in_rotation_sets(self, card: Card, db: CardDB, rotation: Rotation) -> bool:
        resolved = self.rotation_sets(db, rotation)
        if card.set_id in resolved.sets:
            return True
        floor = resolved.promo_floors.get(card.set_id)
        return floor is not None and _promo_number(card.number) >= floor[1]

    def legal_via(self, card: Card, db: CardDB, on: dt.date) -> Card | None:
        """The printing that makes ``card`` legal (itself or a functionally identical reprint), or None."""
        if self.in_pool(card, db, on):
            return card
        if card.is_basic_energy:  # a printing from after the date: any of its type out then
            return db.identical_printing(card, on.isoformat())
        if not self.pool.reprint_rule or card.fingerprint.startswith("name:"):
            return None
        for other in db.printings_of(card):
            if other.fingerprint == card.fingerprint and other.key == card.key and self.in_pool(other, db, on):
                return other
        return None

    def legal_other_printing(self, card: Card, db: CardDB, on: dt.date) -> Card | None:
        """A printing with the same name whose text differs and that is legal (and not banned) on
        ``on``, newest first; the reprint rule does not cover ``card`` with it, but a player
        can play it instead."""
        for other in db.printings_of(card):
            if (
                other.key == card.key
                and other.fingerprint != card.fingerprint
                and self.legality(other, db, on) == (other, None)
            ):
                return other
        return None

    def legality_table(self, db: CardDB, on: dt.date) -> Memo[Hashable, Any]:
        """The memo of :meth:`legality` answers for one database and date (card id -> answer);
        a long-running service sees few distinct dates: at most 64 are kept."""
        tables, key = FORMAT_MEMOS.of(self).legality, (db.identity, on)
        table = tables.get(key)
        return tables.put(key, Memo(LEGALITY_MEMO_SIZE)) if table is None else table

    def line_tables(self, db: CardDB, on: dt.date) -> LineTables:
        """The engine's tables for this format, one database and date (:class:`LineTables`); a
        service sees one or two dates at a time: at most 4 are kept."""
        memos, key = FORMAT_MEMOS.of(self).lines, (db.identity, on)
        tables = memos.get(key)
        return memos.put(key, LineTables(self.legality_table(db, on))) if tables is None else tables

    def line_memo(self, db: CardDB, on: dt.date) -> Memo[str, Any]:
        """The engine's memo of card lines in this format for one database and date (line text ->
        ``engine.LineFacts``): :meth:`line_tables`' ``lines``."""
        return self.line_tables(db, on).lines

    def legality(self, card: Card, db: CardDB, on: dt.date) -> tuple[Card | None, Ban | None]:
        """(the printing that makes it legal or None, the ban that applies or None), memoised."""
        table = self.legality_table(db, on)
        hit: tuple[Card | None, Ban | None] | None = table.get(card.id)
        if hit is None:
            hit = table.put(card.id, (self.legal_via(card, db, on), self.ban_for(card, db, on)))
        return hit

    def rule_plan(self) -> RulePlan:
        """The rules that run a function (not the parser's, :func:`~deckcheck.registry.parser_rule`),
        in file order, and what each needs of the deck (:class:`RulePlan`); built once. The engine
        calls ``fn(deck, ctx, *args)`` for each step the deck has what it needs for."""
        memos = FORMAT_MEMOS.of(self)
        plan = memos.plan
        if plan is None:
            specs = [(name, REGISTRY[name], params) for name, params in self.rules.items()]
            specs = [(name, spec, params) for name, spec, params in specs if spec.fn is not None]
            steps = [(name, spec.fn, tuple(params[key] for key in spec.params)) for name, spec, params in specs]
            needs = [spec.needs_of(self) for _, spec, _ in specs]
            # attrgetter answers one value for one name, a tuple for more: one ALWAYS more makes a tuple
            # (compress stops at the shorter)
            wants = attrgetter(*needs, ALWAYS) if needs else _nothing
            # one assignment, so threads racing here store equal plans
            plan = memos.plan = RulePlan(steps, wants)  # type: ignore[arg-type]
        return plan

    def ban_for(self, card: Card, db: CardDB, on: dt.date) -> Ban | None:
        """The first ban in force on ``on`` that covers this printing, or None."""
        bans = self.bans
        if not bans:
            return None
        memos = FORMAT_MEMOS.of(self)
        screen = memos.ban_screen
        if screen is None:
            # a ban covers a card of its name (by name) or a printing of one of its numbers
            # (Ban.covers): a card with neither is covered by none, without a look at each ban
            names = frozenset(name_key(ban.name) for ban in bans if ban.by_name)
            numbers = frozenset(number_key(n) for ban in bans if not ban.by_name for _code, n in ban.printings)
            screen = memos.ban_screen = (names, numbers)
        if card.key not in screen[0] and number_key(card.number) not in screen[1]:
            return None
        for ban in bans:
            if ban.in_force(on) and ban.covers(card, db):
                return ban
        return None

    def why_not_legal(self, card: Card, db: CardDB, on: dt.date) -> str:
        """The reason, as a clause, that ``card`` is outside the pool on ``on``."""
        pool = self.pool
        cset = db.sets[card.set_id]
        legal_from = self.set_legal_date(db, card.set_id)
        if legal_from is None:
            return f"the release date of its set, {cset.name}, is unknown"
        reprint = " and no functionally identical reprint is legal" if pool.reprint_rule else ""
        if legal_from > on:
            return f"its set, {cset.name}, is legal from {legal_from.isoformat()}{reprint}"
        if pool.kind == "regulation-marks":
            rotation = pool.rotation_on(on)
            if rotation is not None and not rotation.min_mark:
                start = rotation.start.isoformat()
                resolved = self.rotation_sets(db, rotation)
                if card.set_id in resolved.promo_floors:
                    first = resolved.promo_floors[card.set_id]
                    return (
                        f"only promos from number {first[0]}{first[1]} on of its set, {cset.name}, are in the "
                        f"card pool of the rotation of {start}{reprint}"
                    )
                return f"its set, {cset.name}, is not in the card pool of the rotation of {start}{reprint}"
            floor = pool.min_mark(on)
            if not card.mark:
                return f"it has no regulation mark{reprint}"
            if floor and card.mark < floor:
                return f"its regulation mark {card.mark} has rotated out (the lowest legal mark is {floor}){reprint}"
            mark_from = pool.mark_legal_from(card.mark)
            return f"regulation mark {card.mark} is legal from {mark_from.isoformat() if mark_from else '?'}{reprint}"
        if pool.kind == "sets":
            how = "is excluded from" if card.set_id in pool.exclude_sets else "is not in"
            return f"its set, {cset.name}, {how} the card pool{reprint}"
        return f"its set, {cset.name}, is not in the card pool{reprint}"  # pragma: no cover - "all" takes every set


def _set_legal_date(rule: str, release: str | None) -> dt.date | None:
    """``release``: that day. ``third-friday``: the third Friday counting a Friday release day as the first.

    Checked against the Handbook's regulation-mark table: Scarlet & Violet (released Friday
    2023-03-31) was legal on 2023-04-14, Temporal Forces (2024-03-22) on 2024-04-05 and
    Journey Together (2025-03-28) on 2025-04-11: two weeks after a Friday release.
    """
    return _legal_date((rule, release))


def _rotation_dict(r: Rotation) -> dict[str, Any]:
    """A rotation as ``GET /api/v1/formats`` describes it."""
    out: dict[str, Any] = {"from": r.start.isoformat(), "lowest_legal_mark": r.min_mark, "source": r.source}
    if not r.min_mark:
        out["sets"] = list(r.sets)
        out["promos"] = [f"{code} {number}+" for code, number in r.promos]
    if r.unconfirmed:
        out["unconfirmed"] = r.unconfirmed
    return out


def _set_ids(db: CardDB, code: str) -> tuple[str, ...]:
    """The set ids a rotation's entry names: a set code (through the database's codes and aliases)
    or, for a set without a code of its own, its set id."""
    return db.sets_for_code(code) or ((code,) if code in db.sets else ())


def _promo_number(number: str) -> int:
    """A promo's number without its prefix (``BW33`` -> 33, ``SWSH001`` -> 1), for a floor."""
    return number_key(number)[1]


@memoise(4096)
def _legal_date(key: tuple[str, str | None]) -> dt.date | None:
    rule, release = key
    if not release:
        return None
    day = dt.date.fromisoformat(release)
    if rule == "release":
        return day
    first = day + dt.timedelta(days=(4 - day.weekday()) % 7)  # Friday is weekday 4
    return first + dt.timedelta(days=14)


# -- loading -------------------------------------------------------------------


def _date(value: object, where: str) -> dt.date:
    if isinstance(value, dt.datetime) or isinstance(value, dt.time):
        raise FormatError(f"{where}: {value!s} is not a date (YYYY-MM-DD); give a date without a time")
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise FormatError(f"{where}: {value!r} is not a date (YYYY-MM-DD)") from None


def _keys(raw: object, allowed: Iterable[str], where: str) -> Table:
    if not isinstance(raw, dict):
        raise FormatError(f"{where} must be a table")
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        raise FormatError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(allowed)})"
        )
    return raw


def _text(raw: Table, key: str, where: str, required: bool = True) -> str:
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise FormatError(f"{where}: {key} must be a non-empty string")
    return value


def _strings(raw: Table, key: str, where: str) -> list[str]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FormatError(f"{where}: {key} must be a list of strings")
    return value


def _mark(raw: Table, key: str, where: str) -> str:
    """A regulation mark: one capital letter."""
    mark = str(raw.get(key, ""))
    if len(mark) != 1 or not mark.isalpha() or not mark.isupper():
        raise FormatError(f"{where}: {key} must be one capital letter, not {mark!r}")
    return mark


def _rotation(r: object, at: str) -> Rotation:
    """One ``[[pool.rotations]]`` entry: a date and a source, and either ``lowest_mark`` or ``sets``
    (with ``promos``, "CODE FIRST-NUMBER" each)."""
    table = _keys(r, _ROTATION_KEYS, at)
    if "from" not in table:
        raise FormatError(f"{at}: from is missing (the rotation's effective date)")
    start = _date(table["from"], f"{at}.from")
    source = _text(table, "source", at)
    unconfirmed = _text(table, "unconfirmed", at, required=False)
    if ("lowest_mark" in table) == ("sets" in table):
        raise FormatError(f"{at}: give lowest_mark (a rotation by regulation mark) or sets (by set), one of them")
    if "lowest_mark" in table:
        if "promos" in table:
            raise FormatError(f"{at}: promos belong to a rotation by sets")
        return Rotation(start, _mark(table, "lowest_mark", at), source, unconfirmed=unconfirmed)
    sets = _strings(table, "sets", at)
    if not sets:
        raise FormatError(f"{at}: sets is empty")
    promos = []
    for p in _strings(table, "promos", at):
        parts = p.rsplit(" ", 1)
        if len(parts) != 2 or not parts[0].strip() or number_key(parts[1])[1] < 0:
            raise FormatError(f"{at}: promos entry {p!r} must be 'SET FIRST-NUMBER' (PR-BLW BW33)")
        promos.append((parts[0].strip(), parts[1]))
    return Rotation(start, None, source, tuple(sets), tuple(promos), unconfirmed)


def _rotations(raw: Table, earliest: dt.date, where: str) -> tuple[Rotation, ...]:
    out = []
    for i, r in enumerate(raw.get("rotations", [])):
        out.append(_rotation(r, f"{where}: pool.rotations[{i + 1}]"))
    if not out:
        raise FormatError(f"{where}: a regulation-marks pool needs at least one [[pool.rotations]]")
    if [r.start for r in out] != sorted({r.start for r in out}):
        raise FormatError(f"{where}: pool.rotations must be in date order, one per date")
    if earliest < out[0].start:
        raise FormatError(
            f"{where}: pool.earliest {earliest} is before the first rotation ({out[0].start}), "
            "so the pool on those days is unknown"
        )
    return tuple(out)


def _mark_dates(raw: Table, where: str) -> tuple[MarkDate, ...]:
    out = []
    for i, m in enumerate(raw.get("mark_dates", [])):
        at = f"{where}: pool.mark_dates[{i + 1}]"
        _keys(m, _MARK_DATE_KEYS, at)
        out.append(MarkDate(_mark(m, "mark", at), _date(m.get("from"), f"{at}.from"), _text(m, "source", at)))
    if len({m.mark for m in out}) != len(out):
        raise FormatError(f"{where}: pool.mark_dates lists a mark twice")
    return tuple(out)


def _pool(raw: object, where: str) -> Pool:
    if not isinstance(raw, dict):
        raise FormatError(f"{where}: [pool] must be a table")
    kind = raw.get("kind")
    if kind not in POOL_KINDS:
        raise FormatError(f"{where}: pool.kind must be one of {', '.join(POOL_KINDS)}, not {kind!r}")
    _keys(raw, _POOL_KEYS[kind], f"{where}: [pool] of kind {kind!r}")
    if "earliest" not in raw:
        raise FormatError(f"{where}: pool.earliest is missing (the first date the format's data covers)")
    earliest = _date(raw["earliest"], f"{where}: pool.earliest")
    delay = raw.get("set_legal_from", "third-friday")
    if delay not in SET_LEGAL_RULES:
        raise FormatError(f"{where}: pool.set_legal_from must be 'third-friday' or 'release', not {delay!r}")
    reprint = raw.get("reprint_rule", True)
    if not isinstance(reprint, bool):
        raise FormatError(f"{where}: pool.reprint_rule must be true or false")
    rotations = _rotations(raw, earliest, where) if kind == "regulation-marks" else ()
    mark_dates = _mark_dates(raw, where) if kind == "regulation-marks" else ()
    series, include, exclude = (
        frozenset(_strings(raw, k, f"{where}: pool")) for k in ("series", "include_sets", "exclude_sets")
    )
    if kind == "sets" and not (series or include):
        raise FormatError(f"{where}: a sets pool needs series or include_sets")
    return Pool(kind, earliest, rotations, series, include, exclude, delay, reprint, mark_dates)


def _bans(raw: object, where: str) -> tuple[Ban, ...]:
    if not isinstance(raw, list):
        raise FormatError(f"{where}: bans must be a list of tables")
    out: list[Ban] = []
    seen: set[tuple[str, str, object]] = set()
    for i, b in enumerate(raw):
        at = f"{where}: bans[{i + 1}]"
        _keys(b, _BAN_KEYS, at)
        name = _text(b, "name", at)
        printings = []
        for p in b.get("printings", []):
            parts = str(p).rsplit(" ", 1)
            if len(parts) != 2 or not parts[0].strip():
                raise FormatError(f"{at} ({name}): printing {p!r} must be 'SET NUMBER'")
            printings.append((parts[0].strip().upper(), parts[1]))
        if printings and b.get("all_printings"):
            raise FormatError(f"{at} ({name}): give printings or all_printings = true, not both")
        if not printings and b.get("all_printings") is not True:
            raise FormatError(f"{at} ({name}): lists no printings (set all_printings = true for a ban by name)")
        keys: set[tuple[str, str, object]] = {(name_key(name), s, number_key(n)) for s, n in printings}
        keys = keys or {(name_key(name), "*", "*")}
        if keys & seen:
            raise FormatError(f"{at} ({name}): bans a printing that an earlier entry already bans")
        seen |= keys
        if "since" not in b:
            raise FormatError(f"{at} ({name}): since is missing (the date the ban took effect)")
        since = _date(b["since"], f"{at}.since")
        until = _date(b["until"], f"{at}.until") if "until" in b else None
        if until is not None and until <= since:
            raise FormatError(f"{at} ({name}): until {until} is not after since {since}")
        unconfirmed = _text(b, "unconfirmed", at, required=False)
        out.append(Ban(name, tuple(printings), since, _text(b, "source", at), until, unconfirmed))
    return tuple(out)


def _rules(
    raw: object, parent: Format | None, fid: str, where: str
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    if not isinstance(raw, dict):
        raise FormatError(f"{where}: [rules] must be a table")
    load_builtin_rules()
    if parent is not None:
        rules, sources = dict(parent.rules), dict(parent.rule_sources)
    else:
        # every format reads with the parser's rules (unparsed-line...) unless it turns one off by name:
        # a format file that does not mention them must not drop what the parser could not read
        rules = {name: {} for name, spec in REGISTRY.items() if spec.fn is None}
        sources = dict.fromkeys(rules, fid)
    for name, params in raw.items():
        if params is False:
            if name not in rules:
                raise FormatError(f"{where}: removes rule {name!r}, which is not in effect")
            rules.pop(name)
            sources.pop(name, None)
            continue
        if not isinstance(params, dict):
            raise FormatError(f"{where}: rule {name!r} must be a table of parameters (or false to remove it)")
        rules[name] = check_rule_params(name, params, where)
        sources[name] = fid
    return rules, sources


def _read(path: Path) -> Table:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{path.name}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise FormatError(f"{path.name}: cannot read: {exc.strerror}") from exc


def _pool_table(raw: object, parent: Table | None, where: str) -> Table:
    """A format's ``[pool]`` keys over its parent's (a key it gives replaces the parent's, an
    array of tables included); a pool of another kind than the parent's starts afresh."""
    if not isinstance(raw, dict):
        raise FormatError(f"{where}: [pool] must be a table")
    if parent is None or raw.get("kind", parent.get("kind")) != parent.get("kind"):
        return raw
    return {**parent, **raw}


def _build(fid: str, path: Path, raw: Table, parent: Format | None, pool_table: Table) -> Format:
    """The format ``fid`` from its file's table; ``pool_table`` is its [pool] merged over its parent's."""
    where = path.name
    _keys(raw, _TOP_KEYS, where)
    if raw.get("id", fid) != fid:
        raise FormatError(f"{where}: id {raw.get('id')!r} differs from the file name")
    name = _text(raw, "name", where)
    description = _text(raw, "description", where, required=False)
    rules, rule_sources = _rules(raw.get("rules", {}), parent, fid, where)
    if "pool" in raw:
        pool = _pool(pool_table, where)
    elif parent:
        pool = parent.pool
    else:
        raise FormatError(f"{where}: no [pool] and nothing to extend")
    bans = _bans(raw["bans"], where) if "bans" in raw else (parent.bans if parent else ())
    sources = tuple(_strings(raw, "sources", where))
    return Format(fid, name, description, rules, pool, bans, sources, raw.get("extends"), str(path), rule_sources)


def load_formats(directory: Path | None = None) -> dict[str, Format]:
    """Load and check every ``*.toml`` in ``data/formats/``. Raises :class:`FormatError`."""
    directory = Path(directory) if directory else data_dir() / "formats"
    raws = {p.stem: (p, _read(p)) for p in sorted(directory.glob("*.toml"))}
    if not raws:
        raise FormatError(f"no format files in {directory}")
    resolved: dict[str, Format] = {}
    pools: dict[str, Table] = {}  # each format's [pool] table, merged over its parent's

    def resolve(fid: str, chain: tuple[str, ...] = ()) -> Format:
        if fid in resolved:
            return resolved[fid]
        if fid in chain:
            raise FormatError(f"{chain[0]}.toml: formats extend each other in a loop: {' -> '.join(chain + (fid,))}")
        if fid not in raws:
            raise FormatError(f"{chain[-1]}.toml: extends unknown format {fid!r}")
        path, raw = raws[fid]
        extends = raw.get("extends")
        if extends is not None and not isinstance(extends, str):
            raise FormatError(f"{path.name}: extends must be a format id (a string)")
        parent = resolve(extends, chain + (fid,)) if extends else None
        parent_pool = pools.get(extends) if extends else None
        if "pool" in raw:
            pools[fid] = _pool_table(raw["pool"], parent_pool, path.name)
        elif parent_pool is not None:
            pools[fid] = parent_pool
        resolved[fid] = _build(fid, path, raw, parent, pools.get(fid, {}))
        return resolved[fid]

    for fid in raws:
        resolve(fid)
    return resolved


@lru_cache(maxsize=1)
def default_formats() -> dict[str, Format]:
    """The shipped formats, loaded once per process."""
    return load_formats()
