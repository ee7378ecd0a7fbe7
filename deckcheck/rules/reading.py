"""Rules about reading the list and finding its cards: what the parser could not read, unknown
cards and sets, lines matched by name, the list's own total."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..cards.localnames import language_name
from ..deck import NOT_BY_SET
from ..names import basic_energy_type, name_key
from ..registry import ERROR, INFO, WARNING, Finding, parser_rule, rule
from .words import UPDATE_ADVICE, clipped, join_and, label, line_label, newest_set_phrase, plural, quoted

if TYPE_CHECKING:
    from ..cards import Card, CardDB
    from ..deck import Context, Deck, ResolvedLine


# what the parser reports while it reads, as rules a format can turn off
parser_rule(
    "unparsed-line",
    code="P101",
    description="A line that is neither a header nor a card (a lost card still fails `deck-size`)",
    severity=WARNING,
    title="A line that is neither a header nor a card",
)
parser_rule(
    "prose-ignored",
    code="P110",
    description="Text around a list in a Markdown code fence (a Discord post), ignored: one note naming its lines",
    severity=INFO,
    title="Prose around a decklist in a code block, ignored",
)
parser_rule(
    "several-decks",
    code="P111",
    description="A JSON export of several decks (an RK9 or Limitless event): only the first is checked",
    severity=WARNING,
    title="A JSON export of several decks; only the first is checked",
)
parser_rule(
    "json-shape",
    code="P112",
    description="JSON that is none of the deck shapes read (the message names them)",
    severity=ERROR,
    title="JSON that is no deck shape deckcheck reads",
)
NOT_A_DECKLIST = parser_rule(
    "not-a-decklist",
    code="P120",
    description=(
        "Text whose lines are mostly not card lines (at least 3 of them, more than the card lines): one "
        "problem naming the first card-like line, in place of an `unparsed-line` warning per line"
    ),
    severity=ERROR,
    title="Text whose lines are mostly not card lines: one problem instead of one per line",
)


def has_unknown_set(ln: ResolvedLine, db: CardDB) -> bool:
    """Does this resolved line name a set code the database does not know (:meth:`CardDB.knows_set`)?

    Only a line matched by name, or not at all, can: a printing, alias or name-and-set match
    found its set, and basic Energy resolves by type whatever the set.
    """
    return (
        ln.set_code is not None
        and ln.method in NOT_BY_SET
        and not db.knows_set(ln.set_code)
        and not _bracket_of_name(ln)
    )


def _bracket_of_name(ln: ResolvedLine) -> bool:
    """``1 Unown [A]``: the "set code" the parser read in brackets is part of the card's name."""
    return ln.card is not None and name_key(f"{ln.name} [{ln.set_code}]") == ln.card.key


def _in_language(ln: ResolvedLine) -> str:
    """``, the card it names in French`` after a card matched by a name in another language; else empty."""
    return f", the card it names in {language_name(ln.language)}" if ln.language is not None else ""


def _skips_unknown_sets(ctx: Context) -> bool:
    """unknown-card and resolved-by-name leave lines with an unknown set code to unknown-set,
    when the format runs it (one problem per line)."""
    return "unknown-set" in ctx.format.rules


def not_yet_printed(ln: ResolvedLine, ctx: Context) -> Card | None:
    """The first printing of an unknown line's name when there are printings of it, all released
    after the check's date (the line names no card on that date:
    :meth:`~deckcheck.cards.db.CardDB.on_date`); else None."""
    first = ctx.db.first_printed(ln.name)
    return first if first is not None and first.release > ctx.as_of.isoformat() else None


def _not_yet_printed_message(ln: ResolvedLine, first: Card, ctx: Context) -> str:
    return (
        f"Line {ln.line}: no printing of {quoted(ln.name)} had been released on {ctx.as_of.isoformat()}; "
        f"the card was first printed on {first.release} ({label(first)}). Its "
        f"{plural(ln.count, 'copy', 'copies')} still {'counts' if ln.count == 1 else 'count'} toward the deck size."
    )


def chosen_by_name(ln: ResolvedLine, ctx: Context) -> str:
    """Why the printing a line matched by name was taken, when it is not the newest printing of its
    name: ``, the newest printing released by DATE (... was released on ...)``, or ``, the newest
    printing released by DATE that is legal in FORMAT on that date (... is not)`` (the engine prefers
    one: ``engine.lines._Lines.by_name``); empty when it is the newest."""
    card, db = ln.card, ctx.db
    if card is None:
        return ""
    printings = db.printings_of(card)
    newest = printings[0] if printings else card
    if newest is card:
        return ""
    day = ctx.as_of.isoformat()
    out = db.released_printings(card, day)
    first_out = out[0] if out else None
    if first_out is card or first_out is None:
        if newest.release <= day:
            return ""  # another printing out the same day: the order of the card data
        return f", the newest printing released by {day} ({label(newest)} was released on {newest.release})"
    return (
        f", the newest printing released by {day} that is legal in {ctx.format.name} on that date "
        f"({label(first_out)} is not)"
    )


@rule(
    "unknown-set",
    code="C104",
    description=(
        "A set code the card database does not know (nor `data/set-aliases.csv`): the message names the "
        "database's newest set and its release date and says how to update; the line is matched by name, "
        "or is an unknown card, and still counts toward 60. It replaces `resolved-by-name` / "
        "`unknown-card` for that line"
    ),
    severity=WARNING,
    title="A set code the card database does not know (a newer set, or a typo)",
    needs="set_unmatched",
)
def unknown_set(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card line whose set code the card database does not know: a newer set than the database's, or a typo."""
    db = ctx.db
    for ln in deck.set_unmatched:  # the lines with a set code their resolution did not use
        if not has_unknown_set(ln, db):
            continue
        newest, code = db.newest_set(), clipped(ln.set_code or "")
        head = f"Line {ln.line}: the card database knows no set {code} (its newest set is {newest_set_phrase(db)})"
        after = f"a set released after {newest.name}" if newest is not None else "a new set"
        hint = f"If {code} is {after}, {UPDATE_ADVICE}."
        first = not_yet_printed(ln, ctx) if ln.card is None else None
        if first is not None:
            yield Finding(_not_yet_printed_message(ln, first, ctx), lines=(ln.line,), cards=(first.id,), severity=ERROR)
        elif ln.card is None:
            yield Finding(
                f"{head}, and no card named {quoted(ln.name)} was found; its "
                f"{plural(ln.count, 'copy', 'copies')} still {'counts' if ln.count == 1 else 'count'} "
                "toward the deck size.",
                lines=(ln.line,),
                hint=hint,
                severity=ERROR,
            )
        else:
            # basic Energy is played by its type whatever the set: a note, not a warning
            yield Finding(
                f"{head}, so {quoted(ln.name)} was matched by name to {label(ln.card)}{_in_language(ln)}"
                f"{chosen_by_name(ln, ctx)}.",
                lines=(ln.line,),
                cards=(ln.card.id,),
                hint=hint,
                severity=INFO if ln.card.is_basic_energy else "",
            )


@rule(
    "unknown-card",
    code="C101",
    description="A card not found in the database; its copies still count toward 60",
    severity=ERROR,
    title="A card that could not be found in the card database",
    needs="unknown",
)
def unknown_card(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card line whose card could not be found (its copies still count)."""
    if not deck.unknown:
        return
    skip = _skips_unknown_sets(ctx)
    for ln in deck.unknown:
        if skip and has_unknown_set(ln, ctx.db):
            continue
        first = not_yet_printed(ln, ctx)
        if first is not None:
            yield Finding(_not_yet_printed_message(ln, first, ctx), lines=(ln.line,), cards=(first.id,))
            continue
        where = " ".join(clipped(x) for x in (ln.set_code, ln.number) if x)
        hint = f"Did you mean {join_and(list(ln.suggestions), 'or')}?" if ln.suggestions else None
        yield Finding(
            f"Line {ln.line}: no card named {quoted(ln.name)}{' ' + where if where else ''} was "
            f"found in the card database; its {plural(ln.count, 'copy', 'copies')} still "
            f"{'counts' if ln.count == 1 else 'count'} toward the deck size.",
            lines=(ln.line,),
            hint=hint,
        )


@rule(
    "resolved-by-name",
    code="C102",
    description="A card matched by its name alone (no set code, or the printing was not found)",
    severity=INFO,
    title="A card found by its name alone",
    needs="name_matched",
)
def resolved_by_name(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A card line matched by its name alone (no set code, or a printing that was not found)."""
    if not deck.name_matched:
        return
    skip = _skips_unknown_sets(ctx)
    for ln in deck.name_matched:
        if skip and has_unknown_set(ln, ctx.db):
            continue
        if ln.set_code and _bracket_of_name(ln):
            # the name as written: "Unown [A]", or "EXP. ALL" and "Unit Energy LPM" (no brackets)
            written = f"{ln.name} [{ln.set_code}]" if "[" in ln.raw else f"{ln.name} {ln.set_code}"
            msg = f"Line {ln.line}: {quoted(written)} has no set code, so it was matched by name to {line_label(ln)}."
        elif ln.set_code:
            what = f"{clipped(ln.set_code)} {clipped(ln.number)}" if ln.number else clipped(ln.set_code)
            msg = (
                f"Line {ln.line}: no printing {what} of {quoted(ln.name)} was found, so it was matched by name to "
                f"{label(ln.card)}{_in_language(ln)}."
            )
        else:
            msg = (
                f"Line {ln.line}: {quoted(ln.name)} has no set code, so it was matched by name to "
                f"{label(ln.card)}{_in_language(ln)}."
            )
        yield Finding(msg[:-1] + chosen_by_name(ln, ctx) + ".", lines=(ln.line,), cards=(ln.card.id,))


@rule(
    "name-mismatch",
    code="C103",
    description="The set code and number name a different card from the one written; the printing wins",
    severity=WARNING,
    title="A set code and number whose card has another name than the one written",
    needs="name_differs",
)
def name_mismatch(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """A set code and number that name a different card from the one written (the printing wins)."""
    for ln in deck.name_differs:
        if ln.method == "basic-energy":  # a basic Energy named by its set code and number
            where = (
                f"{clipped(ln.set_code)} {clipped(ln.number or '')}"
                if ln.set_code
                else f"basic Energy {clipped(ln.number or '')}"
            )
            what = f"{basic_energy_type(ln.card.name)} Energy"
        else:
            where, what = f"{ln.card.set_code} {ln.card.number}", ln.card.name
        yield Finding(
            f"Line {ln.line} names {quoted(ln.name)}, but {where} is {what}; the line was checked as {label(ln.card)}.",
            lines=(ln.line,),
            cards=(ln.card.id,),
            hint=_mismatch_hint(ln, ctx.db),
        )


#: how alike (rapidfuzz ratio, 0-100) a written name and the printing's name are for the written one to
#: read as a misspelling of it rather than another name (another card's, or one in another language)
MISSPELLING_SIMILARITY = 80


def _mismatch_hint(ln: ResolvedLine, db: CardDB) -> str:
    """Why a line's name and its printing's differ: a misspelling of the printing's name, another card's
    name, or a name in no English list (another language)."""
    from rapidfuzz import fuzz

    card = ln.card
    assert card is not None
    if fuzz.ratio(name_key(ln.name), card.key) >= MISSPELLING_SIMILARITY:
        return f"{quoted(ln.name)} looks like a misspelling of {card.name}: the set code and number decide the card."
    if db.by_name(ln.name):
        return f"{quoted(ln.name)} is another card: check the set code and number, or the name."
    return (
        f"{quoted(ln.name)} is no English card name: a list in another language shows this on every line; "
        "otherwise check the set code and number."
    )


@rule(
    "total-mismatch",
    code="P102",
    description='The list\'s own "Total Cards" differs from the real count',
    severity=WARNING,
    title="The list's own total differs from the real count",
)
def total_mismatch(deck: Deck, ctx: Context) -> Iterable[Finding]:
    """The list's own Total Cards line differs from the real count (run on every deck: a plain function)."""
    declared = deck.declared_total
    if declared is None or declared == deck.total:
        return ()
    return (
        Finding(
            f"The list says Total Cards: {declared}, but its card lines add up to {deck.total}.",
            lines=(deck.declared_total_line,) if deck.declared_total_line else (),
        ),
    )
