"""Globs as ``.gitignore`` writes them, matched in linear time: the patterns of a repository's settings
(:mod:`deckcheck.cli.repoconfig`) and of the ``.gitignore`` files a walk meets
(:mod:`deckcheck.cli.walk`), compiled through pathspec for RE2 when first matched."""

from __future__ import annotations

import functools
import os
import re
import warnings
from collections.abc import Iterable
from typing import Any

from ..decklist.validtext import SURROGATE

#: pathspec's matching engine for every glob: RE2 (the google-re2 package), whose matching time is linear in
#: the path. pathspec's default engine is Python's ``re``, which backtracks: a ``.gitignore`` line
#: ``*a*a*a*a*a*a*a*a*a*a*a*a*a*ab`` against a 200-character name ran for minutes. Named, never "the best
#: available": without google-re2 the walk fails loudly instead of falling back to ``re``.
GLOB_ENGINE = "re2"


@functools.cache
def re2_options() -> Any:
    """The options RE2 compiles every glob with: no complaints written to stderr (the error says what
    is wrong). Made, and google-re2 imported, when the first glob is compiled: a run that compiles none
    (a list on standard input, a named file that no exclude glob can match) imports neither google-re2
    nor pathspec."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return options


def _translated(glob: str) -> tuple[str | None, bool | None]:
    """pathspec's translation of one ``.gitignore`` line: (regular expression, include), each None for
    a line that is no pattern; raises ValueError (pathspec's GitIgnorePatternError) for a broken one."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    return GitIgnoreSpecPattern.pattern_to_regex(glob)


def re2_words(exc: Exception) -> str:
    """What RE2 says is wrong with an expression (``invalid character class range: z-a``), as text."""
    words = exc.args[0] if exc.args else exc
    return words.decode(errors="replace") if isinstance(words, bytes) else str(words)


def matchable(path: str) -> str:
    """A path as the matcher reads it: a file name that is not UTF-8 reaches Python with each
    undecodable byte as a lone surrogate (surrogateescape), which RE2 (UTF-8 only) cannot take; each
    becomes U+FFFD, one character for one byte, so ``*`` and ``?`` match such a name as git would."""
    return SURROGATE.sub("\ufffd", path) if not path.isascii() else path


#: at most this many patterns in one RE2 set: RE2 builds a set within a fixed memory budget (its ``max_mem``,
#: 8 MiB), which thousands of star-heavy globs overrun; a chunk that still does not fit is halved, and a
#: pattern RE2 cannot build alone matches nothing (as git treats a line it cannot read). Memory: at most
#: one set a chunk, each within that budget, for at most IGNORE_MAX_BYTES of patterns a file.
SET_SIZE = 256


class IgnoreRules:
    """The patterns of one ``.gitignore`` (at most :data:`~deckcheck.cli.walk.IGNORE_MAX_BYTES` of it):
    pathspec's translation of each line into a regular expression, matched by :data:`GLOB_ENGINE` in
    sets of :data:`SET_SIZE`; the last pattern that matches decides. A line no pattern can be made of
    (``[z-a]``, a lone ``\\``) matches nothing; the others count. (The translation is a string's work;
    compiling 30,000 lines with Python's ``re`` first, as pathspec's own patterns do, takes seconds.)"""

    def __init__(self, lines: Iterable[str]) -> None:
        self.include: list[bool] = []
        sources: list[tuple[int, str]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            for line in lines:
                try:
                    regex, include = _translated(line)
                except (re.error, ValueError):  # pathspec's GitIgnorePatternError is a ValueError
                    continue
                if include is not None and regex is not None:
                    sources.append((len(sources), regex))
                    self.include.append(bool(include))
        self.sets = _sets(sources)

    def __bool__(self) -> bool:
        return bool(self.sets)

    def decides(self, path: str) -> bool | None:
        """What the rules say of a path (``/`` separators, a trailing ``/`` for a folder): True when the
        deciding pattern leaves it out, False when a ``!`` pattern takes it back, None when none matches.
        Linear in the path."""
        path = matchable(path)
        for index, regex_set in reversed(self.sets):
            found = regex_set.Match(path)
            if found:
                return self.include[index[max(found)]]
        return None


#: what ends a run of literal text in a glob: a wildcard, a bracket, an escape, a folder separator, a blank
_NOT_LITERAL = frozenset("*?[]\\/ \t")


def glob_literals(glob: str) -> tuple[str, ...] | None:
    """Runs of text that every path a ``.gitignore`` glob leaves out holds as they are written (case and
    all), or None for a glob that leaves nothing out (a ``!`` pattern takes a match back, a ``#`` line
    is a comment).

    A path that lacks a run of every such glob of a list is left out by none of them, which
    :meth:`Config.excluded` knows without translating a glob (pathspec, google-re2: imported only
    when a path may match). The runs are cut at every wildcard, bracket, escape, ``/`` and blank, and
    a bracket's set of characters is no run, so a run is never more than the glob's matches hold.
    Linear in the glob.
    """
    if glob.startswith(("!", "#")):
        return None
    runs, run, i = [], [], 0
    while i < len(glob):
        c = glob[i]
        if c not in _NOT_LITERAL:
            run.append(c)
            i += 1
            continue
        if run:
            runs.append("".join(run))
            run = []
        if c == "\\":
            i += 2  # the escaped character: left out of every run
        elif c == "[":
            # a set of characters stands for one of them: skipped to its closing bracket (a "]" first in it
            # is one of its characters); without one, nothing after it is counted
            j = i + 1 + (glob[i + 1 : i + 2] in ("!", "^"))
            end = glob.find("]", j + 1)
            if end < 0:
                return tuple(runs)
            i = end + 1
        else:
            i += 1
    if run:
        runs.append("".join(run))
    return tuple(runs)


def path_below(path: str | os.PathLike, folder: str) -> str | None:
    """``path`` relative to ``folder`` (absolute, ending in a separator), ``.`` for the folder itself, None
    when it lies outside: what ``os.path.relpath`` says, without its work for every file of a walk (a
    path is sliced when it is textually below the folder, refused when it cannot be; POSIX's leading
    ``//`` goes to relpath)."""
    absolute = os.path.abspath(path)
    if absolute.startswith(folder):
        rel = absolute[len(folder) :] or "."
        if not rel.startswith(os.sep):
            return rel
    elif absolute + os.sep == folder:
        return "."
    elif not absolute.startswith("//") and not folder.startswith("//"):
        return None
    rel = os.path.relpath(absolute, folder)
    return None if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel


class Pattern:
    """A glob with exactly ``.gitignore``'s meaning (pathspec), relative to the configuration's folder.

    No ``/`` but a trailing one: a file or folder name at any depth (``glc``, ``*.txt``); a ``/``
    at the start or in the middle: a path from the configuration's folder (``decks/glc/**``,
    ``/top.txt``); ``**`` crosses folders; a folder's match covers every file below it; a
    leading ``!`` (in ``exclude``) takes a match back. Matched in linear time (:data:`GLOB_ENGINE`).
    Read-only by convention.
    """

    __slots__ = ("glob", "include", "source", "regex")

    glob: str
    include: bool  # False for a ``!`` pattern
    source: str  # pathspec's translation of the glob into a regular expression
    regex: Any  # that expression compiled by RE2

    def __init__(self, glob: str, include: bool, source: str, regex: Any) -> None:
        self.glob, self.include, self.source, self.regex = glob, include, source, regex

    @classmethod
    def of(cls, glob: str) -> Pattern:
        try:
            source, include = _translated(glob)
        except ValueError as exc:  # pathspec's GitIgnorePatternError: a lone backslash
            raise ValueError(f"{glob!r} is not a valid glob ({exc})") from None
        if include is None or source is None:
            raise ValueError(f"{glob!r} is not a glob")
        import re2

        try:
            regex = re2.compile(source, re2_options())
        except re2.error as exc:
            raise ValueError(f"{glob!r} is not a valid glob ({re2_words(exc)})") from None
        return cls(glob, bool(include), source, regex)

    @property
    def anchored(self) -> bool:
        return "/" in self.glob.rstrip("/")

    def matches(self, relative: str | None, name: str) -> bool:
        """Does it match a path given relative to the configuration's folder (None: outside it)?

        Outside that folder only a name pattern can match, against the name alone.
        """
        if relative is None:
            if self.anchored:
                return False
            relative = name
        return self.regex.match(matchable(relative)) is not None


class PatternSet:
    """Which of a list of :class:`Pattern` match a path, in one RE2 pass over it (one ``re2.Set`` for
    paths inside the configuration's folder, one of the name patterns for a name outside it)."""

    def __init__(self, patterns: tuple[Pattern, ...]) -> None:
        self.patterns = patterns
        self._named = [i for i, p in enumerate(patterns) if not p.anchored]
        self._inside = _sets([(i, p.source) for i, p in enumerate(patterns)])
        self._outside = _sets([(i, patterns[i].source) for i in self._named])

    def matching(self, relative: str | None, name: str) -> list[int]:
        """The indices of the patterns that match, as :meth:`Pattern.matches` says, in order."""
        sets, text = (self._outside, name) if relative is None else (self._inside, relative)
        text = matchable(text)
        return sorted(index[i] for index, regex_set in sets for i in regex_set.Match(text) or ())


def _sets(sources: list[tuple[int, str]]) -> list[tuple[list[int], Any]]:
    """(the patterns' indices, their RE2 set) for chunks of at most :data:`SET_SIZE` (index, regular
    expression) pairs in order, a chunk RE2 cannot build halved, a single source it cannot build left out."""
    import re2

    out = []
    chunks = [sources[start : start + SET_SIZE] for start in range(0, len(sources), SET_SIZE)]
    while chunks:
        chunk = chunks.pop(0)
        regex_set = re2.Set.MatchSet(re2_options())  # anchored at the start, as .match is
        try:
            for _, source in chunk:
                regex_set.Add(source)
            regex_set.Compile()
        except re2.error:
            if len(chunk) > 1:
                half = len(chunk) // 2
                chunks[:0] = [chunk[:half], chunk[half:]]
            continue
        out.append(([i for i, _ in chunk], regex_set))
    return out
