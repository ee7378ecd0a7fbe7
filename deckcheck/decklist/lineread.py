"""One line of a text decklist: what it is, from its text alone (:func:`read_line`, memoised).

A line is a card line, a section header, the list's own total, a PTCGO banner, a card line
with a bad count, unparsed text, or blanks. Card lines are read right to left: an optional
trailing tag (``PH``, or an RK9 suffix such as ``- ACESPEC``), then a collector number, then a
set code (upper case, or all lower case before a number: ``asc 109``), and only while at least
one token is left for the name. Names keep whatever is left as written (colons, digits, ``&``,
``{P}``, ``◇``, curly apostrophes); folding them is ``names.py``'s job.

What a line is depends on its text alone, so that reading is memoised on the text (a bounded
:class:`~deckcheck.memo.Memo`, short lines only); the line number and the section in force
always come from the deck being parsed (:mod:`deckcheck.decklist.parse`). The words and shapes
a line is made of, and the one-step reading of the usual card line both this reader and
:mod:`deckcheck.decklist.fastline` take first, are :mod:`deckcheck.decklist.vocab`'s.
"""

from __future__ import annotations

from typing import Any

from ..memo import memoise
from ..names import basic_energy_type
from ..patterns import Pattern
from .vocab import (
    BOLD,
    BULLETS,
    DASHES,
    NUMBER,
    SECTION_LABELS,
    TIMES,
    TOTAL_LABELS,
    fold_label,
    has_letter,
    is_banner,
    is_set_code,
    usual_card,
)
from .vocab import MAX_COPIES as MAX_COPIES

#: a line break: CR LF, CR or LF
LINE_BREAK = Pattern(r"\r\n|\r|\n")

_TIMES_SIGN = f"[{''.join(sorted(TIMES))}]"
# section headers and totals: "Pokémon: 14", "##Pokémon - 30", "Pokémon (22)", bare "Trainer"
# (a label starts with a letter, so card lines fail at their first character)
_LABELLED = (
    Pattern(r"#*\s*(?P<label>[^\W\d_][^:]{0,39}?)\s*:\s*(?P<count>[0-9]{1,6})?"),
    Pattern(rf"#*\s*(?P<label>[^\W\d_].{{0,39}}?)\s+[{''.join(sorted(DASHES))}]\s*(?P<count>[0-9]{{1,6}})"),
    Pattern(r"#*\s*(?P<label>[^\W\d_][^()]{0,39}?)\s*\(\s*(?P<count>[0-9]{1,6})\s*\)"),
    Pattern(r"#*\s*(?P<label>[^\W\d_][^:()]{0,39}?)"),
)
_LEADING_COUNT = Pattern(rf"{_TIMES_SIGN}?([0-9]+)|([0-9]+){_TIMES_SIGN}")
_TRAILING_COUNT = Pattern(rf"{_TIMES_SIGN}([0-9]+)")
_SET_ALONE = Pattern(r"[A-Z0-9]{2,6}(?:-[A-Z0-9]{2,3})?")
_BRACKETED_SET = Pattern(r"\[([A-Za-z0-9-]{1,20})\]")
_TAG = Pattern(r"[A-Za-z]{2,12}")
# a card id of the card source, "<set id>-<local id>": TCGdex's base1-88, sv03.5-151, tk-hs-g-5 or
# pokemontcg.io's swsh12pt5-160 (split at the last hyphen; both parts are bounded)
_ID_SET = Pattern(r"[a-z][a-z0-9.-]{0,19}")
# pokemontcg.io's local ids may end in "_A" / "_A1": its disambiguator of printings that share a collector
# number (cel25c-4_A, cel25c-15_A1 .. _A4, all numbered as printed, 4 and 15): not part of the number
ID_DISAMBIGUATOR = r"(?:_[A-Z][0-9]{0,2})?"
_ID_LOCAL = Pattern(r"([A-Za-z]{0,6}[0-9]{1,4}[A-Za-z]{0,2})" + ID_DISAMBIGUATOR + r"|[A-Z]{1,6}")

#: a card line as :func:`deckcheck.decklist.parse.read` gives it: ``(line number, section, fields)``,
#: ``fields`` being the dict of every :class:`~deckcheck.decklist.parse.CardLine` field, in field order, of
#: which ``line`` and ``section`` are not this line's (a placeholder, or another line's)
CardRow = tuple[int, "str | None", dict[str, Any]]
#: what :func:`classify_line` and :func:`read_line` answer: a tuple led by the line's kind
LineKind = tuple[Any, ...]

# What a non-empty line is, independent of its number and of the section in force: the first
# item of the tuple read_line() returns.
CARD, HEADER, TOTAL, BANNER, BAD_COUNT, UNPARSED, BLANK = range(7)
_LABEL_START = Pattern(r"#*\s*[^\W\d_]")
#: every label a header or total may have, folded (a header's folded label starts the folded line)
_LABELS = (*SECTION_LABELS, *TOTAL_LABELS)
#: the most characters a label of :data:`_LABELLED` has
_LABEL_MAX = 40
_DIGITS = "0123456789"


def _may_be_labelled(text: str) -> bool:
    """Can :func:`_labelled` find a known label in ``text``? Only when the text, after the hashes and
    blanks before a label, folds into something that starts with one: a label's folding
    (:func:`~deckcheck.decklist.vocab.fold_label`) is the start of the folded text it leads, since folding
    goes character by character and only joins runs of blanks. A line of prose is told so without
    the four header patterns (each compiled at its first use)."""
    rest = text.lstrip("#").lstrip()
    return fold_label(rest[: _LABEL_MAX + 1]).startswith(_LABELS)


def _classify_line(raw: str) -> LineKind:
    """What the non-blank line ``raw`` is, as a tuple led by its kind; a pure function of ``raw``.

    ``(CARD, count, name, set_code, number, tag)``, ``(HEADER, section, label, count)``,
    ``(TOTAL, count)``, ``(BANNER,)``, ``(BAD_COUNT, message after "Line N ")`` or
    ``(UNPARSED, the stripped line)``. A card line of the usual shape is read in one step
    (:func:`~deckcheck.decklist.vocab.usual_card`), any other line by :func:`_classify_long`.
    """
    usual = usual_card(raw)
    return _classify_long(raw) if usual is None else (CARD, *usual)


def _classify_long(raw: str) -> LineKind:
    """:func:`_classify_line`'s answer read the long way, every shape of line tried in turn: the
    definition :func:`~deckcheck.decklist.vocab.usual_card` agrees with on the lines it reads."""
    stripped = raw.strip()
    if is_banner(stripped):
        return (BANNER,)
    label_text = stripped
    if len(stripped) > 4 and stripped[:2] in BOLD and stripped[-2:] == stripped[:2]:
        label_text = stripped[2:-2].strip()  # a Markdown bold header, "**Pokémon (12)**" (a Discord post)
    labelled = _labelled(label_text) if _may_be_labelled(label_text) and _LABEL_START.match(label_text) else None
    if labelled is not None:
        label, folded, count = labelled
        if folded in TOTAL_LABELS and count is not None:
            return (TOTAL, count)
        if folded in SECTION_LABELS:
            return (HEADER, SECTION_LABELS[folded], label, count)
    return _card_fields(raw) or (UNPARSED, stripped)


def _read_line(raw: str) -> LineKind:
    """What the non-empty line ``raw`` is, for :func:`read`: :func:`_classify_line`, except that a
    card line is ``(CARD, fields)`` (the fields of a :data:`CardRow`), a header ``(HEADER,
    section, fields)`` (a Header's instance dict, line 0) and a line of blanks ``(BLANK,)``."""
    usual = usual_card(raw)
    return read_long(raw) if usual is None else (CARD, row_fields(raw, *usual))


def read_long(raw: str) -> LineKind:
    """:func:`_read_line`'s answer for the non-empty line ``raw`` read the long way (every shape of
    line tried in turn, :func:`_classify_long`): what a line the usual reading leaves is, and the
    definition :func:`~deckcheck.decklist.vocab.usual_card` agrees with on the lines it reads."""
    if raw.isspace():
        return (BLANK,)  # in the memo: read() looks no further at a non-empty line
    kind = _classify_long(raw)
    if kind[0] == CARD:
        _, count, name, set_code, number, tag = kind
        return (CARD, row_fields(raw, count, name, set_code, number, tag))
    if kind[0] == HEADER:
        _, section, label, count = kind
        return (HEADER, section, {"line": 0, "section": section, "label": label, "count": count})
    return kind


def row_fields(
    raw: str, count: int, name: str, set_code: str | None, number: str | None, tag: str | None
) -> dict[str, Any]:
    """A :data:`CardRow`'s fields: a CardLine's instance dict, with line 0 and no section."""
    return {
        "line": 0,
        "raw": raw,
        "count": count,
        "name": name,
        "set_code": set_code,
        "number": number,
        "section": None,
        "tag": tag,
    }


#: the memo of :func:`_read_line` (keyed on the line's text only, so the line number and section
#: always come from the deck being parsed; the fields dicts it holds are only copied)
read_line = memoise(8192)(_read_line)


def _labelled(stripped: str) -> tuple[str, str, int | None] | None:
    """``(label as written, folded label, count)`` for a header-shaped line, else None."""
    for pattern in _LABELLED:
        m = pattern.fullmatch(stripped)
        if m:
            count = m.group("count") if "count" in m.re.groupindex else None
            return m.group("label"), fold_label(m.group("label")), int(count) if count else None
    return None


#: the most characters of text from the list (a line, a name, a set code) that a message shows: a
#: longer one is cut there with an ellipsis (:func:`shorten`; rules add its length, rules/words.py)
ECHO_LIMIT = 60


def shorten(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` made safe to show: control characters escaped, cut to ``limit`` characters."""
    shown = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


# --- card lines -------------------------------------------------------------
#
# A line's tokens are its runs of non-blank characters (``str.split()``: the same runs as
# ``\S+``). The readers below look at the tokens left for the name and set code, and say how
# many of them stay in the name; the name is then cut from the line as written.


def _card_fields(raw: str) -> LineKind | None:
    """Read ``raw`` as a card line: ``(CARD, ...)``, ``(BAD_COUNT, ...)`` for a bad count, or None."""
    tokens = raw.split()
    lo, hi = 0, len(tokens)  # the tokens not yet taken are tokens[lo:hi]
    if hi > 1 and tokens[0] in BULLETS:
        lo = 1
    if lo >= hi:
        return None
    first = tokens[lo]
    if first.isascii() and first.isdigit():  # the usual "4 Iono PAL 185"
        count_text, lo = first, lo + 1
    # a count with a times sign ("x4", "4x", "4×") starts or ends with a digit: a word of prose has
    # neither, and is told so without the count patterns
    elif (first[:1] in _DIGITS or first[-1:] in _DIGITS) and (m := _LEADING_COUNT.fullmatch(first)):
        count_text, lo = m.group(1) or m.group(2), lo + 1
    else:
        last = tokens[hi - 1]
        m = _TRAILING_COUNT.fullmatch(last) if last[-1:] in _DIGITS else None
        if not (m and hi - lo > 1):
            return None
        count_text, hi = m.group(1), hi - 1
    if hi - lo > 1 and tokens[lo] in TIMES:  # "2 x Pidgeot ex OBF 164" (no card name starts with one)
        lo += 1
    if lo >= hi:
        return None
    rest = tokens[lo:hi]
    tag, kept = take_tag(rest)
    set_code, number, kept = _take_print(rest, kept)
    if raw == " ".join(tokens):  # single blanks, nothing around: the name is its tokens joined
        name = " ".join(rest[:kept])
    else:
        name = _cut(raw, tokens, lo, lo + kept)
    if not has_letter(name):
        return None
    count = _copies(count_text)
    if count is None:
        message = (
            f'asks for {shorten(count_text, 12)} copies of "{shorten(name)}"; '
            f"a card line needs 1 to {MAX_COPIES} copies."
        )
        return (BAD_COUNT, message)
    return (CARD, count, name, set_code, number, tag)


def _cut(raw: str, tokens: list[str], first: int, stop: int) -> str:
    """``raw`` from the start of ``tokens[first]`` to the end of ``tokens[stop - 1]``, as written.

    A token has no blanks, so the first match of a token after the previous one's end is that
    token (and the last match before the next one's start, from the right).
    """
    start = 0
    for tok in tokens[:first]:
        start = raw.index(tok, start) + len(tok)
    start = raw.index(tokens[first], start)
    end = len(raw)
    for tok in reversed(tokens[stop:]):
        end = raw.rindex(tok, start, end)
    return raw[start:end].rstrip()


def _copies(digits: str) -> int | None:
    """The count if it is 1..MAX_COPIES; never calls int() on a huge string."""
    significant = digits.lstrip("0")
    if not significant or len(significant) > len(str(MAX_COPIES)):
        return None
    count = int(significant)
    return count if count <= MAX_COPIES else None


def take_tag(tokens: list[str]) -> tuple[str | None, int]:
    """A trailing ``PH`` or RK9 ``- Basic`` / ``- ACESPEC`` / ``- ACE SPEC``, when a name is left: (tag, kept)."""
    n = len(tokens)
    if n > 1 and (tokens[-1] == "PH" or n > 3 and tokens[-1] == "ph" and NUMBER.fullmatch(tokens[-2])):
        return "PH", n - 1  # "ph" only after a number: a list typed in lower case ("nest ball svi 181 ph")
    if n > 2 and tokens[-2] in DASHES and _TAG.fullmatch(tokens[-1]):
        return tokens[-1], n - 2
    if n > 3 and tokens[-3] in DASHES and tokens[-2].upper() == "ACE" and tokens[-1].upper() == "SPEC":
        return f"{tokens[-2]} {tokens[-1]}", n - 3  # "- ACE SPEC": RK9's suffix written with a blank
    return None, n


def _take_print(tokens: list[str], n: int) -> tuple[str | None, str | None, int]:
    """``(set_code, number, name tokens kept)`` from ``tokens[:n]``: the first reading that leaves a name wins."""
    last = tokens[n - 1]
    if "(" in last or ")" in last or (n > 1 and "(" in tokens[n - 2]):
        found = _in_parentheses(tokens, n)
        if found is not None:
            return found
    for reader in (_in_brackets, _set_and_number, _energy_number, _card_id, _set_alone, _energy_tail):
        found = reader(tokens, n)
        if found is not None:
            return found
    return None, None, n


def _in_parentheses(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """``Nest Ball (SVI 181)`` or ``Bisharp (ASC)``; a subtitle like ``(Professor Turo)`` is no set."""
    last = tokens[n - 1]
    if n > 1 and last.startswith("(") and last.endswith(")") and is_set_code(last[1:-1]):
        return last[1:-1].upper(), None, n - 1
    if n > 2 and tokens[n - 2].startswith("(") and last.endswith(")"):
        code, number = tokens[n - 2][1:], last[:-1]
        if is_set_code(code) and NUMBER.fullmatch(number):
            return code.upper(), _number(number), n - 2
    return None


def _in_brackets(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """TCGplayer's ``Goldeen [ME05] 13`` or ``Goldeen [ME05]``."""
    last = tokens[n - 1]
    if n > 1 and last.startswith("["):
        m = _BRACKETED_SET.fullmatch(last)
        if m:
            return m.group(1).upper(), None, n - 1
    if n > 2 and tokens[n - 2].startswith("[") and NUMBER.fullmatch(last):
        m = _BRACKETED_SET.fullmatch(tokens[n - 2])
        if m:
            return m.group(1).upper(), _number(last), n - 2
    return None


def _set_and_number(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """``Iono PAL 185``; Limitless's ``Energy`` pseudo set only after a name ending in Energy."""
    if n < 3:
        return None
    m = NUMBER.fullmatch(tokens[n - 1])
    if not m:
        return None
    code, before = tokens[n - 2], tokens[n - 3]
    is_energy_code = code.casefold() == "energy" and before.casefold().endswith("energy")
    # a set code typed in lower case ("4 Cynthia's Gible asc 109"): all lower case, before a number
    lower_code = code.islower() and code.isascii() and is_set_code(code.upper())
    if is_energy_code or lower_code or is_set_code(code):
        return code.upper(), m.group(1).upper() + m.group(2), n - 2
    return None


def _energy_number(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """Early PTCGL and PTCGO basic Energy with a number and no set: ``Fire Energy 2``."""
    last = tokens[n - 1]
    if n > 1 and last.isascii() and last.isdigit():
        if tokens[n - 2].casefold() == "energy" and len(last) <= 4:
            return None, last, n - 1
    return None


def _card_id(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """A card id as the last token (``Professor Oak base1-88``): its set id and local id stand
    for the set code and number (the database knows set ids as codes); pokemontcg.io's ``_A``
    disambiguator (``Charizard cel25c-4_A``) is not part of the number: the name picks among
    the printings that share it (:meth:`deckcheck.cards.db.CardDB.find_named`)."""
    last = tokens[n - 1]
    if n < 2 or len(last) > 32 or not last[0].islower():
        return None
    set_id, dash, local = last.rpartition("-")
    m = _ID_LOCAL.fullmatch(local) if dash and _ID_SET.fullmatch(set_id) else None
    if m:
        return set_id.upper(), (m.group(1) or local).upper(), n - 1
    return None


def _energy_tail(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """A basic Energy name with one or two tokens after it that no other reading took: the
    Limitless builder's ``Fire Energy BRS R``, PTCGO's ``Psychic Energy XYEnergy 8``. The first
    stands for a set code, the second for a number (the resolver falls back to the type)."""
    for k in range(min(n - 1, 4)):  # "Basic {R} Energy" is the longest spelling: 3 tokens
        if tokens[k].casefold() == "energy":
            extra = n - 1 - k
            if extra in (1, 2) and basic_energy_type(" ".join(tokens[: k + 1])):
                return tokens[k + 1].upper(), tokens[k + 2].upper() if extra == 2 else None, k + 1
            return None
    return None


def _set_alone(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """A set and no number (``Bisharp ASC``), only for a strictly set-shaped last token."""
    last = tokens[n - 1]
    if n > 1 and _SET_ALONE.fullmatch(last) and is_set_code(last):
        return last, None, n - 1
    return None


def _number(text: str) -> str:
    """A collector number as written, its letter prefix upper-cased (``tg12`` -> ``TG12``)."""
    m = NUMBER.fullmatch(text)
    return m.group(1).upper() + m.group(2) if m else text


# --- JSON decks -------------------------------------------------------------
#
# The shapes real tools write, each a list of entries (``{"count", "name", "set", "number"}``,
# RK9's ``{"count", "card": {"name", "setCode", "number"}}``, pokemontcg.io's ``{"count", "id",
# "name"}``), sectioned or not:
