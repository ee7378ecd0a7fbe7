"""The one normalised form of a card name, used for the copy rule and for lookups.

Display names are kept as printed; everything internal compares keys made here.

What is part of a name: owners (Iono's, Team Rocket's), forms (Alolan, Origin
Forme), Radiant, Prism Star, and the ``ex`` / ``EX`` / ``GX`` / ``V`` suffixes,
where ``ex`` (Pokémon ex) and ``EX`` (Pokémon-EX) stay different.
What is not: levels (``LV.43``, ``LV.X``), ``δ`` and trainer subtitles in
parentheses such as ``(Professor Turo)``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: the nine basic Energy types with their PTCGL symbol letters
ENERGY_TYPES = {
    "G": "Grass",
    "R": "Fire",
    "W": "Water",
    "L": "Lightning",
    "P": "Psychic",
    "F": "Fighting",
    "D": "Darkness",
    "M": "Metal",
    "Y": "Fairy",
    "C": "Colorless",
    "N": "Dragon",
}
BASIC_ENERGY_TYPES = ("Grass", "Fire", "Water", "Lightning", "Psychic", "Fighting", "Darkness", "Metal", "Fairy")

# "`" is the only ASCII one (fold() relies on that)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'", "ʼ": "'", "＇": "'"})
_SYMBOL = re.compile(r"\{([A-Za-z])\}")
_PRISM = re.compile(r"\s*(\{\*\}|◇|♢|<>|\(prism star\)|prism star)\s*", re.IGNORECASE)
_STAR = re.compile(r"\s*(☆|\{star\}|★)\s*", re.IGNORECASE)
_LEVEL = re.compile(r"\s+(LV\.?\s*(X|\d+)|Lv\.?\s*(X|\d+))\s*$", re.IGNORECASE)
_SUBTITLE = re.compile(r"\s*\([^()]*\)\s*$")
_DELTA = re.compile(r"\s*(δ|\(delta species\)|delta species)\s*", re.IGNORECASE)
_SUFFIX_SEP = re.compile(r"[\s-]+(EX|GX|ex|V|VMAX|VSTAR|V-UNION|BREAK)$")
_BASIC_ENERGY = re.compile(r"^(?:basic\s+)?(" + "|".join(BASIC_ENERGY_TYPES) + r")\s+energy$", re.IGNORECASE)
_NON_WORD = re.compile(r"[^0-9a-zA-Z&◇☆]+")


def fold(text: str) -> str:
    """Fold apostrophe shapes and accents, keep everything else."""
    if text.isascii():  # NFKC and NFKD leave ASCII alone and no ASCII character is combining
        return text.replace("`", "'") if "`" in text else text
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def expand_symbols(name: str) -> str:
    """``Telepathic {P} Energy`` -> ``Telepathic Psychic Energy``."""
    if "{" not in name:
        return name
    return _SYMBOL.sub(lambda m: ENERGY_TYPES.get(m.group(1).upper(), m.group(0)), name)


def basic_energy_type(name: str) -> str | None:
    """The type of a basic Energy name (``Basic {R} Energy`` -> ``Fire``), else None.

    This reads the name only; whether a printing really is basic Energy is
    decided from the card database.
    """
    if name.isascii() and "energy" not in name.lower():
        # most names: an ASCII name is its own fold, symbols expand to type names and the
        # pattern ends in "energy", so without that word it cannot be basic Energy
        return None
    return _basic_energy_type(name) if len(name) <= MEMO_MAX_LEN else _basic_energy_type.__wrapped__(name)


#: the longest text (a line, a name, a set code, a number) any of deckcheck's memos keeps: they
#: hold the short texts real lists repeat, and a flood of long ones cannot fill memory
MEMO_MAX_LEN = 200


@lru_cache(maxsize=4096)
def _basic_energy_type(name: str) -> str | None:
    cleaned = " ".join(expand_symbols(fold(name)).split())
    m = _BASIC_ENERGY.match(cleaned)
    return m.group(1).title() if m else None


@lru_cache(maxsize=65536)
def name_key(name: str) -> str:
    """The normalised name: equal keys mean the same name for the copy rule."""
    text = fold(name).strip()
    text = _DELTA.sub(" ", text)
    text = _PRISM.sub(" ◇ ", text).strip()
    text = _STAR.sub(" ☆ ", text).strip()
    text = _LEVEL.sub("", text)
    # a trailing subtitle such as "(Professor Turo)" or "(Giovanni)" is not part of the name
    while _SUBTITLE.search(text) and not text.startswith("("):
        text = _SUBTITLE.sub("", text)
    text = expand_symbols(text)
    energy = _BASIC_ENERGY.match(" ".join(text.split()))
    if energy:
        return energy.group(1).lower() + " energy"
    text = _SUFFIX_SEP.sub(lambda m: " " + m.group(1), text)
    text = text.replace("'", "")
    tokens = [t for t in _NON_WORD.split(text) if t]
    # "ex" (Pokémon ex) and "EX" (Pokémon-EX) are different names: keep the suffix's case
    return " ".join(t if t in ("EX", "GX") else t.lower() for t in tokens)


def lookup_key(name: str) -> str:
    """A looser key for finding a card from what a person typed: case fully folded."""
    return name_key(name).lower()
