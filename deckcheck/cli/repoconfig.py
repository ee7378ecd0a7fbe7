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
import tomllib
from collections.abc import Iterable
from pathlib import Path

from ..dates import parse_date
from .globs import Pattern, PatternSet, glob_literals, matchable, path_below

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
