"""Deck rules: each is a small function that yields problems.

A rule is registered with :func:`rule` under its public name (the names are a
contract: API clients filter on them). It receives the resolved deck and the
check context, plus the parameters the format file gives it, and yields
:class:`~deckcheck.problems.Problem` values. The engine runs every rule of a
format and collects everything; no rule stops another.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .names import name_key, without_subtitle
from .problems import ERROR, INFO, Problem, line_list
from .wording import plural

RuleFn = Callable[..., Iterator[Problem]]

#: parameter kinds a rule may declare, with the phrase an error message uses
PARAM_KINDS = {
    "int": "a whole number >= 0",
    "names": "a list of strings",
    "groups": "a list of lists of at least 2 strings",
}

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


@dataclass(frozen=True)
class RuleSpec:
    name: str
    fn: RuleFn
    params: dict[str, str]
    description: str


REGISTRY: dict[str, RuleSpec] = {}


def rule(name: str, **params: str) -> Callable[[RuleFn], RuleFn]:
    """Register a rule function under ``name`` with typed parameters (kinds from :data:`PARAM_KINDS`)."""

    def register(fn: RuleFn) -> RuleFn:
        unknown = set(params.values()) - set(PARAM_KINDS)
        if unknown:  # pragma: no cover - a programming error
            raise TypeError(f"rule {name}: unknown parameter kind {unknown}")
        REGISTRY[name] = RuleSpec(name, fn, params, (fn.__doc__ or "").strip().splitlines()[0])
        return fn

    return register


def _param_ok(kind: str, value) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == "names":
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    return isinstance(value, list) and all(
        isinstance(g, list) and len(g) >= 2 and all(isinstance(v, str) and v for v in g) for g in value
    )


def check_rule_params(name: str, params: dict, where: str) -> dict:
    """Validate a format file's parameters for one rule (called when formats load)."""
    from .formats import FormatError

    spec = REGISTRY.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, REGISTRY, n=1)
        guess = f"did you mean {close[0]!r}?" if close else f"known rules: {', '.join(sorted(REGISTRY))}"
        raise FormatError(f"{where}: unknown rule {name!r}; {guess}")
    extra = sorted(set(params) - set(spec.params))
    if extra:
        raise FormatError(f"{where}: rule {name!r} takes no parameter {', '.join(extra)}")
    missing = sorted(set(spec.params) - set(params))
    if missing:
        raise FormatError(f"{where}: rule {name!r} needs parameter {', '.join(missing)}")
    for key, kind in spec.params.items():
        if not _param_ok(kind, params[key]):
            raise FormatError(
                f"{where}: rule {name!r} parameter {key} must be {PARAM_KINDS[kind]}, not {params[key]!r}"
            )
    return dict(params)


# -- wording helpers ------------------------------------------------------------


def display_name(card) -> str:
    """The card's name as players say it: ``Professor's Research``, not ``... (Professor Oak)``."""
    return without_subtitle(card.name)


def label(card) -> str:
    """``Nest Ball (SVI 181)`` for messages."""
    return f"{display_name(card)} ({card.set_code} {card.number})"


def _names(lines) -> list[str]:
    seen: list[str] = []
    for ln in lines:
        name = display_name(ln.card)
        if name not in seen:
            seen.append(name)
    return seen


def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def _lines(lines) -> tuple[list[int], list[str]]:
    return [ln.line for ln in lines], [ln.card.id for ln in lines]


# -- parsing and resolution --------------------------------------------------


@rule("unparsed-line")
def unparsed_line(deck, ctx):
    """A line that is neither a header nor a card."""
    for p in deck.parse_problems:
        if p.rule == "unparsed-line":
            yield p


#: how a card database is brought up to date, said wherever it is found behind (one place)
UPDATE_ADVICE = 'update the card database with "deckcheck db sync" or a newer release of deckcheck'
#: resolutions a line with an unknown set code can have (every other one found its set)
_NOT_BY_SET = frozenset({"name", "unresolved"})


def has_unknown_set(ln, db) -> bool:
    """Does this resolved line name a set code the database does not know (:meth:`CardDB.knows_set`)?

    Only a line matched by name, or not at all, can: a printing, alias or name-and-set match
    found its set, and basic Energy resolves by type whatever the set.
    """
    return (
        ln.set_code is not None
        and ln.method in _NOT_BY_SET
        and not db.knows_set(ln.set_code)
        and not _bracket_of_name(ln)
    )


def _bracket_of_name(ln) -> bool:
    """``1 Unown [A]``: the "set code" the parser read in brackets is part of the card's name."""
    return ln.card is not None and name_key(f"{ln.name} [{ln.set_code}]") == ln.card.key


def newest_set_phrase(db) -> str:
    """``Pitch Black, released 2026-07-17``: the newest set the database has cards of."""
    newest = db.newest_set()
    if newest is None:
        return "unknown (the database has no dated set)"
    return f"{newest.name}, released {newest.release}"


def _skips_unknown_sets(ctx) -> bool:
    """unknown-card and resolved-by-name leave lines with an unknown set code to unknown-set,
    when the format runs it (one problem per line)."""
    return "unknown-set" in ctx.format.rules


@rule("unknown-set")
def unknown_set(deck, ctx):
    """A card line whose set code the card database does not know: a newer set than the database's, or a typo."""
    db = ctx.db
    for ln in deck.lines:
        if not has_unknown_set(ln, db):
            continue
        newest, code = db.newest_set(), ln.set_code
        head = f"Line {ln.line}: the card database knows no set {code} (its newest set is {newest_set_phrase(db)})"
        after = f"a set released after {newest.name}" if newest is not None else "a new set"
        hint = f"If {code} is {after}, {UPDATE_ADVICE}."
        if ln.card is None:
            yield Problem(
                "unknown-set",
                f'{head}, and no card named "{ln.name}" was found; its '
                f"{plural(ln.count, 'copy', 'copies')} still {'counts' if ln.count == 1 else 'count'} "
                "toward the deck size.",
                lines=(ln.line,),
                hint=hint,
                severity=ERROR,
            )
        else:
            # basic Energy is played by its type whatever the set: a note, not a warning
            yield Problem(
                "unknown-set",
                f'{head}, so "{ln.name}" was matched by name to {label(ln.card)}.',
                lines=(ln.line,),
                cards=(ln.card.id,),
                hint=hint,
                severity=INFO if ln.card.is_basic_energy else "",
            )


def stale_database(db, on, max_age: int) -> Problem | None:
    """The stale-database warning when the newest set is more than ``max_age`` days older
    than ``on`` (a check's date), else None. Not a format rule: a setting of the check
    (``max_db_age``, ``DECKCHECK_MAX_DB_AGE``, ``max-db-age``) asks for it."""
    age = db.age_days(on)
    if age is None or age <= max_age:
        return None
    newest = db.newest_set()
    return Problem(
        "stale-database",
        f"The card database's newest set is {newest_set_phrase(db)}, "
        f"{plural(age, 'day')} before {on.isoformat()}; the most allowed is {plural(max_age, 'day')}.",
        hint=f"Cards from sets released after {newest.name} are unknown to it: {UPDATE_ADVICE}.",
    )


@rule("unknown-card")
def unknown_card(deck, ctx):
    """A card line whose card could not be found (its copies still count)."""
    skip = _skips_unknown_sets(ctx)
    for ln in deck.unknown:
        if skip and has_unknown_set(ln, ctx.db):
            continue
        where = " ".join(x for x in (ln.set_code, ln.number) if x)
        hint = f"Did you mean {_and(list(ln.suggestions), 'or')}?" if ln.suggestions else None
        yield Problem(
            "unknown-card",
            f'Line {ln.line}: no card named "{ln.name}"{" " + where if where else ""} was '
            f"found in the card database; its {plural(ln.count, 'copy', 'copies')} still "
            f"{'counts' if ln.count == 1 else 'count'} toward the deck size.",
            lines=(ln.line,),
            hint=hint,
        )


@rule("resolved-by-name")
def resolved_by_name(deck, ctx):
    """A card line matched by its name alone (no set code, or a printing that was not found)."""
    skip = _skips_unknown_sets(ctx)
    for ln in deck.known:
        if ln.method != "name" or (skip and has_unknown_set(ln, ctx.db)):
            continue
        if ln.set_code and _bracket_of_name(ln):
            # the name as written: "Unown [A]", or "EXP. ALL" and "Unit Energy LPM" (no brackets)
            written = f"{ln.name} [{ln.set_code}]" if "[" in ln.raw else f"{ln.name} {ln.set_code}"
            msg = f'Line {ln.line}: "{written}" has no set code, so it was matched by name to {label(ln.card)}.'
        elif ln.set_code:
            what = f"{ln.set_code} {ln.number}" if ln.number else ln.set_code
            msg = (
                f'Line {ln.line}: no printing {what} of "{ln.name}" was found, so it was matched by name to '
                f"{label(ln.card)}."
            )
        else:
            msg = f'Line {ln.line}: "{ln.name}" has no set code, so it was matched by name to {label(ln.card)}.'
        yield Problem("resolved-by-name", msg, lines=(ln.line,), cards=(ln.card.id,))


@rule("name-mismatch")
def name_mismatch(deck, ctx):
    """A set code and number that name a different card from the one written (the printing wins)."""
    for ln in deck.known:
        if ln.name_differs:
            yield Problem(
                "name-mismatch",
                f'Line {ln.line} names "{ln.name}", but {ln.card.set_code} {ln.card.number} '
                f"is {ln.card.name}; the line was checked as {label(ln.card)}.",
                lines=(ln.line,),
                cards=(ln.card.id,),
                hint="Check the set code and number; a list in another language can show this for every line.",
            )


@rule("total-mismatch")
def total_mismatch(deck, ctx):
    """The list's own Total Cards line differs from the real count."""
    declared = deck.declared_total
    if declared is not None and declared != deck.total:
        yield Problem(
            "total-mismatch",
            f"The list says Total Cards: {declared}, but its card lines add up to {deck.total}.",
            lines=(deck.declared_total_line,) if deck.declared_total_line else (),
        )


# -- deck construction -------------------------------------------------------


@rule("deck-size", size="int")
def deck_size(deck, ctx, size):
    """A deck has exactly ``size`` cards."""
    total = deck.total
    if total != size:
        fix = f"add {size - total}" if total < size else f"remove {total - size}"
        hint = None
        if deck.unknown:
            n = sum(ln.count for ln in deck.unknown)
            hint = f"The total includes {plural(n, 'card')} that could not be identified."
        yield Problem(
            "deck-size", f"Your deck has {plural(total, 'card')}; it must have exactly {size} ({fix}).", hint=hint
        )


@rule("copy-limit", limit="int")
def copy_limit(deck, ctx, limit):
    """At most ``limit`` cards with the same name, summed over every line and printing; basic Energy exempt."""
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
        hint = None
        if free:
            said = "says" if len(free) == 1 else "say"
            hint = (
                f'{_and([label(ln.card) for ln in free])} {said} "{ctx.db.deck_rules()[free[0].card.id].text}",'
                f" so {'it does' if len(free) == 1 else 'they do'} not count; the other printings do."
            )
        elif card.supertype == "Energy":
            hint = f"{lines[0].name} is a Special Energy, so the {limit}-copy limit applies."
        elif len({ln.card.name for ln in lines}) > 1:
            hint = (
                f"{_and(sorted({ln.card.name for ln in lines}))} share the name {display_name(card)}; "
                "the subtitle in brackets is not part of a card's name."
            )
        elif len({ln.card.id for ln in lines}) > 1:
            hint = "Different printings of a card count together toward the limit."
        nums, ids = _lines(lines)
        yield Problem(
            "copy-limit",
            f"You have {plural(total, 'card')} named {display_name(card)}{line_list(nums)}; the limit is {limit}.",
            lines=nums,
            cards=ids,
            hint=hint,
        )


@rule("no-basic-pokemon")
def no_basic_pokemon(deck, ctx):
    """At least one Basic Pokémon (Items played as if they were Pokémon do not count)."""
    if deck.basic_pokemon:
        return
    look_alikes = _names(ln for ln in deck.known if ln.card.key in PLAYED_AS_POKEMON)
    hint = None
    if len(look_alikes) == 1:
        hint = f"{look_alikes[0]} is an Item played as if it were a Pokémon; it is not a Basic Pokémon card."
    elif look_alikes:
        hint = f"{_and(look_alikes)} are Items played as if they were Pokémon; they are not Basic Pokémon cards."
    elif deck.unknown:
        hint = "Some lines could not be identified; if one of them is a Basic Pokémon, correct its name."
    yield Problem("no-basic-pokemon", "Your deck has no Basic Pokémon; it needs at least 1.", hint=hint)


def _limit_total(lines, rule_name: str, what: str, limit: int, fmt_name: str) -> Problem | None:
    if not lines:
        return None
    total = lines[0].count if len(lines) == 1 else sum([ln.count for ln in lines])  # usually one line
    if total <= limit:
        return None
    nums, ids = _lines(lines)
    names = _names(lines)
    if limit == 0:
        msg = f"{what} cards are not allowed in {fmt_name}: {_and(names)}{line_list(nums)}."
        hint = None
    else:
        msg = f"You have {total} {what} cards ({', '.join(names)}){line_list(nums)}; the limit is {limit} per deck."
        hint = (
            f"The limit is {limit} {what} card{'s' if limit != 1 else ''} in total, not {limit} of each."
            if len(names) > 1
            else None
        )
    return Problem(rule_name, msg, lines=nums, cards=ids, hint=hint)


@rule("radiant-limit", limit="int")
def radiant_limit(deck, ctx, limit):
    """At most ``limit`` Radiant Pokémon in the whole deck."""
    problem = _limit_total(deck.radiant, "radiant-limit", "Radiant Pokémon", limit, ctx.format.name)
    if problem is not None:
        yield problem


@rule("ace-spec-limit", limit="int")
def ace_spec_limit(deck, ctx, limit):
    """At most ``limit`` ACE SPEC cards in the whole deck."""
    problem = _limit_total(deck.ace_spec, "ace-spec-limit", "ACE SPEC", limit, ctx.format.name)
    if problem is not None:
        yield problem


@rule("prism-star-limit", limit="int")
def prism_star_limit(deck, ctx, limit):
    """At most ``limit`` Prism Star cards of each name."""
    if not deck.prism_star:
        return
    groups = defaultdict(list)
    for ln in deck.prism_star:
        groups[ln.card.key].append(ln)
    for lines in groups.values():
        total = sum(ln.count for ln in lines)
        if total > limit:
            nums, ids = _lines(lines)
            yield Problem(
                "prism-star-limit",
                f"You have {plural(total, 'card')} named {display_name(lines[0].card)}"
                f"{line_list(nums)}; the limit for a Prism Star card is {limit}.",
                lines=nums,
                cards=ids,
                hint="Prism Star cards with different names are fine; the limit is per name.",
            )


def _any_number(lines, ctx) -> list:
    """The lines whose printing says it may be played in any number (Arceus AR1-AR9)."""
    rules = ctx.db.deck_rules()
    return [ln for ln in lines if (r := rules.get(ln.card.id)) is not None and r.kind == "any-number"]


def _clause_lines(deck, ctx, kind: str) -> list:
    """The known lines whose printing carries a deck-building clause of ``kind`` (data/deck-rules.csv)."""
    rules = ctx.db.deck_rules()
    return [ln for ln in deck.known if (r := rules.get(ln.card.id)) is not None and r.kind == kind]


@rule("pokemon-star-limit", limit="int")
def pokemon_star_limit(deck, ctx, limit):
    """At most ``limit`` Pokémon ☆ in the whole deck ("You can't have more than 1 Pokémon Star in your deck")."""
    stars = [ln for ln in deck.pokemon if "Star" in ln.card.subtypes]
    problem = _limit_total(stars, "pokemon-star-limit", "Pokémon ☆", limit, ctx.format.name)
    if problem is not None:
        yield problem


@rule("printed-copy-limit")
def printed_copy_limit(deck, ctx):
    """A card that limits its own copies ("You can't have more than 1 Shining Magikarp in your deck")."""
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
        if total > clause.limit:
            nums, ids = _lines(lines)
            yield Problem(
                "printed-copy-limit",
                f"You have {plural(total, 'card')} named {display_name(ln.card)}"
                f'{line_list(nums)}; {label(ln.card)} says "{clause.text}"',
                lines=nums,
                cards=ids,
            )


@rule("name-group-limit")
def name_group_limit(deck, ctx):
    """At most N Basic Pokémon with a name part, as a card prints it (Neo Unown: 4 with Unown in their names)."""
    rules = ctx.db.deck_rules()
    done = set()
    for ln in _clause_lines(deck, ctx, "group-limit"):
        clause = rules[ln.card.id]
        if clause.group in done:
            continue
        done.add(clause.group)
        part = re.compile(rf"(?<!\w){re.escape(clause.group.casefold())}(?!\w)")
        lines = [x for x in deck.pokemon if "Basic" in x.card.subtypes and part.search(x.card.name.casefold())]
        total = sum(x.count for x in lines)
        if total > clause.limit:
            nums, ids = _lines(lines)
            yield Problem(
                "name-group-limit",
                f"You have {plural(total, 'Basic Pokémon card')} with {clause.group} in "
                f'their names{line_list(nums)}; {label(ln.card)} says "{clause.text}"',
                lines=nums,
                cards=ids,
                hint=f"The limit is {clause.limit} in total, whatever the rest of the names.",
            )


# -- legality ----------------------------------------------------------------


@rule("not-in-format")
def not_in_format(deck, ctx):
    """A card that is not legal in the format on the date (not checked when the date is out of range)."""
    if ctx.date_problem:
        return
    outside = [ln for ln in deck.known if ln.legal_via is None and ln.ban is None]
    if not outside:
        return
    # the reason and hint depend on the printing, the database and the date only: memoised beside
    # the legality answers (looking for a differently worded legal printing walks every printing)
    memo = ctx.format.legality_table(ctx.db, ctx.as_of)
    tail = f" is not legal in {ctx.format.name} on {ctx.as_of.isoformat()}: "
    for ln in outside:
        card = ln.card
        explained = memo.get(("why", card.id))
        if explained is None:
            explained = memo[("why", card.id)] = (
                label(card),
                ctx.format.why_not_legal(card, ctx.db, ctx.as_of),
                _other_printing_hint(card, ctx),
            )
        name, why, hint = explained
        yield Problem(
            "not-in-format", f"{name} (line {ln.line}){tail}{why}.", lines=(ln.line,), cards=(card.id,), hint=hint
        )


def _other_printing_hint(card, ctx) -> str | None:
    """Name a legal printing with the same name whose text differs, the likely source of confusion."""
    other = ctx.format.legal_other_printing(card, ctx.db, ctx.as_of)
    if other is None:
        return None
    return (
        f"{label(other)} is legal, but its text differs from this printing's, so the reprint rule "
        "does not cover this one."
    )


@rule("legal-by-reprint")
def legal_by_reprint(deck, ctx):
    """A printing that is legal only through a functionally identical reprint: the legal
    printing's text is the one played (Tournament Handbook 4.1.3). In a format whose pool is
    every card (Unlimited), every printing is legal, but "the wording of the most recent
    version is used" (4.2.2): an older printing names its newest reprint."""
    if ctx.date_problem:
        return
    every_card = ctx.format.pool.kind == "all"
    for ln in deck.known:
        via, card = ln.legal_via, ln.card
        if via is None or ln.ban is not None or card.is_basic_energy:
            continue
        if via is not card:
            yield Problem(
                "legal-by-reprint",
                f"Line {ln.line}: {label(card)} is legal as {label(via)}; play it with that card's text.",
                lines=(ln.line,),
                cards=(card.id, via.id),
            )
        elif every_card and (newest := _newest_reprint(card, ctx)) is not None:
            yield Problem(
                "legal-by-reprint",
                f"Line {ln.line}: {label(card)} is legal; play it with the text of its "
                f"newest printing, {label(newest)}.",
                lines=(ln.line,),
                cards=(card.id, newest.id),
            )


def _newest_reprint(card, ctx):
    """The newest printing out on the date with the same name and functional text, when it is
    from another set than ``card`` (else None); memoised beside the legality answers."""
    memo = ctx.format.legality_table(ctx.db, ctx.as_of)
    key = ("newest", card.id)
    if key in memo:
        return memo[key]
    found = None
    if not card.fingerprint.startswith("name:"):
        for other in ctx.db.printings_of(card):  # newest first
            if (
                other.fingerprint == card.fingerprint
                and other.key == card.key
                and ctx.format.in_pool(other, ctx.db, ctx.as_of)
            ):
                found = other if other.set_id != card.set_id else None
                break
    memo[key] = found
    return found


@rule("banned")
def banned(deck, ctx):
    """A card on the format's ban list on the date."""
    for ln in deck.known:
        ban = ln.ban
        if ban is None:
            continue
        since = f" since {ban.since.isoformat()}" if ban.since else ""
        if ban.by_name:
            msg = (
                f"{label(ln.card)} (line {ln.line}) is banned in {ctx.format.name}{since}: every printing of "
                f"{ban.name} is banned."
            )
            hint = None
        else:
            msg = f"{label(ln.card)} (line {ln.line}) is banned in {ctx.format.name}{since}."
            others = [c for c in ctx.db.printings_of(ln.card) if c.key == ln.card.key and not ban.covers(c, ctx.db)]
            hint = (
                (
                    f"The ban covers {_and([f'{s} {n}' for s, n in ban.printings])} only; other printings of "
                    f"{ban.name} are not banned."
                )
                if others
                else None
            )
        yield Problem("banned", msg, lines=(ln.line,), cards=(ln.card.id,), hint=hint)


@rule("evolution-gap")
def evolution_gap(deck, ctx):
    """A Stage 1 or Stage 2 card whose Pokémon it evolves from is nowhere in the deck."""
    present = deck.by_name  # every name in the deck except basic Energy
    candy = "rare candy" in present
    missing: dict[tuple, list] = {}
    for ln in deck.pokemon:
        card = ln.card
        if not card.evolves_from:
            continue
        stage2 = "Stage 2" in card.subtypes
        if not stage2 and "Stage 1" not in card.subtypes:
            continue  # BREAK, VMAX, MEGA...: not checked
        parent = ctx.name_key(card.evolves_from)
        if parent in present:
            continue
        basic = None
        if stage2 and candy:
            grand = ctx.evolves_from_of(card.evolves_from)
            if grand is None or ctx.name_key(grand) in present:
                continue  # Rare Candy evolves the Basic straight into this Stage 2
            basic = grand
        missing.setdefault((card.key, card.evolves_from), []).append((ln, basic))
    owners = _OwnerIndex(deck) if missing else None
    for (_key, parent_name), found in missing.items():
        lines = [ln for ln, _ in found]
        nums, ids = _lines(lines)
        basic = found[0][1]
        hint = owners.hint(ctx.name_key(parent_name), parent_name)
        if basic and not hint:
            hint = f"Rare Candy covers a missing Stage 1, not a missing Basic: {basic} is not in your deck either."
        yield Problem(
            "evolution-gap",
            f"{display_name(lines[0].card)}{line_list(nums)} evolves from {parent_name}, which is not in your deck.",
            lines=nums,
            cards=ids,
            hint=hint,
        )


class _OwnerIndex:
    """The deck's Pokémon names by every word-ending of them, so that the hint for each missing
    pre-evolution costs the words of its name, not a pass over the deck (1,000 lines with 700
    gaps were 0.5 s); the first line in the deck wins, as a scan would find it."""

    def __init__(self, deck) -> None:
        self.full: dict[str, tuple[int, object]] = {}  # a name key -> (index, its first line)
        self.tails: dict[str, tuple[int, object]] = {}  # each word-ending of a name key -> the same
        for index, ln in enumerate(deck.known):
            if ln.card.supertype != "Pokémon":
                continue
            key = ln.card.key  # a database name's key: a few words
            self.full.setdefault(key, (index, ln))
            at = key.find(" ")
            while at != -1:
                self.tails.setdefault(key[at + 1 :], (index, ln))
                at = key.find(" ", at + 1)

    def hint(self, parent: str, parent_name: str) -> str | None:
        """``Tadbulb`` is in the deck but ``Iono's Tadbulb`` is needed (or the other way round)."""
        hits = [self.tails.get(parent)]  # a name in the deck ends with the parent's: Iono's Tadbulb
        at = parent.find(" ")
        while at != -1:  # the parent's name ends with a name in the deck: Tadbulb
            hits.append(self.full.get(parent[at + 1 :]))
            at = parent.find(" ", at + 1)
        found = [hit for hit in hits if hit is not None]
        if not found:
            return None
        card = min(found, key=lambda hit: hit[0])[1].card
        return (
            f"{display_name(card)} is a different Pokémon from {parent_name}: an owner's or form name "
            "is part of a Pokémon's name."
        )


# -- Gym Leader Challenge ----------------------------------------------------


@rule("single-type")
def single_type(deck, ctx):
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
    listed = _and([f"{display_name(ln.card)} ({'/'.join(ln.card.types)})" for ln in odd])
    verb = "is" if len(odd) == 1 else "are"
    nums, ids = _lines(odd)
    if len(leaders) == 1:
        detail = f"most of yours are {main}, but {listed} {verb} not"
    else:
        detail = f"yours are split between {_and(leaders)}: {listed} {verb} not {main}"
    yield Problem(
        "single-type",
        f"All Pokémon in a {ctx.format.name} deck must share one type; {detail}{line_list(nums)}.",
        lines=nums,
        cards=ids,
    )


@rule("rule-box", subtypes="names")
def rule_box(deck, ctx, subtypes):
    """No cards with a Rule Box (the format lists which subtypes count)."""
    kinds = frozenset(subtypes)
    lines = [ln for ln in deck.known if not kinds.isdisjoint(ln.card.subtypes)]
    if lines:
        nums, ids = _lines(lines)
        yield Problem(
            "rule-box",
            f"Cards with a Rule Box are not allowed in {ctx.format.name}: {_and(_names(lines))}{line_list(nums)}.",
            lines=nums,
            cards=ids,
        )


@rule("exclusive-group", groups="groups")
def exclusive_group(deck, ctx, groups):
    """At most one name from each listed group (e.g. Boss's Orders or Lysandre, not both)."""
    for group in groups:
        keys = {ctx.name_key(n) for n in group}
        lines = sorted((ln for key in keys for ln in deck.by_name.get(key, ())), key=lambda ln: ln.line)
        names = _names(lines)
        if len(names) > 1:
            nums, ids = _lines(lines)
            yield Problem(
                "exclusive-group",
                f"A {ctx.format.name} deck may have only one of {_and(group, 'or')}; "
                f"yours has {_and(names)}{line_list(nums)}.",
                lines=nums,
                cards=ids,
            )
