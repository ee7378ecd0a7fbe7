"""The card database: loaded once per process, shared read-only (:func:`get_db`).

The database's values are in :mod:`deckcheck.printings`, the database object and card
resolution in :mod:`deckcheck.carddb`, and the watcher that swaps a new database file into a
running service in :mod:`deckcheck.dbwatch`; the names are offered here too.
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import logging
import os
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from .carddb import LINE_MEMO_SIZE, RESOLVE_MEMO_SIZE, CardDB, DBMemos, newest_set_info
from .dbfile import FIELDS, SCHEMA_VERSION, data_dir, read_table
from .deckrules import load_rules
from .index import IndexError_, build_index, check_index, fingerprint, number_key, number_norm, rows_digest
from .printings import Card, CardSet, CardTable, DatabaseError, NumberTable, PrintingTable, Resolution, SetAlias

__all__ = [
    "DEFAULT_DB_FILE",
    "LINE_MEMO_SIZE",
    "RESOLVE_MEMO_SIZE",
    "Card",
    "CardDB",
    "CardSet",
    "DBMemos",
    "DatabaseError",
    "Resolution",
    "default_path",
    "from_dict",
    "get_db",
    "load",
    "newest_of",
    "newest_set_info",
    "number_key",
    "number_norm",
    "set_db",
]

log = logging.getLogger(__name__)

DEFAULT_DB_FILE = "cards.json.gz"


def _load_aliases(directory: Path | None) -> dict[str, SetAlias]:
    out = {}
    for row in read_table("set-aliases.csv", directory):
        action = row.get("action") or "lookup"
        if action not in ("lookup", "by-name", "energy"):
            raise DatabaseError(f"set-aliases.csv: unknown action {action!r} for {row['alias']}")
        out[row["alias"].upper()] = SetAlias(
            tuple((row.get("sets") or "").split()), row.get("prefix") or "", int(row.get("offset") or 0), action
        )
    return out


def from_dict(raw: dict[str, Any], version: str, path: str | None = None, directory: Path | None = None) -> CardDB:
    """Index a database dict (as written by :mod:`deckcheck.sync.build`).

    Every row is checked here, so a card made later from its row cannot fail. The lookup
    index stored in the file (:mod:`deckcheck.index`) is used when this code made it, after
    a check of its shape; otherwise it is built from the rows.
    """
    if raw.get("schema") != SCHEMA_VERSION or list(raw.get("fields", [])) != list(FIELDS):
        raise DatabaseError(f"card database {path or ''} has an unknown layout (schema {raw.get('schema')!r})")
    sets = {
        s["id"]: CardSet(
            s["id"],
            s["name"],
            s.get("series"),
            s.get("code"),
            tuple(s.get("aliases") or ()),
            s.get("release"),
            s.get("official_count"),
            s.get("image"),
        )
        for s in raw["sets"]
    }
    # what a card takes from its set, once per set
    facts = {sid: (s.code or sid.upper(), s.release or "", s.series or "") for sid, s in sets.items()}
    rows = raw["cards"]
    _check_rows(rows, facts)
    ids = dict(zip(map(itemgetter(0), rows), range(len(rows)), strict=True))  # the last row of an id wins
    releases = {sid: f[1] for sid, f in facts.items()}
    stored = raw.get("index")
    # none, made by other code, or not of these rows: built here
    index: dict[str, Any] = stored if _usable(stored, rows, releases, path) else build_index(rows, releases, ids)
    keys = index["keys"]
    # identical subtype and type lists share one tuple (a few dozen distinct ones for 20,000 cards)
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}

    def make(i: int) -> Card:
        (cid, name, supertype, subtypes, evolves_from, types, mark, set_id, number, rarity, fp) = rows[i]
        subtypes, types = tuple(subtypes), tuple(types)
        subtypes, types = shared.setdefault(subtypes, subtypes), shared.setdefault(types, types)
        return Card(
            cid,
            name,
            supertype,
            subtypes,
            evolves_from,
            types,
            mark,
            set_id,
            number,
            rarity,
            fp,
            *facts[set_id],
            keys[i],
        )

    cards = CardTable(ids, make)
    db = CardDB(cards=cards, sets=sets, meta=raw.get("meta", {}), version=version, path=path)
    with_cards = set(map(itemgetter(7), rows)) if len(ids) == len(rows) else {rows[i][7] for i in ids.values()}
    _index(db, directory, index, with_cards)
    return db


def _check_rows(rows: Any, facts: dict[str, tuple[str, str, str]]) -> None:
    """Every card row has the columns of :data:`FIELDS` with the types a Card needs and a known
    set (column by column, at C speed: loading checks all ~21,000 rows every time)."""
    if type(rows) is not list or set(map(type, rows)) - {list}:
        raise ValueError("the cards are not a list of rows")
    width = len(FIELDS)
    if set(map(len, rows)) - {width}:
        raise ValueError(f"a card row does not have the {width} columns {', '.join(FIELDS)}")
    # what a Card is made from and later code relies on: id, name and number are text, subtypes
    # and types are lists (the set id is checked against the sets below)
    for col, kinds in ((0, {str}), (1, {str}), (3, {list}), (5, {list}), (8, {str})):
        if set(map(type, map(itemgetter(col), rows))) - kinds:
            raise ValueError(f"a card row's {FIELDS[col]} is not a {next(iter(kinds)).__name__}")
    unknown = set(map(itemgetter(7), rows)) - facts.keys()
    if unknown:
        set_id = min(unknown)
        raise DatabaseError(f"card {next(r[0] for r in rows if r[7] == set_id)} names unknown set {set_id}")


def _usable(index: object, rows: list[Any], releases: dict[str, str], path: str | None) -> TypeGuard[dict[str, Any]]:
    """Can loading take this stored index as it is (:mod:`deckcheck.index`)?"""
    if not isinstance(index, dict) or index.get("fingerprint") != fingerprint():
        return False
    try:
        if index.get("rows") != rows_digest(rows, releases):
            raise IndexError_("it was made from other card rows")
        check_index(index, len(rows))
    except (IndexError_, TypeError) as exc:
        log.warning("card database %s: stored index not used (%s); indexing the cards at load", path or "-", exc)
        return False
    return True


def _index(db: CardDB, directory: Path | None, index: dict[str, Any], with_cards: set[str]) -> None:
    by_code: dict[str, list[str]] = {}
    for s in db.sets.values():
        for code in {s.code or "", *s.aliases} - {""}:
            by_code.setdefault(code.upper(), []).append(s.id)
    for s in db.sets.values():  # a set's id, "base1", names it when no set has it as a code
        by_code.setdefault(s.id.upper(), [s.id])
    # a set whose own code it is comes before sets that only list it as an alias (TR is Team
    # Rocket, an alias of Team Rocket Returns); a code shared by a main set and its subset
    # (SHF, CEL, BRS...) looks in the main set first
    db._by_code = {
        k: tuple(sorted(v, key=lambda sid: ((db.sets[sid].code or "").upper() != k, len(sid), sid)))
        for k, v in by_code.items()
    }
    db._aliases = _load_aliases(directory)
    try:
        db._deck_rules = load_rules(directory)
    except ValueError as exc:
        raise DatabaseError(str(exc)) from exc
    cards = db.cards
    assert isinstance(cards, CardTable)
    db._by_number = NumberTable(index["by_number"], cards)
    db._by_name = PrintingTable(index["by_name"], cards)
    db._names = list(index["by_name"])
    db._longest_name = max(map(len, db._names), default=0)
    db._newest = newest_of(db.sets.values(), with_cards)
    db._set_ids = frozenset(sid.upper() for sid in db.sets)
    db._basic_energy = {kind: cards.at(row) for kind, row in index["basic_energy"].items()}


def newest_of(sets: Iterable[CardSet], with_cards: set[str]) -> CardSet | None:
    """The latest-released of ``sets`` whose id is in ``with_cards`` (an announced set with no
    cards yet does not count); ties go to the set with the larger official count, then the id."""
    dated = [s for s in sets if s.release and s.id in with_cards]
    return max(dated, key=lambda s: (s.release, s.official_count or 0, s.id)) if dated else None


def default_path() -> Path:
    env = os.environ.get("DECKCHECK_DB")
    return Path(env) if env else data_dir() / DEFAULT_DB_FILE


def load(path: str | os.PathLike[str] | None = None) -> CardDB:
    """Read and index a database file. Raises :class:`DatabaseError` with a clear reason."""
    path = Path(path) if path else default_path()
    with _gc_paused():
        try:
            blob = path.read_bytes()
            raw = orjson.loads(gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob)
        except FileNotFoundError as exc:
            raise DatabaseError(f"card database not found at {path} (build it with 'deckcheck db build')") from exc
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            raise DatabaseError(f"card database at {path} is unreadable: {exc}") from exc
        version = hashlib.sha256(blob).hexdigest()[:12]
        try:
            return from_dict(raw, version, str(path))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatabaseError(f"card database at {path} is malformed: {exc!r}") from exc


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a database is read and indexed.

    Loading makes a few hundred thousand containers and no reference cycles; every
    collection the allocations would trigger meanwhile walks the whole growing heap (its cost:
    BENCHMARKS.md). The collector's previous state comes back afterwards (two
    loads at once leave it enabled as long as it was enabled before the first).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_lock = threading.Lock()
_current: CardDB | None = None


def get_db() -> CardDB:
    """The process-wide database, loaded on first use."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = load()
                # the database's ~400,000 objects (and what the process imported) never become
                # garbage: out of the collector's generations, no collection walks them again,
                # interpreter exit included (BENCHMARKS.md: gc.freeze), and a
                # forked worker does not touch their pages to do so
                gc.freeze()
    return _current


def set_db(db: CardDB) -> None:
    """Swap the process-wide database (a new file from ``db sync``); readers keep their reference."""
    global _current
    _current = db
