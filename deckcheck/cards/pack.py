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
                  "by_name", "basic_energy", "index", "usual", "legality",
                  "sections": [[name, kind, count, bytes], ...]}
    sections, in the header's order: "text" (UTF-8 values joined by NUL), "fixed" (UTF-8
    values of one length, one after the other), "u8", "u16" and "u32" (little-endian arrays
    of unsigned integers)

Columns with few distinct values (name, supertype, subtypes, number, set id...) are a table of
values in the header and one code per row; the id and fingerprint columns and the ``by_number``
keys are text; ``by_name`` and ``by_number`` store each key's number of rows (``sizes``) and
all rows one key after the other (``rows``); the index's other tables, if any, are in the header
as the JSON has them. The index of usual lines (:mod:`deckcheck.cards.usuallines`, every set
code's) is an open-addressing hash table read in place (:class:`UsualTable`). Each shipped
format's legality of every row is four columns (``legality.<format id>.sizes``, ``starts``,
``via``, ``ban``: :class:`StoredLegality`, made by :mod:`deckcheck.formats.stored`), with the
digest of the pool and bans it was made from in the header.

The digests guard against damage (a cut or changed file), not against a forger, who can write a
pack as well as the JSON beside it: CRC-32 reads a file at a fraction of SHA-256's cost, and a
load pays one pass over each file. Every row is checked when the pack is written (:func:`check_rows`, then
the written pack is read back), so reading checks what a damaged or forged file could break: the digest,
the lengths, the offsets, the codes and row numbers in range and the tables' values' types. A
pack that fails one of them fails the load with what is wrong (:class:`PackError`).
"""

from __future__ import annotations

import hashlib
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
from .files import FIELDS, SCHEMA_VERSION
from .index import fingerprint

MAGIC = b"DCKPACK\x00"
#: bump when the layout changes; a pack of another format fails its load (rebuild it)
FORMAT = 2
#: the magic bytes, the format, the header's length and the digest (u32 each, little-endian)
_PREFIX_SIZE = 8 + 4 + 4 + 4
#: joins the values of a text section (never part of a value: checked when written)
_NUL = "\x00"
#: the columns stored as a table of values and a code per row (``name`` also gives the row's name key)
CODED = ("name", "supertype", "subtypes", "evolves_from", "types", "mark", "set_id", "number", "rarity")
#: per column: the types its table's values may have
_VALUE_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "supertype": (str,),
    "subtypes": (list,),
    "evolves_from": (str, type(None)),
    "types": (list,),
    "mark": (str, type(None)),
    "set_id": (str,),
    "number": (str,),
    "rarity": (str, type(None)),
}
_COL = {name: i for i, name in enumerate(FIELDS)}
_NUMBERS = ("u8", "u16", "u32")
#: the parts of the index the pack holds in columns (the others go in its header as they are)
_PACKED = frozenset({"fingerprint", "rows", "keys", "by_name", "by_number", "basic_energy"})
#: the sections a pack has, and the kinds each may be
_KINDS: dict[str, tuple[str, ...]] = {
    **{col: _NUMBERS for col in CODED},
    "id": ("text",),
    "fingerprint": ("text", "fixed"),
    "by_number.keys": ("text",),
    **{f"{part}.{what}": _NUMBERS for part in ("by_name", "by_number") for what in ("sizes", "rows")},
    **{f"usual.{what}": _NUMBERS for what in ("slots", "rows", "names", "codes", "numbers")},
    "usual.hashes": ("u32",),
}
#: the columns of the index of usual lines, one value per entry (``usual.slots`` is the hash table)
_USUAL = ("hashes", "rows", "names", "codes", "numbers")
_ITEM = {"u8": "B", "u16": "H", "u32": "I"}
if array("H").itemsize != 2 or array("I").itemsize != 4:  # pragma: no cover - every platform CPython runs on
    raise ImportError("deckcheck.cards.pack needs 2-byte 'H' and 4-byte 'I' arrays")


class PackError(ValueError):
    """A packed database is damaged, of another format or inconsistent."""


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


def _kind(top: int) -> str:
    """The narrowest array kind that holds the integers 0 to ``top``."""
    return "u8" if top < 1 << 8 else "u16" if top < 1 << 16 else "u32"


def _ints(values: Sequence[int], kind: str) -> bytes:
    out = array(_ITEM[kind], values)
    if sys.byteorder == "big":  # pragma: no cover - the file is little-endian
        out.byteswap()
    return out.tobytes()


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
    (:func:`aliases_check`), and the legality of every row in each format of ``legality`` (format id
    -> its runs, :func:`deckcheck.formats.stored.legality_columns`): :func:`deckcheck.cards.pack_of`.
    The rows are checked here (:func:`check_rows`)."""
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
            else _ints(values, kind)
        )
        sections.append([name, kind, len(values), len(blob)])
        blobs.append(blob)

    values: dict[str, list[Any]] = {}
    for col in CODED:
        values[col], codes = _coded([r[_COL[col]] for r in rows])
        add(col, _kind(len(values[col]) - 1), codes)
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
        add(f"{part}.sizes", _kind(max(sizes, default=0)), sizes)
        add(f"{part}.rows", _kind(n - 1), [i for group in table.values() for i in group])
    usual = _usual_lines(usual, values["name"], n, add)
    usual["aliases"] = aliases
    digests: dict[str, dict[str, Any]] = {}
    for format_id, runs in sorted((legality or {}).items()):
        if len(runs["sizes"]) != n:
            raise PackError(f"the legality in format {format_id} is not of {n} rows")
        # a run's first day as days after the format's first (a row's first run: 0, never compared)
        epoch = min(filter(None, runs["starts"]), default=1) - 1
        starts = [day - epoch if day else 0 for day in runs["starts"]]
        digests[format_id] = {"digest": runs["digest"], "epoch": epoch}
        add(f"legality.{format_id}.offsets", "u32", list(accumulate(runs["sizes"], initial=0)))
        add(f"legality.{format_id}.starts", _kind(max(starts, default=0)), starts)
        add(f"legality.{format_id}.via", _kind(n), runs["via"])
        add(f"legality.{format_id}.ban", _kind(max(runs["ban"], default=0)), runs["ban"])
    header = {
        "source": hashlib.sha256(source).hexdigest(),
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


def _usual_lines(table: Mapping[str, Sequence[Any]], names: list[str], n: int, add: Any) -> dict[str, Any]:
    """Add the sections of the index of usual lines ``table`` and answer what the header holds of it:
    the names that are not a card's name column value (other spellings), and the set codes and
    numbers the entries name."""
    spelled: dict[str, int] = {name: i for i, name in enumerate(names)}
    extras: list[str] = []
    codes: dict[str, int] = {}
    numbers: dict[str, int] = {}
    columns: dict[str, list[int]] = {what: [] for what in _USUAL}
    for rest, (row, name, code, number) in sorted(table.items()):  # in one order, whatever the codes' order
        if type(row) is not int:
            raise PackError("the index of usual lines holds a card, not a row")  # a fresh database holds rows
        spelling = spelled.get(name)
        if spelling is None:
            spelling = spelled[name] = len(names) + len(extras)
            extras.append(name)
        columns["hashes"].append(zlib.crc32(rest.encode()))
        columns["rows"].append(row)
        columns["names"].append(spelling)
        columns["codes"].append(codes.setdefault(code, len(codes)))
        columns["numbers"].append(numbers.setdefault(number, len(numbers)))
    entries = len(table)
    size = 8
    while size < 2 * entries:  # at most half full: a miss meets an empty slot within a few
        size *= 2
    slots = [0] * size
    mask = size - 1
    for entry, h in enumerate(columns["hashes"], start=1):
        at = h & mask
        while slots[at]:
            at = (at + 1) & mask
        slots[at] = entry
    add("usual.slots", _kind(entries), slots)
    add("usual.hashes", "u32", columns["hashes"])
    add("usual.rows", _kind(max(n - 1, 0)), columns["rows"])
    add("usual.names", _kind(len(names) + len(extras)), columns["names"])
    add("usual.codes", _kind(len(codes)), columns["codes"])
    add("usual.numbers", _kind(len(numbers)), columns["numbers"])
    return {"names": extras, "codes": list(codes), "numbers": list(numbers)}


def aliases_check(db: Any) -> int:
    """The CRC-32 of a database's set-alias table (``data/set-aliases.csv``, read at load): which
    codes the index of usual lines looks up depends on it, so a pack's index is used only with the
    table it was made with."""
    rows = sorted((code, a.sets, a.prefix, a.offset, a.action) for code, a in db._aliases.items())
    return zlib.crc32(orjson.dumps(rows))


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


class Texts(Sequence[str]):
    """A text column as one string and each value's offsets: reading a value makes a new string
    (a forked worker writes to no shared object when it reads one)."""

    __slots__ = ("_offsets", "_text")

    def __init__(self, text: str, offsets: array[int]) -> None:
        self._text, self._offsets = text, offsets

    @classmethod
    def of(cls, values: list[str]) -> Texts:
        return cls("".join(values), array("I", list(accumulate(map(len, values), initial=0))))

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # one value, no slices
        return self._text[self._offsets[i] : self._offsets[i + 1]]

    def __len__(self) -> int:
        return len(self._offsets) - 1


class Fixed(Sequence[str]):
    """A text column of values of one length, one after the other in one string."""

    __slots__ = ("_count", "_text", "_width")

    def __init__(self, text: str, width: int, count: int) -> None:
        self._text, self._width, self._count = text, width, count

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # one value, no slices
        if not 0 <= i < self._count:
            raise IndexError(i)
        return self._text[i * self._width : (i + 1) * self._width]

    def __len__(self) -> int:
        return self._count


class UsualTable(Mapping[str, tuple[int, str, str, str]]):
    """The index of usual lines as the pack holds it, read in place: the text of a usual line after its
    count (``Nest Ball SVI 181``) -> (the printing's row, name, set code, number as the line writes
    them). An open-addressing hash table over the text's CRC-32 (``slots``: an entry's number + 1, 0
    for none; at most half full), whose entries are columns of codes into the tables of names, set
    codes and numbers; a hit is the entry whose parts make the text again."""

    __slots__ = ("_slots", "_mask", "_hashes", "_rows", "_names", "_spellings", "_split", "_codes", "_numbers")

    def __init__(self, columns: dict[str, Any], names: list[str], usual: dict[str, Any]) -> None:
        self._slots: array[int] = columns["usual.slots"]
        self._mask = len(self._slots) - 1
        self._hashes: array[int] = columns["usual.hashes"]
        self._rows: array[int] = columns["usual.rows"]
        self._names: array[int] = columns["usual.names"]
        self._codes: array[int] = columns["usual.codes"]
        self._numbers: array[int] = columns["usual.numbers"]
        self._spellings: list[str] = names + usual["names"]  # a name's code indexes the card names, then the others
        self._split = (usual["codes"], usual["numbers"])

    def get(self, rest: str, default: Any = None) -> Any:
        """``(row, name, set code, number)`` of the line text ``rest``, or ``default``."""
        h = zlib.crc32(rest.encode())
        slots, hashes, mask = self._slots, self._hashes, self._mask
        at = h & mask
        entry = slots[at]
        while entry:
            entry -= 1
            if hashes[entry] == h:
                codes, numbers = self._split
                name, code = self._spellings[self._names[entry]], codes[self._codes[entry]]
                number = numbers[self._numbers[entry]]
                if len(rest) == len(name) + len(code) + len(number) + 2 and rest == f"{name} {code} {number}":
                    return (self._rows[entry], name, code, number)
            at = (at + 1) & mask
            entry = slots[at]
        return default

    def entries(self) -> Iterator[tuple[str, tuple[int, str, str, str]]]:
        """Every entry as (its text, (row, name, set code, number)), in the table's order."""
        codes, numbers = self._split
        spellings, names, code_of, number_of, rows = (
            self._spellings,
            self._names,
            self._codes,
            self._numbers,
            self._rows,
        )
        for entry in range(len(rows)):
            name, code, number = spellings[names[entry]], codes[code_of[entry]], numbers[number_of[entry]]
            yield f"{name} {code} {number}", (rows[entry], name, code, number)

    def _key(self, entry: int) -> str:
        codes, numbers = self._split
        name = self._spellings[self._names[entry]]
        return f"{name} {codes[self._codes[entry]]} {numbers[self._numbers[entry]]}"

    def __getitem__(self, rest: str) -> tuple[int, str, str, str]:
        hit = self.get(rest)
        if hit is None:
            raise KeyError(rest)
        return hit  # type: ignore[no-any-return]

    def __contains__(self, rest: object) -> bool:
        return type(rest) is str and self.get(rest) is not None

    def __iter__(self) -> Iterator[str]:
        return map(self._key, range(len(self._rows)))

    def __len__(self) -> int:
        return len(self._rows)


class StoredLegality:
    """A format's legality of every row as the pack holds it (:mod:`deckcheck.formats.stored`): per
    row, runs of days (``starts``, proleptic ordinals, the first of each row's runs the earliest day)
    over which the answer stays (``via``: the row that makes it legal + 1, 0 for none; ``ban``: the
    ban's index in the format's bans + 1, 0 for none); a start is days after ``epoch`` (an ordinal).
    ``digest`` says which pool and bans made it. Row ``r``'s runs are ``offsets[r]`` to
    ``offsets[r + 1]``."""

    __slots__ = ("digest", "_epoch", "_offsets", "_starts", "_via", "_ban")

    def __init__(
        self, made: dict[str, Any], offsets: array[int], starts: array[int], via: array[int], ban: array[int]
    ) -> None:
        self.digest: str = made["digest"]
        self._epoch: int = made["epoch"]
        self._offsets, self._starts, self._via, self._ban = offsets, starts, via, ban

    def bans_within(self, count: int) -> bool:
        """Does every run name one of ``count`` bans or none (a format with fewer cannot take these runs)?"""
        return _below(self._ban, count + 1)

    def answer(self, row: int, day: int) -> tuple[int, int]:
        """(via + 1, ban + 1) of row ``row`` on the day of ordinal ``day``: its last run begun by then."""
        offsets = self._offsets
        starts, day = self._starts, day - self._epoch
        at = offsets[row + 1] - 1
        first = offsets[row]
        while at > first and starts[at] > day:
            at -= 1
        return self._via[at], self._ban[at]


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
        elif kind in _ITEM:
            numbers = array(_ITEM[kind])
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
        wanted.update({f"legality.{format_id}.{what}": _NUMBERS for what in ("starts", "via", "ban")})
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
    for col in (*CODED, "id", "fingerprint"):
        if len(columns.get(col, ())) != n:
            raise PackError(f"column {col} does not have {n} rows")
    for col, kinds in _VALUE_TYPES.items():
        table = values[col]
        if set(map(type, table)) - set(kinds):
            raise PackError(f"a value of column {col} is not a {kinds[0].__name__}")
        if not _below(columns[col], len(table)):
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
        if not _below(rows, n):
            raise PackError(f"the index's {part} table names rows that are not there")
        columns[f"{part}.offsets"] = offsets
    if type(header.get("index")) is not dict or set(header["index"]) & _PACKED:
        raise PackError("the header's other index tables are malformed")
    _check_usual(header, columns, n)
    for format_id in header["legality"]:
        _check_legality(format_id, columns, n)
    energy = header["basic_energy"]
    if type(energy) is not dict or set(map(type, energy.values())) - {int}:
        raise PackError("the index's basic_energy table is malformed")
    if energy and (min(energy.values()) < 0 or max(energy.values()) >= n):
        raise PackError("the index's basic_energy table names rows that are not there")


def _check_usual(header: dict[str, Any], columns: dict[str, Any], n: int) -> None:
    """The index of usual lines :class:`UsualTable` reads: its tables are lists of text, each entry's
    codes are in range, and its hash table has a power-of-two size with exactly one slot per entry
    (so a look-up of a text that is not there meets an empty slot)."""
    source, check = header.get("source"), header.get("source_check")
    if type(source) is not str or len(source) != 64 or type(check) is not list or set(map(type, check)) - {int}:
        raise PackError("the header's source is malformed")
    usual = header.get("usual")
    if type(usual) is not dict or type(usual.get("aliases")) is not int:
        raise PackError("the index of usual lines is malformed")
    tops = {"rows": n, "names": len(header["values"]["name"]), "codes": 0, "numbers": 0}
    for what in ("names", "codes", "numbers"):
        table = usual.get(what)
        if type(table) is not list or set(map(type, table)) - {str}:
            raise PackError(f"the index of usual lines' {what} table is malformed")
        tops[what] += len(table)
    entries = len(columns["usual.hashes"])
    for what in _USUAL:
        if len(columns[f"usual.{what}"]) != entries:
            raise PackError(f"the index of usual lines' {what} column does not have {entries} entries")
        if what in tops and not _below(columns[f"usual.{what}"], tops[what]):
            raise PackError(f"the index of usual lines' {what} column has a code out of range")
    slots = columns["usual.slots"]
    size = len(slots)
    if size <= entries or size & (size - 1) or not _below(slots, entries + 1) or _zeros(slots) != size - entries:
        raise PackError("the index of usual lines' hash table is malformed")


def _check_legality(format_id: str, columns: dict[str, Any], n: int) -> None:
    """A format's stored legality (:class:`StoredLegality`): an offset per row and one more, from the
    first run to the last, none past it, the runs' columns of one length and each run's printing a
    row: what a look-up could break (a forger's offsets out of order give wrong answers, as any
    forged answer does; the digests catch damage)."""
    part = f"legality.{format_id}"
    offsets, starts, via, ban = (columns[f"{part}.{what}"] for what in ("offsets", "starts", "via", "ban"))
    if len(offsets) != n + 1:
        raise PackError(f"the legality in format {format_id} is not of {n} rows")
    if offsets[0] != 0 or offsets[-1] != len(starts) or len(via) != len(starts) or len(ban) != len(starts):
        raise PackError(f"the legality in format {format_id} does not hold the runs its offsets say")
    if not _below(offsets, len(starts) + 1):
        raise PackError(f"the legality in format {format_id} has an offset past its runs")
    if not _below(via, n + 1):
        raise PackError(f"the legality in format {format_id} names rows that are not there")


def _zeros(values: array[int]) -> int:
    """How many values of an unsigned array are 0 (one or two bytes per value: at C speed)."""
    if values.typecode == "B":
        return values.tobytes().count(0)
    if values.typecode != "H":
        return values.count(0)
    raw, zero = values.tobytes(), bytes([1] + [0] * 255)
    both = int.from_bytes(raw[0::2].translate(zero), "little") & int.from_bytes(raw[1::2].translate(zero), "little")
    return both.bit_count()


def _below(values: array[int], top: int) -> bool:
    """Is every value of an unsigned array below ``top``? Byte by byte at C speed: one byte per value,
    a translate; two bytes, translates of the high and the low bytes (``max`` would make an int of
    every value)."""
    if values.typecode == "B":
        return not values.tobytes().translate(None, bytes(range(min(top, 256))))
    if values.typecode != "H" or top >= 1 << 16:
        return not values or max(values) < top
    raw = values.tobytes()
    high, low = (raw[1::2], raw[0::2]) if sys.byteorder == "little" else (raw[0::2], raw[1::2])
    cut, floor = top >> 8, top & 0xFF
    if high.translate(None, bytes(range(cut + 1))):  # a high byte over top's
        return False
    # a value whose high byte is top's and whose low byte is top's or more: a bit set in both masks
    at_cut = high.translate(bytes(int(b == cut) for b in range(256)))
    over = low.translate(bytes(int(b >= floor) for b in range(256)))
    return not int.from_bytes(at_cut, "little") & int.from_bytes(over, "little")
