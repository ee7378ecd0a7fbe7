"""The packed card database: the JSON database's rows and lookup index as columns, read at start-up
without parsing a record.

``data/cards.json.gz`` stays the database (what ``db build`` and ``db sync`` write, ``db publish``
serves and ``db pull`` fetches, and what tools read). Beside it, ``cards.json.gz.pack`` holds
the same rows and index (:mod:`deckcheck.cards.index`) in columns, written from the same dict by
``sync.write.write_database`` (and by ``db pull`` from the file it fetched), and recording the
JSON file it was made from (its SHA-256, the database's version, and its length and CRC-32, which
a load compares: :func:`source_check`): :func:`deckcheck.cards.load` uses it only for that file,
and reads the JSON the slow way when there is no pack, or a pack of other bytes or made by other
index code. The pack is data, never code (no pickle, no marshal)::

    b"DCKPACK\\0"  u32 format  u32 header length  u32 CRC-32 of everything after it
    header: JSON {"source", "source_check", "fingerprint", "schema", "meta", "sets", "rows", "values",
                  "by_name", "basic_energy", "index", "usual", "legality", "printing_releases",
                  "sections": [[name, kind, count, bytes], ...]}
    sections, in the header's order: "text" (UTF-8 values joined by NUL), "fixed" (UTF-8
    values of one length, one after the other), "u8", "u16" and "u32" (little-endian arrays
    of unsigned integers)

Columns with few distinct values (name, supertype, subtypes, number, set id...) are a table of
values in the header and one code per row; the id and fingerprint columns and the ``by_number``
keys are text; ``by_name`` and ``by_number`` store each key's number of rows (``sizes``) and
all rows one key after the other (``rows``); the index's other tables, if any, are in the header
as the JSON has them. The index of usual lines (:mod:`deckcheck.cards.usuallines`, every set
code's) is an open-addressing hash table read in place (:class:`~deckcheck.cards.packfacts.UsualTable`). Each shipped
format's legality of every row is four columns (``legality.<format id>.offsets``, ``starts``,
``via``, ``ban``: :class:`~deckcheck.cards.packfacts.StoredLegality`, made by :mod:`deckcheck.formats.stored`), with the
digest of the pool and bans it was made from in the header; like the index of usual lines, it is used
only with the set-alias table it was made with.

The digests guard against damage (a cut or changed file), not against a forger, who can write a
pack as well as the JSON beside it: CRC-32 reads a file at a fraction of SHA-256's cost, and a
load pays one pass over each file. Every row is checked when the pack is written (:func:`check_rows`, then
the written pack is read back), so reading checks what a damaged or forged file could break: the digest,
the lengths, the offsets, the codes and row numbers in range and the tables' values' types. A
pack that fails one of them fails the load with what is wrong (:class:`PackError`).
"""

from __future__ import annotations

import os
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson

from ..names import name_key
from .columns import ITEM, NUMBERS, Fixed, Texts, all_below, int_bytes, kind_for
from .columns import PackError as PackError
from .files import FIELDS, PRINTING_RELEASES, SCHEMA_VERSION
from .index import fingerprint
from .kinds import KIND_VERSION, kind_of
from .packfacts import (
    VALUE_TYPES,
    StoredLegality,
    UsualTable,
    check_kinds,
    check_legality,
    check_usual,
    legality_columns,
    usual_columns,
)

MAGIC = b"DCKPACK\x00"
#: bump when the layout changes; a pack of another format fails its load (rebuild it)
FORMAT = 4
#: the magic bytes, the format, the header's length and the digest (u32 each, little-endian)
_PREFIX_SIZE = 8 + 4 + 4 + 4
#: joins the values of a text section (never part of a value: checked when written)
_NUL = "\x00"
#: the columns stored as a table of values and a code per row (``name`` also gives the row's name key)
CODED = ("name", "supertype", "subtypes", "evolves_from", "types", "mark", "set_id", "number", "rarity")
_COL = {name: i for i, name in enumerate(FIELDS)}
#: the parts of the index the pack holds in columns (the others go in its header as they are)
_PACKED = frozenset({"fingerprint", "rows", "keys", "by_name", "by_number", "basic_energy"})
#: the sections a pack has, and the kinds each may be
_KINDS: dict[str, tuple[str, ...]] = {
    **{col: NUMBERS for col in CODED},
    "id": ("text",),
    "fingerprint": ("text", "fixed"),
    "by_number.keys": ("text",),
    **{f"{part}.{what}": NUMBERS for part in ("by_name", "by_number") for what in ("sizes", "rows")},
    **{f"usual.{what}": NUMBERS for what in ("slots", "rows", "names", "codes", "numbers")},
    "usual.hashes": ("u32",),
    "kind": ("u8",),
}


def pack_path(database: str | os.PathLike[str]) -> Path:
    """Where the pack of a database file lives: beside it, ``<name>.pack``."""
    path = Path(database)
    return path.with_name(path.name + ".pack")


def check_rows(rows: Any, set_ids: Any, unknown_set: type[Exception] = ValueError) -> None:
    """Every card row has the columns of :data:`FIELDS` with the types a Card needs and a known
    set (column by column, at C speed). Raises ValueError, or ``unknown_set`` for a row naming
    a set that is not in ``set_ids``."""
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
    unknown = set(map(itemgetter(7), rows)) - set_ids
    if unknown:
        set_id = min(unknown)
        raise unknown_set(f"card {next(r[0] for r in rows if r[7] == set_id)} names unknown set {set_id}")


# -- writing --------------------------------------------------------------------


def _text(values: Sequence[str], what: str) -> bytes:
    if any(_NUL in v for v in values):
        raise PackError(f"a {what} value holds a NUL character")
    return _NUL.join(values).encode("utf-8")


def _coded(values: list[Any]) -> tuple[list[Any], list[int]]:
    """A column as (its distinct values in first-seen order, each row's code)."""
    table: dict[bytes, int] = {}
    distinct: list[Any] = []
    codes = []
    for v in values:
        key = orjson.dumps(v)  # lists are values too
        code = table.get(key)
        if code is None:
            code = table[key] = len(distinct)
            distinct.append(v)
        codes.append(code)
    return distinct, codes


def source_check(source: bytes | memoryview) -> list[int]:
    """What a pack records of the JSON file it was made from, and a load compares with the file
    beside it: its length and CRC-32."""
    return [len(source), zlib.crc32(source)]


def encode(
    db: dict[str, Any],
    source: bytes,
    usual: Mapping[str, Sequence[Any]],
    aliases: int,
    legality: Mapping[str, dict[str, Any]] | None = None,
) -> bytes:
    """The pack of a database dict (``build.build``'s shape with its ``index``, made by this
    code), whose JSON file's bytes are ``source``, with its index of usual lines ``usual`` (line text
    -> (row, name, set code, number), every code's) made with the set-alias table ``aliases``
    (:func:`~deckcheck.cards.packfacts.aliases_check`), and the legality of every row in each
    format of ``legality`` (format id -> its runs, :func:`deckcheck.formats.stored.legality_columns`):
    :func:`deckcheck.cards.pack_of`. The rows are checked here (:func:`check_rows`)."""
    from hashlib import sha256  # a pack is written by a build, never at a start: not imported there

    rows, index = db["cards"], db["index"]
    if db.get("schema") != SCHEMA_VERSION or list(db.get("fields", [])) != list(FIELDS):
        raise PackError(f"unknown database layout (schema {db.get('schema')!r})")
    if index.get("fingerprint") != fingerprint():
        raise PackError("the database's index was made by other code")
    check_rows(rows, {s["id"] for s in db["sets"]}, PackError)
    n = len(rows)
    sections: list[list[Any]] = []
    blobs: list[bytes] = []

    def add(name: str, kind: str, values: Sequence[Any]) -> None:
        blob = (
            _text(values, name)
            if kind == "text"
            else "".join(values).encode()
            if kind == "fixed"
            else int_bytes(values, kind)
        )
        sections.append([name, kind, len(values), len(blob)])
        blobs.append(blob)

    values: dict[str, list[Any]] = {}
    for col in CODED:
        values[col], codes = _coded([r[_COL[col]] for r in rows])
        add(col, kind_for(len(values[col]) - 1), codes)
        if col == "name":
            keys = index["keys"]
            first: dict[int, int] = {}
            for i, c in enumerate(codes):
                first.setdefault(c, i)
            values["key"] = [keys[first[c]] for c in range(len(values["name"]))]
            if any(keys[i] != values["key"][c] for i, c in enumerate(codes)):
                raise PackError("two rows of one name have different name keys")
        if col == "evolves_from":  # the name key of each (what the deck's evolution index keys it under)
            values["evolves_key"] = [None if v is None else name_key(v) for v in values[col]]
    if set(map(type, map(itemgetter(10), rows))) - {str}:
        raise PackError("a card row's fingerprint is not a str")
    add("id", "text", [r[0] for r in rows])
    fps = [r[10] for r in rows]
    add("fingerprint", "fixed" if len(set(map(len, fps))) == 1 and fps[0] else "text", fps)
    for part in ("by_name", "by_number"):
        table: dict[str, list[int]] = index[part]
        sizes = list(map(len, table.values()))
        if part == "by_number":
            add("by_number.keys", "text", list(table))
        add(f"{part}.sizes", kind_for(max(sizes, default=0)), sizes)
        add(f"{part}.rows", kind_for(n - 1), [i for group in table.values() for i in group])
    usual = usual_columns(usual, values["name"], n, add)
    usual["aliases"] = aliases
    digests = legality_columns(legality or {}, n, add)
    sup, sub, evo = _COL["supertype"], _COL["subtypes"], _COL["evolves_from"]
    add("kind", "u8", [kind_of(r[sup], r[sub], r[evo]) for r in rows])  # what each printing is for a deck
    header = {
        "source": sha256(source).hexdigest(),
        "source_check": source_check(source),
        "fingerprint": index["fingerprint"],
        "schema": db["schema"],
        "meta": db.get("meta", {}),
        "sets": db["sets"],
        "rows": n,
        "values": values,
        "by_name": list(index["by_name"]),
        "basic_energy": index["basic_energy"],
        # any other table of the index, as the JSON has it (loading passes it on as it is)
        "index": {k: v for k, v in index.items() if k not in _PACKED},
        "usual": usual,
        "legality": digests,
        "kind_version": KIND_VERSION,
        PRINTING_RELEASES: db.get(PRINTING_RELEASES) or {},  # as the JSON has them (a few hundred)
        "sections": sections,
    }
    body = orjson.dumps(header) + b"".join(blobs)
    size = len(body) - sum(len(b) for b in blobs)
    pack = MAGIC + _u32(FORMAT) + _u32(size) + body_digest(body) + body
    decode(pack)  # what a load checks, checked before anything is written (raises PackError)
    return pack


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "little")


def body_digest(body: bytes | memoryview) -> bytes:
    """The digest a pack's prefix holds of everything after it: its CRC-32 (see the module docstring)."""
    return _u32(zlib.crc32(body))


# -- reading --------------------------------------------------------------------


class Groups(Mapping[str, Sequence[int]]):
    """An index table, key -> its rows (``rows[offsets[slot]:offsets[slot + 1]]``)."""

    __slots__ = ("_offsets", "_rows", "_slots")

    def __init__(self, keys: list[str], offsets: array[int], rows: array[int]) -> None:
        self._slots = dict(zip(keys, range(len(keys)), strict=True))
        self._offsets, self._rows = offsets, rows
        if len(self._slots) != len(keys):
            raise PackError("an index table has a key twice")

    def get(self, key: str, default: Any = None) -> Any:
        slot = self._slots.get(key)
        if slot is None:
            return default
        return self._rows[self._offsets[slot] : self._offsets[slot + 1]]

    def __getitem__(self, key: str) -> Sequence[int]:
        return self._rows[self._offsets[self._slots[key]] : self._offsets[self._slots[key] + 1]]

    def firsts(self, keys: list[str]) -> list[int]:
        """``self[key][0]`` of each key, without the slices."""
        rows, offsets, slots = self._rows, self._offsets, self._slots
        return [rows[offsets[slots[key]]] for key in keys]

    def __contains__(self, key: object) -> bool:
        return key in self._slots

    def __iter__(self) -> Iterator[str]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)


class Packed:
    """A checked pack: its header and columns (:func:`decode`)."""

    __slots__ = (
        "header",
        "rows",
        "values",
        "codes",
        "ids",
        "fingerprints",
        "by_name",
        "by_number",
        "usual",
        "legality",
        "kinds",
    )

    def __init__(self, header: dict[str, Any], columns: dict[str, Any], n: int) -> None:
        self.header, self.rows, self.values = header, n, header["values"]
        self.codes: dict[str, array[int]] = {col: columns[col] for col in CODED}
        self.ids: list[str] = columns["id"]
        fps = columns["fingerprint"]
        self.fingerprints: Sequence[str] = fps if isinstance(fps, Fixed) else Texts.of(fps)
        self.by_name = Groups(header["by_name"], columns["by_name.offsets"], columns["by_name.rows"])
        self.by_number = Groups(columns["by_number.keys"], columns["by_number.offsets"], columns["by_number.rows"])
        self.usual = UsualTable(columns, header["values"]["name"], header["usual"])
        self.kinds: array[int] = columns["kind"]
        self.legality = {
            format_id: StoredLegality(
                made,
                columns[f"legality.{format_id}.offsets"],
                *(columns[f"legality.{format_id}.{what}"] for what in ("starts", "via", "ban")),
            )
            for format_id, made in header["legality"].items()
        }


def decode(data: bytes) -> Packed:
    """Read and check a pack. Raises :class:`PackError` saying what is wrong."""
    if len(data) < _PREFIX_SIZE or data[:8] != MAGIC:
        raise PackError("not a deckcheck database pack (wrong magic bytes)")
    version, size = int.from_bytes(data[8:12], "little"), int.from_bytes(data[12:16], "little")
    digest = data[16:_PREFIX_SIZE]
    if version != FORMAT:
        raise PackError(f"pack format {version}, this deckcheck reads format {FORMAT}")
    body = memoryview(data)[_PREFIX_SIZE:]
    if size > len(body):
        raise PackError(f"truncated: the header needs {size} bytes, {len(body)} follow")
    if body_digest(body) != digest:
        raise PackError(_damage(data, body, size))
    try:
        header = orjson.loads(body[:size])
        return _columns(header, body[size:])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        if isinstance(exc, PackError):
            raise
        raise PackError(f"malformed ({exc!r})") from exc


def _damage(data: bytes, body: memoryview, size: int) -> str:
    """What a digest mismatch means: a file shorter than its header says, or a changed byte."""
    try:
        expected = size + sum(int(s[3]) for s in orjson.loads(body[:size])["sections"])
    except (ValueError, KeyError, TypeError, IndexError):
        expected = -1
    if expected > len(body):
        return f"truncated: {len(data)} bytes, its header describes {expected + _PREFIX_SIZE}"
    return "damaged: its CRC-32 does not match its contents (changed after it was written)"


def _columns(header: dict[str, Any], payload: memoryview) -> Packed:
    n = header["rows"]
    if type(n) is not int or n < 0:
        raise PackError("the header's row count is not a count")
    columns: dict[str, Any] = {}
    at = 0
    for name, kind, count, nbytes in header["sections"]:
        chunk = payload[at : at + nbytes]
        at += nbytes
        if len(chunk) != nbytes:
            raise PackError(f"section {name} is cut short")
        values: list[str] | array[int] | Fixed
        if kind == "text":
            values = str(chunk, "utf-8").split(_NUL) if count or nbytes else []
        elif kind == "fixed":  # values of one length, one after the other
            text = str(chunk, "utf-8")
            width = len(text) // count if count else 0
            if width * count != len(text) or (count and not width):
                raise PackError(f"section {name} does not hold {count} values of one length")
            values = Fixed(text, width, count)
        elif kind in ITEM:
            numbers = array(ITEM[kind])
            if nbytes != count * numbers.itemsize:
                raise PackError(f"section {name} holds {nbytes} bytes for {count} values")
            numbers.frombytes(chunk)
            if sys.byteorder == "big":  # pragma: no cover
                numbers.byteswap()
            values = numbers
        else:
            raise PackError(f"section {name} is of unknown kind {kind!r}")
        if len(values) != count:
            raise PackError(f"section {name} holds {len(values)} values, its header says {count}")
        columns[name] = values
    if at != len(payload):
        raise PackError(f"{len(payload) - at} bytes after the last section")
    kinds = {name: kind for name, kind, _count, _bytes in header["sections"]}
    legality = header.get("legality")
    if type(legality) is not dict or any(
        type(made) is not dict or type(made.get("digest")) is not str or type(made.get("epoch")) is not int
        for made in legality.values()
    ):
        raise PackError("the header's legality table is malformed")
    wanted = {**_KINDS}
    for format_id in legality:
        wanted.update({f"legality.{format_id}.{what}": NUMBERS for what in ("starts", "via", "ban")})
        wanted[f"legality.{format_id}.offsets"] = ("u32",)
    for name, allowed in wanted.items():
        if kinds.get(name) not in allowed:
            raise PackError(f"section {name} is missing or of kind {kinds.get(name)!r}")
    _check(header, columns, n)
    return Packed(header, columns, n)


def _check(header: dict[str, Any], columns: dict[str, Any], n: int) -> None:
    """The structure a Card and the lookups rely on (all at C speed); adds each index table's
    offsets (``<part>.offsets``, from its group sizes)."""
    values = header["values"]
    set_ids = {s["id"] for s in header["sets"]}
    for col in (*CODED, "id", "fingerprint", "kind"):
        if len(columns.get(col, ())) != n:
            raise PackError(f"column {col} does not have {n} rows")
    for col, kinds in VALUE_TYPES.items():
        table = values[col]
        if set(map(type, table)) - set(kinds):
            raise PackError(f"a value of column {col} is not a {kinds[0].__name__}")
        if not all_below(columns[col], len(table)):
            raise PackError(f"column {col} has a code out of range")
    for col in ("subtypes", "types"):
        if any(set(map(type, v)) - {str} for v in values[col]):
            raise PackError(f"a value of column {col} is not a list of text")
    evolves_keys = values["evolves_key"]
    if len(evolves_keys) != len(values["evolves_from"]) or set(map(type, evolves_keys)) - {str, type(None)}:
        raise PackError("the name keys do not match the names evolved from")
    if len(values["key"]) != len(values["name"]) or set(map(type, values["key"])) - {str}:
        raise PackError("the name keys do not match the names")
    if set(values["set_id"]) - set_ids:
        raise PackError(f"a card names unknown set {min(set(values['set_id']) - set_ids)}")
    for part, keys in (("by_name", header["by_name"]), ("by_number", columns.get("by_number.keys"))):
        sizes, rows = columns.get(f"{part}.sizes"), columns.get(f"{part}.rows")
        if type(keys) is not list or set(map(type, keys)) - {str} or sizes is None or rows is None:
            raise PackError(f"the index's {part} table is malformed")
        # every key has rows (sizes are unsigned, so the offsets increase), and they end at the last row
        if len(sizes) != len(keys) or (0 in sizes.tobytes() if sizes.typecode == "B" else 0 in sizes):
            raise PackError(f"the index's {part} table has a key without rows")
        try:
            offsets = array("I", accumulate(sizes, initial=0))
        except OverflowError:  # forged sizes whose sum passes 2**32 (the offsets are u32)
            raise PackError(f"the index's {part} groups hold {sum(sizes)} rows, not {len(rows)}") from None
        if offsets[-1] != len(rows):
            raise PackError(f"the index's {part} groups hold {offsets[-1]} rows, not {len(rows)}")
        if not all_below(rows, n):
            raise PackError(f"the index's {part} table names rows that are not there")
        columns[f"{part}.offsets"] = offsets
    if type(header.get("index")) is not dict or set(header["index"]) & _PACKED:
        raise PackError("the header's other index tables are malformed")
    releases = header.get(PRINTING_RELEASES)
    if type(releases) is not dict or set(map(type, releases.values())) - {str}:
        raise PackError(f"the header's {PRINTING_RELEASES} table is malformed")
    check_usual(header, columns, n)
    check_kinds(header, columns["kind"])
    for format_id in header["legality"]:
        check_legality(format_id, columns, n)
    energy = header["basic_energy"]
    if type(energy) is not dict or set(map(type, energy.values())) - {int}:
        raise PackError("the index's basic_energy table is malformed")
    if energy and (min(energy.values()) < 0 or max(energy.values()) >= n):
        raise PackError("the index's basic_energy table names rows that are not there")
