"""Deck-construction rules: the deck's size, copies of a name, Basic Pokémon, the one-per-deck
kinds (Radiant, ACE SPEC, Prism Star, Pokémon ☆) and the limits printed on cards."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..cards.localnames import language_name
from ..names import dropped_at_end
from ..problems import line_list
from ..registry import ERROR, Finding, rule
from .words import card_names, display_name, join_and, line_label, lines_and_ids, plural, quoted

if TYPE_CHECKING:
    from ..deck import Context, Deck, KnownLine

#: Trainer cards played as if they were Basic Pokémon: they never satisfy no-basic-pokemon
#: (found by their text "Play this card as if it were a ... Basic Pokémon" in the card source)
PLAYED_AS_POKEMON = frozenset(
    {
        "robo substitute",
        "unidentified fossil",
        "lillies poke doll",
        "clefairy doll",
        "snorlax doll",
        "mysterious fossil",
        "rare fossil",
        "old amber",
        "armor fossil",
        "claw fossil",
        "dome fossil",
        "helix fossil",
        "root fossil",
        "skull fossil",
        "antique armor fossil",
        "antique cover fossil",
        "antique dome fossil",
        "antique helix fossil",
        "antique jaw fossil",
        "antique old amber",
        "antique plume fossil",
        "antique root fossil",
        "antique sail fossil",
        "antique skull fossil",
    }
)


@rule(
    "deck-size",
    code="R101",
    description="Exactly `size` cards (60)",
    severity=ERROR,
    title="A deck has exactly 60 cards",
    size="int",
)
def deck_size(deck: Deck, ctx: Context, size: int) -> Iterable[Finding]:
    """A deck has exactly ``size`` cards. (Run on every deck and usually silent, the always-run rules
    are plain functions that return ``()``: a generator costs more to start and to finish.)"""
    total = deck.total
    if total == size:
        return ()
    fix = f"add {size - total}" if total < size else f"remove {total - size}"
    hint = None
    if deck.unknown:
        n = sum(ln.count for ln in deck.unknown)
        hint = f"The total includes {plural(n, 'card')} that could not be identified."
    return (Finding(f"Your deck has {plural(total, 'card')}; it must have exactly {size} ({fix}).", hint=hint),)


@rule(
    "copy-limit",
    code="R102",
    description=(
        "At most `limit` cards with one name, summed over every line and printing; basic Energy (decided "
        "from the database) is exempt"
    ),
    severity=ERROR,
    title="At most N cards with the same name",
    limit="int",
)
def copy_limit(deck: Deck, ctx: Context, limit: int) -> Iterable[Finding]:
    """At most ``limit`` cards with the same name, summed over every line and printing; basic Energy exempt."""
    return () if deck.most_copies <= limit else _copies_over(deck, ctx, limit)


def _copies_over(deck: Deck, ctx: Context, limit: int) -> Iterator[Finding]:
    for lines in deck.by_name.values():
        total = sum(ln.count for ln in lines) if len(lines) > 1 else lines[0].count
        if total <= limit:
            continue
        free = _any_number(lines, ctx)
        if free:  # "You may have as many of this card in your deck as you like": those do not count
            lines = [ln for ln in lines if all(ln is not f for f in free)]
            total = sum(ln.count for ln in lines)
            if total <= limit:
                continue
        card = lines[0].card
        spelled = sorted({display_name(ln.card) for ln in lines})
        shared = min(spelled, key=len)  # Gengar LV.X and Gengar, Latias δ and Latias: named Gengar, Latias
        hint = None
        if free:
            said = "says" if len(free) == 1 else "say"
            hint = (
                f'{join_and([line_label(ln) for ln in free])} {said} "{ctx.db.deck_rules()[free[0].card.id].text}",'
                f" so {'it does' if len(free) == 1 else 'they do'} not count; the other printings do."
            )
        elif card.supertype == "Energy":
            hint = f"{lines[0].name} is a Special Energy, so the {limit}-copy limit applies."
        elif len(spelled) > 1:
            hint = f"{join_and(spelled)} share the name {shared}; {_not_part_of_the_name(spelled)}"
        elif len({ln.card.name for ln in lines}) > 1:
            hint = (
                f"{join_and(sorted({ln.card.name for ln in lines}))} share the name {shared}; "
                "the subtitle in brackets is not part of a card's name."
            )
        elif any(ln.language is not None for ln in lines):
            written = {ln.name: ln.language for ln in lines if ln.language is not None}
            read = [f"{quoted(name)} is {shared} in {language_name(lang)}" for name, lang in written.items() if lang]
            hint = f"{join_and(read)}; a card's names in every language are one name for the limit."
        elif len({ln.card.id for ln in lines}) > 1:
            hint = "Different printings of a card count together toward the limit."
        nums, ids = lines_and_ids(lines)
        yield Finding(
            f"You have {plural(total, 'card')} named {shared}{line_list(nums)}; the limit is {limit}.",
            lines=nums,
            cards=ids,
            hint=hint,
        )


def _not_part_of_the_name(names: list[str]) -> str:
    """Why display names that differ are one name for the copy rule: what the name key leaves off
    their ends (:func:`deckcheck.names.dropped_at_end`: a level, a Pokémon's Delta Species, Prime);
    anything else is spelling."""
    dropped = {token for name in names for token in dropped_at_end(name)}
    if "lv" in dropped:
        return "a level (LV.X, LV.43) is not part of a card's name."
    if "δ" in dropped or "species" in dropped:
        return "δ (Delta Species) is not part of a Pokémon's name."
    if "prime" in dropped:
        return "Prime is not part of a Pokémon's name."
    return "they are one name for the copy limit."


@rule(
    "no-basic-pokemon",
    code="R103",
    description="At least one Basic Pokémon; Items played as Pokémon (Robo Substitute, fossils) do not count",
    severity=ERROR,
    title="At least one Basic Pokémon",
)
def no_basic_pokemon(deck: Deck, ctx: Context) -> Iterable[Finding]:
    """At least one Basic Pokémon (Items played as if they were Pokémon do not count)."""
    if deck.basic_pokemon:
        return ()
    look_alikes = card_names(ln for ln in deck.known if ln.card.key in PLAYED_AS_POKEMON)
    hint = None
    if len(look_alikes) == 1:
        hint = f"{look_alikes[0]} is an Item played as if it were a Pokémon; it is not a Basic Pokémon card."
    elif look_alikes:
        hint = f"{join_and(look_alikes)} are Items played as if they were Pokémon; they are not Basic Pokémon cards."
    elif deck.unknown:
        hint = "Some lines could not be identified; if one of them is a Basic Pokémon, correct its name."
    return (Finding("Your deck has no Basic Pokémon; it needs at least 1.", hint=hint),)


def _limit_total(lines: list[KnownLine], what: str, limit: int, ctx: Context) -> tuple[Finding, ...]:
    """The finding (in a tuple) when ``lines`` have more than ``limit`` copies in all, else ``()``."""
    if not lines:
        return ()
    total = lines[0].count if len(lines) == 1 else sum([ln.count for ln in lines])  # usually one line
    if total <= limit:
        return ()
    fmt_name = ctx.format.name
    nums, ids = lines_and_ids(lines)
    names = card_names(lines)
    if limit == 0:
        msg = f"{what} cards are not allowed in {fmt_name}: {join_and(names)}{line_list(nums)}."
        hint = None
    else:
        msg = f"You have {total} {what} cards ({', '.join(names)}){line_list(nums)}; the limit is {limit} per deck."
        hint = (
            f"The limit is {plural(limit, what + ' card')} in total, not {limit} of each." if len(names) > 1 else None
        )
    return (Finding(msg, lines=nums, cards=ids, hint=hint),)


@rule(
    "radiant-limit",
    code="R104",
    description="At most `limit` Radiant Pokémon in total",
    severity=ERROR,
    title="At most one Radiant Pokémon",
    needs="radiant",
    limit="int",
)
def radiant_limit(deck: Deck, ctx: Context, limit: int) -> Iterable[Finding]:
    """At most ``limit`` Radiant Pokémon in the whole deck."""
    return _limit_total(deck.radiant, "Radiant Pokémon", limit, ctx)


@rule(
    "ace-spec-limit",
    code="R105",
    description="At most `limit` ACE SPEC cards in total (GLC: 0)",
    severity=ERROR,
    title="At most one ACE SPEC card",
    needs="ace_spec",
    limit="int",
)
def ace_spec_limit(deck: Deck, ctx: Context, limit: int) -> Iterable[Finding]:
    """At most ``limit`` ACE SPEC cards in the whole deck."""
    return _limit_total(deck.ace_spec, "ACE SPEC", limit, ctx)


@rule(
    "prism-star-limit",
    code="R106",
    description="At most `limit` Prism Star cards of each name",
    severity=ERROR,
    title="At most one Prism Star card of each name",
    needs="prism_star",
    limit="int",
)
def prism_star_limit(deck: Deck, ctx: Context, limit: int) -> Iterator[Finding]:
    """At most ``limit`` Prism Star cards of each name."""
    if not deck.prism_star:
        return
    groups = defaultdict(list)
    for ln in deck.prism_star:
        groups[ln.card.key].append(ln)
    for lines in groups.values():
        total = sum(ln.count for ln in lines)
        if total > limit:
            nums, ids = lines_and_ids(lines)
            yield Finding(
                f"You have {plural(total, 'card')} named {display_name(lines[0].card)}"
                f"{line_list(nums)}; the limit for a Prism Star card is {limit}.",
                lines=nums,
                cards=ids,
                hint="Prism Star cards with different names are fine; the limit is per name.",
            )


def _any_number(lines: list[KnownLine], ctx: Context) -> list[KnownLine]:
    """The lines whose printing says it may be played in any number (Arceus AR1-AR9)."""
    rules = ctx.db.deck_rules()
    return [ln for ln in lines if (r := rules.get(ln.card.id)) is not None and r.kind == "any-number"]


def _clause_lines(deck: Deck, ctx: Context, kind: str) -> list[KnownLine]:
    """The known lines whose printing carries a deck-building clause of ``kind`` (data/deck-rules.csv)."""
    rules = ctx.db.deck_rules()
    return [ln for ln in deck.clauses if rules[ln.card.id].kind == kind]


@rule(
    "pokemon-star-limit",
    code="R107",
    description='At most `limit` Pokémon ☆ in total ("You can\'t have more than 1 Pokémon Star in your deck")',
    severity=ERROR,
    title="At most one Pokémon ☆ in the deck",
    needs="pokemon_star",
    limit="int",
)
def pokemon_star_limit(deck: Deck, ctx: Context, limit: int) -> Iterable[Finding]:
    """At most ``limit`` Pokémon ☆ in the whole deck ("You can't have more than 1 Pokémon Star in your deck")."""
    return _limit_total(deck.pokemon_star, "Pokémon ☆", limit, ctx)


@rule(
    "printed-copy-limit",
    code="R108",
    description=(
        "A card that limits its own copies: at most 1 card named Shining Magikarp, Shining Celebi…, Miracle Energy"
    ),
    severity=ERROR,
    title="A card that limits its own copies in a deck",
    needs="clauses",
)
def printed_copy_limit(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card that limits its own copies ("You can't have more than 1 Shining Magikarp in your deck")."""
    if not deck.clauses:
        return
    rules = ctx.db.deck_rules()
    done = set()
    for ln in _clause_lines(deck, ctx, "name-limit"):
        key = ln.card.key
        if key in done:
            continue
        done.add(key)
        clause = rules[ln.card.id]
        lines = deck.by_name.get(key, [ln])
        total = sum(x.count for x in lines)
        if clause.limit is not None and total > clause.limit:
            nums, ids = lines_and_ids(lines)
            yield Finding(
                f"You have {plural(total, 'card')} named {display_name(ln.card)}"
                f'{line_list(nums)}; {line_label(ln)} says "{clause.text}"',
                lines=nums,
                cards=ids,
            )


@rule(
    "name-group-limit",
    code="R109",
    description=(
        "At most 4 Basic Pokémon with Unown in their names when a Neo Unown, which prints the rule, is in the deck"
    ),
    severity=ERROR,
    title="At most N Basic Pokémon with a name part, as a card prints it",
    needs="clauses",
)
def name_group_limit(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """At most N Basic Pokémon with a name part, as a card prints it (Neo Unown: 4 with Unown in their names)."""
    if not deck.clauses:
        return
    rules = ctx.db.deck_rules()
    done = set()
    for ln in _clause_lines(deck, ctx, "group-limit"):
        clause = rules[ln.card.id]
        group = clause.group
        if group is None or group in done:  # a group-limit clause has its group
            continue
        done.add(group)
        part = re.compile(rf"(?<!\w){re.escape(group.casefold())}(?!\w)")
        lines = [x for x in deck.pokemon if "Basic" in x.card.subtypes and part.search(x.card.name.casefold())]
        total = sum(x.count for x in lines)
        if clause.limit is not None and total > clause.limit:
            nums, ids = lines_and_ids(lines)
            yield Finding(
                f"You have {plural(total, 'Basic Pokémon card')} with {group} in "
                f'their names{line_list(nums)}; {line_label(ln)} says "{clause.text}"',
                lines=nums,
                cards=ids,
                hint=f"The limit is {clause.limit} in total, whatever the rest of the names.",
            )
