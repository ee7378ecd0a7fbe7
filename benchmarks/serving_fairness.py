"""Benchmark: deckcheck served straight by gunicorn (no proxy) under a soak, slow readers and keep-alive load.

Issue 27's "done when": a soak plus slow-reader and keep-alive runs straight to gunicorn show 0 5xx, no probe
over 1 s, and no worker answering more than 60% of keep-alive traffic with 3 workers. One run does all three:

* **keep-alive soak**: wrk keeps ``--connections`` connections open for ``--seconds`` and POSTs the 60-card
  list to ``/api/v1/validate`` on them (user agent ``bench-keepalive``); the access log says which worker
  answered each request, so the share of each worker is counted;
* **slow readers**: for ``--slow-seconds`` in the middle of the soak, ``--slow-readers`` clients each pipeline
  ``--pipeline`` ``POST /extras`` requests of 1,000 lines of ``1 a`` (the largest answer the page's endpoint
  gives) and never read; a client the server closes connects again and does the same (user agent
  ``bench-slow``);
* **probes**: every 0.5 s a new connection asks ``/healthz`` and another POSTs the list to
  ``/api/v1/validate``; each answer's status and time are recorded (timeout 10 s).

It prints the figures and the machine's load average (other work on a shared machine shows in the
latencies), and exits 1 when a goal is missed.

    python benchmarks/serving_fairness.py [--seconds 180] [--workers 3] [--connections 8]
                                           [--slow-readers 8] [--pipeline 4] [--slow-seconds 45] [--source DIR]

Everything binds 127.0.0.1 on a free port; every loop is bounded by ``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
DECK = (ROOT / "tests" / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
GOAL_PROBE_SECONDS = 1.0
GOAL_MAX_SHARE = 0.60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(workers: int, folder: Path, source: Path) -> tuple[subprocess.Popen, int]:
    """gunicorn with the settings and worker of the checkout at ``source`` on a free loopback port."""
    port = free_port()
    env = {**os.environ, "DECKCHECK_RATELIMIT_ENABLED": "false", "DECKCHECK_DRAIN_SECONDS": "0"}
    if source != ROOT:  # that checkout's deckcheck, not the installed one
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
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
        "deckcheck:create_app()",
    ]
    with (folder / "access.log").open("wb") as out, (folder / "error.log").open("wb") as err:
        proc = subprocess.Popen(cmd, cwd=source, env=env, stdout=out, stderr=err)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited {proc.returncode}: {(folder / 'error.log').read_text()[-2000:]}")
        try:
            requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            break
        except requests.RequestException:
            time.sleep(0.2)
    time.sleep(2)  # every worker opens its socket as it starts
    return proc, port


def wrk_script(folder: Path) -> Path:
    body = folder / "body.json"
    body.write_text(json.dumps({"decklist": DECK, "as_of": "2026-05-01"}), encoding="utf-8")
    script = folder / "post.lua"
    script.write_text(
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        'wrk.headers["User-Agent"] = "bench-keepalive"\n'
        f'local f = assert(io.open({json.dumps(str(body))}, "rb"))\n'
        'wrk.body = f:read("*a")\n'
        "f:close()\n",
        encoding="utf-8",
    )
    return script


class Probes(threading.Thread):
    """A probe pair every 0.5 s until ``stop``: (seconds since start, path, status or 0, seconds taken)."""

    def __init__(self, base: str, started: float):
        super().__init__(daemon=True)
        self.base, self.started, self.stop, self.results = base, started, threading.Event(), []

    def run(self) -> None:
        headers = {"User-Agent": "bench-probe"}
        while not self.stop.is_set():
            for method, path, kwargs in (
                ("GET", "/healthz", {}),
                (
                    "POST",
                    "/api/v1/validate",
                    {"data": DECK.encode(), "headers": {**headers, "Content-Type": "text/plain"}},
                ),
            ):
                at = time.monotonic()
                try:
                    with requests.Session() as fresh:
                        status = fresh.request(method, self.base + path, timeout=10, **kwargs).status_code
                except requests.RequestException:
                    status = 0
                self.results.append((at - self.started, path, status, time.monotonic() - at))
            self.stop.wait(0.5)


_ESTABLISHED = 1


def _tcp_state(sock: socket.socket) -> int:
    """The connection's TCP state (Linux ``tcp_info.tcpi_state``); 0 when the socket cannot say."""
    try:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
    except OSError:
        return 0


class SlowReaders(threading.Thread):
    """``n`` clients pipelining ``pipeline`` big requests each and never reading, from ``start`` for ``seconds``."""

    def __init__(self, port: int, n: int, pipeline: int, start: float, seconds: float):
        super().__init__(daemon=True)
        self.port, self.n, self.pipeline, self.start_at, self.seconds = port, n, pipeline, start, seconds
        self.connections = 0
        body = json.dumps({"decklist": "1 a\n" * 1000}).encode()
        one = (
            b"POST /extras HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench-slow\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        self.payload = one * pipeline

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(self.payload)
        except OSError:
            return None
        self.connections += 1
        return sock

    def run(self) -> None:
        time.sleep(max(0.0, self.start_at - time.monotonic()))
        end = time.monotonic() + self.seconds
        socks = [self._open() for _ in range(self.n)]
        while time.monotonic() < end:
            for i, sock in enumerate(socks):
                # the server gave up on it (closed: the connection left ESTABLISHED): the client comes back for more
                if sock is None or _tcp_state(sock) != _ESTABLISHED:
                    if sock is not None:
                        sock.close()
                    socks[i] = self._open()
            time.sleep(0.5)
        for sock in socks:
            if sock is not None:
                sock.close()


def wrk_figures(out: str) -> dict:
    found = re.search(r"(\d+) requests in", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "requests": int(found.group(1)) if found else 0,
        "socket_errors": errors.group(0) if errors else "none",
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--slow-readers", type=int, default=8)
    parser.add_argument("--pipeline", type=int, default=4)
    parser.add_argument("--slow-seconds", type=int, default=45)
    parser.add_argument(
        "--source", type=Path, default=ROOT, help="a checkout of deckcheck to serve (an earlier one, to compare)"
    )
    args = parser.parse_args()
    wrk = shutil.which("wrk")
    if not wrk:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="deckcheck-fairness-") as tmp:
        folder = Path(tmp)
        proc, port = start(args.workers, folder, args.source.resolve())
        base = f"http://127.0.0.1:{port}"
        try:
            started = time.monotonic()
            probes = Probes(base, started)
            slow_start = started + max(0, (args.seconds - args.slow_seconds) / 2)
            slow = SlowReaders(port, args.slow_readers, args.pipeline, slow_start, args.slow_seconds)
            load = subprocess.Popen(
                [
                    wrk,
                    "-t",
                    "1",
                    "-c",
                    str(args.connections),
                    "-d",
                    f"{args.seconds}s",
                    "--timeout",
                    "10s",
                    "-s",
                    str(wrk_script(folder)),
                    base + "/api/v1/validate",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            probes.start()
            slow.start()
            out, _ = load.communicate(timeout=args.seconds + 60)
            probes.stop.set()
            probes.join(timeout=30)
            slow.join(timeout=args.slow_seconds + 30)
            load_after = os.getloadavg()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
        access = []
        for line in (folder / "access.log").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("{") and '"gunicorn.access"' in line:
                access.append(json.loads(line))
    keepalive = Counter(a["pid"] for a in access if a.get("user_agent") == "bench-keepalive")
    total_keepalive = sum(keepalive.values())
    shares = sorted((n / total_keepalive for n in keepalive.values()), reverse=True) if total_keepalive else [1.0]
    statuses = Counter(a["status"] for a in access)
    five_xx = sum(n for status, n in statuses.items() if int(status) >= 500)
    slow_answers = sum(1 for a in access if a.get("user_agent") == "bench-slow")
    times = [r[3] for r in probes.results]
    failed = [r for r in probes.results if r[2] != 200]
    during = [r[3] for r in probes.results if slow_start - started <= r[0] <= slow_start - started + args.slow_seconds]
    figures = {
        "workers": args.workers,
        "seconds": args.seconds,
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "wrk": {"connections": args.connections, **wrk_figures(out)},
        "access_log": {"requests": len(access), "5xx": five_xx, "statuses": dict(sorted(statuses.items()))},
        "keepalive_share_per_worker": [round(s, 3) for s in shares],
        "probes": {
            "count": len(probes.results),
            "not_200": len(failed),
            "max_s": round(max(times), 3) if times else None,
            "p50_s": round(statistics.median(times), 4) if times else None,
            "p99_s": round(sorted(times)[int(len(times) * 0.99) - 1], 3) if times else None,
            "max_during_slow_readers_s": round(max(during), 3) if during else None,
        },
        "slow_readers": {
            "clients": args.slow_readers,
            "pipelined": args.pipeline,
            "seconds": args.slow_seconds,
            "connections_made": slow.connections,
            "answers_logged": slow_answers,
        },
    }
    print(json.dumps(figures, indent=2))
    goals = {
        "0 5xx": five_xx == 0 and figures["wrk"]["non_2xx"] == 0,
        f"no probe over {GOAL_PROBE_SECONDS:g} s": bool(times) and max(times) <= GOAL_PROBE_SECONDS and not failed,
        f"no worker over {GOAL_MAX_SHARE:.0%} of keep-alive traffic": len(keepalive) == args.workers
        and shares[0] <= GOAL_MAX_SHARE,
    }
    for goal, met in goals.items():
        print(f"{'met ' if met else 'MISSED'}  {goal}")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
