"""The one normalised form of a card name, used for the copy rule and for lookups.

Display names are kept as printed; everything internal compares keys made here.
Two different printed names share a key only where ``data/name-merges.csv`` says
they are the same name: ``deckcheck db build`` audits every such pair in the card
pool (:mod:`deckcheck.sync.nameaudit`) and fails on one the table does not list.

**Part of a name** (the rulebook, S5 in ``rules-and-formats.md`` 3.2, and the
tournament handbook S1 section 4: "as defined by the card's English language
translation"):

- owners and forms: ``Team Rocket's``, ``Iono's``, ``Alolan``, ``Origin Forme``
  ("Meowth, Alolan Meowth, and Rocket's Meowth have different names", S5);
  ``Radiant`` (S5 appendix 7);
- symbols, wherever they stand: ``◇`` (Prism Star; also written ``{*}``, ``<>``,
  ``♢``, ``Prism Star``), ``☆`` (Pokémon Star; also ``★``, ``{star}``), and the
  gender signs ``♀`` ``♂`` (Nidoran♀ and Nidoran♂ are different Pokémon; 3.2
  corrections, 2026-12), also typed ``Nidoran F``, ``Nidoran (M)``, ``Nidoran Female``;
  ``&`` (TAG TEAM), ``+`` (``Poké Blower +``), and a
  ``!`` or ``?`` standing alone (the Unown marks ``Unown !`` and ``Unown ?``;
  the ``!`` of ``Challenge!`` is punctuation);
- letters of any alphabet: ``α β γ`` (``Miracle Sphere α``), a ``δ`` that is
  part of a Trainer's or an Energy's name (``δ Rainbow Energy``, ``Mystery
  Plate δ``: :data:`LETTER_NAMES`), the Unown letter (``Unown A`` and
  ``Unown [A]`` are one name, ``Unown B`` another; 3.2 corrections: "letters of
  other alphabets ... and marks in brackets after a Pokémon's name");
- a bracketed or parenthesised part, unless listed below (``PokéDex (HANDY909)``,
  ``Ancient Technical Machine [Ice]``); ``data/name-parts.csv`` reviews every
  such name in the pool;
- the suffixes ``ex`` ``EX`` ``GX`` ``V`` ``VMAX`` ``VSTAR`` ``BREAK``, where
  ``ex`` (Pokémon ex) and ``EX`` (Pokémon-EX) stay different (compendium ruling
  1828 via TCGdex); a hyphen before a suffix is a space (``Venusaur-EX``).

**Not part of a name:**

- levels, ``LV.43`` ``LV. 44`` ``LV.X`` (S5: "1 each of Gengar, Gengar LV.43,
  Gengar LV. 44, and Gengar LV.X" are all "named Gengar");
- the ``Prime`` label of HGSS Pokémon Prime (rarity "Rare PRIME"): lists write
  ``Magnezone Prime``, the card is named Magnezone, and no printed name ends in it;
- a trailing ``δ`` / ``Delta Species`` on a Pokémon (S5: "δ (Delta Species) is
  not part of a Pokémon's name");
- the subtitle of the subtitled Trainer families, :data:`SUBTITLED`
  (``Professor's Research (Professor Turo)``, ``Boss's Orders (Giovanni)``:
  PTCGL writes every print as the bare title, 3.2), and a class label a source
  appends in parentheses (:data:`LABELS`, ``(Rocket's Secret Machine)``);
- a Japanese printed name followed by its English translation in brackets
  (``ナッシー[Exeggutor]``) is the translation (S1: the English translation);
- ``Basic`` before a basic Energy type and the type's symbol (``Basic {R} Energy``
  = ``Fire Energy``, 3.3); ``{P}`` = ``Psychic`` inside any Energy name (3.2);
  how the types of a Unit or Blend Energy are spelled (``Unit Energy GRW``, PTCGO's
  export, = ``Unit Energy GrassFireWater``, TCGdex's; :data:`MULTI_TYPE_ENERGY`);
- case (except ``EX``/``GX``), accents, apostrophes, spacing, hyphens and other
  punctuation (``Ho-Oh`` = ``Ho Oh``, ``EXP.ALL`` = ``EXP. ALL``; 3.2: hyphen vs
  space before ``EX``/``GX``, ``'`` vs ``’``, accents).

Every step is linear in the input: one pass of :func:`fold`, fixed-width
patterns, one ``findall`` of a pattern without a backtracking tail, and list
work on the tokens. Memos keep texts of at most :data:`MEMO_MAX_LEN` characters
(:mod:`deckcheck.memo`).
"""

from __future__ import annotations

import re
import unicodedata

from .memo import MEMO_MAX_LEN as MEMO_MAX_LEN
from .memo import Memo, memoise
from .patterns import Pattern

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

#: most names :func:`name_key` and :func:`basic_energy_type` remember (the pool has ~4,500)
NAME_MEMO_SIZE = 16384

#: Trainer families whose prints carry a subtitle in parentheses that is not part of the name
#: (as keys: the subtitle of ``Professor's Research (Professor Oak)`` is dropped)
SUBTITLED = frozenset({"professors research", "bosss orders"})
#: a part in parentheses at the end of a printed name: the subtitle players leave out when they
#: name a card (``Professor's Research (Professor Turo)`` is Professor's Research); linear: no
#: parenthesis inside, and matched once from each start (compiled on first use, as every pattern here)
SUBTITLE = Pattern(r"\s*\([^()]*\)\s*$")
#: a basic Energy card's printed name, ``Fire Energy`` or ``Basic Fire Energy`` (any case, one run
#: of blanks between words): the test of a card row, before the database knows it (use fullmatch)
BASIC_ENERGY_NAME = Pattern(r"(?:basic\s+)?(" + "|".join(BASIC_ENERGY_TYPES) + r")\s+energy", re.IGNORECASE)
#: parenthesised class labels a source appends to a name (the card's subtype, not its name)
LABELS = frozenset({"rockets secret machine"})
#: names (as keys, without the letter) whose trailing ``δ`` is part of the name, not Delta Species
LETTER_NAMES = frozenset({"mystery plate"})

# "`" is the only ASCII one (fold() relies on that)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'", "ʼ": "'", "＇": "'"})
_SYMBOLS = [(f"{{{c}}}", word) for letter, word in ENERGY_TYPES.items() for c in (letter, letter.lower())]
_STAR = Pattern(r"\{star\}", re.IGNORECASE)  # fixed width: linear
# a word (letters and digits of any script, no "_"), one symbol, or a "!" / "?" standing alone (the
# Unown marks; "Challenge!" drops it); findall never backtracks over a run (the look-arounds are 1 wide)
# (the symbols past U+00FF are branches of their own, not in the set: deckcheck.patterns.NARROW_MAX)
_TOKEN = Pattern(r"[^\W_]+|[&+()\[\]]|◇|☆|♀|♂|(?<=\s)[!?](?!\S)")
_SAME_SYMBOL = str.maketrans({"★": "☆", "♢": "◇", "'": None})
_BASIC_TYPES = {t.lower(): t for t in BASIC_ENERGY_TYPES}
_LEVEL = Pattern(r"lv(?:x|[0-9]{1,3})")
# last words that may end a level, "Delta Species" or "Prism Star" (a cheap test before the pairs)
_TRAILING_PAIRS = frozenset({"x", "species", "star", *map(str, range(1000))})


def fold(text: str) -> str:
    """Fold apostrophe shapes and accents, keep everything else."""
    if text.isascii():  # NFKC and NFKD leave ASCII alone and no ASCII character is combining
        return text.replace("`", "'") if "`" in text else text
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    return unicodedata.normalize("NFKD", text).translate(_combining_marks())


#: no combining character lies above this code point (a test checks it for this Python's Unicode)
COMBINING_LIMIT = 0x20000
#: how many code points the table below remembers (each costs one unicodedata look-up the first time)
_COMBINING_KEPT = 8192


class _CombiningMarks(dict[int, int | None]):
    """A ``str.translate`` table that deletes combining characters: code point -> None for a
    combining one, else itself. Filled as characters are met (``str.translate`` asks
    ``__missing__`` for a code point not in it): a table of all 131,072 code points below
    :data:`COMBINING_LIMIT` made at once would be paid for by the first name with an accent
    (BENCHMARKS.md)."""

    def __missing__(self, cp: int) -> int | None:
        value = None if cp < COMBINING_LIMIT and unicodedata.combining(chr(cp)) else cp
        if len(self) < _COMBINING_KEPT:  # bounded: a text of every code point cannot grow it further
            self[cp] = value
        return value


_COMBINING = _CombiningMarks()


def _combining_marks() -> dict[int, int | None]:
    """The ``str.translate`` table that deletes combining characters (filled on use)."""
    return _COMBINING


def expand_symbols(name: str) -> str:
    """``Telepathic {P} Energy`` -> ``Telepathic Psychic Energy``."""
    if "{" not in name:
        return name
    for symbol, word in _SYMBOLS:  # 22 passes in C: a pattern with a callback costs more per match
        if symbol in name:
            name = name.replace(symbol, word)
    return name


def _tokens(name: str) -> list[str]:
    text = expand_symbols(fold(name))
    if "{" in text or "<" in text:
        text = _STAR.sub("☆", text.replace("{*}", "◇").replace("<>", "◇"))
    # runs of blanks become one space first (cheaper than the pattern stepping over each)
    return _TOKEN.compiled().findall(" ".join(text.translate(_SAME_SYMBOL).split()))


def _energy_type(low: list[str]) -> str | None:
    """``[basic] <type> energy`` -> the type."""
    if low[:1] == ["basic"]:
        low = low[1:]
    if len(low) == 2 and low[1] == "energy":
        return _BASIC_TYPES.get(low[0])
    return None


def basic_energy_type(name: str) -> str | None:
    """The type of a basic Energy name (``Basic {R} Energy`` -> ``Fire``), else None.

    This reads the name only; whether a printing really is basic Energy is
    decided from the card database.
    """
    if len(name) <= MEMO_MAX_LEN:
        return _basic_energy_type(name)
    # the longest basic Energy name has 22 characters besides blanks (marks and width folded away)
    return None if len("".join(name.split())) > MEMO_MAX_LEN else _basic_energy_type.fn(name)


@memoise(NAME_MEMO_SIZE)
def _basic_energy_type(name: str) -> str | None:
    tokens = _tokens(name)
    return _energy_type([t.lower() for t in tokens]) if len(tokens) < 4 else None


def _strip_brackets(tokens: list[str]) -> list[str]:
    """Drop ``(``, ``)``, ``[``, ``]``; a subtitle or label in parentheses goes with them."""
    if "(" in tokens:
        at = tokens.index("(")
        end = tokens.index(")", at) if ")" in tokens[at : at + 5] else at + 5
        # the families and labels are a few words long: longer texts are never joined up
        if (
            at < 5
            and " ".join(tokens[:at]).lower() in SUBTITLED
            or end - at < 5
            and " ".join(tokens[at + 1 : end]).lower() in LABELS
        ):
            tokens = tokens[:at]
    if "[" in tokens:
        at = tokens.index("[")
        head = tokens[:at]
        if head and all(not t.isascii() for t in head):  # ナッシー[Exeggutor]: the English name
            tokens = tokens[at + 1 :]
    return [t for t in tokens if t not in "()[]"]


def _drop_trailing(tokens: list[str]) -> list[str]:
    """Levels and Delta Species at the end (``Charizard ☆ δ``, ``Gengar LV.X``), each once."""
    for _ in range(2):
        if len(tokens) < 2:
            break
        last = tokens[-1].lower()
        if last == "δ":
            if " ".join(tokens[:-1]).lower() in LETTER_NAMES:
                break
            tokens = tokens[:-1]
        elif last[:2] == "lv" and _LEVEL.fullmatch(last) or last == "prime":
            tokens = tokens[:-1]  # a level, or the HGSS "Prime" label: Magnezone Prime is named Magnezone
        elif len(tokens) < 3 or last not in _TRAILING_PAIRS:
            break
        else:
            pair = (tokens[-2].lower(), last)
            if pair == ("lv", last) and (last == "x" or last.isdigit()):
                tokens = tokens[:-2]
            elif pair in (("delta", "species"), ("prism", "star")):
                tokens = tokens[:-2] + (["◇"] if last == "star" else [])
            else:
                break
    return tokens


#: the Special Energy that provide several types, named by them: PTCGO writes ``Unit Energy GRW`` and
#: ``Blend Energy GRPD``, TCGdex ``Unit Energy GrassFireWater`` and ``Blend Energy Grass Fire Psychic
#: Darkness``, PTCGL-style ``Unit Energy {G}{R}{W}``; the key is the letters (``unit energy grw``)
MULTI_TYPE_ENERGY = frozenset({"unit", "blend"})
_TYPE_LETTERS = {word.lower(): letter.lower() for letter, word in ENERGY_TYPES.items() if word in BASIC_ENERGY_TYPES}
_LETTERS = frozenset(_TYPE_LETTERS.values())


#: how lists without the gender signs write them after Nidoran (the only Pokémon that has them)
_GENDER_WORDS = {"f": "♀", "female": "♀", "m": "♂", "male": "♂"}


def _multi_type_energy(tokens: list[str]) -> str | None:
    """``unit energy grw`` for ``Unit Energy GrassFireWater``, ``Unit Energy GRW``...; else None."""
    if not 3 <= len(tokens) <= 6 or tokens[1].lower() != "energy" or tokens[0].lower() not in MULTI_TYPE_ENERGY:
        return None
    rest = "".join(tokens[2:]).lower()
    if len(rest) <= 4 and set(rest) <= _LETTERS:
        letters = rest
    else:
        letters, at = "", 0
        while at < len(rest):  # at most 4 type words of at most 9 letters: bounded
            word = next((w for w in _TYPE_LETTERS if rest.startswith(w, at)), None)
            if word is None or len(letters) == 4:
                return None
            letters, at = letters + _TYPE_LETTERS[word], at + len(word)
    return f"{tokens[0].lower()} energy {letters}" if len(letters) >= 2 else None


def dropped_at_end(name: str) -> list[str]:
    """What :func:`name_key` leaves off the end of a printed name, in lower case: ``["lv", "x"]`` for
    ``Gengar LV.X``, ``["δ"]`` for ``Latias δ``, ``["delta", "species"]``, ``["prime"]`` for
    ``Magnezone Prime``; ``[]`` when nothing (a message saying why two printed names are one name)."""
    tokens = _strip_brackets(_tokens(name))
    kept = _drop_trailing(tokens)
    if kept[-1:] == ["◇"] and tokens[-1:] != ["◇"]:  # "Prism Star" written out: the key keeps its ◇
        kept = kept[:-1]
    return [t.lower() for t in tokens[len(kept) :]]


def _name_key(name: str) -> str:
    tokens = _drop_trailing(_strip_brackets(_tokens(name)))
    energy = _energy_type([t.lower() for t in tokens]) if len(tokens) < 4 else None
    if energy:
        return energy.lower() + " energy"
    multi = _multi_type_energy(tokens) if len(tokens) >= 3 else None
    if multi:
        return multi
    if len(tokens) >= 2 and tokens[-2].lower() == "nidoran" and tokens[-1].lower() in _GENDER_WORDS:
        tokens = tokens[:-1] + [_GENDER_WORDS[tokens[-1].lower()]]  # Nidoran F, Nidoran (M): no ♀ ♂ key
    if "EX" not in tokens and "GX" not in tokens:
        return " ".join(tokens).lower()
    # "ex" (Pokémon ex) and "EX" (Pokémon-EX) are different names: keep the suffix's case
    return " ".join(t if t in ("EX", "GX") else t.lower() for t in tokens)


_name_key_memo = memoise(NAME_MEMO_SIZE)(_name_key)
#: the last long name and its key (a line's lookups ask 2-3 times): one entry, whatever its length
_last_long: Memo[str, str] = Memo(1, max_len=None)


def name_key(name: str) -> str:
    """The normalised name: equal keys mean the same name for the copy rule."""
    if len(name) <= MEMO_MAX_LEN:
        return _name_key_memo(name)
    key = _last_long.get(name)
    return _last_long.put(name, _name_key(name)) if key is None else key


def lookup_key(name: str) -> str:
    """A looser key for finding a card from what a person typed: case fully folded."""
    return name_key(name).lower()


def memo_sizes() -> dict[str, int]:
    """How many entries each memo of this module holds (tests check they stay bounded)."""
    return {
        "name_key": len(_name_key_memo.memo),
        "basic_energy_type": len(_basic_energy_type.memo),
    }


def without_subtitle(name: str) -> str:
    """The name as players say it: ``Professor's Research (Professor Oak)`` -> ``Professor's
    Research`` (:data:`SUBTITLE`); a name that is all parentheses stays as it is."""
    return SUBTITLE.sub("", name) or name
