"""Decklist text in, card lines out: no card lookups, never an exception.

Every non-blank line of the input ends up as exactly one of: a header, a
card line, an ignored decoration (banners, a ``Total Cards`` trailer), or a
problem carrying its line number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .problems import Problem


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


@dataclass(frozen=True)
class Header:
    line: int
    section: str  # pokemon | trainer | energy
    label: str  # as written, e.g. "Dresseur"
    count: int | None  # advisory: tools disagree on what it counts


@dataclass
class ParseResult:
    cards: list[CardLine] = field(default_factory=list)
    headers: list[Header] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    declared_total: int | None = None
    declared_total_line: int | None = None
    source: str = "text"  # text | json


def parse(text: str) -> ParseResult:
    """Parse a decklist in any supported format. Never raises."""
    raise NotImplementedError
