"""A running service swaps in a new card database file: in process, and under a real gunicorn.

The database files here are tiny (two printings) so that every load is instant; the
gunicorn tests use the package's deckcheck/service/gunicorn_conf.py (preloaded app, gthread workers).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
import requests

from deckcheck import cards as _cards
from deckcheck.cards import files as dbfile
from deckcheck.cards import watch as _dbwatch
from deckcheck.sync import write as _write

SET = {
    "id": "sv01",
    "name": "Scarlet & Violet",
    "series": "sv",
    "code": "SVI",
    "aliases": ["SVI"],
    "release": "2023-03-31",
    "official_count": 198,
}
NEST_BALL = ["sv01-181", "Nest Ball", "Trainer", ["Item"], None, [], "G", "sv01", "181", "Uncommon", "400d179c6d7da744"]
ULTRA_BALL = [
    "sv01-196",
    "Ultra Ball",
    "Trainer",
    ["Item"],
    None,
    [],
    "G",
    "sv01",
    "196",
    "Uncommon",
    "5c7e7f1c1a4a9b0d",
]


def write_db(path: Path, built_at: str, rows=(NEST_BALL,)) -> str:
    """Write a tiny database atomically (temporary file, rename); return its version."""
    db = {
        "schema": dbfile.SCHEMA_VERSION,
        "fields": list(dbfile.FIELDS),
        "sets": [SET],
        "cards": [list(r) for r in rows],
        "meta": {
            "built_at": built_at,
            "sources": {"test": "tests/service/test_reload.py"},
            "cards": len(rows),
            "sets": 1,
        },
    }
    _write.write_database(db, path)
    return _cards.load(path).version


def write_broken(path: Path) -> None:
    tmp = path.with_name(path.name + ".broken")
    tmp.write_bytes(b"\x1f\x8b\x08\x00 this is not a whole gzip file")
    os.replace(tmp, path)


@pytest.fixture()
def keep_global_db():
    """The tests swap the process-wide database: put the real one back afterwards."""
    before, watcher = _cards._current, _dbwatch._watcher
    handler = signal.getsignal(signal.SIGHUP)
    yield
    _cards._current, _dbwatch._watcher = before, watcher
    signal.signal(signal.SIGHUP, handler)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


# ---------------------------------------------------------------------------
# In process
# ---------------------------------------------------------------------------


def test_the_watcher_swaps_a_new_file_when_the_interval_is_due(tmp_path, keep_global_db):
    path = tmp_path / "cards.json.gz"
    v1 = write_db(path, "2026-01-01T00:00:00Z")
    _cards.set_db(_cards.load(path))
    clock = Clock()
    watcher = _dbwatch.DatabaseWatcher(path, 30, background=False, clock=clock)
    held = _cards.get_db()  # a request in flight
    v2 = write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
    watcher.maybe_reload()
    assert _cards.get_db().version == v1  # not due yet
    clock.now += 30
    watcher.maybe_reload()
    assert _cards.get_db().version == v2 and len(_cards.get_db().cards) == 2 and watcher.swaps == 1
    assert held.version == v1 and len(held.cards) == 1  # the old object is untouched
    clock.now += 30
    watcher.maybe_reload()  # nothing changed: no load
    assert watcher.swaps == 1


def test_the_master_indexes_a_reloaded_databases_usual_lines_before_the_workers_fork(tmp_path, keep_global_db):
    """load_into_master (SIGHUP, the master's reloader) makes the new database's index of usual lines
    before gunicorn forks new workers from it, as the warm-up does at start: the workers share it."""
    from deckcheck.service import runtime

    path = tmp_path / "cards.json.gz"
    write_db(path, "2026-01-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
    assert runtime.load_into_master(path, force=True)
    db = _cards.get_db()
    assert db.indexed_codes() >= {"SVI", "SV01"}
    assert sorted(db.printed_lines()) == sorted(
        ["Nest Ball SVI 181", "Nest Ball SV01 181", "Ultra Ball SVI 196", "Ultra Ball SV01 196"]
    )
    runtime._tried = None


def test_a_broken_file_is_logged_and_the_current_database_stays(tmp_path, keep_global_db, caplog, monkeypatch):
    path = tmp_path / "cards.json.gz"
    write_db(path, "2026-01-01T00:00:00Z")
    _cards.set_db(_cards.load(path))
    clock = Clock()
    watcher = _dbwatch.DatabaseWatcher(path, 5, background=False, clock=clock)
    v1 = _cards.get_db().version
    write_broken(path)
    clock.now += 5
    watcher.maybe_reload()
    assert _cards.get_db().version == v1 and watcher.swaps == 0
    assert "not swapped in" in caplog.text and "unreadable" in watcher.last_error
    loads = []
    monkeypatch.setattr(_cards, "load", lambda p: loads.append(p) or pytest.fail("the same broken file again"))
    clock.now += 5
    watcher.maybe_reload()  # the same broken file is not loaded again
    monkeypatch.undo()
    assert loads == []
    v3 = write_db(path, "2026-03-01T00:00:00Z")
    clock.now += 5
    watcher.maybe_reload()
    assert _cards.get_db().version == v3 and watcher.last_error is None
    os.unlink(path)
    clock.now += 5
    watcher.maybe_reload()  # a missing file: logged once, the database stays
    assert _cards.get_db().version == v3 and "cannot be read" in caplog.text


def test_interval_zero_waits_for_sighup(tmp_path, keep_global_db):
    path = tmp_path / "cards.json.gz"
    write_db(path, "2026-01-01T00:00:00Z")
    _cards.set_db(_cards.load(path))
    clock = Clock()
    watcher = _dbwatch._watcher = _dbwatch.DatabaseWatcher(path, 0, background=False, clock=clock)
    v1 = _cards.get_db().version
    v2 = write_db(path, "2026-02-01T00:00:00Z")
    clock.now += 3600
    watcher.maybe_reload()
    assert _cards.get_db().version == v1
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    assert _dbwatch.install_sighup_handler()
    os.kill(os.getpid(), signal.SIGHUP)  # the handler only sets a flag
    deadline = time.monotonic() + 5
    while not watcher._requested and time.monotonic() < deadline:
        time.sleep(0.01)
    watcher.maybe_reload()
    assert _cards.get_db().version == v2


def test_a_database_set_from_another_file_is_left_alone(tmp_path, keep_global_db):
    watched, other = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    write_db(watched, "2026-01-01T00:00:00Z")
    write_db(other, "2026-01-02T00:00:00Z")
    _cards.set_db(_cards.load(other))
    watcher = _dbwatch.DatabaseWatcher(watched, 0, background=False)
    write_db(watched, "2026-02-01T00:00:00Z")
    watcher.request_reload()
    watcher.maybe_reload()
    assert Path(_cards.get_db().path) == other


def test_the_app_hook_reloads_in_the_background(tmp_path, keep_global_db):
    from deckcheck import create_app

    path = tmp_path / "cards.json.gz"
    v1 = write_db(path, "2026-01-01T00:00:00Z")
    app = create_app({"TESTING": True, "CARD_DB_PATH": str(path), "DB_RELOAD_INTERVAL": 0.05})
    client = app.test_client()
    first = client.get("/readyz")
    assert first.status_code == 200 and first.get_json()["database"]["version"] == v1
    v2 = write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
    seen, deadline = [], time.monotonic() + 10
    while time.monotonic() < deadline:
        resp = client.get("/readyz")
        assert resp.status_code == 200
        seen.append(resp.get_json()["database"]["version"])
        if seen[-1] == v2:
            break
        time.sleep(0.02)
    assert seen[-1] == v2 and set(seen) <= {v1, v2}


# ---------------------------------------------------------------------------
# Under a real gunicorn
# ---------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _start(env: dict):
    """gunicorn with a thread draining its log (a full stderr pipe would stall the workers)."""
    from conftest import start_gunicorn

    proc, base = start_gunicorn(env=env, workers=1)
    threading.Thread(target=lambda: [None for _ in iter(proc.stderr.readline, b"")], daemon=True).start()
    return proc, base


def _wait_for(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except Exception:  # noqa: BLE001
        proc.kill()
        proc.wait()


def _wait_for_version(base: str, version: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = requests.get(base + "/readyz", timeout=5).json()["database"]["version"]
        if seen == version:
            return
        time.sleep(0.05)
    raise AssertionError(f"the service still reports version {seen}, not {version}")


@pytest.mark.slow
def test_gunicorn_swaps_the_file_without_failing_a_request(tmp_path):
    path = tmp_path / "cards.json.gz"
    v1 = write_db(path, "2026-01-01T00:00:00Z")
    proc, base = _start({"DECKCHECK_DB": str(path), "DECKCHECK_DB_RELOAD_INTERVAL": "1"})
    results: list[tuple[str, int, str | None]] = []
    stop = threading.Event()

    def hammer():
        session = requests.Session()  # keep-alive: the same connection across the swaps
        deadline = time.monotonic() + 60
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                resp = session.get(base + "/readyz", timeout=10)
                version = resp.json()["database"]["version"] if resp.status_code == 200 else None
                results.append(("ok", resp.status_code, version))
            except (requests.RequestException, ValueError) as exc:
                results.append(("error", 0, repr(exc)))

    thread = threading.Thread(target=hammer, daemon=True)
    thread.start()
    try:
        _wait_for(lambda: len(results) >= 20)
        v2 = write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
        _wait_for_version(base, v2)
        write_broken(path)  # logged by the worker; version 2 stays
        time.sleep(2.5)
        assert requests.get(base + "/readyz", timeout=5).json()["database"]["version"] == v2
        v3 = write_db(path, "2026-03-01T00:00:00Z")
        _wait_for_version(base, v3)
        count = len(results)
        _wait_for(lambda: len(results) >= count + 20)
    finally:
        stop.set()
        thread.join(timeout=15)
        _stop(proc)
    failures = [r for r in results if r[:2] != ("ok", 200)]
    assert not failures, failures[:5]
    versions = [r[2] for r in results]
    assert set(versions) == {v1, v2, v3}
    order = [v for i, v in enumerate(versions) if i == 0 or v != versions[i - 1]]
    assert order == [v1, v2, v3]  # one worker: never back to an older database


@pytest.mark.slow
def test_gunicorn_sighup_to_a_worker_swaps_in_place_and_to_the_master_restarts_workers(tmp_path):
    path = tmp_path / "cards.json.gz"
    v1 = write_db(path, "2026-01-01T00:00:00Z")
    proc, base = _start({"DECKCHECK_DB": str(path), "DECKCHECK_DB_RELOAD_INTERVAL": "0"})
    try:
        (worker,) = _children(proc.pid)
        v2 = write_db(path, "2026-02-01T00:00:00Z")
        time.sleep(1.2)
        assert requests.get(base + "/readyz", timeout=5).json()["database"]["version"] == v1  # no timer
        os.kill(worker, signal.SIGHUP)
        _wait_for_version(base, v2)
        assert _children(proc.pid) == [worker]  # the same worker: swapped in place
        v3 = write_db(path, "2026-03-01T00:00:00Z")
        os.kill(proc.pid, signal.SIGHUP)  # gunicorn: new workers (forked from the preloaded master)
        _wait_for_version(base, v3)
        deadline = time.monotonic() + 20
        while worker in _children(proc.pid) and time.monotonic() < deadline:  # graceful stop of the old one
            time.sleep(0.1)
        assert worker not in _children(proc.pid) and len(_children(proc.pid)) == 1
    finally:
        _stop(proc)
