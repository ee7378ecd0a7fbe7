"""Running as part of a fleet: worker count from the cgroup CPU quota, drain on SIGTERM, reloads that never
go back to an older database (deckcheck/service/runtime.py, deckcheck/service/gunicorn_conf.py,
deckcheck/service/worker/)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from conftest import free_port
from test_reload import NEST_BALL, ULTRA_BALL, _children, _start, _stop, _wait_for_version, write_broken, write_db
from test_serve import wait_until_up

from deckcheck.service import runtime


def _v2_tree(tmp_path: Path, cpu_max: dict[str, str]) -> Path:
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    for folder, value in cpu_max.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "cpu.max").write_text(value + "\n")
    return root


def test_cgroup_v2_quota_counts_and_the_tightest_ancestor_wins(tmp_path):
    root = _v2_tree(tmp_path, {".": "max 100000", "kubepods": "250000 100000", "kubepods/pod1": "max 100000"})
    assert runtime.cgroup_cpu_quota(root, "0::/kubepods/pod1\n") == 2.5
    assert runtime.cpu_count(root, "0::/kubepods/pod1\n") == min(3, len(os.sched_getaffinity(0)))


def test_a_one_cpu_limit_on_a_big_node_gives_one_cpu(tmp_path):
    root = _v2_tree(tmp_path, {"pod": "100000 100000"})
    assert runtime.cgroup_cpu_quota(root, "0::/pod\n") == 1.0
    assert runtime.cpu_count(root, "0::/pod\n") == 1


def test_no_quota_means_the_affinity_mask(tmp_path):
    root = _v2_tree(tmp_path, {"pod": "max 100000"})
    assert runtime.cgroup_cpu_quota(root, "0::/pod\n") is None
    assert runtime.cpu_count(root, "0::/pod\n") == len(os.sched_getaffinity(0))


def test_cgroup_v1_cfs_quota(tmp_path):
    base = tmp_path / "cgroup" / "cpu,cpuacct" / "docker" / "abc"
    base.mkdir(parents=True)
    (base / "cpu.cfs_quota_us").write_text("50000\n")
    (base / "cpu.cfs_period_us").write_text("100000\n")
    (base.parent / "cpu.cfs_quota_us").write_text("-1\n")
    (base.parent / "cpu.cfs_period_us").write_text("100000\n")
    cgroup = "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n"
    assert runtime.cgroup_cpu_quota(tmp_path / "cgroup", cgroup) == 0.5
    assert runtime.cpu_count(tmp_path / "cgroup", cgroup) == 1


def test_gunicorn_takes_its_worker_count_from_the_quota(monkeypatch):
    import runpy

    monkeypatch.setattr(runtime, "cgroup_cpu_quota", lambda *a, **k: 1.0)
    monkeypatch.delenv("DECKCHECK_WORKERS", raising=False)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", os.path.join("/tmp", "deckcheck-test-metrics"))
    settings = runpy.run_path(
        str(Path(__file__).resolve().parent.parent.parent / "deckcheck" / "service" / "gunicorn_conf.py")
    )
    assert settings["workers"] == 2  # one CPU, plus one


WRK = shutil.which("wrk")


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.skipif(WRK is None, reason="wrk (Debian package) is not installed")
def test_sigterm_drains_readyz_goes_503_and_no_accepted_request_fails(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DECKCHECK_BIND": f"127.0.0.1:{port}",
        "DECKCHECK_RATELIMIT_ENABLED": "false",
        "DECKCHECK_DRAIN_SECONDS": "3",
    }
    # the logs go to files: under load, an unread pipe would fill and stall the workers
    with open(tmp_path / "out.log", "w") as out_file, open(tmp_path / "err.log", "w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deckcheck", "serve", "--workers", "2"],
            cwd="/",
            env=env,
            stdout=out_file,
            stderr=err_file,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base)
    except AssertionError:
        proc.kill()
        raise
    load = subprocess.Popen(
        [WRK, "-t", "2", "-c", "16", "-d", "6s", "--timeout", "5s", base + "/api/v1/formats/standard"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        # the master takes the signal in its main loop: a probe sent in the same instant may still see 200
        deadline = time.monotonic() + 5
        while requests.get(base + "/readyz", timeout=5).status_code != 503:
            assert time.monotonic() < deadline, "/readyz did not go 503 within 5 s of SIGTERM"
            time.sleep(0.01)
        started = time.monotonic()
        ready, health = [], []
        while time.monotonic() - started < 1.5:
            with requests.Session() as fresh:
                ready.append(fresh.get(base + "/readyz", timeout=5).status_code)
                health.append(fresh.get(base + "/healthz", timeout=5).status_code)
            time.sleep(0.1)
        out, _ = load.communicate(timeout=60)
    finally:
        if load.poll() is None:
            load.kill()
        try:
            rc = proc.wait(timeout=60)  # the first SIGTERM stops it after the drain
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
    err = (tmp_path / "err.log").read_text()
    assert set(ready) == {503} and set(health) == {200}
    requests_done = int(re.search(r"(\d+) requests in", out).group(1))
    assert requests_done > 50, out
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    # no accepted request failed: no read error (a request sent and its connection closed unanswered), no
    # timeout, no error answer. Connections refused once the socket is closed were never accepted (wrk
    # counts each failed non-blocking connect as a connect or write error).
    assert errors is None or (errors.group(2), errors.group(4)) == ("0", "0"), out
    assert "Non-2xx" not in out, out
    assert rc == 0 and "draining for 3s" in err


@pytest.mark.slow
@pytest.mark.server
def test_a_master_reload_after_a_corrupt_file_keeps_the_last_good_database(tmp_path):
    path = tmp_path / "cards.json.gz"
    write_db(path, "2026-01-01T00:00:00Z")
    proc, base = _start({"DECKCHECK_DB": str(path), "DECKCHECK_DB_RELOAD_INTERVAL": "0.5"})
    try:
        first = _children(proc.pid)
        v2 = write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
        _wait_for_version(base, v2)  # the master loaded it and forked new workers
        deadline = time.monotonic() + 20
        while set(_children(proc.pid)) & set(first) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not set(_children(proc.pid)) & set(first)  # new workers, forked from the master
        write_broken(path)
        time.sleep(1.5)
        os.kill(proc.pid, signal.SIGHUP)  # new workers again, after a file that does not load
        time.sleep(3)
        versions = set()
        for _ in range(10):
            with requests.Session() as fresh:
                versions.add(fresh.get(base + "/readyz", timeout=5).json()["database"]["version"])
        assert versions == {v2}
    finally:
        _stop(proc)


def test_draining_is_shared_with_forked_processes():
    runtime.set_draining(False)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child waits for the parent's flag
        os.close(read)
        deadline = time.monotonic() + 5
        while not runtime.draining() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.write(write, b"1" if runtime.draining() else b"0")
        os._exit(0)
    os.close(write)
    try:
        runtime.set_draining(True)
        assert os.read(read, 1) == b"1"
    finally:
        runtime.set_draining(False)
        os.waitpid(pid, 0)
        os.close(read)


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("sent_first", [b"", b"GET /healthz HTTP/1.1\r\n"], ids=["nothing-yet", "half-a-head"])
def test_a_connection_whose_request_arrives_after_sigterm_is_answered_not_dropped(sent_first):
    """gthread closes, unanswered, a connection handed back to its poller once the worker stops; a
    client that connected (or sent part of its head) just before SIGTERM must still get its answer."""
    import socket

    proc, base = _start({})
    try:
        host, port = base.removeprefix("http://").split(":")
        client = socket.create_connection((host, int(port)), timeout=10)
        client.sendall(sent_first)
        # at once (DECKCHECK_DRAIN_SECONDS=0): the worker stops while a thread still waits (0.1 s) for the
        # request, and that thread hands the connection back to a poller that is closing
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        client.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"[len(sent_first) :])
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
        client.close()
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n"), answer
        assert b"\r\nConnection: close\r\n" in answer, answer
        assert proc.wait(timeout=30) == 0
    finally:
        _stop(proc)


def test_a_stopping_worker_ignores_a_readable_event_for_the_socket_it_closed():
    """The poller can report the listening socket readable just before SIGTERM's handler closes it: the
    accept that follows must not raise (that would end the worker and reset its connections)."""
    import socket

    from deckcheck.service.worker import DeckcheckWorker

    worker = object.__new__(DeckcheckWorker)
    closed = socket.socket()
    closed.close()
    worker.alive = False
    worker.accept(closed)  # ignored
    worker.alive = True
    with pytest.raises(OSError):
        worker.accept(closed)
