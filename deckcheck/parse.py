"""Decklist text in, card lines out: no card lookups, never an exception.

Every non-blank line of the input ends up as exactly one of: a header, a
card line, an ignored decoration (the PTCGO banners, listed in
``decorations``), the list's own total (``declared_total_line``), or a
problem carrying its line number. A text whose first character (after a BOM
and blanks) is ``{`` is read as a JSON deck instead; there the "line" of a
card is its 1-based entry index.

Card lines are read right to left: an optional trailing tag (``PH``, or an
RK9 suffix such as ``- ACESPEC``), then a collector number, then a set code
(upper case, or all lower case before a number: ``asc 109``), and only while
at least one token is left for the name. Names keep whatever
is left as written (colons, digits, ``&``, ``{P}``, ``◇``, curly apostrophes);
folding them is ``names.py``'s job.

What a line is depends on its text alone, so that reading is memoised on the
text (a bounded ``lru_cache``, short lines only); the line number and the
section in force always come from the deck being parsed.

A list inside Markdown code fences (a Discord post) is read from inside the fences: the fence
lines are decorations and the prose around them one ``prose-ignored`` note. A text that starts
with ``{`` (or ``[`` then ``{``) is read as JSON in any shape of :data:`JSON_SHAPES`. :func:`read` gives
the card lines as plain rows, for the engine, which never shows CardLines.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from .names import MEMO_MAX_LEN, basic_energy_type
from .problems import Problem

#: the largest number of copies one card line may ask for
MAX_COPIES = 999
#: the largest decklist any entry point (API, web page, CLI, Discord) accepts: UTF-8 bytes and lines
MAX_DECKLIST_BYTES = 64 * 1024
MAX_DECKLIST_LINES = 1000

#: header labels, accents and case folded, in the languages PTCGL exports
_SECTION_LABELS: dict[str, str] = {
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
_TOTAL_LABELS = frozenset(
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
_NAME_SUFFIXES = frozenset(
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
        "SP",
        "LV",
        "ACE",
        "SPEC",
        "ACESPEC",
    }
)
#: Markdown bold around a whole line
_BOLD = frozenset({"**", "__"})
#: first tokens that are list markup, not part of the card line (">": a quoted Discord or Markdown line)
_BULLETS = frozenset({"*", "-", "•", ">"})
_DASHES = frozenset({"-", "–", "—"})

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JSON_START = re.compile(r"\s*(?:\{|\[\s*[{\[\]])")
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
# a set code: upper-case letters and digits, at least one letter (all its characters are ASCII)
_SET_CODE = re.compile(r"(?=[A-Za-z0-9-]*[A-Za-z])[A-Z0-9]{2,8}(?:-[A-Za-z0-9]{1,20})?")
_SET_ALONE = re.compile(r"[A-Z0-9]{2,6}(?:-[A-Z0-9]{2,3})?")
_BRACKETED_SET = re.compile(r"\[([A-Za-z0-9-]{1,20})\]")
_TAG = re.compile(r"[A-Za-z]{2,12}")
# a card id of the card source, "<set id>-<local id>": TCGdex's base1-88, sv03.5-151, tk-hs-g-5 or
# pokemontcg.io's swsh12pt5-160 (split at the last hyphen; both parts are bounded)
_ID_SET = re.compile(r"[a-z][a-z0-9.-]{0,19}")
_ID_LOCAL = re.compile(r"[A-Za-z]{0,6}[0-9]{1,4}[A-Za-z]{0,2}|[A-Z]{1,6}")

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


# What a non-empty line is, independent of its number and of the section in force: the first
# item of the tuple _classify() returns.
_CARD, _HEADER, _TOTAL, _BANNER, _BAD_COUNT, _UNPARSED, _BLANK = range(7)
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_LABEL_START = re.compile(r"#*\s*[^\W\d_]")


def count_lines(text: str) -> int:
    """Lines as :func:`parse` numbers them; a final line break does not start a new line. A JSON
    deck counts its card entries (every player's) when they are more than its lines."""
    return measure_lines(text)[0]


def measure_lines(text: str) -> tuple[int, str]:
    """:func:`count_lines` and what it counted, for a message: ``"lines"``, or ``"card entries"``
    when a JSON deck's entries are more than its lines (1,001 entries on one line)."""
    if not text:
        return 0, "lines"
    lines = _count_text_lines(text)
    if _looks_like_json(text.removeprefix("\ufeff")):
        entries = json_entries(text)
        if entries > lines:
            return entries, "card entries"
    return lines, "lines"


def over_line_limit(count: int, unit: str) -> str:
    """``1,001 lines``, or ``1,001 card entries (each counts as a line)``, for a limit message."""
    return f"{count:,} {unit}" + (" (each counts as a line)" if unit != "lines" else "")


def _count_text_lines(text: str) -> int:
    breaks = text.count("\n") if "\r" not in text else len(_LINE_BREAK.split(text)) - 1
    return breaks + 1 - (1 if text.endswith(("\n", "\r")) else 0)


def _split_lines(text: str) -> list[str]:
    """``text`` cut into lines at every CR LF, CR and LF (as :data:`_LINE_BREAK`), the breaks removed."""
    # str.split is about five times faster than the regular expression, and the same without a CR
    return text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)


def parse(text: str) -> ParseResult:
    """Parse a decklist in any supported format. Never raises."""
    result, rows = read(text)
    cards, new = result.cards, object.__new__
    for n, section, fields in rows:
        # a CardLine without the frozen dataclass's per-field object.__setattr__: the row's fields
        # copied, with its line number and section (the same instance dict __init__ would make;
        # tests compare the two)
        card = new(CardLine)
        own = card.__dict__
        own.update(fields)
        own["line"], own["section"] = n, section
        cards.append(card)
    return result


#: a card line as :func:`read` gives it: ``(line number, section, fields)``, ``fields`` being the
#: dict of every :class:`CardLine` field, in field order, of which ``line`` and ``section`` are not
#: this line's (a placeholder, or another line's)
CardRow = tuple[int, "str | None", dict]


def read(text: str) -> tuple[ParseResult, list[CardRow]]:
    """:func:`parse`, with the card lines as rows instead of :class:`CardLine` objects (the
    result's ``cards`` stays empty). Never raises.

    The engine copies rows straight into its own lines: CardLines it would drop at once were a
    third of the time of a parse. ``fields`` dicts are shared with the line memo: only read them.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if _looks_like_json(text):
        return _parse_json(text)
    lines = _split_lines(text)
    fenced = _fenced(lines) if "```" in text else None
    if fenced is not None:
        return _read_fenced(lines, fenced)
    result, rows = ParseResult(), []
    headers, new = result.headers, object.__new__
    section: str | None = None
    memo, limit = _classify, MEMO_MAX_LEN  # longer lines are classified without the memo
    for n, raw in enumerate(lines, start=1):
        if not raw:
            continue
        kind = memo(raw) if len(raw) <= limit else _read_line(raw)
        what = kind[0]
        if what == _CARD:
            rows.append((n, section, kind[1]))
        elif what == _HEADER:
            # as for a CardLine in parse(): the memo's field dict copied, no per-field object.__setattr__
            section, header = kind[1], new(Header)
            own = header.__dict__
            own.update(kind[2])
            own["line"] = n
            headers.append(header)
        elif what != _BLANK:
            _file_other(result, n, kind)
    return result, rows


#: the text after an opening fence that names the block's language (```txt, ```json), not a card line
_INFO_STRING = re.compile(r"[A-Za-z][A-Za-z0-9_+#.-]{0,19}")


def _fenced(lines: list[str]) -> list[tuple[str, bool, bool]] | None:
    """For a list inside Markdown code fences (a Discord post): for each line, ``(the text inside
    the fences, whether text outside them is on it, whether a fence is on it)``; None when no line
    has a fence. A fence may share its line with the list, as Discord allows (```4 Dreepy TWM 128,
    56 Basic {P} Energy SVE 5```); one word right after an opening fence is the block's language."""
    if not any("```" in raw for raw in lines):
        return None
    out, inside = [], False
    for raw in lines:
        if "```" not in raw:
            out.append((raw, False, False) if inside else ("", bool(raw.strip()), False))
            continue
        parts = raw.split("```")
        kept, prose = [], False
        for i, part in enumerate(parts):
            if i:
                inside = not inside
                if inside and i == len(parts) - 1 and _INFO_STRING.fullmatch(part.strip()):
                    continue  # ```txt
            if not part.strip():
                continue
            if inside:
                kept.append(part.strip())
            else:
                prose = True
        out.append((" ".join(kept), prose, True))
    return out


def _read_fenced(lines: list[str], fenced: list[tuple[str, bool, bool]]) -> tuple[ParseResult, list[CardRow]]:
    """:func:`read` of the text inside the code fences; lines that are only fences are decorations
    and the prose around them is ignored, with one info note naming its lines (a line with list text
    inside a fence is that text's line, whatever prose shares it)."""
    inner = "\n".join(kept for kept, _prose, _fence in fenced)
    if _looks_like_json(inner):
        result, rows = _parse_json(inner)
    else:
        result, rows = read(inner)
    prose = []
    for n, (kept, is_prose, fence) in enumerate(fenced, start=1):
        if kept:
            continue
        if is_prose:
            prose.append(n)
        elif fence:
            result.decorations.append(n)
    result.decorations.sort()
    if prose:
        where = f"Line {prose[0]} is" if len(prose) == 1 else f"Lines {_ranges(prose)} are"
        message = f"{where} outside the code block and {'was' if len(prose) == 1 else 'were'} ignored as prose."
        result.problems.append(Problem("prose-ignored", message, lines=tuple(prose)))
    return result, rows


def _ranges(numbers: list[int]) -> str:
    """``1-3, 7 and 9`` for sorted line numbers."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def card_rows(result: ParseResult) -> list[CardRow]:
    """The rows of the card lines of a parse result (what :func:`read` would have given)."""
    return [(card.line, card.section, vars(card)) for card in result.cards]


def _file_other(result: ParseResult, n: int, kind: tuple) -> None:
    """File a line that is neither a card line, a header nor blank into ``result``."""
    what = kind[0]
    if what == _TOTAL:
        _record_total(result, n, kind[1])
    elif what == _BANNER:
        result.decorations.append(n)
    elif what == _BAD_COUNT:
        result.problems.append(Problem("unparsed-line", f"Line {n} {kind[1]}", lines=(n,)))
    else:
        result.problems.append(_unparsed(n, kind[1]))


def _classify_line(raw: str) -> tuple:
    """What the non-blank line ``raw`` is, as a tuple led by its kind; a pure function of ``raw``.

    ``(_CARD, count, name, set_code, number, tag)``, ``(_HEADER, section, label, count)``,
    ``(_TOTAL, count)``, ``(_BANNER,)``, ``(_BAD_COUNT, message after "Line N ")`` or
    ``(_UNPARSED, the stripped line)``.
    """
    common = _common_card(raw)
    if common is not None:
        return common
    stripped = raw.strip()
    if _is_banner(stripped):
        return (_BANNER,)
    label_text = stripped
    if len(stripped) > 4 and stripped[:2] in _BOLD and stripped[-2:] == stripped[:2]:
        label_text = stripped[2:-2].strip()  # a Markdown bold header, "**Pokémon (12)**" (a Discord post)
    labelled = _labelled(label_text) if _LABEL_START.match(label_text) else None
    if labelled is not None:
        label, folded, count = labelled
        if folded in _TOTAL_LABELS and count is not None:
            return (_TOTAL, count)
        if folded in _SECTION_LABELS:
            return (_HEADER, _SECTION_LABELS[folded], label, count)
    return _card_fields(raw) or (_UNPARSED, stripped)


def _common_card(raw: str) -> tuple | None:
    """The fast path for the usual ``4 Nest Ball SVI 181 [PH]``: what :func:`_card_fields` reads, or None.

    Single blanks and nothing around the line, no bullet, a count of 1 to 999 without
    leading zeros, a set code outside parentheses and brackets, a collector number of
    digits only, an ASCII letter in the name; anything else goes the long way.
    """
    # read with str.split, not a regular expression (tests/test_parse_common.py keeps the
    # expression it replaced, r"([1-9][0-9]{0,2}) (\S+(?: \S+)*?) (SET) ([0-9]{1,4})( PH)?", as
    # the oracle): tokens split on single blanks, none empty and no other whitespace in them,
    # then the count, the name (one token or more), the set code, the number and an optional PH
    # (a printable line has no whitespace but the ASCII blank: no second split to find out)
    tokens = raw.split(" ")
    n = len(tokens)
    tag = None
    if n > 4 and tokens[-1] == "PH":
        tag, n = "PH", n - 1
    if n < 4:
        return None
    count, code, number = tokens[0], tokens[n - 2], tokens[n - 1]
    if not (
        0 < len(count) < 4
        and count.isascii()
        and count.isdigit()
        and count[0] != "0"
        and 0 < len(number) < 5
        and number.isascii()
        and number.isdigit()
        and "" not in tokens
        and (raw.isprintable() or tokens == raw.split())
        and _is_set_code(code)
    ):
        return None
    name = raw[len(count) + 1 : len(raw) - len(code) - len(number) - (5 if tag else 2)]
    if not _ASCII_LETTER.search(name) or name[:2] in _TIMES_SP:  # "2 x Pidgeot ex ...": the long way
        return None
    return (_CARD, int(count), name, code.upper(), number, tag)


def _read_line(raw: str) -> tuple:
    """What the non-empty line ``raw`` is, for :func:`read`: :func:`_classify_line`, except that a
    card line is ``(_CARD, fields)`` (the fields of a :data:`CardRow`), a header ``(_HEADER,
    section, fields)`` (a Header's instance dict, line 0) and a line of blanks ``(_BLANK,)``."""
    if raw.isspace():
        return (_BLANK,)  # in the memo: read() looks no further at a non-empty line
    kind = _classify_line(raw)
    if kind[0] == _CARD:
        _, count, name, set_code, number, tag = kind
        return (_CARD, _fields(raw, count, name, set_code, number, tag))
    if kind[0] == _HEADER:
        _, section, label, count = kind
        return (_HEADER, section, {"line": 0, "section": section, "label": label, "count": count})
    return kind


def _fields(raw: str, count: int, name: str, set_code: str | None, number: str | None, tag: str | None) -> dict:
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


#: the memo of :func:`_read_line` (bounded; keyed on the line's text only, so the line number
#: and section always come from the deck being parsed; the fields dicts it holds are only copied)
_classify = lru_cache(maxsize=8192)(_read_line)


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
#
# A line's tokens are its runs of non-blank characters (``str.split()``: the same runs as
# ``\S+``). The readers below look at the tokens left for the name and set code, and say how
# many of them stay in the name; the name is then cut from the line as written.


#: a times sign standing alone between the count and the name
_TIMES = frozenset({"x", "X", "×"})
_TIMES_SP = frozenset(t + " " for t in _TIMES)


def _card_fields(raw: str) -> tuple | None:
    """Read ``raw`` as a card line: ``(_CARD, ...)``, ``(_BAD_COUNT, ...)`` for a bad count, or None."""
    tokens = raw.split()
    lo, hi = 0, len(tokens)  # the tokens not yet taken are tokens[lo:hi]
    if hi > 1 and tokens[0] in _BULLETS:
        lo = 1
    if lo >= hi:
        return None
    first = tokens[lo]
    if first.isascii() and first.isdigit():  # the usual "4 Iono PAL 185"
        count_text, lo = first, lo + 1
    elif m := _LEADING_COUNT.fullmatch(first):
        count_text, lo = m.group(1) or m.group(2), lo + 1
    else:
        m = _TRAILING_COUNT.fullmatch(tokens[hi - 1])
        if not (m and hi - lo > 1):
            return None
        count_text, hi = m.group(1), hi - 1
    if hi - lo > 1 and tokens[lo] in _TIMES:  # "2 x Pidgeot ex OBF 164" (no card name starts with one)
        lo += 1
    if lo >= hi:
        return None
    rest = tokens[lo:hi]
    tag, kept = _take_tag(rest)
    set_code, number, kept = _take_print(rest, kept)
    if raw == " ".join(tokens):  # single blanks, nothing around: the name is its tokens joined
        name = " ".join(rest[:kept])
    else:
        name = _cut(raw, tokens, lo, lo + kept)
    if not (_ASCII_LETTER.search(name) if name.isascii() else any(ch.isalpha() for ch in name)):
        return None
    count = _copies(count_text)
    if count is None:
        message = (
            f'asks for {_shorten(count_text, 12)} copies of "{_shorten(name)}"; '
            f"a card line needs 1 to {MAX_COPIES} copies."
        )
        return (_BAD_COUNT, message)
    return (_CARD, count, name, set_code, number, tag)


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


def _take_tag(tokens: list[str]) -> tuple[str | None, int]:
    """A trailing ``PH`` or RK9 ``- Basic`` / ``- ACESPEC``, when a name is left: (tag, tokens kept)."""
    n = len(tokens)
    if n > 1 and (tokens[-1] == "PH" or n > 3 and tokens[-1] == "ph" and _NUMBER.fullmatch(tokens[-2])):
        return "PH", n - 1  # "ph" only after a number: a list typed in lower case ("nest ball svi 181 ph")
    if n > 2 and tokens[-2] in _DASHES and _TAG.fullmatch(tokens[-1]):
        return tokens[-1], n - 2
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
    if n > 1 and last.startswith("(") and last.endswith(")") and _is_set_code(last[1:-1]):
        return last[1:-1].upper(), None, n - 1
    if n > 2 and tokens[n - 2].startswith("(") and last.endswith(")"):
        code, number = tokens[n - 2][1:], last[:-1]
        if _is_set_code(code) and _NUMBER.fullmatch(number):
            return code.upper(), _number(number), n - 2
    return None


def _in_brackets(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """TCGplayer's ``Goldeen [ME05] 13`` or ``Goldeen [ME05]``."""
    last = tokens[n - 1]
    if n > 1 and last.startswith("["):
        m = _BRACKETED_SET.fullmatch(last)
        if m:
            return m.group(1).upper(), None, n - 1
    if n > 2 and tokens[n - 2].startswith("[") and _NUMBER.fullmatch(last):
        m = _BRACKETED_SET.fullmatch(tokens[n - 2])
        if m:
            return m.group(1).upper(), _number(last), n - 2
    return None


def _set_and_number(tokens: list[str], n: int) -> tuple[str | None, str | None, int] | None:
    """``Iono PAL 185``; Limitless's ``Energy`` pseudo set only after a name ending in Energy."""
    if n < 3:
        return None
    m = _NUMBER.fullmatch(tokens[n - 1])
    if not m:
        return None
    code, before = tokens[n - 2], tokens[n - 3]
    is_energy_code = code.casefold() == "energy" and before.casefold().endswith("energy")
    # a set code typed in lower case ("4 Cynthia's Gible asc 109"): all lower case, before a number
    lower_code = code.islower() and code.isascii() and _is_set_code(code.upper())
    if is_energy_code or lower_code or _is_set_code(code):
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
    for the set code and number (the database knows set ids as codes)."""
    last = tokens[n - 1]
    if n < 2 or len(last) > 32 or not last[0].islower():
        return None
    set_id, dash, local = last.rpartition("-")
    if dash and _ID_SET.fullmatch(set_id) and _ID_LOCAL.fullmatch(local):
        return set_id.upper(), local.upper(), n - 1
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
    if n > 1 and _SET_ALONE.fullmatch(last) and _is_set_code(last):
        return last, None, n - 1
    return None


def _is_set_code(text: str) -> bool:
    """Upper-case letters and digits with at least one letter, not a name ending like ``GX``."""
    if 1 < len(text) < 9 and text.isascii() and text.isalnum():
        # the usual code ("SVI", "SV1"): _SET_CODE without its "-suffix", read without the
        # pattern (isupper: no lower-case letter and at least one letter)
        return text.isupper() and text not in _NAME_SUFFIXES
    return bool(_SET_CODE.fullmatch(text)) and text.partition("-")[0] not in _NAME_SUFFIXES


def _number(text: str) -> str:
    """A collector number as written, its letter prefix upper-cased (``tg12`` -> ``TG12``)."""
    m = _NUMBER.fullmatch(text)
    return m.group(1).upper() + m.group(2) if m else text


# --- JSON decks -------------------------------------------------------------
#
# The shapes real tools write, each a list of entries (``{"count", "name", "set", "number"}``,
# RK9's ``{"count", "card": {"name", "setCode", "number"}}``, pokemontcg.io's ``{"count", "id",
# "name"}``), sectioned or not:
#   {"cards": [...]}                                     deckcheck, RK9 (one deck), pokemontcg.io
#   {"decklist": {"pokemon": [...], "trainer": [...], "energy": [...]}}    Limitless API
#   {"pokemon": [...], "trainer": [...], "energy": [...]}                  Limitless, bare
#   [deck, deck, ...]                      an event's players (RK9, Limitless standings)
#   [entry, entry, ...]                    a bare list of entries
# An array of several decks is read as its first deck, with a warning (one report is one deck).

#: the shapes of JSON deck that are read, for the error on any other
JSON_SHAPES = (
    '{"cards": [{"count": 4, "name": "Iono", "set": "PAL", "number": "185"}]} (deckcheck, RK9, '
    'pokemontcg.io), {"decklist": {"pokemon": [...], "trainer": [...], "energy": [...]}} (Limitless), '
    "or an array of such decks (one per player) or of card entries"
)
_SECTION_KEYS = ("pokemon", "trainer", "energy")
_DECK_KEYS = ("cards", "decklist", "deck", "list")
_CARD_ID = re.compile(r"([a-z][a-z0-9.]{1,15})-([A-Za-z]{0,5}[0-9]{1,4}[A-Za-z]?)")
_PLAYER_KEYS = ("name", "player", "playerName", "player_name", "username")


def _json_sections(value: object, depth: int = 0) -> list[tuple[str | None, list]] | None:
    """``[(section, entries), ...]`` of a JSON deck of a known shape, else None."""
    if depth > 3:
        return None
    if isinstance(value, list):
        return [(None, value)] if depth else None  # a bare array is told apart by _json_decks
    if not isinstance(value, dict):
        return None
    sections: list[tuple[str | None, list]] = [
        (key, value[key]) for key in _SECTION_KEYS if isinstance(value.get(key), list)
    ]
    if sections:
        return sections
    for key in _DECK_KEYS:
        if key in value:
            found = _json_sections(value[key], depth + 1)
            if found is not None:
                return found
    return None


def _json_decks(data: object) -> list[tuple[str | None, list[tuple[str | None, list]]]] | None:
    """Every deck of the JSON, each ``(player name or None, sections)``; None for no known shape."""
    if isinstance(data, dict):
        sections = _json_sections(data)
        return None if sections is None else [(_player(data), sections)]
    if not isinstance(data, list) or not data:
        return None
    found = [(item, _json_sections(item)) for item in data if isinstance(item, dict)]
    decks = [(_player(item), sections) for item, sections in found if sections is not None]
    if decks:
        return decks
    if all(isinstance(item, dict) and "count" in item for item in data[:1]):
        return [(None, [(None, data)])]  # a bare array of entries
    return None


def _player(item: dict) -> str | None:
    for key in _PLAYER_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _load_json(text: str) -> tuple[object, Problem | None]:
    """The JSON value of ``text``, or the problem that stops it being read."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as err:
        message = (
            f"The deck starts with {text.lstrip()[:1]} but is not valid JSON: {err.msg} at line {err.lineno}, "
            f"column {err.colno}."
        )
    except RecursionError:
        message = (
            f"The deck starts with {text.lstrip()[:1]} but could not be read as JSON: its arrays and "
            "objects are nested too deeply to read (a deck nests a few levels)."
        )
    except ValueError:  # the only other: a whole number longer than Python converts
        message = (
            f"The deck starts with {text.lstrip()[:1]} but could not be read as JSON: it has a number of "
            f"more than {sys.get_int_max_str_digits():,} digits."
        )
    return None, Problem("unparsed-line", message, lines=(1,))


def json_entries(text: str) -> int:
    """The card entries of a JSON deck (every player's), which count toward the line limit; 0
    for a text that is no JSON deck of a known shape."""
    text = text.removeprefix("\ufeff")
    if not _looks_like_json(text):
        return 0
    data, problem = _load_json(text)
    decks = None if problem else _json_decks(data)
    return sum(len(entries) for _, sections in decks or () for _, entries in sections)


def looks_like_json(text: str) -> bool:
    """Whether :func:`parse` reads ``text`` (a BOM removed) as JSON: ``{`` first, or ``[`` followed
    by ``{``, ``[`` or ``]`` (a text list never starts so)."""
    return _JSON_START.match(text) is not None


_looks_like_json = looks_like_json


def _parse_json(text: str) -> tuple[ParseResult, list[CardRow]]:
    """Read a JSON deck of any shape in :data:`JSON_SHAPES` as :func:`read` does; never raises."""
    result, rows = ParseResult(source="json"), []  # type: tuple[ParseResult, list[CardRow]]
    data, problem = _load_json(text)
    if problem is not None:
        result.problems.append(problem)
        return result, rows
    decks = _json_decks(data)
    if decks is None:
        message = f"The JSON is not a deck in a shape deckcheck reads; it reads {JSON_SHAPES}."
        result.problems.append(Problem("json-shape", message, lines=(1,)))
        return result, rows
    player, sections = decks[0]
    if len(decks) > 1:
        who = f" ({player}'s)" if player else ""
        message = (
            f"The JSON holds {len(decks)} decks (an event export); only the first{who} was checked. "
            "Check one player's deck at a time to see the others."
        )
        result.problems.append(Problem("several-decks", message))
    index = 0
    for section, entries in sections:
        for entry in entries:
            index += 1
            found = _json_entry(index, entry, section)
            if isinstance(found, Problem):
                result.problems.append(found)
            else:
                rows.append(found)
    return result, rows


def _json_entry(index: int, entry: object, section: str | None = None) -> CardRow | Problem:
    """One entry of a JSON deck as a card row, or the first thing wrong with it."""
    raw = _json_text(entry)
    view = _json_view(entry)
    fault = _json_fault(entry if view is None else view)
    if fault or view is None:
        return Problem("unparsed-line", f"Entry {index} of the JSON deck {fault}.", lines=(index,))
    code = (view.get("set") or "").strip().upper() or None
    number = view.get("number")
    number = (str(number) if isinstance(number, int) else number.strip()) if number is not None else None
    name, tag = view["name"].strip(), None
    if " - " in name or " – " in name:  # RK9's "Fighting Energy - Basic", "Prime Catcher - ACESPEC"
        tokens = name.split()
        tag, kept = _take_tag(tokens)
        name = " ".join(tokens[:kept]) if tag else name
    return index, section, _fields(raw, view["count"], name, code, number or None, tag)


def _json_view(entry: object) -> dict | None:
    """An entry as ``{"count", "name", "set", "number"}``: RK9's ``card`` object and ``setCode``,
    and a pokemontcg.io ``set`` object's ``ptcgoCode``, read into place; None for a non-object."""
    if not isinstance(entry, dict):
        return None
    card = entry.get("card")
    inner = card if isinstance(card, dict) else entry
    view = {
        "count": entry.get("count"),
        "name": inner.get("name"),
        "set": inner.get("set"),
        "number": inner.get("number"),
    }
    if view["set"] is None and "setCode" in inner:
        view["set"] = inner["setCode"]
    if isinstance(view["set"], dict):
        view["set"] = view["set"].get("ptcgoCode")
    card_id = inner.get("id")
    if view["set"] is None and view["number"] is None and isinstance(card_id, str):
        m = _CARD_ID.fullmatch(card_id.strip())
        if m:  # a pokemontcg.io id, "base1-24": its set id and collector number
            view["set"], view["number"] = m.group(1), m.group(2)
    return view


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
