"""Deck rules: each is a small function that yields problems.

A rule is registered with :func:`rule` under its public name (the names are a
contract: API clients filter on them). It receives the resolved deck and the
check context, plus the parameters the format file gives it, and yields
:class:`~deckcheck.problems.Problem` values. The engine runs every rule of a
format and collects everything; no rule stops another.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterator

from .problems import Problem, line_list

RuleFn = Callable[..., Iterator[Problem]]


@dataclass(frozen=True)
class RuleSpec:
    name: str
    fn: RuleFn
    params: dict[str, type]
    description: str


REGISTRY: dict[str, RuleSpec] = {}


def rule(name: str, **params: type) -> Callable[[RuleFn], RuleFn]:
    """Register a rule function under ``name`` with typed parameters."""

    def register(fn: RuleFn) -> RuleFn:
        REGISTRY[name] = RuleSpec(name, fn, params, (fn.__doc__ or "").strip().splitlines()[0])
        return fn

    return register


def check_rule_params(name: str, params: dict, where: str) -> dict:
    """Validate a format file's parameters for one rule (called when formats load)."""
    from .formats import FormatError

    spec = REGISTRY.get(name)
    if spec is None:
        raise FormatError(f"{where}: unknown rule {name!r} (known: {', '.join(sorted(REGISTRY))})")
    extra = set(params) - set(spec.params)
    if extra:
        raise FormatError(f"{where}: rule {name!r} takes no parameter {', '.join(sorted(extra))}")
    missing = set(spec.params) - set(params)
    if missing:
        raise FormatError(f"{where}: rule {name!r} needs parameter {', '.join(sorted(missing))}")
    for key, kind in spec.params.items():
        value = params[key]
        if kind is int and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise FormatError(f"{where}: rule {name!r} parameter {key} must be a whole number >= 0")
        if kind is list and not isinstance(value, list):
            raise FormatError(f"{where}: rule {name!r} parameter {key} must be a list")
    return dict(params)


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _names(lines) -> str:
    seen = []
    for ln in lines:
        if ln.card.name not in seen:
            seen.append(ln.card.name)
    return ", ".join(seen)


# -- parsing and resolution --------------------------------------------------

@rule("unparsed-line")
def unparsed_line(deck, ctx):
    """A line that is neither a header nor a card."""
    yield from (p for p in deck.parse_problems if p.rule == "unparsed-line")


@rule("unknown-card")
def unknown_card(deck, ctx):
    """A card line whose card could not be found (its copies still count)."""
    for ln in deck.lines:
        if ln.card is None:
            where = f" {ln.set_code} {ln.number}" if ln.set_code and ln.number else (f" {ln.set_code}" if ln.set_code else "")
            hint = f"Did you mean {', '.join(ln.suggestions)}?" if ln.suggestions else None
            yield Problem("unknown-card", f"Line {ln.line}: no card named {ln.name!r}{where} was found in the card "
                          f"database; its {_plural(ln.count, 'copy', 'copies')} still count toward the deck size.",
                          lines=(ln.line,), hint=hint)


@rule("total-mismatch")
def total_mismatch(deck, ctx):
    """The list's own Total Cards line differs from the real count."""
    declared = deck.declared_total
    if declared is not None and declared != deck.total:
        yield Problem("total-mismatch", f"The list says Total Cards: {declared}, but its card lines add up to "
                      f"{deck.total}.", lines=(deck.declared_total_line,) if deck.declared_total_line else ())


# -- deck construction -------------------------------------------------------

@rule("deck-size", size=int)
def deck_size(deck, ctx, size):
    """A deck has exactly ``size`` cards."""
    total = deck.total
    if total != size:
        fix = f"add {size - total}" if total < size else f"remove {total - size}"
        yield Problem("deck-size", f"Your deck has {_plural(total, 'card')}; it must have exactly {size} ({fix}).")


@rule("copy-limit", limit=int)
def copy_limit(deck, ctx, limit):
    """At most ``limit`` cards with the same name, summed over every line and printing; basic Energy exempt."""
    groups = defaultdict(list)
    for ln in deck.known:
        if not ln.card.is_basic_energy:
            groups[ln.card.key].append(ln)
    for lines in groups.values():
        total = sum(ln.count for ln in lines)
        if total > limit:
            card = lines[0].card
            hint = None
            if card.supertype == "Energy":
                hint = f"{card.name} is a Special Energy, so the {limit}-copy limit applies; only basic Energy is unlimited."
            yield Problem("copy-limit", f"You have {_plural(total, 'card')} named {card.name}"
                          f"{line_list(ln.line for ln in lines)}; the limit is {limit}.",
                          lines=[ln.line for ln in lines], cards=[ln.card.id for ln in lines], hint=hint)


@rule("no-basic-pokemon")
def no_basic_pokemon(deck, ctx):
    """At least one Basic Pokémon (Items that act as Pokémon in play do not count)."""
    if any(ln.card.is_basic_pokemon for ln in deck.known):
        return
    look_alikes = [ln for ln in deck.known if ln.card.supertype == "Trainer" and "Pokémon" in ln.card.name + " ".join(ln.card.subtypes)
                   or ln.card.key in ("robo substitute", "unidentified fossil", "clefairy doll", "mysterious fossil")]
    hint = (f"{_names(look_alikes)} {'is an Item' if len(look_alikes) == 1 else 'are Items'}, not Basic Pokémon."
            if look_alikes else None)
    yield Problem("no-basic-pokemon", "Your deck has no Basic Pokémon; it needs at least 1.", hint=hint)


def _limit_total(deck, rule_name: str, attr: str, what: str, limit: int, fmt_name: str):
    lines = [ln for ln in deck.known if getattr(ln.card, attr)]
    total = sum(ln.count for ln in lines)
    if total <= limit:
        return
    where = line_list(ln.line for ln in lines)
    if limit == 0:
        msg = f"{what} cards are not allowed in {fmt_name}: {_names(lines)}{where}."
    else:
        msg = (f"You have {total} {what} cards ({_names(lines)}){where}; a deck can have only {limit} "
               f"{what} card{'s' if limit != 1 else ''} in total.")
    yield Problem(rule_name, msg, lines=[ln.line for ln in lines], cards=[ln.card.id for ln in lines])


@rule("radiant-limit", limit=int)
def radiant_limit(deck, ctx, limit):
    """At most ``limit`` Radiant Pokémon in the whole deck."""
    yield from _limit_total(deck, "radiant-limit", "is_radiant", "Radiant Pokémon", limit, ctx.format.name)


@rule("ace-spec-limit", limit=int)
def ace_spec_limit(deck, ctx, limit):
    """At most ``limit`` ACE SPEC cards in the whole deck."""
    yield from _limit_total(deck, "ace-spec-limit", "is_ace_spec", "ACE SPEC", limit, ctx.format.name)


@rule("prism-star-limit", limit=int)
def prism_star_limit(deck, ctx, limit):
    """At most ``limit`` Prism Star cards of each name."""
    groups = defaultdict(list)
    for ln in deck.known:
        if ln.card.is_prism_star:
            groups[ln.card.key].append(ln)
    for lines in groups.values():
        total = sum(ln.count for ln in lines)
        if total > limit:
            yield Problem("prism-star-limit", f"You have {total} copies of the Prism Star card {lines[0].card.name}"
                          f"{line_list(ln.line for ln in lines)}; the limit is {limit} of each name.",
                          lines=[ln.line for ln in lines], cards=[ln.card.id for ln in lines])


# -- legality ----------------------------------------------------------------

@rule("not-in-format")
def not_in_format(deck, ctx):
    """A card that is not legal in the format on the date."""
    if ctx.date_problem:
        yield ctx.date_problem
        return
    for ln in deck.known:
        if ln.legal_via is None and ln.ban is None:
            yield Problem("not-in-format", f"{ln.card.label} (line {ln.line}) is not legal in {ctx.format.name} on "
                          f"{ctx.as_of.isoformat()}: {ctx.why_not_legal(ln.card)}.",
                          lines=(ln.line,), cards=(ln.card.id,))


@rule("banned")
def banned(deck, ctx):
    """A card on the format's ban list on the date."""
    for ln in deck.known:
        if ln.ban is not None:
            since = f" since {ln.ban.since.isoformat()}" if ln.ban.since else ""
            scope = " (every printing of this name)" if ln.ban.by_name else ""
            yield Problem("banned", f"{ln.card.label} (line {ln.line}) is banned in {ctx.format.name}{since}{scope}.",
                          lines=(ln.line,), cards=(ln.card.id,), hint=ln.ban.source or None)


@rule("evolution-gap")
def evolution_gap(deck, ctx):
    """A Stage 1 or Stage 2 card whose Pokémon it evolves from is nowhere in the deck."""
    present = {ln.card.key for ln in deck.known}
    candy = "rare candy" in present
    for ln in deck.known:
        card = ln.card
        if card.supertype != "Pokémon" or not card.evolves_from or card.stage not in ("Stage 1", "Stage 2"):
            continue
        parent = ctx.name_key(card.evolves_from)
        if parent in present:
            continue
        if card.stage == "Stage 2" and candy:
            grand = ctx.evolves_from_of(card.evolves_from)
            if grand is None or ctx.name_key(grand) in present:
                continue
        yield Problem("evolution-gap", f"{card.name} (line {ln.line}) evolves from {card.evolves_from}, which is not "
                      "in your deck.", lines=(ln.line,), cards=(card.id,),
                      hint="Rare Candy covers a missing Stage 1, not a missing Basic." if candy else None)


# -- Gym Leader Challenge ----------------------------------------------------

@rule("single-type")
def single_type(deck, ctx):
    """All Pokémon share one type (a dual-type Pokémon fits when one of its types matches)."""
    pokemon = [ln for ln in deck.known if ln.card.supertype == "Pokémon" and ln.card.types]
    if not pokemon:
        return
    common = set(pokemon[0].card.types)
    for ln in pokemon[1:]:
        common &= set(ln.card.types)
    if common:
        return
    tally = defaultdict(int)
    for ln in pokemon:
        for t in ln.card.types:
            tally[t] += ln.count
    main = max(sorted(tally), key=lambda t: tally[t])
    odd = [ln for ln in pokemon if main not in ln.card.types]
    listed = ", ".join(f"{ln.card.name} ({'/'.join(ln.card.types)})" for ln in odd)
    yield Problem("single-type", f"All Pokémon in a {ctx.format.name} deck must share one type; most of yours are "
                  f"{main}, but {listed} {'is' if len(odd) == 1 else 'are'} not{line_list(ln.line for ln in odd)}.",
                  lines=[ln.line for ln in odd], cards=[ln.card.id for ln in odd])


@rule("rule-box", subtypes=list)
def rule_box(deck, ctx, subtypes):
    """No cards with a Rule Box (the format lists which subtypes count)."""
    banned_kinds = set(subtypes)
    lines = [ln for ln in deck.known if banned_kinds.intersection(ln.card.subtypes)]
    if lines:
        yield Problem("rule-box", f"Cards with a Rule Box are not allowed in {ctx.format.name}: {_names(lines)}"
                      f"{line_list(ln.line for ln in lines)}.", lines=[ln.line for ln in lines],
                      cards=[ln.card.id for ln in lines])


@rule("exclusive-group", groups=list)
def exclusive_group(deck, ctx, groups):
    """At most one card from each listed group of names (e.g. Boss's Orders or Lysandre)."""
    for group in groups:
        keys = {ctx.name_key(n) for n in group}
        lines = [ln for ln in deck.known if ln.card.key in keys]
        total = sum(ln.count for ln in lines)
        if total > 1:
            yield Problem("exclusive-group", f"A {ctx.format.name} deck may have only one of {' or '.join(group)}; "
                          f"yours has {total} ({_names(lines)}){line_list(ln.line for ln in lines)}.",
                          lines=[ln.line for ln in lines], cards=[ln.card.id for ln in lines])
