"""Gym Leader Challenge rules: one type, no Rule Box, one card of each exclusive group."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING

from ..memo import Memo
from ..names import name_key
from ..problems import line_list
from ..registry import ERROR, Finding, rule
from .words import card_names, join_and, lines_and_ids, written_name

if TYPE_CHECKING:
    from ..deck import Context, Deck

#: a line's card's types and subtypes (cards with the same ones share one tuple: few distinct values)
_TYPES = attrgetter("card.types")
_SUBTYPES = attrgetter("card.subtypes")

#: the name keys of exclusive groups, by group (a format names a few)
_GROUP_KEYS: Memo[tuple[str, ...], frozenset[str]] = Memo(256)


def _group_keys(group: list[str]) -> frozenset[str]:
    names = tuple(group)
    keys = _GROUP_KEYS.get(names)
    return _GROUP_KEYS.put(names, frozenset(map(name_key, names))) if keys is None else keys


@rule(
    "single-type",
    code="G101",
    description="GLC: all Pokémon share one type (a dual type fits when one type matches)",
    severity=ERROR,
    title="GLC: all Pokémon share one type",
    needs="pokemon",
)
def single_type(deck: Deck, ctx: Context) -> Iterable[Finding]:
    """All Pokémon share one type (a dual-type Pokémon fits when one of its types matches)."""
    # the types every typed Pokémon shares, first, from the few distinct types the deck's Pokémon have
    distinct = set(map(_TYPES, deck.pokemon))
    distinct.discard(())
    if len(distinct) <= 1:
        return ()  # no typed Pokémon, or one kind of types
    first, *rest = distinct
    if set(first).intersection(*rest):
        return ()  # a type they all have
    return _mixed_types(deck, ctx)


def _mixed_types(deck: Deck, ctx: Context) -> Iterator[Finding]:
    pokemon = [ln for ln in deck.pokemon if ln.card.types]
    tally: dict[str, int] = {}  # type -> copies, in order of first appearance
    for ln in pokemon:
        for t in ln.card.types:
            tally[t] = tally.get(t, 0) + ln.count
    top = max(tally.values())
    leaders = [t for t, n in tally.items() if n == top]
    main = leaders[0]
    odd = [ln for ln in pokemon if main not in ln.card.types]
    listed = join_and([f"{written_name(ln)} ({'/'.join(ln.card.types)})" for ln in odd])
    verb = "is" if len(odd) == 1 else "are"
    nums, ids = lines_and_ids(odd)
    if len(leaders) == 1:
        detail = f"most of yours are {main}, but {listed} {verb} not"
    else:
        detail = f"yours are split between {join_and(leaders)}: {listed} {verb} not {main}"
    yield Finding(
        f"All Pokémon in a {ctx.format.name} deck must share one type; {detail}{line_list(nums)}.",
        lines=nums,
        cards=ids,
    )


@rule(
    "rule-box",
    code="G102",
    description="GLC: no Rule Box cards (the format lists which kinds count)",
    severity=ERROR,
    title="GLC: no Rule Box cards",
    needs="known",
    subtypes="names",
)
def rule_box(deck: Deck, ctx: Context, subtypes: list[str]) -> Iterable[Finding]:
    """No cards with a Rule Box (the format lists which subtypes count)."""
    kinds, clear = _rule_box_kinds(subtypes)
    # the usual deck: every line's subtypes value is one already seen without a Rule Box (one C loop)
    if clear.issuperset(map(_SUBTYPES, deck.known)):
        return ()
    for sub in set(map(_SUBTYPES, deck.known)).difference(clear):
        if not kinds.isdisjoint(sub):
            return _rule_box_lines(deck, ctx, kinds)
        if len(clear) < _CLEAR_MAX:
            clear.add(sub)
    return ()


#: by a format's Rule Box subtypes: (them as a set, the subtypes values seen that have none of them).
#: Cards with the same subtypes share one tuple, and a card database has ~120 distinct ones.
_RULE_BOX: Memo[tuple[str, ...], tuple[frozenset[str], set[tuple[str, ...]]]] = Memo(64)
#: most subtypes values one clear set keeps
_CLEAR_MAX = 4096


def _rule_box_kinds(subtypes: list[str]) -> tuple[frozenset[str], set[tuple[str, ...]]]:
    key = tuple(subtypes)
    known = _RULE_BOX.get(key)
    return _RULE_BOX.put(key, (frozenset(subtypes), set())) if known is None else known


def _rule_box_lines(deck: Deck, ctx: Context, kinds: frozenset[str]) -> Iterator[Finding]:
    lines = [ln for ln in deck.known if not kinds.isdisjoint(ln.card.subtypes)]
    if lines:
        nums, ids = lines_and_ids(lines)
        yield Finding(
            f"Cards with a Rule Box are not allowed in {ctx.format.name}: "
            f"{join_and(card_names(lines))}{line_list(nums)}.",
            lines=nums,
            cards=ids,
        )


@rule(
    "exclusive-group",
    code="G103",
    description="GLC: at most one name from each listed group",
    severity=ERROR,
    title="GLC: one card of each exclusive group",
    needs="copies",
    groups="groups",
)
def exclusive_group(deck: Deck, ctx: Context, groups: list[list[str]]) -> Iterator[Finding]:
    """At most one name from each listed group (e.g. Boss's Orders or Lysandre, not both)."""
    present = deck.copies
    for group in groups:
        hits = [deck.by_name[key] for key in _group_keys(group) if key in present]
        if not hits or (len(hits) == 1 and len(hits[0]) == 1):
            continue  # one line has one name
        # a name's lines are in line order
        lines = hits[0] if len(hits) == 1 else sorted((ln for found in hits for ln in found), key=lambda ln: ln.line)
        names = card_names(lines)
        if len(names) > 1:
            nums, ids = lines_and_ids(lines)
            yield Finding(
                f"A {ctx.format.name} deck may have only one of {join_and(group, 'or')}; "
                f"yours has {join_and(names)}{line_list(nums)}.",
                lines=nums,
                cards=ids,
            )
