"""How lists write what the card data writes otherwise: a basic Energy's names and its PTCGO number,
a set code and number written together, the Elite Four glyph; and the longest collector number
looked up. Pure functions and tables, read by the database's resolution (:mod:`deckcheck.cards.db`)
and its index of usual lines (:mod:`deckcheck.cards.usuallines`)."""

from __future__ import annotations

from ..names import BASIC_ENERGY_TYPES, ENERGY_TYPES

#: the longest collector number looked up: no printing's is longer (the pool's longest, SWSH001, has 7
#: characters); a longer one written in a list (a JSON "number", the Limitless builder's Energy tail)
#: finds nothing without being read as an integer (int() refuses over 4,300 digits)
MAX_NUMBER_LEN = 16


def _written_energy() -> dict[str, str]:
    """The basic Energy names as lists write them (``Basic {R} Energy``, ``Basic Fire Energy``,
    ``Fire Energy``, ``{R} Energy``) -> the type :func:`~deckcheck.names.basic_energy_type` reads
    (tests/decklist/test_fast_paths.py checks every entry against it)."""
    out: dict[str, str] = {}
    for letter, word in ENERGY_TYPES.items():
        if word in BASIC_ENERGY_TYPES:
            for written in (word, f"{{{letter}}}"):
                out[f"{written} Energy"] = out[f"Basic {written} Energy"] = word
    return out


#: a basic Energy name as lists write it -> its type: a never-seen line's name read without
#: :func:`~deckcheck.names.basic_energy_type`'s tokens (any other name goes to it)
WRITTEN_ENERGY = _written_energy()

#: the number PTCGO and early PTCGL lists write after a basic Energy with no set code (``* 11 Lightning
#: Energy 4``, ``8 Fire Energy 2``) -> its type: the types in their usual order, Grass 1 to Fairy 9
#: (reference 2.2 and 2.4; :meth:`~deckcheck.cards.db.CardDB.energy_by_number`)
NUMBERED_ENERGY = {str(i): word for i, word in enumerate(BASIC_ENERGY_TYPES, start=1)}

#: the longest set code a code and number written together may start with (``SVI181``, ``TEF68``:
#: :func:`split_code_number`), and the longest number it may end with
_JOINED_CODE_MAX, _JOINED_NUMBER_MAX = 8, 4


def split_code_number(token: str) -> tuple[str, str] | None:
    """``TEF68`` -> (``TEF``, ``68``): a set code and a collector number written together, split
    before the digits that end it; None when the token does not end in 1 to 4 digits after a code
    of 2 to 8 characters with a letter. Linear: one strip of the digits at the end. Whether the split
    names a printing is the database's to say (:meth:`~deckcheck.cards.db.CardDB.resolve_parts` takes it only then)."""
    head = token.rstrip("0123456789")
    digits = len(token) - len(head)
    if not (0 < digits <= _JOINED_NUMBER_MAX and 1 < len(head) <= _JOINED_CODE_MAX):
        return None
    if not (head.isascii() and head.replace("-", "").isalnum() and any(ch.isalpha() for ch in head)):
        return None
    return head, token[len(head) :]


#: how lists write the Elite Four glyph of the Platinum-era SP Pokémon (Rising Rivals, Supreme Victors,
#: reprinted in Celebrations' Classic Collection), printed as a 4 after the name; the card data writes E4
E4_GLYPHS = ("4", "⁴")


def e4_spelling(name: str) -> str | None:
    """``Infernape 4``, ``Infernape⁴``, ``Infernape 4 LV.X`` -> ``Infernape E4`` (``... E4 LV.X``):
    the card data's spelling of a name ending in the Elite Four glyph, else None. A name is
    resolved under it only when it names no card as written and this spelling does
    (:meth:`~deckcheck.cards.db.CardDB._resolve`). Linear: one split, the last two tokens looked at."""
    if not name or E4_GLYPHS[0] not in name and E4_GLYPHS[1] not in name:
        return None
    tokens = name.split()
    tail: list[str] = []
    if len(tokens) > 2 and tokens[-1].upper().replace(".", "") == "LVX":
        tokens, tail = tokens[:-1], tokens[-1:]
    if not tokens:
        return None
    last = tokens[-1]
    if last in E4_GLYPHS and len(tokens) > 1 and tokens[-2][-1].isalpha():
        head = tokens[:-1]  # "Infernape 4"
    elif len(last) > 1 and last[-1] in E4_GLYPHS and last[-2].isalpha():
        head = tokens[:-1] + [last[:-1]]  # "Infernape⁴", "Infernape4"
    else:
        return None
    return " ".join([*head, "E4", *tail])
