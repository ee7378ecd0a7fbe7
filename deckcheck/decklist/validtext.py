"""Text that is valid Unicode: what every entry point checks, once, of each text it takes in.

A lone surrogate (half of a UTF-16 pair, which JSON's ``\\ud800`` escape and Python's ``surrogateescape``
make) is not a character: no report holding it could be written out again as UTF-8, so the API, the web
page, Discord and the CLI each call :func:`not_unicode` on a text before anything else reads it. The
:class:`NotUnicode` it returns names the line and column; each entry point words it its own way (the API's
422, the page's message, Discord's reply, the CLI's problem on the line). Request bodies are read by a strict
JSON reader that refuses such escapes itself (:mod:`deckcheck.service.jsonbody`, which reports where with
this module).
"""

from __future__ import annotations

import re

from ..patterns import Pattern
from ..problems import Problem
from .jsondeck import looks_like_json
from .lineread import LINE_BREAK
from .parse import fenced_text

#: every backslash escape of a JSON string, those of a UTF-16 surrogate (``\\ud800``) captured: matched
#: left to right, so an escaped backslash (``\\\\ud800``, the six characters ``\\ud800``) is no escape
_JSON_ESCAPE = Pattern(r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.S)
#: a code point that UTF-8 cannot encode: a surrogate, alone or in a pair (a str holds code points);
#: also what Python makes of each byte of a file name that is not UTF-8 (surrogateescape)
SURROGATE = Pattern("[\ud800-\udfff]")


class NotUnicode:
    """A text that is not valid Unicode: at ``line``, ``column`` (1-based, in code points) it holds
    ``code_point``, a lone surrogate; ``escaped`` when it is written as a JSON escape (``\\ud800``)
    in a JSON deck, the text itself being valid. Read-only by convention."""

    __slots__ = ("line", "column", "code_point", "escaped")

    line: int
    column: int
    code_point: int
    escaped: bool

    def __init__(self, line: int, column: int, code_point: int, escaped: bool) -> None:
        self.line, self.column, self.code_point, self.escaped = line, column, code_point, escaped

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
        try:
            text.encode("utf-8")  # in C, no pattern: only a surrogate stops it
        except UnicodeEncodeError as exc:
            return _at(text, exc.start, ord(text[exc.start]), escaped=False)
    if "\\u" not in text:
        return None
    body = text.removeprefix("\ufeff")
    if not json and not looks_like_json(body):
        if "```" not in body:
            return None  # a text decklist's backslash is text: only JSON reads escapes
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
