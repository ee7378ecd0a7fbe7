"""The memos of a format (a frozen value), held beside it by :data:`FORMAT_MEMOS`: per database
object and date, its legality answers (:mod:`deckcheck.formats.legality`); its rule plan
(:class:`RulePlan`), what screens a card from its bans, and its rotations' sets. Each is bounded (the sizes below)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

from ..memo import Memo, MemosOf
from ..registry import RuleFn


class RulePlan(NamedTuple):
    """The rules a format runs (:meth:`~deckcheck.formats.Format.rule_plan`): ``steps``, (rule name, rule function, its
    parameters' values in the order the function takes them) in file order, and ``wants(deck)``,
    for each step whether the deck has what the rule needs (``Rule.needs``: its value, true or
    not), in one call. ``itertools.compress(steps, wants(deck))`` is the steps to run."""

    steps: list[tuple[str, RuleFn, tuple[Any, ...]]]
    wants: Callable[[Any], tuple[Any, ...]]


#: the answers one legality memo keeps (one per database and date): :meth:`~deckcheck.formats.Format.legality`
#: by card id, and the rules' explanations beside them (a few per card: a database of 21,000 cards
#: never fills it)
LEGALITY_MEMO_SIZE = 1 << 17
#: the dates a format keeps legality memos for, per database (the engine's line memos keep as many, beside
#: them): a service sees one or two dates at a time (today, and the date a user asks about). Every printing
#: of the shipped database asked in the five shipped formats on many dates keeps a worker ~77 MiB above its
#: start (README, "Scaling out"; 64 dates let it pass 600 MiB)
LEGALITY_MEMO_DATES = 2


class FormatMemos:
    """The memos of one :class:`~deckcheck.formats.Format` (a frozen value), held beside it by
    :data:`FORMAT_MEMOS`: per (database object, date), at most :data:`LEGALITY_MEMO_DATES` legality memos;
    the rule plan and what screens a card from the bans (:meth:`~deckcheck.formats.Format.ban_for`)."""

    __slots__ = ("legality", "plan", "ban_screen", "rotation_sets", "digest", "stored")

    def __init__(self) -> None:
        self.legality: Memo[tuple[object, dt.date], Memo[Hashable, Any]] = Memo(LEGALITY_MEMO_DATES)
        self.plan: RulePlan | None = None
        self.ban_screen: tuple[frozenset[str], frozenset[tuple[str, int, str]]] | None = None
        #: per (database object, rotation date): the set ids of a rotation by sets and its promo
        #: floors by set id (:meth:`~deckcheck.formats.Format.rotation_sets`); one entry per rotation of the file
        self.rotation_sets: Memo[tuple[object, dt.date], RotationSets] = Memo(256)
        #: what the format's pool and bans make as a digest (:meth:`~deckcheck.formats.Format.legality_digest`)
        self.digest: str | None = None
        #: (the last database object asked's identity, the pack's legality of the format it holds or None)
        self.stored: tuple[object, Any] | None = None


class RotationSets(NamedTuple):
    """A rotation by sets resolved against one database: the ids of its sets, and for its promo
    sets the first legal number's key by set id."""

    sets: frozenset[str]
    promo_floors: dict[str, tuple[str, int, str]]


#: every format's memos, by the format's identity (a format can be made with other values, as the
#: rotation forecast does: that one starts with memos of its own)
FORMAT_MEMOS: MemosOf[object, FormatMemos] = MemosOf(FormatMemos)
#: a format's memos (``FORMAT_MEMOS.of``, bound once): CPython compiles ``NAME.of(...)`` on a name
#: bound by an import as an attribute load that makes a bound method on every call, and the engine
#: asks for a format's memos on every check
memos_of = FORMAT_MEMOS.of
