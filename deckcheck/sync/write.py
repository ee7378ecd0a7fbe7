"""Writing a database file: the gzip JSON with its lookup index and, beside it, its pack, each
written atomically (a temporary file, then a rename), so a reader never sees half a file."""

from __future__ import annotations

import gzip
import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cards.files import PRINTING_RELEASES, database_json
from .tables import BuildError

if TYPE_CHECKING:
    from ..cards import CardDB


def write_database(db: dict, path: str | os.PathLike) -> None:
    """Write atomically: a temporary file beside the target, then a rename. The file carries the
    lookup index of its cards (:mod:`deckcheck.cards.index`), made here, so loading it computes none;
    its pack (:mod:`deckcheck.cards.pack`, ``<name>.pack``), written first, holds the same in columns
    for a fast start-up (the rows are checked before anything is written)."""
    from ..cards import DatabaseError, pack_of, release_rows
    from ..cards.index import build_index
    from ..cards.pack import check_rows, pack_path

    releases = {s["id"]: s.get("release") or "" for s in db["sets"]}
    try:
        check_rows(db["cards"], releases.keys())
        release_rows(db.get(PRINTING_RELEASES), {row[0]: i for i, row in enumerate(db["cards"])})
    except ValueError as exc:
        raise BuildError(f"the database cannot be written: {exc}") from exc
    db = {**db, "index": build_index(db["cards"], releases, None, db.get(PRINTING_RELEASES))}
    path = Path(path)
    payload = json.dumps(db, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as gz:
        gz.write(payload)
    blob = out.getvalue()
    try:
        pack = pack_of(db, blob, shipped_legality)
    except (ValueError, DatabaseError) as exc:  # what the pack cannot hold, or a load of the database refuses
        raise BuildError(f"the database cannot be written: {exc}") from exc
    write_atomically(pack, pack_path(path))
    write_atomically(blob, path)


def write_pack(path: str | os.PathLike, target: str | os.PathLike | None = None) -> None:
    """Write the pack of the database file at ``path`` (read as :func:`deckcheck.cards.load`
    reads it; its index made again here) beside ``target`` (default: ``path``), for the file
    ``path`` becomes there: ``db pull`` fetches a database, never a pack."""
    from .. import cards
    from ..cards.index import build_index
    from ..cards.pack import pack_path

    blob = Path(path).read_bytes()
    try:
        raw = json.loads(database_json(blob))
        cards.from_dict(raw, "-", str(path))  # every check of a load from the JSON
        releases = {s["id"]: s.get("release") or "" for s in raw["sets"]}
        raw["index"] = build_index(raw["cards"], releases, None, raw.get(PRINTING_RELEASES))
        pack = cards.pack_of(raw, blob, shipped_legality)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, cards.DatabaseError) as exc:
        raise BuildError(f"cannot write the pack of {path}: {exc}") from exc
    write_atomically(pack, pack_path(target or path))


def write_atomically(data: bytes, path: str | os.PathLike) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            raw.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def shipped_legality(db: CardDB) -> dict[str, dict[str, Any]]:
    """The legality of every row of ``db`` in each shipped format (:func:`~deckcheck.formats.default_formats`),
    by format id (:func:`deckcheck.formats.stored.legality_columns`): what a pack holds."""
    from ..formats import default_formats
    from ..formats.stored import legality_columns

    return {format_id: legality_columns(fmt, db) for format_id, fmt in default_formats().items()}
