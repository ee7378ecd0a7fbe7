"""Regular expressions compiled at their first use, not at import (:class:`Pattern`).

Compiling a pattern costs far more than one match, and most runs of deckcheck use a few of the
patterns the core defines: a usual decklist is read with one, a JSON deck or a share link with
others. A module defines its patterns as :class:`Pattern` objects; each is compiled once, the first
time one of its methods is called, so a process compiles only what the input it meets needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: the last code point a character set may hold and still compile into a 256-bit map: a set that holds
#: one past it in more than two runs compiles into a table of the 65,536 code points of the Basic
#: Multilingual Plane, ~0.1 ms a set (BENCHMARKS.md, session 12); tests/test_patterns.py holds every
#: pattern of deckcheck to it
NARROW_MAX = 0xFF


def one_of_then(chars: Iterable[str], then: str) -> str:
    """A pattern's fragment for one of the characters ``chars`` followed by ``then`` (a fragment that
    matches at least one character), compiled cheaply: the characters up to :data:`NARROW_MAX` in one
    set, each other one a branch of its own with ``then`` after it (branches of a single character
    each would be merged back into one set)."""
    narrow = "".join(sorted(c for c in chars if ord(c) <= NARROW_MAX))
    branches = [f"[{re.escape(narrow)}]{then}"] if narrow else []
    branches += [re.escape(c) + then for c in sorted(chars) if ord(c) > NARROW_MAX]
    return "(?:" + "|".join(branches) + ")"


class Pattern:
    """A regular expression, compiled the first time it is used, then used as the compiled one.

    The first call of a method compiles the expression and puts the compiled pattern's own methods
    on the instance, where every later look-up finds them before the class's: a call after the
    first is the compiled pattern's method, found in the instance's dict.
    """

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags

    def __repr__(self) -> str:
        return f"Pattern({self.source!r})"

    def compiled(self) -> re.Pattern[str]:
        """The compiled expression (compiled now if it was not yet)."""
        pattern = re.compile(self.source, self.flags)
        self.__dict__.update(
            compiled=lambda: pattern,
            match=pattern.match,
            fullmatch=pattern.fullmatch,
            search=pattern.search,
            finditer=pattern.finditer,
            split=pattern.split,
            sub=pattern.sub,
        )
        return pattern

    def match(self, string: str) -> re.Match[str] | None:
        return self.compiled().match(string)

    def fullmatch(self, string: str) -> re.Match[str] | None:
        return self.compiled().fullmatch(string)

    def search(self, string: str) -> re.Match[str] | None:
        return self.compiled().search(string)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string)

    def split(self, string: str) -> list[str | Any]:
        return self.compiled().split(string)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str) -> str:
        return self.compiled().sub(repl, string)
