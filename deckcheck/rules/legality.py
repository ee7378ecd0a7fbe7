"""Legality rules: a card outside the format's pool on the date, a ban, a printing legal through
its reprint, a printing that says it cannot be used at official tournaments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..registry import ERROR, INFO, WARNING, Finding, rule
from .recommend import recommended
from .words import join_and, label, line_label

if TYPE_CHECKING:
    from ..cards import Card
    from ..deck import Context, Deck


@rule(
    "not-in-format",
    code="R201",
    description="Not in the card pool on the date, and no functionally identical reprint is",
    severity=ERROR,
    title="A card that is not legal in the format",
    needs="not_legal",
)
def not_in_format(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card that is not legal in the format on the date (not checked when the date is out of range)."""
    if ctx.date_problem:
        return
    outside = deck.not_legal  # known lines neither legal nor banned
    if deck.not_tournament and NOT_TOURNAMENT in ctx.format.rules:
        # a printing no tournament takes is reported once, by that rule, whatever the pool
        barred = ctx.db.not_for_tournaments()
        outside = [ln for ln in outside if ln.card.id not in barred]
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
            explained = memo.put(
                ("why", card.id),
                (
                    label(card),
                    _unreleased(card, ctx) or ctx.format.why_not_legal(card, ctx.db, ctx.as_of),
                    _other_printing_hint(card, ctx),
                ),
            )
        name, why, hint = explained
        if ln.language is not None:  # named as written (the memo holds the card's own label)
            name = line_label(ln)
        yield Finding(f"{name} (line {ln.line}){tail}{why}.", lines=(ln.line,), cards=(card.id,), hint=hint)


def _unreleased(card: Card, ctx: Context) -> str | None:
    """The reason a printing released after the check's date with no functionally identical printing
    out on it is not legal (a line naming one is checked as that one: legal-by-reprint); else None."""
    day = ctx.as_of.isoformat()
    if not card.release or card.release <= day or ctx.db.identical_printing(card, day) is not None:
        return None
    legal = ctx.format.legal_date(card)
    # the first legal day, when the format waits after a release (Standard's two weeks)
    when = f" (it is legal from {legal.isoformat()})" if legal is not None and legal.isoformat() != card.release else ""
    return f"it was released on {card.release}, after {day}, and no identical printing had been released by then{when}"


def _other_printing_hint(card: Card, ctx: Context) -> str | None:
    """Name a legal printing with the same name whose text differs, the likely source of confusion; for a
    printing of a set the format closes to the reprint rule, a legal one with its text."""
    fmt, db, on = ctx.format, ctx.db, ctx.as_of
    if card.set_id in fmt.pool.closed_sets:
        for same in db.printings_of(card):  # newest first
            if (
                same.fingerprint == card.fingerprint
                and same.key == card.key
                and fmt.legality(same, db, on) == (same, None)
            ):
                return f"{label(same)} has the same text and is legal: play that printing instead."
    other = ctx.format.legal_other_printing(card, ctx.db, ctx.as_of)
    if other is None:
        return None
    best = recommended(card.name, ctx.format, ctx.db, ctx.as_of)  # the one a fix offers first: regular art
    if best is not None and best.key == card.key:
        other = best
    return (
        f"{label(other)} is legal, but its text differs from this printing's, so the reprint rule "
        "does not cover this one."
    )


@rule(
    "legal-by-reprint",
    code="R204",
    description=(
        "A printing legal only through a functionally identical reprint: names the legal printing, whose "
        "text is played (Handbook 4.1.3); in Unlimited, where every printing is legal, an older printing "
        "names its newest reprint out on the date, whose wording is used (4.2.2)"
    ),
    severity=INFO,
    title="A printing legal through a functionally identical reprint, whose text applies",
    needs=lambda fmt: "known" if fmt.pool.kind == "all" else "reprinted",
)
def legal_by_reprint(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A printing that is legal only through a functionally identical reprint: the legal
    printing's text is the one played (Tournament Handbook 4.1.3). In a format whose pool is
    every card (Unlimited), every printing is legal, but "the wording of the most recent
    version is used" (4.2.2): an older printing names its newest reprint."""
    if ctx.date_problem:
        return
    every_card = ctx.format.pool.kind == "all"
    day = ctx.as_of.isoformat()
    barred = ctx.db.not_for_tournaments() if NOT_TOURNAMENT in ctx.format.rules else {}
    # only a printing legal through another can have something to say, unless every printing may name its newest
    for ln in deck.known if every_card else deck.reprinted:
        via, card = ln.legal_via, ln.card
        if via is None or ln.ban is not None or card.is_basic_energy and via is card or card.id in barred:
            continue
        if via is not card:
            if card.release > day:
                # a printing from after the date (an old list written with newer printings): checked as
                # the identical printing out then, which the format takes only if it was out (Format.in_pool)
                yield Finding(
                    f"Line {ln.line}: {label(card)} was released on {card.release}, after {day}; it was checked "
                    f"as the identical {label(via)}, released on {via.release}.",
                    lines=(ln.line,),
                    cards=(card.id, via.id),
                    severity=WARNING,
                )
                continue
            yield Finding(
                f"Line {ln.line}: {line_label(ln)} is legal as {label(via)}; play it with that card's text.",
                lines=(ln.line,),
                cards=(card.id, via.id),
            )
        elif every_card and (newest := _newest_reprint(card, ctx)) is not None:
            yield Finding(
                f"Line {ln.line}: {line_label(ln)} is legal; play it with the text of its "
                f"newest printing, {label(newest)}.",
                lines=(ln.line,),
                cards=(card.id, newest.id),
            )


def _newest_reprint(card: Card, ctx: Context) -> Card | None:
    """The newest printing out on the date with the same name and functional text, when it is
    from another set than ``card`` (else None); memoised beside the legality answers."""
    memo = ctx.format.legality_table(ctx.db, ctx.as_of)
    key = ("newest", card.id)
    if key in memo:
        known: Card | None = memo[key]
        return known
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


@rule(
    "banned",
    code="R202",
    description="On the format's ban list on the date",
    severity=ERROR,
    title="A card on the format's ban list",
    needs="banned",
)
def banned(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card on the format's ban list on the date."""
    for ln in deck.banned:
        ban = ln.ban
        assert ban is not None
        since = f" since {ban.since.isoformat()}" if ban.since else ""
        if ban.by_name:
            msg = (
                f"{line_label(ln)} (line {ln.line}) is banned in {ctx.format.name}{since}: every printing of "
                f"{ban.name} is banned."
            )
            hint = None
        else:
            msg = f"{line_label(ln)} (line {ln.line}) is banned in {ctx.format.name}{since}."
            others = [c for c in ctx.db.printings_of(ln.card) if c.key == ln.card.key and not ban.covers(c, ctx.db)]
            hint = (
                (
                    f"The ban covers {join_and([f'{s} {n}' for s, n in ban.printings])} only; other printings of "
                    f"{ban.name} are not banned."
                )
                if others
                else None
            )
        yield Finding(msg, lines=(ln.line,), cards=(ln.card.id,), hint=hint)


#: the rule's name, which the other legality rules ask the format for
NOT_TOURNAMENT = "not-tournament-legal"


@rule(
    NOT_TOURNAMENT,
    code="R205",
    description=(
        'A printing whose text says "This card cannot be used at official tournaments" (Imakuni?\'s Doduo EVO '
        "112, some Black Star promos): never legal, whatever its set or a reprint; found in the card text at "
        "the database's build (`data/deck-rules.csv`)"
    ),
    severity=ERROR,
    title="A printing that cannot be used at official tournaments",
    needs="not_tournament",
)
def not_tournament_legal(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A printing whose own text keeps it out of official tournaments ("This card cannot be used at
    official tournaments."): the card's text overrides the format's pool, and a reprint of it with
    the same text does not make it legal either."""
    barred = ctx.db.not_for_tournaments()
    for ln in deck.not_tournament:
        card = ln.card
        said = barred[card.id].strip("()")
        yield Finding(
            f'{line_label(ln)} (line {ln.line}) cannot be played in {ctx.format.name}: the card says "{said}"',
            lines=(ln.line,),
            cards=(card.id,),
            hint=None if ctx.date_problem else _playable_printing(card, barred, ctx),
        )


def _playable_printing(card: Card, barred: dict[str, str], ctx: Context) -> str | None:
    """Name a printing with the same name that is legal on the date and may be used at tournaments."""
    fmt, db, on = ctx.format, ctx.db, ctx.as_of
    for other in db.printings_of(card):  # newest first
        if other.key == card.key and other.id not in barred and fmt.legality(other, db, on) == (other, None):
            return f"{label(other)} has the same name and is legal, but its text differs from this printing's."
    return None
