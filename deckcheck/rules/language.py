"""The note that a list's card names were read in another language (:mod:`deckcheck.cards.localnames`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..cards.localnames import language_name, list_language
from ..problems import line_list
from ..registry import INFO, Finding, rule
from .words import join_and, plural

if TYPE_CHECKING:
    from ..deck import Context, Deck


@rule(
    "names-in-language",
    code="C106",
    description=(
        "Card names written in another language (French, German, Spanish, Italian, Portuguese: TCGdex's names"
        " of each printing) were recognised: one note per list names the language and the lines; each line is"
        " checked as the card it names, whose English name the copy limit counts"
    ),
    severity=INFO,
    title="Card names written in another language, each read as the card it names",
    needs="localized",
)
def names_in_language(deck: Deck, ctx: Context) -> Iterator[Finding]:
    """One note per list: the language its translated card names were recognised in, and their lines
    (a line of a name another language writes too is counted in the list's language)."""
    lines = deck.localized
    names = ctx.db.local_names()
    main = list_language(lines, names)
    if main is None or names is None:
        return
    by_lang: dict[str, list[int]] = {}
    for ln in lines:
        spoken = names.languages_of(ln.name, ln.card.key.lower())
        by_lang.setdefault(main if main in spoken else ln.language or main, []).append(ln.line)
    parts = [
        f"in {language_name(lang)} on {plural(len(nums), 'line')}{line_list(nums)}"
        for lang, nums in sorted(by_lang.items(), key=lambda item: (item[0] != main, min(item[1])))
    ]
    yield Finding(
        f"Card names were recognised {join_and(parts)}; each was checked as the card it names, "
        "and counts toward that card's copy limit with its English name.",
        lines=tuple(ln.line for ln in lines),
        cards=tuple(dict.fromkeys(ln.card.id for ln in lines)),
    )
