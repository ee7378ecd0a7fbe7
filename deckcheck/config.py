"""Per-repository settings: ``[tool.deckcheck]`` in ``pyproject.toml``, or a ``deckcheck.toml``.

The file is found by walking up from the working directory to the repository
root (the first folder holding ``.git``); in one folder ``deckcheck.toml`` wins
over ``pyproject.toml``, and a ``pyproject.toml`` without ``[tool.deckcheck]``
is passed over. Patterns are globs relative to the folder holding the file::

    [tool.deckcheck]
    format = "standard"
    as-of = 2026-05-01
    exclude = ["drafts/**"]

    [tool.deckcheck.overrides]
    "glc/**" = "glc"
    "archive/2024/**" = { format = "expanded", as-of = 2024-06-01 }

A broken file is a :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

FILES = ("deckcheck.toml", "pyproject.toml")
KEYS = ("as-of", "exclude", "fail-on", "format", "include", "max-db-age", "overrides")
OVERRIDE_KEYS = ("as-of", "format")
DEFAULT_INCLUDE = ("*.txt", "*.json")
FAIL_ON = ("error", "warning")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ConfigError(ValueError):
    """A configuration file is broken; the message names the file and the key."""


def parse_date(value: str) -> dt.date:
    """``YYYY-MM-DD`` and nothing looser. Raises ValueError naming the value."""
    if _DATE.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)")


def glob_regex(pattern: str) -> re.Pattern:
    """A glob as a regex over ``/``-separated paths: ``*`` and ``?`` stay in one folder, ``**`` crosses folders."""
    if pattern.endswith("/"):
        pattern += "**"
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


@dataclass(frozen=True)
class Pattern:
    """A glob; one without a ``/`` matches a file or folder name anywhere, like ``.gitignore``."""

    glob: str
    regex: re.Pattern = field(compare=False)

    @classmethod
    def of(cls, glob: str) -> "Pattern":
        return cls(glob, glob_regex(glob.lstrip("/")))

    def matches(self, relative: str | None, name: str) -> bool:
        if "/" not in self.glob:
            return bool(self.regex.fullmatch(name))
        return relative is not None and bool(self.regex.fullmatch(relative))


@dataclass(frozen=True)
class Override:
    pattern: Pattern
    format: str | None = None
    as_of: dt.date | None = None


@dataclass(frozen=True)
class Config:
    """Settings for one run; every field is optional and the command line wins over all of them.

    :param path: the file the settings came from (None: built-in defaults).
    :param root: the folder globs are relative to.
    """

    path: Path | None = None
    root: Path = field(default_factory=Path.cwd)
    format: str | None = None
    as_of: dt.date | None = None
    fail_on: str | None = None
    include: tuple[Pattern, ...] = tuple(Pattern.of(g) for g in DEFAULT_INCLUDE)
    exclude: tuple[Pattern, ...] = ()
    overrides: tuple[Override, ...] = ()
    #: days the card database's newest set may be older than a check's date (None: no limit)
    max_db_age: int | None = None

    def relative(self, path: str | os.PathLike) -> str | None:
        """``path`` relative to :attr:`root` with ``/`` separators, or None when it lies outside."""
        rel = os.path.relpath(os.path.abspath(path), self.root)
        if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
            return None
        return rel.replace(os.sep, "/")

    def included(self, path: str | os.PathLike) -> bool:
        """Is a file found in a folder a decklist to check?"""
        rel, name = self.relative(path), os.path.basename(os.path.normpath(path))
        return any(p.matches(rel, name) for p in self.include)

    def excluded(self, path: str | os.PathLike) -> bool:
        """Is a file or folder left out (or inside one that is), even when named on the command line?"""
        if not self.exclude:
            return False
        rel = self.relative(path)
        parts = (rel if rel is not None else os.path.abspath(path).replace(os.sep, "/")).strip("/").split("/")
        for i in range(len(parts), 0, -1):
            here = "/".join(parts[:i]) if rel is not None else None
            if any(p.matches(here, parts[i - 1]) for p in self.exclude):
                return True
        return False

    def settings_for(self, path: str | os.PathLike | None) -> tuple[str | None, dt.date | None]:
        """(format, as-of) for one deck: the last matching override's, else the file-wide ones."""
        fmt, as_of = self.format, self.as_of
        if path is not None:
            rel, name = self.relative(path), os.path.basename(path)
            for o in self.overrides:
                if o.pattern.matches(rel, name):
                    fmt, as_of = o.format or fmt, o.as_of or as_of
        return fmt, as_of


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
        return "deckcheck" in _read(pyproject).get("tool", {})
    except ConfigError:
        return False  # a broken pyproject.toml that is not ours is someone else's problem


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{_shown(path)}: cannot be read as TOML: {exc}") from exc


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


@dataclass
class _Checker:
    """Turns a parsed table into a :class:`Config`, naming file and key in every complaint."""

    file: str
    where: str
    known: list[str]

    def fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.file}: {key}: {why}")

    def config(self, table: dict, path: Path) -> Config:
        if not isinstance(table, dict):
            raise ConfigError(f"{self.file}: {self.where or 'the file'} must be a table")
        self.unknown(table, KEYS, self.where)
        fail_on = table.get("fail-on")
        if fail_on is not None and fail_on not in FAIL_ON:
            raise self.fail("fail-on", f"must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
        include = self.globs(table, "include") if "include" in table else Config.include
        overrides = table.get("overrides", {})
        if not isinstance(overrides, dict):
            raise self.fail("overrides", 'must be a table of glob = format, e.g. "glc/**" = "glc"')
        max_db_age = table.get("max-db-age")
        if max_db_age is not None and (not isinstance(max_db_age, int) or isinstance(max_db_age, bool)
                                       or max_db_age < 0):
            raise self.fail("max-db-age", f"must be a whole number of days >= 0, not {max_db_age!r}")
        return Config(path, path.parent, self.format(table.get("format"), "format"),
                      self.date(table.get("as-of"), "as-of"), fail_on, include,
                      self.globs(table, "exclude"), tuple(self.override(k, v) for k, v in overrides.items()),
                      max_db_age)

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
        return tuple(Pattern.of(g) for g in value)

    def override(self, glob: str, value) -> Override:
        key = f'overrides."{glob}"'
        if isinstance(value, str):
            return Override(Pattern.of(glob), self.format(value, key))
        if not isinstance(value, dict):
            raise self.fail(key, "must be a format name or a table with format and/or as-of")
        self.unknown(value, OVERRIDE_KEYS, key)
        return Override(Pattern.of(glob), self.format(value.get("format"), f"{key}.format"),
                        self.date(value.get("as-of"), f"{key}.as-of"))
