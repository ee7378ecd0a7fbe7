"""Hot swap: a running service picks up a new database file (``deckcheck db sync``).

:class:`DatabaseWatcher` notices a changed file and swaps it in (:func:`deckcheck.cards.set_db`)
without a restart and without failing a request; SIGHUP asks for a look at once.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from .. import cards
from . import DatabaseError, get_db, load, set_db
from .pack import pack_path

log = logging.getLogger(__name__)

#: seconds between two looks at the database file's modification time (0: only on SIGHUP)
DEFAULT_RELOAD_INTERVAL = 30.0


def _file_stamp(path: Path) -> tuple[int, int, int, tuple[int, int, int] | None] | None:
    """(mtime in ns, size, inode) of the file, and the same of its pack (:mod:`deckcheck.cards.pack`; None
    when there is none), or None when the file cannot be read. A pack written again (``db pack``,
    the remedy for a damaged one) is a change too: the file it belongs to may now load."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    try:
        pk = os.stat(pack_path(path))
        pack: tuple[int, int, int] | None = (pk.st_mtime_ns, pk.st_size, pk.st_ino)
    except OSError:
        pack = None
    return (st.st_mtime_ns, st.st_size, st.st_ino, pack)


class DatabaseWatcher:
    """Notices a new database file and swaps it in, without a restart and without failing a request.

    :meth:`maybe_reload` runs before every request and costs one clock read when nothing is
    due. The file's (mtime, size, inode) is looked at every ``interval`` seconds (0: never on
    a timer), at the first request of a process forked after the watcher was made (a
    gunicorn worker of a preloaded master) and after :meth:`request_reload` (SIGHUP). A
    changed file is loaded and checked completely by :func:`load` in a background thread,
    then :func:`set_db` swaps the module's reference: requests in flight keep the database
    they started with, later ones get the new one. A file that does not load is logged and
    the current database stays (the same broken file is not retried until it changes or a
    SIGHUP asks).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        interval: float = DEFAULT_RELOAD_INTERVAL,
        *,
        background: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.interval = float(interval)
        self.background = background
        self.clock = clock
        self.swaps = 0
        self.last_error: str | None = None
        self._stamp = _file_stamp(self.path)
        self._next = clock() + self.interval
        self._requested = False
        self._look_now = False
        self._missing_logged = False
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._loading = False

    def request_reload(self) -> None:
        """Look at the file on the next :meth:`maybe_reload`, due or not, and load it even
        if its stamp did not change. Only sets a flag: safe in a signal handler."""
        self._requested = True

    def _due(self) -> bool:
        return self._requested or self._look_now or (self.interval > 0 and self.clock() >= self._next)

    def maybe_reload(self) -> None:
        """Start a reload if one is due and the file changed (a Flask ``before_request`` hook)."""
        if self._pid != os.getpid():  # a forked worker: its own lock, and a look right away
            self._pid, self._lock, self._loading, self._look_now = os.getpid(), threading.Lock(), False, True
        if not self._due():
            return
        with self._lock:
            if self._loading or not self._due():
                return
            forced, self._requested, self._look_now = self._requested, False, False
            self._next = self.clock() + self.interval
            stamp = _file_stamp(self.path)
            if stamp is None:
                if not self._missing_logged:
                    log.warning("card database %s cannot be read; keeping the loaded one", self.path)
                    self._missing_logged = True
                return
            self._missing_logged = False
            if stamp == self._stamp and not forced:
                return
            self._loading = True
        if self.background:
            threading.Thread(target=self.reload, args=(stamp,), name="deckcheck-db-reload", daemon=True).start()
        else:
            self.reload(stamp)

    def reload(self, stamp: tuple[int, int, int, tuple[int, int, int] | None] | None = None) -> bool:
        """Load the file and swap it in; True when the database in use changed."""
        try:
            current = cards._current
            if current is not None and current.path and Path(current.path) != self.path:
                log.info("card database in use comes from %s, not %s: not swapping", current.path, self.path)
                return False
            try:
                new = load(self.path)
                new.local_names()  # the names in other languages beside it: a broken file is no swap
            except Exception as exc:  # noqa: BLE001 - DatabaseError, and zlib.error from a corrupt gzip
                self.last_error = str(exc) if isinstance(exc, DatabaseError) else f"unreadable: {exc!r}"
                log.error(
                    "new card database not swapped in, keeping version %s: %s", current.version if current else "-", exc
                )
                return False
            self.last_error = None
            if current is not None and new.version == current.version:
                return False
            set_db(new)
            self.swaps += 1
            log.warning(
                "card database swapped in: version %s -> %s (%d cards, built %s) from %s",
                current.version if current else "-",
                new.version,
                len(new.cards),
                new.meta.get("built_at"),
                self.path,
            )
            return True
        finally:
            self._stamp = stamp or _file_stamp(self.path)
            self._loading = False


_watcher: DatabaseWatcher | None = None


def _on_sighup(signum: int, frame: FrameType | None) -> None:
    if _watcher is not None:
        _watcher.request_reload()


def install_sighup_handler() -> bool:
    """Make SIGHUP ask the watcher for a reload (on the next request) in this process.

    Only from the main thread, and only where SIGHUP has no other handler (a gunicorn
    worker resets it to the default, which would end the worker; call this from
    gunicorn's ``post_worker_init``). Returns whether the handler is in place.
    """
    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, _on_sighup):
        return False
    signal.signal(signal.SIGHUP, _on_sighup)
    return True


def init_app(app: Any) -> DatabaseWatcher | None:
    """Hot swap for a Flask app: watch the file the loaded database came from.

    Config ``DB_RELOAD_INTERVAL`` (env ``DECKCHECK_DB_RELOAD_INTERVAL``): seconds between
    looks at the file, default 30, 0 for SIGHUP only.
    """
    global _watcher
    interval = float(app.config.setdefault("DB_RELOAD_INTERVAL", DEFAULT_RELOAD_INTERVAL))
    db = get_db()
    if not db.path:
        return None
    _watcher = watcher = DatabaseWatcher(db.path, interval)
    install_sighup_handler()
    app.before_request(watcher.maybe_reload)
    return watcher
