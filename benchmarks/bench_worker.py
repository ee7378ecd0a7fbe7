"""Benchmark: the CPU one request costs in a gunicorn worker, in process, without wrk or scheduling noise.

A worker object of each contender (``deckcheck.service.worker.DeckcheckWorker`` and gunicorn's plain
``gthread``; any ``module:Class`` or ``path/to/file.py:Class``, e.g. an older copy of worker.py,
can be added) serves requests over a local socket pair, its ``handle()`` called directly on the
measuring thread, as a worker thread does: the request is written by the client side first, the
response read after. Each round runs ``--requests`` requests per contender, rounds alternate
contenders, and the script prints the median CPU time (``time.thread_time``) per request.

Two connection patterns: ``keepalive`` (one connection, every request after the first comes back
from the poller, as wrk's do) and ``close`` (a new connection per request, ``Connection: close``).
Apps: the trivial Flask endpoint of ``wrk_validate.py`` and deckcheck's ``POST /api/v1/validate``
with the same body; gunicorn settings from ``deckcheck/service/gunicorn_conf.py`` (its JSON access log
written to /dev/null, prometheus_client in multiprocess mode as under gunicorn).

``--source LABEL=DIR`` (repeatable) also runs every contender with another checkout's deckcheck (its
worker, app, metrics and logs; e.g. main's tree from ``git archive``): each round then runs each
checkout in a fresh process, one after the other, the order reversed every other round.

What it leaves out: the poller's side (epoll, the hand-off between threads and the GIL), which
``wrk_validate.py`` measures with the rest, noise and all.

    python benchmarks/bench_worker.py [--requests 2000] [--rounds 7] [--apps trivial,validate]
                                      [--patterns keepalive,close] [--workers gthread,deckcheck,...]
                                      [--source LABEL=DIR ...]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the checkout whose deckcheck is measured (--source runs this script again with another)
ROOT = Path(os.environ.get("BENCH_WORKER_ROOT") or HERE.parent)
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="deckcheck-bench-metrics-"))
os.environ["DECKCHECK_RATELIMIT_ENABLED"] = "false"

DECK = ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"
PATH = "/api/v1/validate"
WORKERS = {"gthread": "gunicorn.workers.gthread:ThreadWorker", "deckcheck": "deckcheck.service.worker:DeckcheckWorker"}


def load_class(spec: str):
    module_name, _, name = spec.rpartition(":")
    if module_name.endswith(".py"):
        path = Path(module_name)
        loaded = importlib.util.spec_from_file_location(f"bench_worker_{path.stem}_{abs(hash(path))}", path)
        module = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            if not module_name.startswith("deckcheck.service."):
                raise
            # a checkout from before the service modules moved into deckcheck/service/ (--source)
            module = importlib.import_module(module_name.replace("deckcheck.service.", "deckcheck.", 1))
    return getattr(module, name)


def gunicorn_config():
    """gunicorn's Config with the settings of deckcheck/service/gunicorn_conf.py, access log to /dev/null."""
    from gunicorn.config import Config

    try:
        from deckcheck.service import gunicorn_conf
    except ImportError:  # a checkout from before the move into deckcheck/service/ (--source)
        from deckcheck import gunicorn_conf

    cfg = Config()
    for name, value in vars(gunicorn_conf).items():
        if name in cfg.settings and not name.startswith("_"):
            cfg.set(name, value)
    cfg.set("accesslog", os.devnull)
    cfg.set("errorlog", os.devnull)
    return cfg


def make_worker(cls, cfg, app):
    log = cfg.logger_class(cfg)
    worker = cls(0, os.getppid(), [], None, 30, cfg, log)
    worker.wsgi = app
    worker.alive = True
    return worker


def request_bytes(body: bytes, close: bool) -> bytes:
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench_worker\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n"
    )
    return head.encode() + body


def read_response(client: socket.socket, buf: bytearray) -> None:
    """Read one response (head and Content-Length body) from the client side."""
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            head = bytes(buf[:end]).lower()
            length = int(head.split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
            if len(buf) >= end + 4 + length:
                status = bytes(buf[9:12])
                if status != b"200":
                    raise SystemExit(f"answer {status!r}: {bytes(buf[: end + 4 + length])[:400]!r}")
                del buf[: end + 4 + length]
                return
        chunk = client.recv(65536)
        if not chunk:
            raise SystemExit("the worker closed the connection")
        buf += chunk


def serve_keepalive(worker, cfg, payload: bytes, n: int) -> float:
    """CPU seconds per request over ``n`` requests on one kept-alive connection."""
    from gunicorn.workers.gthread import TConn

    server, client = socket.socketpair(socket.AF_UNIX)
    server.setblocking(True)
    conn = TConn(cfg, server, ("127.0.0.1", 50000), ("127.0.0.1", 8000))
    buf = bytearray()
    # the first request opens the connection: not counted
    client.sendall(payload)
    assert worker.handle(conn)
    read_response(client, buf)
    total = 0.0
    for _ in range(n):
        conn.sock.setblocking(False)  # back in the poller (finish_request)
        conn.set_timeout()
        client.sendall(payload)
        start = time.thread_time()
        keep = worker.handle(conn)
        total += time.thread_time() - start
        assert keep, "the worker did not keep the connection"
        read_response(client, buf)
    conn.close()
    client.close()
    return total / n


def serve_close(worker, cfg, payload: bytes, n: int) -> float:
    """CPU seconds per request, a new connection each (``Connection: close``)."""
    from gunicorn.workers.gthread import TConn

    total = 0.0
    for _ in range(n):
        server, client = socket.socketpair(socket.AF_UNIX)
        client.sendall(payload)
        start = time.thread_time()
        server.setblocking(True)  # what accept() does
        conn = TConn(cfg, server, ("127.0.0.1", 50000), ("127.0.0.1", 8000))
        keep = worker.handle(conn)
        conn.close()  # finish_request (not graceful: that one waits for the peer)
        total += time.thread_time() - start
        assert not keep
        read_response(client, bytearray())
        client.close()
    return total / n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per contender and round")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds; medians are reported")
    parser.add_argument("--apps", default="trivial,validate")
    parser.add_argument("--patterns", default="keepalive,close")
    parser.add_argument(
        "--workers",
        default="gthread,deckcheck",
        help="contenders: gthread, deckcheck, or module:Class / path/to/file.py:Class (name=spec to label one)",
    )
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="another checkout of deckcheck to measure as well (repeat for more); each round runs each in a new process",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.source:
        return compare_sources(args, argv if argv is not None else sys.argv[1:])

    body = json.dumps(
        {"decklist": DECK.read_text(encoding="utf-8"), "format": "standard", "as_of": "2026-05-01"}
    ).encode()
    cfg = gunicorn_config()
    apps = {}
    for name in args.apps.split(","):
        if name == "trivial":
            sys.path.insert(0, str(HERE))
            from trivial_app import app as trivial

            apps[name] = trivial
        elif name == "validate":
            from deckcheck import create_app

            apps[name] = create_app()
        else:
            raise SystemExit(f"unknown app {name!r}")
    contenders = {}
    for item in args.workers.split(","):
        label, _, spec = item.rpartition("=")
        spec = WORKERS.get(spec, spec)
        contenders[label or item] = load_class(spec)
    patterns = {"keepalive": serve_keepalive, "close": serve_close}
    results: dict[tuple, list[float]] = {}
    sink = io.StringIO()
    for round_no in range(args.rounds):
        for app_name, app in apps.items():
            for pattern in args.patterns.split(","):
                order = list(contenders) if round_no % 2 == 0 else list(reversed(contenders))
                for label in order:
                    worker = make_worker(contenders[label], cfg, app)
                    payload = request_bytes(body, close=pattern == "close")
                    stdout, sys.stdout = sys.stdout, sink
                    try:
                        per = patterns[pattern](worker, cfg, payload, args.requests)
                    finally:
                        sys.stdout = stdout
                    results.setdefault((app_name, pattern, label), []).append(per)
    if args.child:
        print(json.dumps([[*key, value] for key, value in results.items()]))
        return 0
    show(results, args)
    return 0


def show(results: dict[tuple, list[float]], args: argparse.Namespace) -> None:
    print(
        f"CPU per request (thread_time, median of {args.rounds} alternating rounds of {args.requests}); "
        f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}"
    )
    labels = list(dict.fromkeys(key[2] for key in results))
    first = labels[0]
    for app_name in args.apps.split(","):
        for pattern in args.patterns.split(","):
            base = statistics.median(results[(app_name, pattern, first)])
            for label in labels:
                runs = results[(app_name, pattern, label)]
                med = statistics.median(runs)
                print(
                    f"{app_name:<9} {pattern:<10} {label:<24} {med * 1e6:8.1f} µs  ({med / base:5.2f}x {first}; "
                    f"rounds {min(runs) * 1e6:.0f}-{max(runs) * 1e6:.0f})"
                )


def compare_sources(args: argparse.Namespace, argv: list[str]) -> int:
    """Each round: this checkout and every --source in a new process each (one round in each), alternating."""
    sources = [("this", HERE.parent)]
    for item in args.source:
        label, sep, folder = item.partition("=")
        if not sep or not label or not Path(folder, "deckcheck", "__init__.py").is_file():
            raise SystemExit(f"--source wants LABEL=DIR, DIR a checkout of deckcheck: {item!r}")
        sources.append((label, Path(folder).resolve()))
    child_args = []
    skip = False
    for arg in argv:  # the same options, one round, no --source
        if skip:
            skip = False
        elif arg in ("--source", "--rounds"):
            skip = True
        elif not arg.startswith(("--source=", "--rounds=")):
            child_args.append(arg)
    results: dict[tuple, list[float]] = {}
    for round_no in range(args.rounds):
        order = sources if round_no % 2 == 0 else list(reversed(sources))
        for label, root in order:
            env = {**os.environ, "BENCH_WORKER_ROOT": str(root)}
            env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), *child_args, "--rounds", "1", "--child"],
                env=env,
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            )
            for app_name, pattern, worker, values in json.loads(done.stdout.strip().splitlines()[-1]):
                results.setdefault((app_name, pattern, f"{label} {worker}"), []).extend(values)
    show(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
