"""The card database's lookup index: what resolution needs, worked out once when the file is written.

Resolution needs, for each of the ~21,000 cards, the normalised name
(:func:`deckcheck.names.name_key`), the collector-number key and the place of the card
among the printings of its name. :func:`build_index` works that out when the database file is
written (``deckcheck db build`` and ``db sync``, through ``sync.write.write_database``), so loading
computes none of it, and the file carries the result as plain JSON beside the card rows::

    "index": {
      "fingerprint": "...",       # the versions of the code that made it (see fingerprint())
      "rows": "...",              # digest of the card rows and set release dates it indexes
      "keys": ["nest ball", ...],  # name_key of every card row, in row order
      "by_name": {"nest ball": [row, ...]},     # lookup key -> rows, newest printing first
      "by_number": {"sv01\\x1f181": [row, ...]}, # set id, unit separator, number_norm -> rows
      "basic_energy": {"Fire": row}               # each basic Energy type's newest printing
    }

A loader uses a stored index only when its fingerprint is this code's, its digest is that
of the rows beside it (:func:`rows_digest`: a file whose rows were edited without its index
being made again) and :func:`check_index` finds every entry well formed; otherwise it builds
the index from the rows itself: slower, never wrong. The index is
data, never code: it cannot run anything, and the rows, which it never replaces, are checked
on every load.
"""

from __future__ import annotations

from typing import Any, overload

import orjson

from ..memo import memoise
from ..names import basic_energy_type, name_key
from ..patterns import Pattern

#: the index's layout (its entries, their order, what ``by_name``/``by_number`` hold, and what the
#: pack's index of usual lines holds: :mod:`deckcheck.cards.usuallines`, with the line reader's
#: ``usual_name``/``usual_code``; ``by_name`` ordered by each printing's own release,
#: :data:`~deckcheck.cards.files.PRINTING_RELEASES`): bump it when that changes; a stored index of
#: another layout is rebuilt at load instead of trusted
INDEX_LAYOUT = 3
#: what :func:`deckcheck.names.name_key` gives: bump it when a name's key changes (the
#: whole-pool test ``tests/cards/test_index.py`` fails when the keys change without the bump, and
#: until the database is written again with ``deckcheck db build``)
NAME_KEY_VERSION = 1
#: between a set id and a number in a ``by_number`` key (never part of either)
SEP = "\x1f"
_NUMBER = Pattern(r"^([A-Z]*?)(\d+)([A-Z]?)$")
#: the columns a card row has (build.FIELDS), by position
_NAME, _SUPERTYPE, _SUBTYPES, _SET, _NUMBER_COL = 1, 2, 3, 7, 8


class IndexError_(ValueError):
    """A stored index is malformed."""


@overload
def number_key(number: str) -> tuple[str, int, str]: ...
@overload
def number_key(number: None) -> None: ...
def number_key(number: str | None) -> tuple[str, int, str] | None:
    """Collector numbers compare as (prefix, integer, suffix): ``TG01`` == ``TG1``, ``007`` == ``7``."""
    if number is None:
        return None
    return _number_key(number)


@memoise(8192)
def _number_key(number: str) -> tuple[str, int, str]:
    text = number.strip().upper()
    m = _NUMBER.match(text)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else (text, -1, "")


def number_norm(number: str) -> str:
    """:func:`number_key` as one string (``TG01`` -> ``TG1``): equal strings for equal keys."""
    prefix, digits, suffix = number_key(number)
    return f"{prefix}{digits}{suffix}" if digits >= 0 else prefix


def number_slot(set_id: str, number: str) -> str:
    """The ``by_number`` key of a set id and a collector number."""
    return f"{set_id}{SEP}{number_norm(number)}"


def fingerprint() -> str:
    """What made an index: the versions a person bumps when the index's behaviour changes,
    :data:`INDEX_LAYOUT` and :data:`NAME_KEY_VERSION`, never the source text (a comment or a
    docstring leaves a shipped index in use). A database written by code of other versions
    carries another fingerprint, and its index is rebuilt at load instead of trusted."""
    return f"layout-{INDEX_LAYOUT}.names-{NAME_KEY_VERSION}"


def rows_digest(rows: list[Any], release: dict[str, str], printing: dict[str, str] | None = None) -> str:
    """A digest of the card rows, the set release dates and the printings' own release dates (all
    an index is made from)."""
    import hashlib  # only a database read without its pack digests its rows: not on a start's path

    return hashlib.blake2b(orjson.dumps([release, rows, printing or {}]), digest_size=16).hexdigest()


def _neg_date(iso: str) -> int:
    """A sort key that puts later ISO dates first."""
    return -int(iso.replace("-", "") or 0)


def build_index(
    rows: list[Any],
    release: dict[str, str],
    kept: dict[str, int] | None = None,
    printing: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The index of the card rows (``build.FIELDS`` order). ``release`` maps a set id to its
    release date, ``printing`` a card id to its own when it is later than its set's
    (:data:`~deckcheck.cards.files.PRINTING_RELEASES`); ``kept`` maps a card id to its row (the
    last row of an id wins, as in a dict), made here when not given."""
    own = printing or {}
    if kept is None:
        kept = {row[0]: i for i, row in enumerate(rows)}
    keys = [name_key(row[_NAME]) for row in rows]
    by_number: dict[str, list[int]] = {}
    by_name: dict[str, list[tuple[int, tuple[str, int, str], str, int]]] = {}
    lowered: dict[str, str] = {}
    energies: list[tuple[str, str, int]] = []
    for i, row in enumerate(rows):
        if kept[row[0]] != i:
            continue
        set_id, number = row[_SET], row[_NUMBER_COL]
        by_number.setdefault(number_slot(set_id, number), []).append(i)
        key = keys[i]
        low = lowered.get(key)
        if low is None:
            low = lowered[key] = key.lower()
        # newest set first; inside a set the regular print (lowest number) before secret rares
        day = own.get(row[0]) or release[set_id]
        by_name.setdefault(low, []).append((_neg_date(day), number_key(number), row[0], i))
        if row[_SUPERTYPE] == "Energy" and "Basic" in row[_SUBTYPES]:
            energies.append((day, row[0], i))
    basic: dict[str, int] = {}
    for _date, _id, i in sorted(energies):
        kind = basic_energy_type(rows[i][_NAME])
        if kind:
            basic[kind] = i  # ends on the newest printing of each type
    return {
        "fingerprint": fingerprint(),
        "rows": rows_digest(rows, release, own),
        "keys": keys,
        "by_name": {k: [e[3] for e in sorted(v)] for k, v in by_name.items()},
        "by_number": by_number,
        "basic_energy": basic,
    }


def check_index(index: object, rows: int) -> None:
    """Raise :class:`IndexError_` unless ``index`` is a well-formed index of ``rows`` card rows."""
    if not isinstance(index, dict):
        raise IndexError_("the index is not an object")
    keys = index.get("keys")
    if type(keys) is not list or len(keys) != rows or not all(type(k) is str for k in keys):
        raise IndexError_("the index's name keys do not match the card rows")
    for part in ("by_name", "by_number"):
        table = index.get(part)
        if type(table) is not dict or set(map(type, table.values())) - {list} or not all(table.values()):
            raise IndexError_(f"the index's {part} table is malformed")
        _check_rows(part, [i for v in table.values() for i in v], rows)
    energy = index.get("basic_energy")
    if type(energy) is not dict:
        raise IndexError_("the index's basic_energy table is malformed")
    _check_rows("basic_energy", list(energy.values()), rows)


def _check_rows(part: str, found: list[Any], rows: int) -> None:
    """Every entry of ``found`` is a row number (an int, not a bool) below ``rows``."""
    if found and (set(map(type, found)) - {int} or min(found) < 0 or max(found) >= rows):
        raise IndexError_(f"the index's {part} table names rows that are not there")
