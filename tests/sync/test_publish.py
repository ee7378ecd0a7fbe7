"""One sync, every replica: ``deckcheck db publish`` and ``deckcheck db pull`` (deckcheck/sync/publish.py), served
from a local HTTP server to two real gunicorn instances on 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from conftest import start_gunicorn
from test_reload import NEST_BALL, ULTRA_BALL, _stop, _wait_for_version, write_broken, write_db


@pytest.fixture
def served_folder(tmp_path):
    """A folder served over HTTP on 127.0.0.1 (what a web server in front of the published files does)."""
    folder = tmp_path / "published"
    folder.mkdir()

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def db_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deckcheck", "db", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_publish_writes_the_file_and_its_checksum(tmp_path):
    source = tmp_path / "cards.json.gz"
    write_db(source, "2026-01-01T00:00:00Z")
    result = db_cli("publish", "--db", str(source), "--to", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert (tmp_path / "out" / "cards.json.gz").read_bytes() == source.read_bytes()
    assert (tmp_path / "out" / "cards.json.gz.sha256").read_text() == f"{digest}  cards.json.gz\n"


@pytest.mark.slow
def test_publish_refuses_a_file_that_does_not_load(tmp_path):
    source = tmp_path / "cards.json.gz"
    write_broken(source)
    result = db_cli("publish", "--db", str(source), "--to", str(tmp_path / "out"))
    assert result.returncode == 1 and "unreadable" in result.stderr
    assert not (tmp_path / "out" / "cards.json.gz.sha256").exists()


@pytest.mark.slow
def test_pull_checks_the_checksum_and_that_the_file_loads(served_folder, tmp_path):
    folder, base = served_folder
    source = tmp_path / "cards.json.gz"
    write_db(source, "2026-01-01T00:00:00Z")
    assert db_cli("publish", "--db", str(source), "--to", str(folder)).returncode == 0
    target = tmp_path / "replica" / "cards.json.gz"
    url = f"{base}/cards.json.gz"
    first = db_cli("pull", url, "--to", str(target))
    assert first.returncode == 0 and first.stdout.startswith(f"Pulled {target}"), first.stderr
    assert target.read_bytes() == source.read_bytes()
    again = db_cli("pull", url, "--to", str(target))
    assert again.stdout.startswith("Already current:")
    wrong = db_cli("pull", url, "--to", str(target), "--sha256", "0" * 64)
    assert wrong.returncode == 1 and "does not match" in wrong.stderr
    # a published file whose checksum matches but that is not a database never replaces the good one
    write_broken(folder / "cards.json.gz")
    broken = hashlib.sha256((folder / "cards.json.gz").read_bytes()).hexdigest()
    (folder / "cards.json.gz.sha256").write_text(f"{broken}  cards.json.gz\n")
    refused = db_cli("pull", url, "--to", str(target))
    assert refused.returncode == 3 and "unreadable" in refused.stderr
    assert target.read_bytes() == source.read_bytes()
    missing = db_cli("pull", f"{base}/nothing.json.gz", "--to", str(target))
    assert missing.returncode == 1 and "HTTP 404" in missing.stderr
    # the database and the pack made from it, no temporary files left
    assert sorted(p.name for p in target.parent.iterdir()) == ["cards.json.gz", "cards.json.gz.pack"]


@pytest.mark.slow
@pytest.mark.server
def test_two_instances_pull_one_published_database_and_report_the_same_version(served_folder, tmp_path):
    folder, base = served_folder
    synced = tmp_path / "synced" / "cards.json.gz"  # what the sync job wrote
    v1 = write_db(synced, "2026-01-01T00:00:00Z")
    assert db_cli("publish", "--db", str(synced), "--to", str(folder)).returncode == 0
    url = f"{base}/cards.json.gz"
    replicas, procs = [], []
    try:
        for name in ("a", "b"):
            path = tmp_path / name / "cards.json.gz"
            assert db_cli("pull", url, "--to", str(path)).returncode == 0  # the init step of each replica
            proc, replica = start_gunicorn(env={"DECKCHECK_DB": str(path), "DECKCHECK_DB_RELOAD_INTERVAL": "0.5"})
            procs.append(proc)
            replicas.append((path, replica))
        for _path, replica in replicas:
            _wait_for_version(replica, v1)
        # the next sync publishes a new database; each replica's puller fetches it, its master swaps it in
        v2 = write_db(synced, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
        assert db_cli("publish", "--db", str(synced), "--to", str(folder)).returncode == 0
        for path, replica in replicas:
            assert db_cli("pull", url, "--to", str(path)).returncode == 0
            _wait_for_version(replica, v2)
        answers = [requests.get(replica + "/readyz", timeout=10).json()["database"] for _p, replica in replicas]
        assert answers[0] == answers[1] and answers[0]["version"] == v2
    finally:
        for proc in procs:
            _stop(proc)
