"""Decklist text in, card lines out: no card lookups, never an exception.

Every non-blank line of the input ends up as exactly one of: a header, a
card line, an ignored decoration (the PTCGO banners, listed in
``decorations``), the list's own total (``declared_total_line``), or a
problem carrying its line number. A text whose first character (after a BOM
and blanks) is ``{`` is read as a JSON deck instead; there the "line" of a
card is its 1-based entry index.

Card lines are read right to left: an optional trailing tag (``PH``, or an
RK9 suffix such as ``- ACESPEC``), then a collector number, then a set code,
and only while at least one token is left for the name. Names keep whatever
is left as written (colons, digits, ``&``, ``{P}``, ``◇``, curly apostrophes);
folding them is ``names.py``'s job.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from .problems import Problem

#: the largest number of copies one card line may ask for
MAX_COPIES = 999

#: header labels, accents and case folded, in the languages PTCGL exports
_SECTION_LABELS: dict[str, str] = {
    **dict.fromkeys(("pokemon", "pokemons", "pokemon cards"), "pokemon"),
    **dict.fromkeys(
        (
            "trainer", "trainers", "trainer cards",  # en, de
            "dresseur", "dresseurs",  # fr
            "treinador", "treinadores",  # pt
            "entrenador", "entrenadores",  # es
            "allenatore", "allenatori",  # it
        ),
        "trainer",
    ),
    **dict.fromkeys(
        ("energy", "energies", "energy cards", "energie", "energien", "energia", "energias"),
        "energy",
    ),
}
#: labels of the list's own total ("Total Cards: 60"), folded the same way
_TOTAL_LABELS = frozenset(
    {
        "total", "total cards",  # en
        "karten insgesamt",  # de
        "total de cartes",  # fr
        "total de cartas",  # pt
        "cartas totales",  # es
        "carte totali",  # it
    }
)
#: all-capital name endings that look like set codes but belong to the name
_NAME_SUFFIXES = frozenset(
    {"EX", "GX", "V", "VMAX", "VSTAR", "BREAK", "LEGEND", "PRIME", "STAR", "TAG", "TEAM",
     "GL", "FB", "E4", "SP", "LV", "ACE", "SPEC", "ACESPEC"}
)
#: first tokens that are list markup, not part of the card line
_BULLETS = frozenset({"*", "-", "•"})
_DASHES = frozenset({"-", "–", "—"})

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_TOKEN = re.compile(r"\S+")
# section headers and totals: "Pokémon: 14", "##Pokémon - 30", "Pokémon (22)", bare "Trainer"
# (a label starts with a letter, so card lines fail at their first character)
_LABELLED = (
    re.compile(r"#*\s*(?P<label>[^\W\d_][^:]{0,39}?)\s*:\s*(?P<count>[0-9]{1,6})?"),
    re.compile(r"#*\s*(?P<label>[^\W\d_].{0,39}?)\s+[-–—]\s*(?P<count>[0-9]{1,6})"),
    re.compile(r"#*\s*(?P<label>[^\W\d_][^()]{0,39}?)\s*\(\s*(?P<count>[0-9]{1,6})\s*\)"),
    re.compile(r"#*\s*(?P<label>[^\W\d_][^:()]{0,39}?)"),
)
_LEADING_COUNT = re.compile(r"[xX×]?([0-9]+)|([0-9]+)[xX×]")
_TRAILING_COUNT = re.compile(r"[xX×]([0-9]+)")
_NUMBER = re.compile(r"([A-Za-z]{0,5})([0-9]{1,4}[A-Za-z]?)")
_SET = re.compile(r"[A-Z0-9]{2,8}(?:-[A-Za-z0-9]{1,20})?")
_SET_ALONE = re.compile(r"[A-Z0-9]{2,6}(?:-[A-Z0-9]{2,3})?")
_BRACKETED_SET = re.compile(r"\[([A-Za-z0-9-]{1,20})\]")
_TAG = re.compile(r"[A-Za-z]{2,12}")

_UNPARSED_HINT = 'A card line looks like "4 Nest Ball SVI 181" and a header like "Trainer: 12".'


@dataclass(frozen=True)
class CardLine:
    """One card line as written.

    :param line: 1-based line number (for a JSON deck: 1-based entry index).
    :param raw: the line as written, without its line ending.
    :param count: number of copies (>= 1).
    :param name: the card's name as written, markup removed (``* `` prefix,
        trailing ``PH``, RK9 suffixes, ``x4``), otherwise untouched.
    :param set_code: the set code as written (upper-cased), or None.
    :param number: the collector number as written, or None.
    :param section: ``pokemon``, ``trainer`` or ``energy`` from the nearest
        header above, or None in a headerless list.
    :param tag: an RK9-style suffix such as ``Basic`` or ``ACESPEC``, or ``PH``.
    """

    line: int
    raw: str
    count: int
    name: str
    set_code: str | None = None
    number: str | None = None
    section: str | None = None
    tag: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Header:
    """A section header such as ``Pokémon: 14``, ``##Trainer Cards - 10`` or ``Energy (8)``."""

    line: int
    section: str  # pokemon | trainer | energy
    label: str  # as written, e.g. "Dresseur"
    count: int | None  # advisory: tools disagree on what it counts

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ParseResult:
    """What :func:`parse` found; ``decorations`` are the lines ignored on purpose."""

    cards: list[CardLine] = field(default_factory=list)
    headers: list[Header] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    declared_total: int | None = None
    declared_total_line: int | None = None
    source: str = "text"  # text | json
    decorations: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "cards": [card.to_dict() for card in self.cards],
            "headers": [header.to_dict() for header in self.headers],
            "decorations": list(self.decorations),
            "declared_total": self.declared_total,
            "declared_total_line": self.declared_total_line,
            "problems": [problem.to_dict() for problem in self.problems],
        }


class _Token(NamedTuple):
    """One run of non-blank characters and where it sits in the line (to cut the name as written)."""

    text: str
    start: int
    end: int


def parse(text: str) -> ParseResult:
    """Parse a decklist in any supported format. Never raises."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.lstrip().startswith("{"):
        return _parse_json(text)
    result = ParseResult()
    section: str | None = None
    for number, raw in enumerate(_LINE_BREAK.split(text), start=1):
        if raw.strip():
            section = _read_line(result, number, raw, section)
    return result


def _read_line(result: ParseResult, n: int, raw: str, section: str | None) -> str | None:
    """File one non-blank line into ``result``; return the section in force after it."""
    stripped = raw.strip()
    if _is_banner(stripped):
        result.decorations.append(n)
        return section
    labelled = _labelled(stripped)
    if labelled is not None:
        label, folded, count = labelled
        if folded in _TOTAL_LABELS and count is not None:
            _record_total(result, n, count)
            return section
        if folded in _SECTION_LABELS:
            result.headers.append(Header(n, _SECTION_LABELS[folded], label, count))
            return _SECTION_LABELS[folded]
    found = _card_line(n, raw, section)
    if isinstance(found, CardLine):
        result.cards.append(found)
    else:
        result.problems.append(found or _unparsed(n, stripped))
    return section


def _is_banner(stripped: str) -> bool:
    """A PTCGO banner such as ``****** Pokémon Trading Card Game Deck List ******``."""
    return len(stripped) >= 6 and stripped.startswith("***") and stripped.endswith("***")


def _labelled(stripped: str) -> tuple[str, str, int | None] | None:
    """``(label as written, folded label, count)`` for a header-shaped line, else None."""
    for pattern in _LABELLED:
        m = pattern.fullmatch(stripped)
        if m:
            count = m.group("count") if "count" in pattern.groupindex else None
            return m.group("label"), _fold_label(m.group("label")), int(count) if count else None
    return None


def _fold_label(label: str) -> str:
    """Case, accents and runs of blanks folded: ``Énergie`` -> ``energie``."""
    decomposed = unicodedata.normalize("NFKD", label)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


def _record_total(result: ParseResult, n: int, count: int) -> None:
    """Keep the first ``Total Cards`` line; a second one is a problem on its line."""
    if result.declared_total_line is None:
        result.declared_total, result.declared_total_line = count, n
        return
    message = f"Line {n} repeats the card total; the total on line {result.declared_total_line} is the one checked."
    result.problems.append(Problem("unparsed-line", message, lines=(n,)))


def _unparsed(n: int, stripped: str) -> Problem:
    message = f'Line {n} is not a card line or a section header: "{_shorten(stripped)}".'
    return Problem("unparsed-line", message, lines=(n,), hint=_UNPARSED_HINT)


def _shorten(text: str, limit: int = 60) -> str:
    """``text`` made safe to show: control characters escaped, cut to ``limit`` characters."""
    shown = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


# --- card lines -------------------------------------------------------------


def _card_line(n: int, raw: str, section: str | None) -> CardLine | Problem | None:
    """Read ``raw`` as a card line: a CardLine, a Problem for a bad count, or None."""
    tokens = [_Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(raw)]
    if len(tokens) > 1 and tokens[0].text in _BULLETS:
        tokens = tokens[1:]
    count_text, tokens = _take_count(tokens)
    if count_text is None or not tokens:
        return None
    tag, tokens = _take_tag(tokens)
    set_code, number, tokens = _take_print(tokens)
    name = raw[tokens[0].start : tokens[-1].end]
    if not any(ch.isalpha() for ch in name):
        return None
    count = _copies(count_text)
    if count is None:
        message = (
            f'Line {n} asks for {_shorten(count_text, 12)} copies of "{_shorten(name)}"; '
            f"a card line needs 1 to {MAX_COPIES} copies."
        )
        return Problem("unparsed-line", message, lines=(n,))
    return CardLine(n, raw, count, name, set_code, number, section, tag)


def _take_count(tokens: list[_Token]) -> tuple[str | None, list[_Token]]:
    """The copy count's digits (``4``, ``4x``, ``x4`` first, or ``x4`` last) and the rest."""
    if not tokens:
        return None, tokens
    m = _LEADING_COUNT.fullmatch(tokens[0].text)
    if m:
        return m.group(1) or m.group(2), tokens[1:]
    m = _TRAILING_COUNT.fullmatch(tokens[-1].text)
    if m and len(tokens) > 1:
        return m.group(1), tokens[:-1]
    return None, tokens


def _copies(digits: str) -> int | None:
    """The count if it is 1..MAX_COPIES; never calls int() on a huge string."""
    significant = digits.lstrip("0")
    if not significant or len(significant) > len(str(MAX_COPIES)):
        return None
    count = int(significant)
    return count if count <= MAX_COPIES else None


def _take_tag(tokens: list[_Token]) -> tuple[str | None, list[_Token]]:
    """A trailing ``PH`` or RK9 ``- Basic`` / ``- ACESPEC``, when a name is left."""
    if len(tokens) > 1 and tokens[-1].text == "PH":
        return "PH", tokens[:-1]
    if len(tokens) > 2 and tokens[-2].text in _DASHES and _TAG.fullmatch(tokens[-1].text):
        return tokens[-1].text, tokens[:-2]
    return None, tokens


def _take_print(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]]:
    """``(set_code, number, name tokens)``: the first reading that leaves a name wins."""
    for reader in (_in_parentheses, _in_brackets, _set_and_number, _energy_number, _set_alone):
        found = reader(tokens)
        if found is not None:
            return found
    return None, None, tokens


def _in_parentheses(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]] | None:
    """``Nest Ball (SVI 181)`` or ``Bisharp (ASC)``; a subtitle like ``(Professor Turo)`` is no set."""
    last = tokens[-1].text
    if len(tokens) > 1 and last.startswith("(") and last.endswith(")") and _is_set_code(last[1:-1]):
        return last[1:-1].upper(), None, tokens[:-1]
    if len(tokens) > 2 and tokens[-2].text.startswith("(") and last.endswith(")"):
        code, number = tokens[-2].text[1:], last[:-1]
        if _is_set_code(code) and _NUMBER.fullmatch(number):
            return code.upper(), _number(number), tokens[:-2]
    return None


def _in_brackets(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]] | None:
    """TCGplayer's ``Goldeen [ME05] 13`` or ``Goldeen [ME05]``."""
    m = _BRACKETED_SET.fullmatch(tokens[-1].text)
    if m and len(tokens) > 1:
        return m.group(1).upper(), None, tokens[:-1]
    if len(tokens) > 2 and _NUMBER.fullmatch(tokens[-1].text):
        m = _BRACKETED_SET.fullmatch(tokens[-2].text)
        if m:
            return m.group(1).upper(), _number(tokens[-1].text), tokens[:-2]
    return None


def _set_and_number(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]] | None:
    """``Iono PAL 185``; Limitless's ``Energy`` pseudo set only after a name ending in Energy."""
    if len(tokens) < 3 or not _NUMBER.fullmatch(tokens[-1].text):
        return None
    code, before = tokens[-2].text, tokens[-3].text
    is_energy_code = code.casefold() == "energy" and before.casefold().endswith("energy")
    if is_energy_code or _is_set_code(code):
        return code.upper(), _number(tokens[-1].text), tokens[:-2]
    return None


def _energy_number(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]] | None:
    """Early PTCGL and PTCGO basic Energy with a number and no set: ``Fire Energy 2``."""
    if len(tokens) > 1 and tokens[-1].text.isascii() and tokens[-1].text.isdigit():
        if tokens[-2].text.casefold() == "energy" and len(tokens[-1].text) <= 4:
            return None, tokens[-1].text, tokens[:-1]
    return None


def _set_alone(tokens: list[_Token]) -> tuple[str | None, str | None, list[_Token]] | None:
    """A set and no number (``Bisharp ASC``), only for a strictly set-shaped last token."""
    last = tokens[-1].text
    if len(tokens) > 1 and _SET_ALONE.fullmatch(last) and _is_set_code(last):
        return last, None, tokens[:-1]
    return None


def _is_set_code(text: str) -> bool:
    """Upper-case letters and digits with at least one letter, not a name ending like ``GX``."""
    return (
        bool(_SET.fullmatch(text))
        and any(ch.isalpha() for ch in text)
        and text.split("-")[0] not in _NAME_SUFFIXES
    )


def _number(text: str) -> str:
    """A collector number as written, its letter prefix upper-cased (``tg12`` -> ``TG12``)."""
    m = _NUMBER.fullmatch(text)
    return m.group(1).upper() + m.group(2) if m else text


# --- JSON decks -------------------------------------------------------------


def _parse_json(text: str) -> ParseResult:
    """Read ``{"cards": [{"count", "name", "set", "number"}, ...]}``; never raises."""
    result = ParseResult(source="json")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        message = f"The deck starts with {{ but is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}."
        result.problems.append(Problem("unparsed-line", message, lines=(1,)))
        return result
    except (ValueError, RecursionError) as err:
        message = f"The deck starts with {{ but could not be read as JSON: {_shorten(str(err) or type(err).__name__)}."
        result.problems.append(Problem("unparsed-line", message, lines=(1,)))
        return result
    entries = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        message = 'The JSON deck has no "cards" list; it should look like {"cards": [{"count": 4, "name": "Iono"}]}.'
        result.problems.append(Problem("unparsed-line", message, lines=(1,)))
        return result
    for index, entry in enumerate(entries, start=1):
        found = _json_entry(index, entry)
        (result.cards if isinstance(found, CardLine) else result.problems).append(found)
    return result


def _json_entry(index: int, entry: object) -> CardLine | Problem:
    """One entry of a JSON deck as a card line, or the first thing wrong with it."""
    raw = _json_text(entry)
    fault = _json_fault(entry)
    if fault:
        return Problem("unparsed-line", f"Entry {index} of the JSON deck {fault}.", lines=(index,))
    code = (entry.get("set") or "").strip().upper() or None
    number = entry.get("number")
    number = (str(number) if isinstance(number, int) else number.strip()) if number is not None else None
    return CardLine(index, raw, entry["count"], entry["name"].strip(), code, number or None)


def _json_fault(entry: object) -> str | None:
    """What makes a JSON entry unusable, as the end of a sentence, or None."""
    if not isinstance(entry, dict):
        return f"is not an object: {_shorten(_json_text(entry))}"
    count = entry.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COPIES:
        return f"has count {_shorten(_json_text(count), 20)}; a count is a whole number from 1 to {MAX_COPIES}"
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        return "has no card name"
    if not isinstance(entry.get("set"), (str, type(None))):
        return 'has a "set" that is not text'
    number = entry.get("number")
    if isinstance(number, bool) or not isinstance(number, (str, int, type(None))):
        return 'has a "number" that is neither text nor a whole number'
    return None


def _json_text(value: object) -> str:
    """Compact JSON for a value read from JSON (so it always serialises)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (ValueError, RecursionError):
        return type(value).__name__
