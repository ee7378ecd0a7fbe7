"""Hostile clients: slow and idle connections against ``deckcheck serve`` alone, and against nginx in front.

Everything runs for real on 127.0.0.1: ``deckcheck serve`` (gunicorn with deckcheck's worker), a
plain gunicorn, and nginx (Debian's package) with the committed ``deploy/nginx/deckcheck.conf``.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
import requests
from conftest import free_port, start_gunicorn
from slowclients import NGINX, hold_and_probe, nginx_setting, start_nginx
from test_serve import serve_on_free_port, stop

DECK = (Path(__file__).resolve().parent.parent / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")

pytestmark = [pytest.mark.slow, pytest.mark.server]


def _all_answered(answers: list) -> None:
    assert answers, "no probe ran"
    assert all(answer == (200, 200) for answer in answers), answers


def test_serve_alone_answers_probes_and_checks_while_32_slow_and_idle_clients_hold_connections():
    proc, port, base = serve_on_free_port(2, {"DECKCHECK_RATELIMIT_ENABLED": "false"})
    try:
        answers, still_open = hold_and_probe(port, base, 32, 8, DECK)
    finally:
        rc, _out, err = stop(proc)
    _all_answered(answers)
    assert still_open >= 20  # the slow clients really were there (idle ones are closed after keepalive)
    assert rc == 0, err[-2000:]


def test_serve_closes_a_request_head_that_takes_too_long():
    proc, port, base = serve_on_free_port(1, {"DECKCHECK_HEADER_TIMEOUT": "1"})
    try:
        import socket
        import time

        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        closed_after = None
        start = time.monotonic()
        for _ in range(30):
            time.sleep(0.2)
            try:
                s.sendall(b"X-Slow: 1\r\n")
                s.settimeout(0.01)
                if s.recv(100) == b"":
                    closed_after = time.monotonic() - start
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - start
                break
        s.close()
        assert closed_after is not None and closed_after < 5
        assert requests.get(base + "/healthz", timeout=5).status_code == 200
    finally:
        stop(proc)


@pytest.fixture
def plain_gunicorn_behind_nginx(tmp_path):
    """A gunicorn with ONE plain gthread worker and ONE thread (no defence of its own), nginx in front."""
    app, app_base = start_gunicorn(
        env={"GUNICORN_CMD_ARGS": "--worker-class gthread --threads 1", "DECKCHECK_RATELIMIT_ENABLED": "false"},
        workers=1,
    )
    listen = free_port()
    try:
        proxy = start_nginx(tmp_path, listen, app_base.removeprefix("http://"))
    except Exception:
        app.kill()
        raise
    yield listen, f"http://127.0.0.1:{listen}", app_base
    for proc in (proxy, app):
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx (Debian package) is not installed")
def test_nginx_holds_200_slow_clients_in_front_of_a_single_threaded_worker(plain_gunicorn_behind_nginx):
    listen, base, app_base = plain_gunicorn_behind_nginx
    answers, still_open = hold_and_probe(listen, base, 200, 8, DECK)
    _all_answered(answers)
    assert still_open >= 130
    # the same slow clients straight at that worker take it down: nginx is what held them
    port = int(app_base.rsplit(":", 1)[1])
    direct, _ = hold_and_probe(port, app_base, 3, 4, DECK)
    assert any(answer != (200, 200) for answer in direct), direct


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx (Debian package) is not installed")
def test_nginx_body_limit_is_the_apis_and_passes_request_ids(plain_gunicorn_behind_nginx):
    from deckcheck import create_app

    _listen, base, _app = plain_gunicorn_behind_nginx
    limit = create_app().config["MAX_CONTENT_LENGTH"]
    assert nginx_setting("client_max_body_size") == f"{limit // 1024}k"
    over = requests.post(
        base + "/api/v1/validate", data=b"x" * (limit + 1), timeout=10, headers={"Content-Type": "text/plain"}
    )
    assert over.status_code == 413
    at = requests.post(
        base + "/api/v1/validate",
        data=b"4 Nest Ball SVI 181\n".ljust(limit, b" "),
        timeout=10,
        headers={"Content-Type": "text/plain"},
    )
    assert at.status_code == 413 and at.json()["error"]["code"] == "payload_too_large"  # the app's own, in JSON
    assert requests.get(base + "/metrics", timeout=5).status_code == 404
