"""Where the shipped data lives and how its files are read: the card database's row layout
(:data:`FIELDS`, :data:`SCHEMA_VERSION`), the data folder (:func:`data_dir`) and its reviewed
CSV tables (:func:`read_table`).

Part of the core: :mod:`deckcheck.cards`, :mod:`deckcheck.formats` and :mod:`deckcheck.cards.deckrules`
read the shipped data through it, and the database builder (:mod:`deckcheck.sync.build`) writes
what it describes.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

#: the columns of one card row in the shipped database, in order
FIELDS = (
    "id",
    "name",
    "supertype",
    "subtypes",
    "evolves_from",
    "types",
    "mark",
    "set_id",
    "number",
    "rarity",
    "fingerprint",
)
SCHEMA_VERSION = 1


class TableError(Exception):
    """A data table cannot be read."""


def data_dir() -> Path:
    """The folder holding the shipped tables: ``$DECKCHECK_DATA_DIR``, else the checkout's
    ``data/`` (an editable install), else the copy a wheel carries as ``deckcheck/data``."""
    env = os.environ.get("DECKCHECK_DATA_DIR")
    if env:
        return Path(env)
    package = Path(__file__).resolve().parent.parent  # deckcheck/
    checkout = package.parent / "data"
    return checkout if (checkout / "formats").is_dir() else package / "data"


def read_table(name: str, directory: Path | None = None) -> list[dict[str, str]]:
    """Rows of a reviewed CSV table in ``data/``; ``#`` lines are comments.

    :raises TableError: when the file cannot be read.
    """
    path = (directory or data_dir()) / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TableError(f"cannot read data table {path}: {exc.strerror}") from exc
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))
