"""A worker's private memory after mixed validate requests, one checkout beside another.

Starts gunicorn with each checkout's committed settings (preloaded app: the master loads the
card database before it forks) and one worker, sends ``--requests`` validate requests mixing
the decklists of ``tests/decks/`` (every shape and format the tests hold) with their card counts
and line order varied (lines a worker has not seen), then reads the worker's and the master's
``/proc/<pid>/smaps_rollup``: private (Private_Clean + Private_Dirty: what the worker does not
share with the master), PSS and RSS, in MiB. Checkouts take turns, ``--rounds`` times.

    python benchmarks/worker_memory.py [--requests 1000] [--rounds 2] [--source LABEL=DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.fleet_sizing import children, memory  # noqa: E402
from benchmarks.wrk_validate import BENCH_ENV, free_port  # noqa: E402

FORMATS = ("standard", "expanded", "unlimited")


def bodies(n: int, seed: int = 16) -> list[bytes]:
    """``n`` request bodies: the test decklists, counts moved and lines shuffled, in three formats."""
    rng = random.Random(seed)
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "decks").glob("*.txt"))]
    out = []
    for i in range(n):
        lines = texts[i % len(texts)].splitlines()
        varied = []
        for line in lines:
            head, _, rest = line.partition(" ")
            varied.append(f"{rng.randint(1, 4)} {rest}" if head.isdigit() and rest else line)
        rng.shuffle(varied)
        body = {"decklist": "\n".join(varied), "format": FORMATS[i % 3], "as_of": "2026-05-01"}
        out.append(json.dumps(body).encode())
    return out


def post(url: str, body: bytes) -> int:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as exc:
        exc.read()
        return exc.code


def run(label: str, root: Path, requests: list[bytes], log: Path) -> dict[str, float]:
    port = free_port()
    env = {**os.environ, **BENCH_ENV, "PYTHONPATH": str(root), "DECKCHECK_WORKERS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "gunicorn", "--config", "python:deckcheck.service.gunicorn_conf"]
    cmd += ["--bind", f"127.0.0.1:{port}", "deckcheck:create_app()"]
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}/api/v1/validate"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                post(url, requests[0])
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{label}: gunicorn did not start:\n{log.read_text()[-2000:]}") from None
                time.sleep(0.2)
        statuses = [post(url, body) for body in requests]
        (worker,) = children(proc.pid)
        mem, master = memory(worker), memory(proc.pid)
        return {
            "private": mem["private"],
            "pss": mem["pss"],
            "rss": mem["rss"],
            "master_rss": master["rss"],
            "ok": sum(s == 200 for s in statuses),
        }
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--source", action="append", default=[], help="LABEL=DIR: another checkout to run as well")
    args = parser.parse_args(argv)
    sources = [("this", ROOT)] + [(s.split("=", 1)[0], Path(s.split("=", 1)[1]).resolve()) for s in args.source]
    requests = bodies(args.requests)
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _ in sources}
    with tempfile.TemporaryDirectory(prefix="deckcheck-mem-") as tmp:
        for r in range(args.rounds):
            for label, root in sources if r % 2 == 0 else sources[::-1]:
                results[label].append(run(label, root, requests, Path(tmp) / f"{label}.log"))
    print(f"{args.requests} mixed validate requests, one worker, preloaded master; MiB, median of {args.rounds}")
    for label, runs in results.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        each = ", ".join(f"{r['private']:.1f}" for r in runs)
        print(
            f"{label:10s} worker private {med['private']:6.1f}  PSS {med['pss']:6.1f}  RSS {med['rss']:6.1f}"
            f"  master RSS {med['master_rss']:6.1f}  (200s: {med['ok']:.0f}; private per round:"
            f" {each})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
