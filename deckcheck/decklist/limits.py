"""How large a decklist may be: the limits every entry point applies, checked in one place.

The API, the web page, Discord and the CLI each call :func:`decklist_limit` (or its two halves,
:func:`byte_limit` and :func:`line_limit`, when the bytes are known before the text) and word the
:class:`InputLimit` it returns their own way: the problem is the ``input-limit`` rule's.

Before the limits, each checks the text is valid Unicode (:mod:`deckcheck.decklist.validtext`).
"""

from __future__ import annotations

from ..problems import Problem
from ..value import Value
from .jsondeck import json_entries, looks_like_json
from .lineread import LINE_BREAK

#: the largest decklist any entry point (API, web page, CLI, Discord) accepts: UTF-8 bytes and lines
MAX_DECKLIST_BYTES = 64 * 1024
MAX_DECKLIST_LINES = 1000


class InputLimit(Value):
    """A decklist over a limit: ``size`` of ``unit`` (``bytes`` or ``lines``) against ``limit``;
    ``counted`` says what was counted for lines (``lines``, or a JSON deck's ``card entries``).
    A value, read-only by convention."""

    __slots__ = __match_args__ = ("unit", "size", "limit", "counted")

    unit: str
    size: int
    limit: int
    counted: str

    def __init__(self, unit: str, size: int, limit: int, counted: str) -> None:
        self.unit, self.size, self.limit, self.counted = unit, size, limit, counted

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
    """Lines as :func:`deckcheck.decklist.parse.parse` numbers them; a final line break does not start a new
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
