"""What a decklist must be before it is checked: valid Unicode, and not too large. Every entry
point applies these, each checked in one place.

The API, the web page, Discord and the CLI each call :func:`decklist_limit` (or its two halves,
:func:`byte_limit` and :func:`line_limit`, when the bytes are known before the text) and word the
:class:`InputLimit` it returns their own way: the problem is the ``input-limit`` rule's.

They call :func:`not_unicode` on every text they take in before anything else reads it: a text
that holds a lone surrogate (half of a UTF-16 pair, which JSON's ``\\ud800`` escape and Python's
``surrogateescape`` make) cannot be written out again as UTF-8, so no report could carry it. The
:class:`NotUnicode` it returns names the line and column; each entry point words it its own way
(the API's 422, the page's message, Discord's reply, the CLI's problem on the line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .jsondeck import json_entries, looks_like_json
from .lineread import LINE_BREAK
from .problems import Problem

#: the largest decklist any entry point (API, web page, CLI, Discord) accepts: UTF-8 bytes and lines
MAX_DECKLIST_BYTES = 64 * 1024
MAX_DECKLIST_LINES = 1000


@dataclass(frozen=True, slots=True)
class InputLimit:
    """A decklist over a limit: ``size`` of ``unit`` (``bytes`` or ``lines``) against ``limit``;
    ``counted`` says what was counted for lines (``lines``, or a JSON deck's ``card entries``)."""

    unit: str
    size: int
    limit: int
    counted: str

    @property
    def measured(self) -> str:
        """``70,000 bytes``, ``1,001 lines`` or ``1,001 card entries (each counts as a line)``."""
        return over_line_limit(self.size, self.counted)

    def details(self) -> dict[str, int | str]:
        """``{"limit", "size", "unit"}``, as the API's 413 answer carries them."""
        return {"limit": self.limit, "size": self.size, "unit": self.unit}

    def problem(self, message: str) -> Problem:
        """The ``input-limit`` problem, in an entry point's words."""
        return Problem("input-limit", message)


def byte_limit(size: int, max_bytes: int = MAX_DECKLIST_BYTES) -> InputLimit | None:
    """The limit a decklist of ``size`` bytes of UTF-8 is over, or None."""
    return InputLimit("bytes", size, max_bytes, "bytes") if size > max_bytes else None


def line_limit(text: str, max_lines: int = MAX_DECKLIST_LINES) -> InputLimit | None:
    """The limit ``text`` is over in lines (a JSON deck: its card entries, when they are more), or None."""
    # lines <= line-break characters + 1: the exact count only when that bound is over the limit
    # (a JSON deck counts its card entries, whatever its lines)
    if text.count("\n") + text.count("\r") < max_lines and not looks_like_json(text.removeprefix("\ufeff")):
        return None
    lines, unit = measure_lines(text)
    return InputLimit("lines", lines, max_lines, unit) if lines > max_lines else None


def decklist_limit(
    text: str, max_bytes: int = MAX_DECKLIST_BYTES, max_lines: int = MAX_DECKLIST_LINES
) -> InputLimit | None:
    """The first limit ``text`` is over (its UTF-8 bytes, then its lines), or None."""
    size = len(text) if text.isascii() else len(text.encode("utf-8"))  # ASCII: a byte per character
    return byte_limit(size, max_bytes) or line_limit(text, max_lines)


def count_lines(text: str) -> int:
    """Lines as :func:`deckcheck.parse.parse` numbers them; a final line break does not start a new
    line. A JSON deck counts its card entries (every player's) when they are more than its lines."""
    return measure_lines(text)[0]


def measure_lines(text: str) -> tuple[int, str]:
    """:func:`count_lines` and what it counted, for a message: ``"lines"``, or ``"card entries"``
    when a JSON deck's entries are more than its lines (1,001 entries on one line)."""
    if not text:
        return 0, "lines"
    lines = _count_text_lines(text)
    if looks_like_json(text.removeprefix("\ufeff")):
        entries = json_entries(text)
        if entries > lines:
            return entries, "card entries"
    return lines, "lines"


def over_line_limit(count: int, unit: str) -> str:
    """``1,001 lines``, or ``1,001 card entries (each counts as a line)``, for a limit message."""
    return f"{count:,} {unit}" + (" (each counts as a line)" if unit not in ("lines", "bytes") else "")


def _count_text_lines(text: str) -> int:
    breaks = text.count("\n") if "\r" not in text else len(LINE_BREAK.split(text)) - 1
    return breaks + 1 - (1 if text.endswith(("\n", "\r")) else 0)


#: every backslash escape of a JSON string, those of a UTF-16 surrogate (``\\ud800``) captured: matched
#: left to right, so an escaped backslash (``\\\\ud800``, the six characters ``\\ud800``) is no escape
_JSON_ESCAPE = re.compile(r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.S)
#: a code point that UTF-8 cannot encode: a surrogate, alone or in a pair (a str holds code points)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class NotUnicode:
    """A text that is not valid Unicode: at ``line``, ``column`` (1-based, in code points) it holds
    ``code_point``, a lone surrogate; ``escaped`` when it is written as a JSON escape (``\\ud800``)
    in a JSON deck, the text itself being valid."""

    line: int
    column: int
    code_point: int
    escaped: bool

    @property
    def message(self) -> str:
        """The sentence every entry point shows (the CLI's problem, the API's 422, the page, Discord)."""
        what = f"the JSON escape \\u{self.code_point:04x}" if self.escaped else f"U+{self.code_point:04X}"
        return (
            f"Line {self.line}, column {self.column} holds {what}, a lone surrogate (half of a UTF-16 pair), "
            "which is not a character: the text is not valid Unicode. Remove it, or write the character it "
            "was meant to be."
        )

    def details(self) -> dict[str, int | str]:
        """``{"line", "column", "code_point"}``, as the API's 422 answer carries them."""
        return {"line": self.line, "column": self.column, "code_point": f"U+{self.code_point:04X}"}

    def problem(self) -> Problem:
        """The ``unreadable-file`` problem on the line, for a report that checks nothing else (the CLI's)."""
        return Problem("unreadable-file", self.message, lines=(self.line,))


def not_unicode(text: str, json: bool = False) -> NotUnicode | None:
    """The first lone surrogate in ``text``, or None: a surrogate code point in the text itself,
    or, in a JSON deck (or a list in code fences, which may hold one; any JSON with ``json=True``),
    a ``\\uXXXX`` escape of a surrogate that is not a high one followed at once by a low one.
    Linear in the text: an ASCII text with no ``\\u`` costs two scans in C."""
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found is not None:
            return _at(text, found.start(), ord(found.group()), escaped=False)
    if "\\u" not in text:
        return None
    body = text.removeprefix("\ufeff")
    if not json and not looks_like_json(body):
        if "```" not in body:
            return None  # a text decklist's backslash is text: only JSON reads escapes
        from .parse import fenced_text  # parse imports this module: a list in code fences is rare

        inner = fenced_text(body)
        if inner is None or not looks_like_json(inner):
            return None
        body = inner  # a line of it for each line of the text: the lines stay, a column counts in the fence
    pending: re.Match[str] | None = None  # a high surrogate's escape, waiting for its low half
    for escape in _JSON_ESCAPE.finditer(body):
        hexa = escape.group(1)
        value = int(hexa, 16) if hexa else None
        if pending is not None:
            if value is not None and value >= 0xDC00 and escape.start() == pending.end():
                pending = None
                continue
            break
        if value is not None:
            if value >= 0xDC00:  # a low half with no high half before it
                return _at(body, escape.start(), value, escaped=True)
            pending = escape
    if pending is not None:
        return _at(body, pending.start(), int(pending.group(1), 16), escaped=True)
    return None


def _at(text: str, offset: int, code_point: int, escaped: bool) -> NotUnicode:
    """The :class:`NotUnicode` at ``offset``, its line counted as :func:`count_lines` counts them."""
    head = text[:offset]
    breaks = list(LINE_BREAK.finditer(head)) if "\r" in head else None
    if breaks is None:
        line, start = head.count("\n") + 1, head.rfind("\n") + 1
    else:
        line, start = len(breaks) + 1, breaks[-1].end() if breaks else 0
    return NotUnicode(line, offset - start + 1, code_point, escaped)
