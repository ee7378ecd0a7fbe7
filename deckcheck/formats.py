"""Formats are data: one TOML file per format in ``data/formats/``.

A format names its rules with their parameters, its card pool, its ban list and
its exclusive groups, and may extend another format. A broken format file is a
:class:`FormatError` at start-up, never a wrong verdict later.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .build import data_dir
from .cards import Card, CardDB, number_key
from .names import name_key

POOL_KINDS = ("regulation-marks", "sets", "all")


class FormatError(Exception):
    """A format definition is broken (raised when formats load)."""


@dataclass(frozen=True)
class Ban:
    name: str
    printings: tuple[tuple[str, str], ...]  # (set code, number); empty means every printing of the name
    since: dt.date | None
    source: str

    @property
    def by_name(self) -> bool:
        return not self.printings


@dataclass(frozen=True)
class Rotation:
    start: dt.date
    min_mark: str
    source: str


@dataclass(frozen=True)
class Pool:
    kind: str
    earliest: dt.date
    rotations: tuple[Rotation, ...] = ()
    series: frozenset[str] = frozenset()
    include_sets: frozenset[str] = frozenset()
    exclude_sets: frozenset[str] = frozenset()
    legal_delay: str = "third-friday"  # or "release"
    reprint_rule: bool = True

    def min_mark(self, on: dt.date) -> str | None:
        current = None
        for r in self.rotations:
            if r.start <= on:
                current = r.min_mark
        return current


@dataclass(frozen=True)
class Format:
    id: str
    name: str
    description: str
    rules: dict[str, dict]  # rule name -> parameters, in file order
    pool: Pool
    bans: tuple[Ban, ...]
    sources: tuple[str, ...]
    extends: str | None = None
    path: str = ""
    rule_sources: dict[str, str] = field(default_factory=dict)  # rule -> format id that set it
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def to_dict(self) -> dict:
        """The public description served by ``GET /api/v1/formats``."""
        pool = {"kind": self.pool.kind, "earliest_date": self.pool.earliest.isoformat(),
                "reprint_rule": self.pool.reprint_rule, "set_legal_from": self.pool.legal_delay}
        if self.pool.kind == "regulation-marks":
            pool["rotations"] = [{"from": r.start.isoformat(), "lowest_legal_mark": r.min_mark, "source": r.source}
                                 for r in self.pool.rotations]
        if self.pool.kind == "sets":
            pool["series"] = sorted(self.pool.series)
            pool["include_sets"] = sorted(self.pool.include_sets)
            pool["exclude_sets"] = sorted(self.pool.exclude_sets)
        return {
            "id": self.id, "name": self.name, "description": self.description, "extends": self.extends,
            "rules": [{"rule": r, "parameters": p} for r, p in self.rules.items()],
            "pool": pool,
            "bans": [{"name": b.name, "printings": [f"{s} {n}" for s, n in b.printings] or ["all printings"],
                      "since": b.since.isoformat() if b.since else None, "source": b.source} for b in self.bans],
            "sources": list(self.sources),
        }

    # -- legality ------------------------------------------------------------

    def set_legal_date(self, db: CardDB, set_id: str) -> dt.date | None:
        return _set_legal_date(self.pool.legal_delay, db.sets[set_id].release)

    def in_pool(self, card: Card, db: CardDB, on: dt.date) -> bool:
        """Is this exact printing in the pool on ``on`` (before the reprint rule)?"""
        legal_from = self.set_legal_date(db, card.set_id)
        if legal_from is None or legal_from > on:
            return False
        pool = self.pool
        if pool.kind == "all":
            return True
        if pool.kind == "sets":
            if card.set_id in pool.exclude_sets:
                return False
            return card.is_basic_energy or card.set_id in pool.include_sets or db.sets[card.set_id].series in pool.series
        if card.is_basic_energy:
            return True
        floor = pool.min_mark(on)
        return bool(card.mark and floor and card.mark >= floor)

    def legal_via(self, card: Card, db: CardDB, on: dt.date) -> Card | None:
        """The printing that makes ``card`` legal (itself or a functionally identical reprint), or None."""
        if self.in_pool(card, db, on):
            return card
        if not self.pool.reprint_rule or card.fingerprint.startswith("name:"):
            return None
        for other in db.printings_of(card):
            if other.fingerprint == card.fingerprint and other.key == card.key and self.in_pool(other, db, on):
                return other
        return None

    def legality(self, card: Card, db: CardDB, on: dt.date) -> tuple[Card | None, Ban | None]:
        """(the printing that makes it legal or None, the ban that applies or None), memoised."""
        key = (db.version, on, card.id)
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) > 200_000:
                self._memo.clear()
            hit = self._memo[key] = (self.legal_via(card, db, on), self.ban_for(card, db, on))
        return hit

    def ban_for(self, card: Card, db: CardDB, on: dt.date) -> Ban | None:
        for ban in self.bans:
            if ban.since and ban.since > on:
                continue
            if ban.by_name:
                if name_key(ban.name) == card.key:
                    return ban
            elif any(number_key(n) == number_key(card.number) and set_id == card.set_id
                     for code, n in ban.printings for set_id in db.sets_for_code(code)):
                return ban
        return None


def _set_legal_date(rule: str, release: str | None) -> dt.date | None:
    if not release:
        return None
    day = dt.date.fromisoformat(release)
    if rule == "release":
        return day
    # the third Friday after the US release (Friday is weekday 4)
    first = day + dt.timedelta(days=(4 - day.weekday()) % 7 or 7)
    return first + dt.timedelta(days=14)


# -- loading -------------------------------------------------------------------

def _date(value, where: str) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise FormatError(f"{where}: {value!r} is not a date (YYYY-MM-DD)") from exc


def _pool(raw: dict, where: str) -> Pool:
    kind = raw.get("kind")
    if kind not in POOL_KINDS:
        raise FormatError(f"{where}: pool.kind must be one of {', '.join(POOL_KINDS)}, not {kind!r}")
    rotations = tuple(
        Rotation(_date(r.get("from"), f"{where} rotation"), str(r.get("lowest_mark", "")).upper(), r.get("source", ""))
        for r in raw.get("rotations", [])
    )
    if kind == "regulation-marks" and not rotations:
        raise FormatError(f"{where}: a regulation-marks pool needs [[pool.rotations]]")
    for r in rotations:
        if len(r.min_mark) != 1 or not r.min_mark.isalpha():
            raise FormatError(f"{where}: lowest_mark must be one letter, not {r.min_mark!r}")
    delay = raw.get("set_legal_from", "third-friday")
    if delay not in ("third-friday", "release"):
        raise FormatError(f"{where}: pool.set_legal_from must be 'third-friday' or 'release'")
    return Pool(kind, _date(raw.get("earliest"), f"{where} pool.earliest"), rotations,
                frozenset(raw.get("series", [])), frozenset(raw.get("include_sets", [])),
                frozenset(raw.get("exclude_sets", [])), delay, bool(raw.get("reprint_rule", True)))


def _bans(raw: list, where: str) -> tuple[Ban, ...]:
    out = []
    for i, b in enumerate(raw):
        if "name" not in b:
            raise FormatError(f"{where}: ban #{i + 1} has no name")
        printings = []
        for p in b.get("printings", []):
            parts = str(p).rsplit(" ", 1)
            if len(parts) != 2:
                raise FormatError(f"{where}: ban {b['name']!r}: printing {p!r} must be 'SET NUMBER'")
            printings.append((parts[0].upper(), parts[1]))
        if not printings and not b.get("all_printings"):
            raise FormatError(f"{where}: ban {b['name']!r} lists no printings (set all_printings = true for a ban by name)")
        since = _date(b["since"], f"{where} ban {b['name']!r}") if b.get("since") else None
        out.append(Ban(b["name"], tuple(printings), since, b.get("source", "")))
    return tuple(out)


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{path.name}: not valid TOML: {exc}") from exc


def load_formats(directory: Path | None = None) -> dict[str, Format]:
    """Load and check every ``*.toml`` in ``data/formats/``. Raises :class:`FormatError`."""
    from .rules import check_rule_params  # rules import formats' types; keep the cycle lazy

    directory = directory or data_dir() / "formats"
    raws = {p.stem: (p, _read(p)) for p in sorted(directory.glob("*.toml"))}
    if not raws:
        raise FormatError(f"no format files in {directory}")
    resolved: dict[str, Format] = {}

    def resolve(fid: str, chain: tuple[str, ...] = ()) -> Format:
        if fid in resolved:
            return resolved[fid]
        if fid in chain:
            raise FormatError(f"formats extend each other in a loop: {' -> '.join(chain + (fid,))}")
        if fid not in raws:
            raise FormatError(f"{chain[-1]}.toml extends unknown format {fid!r}")
        path, raw = raws[fid]
        where = path.name
        if raw.get("id", fid) != fid:
            raise FormatError(f"{where}: id {raw.get('id')!r} differs from the file name")
        unknown = set(raw) - {"id", "name", "description", "extends", "rules", "pool", "bans", "sources"}
        if unknown:
            raise FormatError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        parent = resolve(raw["extends"], chain + (fid,)) if raw.get("extends") else None
        rules = dict(parent.rules) if parent else {}
        rule_sources = dict(parent.rule_sources) if parent else {}
        for name, params in raw.get("rules", {}).items():
            if params is False:
                if name not in rules:
                    raise FormatError(f"{where}: removes rule {name!r}, which is not in effect")
                rules.pop(name)
                rule_sources.pop(name, None)
                continue
            if not isinstance(params, dict):
                raise FormatError(f"{where}: rule {name!r} must be a table of parameters (or false)")
            rules[name] = check_rule_params(name, params, where)
            rule_sources[name] = fid
        if "pool" in raw:
            pool = _pool(raw["pool"], where)
        elif parent:
            pool = parent.pool
        else:
            raise FormatError(f"{where}: no [pool] and nothing to extend")
        bans = _bans(raw["bans"], where) if "bans" in raw else (parent.bans if parent else ())
        if "name" not in raw:
            raise FormatError(f"{where}: missing name")
        fmt = Format(fid, raw["name"], raw.get("description", ""), rules, pool, bans,
                     tuple(raw.get("sources", [])), raw.get("extends"), str(path), rule_sources)
        resolved[fid] = fmt
        return fmt

    for fid in raws:
        resolve(fid)
    return resolved


@lru_cache(maxsize=1)
def default_formats() -> dict[str, Format]:
    """The shipped formats, loaded once per process."""
    return load_formats()
