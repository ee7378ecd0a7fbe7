"""Decklist text in, card lines out: no card lookups, never an exception.

Every non-blank line of the input ends up as exactly one of: a header, a
card line, an ignored decoration (the PTCGO banners, listed in
``decorations``), the list's own total (``declared_total_line``), or a
problem carrying its line number. A text whose first character (after a BOM
and blanks) is ``{`` is read as a JSON deck instead; there the "line" of a
card is its 1-based entry index.

What one line of text is (a card line, a header, a total...) is read from its text alone, and
memoised, by :mod:`deckcheck.decklist.lineread` (a line not in the memo is read in one step
by :mod:`deckcheck.decklist.fastline` when it has one of the usual shapes); the line number and
the section in force always come from the deck being parsed. JSON decks are read by
:mod:`deckcheck.decklist.jsondeck`, and the limits on a decklist's size are
:mod:`deckcheck.decklist.limits`'s (their names are offered here too).

A list inside Markdown code fences (a Discord post) is read from inside the fences: the fence
lines are decorations and the prose around them one ``prose-ignored`` note. A text that starts
with ``{`` (or ``[`` then ``{``) is read as JSON in any shape of :data:`JSON_SHAPES`. :func:`read` gives
the card lines as plain rows, for the engine, which never shows CardLines.
"""

from __future__ import annotations

from typing import Any

from ..patterns import Pattern
from ..problems import Problem
from .fastline import read_new
from .jsondeck import JSON_SHAPES, json_entries, looks_like_json, read_json
from .limits import MAX_DECKLIST_BYTES, MAX_DECKLIST_LINES, count_lines, measure_lines, over_line_limit
from .lineread import (
    BAD_COUNT,
    BANNER,
    BLANK,
    CARD,
    HEADER,
    LINE_BREAK,
    MAX_COPIES,
    TOTAL,
    CardRow,
    LineKind,
    read_line,
    shorten,
)

# what callers import from here (the reader's public names), each defined in the module that owns it
__all__ = [
    "JSON_SHAPES",
    "MAX_COPIES",
    "MAX_DECKLIST_BYTES",
    "MAX_DECKLIST_LINES",
    "CardLine",
    "CardRow",
    "Header",
    "ParseResult",
    "card_rows",
    "count_lines",
    "json_entries",
    "looks_like_json",
    "measure_lines",
    "over_line_limit",
    "file_line",
    "parse",
    "plain_lines",
    "read",
]

_UNPARSED_HINT = 'A card line looks like "4 Nest Ball SVI 181" and a header like "Trainer: 12".'


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
    :param tag: an RK9-style suffix such as ``Basic``, ``ACESPEC`` or ``ACE SPEC``, or ``PH``.

    A read-only value (setting a field raises AttributeError). Its instance dict holds the fields in
    this order: the reader's row fields (:data:`~deckcheck.decklist.lineread.CardRow`) are that dict,
    copied in whole by :func:`parse` (no ``__slots__``, for that one copy).
    """

    line: int
    raw: str
    count: int
    name: str
    set_code: str | None
    number: str | None
    section: str | None
    tag: str | None

    def __init__(
        self,
        line: int,
        raw: str,
        count: int,
        name: str,
        set_code: str | None = None,
        number: str | None = None,
        section: str | None = None,
        tag: str | None = None,
    ) -> None:
        self.__dict__.update(
            line=line, raw=raw, count=count, name=name, set_code=set_code, number=number, section=section, tag=tag
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a CardLine is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return other.__class__ is CardLine and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def __repr__(self) -> str:
        return f"CardLine({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Header:
    """A section header such as ``Pokémon: 14``, ``##Trainer Cards - 10`` or ``Energy (8)``.

    A read-only value; its instance dict is the reader's header fields, copied in whole by
    :func:`file_line` (as :class:`CardLine`'s)."""

    line: int
    section: str  # pokemon | trainer | energy
    label: str  # as written, e.g. "Dresseur"
    count: int | None  # advisory: tools disagree on what it counts

    def __init__(self, line: int, section: str, label: str, count: int | None) -> None:
        self.__dict__.update(line=line, section=section, label=label, count=count)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Header is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Header and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def __repr__(self) -> str:
        return f"Header({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class ParseResult:
    """What :func:`parse` found; ``decorations`` are the lines ignored on purpose."""

    __slots__ = ("cards", "headers", "problems", "declared_total", "declared_total_line", "source", "decorations")

    cards: list[CardLine]
    headers: list[Header]
    problems: list[Problem]
    declared_total: int | None
    declared_total_line: int | None
    source: str  # text | json
    decorations: list[int]

    def __init__(
        self,
        cards: list[CardLine] | None = None,
        headers: list[Header] | None = None,
        problems: list[Problem] | None = None,
        declared_total: int | None = None,
        declared_total_line: int | None = None,
        source: str = "text",
        decorations: list[int] | None = None,
    ) -> None:
        self.cards = [] if cards is None else cards
        self.headers = [] if headers is None else headers
        self.problems = [] if problems is None else problems
        self.declared_total, self.declared_total_line = declared_total, declared_total_line
        self.source = source
        self.decorations = [] if decorations is None else decorations

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParseResult) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable: never a key

    def __repr__(self) -> str:
        return f"ParseResult({', '.join(f'{k}={v!r}' for k, v in zip(self.__slots__, self._fields(), strict=True))})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "cards": [card.to_dict() for card in self.cards],
            "headers": [header.to_dict() for header in self.headers],
            "decorations": list(self.decorations),
            "declared_total": self.declared_total,
            "declared_total_line": self.declared_total_line,
            "problems": [problem.to_dict() for problem in self.problems],
        }


def _split_lines(text: str) -> list[str]:
    """``text`` cut into lines at every CR LF, CR and LF (as :data:`LINE_BREAK`), the breaks removed."""
    # str.split is faster than the regular expression, and the same without a CR
    return text.split("\n") if "\r" not in text else LINE_BREAK.split(text)


def parse(text: str) -> ParseResult:
    """Parse a decklist in any supported format. Never raises."""
    result, rows = read(text)
    cards, new = result.cards, object.__new__
    for n, section, fields in rows:
        # a CardLine without its __init__: the row's fields copied, with its line number and section
        # (the same instance dict __init__ would make; tests compare the two)
        card = new(CardLine)
        own = card.__dict__
        own.update(fields)
        own["line"], own["section"] = n, section
        cards.append(card)
    return result


def read(text: str) -> tuple[ParseResult, list[CardRow]]:
    """:func:`parse`, with the card lines as rows instead of :class:`CardLine` objects (the
    result's ``cards`` stays empty). Never raises.

    The engine copies rows straight into its own lines, without CardLines it would drop at once
    (BENCHMARKS.md, "Full check"). ``fields`` dicts are shared with the line memo: only read them.
    """
    lines = plain_lines(text)
    if lines is None:
        if text.startswith("\ufeff"):
            text = text[1:]
        if looks_like_json(text):
            return _parse_json(text)
        lines = _split_lines(text)
        fenced = _fenced(lines)
        assert fenced is not None  # plain_lines said: a fence
        return _read_fenced(lines, fenced)
    result, rows = ParseResult(), []
    section: str | None = None
    # a look in the memo; a line it does not hold is read in one step (deckcheck.decklist.fastline)
    known, classify = read_line.memo.get, read_new
    for n, raw in enumerate(lines, start=1):
        if not raw:
            continue
        kind = known(raw) or classify(raw)
        if kind[0] == CARD:
            rows.append((n, section, kind[1]))
        else:
            section = file_line(result, n, kind, section)
    return result, rows


def plain_lines(text: str) -> list[str] | None:
    """The lines of a decklist read line by line (after a BOM; the line breaks removed), or None
    for a text :func:`read` reads another way: a JSON deck, or a list inside Markdown code fences.

    Each non-empty line is ``read_line``'s to read (a line it does not know, :func:`read_new`'s): a
    card line goes into the deck with the section in force, anything else to :func:`file_line`."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if looks_like_json(text) or "```" in text:  # a fence cannot span a line break: some line has it
        return None
    return _split_lines(text)


def fenced_text(text: str) -> str | None:
    """The text inside a list's Markdown code fences, a line of it for each line of ``text`` (empty
    outside the fences), as :func:`read` reads it; None for a text without a fence."""
    fenced = _fenced(_split_lines(text.removeprefix("\ufeff")))
    return None if fenced is None else "\n".join(kept for kept, _prose, _fence in fenced)


def file_line(result: ParseResult, n: int, kind: LineKind, section: str | None) -> str | None:
    """File line ``n``, read as ``kind`` (anything but a card line), into ``result``; answer the
    section in force after it (a header's, else ``section``)."""
    what = kind[0]
    if what == HEADER:
        # as for a CardLine in parse(): the memo's field dict copied, without __init__
        header = object.__new__(Header)
        own = header.__dict__
        own.update(kind[2])
        own["line"] = n
        result.headers.append(header)
        return kind[1]  # type: ignore[no-any-return]
    if what != BLANK:
        _file_other(result, n, kind)
    return section


#: the text after an opening fence that names the block's language (```txt, ```json), not a card line
_INFO_STRING = Pattern(r"[A-Za-z][A-Za-z0-9_+#.-]{0,19}")


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
    inside a fence is that text's line, and the note names it too when prose outside the fence shares it)."""
    inner = "\n".join(kept for kept, _prose, _fence in fenced)
    if looks_like_json(inner):
        result, rows = _parse_json(inner)
    else:
        result, rows = read(inner)
    prose, beside = [], []  # lines that are prose; lines of list text with prose outside the fence beside it
    for n, (kept, is_prose, fence) in enumerate(fenced, start=1):
        if kept:
            if is_prose:
                beside.append(n)
            continue
        if is_prose:
            prose.append(n)
        elif fence:
            result.decorations.append(n)
    result.decorations.sort()
    if prose or beside:
        said = []
        if prose:
            where = f"Line {prose[0]} is" if len(prose) == 1 else f"Lines {_ranges(prose)} are"
            said.append(f"{where} outside the code block and {'was' if len(prose) == 1 else 'were'} ignored as prose.")
        if beside:
            where = f"line {beside[0]}" if len(beside) == 1 else f"lines {_ranges(beside)}"
            said.append(f"The text outside the code block on {where} was ignored as prose.")
        result.problems.append(Problem("prose-ignored", " ".join(said), lines=tuple(sorted(prose + beside))))
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


def _parse_json(text: str) -> tuple[ParseResult, list[CardRow]]:
    """:func:`read` of a JSON deck (:mod:`deckcheck.decklist.jsondeck`)."""
    problems, rows = read_json(text)
    return ParseResult(problems=problems, source="json"), rows


def card_rows(result: ParseResult) -> list[CardRow]:
    """The rows of the card lines of a parse result (what :func:`read` would have given)."""
    return [(card.line, card.section, vars(card)) for card in result.cards]


def _file_other(result: ParseResult, n: int, kind: LineKind) -> None:
    """File a line that is neither a card line, a header nor blank into ``result``."""
    what = kind[0]
    if what == TOTAL:
        _record_total(result, n, kind[1])
    elif what == BANNER:
        result.decorations.append(n)
    elif what == BAD_COUNT:
        result.problems.append(Problem("unparsed-line", f"Line {n} {kind[1]}", lines=(n,)))
    else:
        result.problems.append(_unparsed(n, kind[1]))


def _record_total(result: ParseResult, n: int, count: int) -> None:
    """Keep the first ``Total Cards`` line; a second one is a problem on its line."""
    if result.declared_total_line is None:
        result.declared_total, result.declared_total_line = count, n
        return
    message = f"Line {n} repeats the card total; the total on line {result.declared_total_line} is the one checked."
    result.problems.append(Problem("unparsed-line", message, lines=(n,)))


def _unparsed(n: int, stripped: str) -> Problem:
    message = f'Line {n} is not a card line or a section header: "{shorten(stripped)}".'
    return Problem("unparsed-line", message, lines=(n,), hint=_UNPARSED_HINT)
