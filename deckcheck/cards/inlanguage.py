"""Card names in other languages at resolution: a line whose name is no English card name read
as a name in another language (:mod:`deckcheck.cards.localnames` holds the names), suggestions
in a list's language, the language a printing's name is written in. A base of
:class:`~deckcheck.cards.db.CardDB` (its methods are the database's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .dbmemos import DBMemos
from .printings import Card, DatabaseError, PrintingTable, Resolution

if TYPE_CHECKING:
    from .localnames import LocalNames


class OtherLanguages:
    """The resolution of names in other languages of :class:`~deckcheck.cards.db.CardDB`."""

    path: str | None
    _by_name: PrintingTable
    _names: list[str]
    _memos: DBMemos
    _local: Any
    suggest: Callable[..., tuple[str, ...]]
    find_named: Callable[[str, str, str], Card | None]
    _resolve: Callable[[str, str | None, str | None], Resolution]
    knows_set: Callable[[str], bool]
    by_name: Callable[[str], tuple[Card, ...]]

    def local_names(self) -> LocalNames | None:
        """The card names in other languages (:mod:`deckcheck.cards.localnames`), read from the file
        beside the database on first use; None when there is none (a database of its own).

        :raises DatabaseError: when that file is malformed.
        """
        local = self._local
        if local is False:
            from .localnames import NAMES_FILE, NamesError, read_names

            try:
                local = read_names(Path(self.path).parent / NAMES_FILE) if self.path else None
            except NamesError as exc:
                raise DatabaseError(str(exc)) from exc
            self._local = local
        return local  # type: ignore[no-any-return]

    def suggest_in(self, name: str, lang: str, limit: int = 3) -> tuple[str, ...]:
        """:meth:`suggest` for a list written in ``lang``: names as that language writes them, from
        its names and the English names of the cards it has none of its own for (memoised as
        :meth:`suggest`)."""
        local = self.local_names()
        if local is None:
            return self.suggest(name, limit)
        memo = self._memos.suggested_in
        hit = memo.get((name, lang, limit))
        if hit is None:
            hit = memo.put((name, lang, limit), local.suggest(name, lang, self._names, self._display, limit))
        return hit

    def _local_whole(self, name: str, set_code: str | None, number: str | None) -> Resolution | None:
        """A name in another language whose last word the reader took for a set code: ``Lugia V ASTRO``
        (Italian for Lugia VSTAR), ``Passe de Combat VIP`` (French for Battle VIP Pass) read as name and
        code with no number. When that code is no set the database knows and the whole text is a name
        in another language, the line is that name's card; None otherwise (English names ending so,
        ``Old PC``, are read by :meth:`_resolve`'s bracket rule)."""
        if not set_code or number or self.knows_set(set_code):
            return None
        whole = f"{name} {set_code}"
        if self.by_name(whole):
            return None
        local = self.local_names()
        if local is None or not local.entries(whole):
            return None
        res = self._resolve_local(whole, None, None, None)
        return res if res.card is not None else None

    def local_whole(self, written: str, card: Card) -> bool:
        """Is ``written`` a name of ``card`` in another language (:meth:`_local_whole` read the line so)?"""
        local = self.local_names()
        return local is not None and local.language_of(written, card.key.lower()) is not None

    def resolve_in(self, name: str, set_code: str | None, number: str | None, lang: str) -> Resolution | None:
        """The resolution of a name-only line (a set code and number that found no printing) read in
        ``lang`` first: what :meth:`resolve_parts` answers when a name several languages write for
        different cards is read in the list's language. None when ``name`` is no name in ``lang``."""
        local = self.local_names()
        if local is None or not any(e[0] == lang for e in local.entries(name)):
            return None
        return self._resolve_local(name, set_code, number, lang)

    def _display(self, key: str) -> str:
        """The name of the newest printing of a lookup key (a key of the name index)."""
        return self._by_name[key][0].name

    def _language_of(self, name: str, card: Card) -> str | None:
        """The language in which ``name`` is a name of ``card`` (its English name's), or None."""
        local = self.local_names()
        return local.language_of(name, card.key.lower()) if local is not None else None

    def _local_bearer(self, code: str, number: str, name: str) -> tuple[Card, str] | None:
        """The printing at this set code and number (:meth:`find_named`'s places) whose name in another
        language ``name`` is, with that language; None when there is none."""
        local = self.local_names()
        if local is None:
            return None
        for lang, _written, english in local.entries(name):
            for other in english:
                bearer = self.find_named(code, number, other)
                if bearer is not None:
                    return bearer, lang
        return None

    def _resolve_local(self, name: str, set_code: str | None, number: str | None, prefer: str | None) -> Resolution:
        """A line whose name is no English card name, read as a name in another language: resolved
        as the English name it is (the same choice of printing as an English line's), with the
        language; unresolved when it is no card's name in any language."""
        local = self.local_names()
        picked = local.pick(name, prefer) if local is not None else None
        if picked is None:
            return Resolution(None, "unresolved")
        lang, english = picked
        res = self._resolve(english, set_code, number)
        if res.card is None:
            return Resolution(None, "unresolved")
        # the English name's printing: a set code and number that find another card say so, as they would
        return Resolution(res.card, res.method, (), res.name_differs, None if res.name_differs else lang)
