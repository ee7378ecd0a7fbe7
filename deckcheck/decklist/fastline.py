"""A never-seen line of the usual shapes, read in one step: what :func:`lineread.read_line` answers.

:func:`deckcheck.decklist.parse.read` looks every line up in the line memo first; a line the memo does
not hold comes here (:func:`read_new`). The shapes nearly every real list is made of are read
with one pattern (:data:`_USUAL`) or one ``str.split`` and a few look-ups, without the general
reader's chain of calls (``_read_line`` -> ``_classify_line`` -> ``_common_card`` -> a tuple ->
the row's fields; headers through four patterns and Unicode folding):

* ``4 Nest Ball SVI 181`` (PTCGL, Limitless), with a trailing ``PH``, a bullet before the count
  (PTCGO's ``* 4 Dreepy TWM 128``), a set code with a suffix (``SV-P``), in lower case before the
  number (``asc 109``) or Limitless's ``Energy`` pseudo set after a name ending in Energy;
* ``Pokémon: 14``, ``Énergie : 3``, ``##Trainer Cards - 28``, ``Pokémon (22)``, ``Total Cards: 60``
  for the header labels as PTCGL and PTCGO write them (:data:`_WRITTEN_LABELS`);
* a PTCGO banner.

Anything else (and any line whose reading here is not certain) goes to :func:`read_line`, the
general reader, which stays the definition: tests/decklist/test_fast_paths.py checks this module against
it, under hypothesis. What is read is kept in the same memo as :func:`read_line`'s answers.
"""

from __future__ import annotations

import re

from .lineread import (
    _BULLETS,
    _NAME_SUFFIXES,
    _SECTION_LABELS,
    _TIMES,
    _TIMES_SP,
    _TOTAL_LABELS,
    BANNER,
    CARD,
    HEADER,
    MAX_COPIES,
    TOTAL,
    LineKind,
    _fold_label,
    _is_banner,
    _is_set_code,
    read_line,
)

#: a count as the usual line writes it (1 to 999, no leading zero) -> its value
COUNTS = {str(i): i for i in range(1, MAX_COPIES + 1)}
#: what a card line may start with on the fast path (a count's first digit, or a bullet)
_CARD_START = frozenset("123456789") | {b[0] for b in _BULLETS}
#: the bullets :func:`card_parts` reads before a count and a blank (``* 4 Dreepy TWM 128``), one
#: character each (tests/decklist/test_fast_paths.py)
BULLETS = _BULLETS
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _written_labels() -> dict[str, tuple[int, str | None]]:
    """Header labels as exports write them -> (HEADER or TOTAL, section or None); each is one the
    general reader folds into :data:`lineread._SECTION_LABELS` or :data:`lineread._TOTAL_LABELS`."""
    accented = {"pokemon": "pokémon", "energie": "énergie", "energia": "energía", "energias": "energías"}
    out: dict[str, tuple[int, str | None]] = {}
    for folded in (*_SECTION_LABELS, *_TOTAL_LABELS):
        first, _, rest = folded.partition(" ")
        spellings = {folded, f"{accented.get(first, first)} {rest}".strip()}
        for spelling in list(spellings):
            spellings |= {spelling.capitalize(), spelling.title(), spelling.upper()}
        for written in spellings:
            if _fold_label(written) == folded:
                out[written] = (TOTAL, None) if folded in _TOTAL_LABELS else (HEADER, _SECTION_LABELS[folded])
    return out


#: header and total labels as written -> (HEADER or TOTAL, section or None)
_WRITTEN_LABELS = _written_labels()

_put = read_line.memo.put


#: the usual card line, ``[bullet] count name CODE number [PH]``, tokens of non-blanks between
#: single blanks: what the general reader reads the same way (the lone times sign ``x`` and a name
#: that is a suffix-like code are left to it). Linear: possessive tokens, a lazy name whose every
#: end is tried against a tail of two or three bounded tokens.
_USUAL = re.compile(
    r"(?:[-*•>] )?([1-9][0-9]{0,2}) ((?![xX] )[A-Za-z]\S*+(?: \S++)*?) ((?=[0-9]*[A-Z])[A-Z0-9]{2,8}) ([0-9]{1,4})"
    r"(?: (PH))?"
)
_usual = _USUAL.fullmatch


def read_new(raw: str) -> LineKind:
    """:func:`read_line`'s answer for the non-empty line ``raw``, which its memo does not hold (the
    answer is kept there)."""
    kind = _card(raw) if raw[0] in _CARD_START else _header(raw)
    return read_line(raw) if kind is None else _put(raw, kind)


def card_parts(raw: str) -> tuple[int, str, str, str] | None:
    """``(count, name, set code, number)`` of a card line of the usual shape (the pattern's: what
    :func:`read_line` reads as ``(CARD, fields)`` with those four fields), else None (read it with
    :func:`read_new`). No field dict is made and nothing is kept in the parser's memo: for a caller
    that keeps what it makes of the line in a memo of its own (the engine's line memo)."""
    m = _usual(raw)
    if m is not None:
        count, name, code, number, _tag = m.groups()
        if code not in _NAME_SUFFIXES:
            return COUNTS[count], name, code, number
    return None


def usual_code(code: str) -> bool:
    """Whether :data:`_USUAL` reads ``code`` as the set code of ``N name code number``: 2 to 8 of
    ``A-Z0-9`` with a letter, not a name suffix (for a caller that makes such texts,
    :meth:`deckcheck.cards.db.CardDB.printed_line`; tests/decklist/test_fast_paths.py checks it against the pattern)."""
    # isupper: a cased character and none in lower case (with isalnum and isascii: [A-Z0-9], a letter)
    return 1 < len(code) < 9 and code.isascii() and code.isalnum() and code.isupper() and code not in _NAME_SUFFIXES


def usual_name(name: str) -> bool:
    """Whether :data:`_USUAL` reads ``name`` as the name of ``N name code number`` (a usual code, 1 to 4
    digits; the last two tokens of such a text are the code and the number, which no ``PH`` tag can
    follow): an ASCII letter first, not the times sign, tokens of non-blanks between single blanks
    (no other whitespace, no runs, no blank at an end)."""
    # the times sign is the pattern's "x" or "X" and a blank: a name that starts with it, or is it
    if not name or name[0] not in _ASCII_LETTERS or name[:2] in ("x ", "X ") or name in ("x", "X"):
        return False
    return name.split(" ") == name.split()


def _card(raw: str) -> LineKind | None:
    """``(CARD, fields)`` for a card line of the usual shape, else None."""
    m = _usual(raw)
    if m is not None:
        count, name, code, number, tag = m.groups()
        if code not in _NAME_SUFFIXES:
            fields = {
                "line": 0,
                "raw": raw,
                "count": COUNTS[count],
                "name": name,
                "set_code": code,
                "number": number,
                "section": None,
                "tag": tag,
            }
            return (CARD, fields)
    return _card_split(raw)


def _card_split(raw: str) -> LineKind | None:
    """:func:`_card` for the shapes its pattern leaves: Limitless's Energy pseudo set, a set code
    in lower case or with a suffix (``SV-P``), a name that is ``x``; read with ``str.split``."""
    tokens = raw.split(" ")
    start = 1 if len(tokens) > 1 and tokens[0] in _BULLETS else 0
    count = COUNTS.get(tokens[start])
    if count is None:
        return _banner(raw) if raw[0] == "*" else None
    n = len(tokens)
    tag = None
    if tokens[-1] == "PH":
        tag, n = "PH", n - 1
    if n - start < 4:
        return None
    number, written = tokens[n - 1], tokens[n - 2]
    if not (len(number) < 5 and number.isdigit() and number.isascii()):
        return None
    if 1 < len(written) < 9 and written.isalnum() and written.isascii() and written.isupper():
        # the usual code (lineread._is_set_code without its pattern)
        if written in _NAME_SUFFIXES:
            return None
        code = written
    elif (
        written.casefold() == "energy"
        and tokens[n - 3].casefold().endswith("energy")
        or written.islower()
        and written.isascii()
        and _is_set_code(written.upper())
        or _is_set_code(written)
    ):
        # Limitless's Energy pseudo set, a code in lower case, a code with a suffix (SV-P)
        code = written.upper()
    else:
        return None
    if "" in tokens or not (raw.isprintable() or tokens == raw.split()):
        return None  # runs of blanks, blanks around the line, other whitespace: the long way
    head = len(tokens[0]) + 1 + (len(tokens[1]) + 1 if start else 0)
    name = raw[head : len(raw) - len(written) - len(number) - (5 if tag else 2)]
    if name[0] not in _ASCII_LETTERS or name[:2] in _TIMES_SP or name in _TIMES:
        # a name without a leading ASCII letter, "2 x Pidgeot ex ...", "* 2 x SVI 1", "4 x svi 1" (the
        # general reader takes a lone x before a code in lower case for the times sign): the long way
        return None
    fields = {
        "line": 0,
        "raw": raw,
        "count": count,
        "name": name,
        "set_code": code,
        "number": number,
        "section": None,
        "tag": tag,
    }
    return (CARD, fields)


def _banner(raw: str) -> LineKind | None:
    return (BANNER,) if raw.startswith("***") and _is_banner(raw.strip()) else None


def _header(raw: str) -> LineKind | None:
    """``(HEADER, section, fields)`` or ``(TOTAL, count)`` for a header of a written label, else None."""
    body = raw.lstrip("#")
    label, colon, digits = body.partition(":")
    if colon:
        label, digits = label.rstrip(" "), digits.lstrip(" ")
    elif body[-1:] == ")":
        label, paren, digits = body[:-1].partition(" (")
        if not paren:
            return None
    else:
        label, _dash, digits = body.partition(" - ")
    known = _WRITTEN_LABELS.get(label)
    if known is None or not (0 < len(digits) < 7 and digits.isdigit() and digits.isascii()):
        return None
    kind, section = known
    if kind == TOTAL:
        return (TOTAL, int(digits))
    return (HEADER, section, {"line": 0, "section": section, "label": label, "count": int(digits)})
