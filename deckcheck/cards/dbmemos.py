"""The memos of one card database (:class:`DBMemos`, held by the :class:`~deckcheck.cards.db.CardDB`
object) and their bounds: resolutions and suggestions. A swapped-in database starts with memos of its own."""

from __future__ import annotations

from ..memo import Memo
from .printings import Resolution

#: resolutions and suggestions a database keeps (each memo emptied when full)
RESOLVE_MEMO_SIZE = 8192


class DBMemos:
    """The memos of one card database, held by it: a swapped-in database starts empty and never
    answers from another one's cards."""

    __slots__ = ("resolved", "suggested", "suggested_in")

    def __init__(self) -> None:
        #: (name, set code, number) -> Resolution
        self.resolved: Memo[tuple[str, str | None, str | None], Resolution] = Memo(RESOLVE_MEMO_SIZE)
        #: (name, limit) -> what :meth:`~deckcheck.cards.db.CardDB.suggest` found
        self.suggested: Memo[tuple[str, int], tuple[str, ...]] = Memo(RESOLVE_MEMO_SIZE)
        #: (name, language, limit) -> what :meth:`~deckcheck.cards.db.CardDB.suggest_in` found
        self.suggested_in: Memo[tuple[str, str, int], tuple[str, ...]] = Memo(RESOLVE_MEMO_SIZE)

    def clear(self) -> None:
        """Forget every entry of every memo."""
        self.resolved.clear()
        self.suggested.clear()
        self.suggested_in.clear()
