"""The index of usual lines: a line written as printed (``4 Nest Ball SVI 181``) found with one
look-up. :meth:`~UsualLineIndex.printing_named` says which printing such a line names;
:meth:`~UsualLineIndex.printed_line` finds it in the table the database's pack holds, made when the
pack is written (:class:`~deckcheck.cards.packfacts.UsualTable`, read in place), or, for a database read
without one, in a table made set code by set code on first use.
A base of :class:`~deckcheck.cards.db.CardDB` (its methods are the database's: the engine calls
them for every line)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..names import lookup_key
from .index import SEP, number_norm
from .printings import Card, CardTable, NumberTable, SetAlias
from .spellings import MAX_NUMBER_LEN, WRITTEN_ENERGY

if TYPE_CHECKING:
    from .packfacts import UsualTable


@functools.cache
def _written_energy_keys() -> dict[str, str]:
    """:data:`WRITTEN_ENERGY`'s names -> their lookup keys (a printing's is ``card.key.lower()``)."""
    return {written: lookup_key(written) for written in WRITTEN_ENERGY}


#: the name endings lists write with a blank or a hyphen (``Dragapult ex`` / ``Dragapult-ex``, ``Shaymin-EX``
#: / ``Shaymin EX``, ``Xurkitree-GX``: the reference's card-data traps); the index of usual lines holds
#: a printing under both spellings (:meth:`UsualLineIndex._written_names`)
_SUFFIX_ENDINGS = (" ex", "-ex", " EX", "-EX", " GX", "-GX")

#: a set code's usual lines are indexed (:meth:`UsualLineIndex.printed_line`) when this many of its lines have
#: been read the long way: indexing a code costs about what reading ~180 of its lines the long way
#: does (BENCHMARKS.md has the figures), so a process pays at most about twice
#: the better of the two (rent, then buy): one that checks a few lists reads them the long way, a
#: long-running one indexes the codes it meets often; a server's master indexes every code before it
#: forks (:meth:`UsualLineIndex.index_usual_lines`)
INDEX_AFTER = 160


#: where :meth:`UsualLineIndex.printing_named` looks for a set code's numbers: its first set's number-index
#: key prefix (``sv01`` + SEP), its other sets' prefixes, and the number index's ``made.get`` and
#: ``slot`` (bound once, not looked up on every line)
Place = tuple[str, tuple[str, ...], Callable[[str], "tuple[Card, ...] | None"], Callable[[str], "tuple[Card, ...]"]]


#: what :meth:`UsualLineIndex.printed_line` answers: (the printing, name, set code, number as the line writes them)
PrintedLine = tuple[Card, str, str, str]
#: an entry of its table: the same, or the card's row until the card is first asked for
PrintedEntry = tuple[Card | int, str, str, str]


class UsualLines:
    """What :meth:`UsualLineIndex.printed_line` keeps, held by the database: a swapped-in database starts with
    none. Bounded by the database (its set codes, names, numbers and printings)."""

    __slots__ = ("packed", "table", "codes", "misses", "numbers", "names", "by_set", "every_place")

    def __init__(self) -> None:
        #: the pack's table of every code's usual lines, read in place (None: made code by code below)
        self.packed: UsualTable | None = None
        #: the usual line's text after its count (``Nest Ball SVI 181``) -> (the printing or its row,
        #: name, set code, number), for the indexed codes
        self.table: dict[str, PrintedEntry] = {}
        #: the set codes indexed
        self.codes: set[str] = set()
        #: set code -> its lines read the long way before it is indexed (:data:`INDEX_AFTER`)
        self.misses: dict[str, int] = {}
        #: one string per number, and each name's usual shape (both repeat from code to code)
        self.numbers: dict[str, str] = {}
        self.names: dict[str, bool] = {}
        #: set id -> its ``by_number`` keys, made on the first code indexed
        self.by_set: dict[str, list[str]] | None = None
        #: whether the database's places hold every code's (:meth:`UsualLineIndex._printing_places`)
        self.every_place = False


class UsualLineIndex:
    """The index of usual lines of :class:`~deckcheck.cards.db.CardDB`, over its number index."""

    cards: CardTable
    _by_code: dict[str, tuple[str, ...]]
    _aliases: dict[str, SetAlias]
    _by_number: NumberTable
    #: set code -> where :meth:`printing_named` looks for its numbers (:data:`Place`), for the codes
    #: it looks in; made code by code (:meth:`_place`), or all at once (:meth:`_printing_places`)
    _places: dict[str, Place]
    #: the index of usual lines (:meth:`printed_line`), made code by code
    _usual: UsualLines

    def printing_named(self, name: str, set_code: str, number: str) -> Card | None:
        """The printing the usual line names (``Nest Ball SVI 181``): when the set code and number
        find a printing in the sets of that code bearing the name written (the same name key),
        that card, which :meth:`resolve_parts` would match by ``printing``; None for any other
        line (ask ``resolve_parts``). A few dict look-ups (and the name's key when it is not
        written as printed) and no Resolution made: a never-seen line of the usual shape costs
        little more than a line seen before.

        The number is looked up as written first: every key of the number index is its own
        :func:`~deckcheck.cards.index.number_norm` (``181``, ``TG1``), so a number found as written is
        its own norm, and one that is not its norm (``TG01``, ``007``) is never found so; only a
        number not found as written is normalised."""
        place = self._places.get(set_code)
        if place is None:
            place = self._place(set_code)
            if place is None:
                return None
        first, others, made, slot = place
        key = first + number
        hit = made(key) or slot(key)
        if not hit:  # what find() answers (it looks in the code's own sets first)
            for prefix in others:
                key = prefix + number
                hit = slot(key)
                if hit:
                    break
            else:
                if len(number) > MAX_NUMBER_LEN:
                    return None
                norm = number_norm(number)
                if norm == number:
                    return None
                for prefix in (first, *others):
                    hit = slot(prefix + norm)
                    if hit:
                        break
                else:
                    return None
        card = hit[0]
        # the name as printed, or the same name written otherwise (Basic {R} Energy,
        # Boss’s Orders, Dragapult-ex: its key is the card's): _resolve's name checks all
        # pass (no basic Energy on a wrong number) and the name does not differ
        return card if card.name == name or lookup_key(name) == card.key.lower() else None

    def indexed_codes(self) -> frozenset[str]:
        """The set codes whose usual lines :meth:`printed_line` has indexed so far (the pack's table
        holds every code's)."""
        if self._usual.packed is not None:
            return frozenset(self._printing_places())
        return frozenset(self._usual.codes)

    def printed_lines(self) -> Mapping[str, PrintedEntry]:
        """Every entry :meth:`printed_line` finds so far (read only): the pack's, or the one made code
        by code."""
        packed = self._usual.packed
        return packed if packed is not None else self._usual.table

    def known_lines(self) -> dict[str, PrintedEntry]:
        """The entries of :meth:`printed_line` this process holds in a dict (read only): a hot loop
        looks a line's text after its count up here first and calls :meth:`printed_line` on a miss
        or an entry that holds a row."""
        return self._usual.table

    def printed_line(self, rest: str) -> PrintedLine | None:
        """``(card, name, set code, number)`` when ``rest`` is the text after a count of a usual line
        (``Nest Ball SVI 181``) that :meth:`printing_named` matches: the parts
        :func:`~deckcheck.decklist.fastline.card_parts` reads and the card ``printing_named`` answers for them,
        found with one look-up. A set code's lines are indexed at its :data:`INDEX_AFTER`-th line: every
        number of its sets with the name printed on the card :meth:`printing_named` finds there (and
        the other spellings of :meth:`_written_names`: ``Boss’s Orders``, ``Dragapult-ex``, ``Basic {R}
        Energy``); a line written any other way (another spelling, Limitless's ``Energy`` pseudo set) is
        None: read it the long way. A ``PH`` tag after the number is taken as the reader takes it (it is
        not one of the parts). An entry holds the card's row until its first use (making a card costs
        microseconds; a list meets a few of a code's). Bounded by the database: ~42,000 entries with
        every code indexed. With the pack's table (:class:`~deckcheck.cards.packfacts.UsualTable`) every
        code is indexed already: an entry found there is kept in the table made here (a dict look-up
        the next time; bounded by the pack's entries)."""
        table = self._usual.table
        hit = table.get(rest)
        if hit is None:
            if rest[-3:] == " PH":  # the tag a placeholder card's line may end with (not one of the parts)
                rest = rest[:-3]
                hit = table.get(rest)
            packed = self._usual.packed
            if hit is None and packed is not None:
                found = packed.get(rest)
                if found is None:
                    return None
                hit = table[rest] = (self.cards.at(found[0]), found[1], found[2], found[3])
                return hit
            if hit is None:
                parts = rest.rsplit(" ", 2)
                if len(parts) != 3 or parts[1] in self._usual.codes:
                    return None
                code = parts[1]
                if code not in self._printing_places():
                    return None  # no code printing_named looks in (the set of indexed codes stays bounded)
                # a code is indexed at its INDEX_AFTER-th line read the long way (rent, then buy)
                misses = self._usual.misses
                seen = misses.get(code, 0) + 1
                if seen < INDEX_AFTER:
                    misses[code] = seen
                    return None
                self._index_code(code)
                hit = table.get(rest)
                if hit is None:
                    return None
        row = hit[0]
        if type(row) is int:
            table[rest] = hit = (self.cards.at(row), hit[1], hit[2], hit[3])
        return hit  # type: ignore[return-value]  # a card now

    def index_usual_lines(self) -> int:
        """Index every set code's usual lines now (:meth:`printed_line` does it code by code on first
        use): what a server's master does before its workers fork, so they share the table instead of
        each making its own. ~0.3 s and ~10 MB for the shipped database; answers the number of entries.
        A database read through its pack has the pack's table already, read in place: nothing to make
        (a copy in a dict made the master 12 MiB larger and a worker's private memory 1 MiB larger, its
        entries' pages copied on write as the worker put its cards in them: BENCHMARKS.md, session 12)."""
        packed = self._usual.packed
        if packed is not None:
            return len(packed)
        for code in list(self._printing_places()):
            if code not in self._usual.codes:
                self._index_code(code)
        return len(self._usual.table)

    def _index_code(self, code: str) -> None:
        """Index a set code's usual lines into the table of :meth:`printed_line`: each of its sets'
        numbers in :meth:`printing_named`'s order (a number an earlier set has is that set's), with
        the card printing_named finds there (the first printing under the number), read in bulk."""
        # the line reader's shape of a usual line (fastline imports no database)
        from ..decklist.fastline import usual_code, usual_name

        place = self._printing_places().get(code)
        if place is not None and usual_code(code):  # (a code of another shape is never read as one)
            table = self._usual.table
            first, others, _made, _slot = place
            by_set = self._set_slots()
            claimed: set[str] = set()
            usual = self._usual.names  # name -> usual_name (names repeat from code to code)
            one = self._usual.numbers  # one string per number (the same few hundred in every set)
            tail = f" {code} "
            for prefix in (first, *others):
                cut = len(prefix)
                keys = [key for key in by_set.get(prefix[:-1], ()) if key[cut:] not in claimed]
                rows = self._by_number.first_rows(keys)
                for key, row, (name, printed, energy) in zip(keys, rows, self.cards.peek(rows), strict=True):
                    norm = key[cut:]
                    claimed.add(norm)
                    # the number as the index keys it (its norm) and as printed (044 for 44): 1 to 4
                    # digits (a norm is its number without leading zeros: a printed one is digits too)
                    if not (len(norm) < 5 and norm.isdigit() and norm.isascii()):
                        continue
                    norm = one.setdefault(norm, norm)
                    ok = usual.get(name)
                    if ok is None:
                        ok = usual[name] = usual_name(name)
                    numbers = (
                        (norm, one.setdefault(printed, printed))
                        if printed != norm and len(printed) < 5 and printed.isdigit() and printed.isascii()
                        else (norm,)
                    )
                    if ok and "'" not in name and not energy and not name.endswith(_SUFFIX_ENDINGS):
                        # the usual: the printed name only
                        for number in numbers:
                            table.setdefault(name + tail + number, (row, name, code, number))
                        continue
                    for spelling in self._written_names(row, name, energy):
                        if ok if spelling is name else usual_name(spelling):
                            for number in numbers:
                                table.setdefault(spelling + tail + number, (row, spelling, code, number))
        self._usual.codes.add(code)

    def _written_names(self, row: int, name: str, energy: bool) -> tuple[str, ...]:
        """The names a line writes printing ``row`` (named ``name``) with that :meth:`printing_named`
        takes for it: the name printed; with a typographic apostrophe (``Boss’s Orders``, as
        Limitless writes it); with a blank for the hyphen before ``ex``, ``EX`` or ``GX``, or the other
        way round (``Dragapult-ex``, ``Shaymin EX``: :data:`_SUFFIX_ENDINGS`); a basic Energy's as lists
        write them (``Basic {R} Energy``, ``Basic Fire Energy``, ``{R} Energy``)."""
        suffixed = name.endswith(_SUFFIX_ENDINGS)
        if "'" not in name and not energy and not suffixed:
            return (name,)
        key = self.cards.at(row).key.lower()
        others: list[str] = []
        for written in (name, name.replace("'", "\u2019")) if "'" in name else (name,):
            if suffixed:
                cut = len(written) - 3
                others.append(written[:cut] + ("-" if written[cut] == " " else " ") + written[cut + 1 :])
            if written is not name:
                others.append(written)
        others = [w for w in others if lookup_key(w) == key]
        if energy:
            others += [w for w, k in _written_energy_keys().items() if k == key and w != name]
        return (name, *others)

    def _set_slots(self) -> dict[str, list[str]]:
        """Set id -> its ``by_number`` keys, in the index's order (one pass over the keys, made once)."""
        made = self._usual.by_set
        if made is None:
            made = {}
            prefix, keys = "\0", []  # a set's keys come one after the other: partition only at a new set
            for key in self._by_number.index_keys():
                if not key.startswith(prefix):
                    set_id = key.partition(SEP)[0]
                    prefix, keys = set_id + SEP, made.setdefault(set_id, [])
                keys.append(key)
            self._usual.by_set = made
        return made

    def _place(self, set_code: str) -> Place | None:
        """:meth:`printing_named`'s place of a code not found as written: the upper-case code's, made
        and kept in :attr:`_places` when the code is one it looks in (a check meets a few codes: the
        table of every code, :meth:`_printing_places`, is made only where all are needed)."""
        code = set_code.upper()
        place = self._places.get(code)
        if place is None:
            ids = self._by_code.get(code)
            alias = self._aliases.get(code)
            if not ids or (alias is not None and alias.action != "lookup"):
                return None
            number = self._by_number
            place = self._places[code] = (ids[0] + SEP, tuple([i + SEP for i in ids[1:]]), number.made.get, number.slot)
        return place

    def _printing_places(self) -> dict[str, Place]:
        """:attr:`_places` with every set code (upper case) whose sets :meth:`printing_named` looks in
        (not a code of ``data/set-aliases.csv`` that says not to look up its number) -> the number-index
        key prefix of each of its sets, in :meth:`find`'s order, the first apart (a new dict, then set:
        no thread reads it half made). Bounded by the database's sets; made once (~400 codes)."""
        if self._usual.every_place:
            return self._places
        aliases, slot = self._aliases, self._by_number.slot
        made: Callable[[str], tuple[Card, ...] | None] = self._by_number.made.get
        places: dict[str, Place] = {
            code: (ids[0] + SEP, tuple(set_id + SEP for set_id in ids[1:]), made, slot)
            for code, ids in self._by_code.items()
            if ids and code.upper() == code and (code not in aliases or aliases[code].action == "lookup")
        }
        self._places = places
        self._usual.every_place = True
        return places
