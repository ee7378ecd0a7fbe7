"""How the gunicorn master runs the fleet's side of things: CPU quota, drain on SIGTERM, database reloads.

* :func:`cpu_count`: the CPUs this process may really use, the smaller of the affinity mask
  and the cgroup CPU quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` /
  ``cpu.cfs_period_us``, rounded up): a container limited to 1 CPU on a 64-core node counts 1.
* Draining: on the first SIGTERM the master marks the service as draining (an anonymous shared
  memory byte made before the workers fork, so every worker sees it at once): ``/readyz``
  answers 503 while everything else is still served, for ``DECKCHECK_DRAIN_SECONDS`` (default
  5), so load balancers take the instance out before it stops. Then gunicorn's graceful stop:
  in-flight requests finish, and each worker first accepts what is already queued at the socket.
  A second SIGTERM stops at once (gracefully).
* :class:`MasterReloader`: the master itself watches the card database file and loads a new
  one, then restarts the workers (as SIGHUP does), so the new database is loaded once and its
  memory shared by every worker through fork, as at start-up. A file that does not load is
  logged and the master keeps the last good database, which is what every new worker then
  starts from: a reload never falls back to an older database than the last good one.
"""

from __future__ import annotations

import gc
import logging
import math
import mmap
import os
import signal
import threading
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_DRAIN_SECONDS = 5.0
CGROUP_ROOT = Path("/sys/fs/cgroup")

# -- CPU quota ---------------------------------------------------------------------------


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _own_cgroup(proc_cgroup: str | None, controller: str) -> str:
    """This process's cgroup path for ``controller`` ('' for v2) from /proc/self/cgroup."""
    for line in (proc_cgroup or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and (parts[1] == controller or (controller and controller in parts[1].split(","))):
            return parts[2]
    return "/"


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> float | None:
    """The CPU quota (in CPUs) of this process's cgroup and its parents, the tightest one; None for none."""
    if proc_cgroup is None:
        proc_cgroup = _read(Path("/proc/self/cgroup"))
    quotas: list[float] = []
    if (root / "cgroup.controllers").exists():  # v2: one hierarchy
        here = Path(_own_cgroup(proc_cgroup, "").lstrip("/"))
        for folder in [here, *here.parents]:
            value = _read(root / folder / "cpu.max")
            if value:
                quota, _, period = value.partition(" ")
                if quota != "max" and period:
                    quotas.append(int(quota) / int(period))
    else:  # v1: the cpu controller's hierarchy
        for base in (root / "cpu,cpuacct", root / "cpu"):
            if not base.is_dir():
                continue
            here = Path(_own_cgroup(proc_cgroup, "cpu").lstrip("/"))
            for folder in [here, *here.parents]:
                us, per = _read(base / folder / "cpu.cfs_quota_us"), _read(base / folder / "cpu.cfs_period_us")
                if us and per and int(us) > 0 and int(per) > 0:
                    quotas.append(int(us) / int(per))
            break
    return min(quotas) if quotas else None


def cpu_count(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> int:
    """CPUs this process may use: the affinity mask, narrowed by a cgroup CPU quota; at least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    try:
        quota = cgroup_cpu_quota(root, proc_cgroup)
    except (ValueError, OSError):
        quota = None
    if quota is not None:
        cpus = min(cpus, math.ceil(quota))
    return max(1, cpus)


# -- drain -------------------------------------------------------------------------------

#: one byte shared by the master and every worker forked after this module was imported
_flag = mmap.mmap(-1, 1)


def draining() -> bool:
    return _flag[0] == 1


def set_draining(value: bool = True) -> None:
    _flag[0] = 1 if value else 0


def drain_seconds() -> float:
    value = os.environ.get("DECKCHECK_DRAIN_SECONDS", "").strip()
    try:
        seconds = float(value) if value else DEFAULT_DRAIN_SECONDS
    except ValueError:
        raise SystemExit(f"DECKCHECK_DRAIN_SECONDS must be a number of seconds, not {value!r}") from None
    if seconds < 0:
        raise SystemExit(f"DECKCHECK_DRAIN_SECONDS must be 0 or more, not {value!r}")
    return seconds


def install_drain(server, seconds: float) -> None:
    """Make the gunicorn master drain for ``seconds`` on the first SIGTERM, then stop gracefully."""
    stop = server.handle_term

    def handle_term():
        if draining() or seconds <= 0:
            set_draining()
            # the whole server stops (not a worker being replaced): new connection attempts are ignored from
            # now on, so the workers can empty the socket's queue before it closes (see deckcheck.service.worker)
            from .worker import refuse_new_connections

            for listener in getattr(server, "LISTENERS", ()):
                refuse_new_connections(listener)
            return stop()
        set_draining()
        server.log.info("deckcheck: draining for %gs (/readyz answers 503), then stopping", seconds)
        timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGTERM))
        timer.daemon = True
        timer.start()

    server.handle_term = handle_term


# -- database reloads in the master ------------------------------------------------------------


class MasterReloader:
    """Watches the database file from the gunicorn master; a good new file is loaded there and the
    workers restarted (SIGHUP), so they share it. ``interval`` seconds between looks."""

    def __init__(self, server, interval: float):
        # deckcheck.cards.watch imported here, in the master's main thread: were the watching thread to import
        # it, a fork while that thread held the module's import lock would leave a worker that imports it
        # (the hooks in gunicorn_conf.py) waiting on that lock forever
        from .. import cards
        from ..cards import watch as dbwatch  # noqa: F401

        self.server = server
        self.interval = interval
        path = cards.get_db().path
        self.path = Path(path) if path else None
        self._stop = threading.Event()

    def start(self) -> None:
        if self.path is None or self.interval <= 0:
            return
        threading.Thread(target=self._run, name="deckcheck-db-watch", daemon=True).start()

    def _run(self) -> None:
        from ..cards import watch as dbwatch

        path = self.path
        assert path is not None  # start() runs this only with a file to watch
        while not self._stop.wait(self.interval):
            stamp = dbwatch._file_stamp(path)
            if stamp is None or stamp == _tried:
                continue
            if self.load():
                os.kill(os.getpid(), signal.SIGHUP)  # gunicorn: new workers from this master, old ones stop

    def load(self) -> bool:
        """Load the file into the master; False (logged, the current database kept) when it does not load."""
        return load_into_master(self.path, self.server.log)


#: the (mtime, size, inode) of the file the master last tried, so one file is loaded (or refused) once
_tried: tuple | None = None


def load_into_master(path: Path | None, logger=log, force: bool = False) -> bool:
    """Load ``path`` as the master's database; on failure keep the current (last good) one.

    Also tells the app's watcher (which every forked worker inherits) that this file was seen,
    so the new workers do not load it again each on its own.
    """
    global _tried
    from .. import cards
    from ..cards import watch as dbwatch

    if path is None:
        return False
    stamp = dbwatch._file_stamp(path)
    if dbwatch._watcher is not None:
        dbwatch._watcher._stamp = stamp
    if stamp == _tried and not force:
        return False
    _tried = stamp
    current = cards.get_db()
    try:
        new = cards.load(path)
        new.local_names()  # the names in other languages beside it, read here too (a broken file: kept out)
    except Exception as exc:  # noqa: BLE001 - DatabaseError, zlib.error: keep the last good one
        logger.error("deckcheck: card database %s not loaded, keeping version %s: %s", path, current.version, exc)
        return False
    if new.version == current.version:
        return False
    new.index_usual_lines()  # as the warm-up does before the first fork: the workers share the index
    gc.unfreeze()
    cards.set_db(new)
    del current
    gc.collect()
    gc.freeze()  # as at start-up: the workers' collector never walks (nor writes to) the shared pages
    logger.info("deckcheck: card database %s (%s cards) loaded in the master", new.version, len(new.cards))
    return True
