"""A never-seen line of the usual shapes, read in one step: what :func:`lineread.read_line` answers.

:func:`deckcheck.decklist.parse.read` looks every line up in the line memo first; a line the memo does
not hold comes here (:func:`read_new`). The shapes nearly every real list is made of are read
without the general reader's chain of calls (``_read_line`` -> ``usual_card`` -> a tuple -> the
row's fields; headers through four patterns and Unicode folding):

* the usual card line (``4 Nest Ball SVI 181``, ``* 4 Dreepy TWM 128 PH``, ``4 Cynthia's Gible asc
  109``...), read as :func:`~deckcheck.decklist.vocab.usual_card` reads it (its pattern, then its
  split), the pattern's groups made into the row's fields at once;
* ``Pokémon: 14``, ``Énergie : 3``, ``##Trainer Cards - 28``, ``Pokémon (22)``, ``Total Cards: 60``
  for the header labels as PTCGL and PTCGO write them (:func:`~deckcheck.decklist.vocab.written_labels`);
* a PTCGO banner.

Any other line is read the general reader's long way (:func:`~deckcheck.decklist.lineread.read_long`).
The general reader stays the definition: tests/decklist/test_usual_line.py checks this module against
it, under hypothesis. What is read is kept in the same memo as :func:`read_line`'s answers."""

from __future__ import annotations

from . import vocab
from .lineread import BANNER, CARD, HEADER, TOTAL, LineKind, read_line, read_long
from .vocab import BULLETS as BULLETS
from .vocab import COUNTS as COUNTS
from .vocab import NAME_SUFFIXES, is_banner, usual_split, written_labels
from .vocab import card_parts as card_parts
from .vocab import usual_code as usual_code
from .vocab import usual_name as usual_name

#: what a card line may start with (a count's first digit, or a bullet)
_CARD_START = frozenset("123456789") | BULLETS
_put = read_line.memo.put


def read_new(raw: str) -> LineKind:
    """:func:`read_line`'s answer for the non-empty line ``raw``, which its memo does not hold (the
    answer is kept there)."""
    kind = _card(raw) if raw[0] in _CARD_START else _header(raw)
    # not a usual line: the general reader's long way (what read_line answers for such a line)
    return _put(raw, read_long(raw) if kind is None else kind)


def _card(raw: str) -> LineKind | None:
    """``(CARD, fields)`` for a card line of the usual shape (:func:`~deckcheck.decklist.vocab.usual_card`,
    its pattern's groups made into the fields at once), a ``(BANNER,)``, else None."""
    m = vocab.usual_match(raw)
    if m is not None:
        written, name, code, number, tag = m.groups()
        if code in NAME_SUFFIXES:
            return None
        count = COUNTS[written]
    else:
        usual = usual_split(raw)
        if usual is None:
            return _banner(raw) if raw[0] == "*" else None
        count, name, code, number, tag = usual
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
    return (BANNER,) if raw.startswith("***") and is_banner(raw.strip()) else None


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
    section = written_labels().get(label, "")  # "": not a written label
    if section == "" or not (0 < len(digits) < 7 and digits.isdigit() and digits.isascii()):
        return None
    if section is None:
        return (TOTAL, int(digits))
    return (HEADER, section, {"line": 0, "section": section, "label": label, "count": int(digits)})
