"""The facts the card database's pack holds beside the rows (:mod:`deckcheck.cards.pack`), worked
out when it is written and read in place: the index of usual lines of every set code
(:class:`UsualTable`) and each shipped format's legality of every row (:class:`StoredLegality`),
with what a load checks of them and what writing them takes."""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import Any

import orjson

from .columns import PackError, all_below, kind_for, zeros
from .kinds import KIND_VALUES

#: the columns of the index of usual lines, one value per entry (``usual.slots`` is the hash table)
USUAL = ("hashes", "rows", "names", "codes", "numbers")


def usual_columns(table: Mapping[str, Sequence[Any]], names: list[str], n: int, add: Any) -> dict[str, Any]:
    """Add the sections of the index of usual lines ``table`` and answer what the header holds of it:
    the names that are not a card's name column value (other spellings), and the set codes and
    numbers the entries name."""
    spelled: dict[str, int] = {name: i for i, name in enumerate(names)}
    extras: list[str] = []
    codes: dict[str, int] = {}
    numbers: dict[str, int] = {}
    columns: dict[str, list[int]] = {what: [] for what in USUAL}
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
    add("usual.slots", kind_for(entries), slots)
    add("usual.hashes", "u32", columns["hashes"])
    add("usual.rows", kind_for(max(n - 1, 0)), columns["rows"])
    add("usual.names", kind_for(len(names) + len(extras)), columns["names"])
    add("usual.codes", kind_for(len(codes)), columns["codes"])
    add("usual.numbers", kind_for(len(numbers)), columns["numbers"])
    return {"names": extras, "codes": list(codes), "numbers": list(numbers)}


def legality_columns(legality: Mapping[str, dict[str, Any]], n: int, add: Any) -> dict[str, dict[str, Any]]:
    """Add the sections of each format's legality of the ``n`` rows (format id -> its runs,
    :func:`deckcheck.formats.stored.legality_columns`) and answer what the header holds of them: by
    format id, the digest of the pool and bans they were made from and the day the starts count from."""
    made: dict[str, dict[str, Any]] = {}
    for format_id, runs in sorted(legality.items()):
        if len(runs["sizes"]) != n:
            raise PackError(f"the legality in format {format_id} is not of {n} rows")
        # a run's first day as days after the format's first (a row's first run: 0, never compared)
        epoch = min(filter(None, runs["starts"]), default=1) - 1
        starts = [day - epoch if day else 0 for day in runs["starts"]]
        made[format_id] = {"digest": runs["digest"], "epoch": epoch}
        add(f"legality.{format_id}.offsets", "u32", list(accumulate(runs["sizes"], initial=0)))
        add(f"legality.{format_id}.starts", kind_for(max(starts, default=0)), starts)
        add(f"legality.{format_id}.via", kind_for(n), runs["via"])
        add(f"legality.{format_id}.ban", kind_for(max(runs["ban"], default=0)), runs["ban"])
    return made


def aliases_check(db: Any) -> int:
    """The CRC-32 of a database's set-alias table (``data/set-aliases.csv``, read at load): which
    codes the index of usual lines looks up, which printings a ban by set code covers and which sets
    a rotation by sets holds depend on it, so a pack's index and legality are used only with the
    table they were made with."""
    rows = sorted((code, a.sets, a.prefix, a.offset, a.action) for code, a in db._aliases.items())
    return zlib.crc32(orjson.dumps(rows))


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
        h = zlib.crc32(rest.encode("utf-8", "surrogatepass"))  # a lone surrogate is in no entry: a miss, not an error
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
        return all_below(self._ban, count + 1)

    def answer(self, row: int, day: int) -> tuple[int, int]:
        """(via + 1, ban + 1) of row ``row`` on the day of ordinal ``day``: its last run begun by then."""
        offsets = self._offsets
        starts, day = self._starts, day - self._epoch
        at = offsets[row + 1] - 1
        first = offsets[row]
        while at > first and starts[at] > day:
            at -= 1
        return self._via[at], self._ban[at]


def check_usual(header: dict[str, Any], columns: dict[str, Any], n: int) -> None:
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
    for what in USUAL:
        if len(columns[f"usual.{what}"]) != entries:
            raise PackError(f"the index of usual lines' {what} column does not have {entries} entries")
        if what in tops and not all_below(columns[f"usual.{what}"], tops[what]):
            raise PackError(f"the index of usual lines' {what} column has a code out of range")
    slots = columns["usual.slots"]
    size = len(slots)
    if size <= entries or size & (size - 1) or not all_below(slots, entries + 1) or zeros(slots) != size - entries:
        raise PackError("the index of usual lines' hash table is malformed")


#: per column: the types its table's values may have
VALUE_TYPES: dict[str, tuple[type, ...]] = {
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


def check_kinds(header: dict[str, Any], kinds: array[int]) -> None:
    """The pack's ``kind`` column (:mod:`deckcheck.cards.kinds`): each value one a printing can have (the
    deck's tally is indexed by its low bits), and the header saying which version made it."""
    if type(header.get("kind_version")) is not int:
        raise PackError("the header's kind_version is not a number")
    if kinds.tobytes().translate(None, bytes(sorted(KIND_VALUES))):
        raise PackError("the kind column has a value no printing can have")


def check_legality(format_id: str, columns: dict[str, Any], n: int) -> None:
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
    if not all_below(offsets, len(starts) + 1):
        raise PackError(f"the legality in format {format_id} has an offset past its runs")
    if not all_below(via, n + 1):
        raise PackError(f"the legality in format {format_id} names rows that are not there")
