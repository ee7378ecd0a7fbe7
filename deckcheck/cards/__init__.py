"""The card database: loaded once per process, shared read-only (:func:`get_db`).

The database's values are in :mod:`deckcheck.cards.printings` (plain value classes,
:mod:`deckcheck.value`), the database object and card resolution in :mod:`deckcheck.cards.db`
(with its bases: the index of usual lines in :mod:`deckcheck.cards.usuallines`, the date rules in
:mod:`deckcheck.cards.releases`, the names in other languages in :mod:`deckcheck.cards.inlanguage`),
the packed file read at start-up in :mod:`deckcheck.cards.pack` (with the facts it holds beside the
rows in :mod:`deckcheck.cards.packfacts`), and the watcher that swaps a new database file into a
running service in :mod:`deckcheck.cards.watch`; the names are offered here too.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from .bypass import load_bypasses
from .columns import Texts
from .db import CardDB, newest_set_info
from .dbmemos import RESOLVE_MEMO_SIZE, DBMemos
from .deckrules import load_rules
from .files import FIELDS, PRINTING_RELEASES, SCHEMA_VERSION, data_dir, database_json, read_table
from .index import IndexError_, build_index, check_index, fingerprint, number_key, number_norm, rows_digest
from .kinds import KIND_VERSION
from .pack import Packed, PackError, check_rows, decode, encode, pack_path, source_check
from .packfacts import aliases_check
from .printings import Card, CardSet, CardTable, DatabaseError, NumberTable, PrintingTable, Resolution, SetAlias

__all__ = [
    "DEFAULT_DB_FILE",
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


def _warn(message: str, *args: object) -> None:
    """Log a warning (logging is imported on the first one: loading a database needs none)."""
    import logging

    logging.getLogger(__name__).warning(message, *args)


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


def _check_set(s: Any) -> None:
    """A set record's fields are of their kinds (ValueError naming the set and the field otherwise), so a set
    read at load can never break a check later."""
    if not isinstance(s, dict):
        raise ValueError(f"a set record is not an object: {s!r:.60}")
    for key in ("id", "name", "series", "code", "release", "image"):
        value = s.get(key)
        if (value is not None or key in ("id", "name")) and not isinstance(value, str):
            raise ValueError(f"set {s.get('id')!r:.40}: {key} is not text ({value!r:.40})")
    if s.get("release"):
        dt.date.fromisoformat(s["release"])  # ValueError: "Invalid isoformat string: ..."
    aliases = s.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise ValueError(f"set {s['id']!r:.40}: aliases is not a list of text")
    local = s.get("local_codes") or {}
    if not isinstance(local, dict) or not all(isinstance(c, str) and c for c in local.values()):
        raise ValueError(f"set {s['id']!r:.40}: local_codes is not an object of codes")
    count = s.get("official_count")
    if count is not None and (type(count) is not int or count < 0):
        raise ValueError(f"set {s['id']!r:.40}: official_count is not a count ({count!r:.40})")


def _meta(raw: dict[str, Any]) -> dict[str, Any]:
    """The database's ``meta`` object (ValueError when it is not one)."""
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        raise ValueError(f"meta is not an object ({meta!r:.40})")
    return meta


def _add_local_codes(db: CardDB, records: list[dict[str, Any]]) -> None:
    """Read each set's printed codes in other languages (``E&V`` for Scarlet & Violet in French) as
    its codes, after the English ones: a code an English set has stays that set's (the build keeps
    none such; a database of one's own may)."""
    local: dict[str, tuple[str, ...]] = {}
    for s in records:
        for code in (s.get("local_codes") or {}).values():
            key = code.upper()
            if s["id"] not in local.get(key, ()):
                local[key] = (*local.get(key, ()), s["id"])
    for code, ids in local.items():
        db._by_code.setdefault(code, ids)


def release_rows(table: Any, known: Mapping[str, int]) -> dict[int, str]:
    """A database's :data:`~deckcheck.cards.files.PRINTING_RELEASES` (card id -> ISO date; absent:
    none) by row of ``known`` (card id -> row). ValueError naming the entry that is not a known
    card with a date."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ValueError(f"{PRINTING_RELEASES} is not an object")
    out = {}
    for card_id, day in table.items():
        row = known.get(card_id)
        if row is None:
            raise ValueError(f"{PRINTING_RELEASES} names unknown card {card_id!r:.40}")
        if not isinstance(day, str):
            raise ValueError(f"{PRINTING_RELEASES} of {card_id!r:.40} is not a date ({day!r:.40})")
        dt.date.fromisoformat(day)  # ValueError: "Invalid isoformat string: ..."
        out[row] = day
    return out


def _sets(records: Any) -> tuple[dict[str, CardSet], dict[str, tuple[str, str, str]]]:
    """The database's sets by id, and what a card takes from its set (code, release, series)."""
    if not isinstance(records, list):
        raise ValueError("sets is not a list")
    for record in records:
        _check_set(record)
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
        for s in records
    }
    return sets, {sid: (s.code or sid.upper(), s.release or "", s.series or "") for sid, s in sets.items()}


def from_dict(raw: dict[str, Any], version: str, path: str | None = None, directory: Path | None = None) -> CardDB:
    """Index a database dict (as written by :mod:`deckcheck.sync.build`).

    Every row is checked here, so a card made later from its row cannot fail. The lookup
    index stored in the file (:mod:`deckcheck.cards.index`) is used when this code made it, after
    a check of its shape; otherwise it is built from the rows.
    """
    if not isinstance(raw, dict):
        raise DatabaseError(f"{path or 'the file'} is not a card database (JSON {type(raw).__name__}, not an object)")
    if raw.get("schema") != SCHEMA_VERSION or raw.get("fields") != list(FIELDS):
        raise DatabaseError(f"card database {path or ''} has an unknown layout (schema {raw.get('schema')!r})")
    sets, facts = _sets(raw["sets"])
    rows = raw["cards"]
    check_rows(rows, facts.keys(), DatabaseError)
    ids = dict(zip(map(itemgetter(0), rows), range(len(rows)), strict=True))  # the last row of an id wins
    releases = {sid: f[1] for sid, f in facts.items()}
    own = raw.get(PRINTING_RELEASES) or {}
    by_row = release_rows(own, ids)
    stored = raw.get("index")
    # none, made by other code, or not of these rows: built here
    index: dict[str, Any] = (
        stored if _usable(stored, rows, releases, own, path) else build_index(rows, releases, ids, own)
    )
    keys = index["keys"]
    # identical subtype and type lists share one tuple (a few dozen distinct ones for 20,000 cards)
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}

    def make(i: int) -> Card:
        (cid, name, supertype, subtypes, evolves_from, types, mark, set_id, number, rarity, fp) = rows[i]
        subtypes, types = tuple(subtypes), tuple(types)
        subtypes, types = shared.setdefault(subtypes, subtypes), shared.setdefault(types, types)
        code, release, series = facts[set_id]
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
            code,
            by_row.get(i, release),
            series,
            keys[i],
        )

    def peek(picked: list[int]) -> list[tuple[str, str, bool]]:
        return [(row[1], row[8], row[2] == "Energy" and "Basic" in row[3]) for row in map(rows.__getitem__, picked)]

    cards = CardTable(ids, make, peek)
    db = CardDB(cards=cards, sets=sets, meta=_meta(raw), version=version, path=path)
    with_cards = set(map(itemgetter(7), rows)) if len(ids) == len(rows) else {rows[i][7] for i in ids.values()}
    _index(db, directory, index, with_cards)
    _add_local_codes(db, raw["sets"])
    return db


def from_pack(pack: Packed, version: str, path: str | None = None, directory: Path | None = None) -> CardDB:
    """The database of a checked pack (:mod:`deckcheck.cards.pack`): the same cards, index and
    answers as :func:`from_dict` of the JSON file it was made from, without reading a record."""
    header = pack.header
    if header.get("schema") != SCHEMA_VERSION:
        raise DatabaseError(f"card database {path or ''} has an unknown layout (schema {header.get('schema')!r})")
    sets, facts = _sets(header["sets"])
    values, codes = pack.values, pack.codes
    ids = dict(zip(pack.ids, range(pack.rows), strict=True))  # the last row of an id wins
    by_set = [facts[sid] for sid in values["set_id"]]
    name_c, super_c, sub_c, evo_c, types_c, mark_c, set_c, number_c, rarity_c = (
        codes[col]
        for col in ("name", "supertype", "subtypes", "evolves_from", "types", "mark", "set_id", "number", "rarity")
    )
    names, keys, supertypes, evolves_from, marks, set_ids, numbers, rarities = (
        values[col] for col in ("name", "key", "supertype", "evolves_from", "mark", "set_id", "number", "rarity")
    )
    evolves_keys = values["evolves_key"]
    # identical subtype and type lists share one tuple (each table holds every distinct one once)
    subtypes, types = [tuple(v) for v in values["subtypes"]], [tuple(v) for v in values["types"]]
    # a Card's id is read from one string, not the dict's key: a forked worker that makes the card
    # writes to no shared object (the ids dict, made before the fork, stays untouched)
    card_ids, fps = Texts.of(pack.ids), pack.fingerprints
    # each printing's kind as the pack's build worked it out, when the same version of kind_of did
    kinds = pack.kinds if header.get("kind_version") == KIND_VERSION else None
    by_row = release_rows(header[PRINTING_RELEASES], ids)

    def make(i: int) -> Card:
        name, s, evolves = name_c[i], set_c[i], evo_c[i]
        code, release, series = by_set[s]
        card = Card(
            card_ids[i],
            names[name],
            supertypes[super_c[i]],
            subtypes[sub_c[i]],
            evolves_from[evolves],
            types[types_c[i]],
            marks[mark_c[i]],
            set_ids[s],
            numbers[number_c[i]],
            rarities[rarity_c[i]],
            fps[i],
            code,
            by_row.get(i, release),
            series,
            keys[name],
        )
        card._parent = evolves_keys[evolves]
        if kinds is not None:
            card._kind = kinds[i]
        return card

    energy_super = {i for i, v in enumerate(supertypes) if v == "Energy"}
    basic_sub = {i for i, v in enumerate(subtypes) if "Basic" in v}

    def peek(rows: list[int]) -> list[tuple[str, str, bool]]:
        return [
            (names[name_c[i]], numbers[number_c[i]], super_c[i] in energy_super and sub_c[i] in basic_sub) for i in rows
        ]

    cards = CardTable(ids, make, peek)
    db = CardDB(cards=cards, sets=sets, meta=_meta(header), version=version, path=path)
    kept = set(set_c) if len(ids) == pack.rows else {set_c[i] for i in ids.values()}
    index = {**header["index"], "by_name": pack.by_name, "by_number": pack.by_number}
    index["basic_energy"] = header["basic_energy"]
    _index(db, directory, index, {set_ids[c] for c in kept})
    # both read set codes through the set-alias table: with another table than the pack was made with,
    # the index of usual lines is made code by code and legality worked out, as without a pack
    if header["usual"]["aliases"] == aliases_check(db):
        db._usual.packed = pack.usual
        db._legality = pack.legality
    _add_local_codes(db, header["sets"])
    return db


def pack_of(
    raw: dict[str, Any], source: bytes, legality: Callable[[CardDB], Mapping[str, dict[str, Any]]] | None = None
) -> bytes:
    """The pack (:mod:`deckcheck.cards.pack`) of the database dict ``raw`` (with its index), whose
    JSON file's bytes are ``source``: with the index of usual lines of every set code, made as a
    load of that file without a pack makes it (:meth:`~deckcheck.cards.db.CardDB.index_usual_lines`),
    and what ``legality`` answers of that database (the formats' legality of every row by format id:
    :func:`deckcheck.sync.write.shipped_legality`; the card database imports no format)."""
    db = from_dict(raw, "pack")
    db.index_usual_lines()
    return encode(raw, source, db.printed_lines(), aliases_check(db), legality(db) if legality else None)


def _usable(
    index: object, rows: list[Any], releases: dict[str, str], own: dict[str, str], path: str | None
) -> TypeGuard[dict[str, Any]]:
    """Can loading take this stored index as it is (:mod:`deckcheck.cards.index`)?"""
    if not isinstance(index, dict) or index.get("fingerprint") != fingerprint():
        return False
    try:
        if index.get("rows") != rows_digest(rows, releases, own):
            raise IndexError_("it was made from other card rows")
        check_index(index, len(rows))
    except (IndexError_, TypeError) as exc:
        _warn("card database %s: stored index not used (%s); indexing the cards at load", path or "-", exc)
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
        db._deck_rules, db._not_tournament = load_rules(directory)
        db._bypasses = load_bypasses(directory)
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
    """Read and index a database file, through its pack when there is one made from this very
    file (:mod:`deckcheck.cards.pack`). Raises :class:`DatabaseError` with a clear reason."""
    path = Path(path) if path else default_path()
    with _gc_paused():
        try:
            blob = path.read_bytes()
        except FileNotFoundError as exc:
            raise DatabaseError(f"card database not found at {path} (build it with 'deckcheck db build')") from exc
        except OSError as exc:
            raise DatabaseError(f"card database at {path} is unreadable: {exc}") from exc
        pack = _pack(path, blob)
        if pack is not None:  # the version is the SHA-256 of the JSON the pack records, checked against it
            try:
                return from_pack(pack, pack.header["source"][:12], str(path))
            except (KeyError, TypeError, ValueError) as exc:
                raise DatabaseError(f"card database pack at {pack_path(path)} is malformed: {exc!r}") from exc
        from hashlib import sha256  # only the JSON without a pack: not on a start's path

        version = sha256(blob).hexdigest()[:12]
        try:  # the JSON database without a pack: read record by record
            raw = orjson.loads(database_json(blob))
        except ValueError as exc:  # broken gzip, too large, not JSON
            raise DatabaseError(f"card database at {path} is unreadable: {exc}") from exc
        try:
            return from_dict(raw, version, str(path))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # any JSON of another shape
            raise DatabaseError(f"card database at {path} is malformed: {exc!r}") from exc


def _pack(path: Path, blob: bytes) -> Packed | None:
    """The checked pack beside ``path`` when there is one made from its bytes ``blob`` (their length
    and CRC-32, :func:`~deckcheck.cards.pack.source_check`) by this code; None when there is none,
    or one of another file or index code (logged: the JSON is read instead). A damaged pack fails the
    load: it never passes for the database, and the JSON beside it is not read in its place unnoticed."""
    where = pack_path(path)
    try:
        data = where.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatabaseError(f"card database pack at {where} is unreadable: {exc}") from exc
    try:
        pack = decode(data)
    except PackError as exc:
        remedy = f"delete it, or write it again with 'deckcheck db pack --db {path}'"
        raise DatabaseError(f"card database pack at {where} is {exc} ({remedy})") from exc
    if pack.header.get("source_check") != source_check(blob):
        _warn("card database pack %s was made from another file than %s: not used", where, path)
        return None
    if pack.header.get("fingerprint") != fingerprint():
        _warn("card database pack %s was made by other index code: not used", where)
        return None
    return pack


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
