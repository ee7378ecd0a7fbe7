"""Where the shipped data lives and how its files are read: the card database's row layout
(:data:`FIELDS`, :data:`SCHEMA_VERSION`), the data folder (:func:`data_dir`), its reviewed
CSV tables (:func:`read_table`), and how big a database file may be (:data:`MAX_FILE_BYTES`,
:data:`MAX_JSON_BYTES`) with the bounded gunzip every reader of one goes through
(:func:`database_json`, :class:`Inflate`).

Part of the core: :mod:`deckcheck.cards`, :mod:`deckcheck.formats` and :mod:`deckcheck.cards.deckrules`
read the shipped data through it, and the database builder (:mod:`deckcheck.sync.build`) writes
what it describes.
"""

from __future__ import annotations

import csv
import io
import os
import zlib
from collections.abc import Iterator
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
#: the database's table of the printings released later than their set (a Black Star promo of a
#: set's card, :mod:`deckcheck.sync.promos`), card id -> ISO date; a printing not in it is released
#: with its set
PRINTING_RELEASES = "printing_releases"

#: the largest card database file read or downloaded (``db pull``), gzip or plain JSON: the shipped
#: one is ~0.8 MB, so this is ~80 times today's
MAX_FILE_BYTES = 64 * 1024 * 1024
#: the most a database file's JSON may inflate to (a gzip bomb stops here): the shipped one is
#: ~3.4 MB of JSON, so this is ~20 times today's; parsed, it is what bounds a load's memory
MAX_JSON_BYTES = 64 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"


class TableError(Exception):
    """A data table cannot be read."""


class InflateError(ValueError):
    """Compressed data that is broken, ends early or inflates past its limit."""


class Inflate:
    """gzip data (every member, as :func:`gzip.decompress` reads them) or zlib data (``gzip=False``,
    HTTP's ``deflate``), decompressed piece by piece: no piece is over :attr:`PIECE` bytes and the
    output stops with :class:`InflateError` as soon as it would pass ``limit`` bytes, so a small
    bomb costs at most ``limit`` bytes of output and never the memory of its whole expansion."""

    PIECE = 1 << 20

    def __init__(self, limit: int, *, gzip: bool = True) -> None:
        self.limit = limit
        self.total = 0
        self._wbits = 31 if gzip else 15
        self._members = gzip
        self._stream = zlib.decompressobj(self._wbits)
        self._fed = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decompressed pieces of the next compressed bytes."""
        while data:
            if self._stream.eof:  # a next gzip member (zero padding between members is skipped, as gzip does)
                data = data.lstrip(b"\0")
                if not data:
                    return
                if not self._members:
                    raise InflateError("data follows the end of the compressed stream")
                self._stream = zlib.decompressobj(self._wbits)
            self._fed = True
            try:
                piece = self._stream.decompress(data, self.PIECE)
            except zlib.error as exc:
                raise InflateError(f"not {'gzip' if self._members else 'deflate'} data ({exc})") from None
            self.total += len(piece)
            if self.total > self.limit:
                raise InflateError(f"it decompresses to more than {self.limit:,} bytes")
            if piece:
                yield piece
            data = self._stream.unused_data if self._stream.eof else self._stream.unconsumed_tail

    def end(self) -> None:
        """Raise :class:`InflateError` unless the data fed so far was whole."""
        if not self._stream.eof:
            raise InflateError("the compressed data ends early" if self._fed else "no compressed data")


def database_json(blob: bytes, limit: int = MAX_JSON_BYTES) -> bytes:
    """The JSON text of a card database file's bytes (gzip, as shipped, or plain JSON), never over
    ``limit`` bytes. :raises InflateError: broken gzip, or JSON over the limit."""
    if blob[:2] != GZIP_MAGIC:
        if len(blob) > limit:
            raise InflateError(f"it is larger than {limit:,} bytes")
        return blob
    inflate = Inflate(limit)
    text = b"".join(inflate.feed(blob))
    inflate.end()
    return text


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
