"""What a rule may know besides the deck (:class:`Context`): the format, the date and the card database.
Made by the engine, read by the rules; :mod:`deckcheck.deck` re-exports it beside the deck's own types."""

from __future__ import annotations

import datetime as dt

from .cards import CardDB
from .formats import Format
from .names import name_key
from .problems import Problem


class Context:
    """What a rule may know besides the deck: the format, the date, the card database, and the
    problem with the date when the format's data does not reach it."""

    __slots__ = ("format", "as_of", "db", "date_problem")

    def __init__(self, format: Format, as_of: dt.date, db: CardDB, date_problem: Problem | None = None) -> None:
        self.format = format
        self.as_of = as_of
        self.db = db
        self.date_problem = date_problem

    @staticmethod
    def name_key(name: str) -> str:
        return name_key(name)

    def evolves_from_of(self, name: str) -> str | None:
        """What the newest printing named ``name`` evolves from."""
        found = self.db.by_name(name)
        return found[0].evolves_from if found else None
