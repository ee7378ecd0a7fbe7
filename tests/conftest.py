"""Shared fixtures: the real card database, the app, and a real gunicorn on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from hypothesis import settings

#: no per-example deadline anywhere: CI and developers' machines are shared and noisy, so a
#: deadline only adds flakes; the hostile-input tests bound time themselves (100x the normal cost)
settings.register_profile("deckcheck", deadline=None)
settings.load_profile("deckcheck")

ROOT = Path(__file__).resolve().parent.parent
DECKS = Path(__file__).resolve().parent / "decks"
#: the formats deckcheck ships, one per file in data/formats/ (their one definition): a test about every
#: shipped format takes this list, never a copy of it
SHIPPED_FORMATS = tuple(sorted(path.stem for path in (ROOT / "data" / "formats").glob("*.toml")))
#: the anonymous rate limit for every app the tests build (the limiter runs, but never throttles
#: the suite); tests of the limits themselves set their own
UNTHROTTLED = "1000000 per minute"


#: fixtures that start real servers (gunicorn, redis, nginx): a test using one (directly or through another
#: fixture) is a ``server`` test, so ``-m "not server"`` leaves it out without a marker on each test
SERVER_FIXTURES = frozenset({"live_server", "served", "redis_url", "plain_gunicorn_behind_nginx"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.server)


@pytest.fixture(autouse=True, scope="session")
def _test_client_reads_whole_responses():
    """Flask's test client leaves a streamed answer (a static file) open until the garbage collector finds it,
    a ResourceWarning (an error here); a buffered answer is read and closed at once, as a server would."""
    from flask.testing import FlaskClient

    patch = pytest.MonkeyPatch()
    unbuffered = FlaskClient.open

    def open_buffered(self, *args, buffered=True, **kwargs):
        return unbuffered(self, *args, buffered=buffered, **kwargs)

    patch.setattr(FlaskClient, "open", open_buffered)
    yield
    patch.undo()


@pytest.fixture(scope="session")
def db():
    from deckcheck.cards import get_db

    return get_db()


@pytest.fixture()
def runner(db):
    """A click runner with stdout and stderr apart (the database loaded once per session)."""
    from click.testing import CliRunner

    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


@pytest.fixture()
def app():
    from deckcheck import create_app

    return create_app({"TESTING": True, "RATELIMIT_DEFAULT": UNTHROTTLED})


@pytest.fixture()
def client(app):
    return app.test_client()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(app_spec: str = "deckcheck:create_app()", env: dict | None = None, workers: int = 1):
    """Start a real gunicorn on a free loopback port; return (process, base_url)."""
    port = free_port()
    # the package's own settings, as `deckcheck serve` runs them (deckcheck/service/gunicorn_conf.py)
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:deckcheck.service.gunicorn_conf",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        app_spec,
    ]
    # no drain on SIGTERM (tests/service/test_drain.py tests it): stopping a test server takes no extra seconds
    env = {**os.environ, "DECKCHECK_RATELIMIT_DEFAULT": UNTHROTTLED, "DECKCHECK_DRAIN_SECONDS": "0", **(env or {})}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_healthz(proc, base, 30)
    except RuntimeError:
        proc.kill()
        raise
    return proc, base


def wait_for_healthz(proc: subprocess.Popen, base: str, seconds: float) -> None:
    """Return once ``base/healthz`` answers; RuntimeError if the process exits or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            err = err.decode() if isinstance(err, bytes) else err
            raise RuntimeError(f"the server exited {proc.returncode}: {err[-2000:]}")
        try:
            requests.get(base + "/healthz", timeout=5)
            return
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or a worker still starting
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer within {seconds:g} s")


class ImageServer:
    """A stand-in for TCGdex's image host on 127.0.0.1 (the tests have no internet): any
    ``/<lang>/<serie>/<set>/<local id>/low.webp`` answers a small SVG card naming the printing,
    and every path asked for is recorded in ``requests``."""

    def __init__(self):
        import html
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        asked = self.requests = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                asked.append(self.path)
                parts = self.path.strip("/").split("/")
                if len(parts) != 5 or parts[-1] != "low.webp":
                    self.send_error(404)
                    return
                label = html.escape(f"{parts[2]} {parts[3]}")
                body = (
                    f'<svg xmlns="http://www.w3.org/2000/svg" width="245" height="337" viewBox="0 0 245 337">'
                    f'<rect width="245" height="337" rx="12" fill="#f2c94c"/>'
                    f'<rect x="12" y="40" width="221" height="150" fill="#6fa8dc"/>'
                    f'<text x="122" y="260" font-size="22" text-anchor="middle" font-family="sans-serif">{label}'
                    f"</text></svg>"
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "image/svg+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def image_server():
    server = ImageServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def live_server(image_server):
    """Base URL of the app served by a real gunicorn on 127.0.0.1 for the whole session; its
    card images come from the local stand-in (``image_server``)."""
    proc, base = start_gunicorn(env={"DECKCHECK_CARD_IMAGE_HOST": image_server.base})
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
