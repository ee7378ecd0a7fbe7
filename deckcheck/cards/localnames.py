"""Card names in the players' languages: what a French, German, Spanish, Italian or Portuguese list
calls a card, and the English card that name is.

A printing's name in another language is a name of the same card: ``Hyper Ball`` (French) is
Ultra Ball, and counts toward Ultra Ball's copy limit (the name key stays the English name). The
table comes from TCGdex's names of each printing (``deckcheck db build --names-i18n FILE``,
:mod:`deckcheck.sync.localnames`) and is stored beside the database as :data:`NAMES_FILE`, one
entry per distinct localized name (most printings of a card share one name)::

    {"schema": 1, "meta": {...source...},
     "english": ["Ultra Ball", ...],                  # the English names the entries point to
     "names": {"fr": [["Hyper Ball", 17], ["Lilia", 3], ...], "de": [...], ...},
     "keys": {"fingerprint": "...", "fr": ["hyper ball", "lilia", ...], ...}}   # optional

An entry is a localized name and the indices of the English names it is (a few names are two
cards' in one language: German ``Mewtu`` is Mewtwo and Mewtwo Star). ``keys`` holds each entry's
lookup key as the code that wrote the file made it; they are used when that code is this one
(the index's fingerprint), and made at load otherwise. Only names that differ from
the English one are stored. The file is read on first use (a line whose name is no English card
name, or whose printing bears another name), never at start-up: an English list does not pay
for it.

Which card a name is, when several languages write it for different cards (``Lilia`` is Lileep in
French, Iris in German and Drasna in Italian), is decided English first (a name that is an English
card name is that card), then in the list's language (:func:`list_language`: the language most of
its translated names are in), then in :data:`LANGUAGES`' order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..memo import Memo
from ..names import lookup_key

#: the languages whose names the table may hold (TCGdex's codes) and their names in messages, in
#: the order a name several of them write for different cards is read in when the list's own
#: language does not decide
LANGUAGES = {
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "es-mx": "Latin American Spanish",
}
#: answers :meth:`LocalNames.languages_of` keeps (the memo is emptied when full)
LANGUAGES_MEMO_SIZE = 4096
#: the file beside the database that holds the table
NAMES_FILE = "names-i18n.json.gz"
#: the layout of that file
NAMES_SCHEMA = 1
#: a language's place in :data:`LANGUAGES`' order
_ORDER = {lang: i for i, lang in enumerate(LANGUAGES)}

#: a localized name as the table keeps it: (language, the name as TCGdex writes it, the English names)
Entry = tuple[str, str, tuple[str, ...]]


class NamesError(ValueError):
    """The localized names file is malformed."""


class LocalNames:
    """The table of localized card names, by lookup key (:func:`~deckcheck.names.lookup_key`, so
    ``Melofee`` finds ``Mélofée``). Never mutated after it is made, except for the per-language
    suggestion pools (one per language, made on first use)."""

    __slots__ = ("by_key", "meta", "_pools", "_languages")

    def __init__(
        self,
        names: dict[str, list[tuple[str, tuple[str, ...]]]],
        meta: dict[str, Any],
        keys: dict[str, list[str]] | None = None,
    ) -> None:
        by_key: dict[str, list[Entry]] = {}
        for lang in sorted(names, key=lambda code: _ORDER.get(code, len(_ORDER))):
            known = (keys or {}).get(lang)
            for i, (written, english) in enumerate(names[lang]):
                key = known[i] if known is not None else lookup_key(written)
                if key:
                    by_key.setdefault(key, []).append((lang, written, english))
        #: lookup key -> its entries, in :data:`LANGUAGES`' order
        self.by_key: dict[str, tuple[Entry, ...]] = {k: tuple(v) for k, v in by_key.items()}
        self.meta = meta
        #: (name, card key) -> :meth:`languages_of`'s answer (a list's lines ask for each of theirs)
        self._languages: Memo[tuple[str, str | None], tuple[str, ...]] = Memo(LANGUAGES_MEMO_SIZE)
        #: language -> (its choices for rapidfuzz, choice -> the name shown)
        self._pools: dict[str, tuple[list[str], dict[str, str], int]] = {}

    def entries(self, name: str) -> tuple[Entry, ...]:
        """The table's entries for a name as written (any case, accents or not)."""
        return self.by_key.get(lookup_key(name), ())

    def language_of(self, name: str, card_key: str) -> str | None:
        """The first language (:data:`LANGUAGES`' order) in which ``name`` is a name of the card whose
        lookup key is ``card_key``; None when it is none of its names."""
        for lang, _written, english in self.entries(name):
            if any(lookup_key(e) == card_key for e in english):
                return lang
        return None

    def languages_of(self, name: str, card_key: str | None = None) -> tuple[str, ...]:
        """Every language in which ``name`` is a card's name (that card's, when ``card_key`` is given);
        memoised (at most :data:`LANGUAGES_MEMO_SIZE` answers)."""
        known = self._languages.get((name, card_key))
        if known is None:
            known = self._languages.put((name, card_key), self._languages_of(name, card_key))
        return known

    def _languages_of(self, name: str, card_key: str | None) -> tuple[str, ...]:
        out: list[str] = []
        for lang, _written, english in self.entries(name):
            if lang not in out and (card_key is None or any(lookup_key(e) == card_key for e in english)):
                out.append(lang)
        return tuple(out)

    def pick(self, name: str, prefer: str | None = None) -> tuple[str, str] | None:
        """``(language, English name)`` of the card ``name`` is in another language: in ``prefer`` when
        it is a name there, else in the first language that writes it; None when no language does."""
        found = self.entries(name)
        if not found:
            return None
        chosen = next((e for e in found if e[0] == prefer), found[0]) if prefer else found[0]
        return chosen[0], chosen[2][0]

    def pool(self, lang: str, english: Sequence[str]) -> tuple[list[str], dict[str, str], int]:
        """What :meth:`suggest` compares a name with in ``lang``: the lookup keys of the language's
        names and of the English names (``english``, lookup keys) of the cards it has no name of its
        own for; key -> the name as the language writes it (the English keys are not in it); and
        the longest key's length.
        Made once per language: bounded by the database's names."""
        made = self._pools.get(lang)
        if made is None:
            shown: dict[str, str] = {}
            translated: set[str] = set()
            for key, found in self.by_key.items():
                for entry_lang, written, names in found:
                    if entry_lang == lang:
                        shown.setdefault(key, written)
                        translated.update(lookup_key(e) for e in names)
            choices = [*shown, *(key for key in english if key not in translated and key not in shown)]
            made = self._pools[lang] = (choices, shown, max(map(len, choices), default=0))
        return made

    def suggest(
        self, name: str, lang: str, english: Sequence[str], display: Callable[[str], str], limit: int = 3
    ) -> tuple[str, ...]:
        """Up to ``limit`` names in ``lang`` close to ``name`` (rapidfuzz's QRatio with the English
        suggestions' cutoff), written as that language writes them; an English name (a card with no
        name of its own in ``lang``) as ``display`` of its lookup key says."""
        query = lookup_key(name)
        if not query:
            return ()
        from rapidfuzz import fuzz, process

        choices, shown, longest = self.pool(lang, english)
        if 3 * len(query) > 7 * longest:  # too long to be close to any name (as CardDB._suggest)
            return ()
        out: list[str] = []
        for key, _score, _ in process.extract(query, choices, scorer=fuzz.QRatio, limit=limit * 3, score_cutoff=60):
            written = shown.get(key) or display(key)
            if written not in out:
                out.append(written)
        return tuple(out[:limit])


def list_language(lines: Iterable[Any], names: LocalNames | None) -> str | None:
    """The language a list's translated names are in: of the lines read in another language
    (``ln.language`` set), the language most of their names are written in (a name several
    languages write counts for each, whichever card it was read as: ``Ultraball`` is German and
    Spanish; a tie goes to :data:`LANGUAGES`' order); None when no line was read in another
    language."""
    if names is None:
        return None
    votes: dict[str, int] = {}
    for ln in lines:
        if ln.language is not None:
            for lang in names.languages_of(ln.name) or (ln.language,):
                votes[lang] = votes.get(lang, 0) + 1
    if not votes:
        return None
    return min(votes, key=lambda lang: (-votes[lang], _ORDER.get(lang, len(_ORDER)), lang))


def language_name(lang: str) -> str:
    """``French`` for ``fr``; the code itself for a language :data:`LANGUAGES` does not name."""
    return LANGUAGES.get(lang, lang)


def read_names(path: Path) -> LocalNames | None:
    """The table in the file at ``path``; None when there is no such file.

    :raises NamesError: when the file is there but malformed (a broken file fails loudly).
    """
    import gzip
    import zlib

    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NamesError(f"localized names at {path} are unreadable: {exc}") from exc
    try:
        raw = orjson.loads(gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob)
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise NamesError(f"localized names at {path} are unreadable: {exc}") from exc
    try:
        return from_dict(raw)
    except NamesError as exc:
        raise NamesError(f"localized names at {path}: {exc}") from exc


def from_dict(raw: object) -> LocalNames:
    """The table of a names file's JSON (the layout in this module's docstring).

    :raises NamesError: when it is not of that layout.
    """
    if not isinstance(raw, dict) or raw.get("schema") != NAMES_SCHEMA:
        raise NamesError(f"not a localized names table of schema {NAMES_SCHEMA}")
    english, languages, meta = raw.get("english"), raw.get("names"), raw.get("meta", {})
    if not isinstance(english, list) or not all(isinstance(e, str) and e for e in english):
        raise NamesError("'english' is not a list of names")
    if not isinstance(languages, dict) or not isinstance(meta, dict):
        raise NamesError("'names' or 'meta' is not an object")
    names: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    keys = _stored_keys(raw.get("keys"), languages)
    top = len(english)
    for lang, entries in languages.items():
        if type(entries) is not list or not all(type(e) is list and len(e) > 1 and type(e[0]) is str for e in entries):
            raise NamesError(f"the {lang!r} names are not a list of [name, index, ...] entries")
        # every index at once (a pass in C): ints, none below 0 or past the English names
        flat = [i for e in entries for i in e[1:]]
        if set(map(type, flat)) - {int} or (flat and (min(flat) < 0 or max(flat) >= top)):
            raise NamesError(f"a {lang!r} entry names no English name")
        at = english.__getitem__
        names[lang] = [(e[0], tuple(map(at, e[1:]))) for e in entries]
    return LocalNames(names, meta, keys)


def _stored_keys(stored: object, languages: dict[str, Any]) -> dict[str, list[str]] | None:
    """The lookup keys the file carries for its names (``"keys": {"fingerprint", lang: [key per
    entry]}``), when the code that made them is this one (:func:`deckcheck.cards.index.fingerprint`: this
    names.py) and there is one text per entry; else None (the keys are made at load: slower, never
    wrong)."""
    from .index import fingerprint

    if not isinstance(stored, dict) or stored.get("fingerprint") != fingerprint():
        return None
    out: dict[str, list[str]] = {}
    for lang, entries in languages.items():
        keys = stored.get(lang)
        if type(keys) is not list or len(keys) != len(entries) or not all(type(k) is str for k in keys):
            return None
        out[lang] = keys
    return out
