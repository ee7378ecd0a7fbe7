"""The format files read and checked: ``data/formats/*.toml`` -> :class:`~deckcheck.formats.format.Format`
values (:func:`load_formats`, :func:`default_formats`). Every key is checked against the keys
its table allows, and a broken file is a :class:`~deckcheck.registry.FormatError` naming the file
and the key, at start-up."""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..cards.files import data_dir
from ..cards.index import number_key
from ..names import name_key
from ..registry import REGISTRY, FormatError, check_rule_params, load_builtin_rules
from ..wording import noun
from .format import Format
from .pool import Allowed, Ban, MarkDate, Pool, Rotation

POOL_KINDS = ("regulation-marks", "sets", "all")
SET_LEGAL_RULES = ("third-friday", "release")
_TOP_KEYS = ("id", "name", "description", "extends", "sources", "rules", "pool", "bans")
_POOL_KEYS = {
    "regulation-marks": ("kind", "earliest", "set_legal_from", "reprint_rule", "rotations", "mark_dates"),
    "sets": (
        "kind",
        "earliest",
        "set_legal_from",
        "reprint_rule",
        "series",
        "include_sets",
        "exclude_sets",
        "closed_sets",
        "allow",
    ),
    "all": ("kind", "earliest", "set_legal_from", "reprint_rule"),
}
_ROTATION_KEYS = ("from", "lowest_mark", "sets", "promos", "source", "unconfirmed")
_MARK_DATE_KEYS = ("mark", "from", "source")
_BAN_KEYS = ("name", "printings", "all_printings", "since", "until", "source", "unconfirmed")
_ALLOW_KEYS = ("name", "printings", "since", "source", "unconfirmed")
#: a table read from a format file
Table = dict[str, Any]


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
            f"{where}: unknown {noun(len(unknown), 'key')} {', '.join(map(repr, unknown))} "
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
    closed = frozenset(_strings(raw, "closed_sets", f"{where}: pool"))
    if not closed <= exclude:
        unknown = ", ".join(sorted(closed - exclude))
        raise FormatError(f"{where}: pool.closed_sets names {unknown}, not in pool.exclude_sets")
    allowed = _allowed(raw.get("allow", []), where)
    if allowed and not closed:
        raise FormatError(f"{where}: pool.allow is for printings of pool.closed_sets, and it is empty")
    return Pool(kind, earliest, rotations, series, include, exclude, delay, reprint, mark_dates, closed, allowed)


def _printings(b: Table, at: str, name: str) -> list[tuple[str, str]]:
    """An entry's ``printings``, "SET NUMBER" each, as (upper-cased set code, number) pairs."""
    out = []
    for p in b.get("printings", []):
        parts = str(p).rsplit(" ", 1)
        if len(parts) != 2 or not parts[0].strip():
            raise FormatError(f"{at} ({name}): printing {p!r} must be 'SET NUMBER'")
        out.append((parts[0].strip().upper(), parts[1]))
    return out


def _allowed(raw: object, where: str) -> tuple[Allowed, ...]:
    """``pool.allow``: printings of a closed set the format allows, each with its date and source."""
    if not isinstance(raw, list):
        raise FormatError(f"{where}: pool.allow must be a list of tables")
    out = []
    for i, a in enumerate(raw):
        at = f"{where}: pool.allow[{i + 1}]"
        _keys(a, _ALLOW_KEYS, at)
        name = _text(a, "name", at)
        printings = _printings(a, at, name)
        if not printings:
            raise FormatError(f"{at} ({name}): lists no printings")
        if "since" not in a:
            raise FormatError(f"{at} ({name}): since is missing (the date its source allows it from)")
        since = _date(a["since"], f"{at}.since")
        out.append(Allowed(name, tuple(printings), since, _text(a, "source", at), _text(a, "unconfirmed", at, False)))
    return tuple(out)


def _bans(raw: object, where: str) -> tuple[Ban, ...]:
    if not isinstance(raw, list):
        raise FormatError(f"{where}: bans must be a list of tables")
    out: list[Ban] = []
    seen: set[tuple[str, str, object]] = set()
    for i, b in enumerate(raw):
        at = f"{where}: bans[{i + 1}]"
        _keys(b, _BAN_KEYS, at)
        name = _text(b, "name", at)
        printings = _printings(b, at, name)
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
