"""Per-repository settings: ``[tool.deckcheck]`` in ``pyproject.toml``, or a ``deckcheck.toml``.

The file is found by walking up from the working directory to the repository
root (the first folder holding ``.git``); in one folder ``deckcheck.toml`` wins
over ``pyproject.toml``, and a ``pyproject.toml`` without ``[tool.deckcheck]``
is passed over. Patterns are ``.gitignore`` globs relative to the folder holding the file::

    [tool.deckcheck]
    format = "standard"
    as-of = 2026-05-01
    exclude = ["drafts", "archive/old/**"]

    [tool.deckcheck.overrides]
    "glc" = "glc"
    "archive/2024/**" = { format = "expanded", as-of = 2024-06-01 }

A broken file is a :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
import tomllib
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..dates import parse_date
from ..decklist.validtext import SURROGATE

FILES = ("deckcheck.toml", "pyproject.toml")
KEYS = ("as-of", "exclude", "fail-on", "format", "include", "max-db-age", "overrides")
OVERRIDE_KEYS = ("as-of", "format")
DEFAULT_INCLUDE = ("*.txt", "*.json")
#: files and folders of other tools that are never decklists, left out before ``exclude`` applies
#: (``!name`` in ``exclude`` takes one back)
DEFAULT_EXCLUDE = (
    "node_modules/",
    "__pycache__/",
    "site-packages/",
    "venv/",
    "requirements*.txt",
    "constraints*.txt",
    "package.json",
    "package-lock.json",
    "composer.json",
    "tsconfig*.json",
    "jsconfig.json",
    "renovate.json",
    "CMakeLists.txt",
    "robots.txt",
    "LICENSE*",
    "CHANGELOG*",
)
FAIL_ON = ("error", "warning")


class ConfigError(ValueError):
    """A configuration file is broken; the message names the file and the key."""


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


@functools.cache
def builtin_exclude() -> tuple[Pattern, ...]:
    """:data:`DEFAULT_EXCLUDE` as patterns (made when first matched)."""
    return tuple(Pattern.of(g) for g in DEFAULT_EXCLUDE)


@functools.cache
def default_include() -> tuple[Pattern, ...]:
    """:data:`DEFAULT_INCLUDE` as patterns (made when first matched: a walk's, never a named file's)."""
    return tuple(Pattern.of(g) for g in DEFAULT_INCLUDE)


class Override:
    """The format and date of the decks a pattern matches (``[tool.deckcheck.overrides]``)."""

    __slots__ = ("pattern", "format", "as_of")

    pattern: Pattern
    format: str | None
    as_of: dt.date | None

    def __init__(self, pattern: Pattern, format: str | None = None, as_of: dt.date | None = None) -> None:
        self.pattern, self.format, self.as_of = pattern, format, as_of


class Config:
    """Settings for one run; every field is optional and the command line wins over all of them.
    Read-only by convention, but for :attr:`used`.

    :param path: the file the settings came from (None: built-in defaults).
    :param root: the folder globs are relative to (None: the working directory).
    :param include: the globs of files a folder's walk checks (None: :data:`DEFAULT_INCLUDE`).
    """

    __slots__ = (
        "path",
        "root",
        "format",
        "as_of",
        "fail_on",
        "_include",
        "exclude",
        "overrides",
        "max_db_age",
        "used",
        "_root_prefix",
        "_excludes",
        "_includes",
        "_literals",
    )

    path: Path | None
    root: Path
    format: str | None
    as_of: dt.date | None
    fail_on: str | None
    exclude: tuple[Pattern, ...]
    overrides: tuple[Override, ...]
    #: days the card database's newest set may be older than a check's date (None: no limit)
    max_db_age: int | None
    #: ("exclude" | "overrides", index) of the globs that have matched in this run
    used: set[tuple[str, int]]

    def __init__(
        self,
        path: Path | None = None,
        root: Path | None = None,
        format: str | None = None,
        as_of: dt.date | None = None,
        fail_on: str | None = None,
        include: tuple[Pattern, ...] | None = None,
        exclude: tuple[Pattern, ...] = (),
        overrides: tuple[Override, ...] = (),
        max_db_age: int | None = None,
    ) -> None:
        self.path, self.root = path, Path.cwd() if root is None else root
        self.format, self.as_of, self.fail_on = format, as_of, fail_on
        self._include, self.exclude, self.overrides, self.max_db_age = include, exclude, overrides, max_db_age
        self.used = set()
        #: :attr:`root` made absolute, with a trailing separator (``/`` alone for the file system's root)
        self._root_prefix = os.path.join(os.path.abspath(self.root), "")
        #: the exclude and include pattern sets and the exclude globs' literals, each made when first asked
        self._excludes: PatternSet | None = None
        self._includes: PatternSet | None = None
        self._literals: list[tuple[str, ...]] | None = None

    @property
    def include(self) -> tuple[Pattern, ...]:
        """The globs of the files a folder's walk checks."""
        return default_include() if self._include is None else self._include

    def relative(self, path: str | os.PathLike) -> str | None:
        """``path`` relative to :attr:`root` with ``/`` separators, or None when it lies outside."""
        rel = path_below(path, self._root_prefix)
        return None if rel is None else rel.replace(os.sep, "/")

    def _where(self, path: str | os.PathLike) -> tuple[str | None, str]:
        rel = self.relative(path)
        return rel, os.path.basename(os.path.normpath(path))

    def included(self, path: str | os.PathLike) -> bool:
        """Is a file found in a folder a decklist to check?"""
        rel, name = self._where(path)
        return bool(self._include_set.matching(rel, name))

    def excluded(self, path: str | os.PathLike, folder: bool = False) -> bool:
        """Is a file or folder left out (or inside one that is), even when named on the command line?

        The built-in :data:`DEFAULT_EXCLUDE` come first, then ``exclude``; as in ``.gitignore`` the
        last pattern that matches decides, so ``!package.json`` takes a built-in one back. Each
        ``exclude`` pattern that decides is remembered for :meth:`unused`.
        """
        rel, name = self._where(path)
        if folder and rel is not None:
            rel += "/"
        # until a pattern set is made, a path no glob can match is answered without one (a named file's
        # usual case: nothing translated, nothing imported); a walk's sets answer faster than the literals
        made = self._excludes is not None or self._includes is not None
        if not made and not self._may_exclude(matchable(name if rel is None else rel)):
            return False
        matching = self._exclude_set.matching(rel, name)
        if not matching:
            return False
        decided = matching[-1]  # the last match decides
        builtin = len(builtin_exclude())
        if decided >= builtin:
            self.used.add(("exclude", decided - builtin))
        return self._all_excludes[decided].include

    def _may_exclude(self, text: str) -> bool:
        """Whether some exclude glob may leave out the path or name ``text`` (:func:`glob_literals`)."""
        if self._literals is None:
            globs = (*DEFAULT_EXCLUDE, *(p.glob for p in self.exclude))
            self._literals = [runs for runs in map(glob_literals, globs) if runs is not None]
        return any(all(run in text for run in runs) for runs in self._literals)

    @property
    def _all_excludes(self) -> tuple[Pattern, ...]:
        return builtin_exclude() + self.exclude

    @property
    def _exclude_set(self) -> PatternSet:
        if self._excludes is None:
            self._excludes = PatternSet(self._all_excludes)
        return self._excludes

    @property
    def _include_set(self) -> PatternSet:
        if self._includes is None:
            self._includes = PatternSet(self.include)
        return self._includes

    def settings_for(self, path: str | os.PathLike | None) -> tuple[str | None, dt.date | None]:
        """(format, as-of) for one deck: the last matching override's, else the file-wide ones."""
        fmt, as_of = self.format, self.as_of
        if path is not None:
            rel, name = self._where(path)
            for i, o in enumerate(self.overrides):
                if o.pattern.matches(rel, name):
                    fmt, as_of = o.format or fmt, o.as_of or as_of
                    self.used.add(("overrides", i))
        return fmt, as_of

    def unused(self) -> list[str]:
        """A warning for each ``exclude`` glob that left nothing out and each override that matched no
        deck, so far in this run (ask after every path has been walked and checked)."""
        shown = _shown(self.path) if self.path else "configuration"
        out = [
            f"{shown}: exclude {p.glob!r} matches nothing"
            for i, p in enumerate(self.exclude)
            if p.include and ("exclude", i) not in self.used
        ]
        out += [
            f"{shown}: override {o.pattern.glob!r} matches none of the decks checked"
            for i, o in enumerate(self.overrides)
            if ("overrides", i) not in self.used
        ]
        return out


def find(start: str | os.PathLike) -> Path | None:
    """The nearest configuration file at or above ``start``, stopping at the repository root."""
    folder = Path(start).resolve()
    for here in (folder, *folder.parents):
        for name in FILES:
            candidate = here / name
            if candidate.is_file() and (name != "pyproject.toml" or _has_table(candidate)):
                return candidate
        if (here / ".git").exists():
            return None
    return None


def _has_table(pyproject: Path) -> bool:
    try:
        tool = _read(pyproject).get("tool", {})
        return isinstance(tool, dict) and "deckcheck" in tool
    except ConfigError:
        return False  # a broken pyproject.toml that is not ours is someone else's problem


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{_shown(path)}: cannot be read as TOML: {exc}") from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8
        raise ConfigError(
            f"{_shown(path)}: cannot be read as TOML: it is not UTF-8 (byte 0x{exc.object[exc.start]:02x} "
            f"at offset {exc.start})"
        ) from None


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)


def load(path: str | os.PathLike, known_formats: Iterable[str]) -> Config:
    """Read and check one configuration file. Raises :class:`ConfigError`."""
    path = Path(path).resolve()
    raw = _read(path)
    if path.name == "pyproject.toml":
        table, where = raw.get("tool", {}).get("deckcheck", {}), "[tool.deckcheck]"
    else:
        table, where = raw, ""
    return _Checker(f"{_shown(path)}", where, sorted(known_formats)).config(table, path)


def discover(start: str | os.PathLike, known_formats: Iterable[str]) -> Config:
    """The settings in force for a run started in ``start`` (defaults when there is no file)."""
    path = find(start)
    return load(path, known_formats) if path else Config(root=Path(start).resolve())


class _Checker:
    """Turns a parsed table into a :class:`Config`, naming file and key in every complaint."""

    __slots__ = ("file", "where", "known")

    def __init__(self, file: str, where: str, known: list[str]) -> None:
        self.file, self.where, self.known = file, where, known

    def fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.file}: {key}: {why}")

    def config(self, table: dict, path: Path) -> Config:
        if not isinstance(table, dict):
            raise ConfigError(f"{self.file}: {self.where or 'the file'} must be a table")
        self.unknown(table, KEYS, self.where)
        fail_on = table.get("fail-on")
        if fail_on is not None and fail_on not in FAIL_ON:
            raise self.fail("fail-on", f"must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
        include = self.globs(table, "include") if "include" in table else None
        overrides = table.get("overrides", {})
        if not isinstance(overrides, dict):
            raise self.fail("overrides", 'must be a table of glob = format, e.g. "glc/**" = "glc"')
        max_db_age = table.get("max-db-age")
        if max_db_age is not None and (
            not isinstance(max_db_age, int) or isinstance(max_db_age, bool) or max_db_age < 0
        ):
            raise self.fail("max-db-age", f"must be a whole number of days >= 0, not {max_db_age!r}")
        return Config(
            path,
            path.parent,
            self.format(table.get("format"), "format"),
            self.date(table.get("as-of"), "as-of"),
            fail_on,
            include,
            self.globs(table, "exclude"),
            tuple(self.override(k, v) for k, v in overrides.items()),
            max_db_age,
        )

    def unknown(self, table: dict, allowed: tuple[str, ...], where: str) -> None:
        for key in table:
            if key not in allowed:
                close = key.replace("_", "-").lower()
                hint = f"; did you mean '{close}'?" if close in allowed else f" (known: {', '.join(allowed)})"
                raise ConfigError(f"{self.file}: unknown key '{key}'{' in ' + where if where else ''}{hint}")

    def format(self, value, key: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or value.lower() not in self.known:
            raise self.fail(key, f"unknown format {value!r} (known: {', '.join(self.known)})")
        return value.lower()

    def date(self, value, key: str) -> dt.date | None:
        if value is None or (isinstance(value, dt.date) and not isinstance(value, dt.datetime)):
            return value
        if not isinstance(value, str):
            raise self.fail(key, f"{value!r} is not a date (YYYY-MM-DD)")
        try:
            return parse_date(value)
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None

    def globs(self, table: dict, key: str) -> tuple[Pattern, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
            raise self.fail(key, 'must be a list of globs, e.g. ["*.txt"]')
        try:
            return tuple(Pattern.of(g) for g in value)
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None

    def override(self, glob: str, value) -> Override:
        key = f'overrides."{glob}"'
        try:
            pattern = Pattern.of(glob)
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None
        if isinstance(value, str):
            return Override(pattern, self.format(value, key))
        if not isinstance(value, dict):
            raise self.fail(key, "must be a format name or a table with format and/or as-of")
        self.unknown(value, OVERRIDE_KEYS, key)
        return Override(
            pattern, self.format(value.get("format"), f"{key}.format"), self.date(value.get("as-of"), f"{key}.as-of")
        )
