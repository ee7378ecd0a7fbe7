"""Wording shared by the rules' messages: card names as players say them, plurals, lists."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..cards import Card, CardDB
    from ..deck import KnownLine

from ..decklist.lineread import ECHO_LIMIT as ECHO_LIMIT
from ..decklist.lineread import shorten
from ..names import without_subtitle
from ..wording import plural as plural


def display_name(card: Card) -> str:
    """The card's name as players say it: ``Professor's Research``, not ``... (Professor Oak)``."""
    return without_subtitle(card.name)


def label(card: Card) -> str:
    """``Nest Ball (SVI 181)`` for messages."""
    return f"{display_name(card)} ({card.set_code} {card.number})"


def line_label(ln: KnownLine) -> str:
    """A line's card for messages, named as the player wrote it: :func:`label`, or for a name read in
    another language the name written, then the card's: ``Hyper Ball (Ultra Ball, SVI 196)``."""
    card = ln.card
    if ln.language is None:
        return label(card)
    return f"{shorten(ln.name)} ({display_name(card)}, {card.set_code} {card.number})"


def written_name(ln: KnownLine) -> str:
    """A line's card name for messages that list names: :func:`display_name`, or for a name read in
    another language the name written and the card's: ``Hyper Ball (Ultra Ball)``."""
    if ln.language is None:
        return display_name(ln.card)
    return f"{shorten(ln.name)} ({display_name(ln.card)})"


def card_names(lines: Iterable[KnownLine]) -> list[str]:
    """The names of the lines' cards as written (:func:`written_name`), each once, in order."""
    seen: list[str] = []
    for ln in lines:
        name = written_name(ln)
        if name not in seen:
            seen.append(name)
    return seen


def quoted(text: str) -> str:
    """``"text"`` for a message: text from the list quoted as written; one over :data:`ECHO_LIMIT`
    characters is cut there (:func:`~deckcheck.decklist.lineread.shorten`) and its length said, so a 60 KB
    name makes no 60 KB message: ``"Nest Bal…" (60,002 characters)``."""
    return f'"{text}"' if len(text) <= ECHO_LIMIT else f'"{shorten(text)}" ({len(text):,} characters)'


def clipped(text: str) -> str:
    """:func:`quoted` without the quotes, for a set code or number from the list: ``QQQ… (5,000 characters)``."""
    return text if len(text) <= ECHO_LIMIT else f"{shorten(text)} ({len(text):,} characters)"


def join_and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def lines_and_ids(lines: Iterable[KnownLine]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The line numbers and card ids of known lines, for a problem."""
    return tuple([ln.line for ln in lines]), tuple([ln.card.id for ln in lines])


#: how a card database is brought up to date, said wherever it is found behind (one place)
UPDATE_ADVICE = 'update the card database with "deckcheck db sync" or a newer release of deckcheck'


def newest_set_phrase(db: CardDB) -> str:
    """``Pitch Black, released 2026-07-17``: the newest set the database has cards of."""
    newest = db.newest_set()
    if newest is None:
        return "unknown (the database has no dated set)"
    return f"{newest.name}, released {newest.release}"
