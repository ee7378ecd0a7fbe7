"""One sync, every replica: what ``deckcheck db publish`` and ``deckcheck db pull`` do (the commands
are in :mod:`deckcheck.cli.dbsync`).

A fleet syncs once (``deckcheck db sync``, a scheduled job) and *publishes* the result:
``db publish --to DIR`` puts the database file and its checksum side by side
(``cards.json.gz`` and ``cards.json.gz.sha256``, the ``sha256sum`` format) in a folder that a
plain web server serves. Every replica *pulls* it: ``db pull URL --to PATH`` downloads the file,
checks its SHA-256 (``--sha256 HEX``, or the published ``URL.sha256``), checks that it loads
as a card database, and only then moves it into place atomically; the running service picks
the new file up (the gunicorn master watches it, ``DECKCHECK_DB_RELOAD_INTERVAL``).
``--every SECONDS`` keeps pulling (a sidecar), fetching the small checksum first and the
database only when it changed. No replica talks to the card data's source.

Exit status: 0 pulled (or already current), 1 the download or the checksum failed, 3 the file
is not a card database.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

import requests

from .. import cards as _cards
from ..cards.files import MAX_FILE_BYTES
from ..cards.index import fingerprint
from ..cards.pack import PackError, decode, pack_path
from .fetch import CHECKSUM_MAX_BYTES, PULL_DEADLINE, Deadline, DownloadError, fetch, open_session
from .tables import BuildError
from .write import write_pack

CHUNK = 1 << 20
_HEX = re.compile(r"[0-9a-f]{64}")


#: the longest wait between two rounds of ``db pull --every`` while rounds keep failing, seconds
EVERY_BACKOFF_MAX = 3600.0


def round_wait(every: float, failures: int, jitter: float) -> float:
    """Seconds until the next round of ``db pull --every``: ``every`` after a good round; after the
    n-th failed round in a row, ``every * 2**(n-1)`` capped at ``max(every, EVERY_BACKOFF_MAX)``,
    times ``jitter`` (drawn from 0.5-1, so replicas that failed together do not retry in step)."""
    if failures <= 0:
        return every
    return min(max(every, EVERY_BACKOFF_MAX), every * 2.0 ** min(failures - 1, 32)) * jitter


class PullError(DownloadError):
    """The published checksum is unusable or does not match the file."""


def sha256_file(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _atomic_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out, CHUNK)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def publish(database: str | os.PathLike, folder: str | os.PathLike) -> tuple[Path, str]:
    """Put ``database`` (checked to load) and its ``.sha256`` in ``folder``; the checksum is written last,
    so a replica that sees a new checksum finds the file it describes."""
    source = Path(database)
    _cards.load(source)  # raises DatabaseError: never publish a file that does not load
    target = Path(folder) / source.name
    digest = sha256_file(source)
    _atomic_copy(source, target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.sha256.", dir=target.parent)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(f"{digest}  {target.name}\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, target.with_name(target.name + ".sha256"))
    return target, digest


def _write_pack(path: str | os.PathLike, target: str | os.PathLike | None = None) -> None:
    """:func:`write_pack`; a database a pack cannot hold (it loads from its JSON: a card id with a NUL,
    written by other code than db build and db sync) is refused as a file that does not load is."""
    try:
        write_pack(path, target)
    except BuildError as exc:
        raise _cards.DatabaseError(str(exc)) from exc


def _pack_current(target: Path, digest: str) -> bool:
    """Is the pack beside ``target`` one a load uses for the file of SHA-256 ``digest`` (there, undamaged,
    made from that file by this index code)?"""
    try:
        header = decode(pack_path(target).read_bytes()).header
    except (OSError, PackError):
        return False
    return bool(header.get("source") == digest and header.get("fingerprint") == fingerprint())


def published_checksum(url: str, session: requests.Session, timeout: float, deadline: Deadline) -> str:
    """The hex digest in ``URL.sha256`` (``sha256sum`` format: the digest first), read within
    :data:`~deckcheck.sync.fetch.CHECKSUM_MAX_BYTES`."""
    body = fetch(session, url + ".sha256", cap=CHECKSUM_MAX_BYTES, deadline=deadline, timeout=timeout)
    text = body.decode("ascii", "replace").strip()
    digest = text.split(maxsplit=1)[0].lower() if text else ""
    if not _HEX.fullmatch(digest):
        raise PullError(f"{url}.sha256", "does not start with a SHA-256 hex digest")
    return digest


def pull(
    url: str,
    target: str | os.PathLike,
    sha256: str | None = None,
    *,
    timeout: float = 30.0,
    deadline: float = PULL_DEADLINE,
    session: requests.Session | None = None,
) -> tuple[bool, str]:
    """Fetch ``url`` into ``target`` when it differs; (changed, digest). Everything within ``deadline``
    seconds; the file at most :data:`~deckcheck.cards.files.MAX_FILE_BYTES`; only from ``url``'s host
    (``session``'s hosts when given, :func:`~deckcheck.sync.fetch.open_session`).

    :raises DownloadError: the download failed (:class:`PullError`: the checksum).
    :raises DatabaseError: the file is not a card database; ``target`` is left as it was.
    """
    if session is None:
        with open_session([url]) as own:
            return pull(url, target, sha256, timeout=timeout, deadline=deadline, session=own)
    clock = Deadline(deadline, "the pull")
    target = Path(target)
    expected = sha256.lower() if sha256 else published_checksum(url, session, timeout, clock)
    if not _HEX.fullmatch(expected):
        raise PullError("--sha256", "must be 64 hexadecimal characters")
    if target.is_file() and sha256_file(target) == expected:
        if not _pack_current(target, expected):  # none (a deckcheck that wrote no pack), damaged or stale
            _write_pack(target)
        return False, expected
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.pull.", dir=target.parent)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:

            def keep(piece: bytes) -> None:
                digest.update(piece)
                out.write(piece)

            fetch(session, url, cap=MAX_FILE_BYTES, deadline=clock, timeout=timeout, sink=keep)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != expected:
            raise PullError(url, f"SHA-256 {digest.hexdigest()} does not match {expected}")
        try:
            _cards.load(tmp)  # a file that does not load never replaces a good one
            _write_pack(tmp, target)  # its pack first (made here, from the file checked above)
        except _cards.DatabaseError as exc:  # said of the URL: the temporary file is gone next
            raise _cards.DatabaseError(str(exc).replace(tmp, url)) from None
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:  # an error, Ctrl-C, or SIGTERM (the command turns it into SystemExit): no file left
        Path(tmp).unlink(missing_ok=True)
        raise
    return True, expected
