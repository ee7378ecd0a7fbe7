"""``deckcheck serve``: the real command, a real gunicorn on a free loopback port, real HTTP."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import requests
from conftest import free_port, wait_for_healthz

ROOT = Path(__file__).resolve().parent.parent.parent
LEGAL = (Path(__file__).resolve().parent.parent / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")


def deckcheck(*args: str, env: dict | None = None, **kwargs) -> subprocess.Popen:
    """``python -m deckcheck ARGS`` from outside the checkout (serve must find the package's own settings)."""
    env = {**os.environ, "DECKCHECK_DRAIN_SECONDS": "0", **(env or {})}  # stopping takes no extra seconds
    return subprocess.Popen(
        [sys.executable, "-m", "deckcheck", *args],
        cwd=kwargs.pop("cwd", "/"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def wait_until_up(proc: subprocess.Popen, base: str) -> None:
    try:
        wait_for_healthz(proc, base, 60)
    except RuntimeError as exc:
        raise AssertionError(f"deckcheck serve: {exc}") from None


def stop(proc: subprocess.Popen) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def serve_on_free_port(workers: int, env: dict | None = None) -> tuple[subprocess.Popen, int, str]:
    """``deckcheck serve --workers N`` bound to a free loopback port (from the environment), once it
    answers ``/healthz``: (process, port, base URL). The caller stops it (:func:`stop`)."""
    port = free_port()
    proc = deckcheck("serve", "--workers", str(workers), env={"DECKCHECK_BIND": f"127.0.0.1:{port}", **(env or {})})
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base)
    except AssertionError:
        proc.kill()
        raise
    return proc, port, base


@pytest.fixture(scope="module")
def served():
    """One ``deckcheck serve`` (bind from the environment, two workers), and what it logged once stopped."""
    proc, _port, base = serve_on_free_port(2)
    logs: dict = {}
    yield base, proc, logs
    logs["rc"], logs["stdout"], logs["stderr"] = stop(proc)


@pytest.mark.slow
def test_serve_answers_probes_and_validates(served, db):
    base, _proc, _logs = served
    assert requests.get(base + "/healthz", timeout=10).json()["status"] == "ok"
    ready = requests.get(base + "/readyz", timeout=10)
    assert (ready.status_code, ready.json()["database"]["version"]) == (200, db.info()["version"])
    answer = requests.post(base + "/api/v1/validate", json={"decklist": LEGAL, "as_of": "2026-05-01"}, timeout=10)
    assert (answer.status_code, answer.json()["valid"]) == (200, True)


@pytest.mark.parametrize(
    ("request_line", "headers", "status", "code"),
    [
        ("GET /?d=" + "a" * 9000 + " HTTP/1.1", "", 414, "uri_too_long"),
        ("GET / HTTP/1.1", "X-Big: " + "b" * 9000 + "\r\n", 431, "request_header_fields_too_large"),
        ("GET / HTTP/9.9", "", 400, "bad_request"),
    ],
)
def test_requests_gunicorn_refuses_itself_are_answered_in_the_error_envelope(
    served, request_line, headers, status, code
):
    """A request line or header over gunicorn's limits never reaches the app: gunicorn answers it,
    and the worker writes that answer as the API's JSON envelope, not gunicorn's HTML page."""
    import socket

    base, _proc, _logs = served
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"{request_line}\r\nHost: {host}\r\n{headers}\r\n".encode("latin-1"))
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].split(" ")[1] == str(status)
    assert "Content-Type: application/json" in lines
    error = json.loads(body)["error"]
    assert error["code"] == code and error["message"] and error["details"] == {}


def test_serve_becomes_gunicorn_in_the_same_process(served):
    _base, proc, _logs = served
    cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
    assert cmdline[1:5] == [b"-P", b"-m", b"deckcheck.service.serve", b"--config"]
    assert cmdline[cmdline.index(b"--config") + 1] == b"python:deckcheck.service.gunicorn_conf"


@pytest.mark.server
def test_serve_logs_access_to_stdout_and_stops_gracefully(served):
    base, proc, logs = served
    requests.get(base + "/api/v1/formats", timeout=10)
    rc, out, err = stop(proc)
    logs.update(rc=rc, stdout=out, stderr=err)
    assert rc == 0
    access = [json.loads(line) for line in out.splitlines() if '"gunicorn.access"' in line]
    assert [(a["method"], a["path"], a["status"]) for a in access if a["path"] == "/api/v1/formats"] == [
        ("GET", "/api/v1/formats", 200)
    ]
    # the database is loaded once, in the master, before the two workers fork
    loaded = [line for line in err.splitlines() if "loaded in the master" in line]
    assert len(loaded) == 1 and "2 workers will share it" in loaded[0]
    # and frozen there (gc.freeze): the workers' collector never walks the shared objects nor writes to their pages
    frozen = re.search(r"(\d+) objects frozen", loaded[0])
    assert frozen is not None and int(frozen.group(1)) > 10_000, loaded[0]
    assert err.index("loaded in the master") < err.index("Booting worker")
    assert "Shutting down: Master" in err


@pytest.mark.server
@pytest.mark.parametrize("decoy", ["a checkout's parent", "another deckcheck package"])
def test_serve_from_a_folder_holding_a_deckcheck_folder_serves_the_installed_package(tmp_path, decoy):
    """gunicorn puts its working directory first on sys.path: a ``deckcheck/`` there must not shadow the package."""
    folder = tmp_path / "deckcheck"
    (folder / "deckcheck").mkdir(parents=True)  # a checkout: deckcheck/deckcheck/__init__.py
    (folder / "pyproject.toml").write_text("[project]\nname = 'deckcheck'\n")
    if decoy == "another deckcheck package":
        (folder / "__init__.py").write_text("raise ImportError('the decoy deckcheck was imported')\n")
        (folder / "service").mkdir()
        (folder / "service" / "__init__.py").write_text("raise ImportError('the decoy service was imported')\n")
        (folder / "service" / "gunicorn_conf.py").write_text("raise ImportError('the decoy settings were imported')\n")
    port = free_port()
    # -P: as the console script does, keep the working directory off the CLI's own sys.path
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "deckcheck", "serve", "--workers", "1"],
        cwd=tmp_path,
        env={**os.environ, "DECKCHECK_BIND": f"127.0.0.1:{port}", "DECKCHECK_DRAIN_SECONDS": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base)
        assert requests.get(base + "/readyz", timeout=10).status_code == 200
    finally:
        rc, _out, err = stop(proc)
    assert rc == 0, err
    assert "decoy" not in err


@pytest.mark.slow
def test_serve_without_a_database_exits_3_with_one_line(tmp_path):
    missing = tmp_path / "cards.json.gz"
    proc = deckcheck("serve", env={"DECKCHECK_DB": str(missing), "DECKCHECK_BIND": f"127.0.0.1:{free_port()}"})
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (
        3,
        f"Error: card database not found at {missing} (build it with 'deckcheck db build')\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "Error: Invalid value for '--workers': 0 is not in the range x>=1."),
        (
            ["--config", "/nonexistent.conf.py"],
            "Error: Invalid value for '--config': File '/nonexistent.conf.py' does not exist.",
        ),
    ],
)
@pytest.mark.slow
def test_serve_usage_errors_exit_2(args, message):
    proc = deckcheck("serve", *args)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.splitlines()[-1] == message


@pytest.mark.server
def test_serve_dry_run_prints_the_gunicorn_command(db):
    proc = deckcheck("serve", "--dry-run", "--bind", "127.0.0.1:9", "--workers", "3")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert err == (
        f"deckcheck: card database {db.info()['version']} ({db.info()['cards']} cards); -P -m deckcheck.service.serve "
        "--config python:deckcheck.service.gunicorn_conf --bind 127.0.0.1:9 --workers 3\n"
    )


def _settings(monkeypatch, **env) -> dict:
    """The module-level settings gunicorn reads from deckcheck/service/gunicorn_conf.py, under ``env``."""
    import runpy

    for name in ("DECKCHECK_WORKERS", "DECKCHECK_THREADS", "DECKCHECK_TIMEOUT", "DECKCHECK_BIND"):
        monkeypatch.delenv(name, raising=False)
    # the settings file makes a metrics directory unless given one (and sets the variable)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", os.path.join(tempfile.gettempdir(), "deckcheck-test-metrics"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "deckcheck" / "service" / "gunicorn_conf.py"))


def test_gunicorn_settings_default_to_one_thread_per_worker_and_a_worker_per_cpu_plus_one(monkeypatch):
    settings = _settings(monkeypatch)
    cpus = len(os.sched_getaffinity(0))
    assert (settings["worker_class"], settings["workers"], settings["threads"]) == (
        "deckcheck.service.worker.DeckcheckWorker",
        cpus + 1,
        1,
    )
    assert settings["preload_app"] is True and settings["bind"] == ["127.0.0.1:8000"]


def test_gunicorn_settings_follow_the_environment(monkeypatch):
    settings = _settings(
        monkeypatch,
        DECKCHECK_WORKERS="5",
        DECKCHECK_THREADS="4",
        DECKCHECK_TIMEOUT="9",
        DECKCHECK_BIND="0.0.0.0:8000,[::]:8000",
    )
    assert (settings["workers"], settings["threads"], settings["timeout"]) == (5, 4, 9)
    assert settings["bind"] == ["0.0.0.0:8000", "[::]:8000"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("two", "DECKCHECK_THREADS must be a whole number, not 'two'"),
        ("0", "DECKCHECK_THREADS must be at least 1, not 0"),
    ],
)
def test_gunicorn_settings_refuse_bad_numbers(monkeypatch, value, message):
    with pytest.raises(SystemExit, match=message):
        _settings(monkeypatch, DECKCHECK_THREADS=value)


def test_preflight_makes_a_metrics_folder_that_is_not_there_yet(tmp_path):
    """``PROMETHEUS_MULTIPROC_DIR`` naming a folder not made yet: the start-up check made the app's
    metrics in it and failed with a FileNotFoundError traceback."""
    folder = tmp_path / "metrics" / "not-yet"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    done = subprocess.run(
        [sys.executable, "-c", "from deckcheck.service.serve import preflight; print(preflight()['version'])"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert folder.is_dir() and done.stdout.strip()


def test_the_master_freezes_its_objects_after_the_warm_up_before_the_workers_fork(monkeypatch):
    """gunicorn_conf.when_ready (in the master, with the app and its database loaded, before any fork): the
    warm-up first, then ``gc.freeze()``, which moves every object the master made (the database, the warmed
    tables) to the collector's permanent generation: a worker's collections never walk them nor write to
    their pages. The log line says how many."""
    import gc
    import logging
    from types import SimpleNamespace

    from deckcheck import create_app
    from deckcheck.service import runtime, warmup

    settings = _settings(monkeypatch)
    app = create_app({"TESTING": True, "RATELIMIT_ENABLED": False})
    steps: list[str] = []
    real_warm_up, real_freeze = warmup.warm_up, gc.freeze
    monkeypatch.setattr(warmup, "warm_up", lambda app: steps.append("warm-up") or real_warm_up(app))
    monkeypatch.setattr(gc, "freeze", lambda: steps.append("freeze") or real_freeze())
    monkeypatch.setattr(runtime, "install_drain", lambda server, seconds: steps.append("drain"))
    monkeypatch.setattr(runtime, "MasterReloader", lambda server, interval: SimpleNamespace(start=lambda: None))
    logged: list[str] = []

    class Log(logging.Logger):
        def info(self, message, *args, **kwargs):
            logged.append(message % args)

    server = SimpleNamespace(
        app=SimpleNamespace(wsgi=lambda: app), cfg=SimpleNamespace(preload_app=True), log=Log("t"), num_workers=2
    )
    gc.unfreeze()
    try:
        settings["when_ready"](server)
        frozen = gc.get_freeze_count()
    finally:
        gc.unfreeze()
    assert steps == ["warm-up", "freeze", "drain"]
    assert frozen > 10_000  # the card database's objects, at least
    (line,) = [m for m in logged if "loaded in the master" in m]
    said = re.search(r", (\d+) objects frozen; 2 workers will share it", line)
    assert said is not None and abs(int(said.group(1)) - frozen) < 100, line  # a frozen object may be freed since
