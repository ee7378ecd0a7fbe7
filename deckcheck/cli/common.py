"""What the commands share: the exit-code-3 error, the database and formats they load, the date and format
options, and reading one decklist file within the decklist limits."""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import sys

import click

from .. import cards as _cards
from ..cards import CardDB, DatabaseError, default_path
from ..dates import parse_date
from ..decklist import parse as _parse
from ..decklist.limits import byte_limit, line_limit
from ..decklist.validtext import SURROGATE, not_unicode
from ..formats import Format, FormatError, default_formats
from ..problems import Problem
from .globs import path_below

#: the API's limits on one decklist (MAX_DECKLIST_BYTES, MAX_DECKLIST_LINES)
MAX_BYTES = _parse.MAX_DECKLIST_BYTES
MAX_LINES = _parse.MAX_DECKLIST_LINES
STDIN = "-"
STDIN_LABEL = "<stdin>"


class DatabaseMissing(click.ClickException):
    """The card database (or the format data shipped beside it) cannot be read: exit code 3."""

    exit_code = 3


def _formats() -> dict[str, Format]:
    try:
        return default_formats()
    except FormatError as exc:
        raise DatabaseMissing(f"the format definitions cannot be loaded: {exc}") from exc


def _database() -> CardDB:
    """The process-wide database, unless ``DECKCHECK_DB`` now names another file."""
    try:
        db = _cards.get_db()
        return db if db.path == str(default_path()) else _cards.load()
    except DatabaseError as exc:
        raise DatabaseMissing(str(exc)) from exc


def _format_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    known = _formats()
    if value.lower() not in known:
        raise click.BadParameter(f"unknown format {value!r} (known: {', '.join(sorted(known))})")
    return value.lower()


def _date_option(ctx: click.Context, param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return parse_date(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _shown(path: str) -> str:
    """A path as reports show it: relative to the working directory when below it, with ``/``, and
    printable (:func:`printable_path`)."""
    if path == STDIN:
        return STDIN_LABEL
    rel = path_below(path, os.path.join(os.getcwd(), ""))
    return printable_path((os.path.abspath(path) if rel is None else rel).replace(os.sep, "/"))


def _escape_surrogate(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def printable_path(path: str) -> str:
    """A path as every output format writes it: valid Unicode. A file name whose bytes are not UTF-8
    reaches Python with each such byte as a lone surrogate (``surrogateescape``), which no UTF-8
    output can carry; each is shown as Python's ``backslashreplace`` writes that byte, ``\\xff``
    (any other lone surrogate as ``\\udXXX``). Every other character is kept."""
    return path if path.isascii() else SURROGATE.sub(_escape_surrogate, path)


def _read(path: str) -> tuple[str | None, Problem | None]:
    """The file's text, or the problem that kept it from being read (binary, not UTF-8 or not valid
    Unicode, too large)."""
    try:
        if path == STDIN:
            blob = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            # O_NONBLOCK: a FIFO swapped in after the walk must not hang the run; only regular files are read
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None, Problem("unreadable-file", "The path is not a regular file; it was not read.")
                blob = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, Problem("unreadable-file", f"The file could not be read: {exc.strerror or exc}.")
    over = byte_limit(len(blob), MAX_BYTES)
    if over is not None:
        return None, over.problem(
            f"The file is larger than {over.limit // 1024} KiB, the most a decklist may be; it was not checked."
        )
    if b"\0" in blob:
        return None, Problem(
            "unreadable-file", "The file is binary (it contains NUL bytes), not a text decklist; it was not checked."
        )
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, Problem(
            "unreadable-file",
            f"The file is not UTF-8 text (byte 0x{blob[exc.start]:02x} at "
            f"offset {exc.start}); save it as UTF-8 to have it checked.",
        )
    fault = not_unicode(text)  # a JSON deck's "\ud800": no report could write it out
    if fault is not None:
        return None, fault.problem()
    over = line_limit(text, MAX_LINES)
    if over is not None:
        return None, over.problem(
            f"The file has {over.measured}; a decklist may have at most {over.limit:,}, so it was not checked."
        )
    return text, None
