"""The builder's failure and its reader of the reviewed data tables, apart from the builder so
that the checks it runs (:mod:`deckcheck.sync.reprints`) import them without importing it."""

from __future__ import annotations

from pathlib import Path

from ..cards.files import TableError
from ..cards.files import read_table as _read_table


class BuildError(Exception):
    """The source data cannot be turned into a database."""


def read_table(name: str, directory: Path | None = None) -> list[dict]:
    """Rows of a reviewed CSV table in ``data/`` (:func:`deckcheck.cards.files.read_table`).

    :raises BuildError: when the file cannot be read.
    """
    try:
        return _read_table(name, directory)
    except TableError as exc:
        raise BuildError(str(exc)) from exc
