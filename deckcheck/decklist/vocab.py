"""The words and shapes of a decklist's text line, and the reading of the usual card line.

Both line readers take what they know of a line from here: :mod:`deckcheck.decklist.lineread`,
the general reader (the definition of what a line is), and :mod:`deckcheck.decklist.fastline`,
which reads a never-seen line of the usual shapes in one step. Defined here once:

* the vocabulary: list bullets, the times sign, dashes, the name endings that look like set codes,
  the section and total labels (folded, and as exports write them: :func:`written_labels`);
* the shapes: a count, a set code, a collector number, a banner;
* :func:`usual_card`, the reading of the usual card line ``[bullet] count name CODE number [PH]``
  (``4 Nest Ball SVI 181``), which both readers try first: the general reader's long way
  (:func:`deckcheck.decklist.lineread.read_long`) gives the same fields for every line this one
  reads (tests/decklist/test_usual_line.py).

Patterns are :class:`deckcheck.patterns.Pattern`: compiled the first time a line needs them (the
usual line's, the one every never-seen line meets, through :data:`usual_match`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import cast

from ..patterns import Pattern, one_of_then

#: the largest number of copies one card line may ask for
MAX_COPIES = 999
#: a count as the usual line writes it (1 to MAX_COPIES, no leading zero) -> its value
COUNTS = {str(i): i for i in range(1, MAX_COPIES + 1)}
#: the most digits of a collector number the usual line writes (``181``, ``1234``)
USUAL_NUMBER_DIGITS = 4

#: header labels, accents and case folded (:func:`fold_label`), in the languages PTCGL exports -> section
SECTION_LABELS: dict[str, str] = {
    **dict.fromkeys(("pokemon", "pokemons", "pokemon cards"), "pokemon"),
    **dict.fromkeys(
        (
            "trainer",
            "trainers",
            "trainer cards",  # en, de
            "dresseur",
            "dresseurs",  # fr
            "treinador",
            "treinadores",  # pt
            "entrenador",
            "entrenadores",  # es
            "allenatore",
            "allenatori",  # it
        ),
        "trainer",
    ),
    **dict.fromkeys(
        ("energy", "energies", "energy cards", "energie", "energien", "energia", "energias"),
        "energy",
    ),
}
#: labels of the list's own total ("Total Cards: 60"), folded the same way
TOTAL_LABELS = frozenset(
    {
        "total",
        "total cards",  # en
        "karten insgesamt",  # de
        "total de cartes",  # fr
        "total de cartas",  # pt
        "cartas totales",  # es
        "carte totali",  # it
    }
)
#: all-capital name endings that look like set codes but belong to the name
NAME_SUFFIXES = frozenset(
    {
        "EX",
        "GX",
        "V",
        "VMAX",
        "VSTAR",
        "BREAK",
        "LEGEND",
        "PRIME",
        "STAR",
        "TAG",
        "TEAM",
        "GL",
        "FB",
        "E4",
        "LV",
        "ACE",
        "SPEC",
        "ACESPEC",
    }
)
#: Markdown bold around a whole line
BOLD = frozenset({"**", "__"})
#: first tokens that are list markup, not part of the card line (">": a quoted Discord or Markdown
#: line); one character each, as the times signs (the usual line's pattern has a class of each)
BULLETS = frozenset({"*", "-", "•", ">"})
#: the dashes between a label and its count, or before an RK9 tag
DASHES = frozenset({"-", "–", "—"})
#: a times sign standing alone between the count and the name ("2 x Pidgeot ex OBF 164")
TIMES = frozenset({"x", "X", "×"})
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def fold_label(label: str) -> str:
    """Case, accents and runs of blanks folded: ``Énergie`` -> ``energie``."""
    decomposed = unicodedata.normalize("NFKD", label)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


@functools.cache
def written_labels() -> dict[str, str | None]:
    """Header and total labels as PTCGL and PTCGO write them (accented or not; lower, capitalised,
    title and upper case) -> their section, None for the list's total. Each folds into its label
    (:func:`fold_label`; tests/decklist/test_usual_line.py holds it, and that the fast path reads every
    one as the long way does), so none is folded here: made at the first header read, it costs a few
    set operations."""
    accented = {"pokemon": "pokémon", "energie": "énergie", "energia": "energía", "energias": "energías"}
    out: dict[str, str | None] = {}
    for folded in (*SECTION_LABELS, *TOTAL_LABELS):
        first, _, rest = folded.partition(" ")
        spellings = {folded, f"{accented.get(first, first)} {rest}".strip()}
        for spelling in list(spellings):
            spellings |= {spelling.capitalize(), spelling.title(), spelling.upper()}
        out.update(dict.fromkeys(spellings, SECTION_LABELS.get(folded)))
    return out


def is_banner(stripped: str) -> bool:
    """A PTCGO banner such as ``****** Pokémon Trading Card Game Deck List ******``."""
    return len(stripped) >= 6 and stripped.startswith("***") and stripped.endswith("***")


def has_letter(name: str) -> bool:
    """Whether ``name`` has a letter: a card line's name is more than digits and signs."""
    return name[:1].isalpha() or any(ch.isalpha() for ch in name)


# --- set codes and numbers ----------------------------------------------------

#: a set code: upper-case letters and digits, at least one letter (all its characters are ASCII),
#: with an optional suffix (``SV-P``, ``MEW-en``)
SET_CODE = Pattern(r"(?=[A-Za-z0-9-]*[A-Za-z])[A-Z0-9]{2,8}(?:-[A-Za-z0-9]{1,20})?")
#: a printed code with an ampersand, as French cards print them (E&V, E&B, SL&M... for Scarlet &
#: Violet, Sword & Shield...): letters and digits on both sides, one of them a letter (bounded: linear)
AMP_CODE = Pattern(r"(?=[A-Z0-9&]*[A-Z])[A-Z0-9]{1,4}&[A-Z0-9]{1,4}")
#: a collector number: a letter prefix, digits, a letter (``181``, ``TG12``, ``2a``)
NUMBER = Pattern(rf"([A-Za-z]{{0,5}})([0-9]{{1,{USUAL_NUMBER_DIGITS}}}[A-Za-z]?)")


def usual_code(code: str) -> bool:
    """Whether ``code`` is a set code as the usual line writes it: 2 to 8 of ``A-Z0-9`` with a
    letter, not a name ending (:data:`NAME_SUFFIXES`)."""
    # isupper: a cased character and none in lower case (with isalnum and isascii: [A-Z0-9], a letter)
    return 1 < len(code) < 9 and code.isascii() and code.isalnum() and code.isupper() and code not in NAME_SUFFIXES


def is_set_code(text: str) -> bool:
    """Upper-case letters and digits with at least one letter, not a name ending like ``GX``, with
    an optional suffix (:data:`SET_CODE`); or such a code with an ampersand inside (:data:`AMP_CODE`)."""
    if "&" in text:
        return bool(AMP_CODE.fullmatch(text))
    if 1 < len(text) < 9 and text.isascii() and text.isalnum():
        return usual_code(text)  # SET_CODE without its suffix, read without the pattern
    return bool(SET_CODE.fullmatch(text)) and text.partition("-")[0] not in NAME_SUFFIXES


def usual_name(name: str) -> bool:
    """Whether :data:`USUAL` reads ``name`` as the name of ``N name CODE number`` (a usual code, 1 to 4
    digits; the last two tokens of such a text are the code and the number, which no ``PH`` tag can
    follow): an ASCII letter first, not the times sign, tokens of non-blanks between single blanks
    (no other whitespace, no runs, no blank at an end)."""
    if not name or name[0] not in _ASCII_LETTERS or name.partition(" ")[0] in TIMES:
        return False
    return name.split(" ") == name.split()


# --- the usual card line --------------------------------------------------------

#: the usual card line, ``[bullet] count name CODE number [PH]``, tokens of non-blanks between
#: single blanks, the name an ASCII letter first and not the times sign, the code
#: :func:`usual_code`'s (bar the name endings, looked at after the match). Linear: possessive
#: tokens, a lazy name whose every end is tried against a tail of two or three bounded tokens.
USUAL = Pattern(
    rf"{one_of_then(BULLETS, ' ')}?"
    rf"([1-9][0-9]{{0,{len(str(MAX_COPIES)) - 1}}}) "
    rf"((?![{re.escape(''.join(sorted(TIMES)))}] )[A-Za-z]\S*+(?: \S++)*?) "
    rf"((?=[0-9]*[A-Z])[A-Z0-9]{{2,8}}) ([0-9]{{1,{USUAL_NUMBER_DIGITS}}})(?: (PH))?"
)

#: what :func:`usual_card` reads: ``(count, name, set code, number, tag)``
UsualCard = tuple[int, str, str, str, "str | None"]


def _usual_first(raw: str) -> re.Match[str] | None:
    """``USUAL.fullmatch(raw)``, the pattern compiled first: :data:`usual_match` until its first call,
    which puts the compiled pattern's own ``fullmatch`` in its place."""
    global usual_match
    usual_match = cast("Callable[[str], re.Match[str] | None]", USUAL.compiled().fullmatch)
    return usual_match(raw)


#: ``USUAL.fullmatch``, the one call a never-seen usual line costs: a module name rather than the
#: :class:`~deckcheck.patterns.Pattern`'s method, so that after the first call it is the compiled
#: pattern's own method, looked up as a global (a caller elsewhere looks it up as
#: ``vocab.usual_match`` at each call, never keeps it)
usual_match: Callable[[str], re.Match[str] | None] = _usual_first


def card_parts(raw: str) -> tuple[int, str, str, str] | None:
    """``(count, name, set code, number)`` of a card line of :data:`USUAL`'s shape (what
    :func:`usual_card` reads first), else None. No tag and no field dict: for a caller that keeps
    what it makes of the line in a memo of its own (the engine's line memo), and reads any other
    line with :func:`deckcheck.decklist.fastline.read_new`."""
    m = usual_match(raw)
    if m is not None:
        count, name, code, number, _tag = m.groups()
        if code not in NAME_SUFFIXES:
            return COUNTS[count], name, code, number
    return None


def usual_card(raw: str) -> UsualCard | None:
    """``(count, name, set code, number, tag)`` of a card line of the usual shape, else None (the
    line is read the long way): ``[bullet] count name CODE number [PH]`` with single blanks between
    tokens and nothing around them, a count of 1 to :data:`MAX_COPIES` without leading zeros, a
    collector number of 1 to 4 digits, a name with a letter that does not start with a lone times
    sign. The code is a set code (:func:`is_set_code`), one in lower case (``asc 109``) or
    Limitless's ``Energy`` pseudo set after a name ending in Energy; it is answered upper-cased.

    Read by :data:`USUAL` first (:data:`usual_match`, as :func:`card_parts`), then by :func:`usual_split`."""
    m = usual_match(raw)
    if m is not None:
        count, name, code, number, tag = m.groups()
        return (COUNTS[count], name, code, number, tag) if code not in NAME_SUFFIXES else None
    return usual_split(raw)


def usual_split(raw: str) -> UsualCard | None:
    """:func:`usual_card` of a line :data:`USUAL` does not match: the shapes the pattern leaves (a name
    that starts otherwise, ``{R} Energy``; a code with a suffix, ``SV-P``, an ampersand, ``E&V``, in
    lower case or the Energy pseudo set), read with ``str.split``; None for any other line."""
    tokens = raw.split(" ")
    n = len(tokens)
    start = 1 if n > 1 and tokens[0] in BULLETS else 0
    count = COUNTS.get(tokens[start])
    if count is None:
        return None
    tag = None
    if n - start > 4 and tokens[-1] == "PH":
        tag, n = "PH", n - 1
    if n - start < 4:
        return None
    number, written = tokens[n - 1], tokens[n - 2]
    if not (len(number) <= USUAL_NUMBER_DIGITS and number.isdigit() and number.isascii()):
        return None
    if 1 < len(written) < 9 and written.isalnum() and written.isascii() and written.isupper():
        if written in NAME_SUFFIXES:  # the usual code (is_set_code without its calls)
            return None
    elif not (
        written.casefold() == "energy"
        and tokens[n - 3].casefold().endswith("energy")
        or written.islower()
        and written.isascii()
        and is_set_code(written.upper())
        or is_set_code(written)
    ):
        return None
    if "" in tokens or not (raw.isprintable() or tokens == raw.split()):
        return None  # runs of blanks, blanks around the line, other whitespace: the long way
    head = len(tokens[0]) + 1 + (len(tokens[1]) + 1 if start else 0)
    name = raw[head : len(raw) - len(written) - len(number) - (5 if tag else 2)]
    if name.partition(" ")[0] in TIMES or not (name[0].isalpha() or has_letter(name)):
        return None  # "2 x Pidgeot ex OBF 164": the times sign is read the long way
    return count, name, written.upper(), number, tag
