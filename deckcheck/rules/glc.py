"""Gym Leader Challenge rules: one type, no Rule Box, one card of each exclusive group."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..problems import line_list
from ..registry import ERROR, Finding, rule
from .words import card_names, display_name, join_and, lines_and_ids

if TYPE_CHECKING:
    from ..deck import Context, Deck


@rule("single-type", code="G101", severity=ERROR, title="GLC: all Pokémon share one type")
def single_type(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """All Pokémon share one type (a dual-type Pokémon fits when one of its types matches)."""
    pokemon = [ln for ln in deck.pokemon if ln.card.types]
    if not pokemon:
        return
    common = set(pokemon[0].card.types)
    for ln in pokemon[1:]:
        common.intersection_update(ln.card.types)
    if common:
        return
    tally: dict[str, int] = {}  # type -> copies, in order of first appearance
    for ln in pokemon:
        for t in ln.card.types:
            tally[t] = tally.get(t, 0) + ln.count
    top = max(tally.values())
    leaders = [t for t, n in tally.items() if n == top]
    main = leaders[0]
    odd = [ln for ln in pokemon if main not in ln.card.types]
    listed = join_and([f"{display_name(ln.card)} ({'/'.join(ln.card.types)})" for ln in odd])
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


@rule("rule-box", code="G102", severity=ERROR, title="GLC: no Rule Box cards", subtypes="names")
def rule_box(deck: Deck, ctx: Context, subtypes: list[str]) -> Iterator[Finding]:
    """No cards with a Rule Box (the format lists which subtypes count)."""
    kinds = frozenset(subtypes)
    lines = [ln for ln in deck.known if not kinds.isdisjoint(ln.card.subtypes)]
    if lines:
        nums, ids = lines_and_ids(lines)
        yield Finding(
            f"Cards with a Rule Box are not allowed in {ctx.format.name}: "
            f"{join_and(card_names(lines))}{line_list(nums)}.",
            lines=nums,
            cards=ids,
        )


@rule("exclusive-group", code="G103", severity=ERROR, title="GLC: one card of each exclusive group", groups="groups")
def exclusive_group(deck: Deck, ctx: Context, groups: list[list[str]]) -> Iterator[Finding]:
    """At most one name from each listed group (e.g. Boss's Orders or Lysandre, not both)."""
    for group in groups:
        keys = {ctx.name_key(n) for n in group}
        lines = sorted((ln for key in keys for ln in deck.by_name.get(key, ())), key=lambda ln: ln.line)
        names = card_names(lines)
        if len(names) > 1:
            nums, ids = lines_and_ids(lines)
            yield Finding(
                f"A {ctx.format.name} deck may have only one of {join_and(group, 'or')}; "
                f"yours has {join_and(names)}{line_list(nums)}.",
                lines=nums,
                cards=ids,
            )
