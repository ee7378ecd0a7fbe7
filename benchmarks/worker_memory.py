"""A worker's private memory after mixed validate requests, one checkout beside another.

Starts gunicorn with each checkout's committed settings (preloaded app: the master loads the
card database before it forks) and one worker, sends ``--requests`` validate requests mixing
the decklists of ``tests/decks/`` (every shape and format the tests hold) with their card counts
and line order varied (lines a worker has not seen), then reads the worker's and the master's
``/proc/<pid>/smaps_rollup``: private (Private_Clean + Private_Dirty: what the worker does not
share with the master), PSS and RSS, in MiB; and how much of the private memory is the master's
pages copied on write (the worker's pages at the master's writable addresses whose physical page is no
longer the master's, from ``/proc/<pid>/pagemap``; -1 where page frames cannot be read, without root).
The worker's private memory is also read right after its first request (before the mix), so the
growth the requests bring is visible. Checkouts take turns, ``--rounds`` times.

The trivial Flask app of ``wrk_validate.py`` (``benchmarks.trivial_app:app``, label ``trivial app``)
runs the same way under the same settings with the same requests: the framework's own per-worker
floor, beside deckcheck's.

    python benchmarks/worker_memory.py [--requests 1000] [--rounds 2] [--source LABEL=DIR ...]

From Python, :func:`run` answers the return code and each label's medians.
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
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.fleet_sizing import children, memory  # noqa: E402
from benchmarks.wrk_validate import BENCH_ENV, free_port  # noqa: E402

FORMATS = ("standard", "expanded", "unlimited")
DECKCHECK_APP = "deckcheck:create_app()"
TRIVIAL_APP = "benchmarks.trivial_app:app"  # wrk_validate.APPS["trivial"]
TRIVIAL = "trivial app"


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


def copied_pages(worker: int, master: int) -> float | None:
    """MiB of the master's writable memory the worker holds a copy of (copy-on-write): the worker's pages at
    addresses the master has mapped (anonymous and heap mappings, read and write) whose physical page is not
    the master's (``/proc/<pid>/pagemap``). None when the page frame numbers cannot be read (they need
    CAP_SYS_ADMIN: root)."""
    ranges = []
    for line in Path(f"/proc/{master}/maps").read_text().splitlines():
        parts = line.split()
        if parts[1].startswith("rw") and (len(parts) < 6 or parts[5] == "[heap]"):
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            ranges.append((lo, hi))
    frames = [_frames(pid, ranges) for pid in (worker, master)]
    if not any(frames[1].values()):
        return None
    copied = sum(1 for page, frame in frames[0].items() if frames[1].get(page, frame) != frame)
    return copied * os.sysconf("SC_PAGE_SIZE") / 2**20


def _frames(pid: int, ranges: list[tuple[int, int]]) -> dict[int, int]:
    """Page address -> physical frame number, for the present pages of ``ranges`` in process ``pid``."""
    size = os.sysconf("SC_PAGE_SIZE")
    out = {}
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        for lo, hi in ranges:
            f.seek(lo // size * 8)
            entries = array("Q", f.read((hi - lo) // size * 8))
            for i, entry in enumerate(entries):
                if entry >> 63:  # present
                    out[lo + i * size] = entry & ((1 << 55) - 1)
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


def measure(label: str, root: Path, requests: list[bytes], log: Path, app: str = DECKCHECK_APP) -> dict[str, float]:
    """One gunicorn with one worker serving ``app`` from the checkout at ``root``: the worker's memory
    after its first request (``first_private``) and after ``requests`` (MiB), the master's RSS, the 200s."""
    port = free_port()
    env = {**os.environ, **BENCH_ENV, "PYTHONPATH": str(root), "DECKCHECK_WORKERS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "gunicorn", "--config", "python:deckcheck.service.gunicorn_conf"]
    cmd += ["--bind", f"127.0.0.1:{port}", app]
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
        (worker,) = children(proc.pid)
        first = memory(worker)
        first_copied = copied_pages(worker, proc.pid)
        statuses = [post(url, body) for body in requests]
        mem, master = memory(worker), memory(proc.pid)
        copied = copied_pages(worker, proc.pid)
        return {
            "first_copied": -1.0 if first_copied is None else first_copied,
            "copied": -1.0 if copied is None else copied,
            "first_private": first["private"],
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


def run(argv: list[str] | None = None) -> tuple[int, dict[str, dict[str, float]]]:
    """The benchmark as :func:`main` runs it (same output); answers (return code, {label: the medians
    over the rounds of ``first_private``, ``private``, ``pss``, ``rss``, ``master_rss``, ``ok``}), labels
    ``this``, each ``--source``'s and ``trivial app``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--source", action="append", default=[], help="LABEL=DIR: another checkout to run as well")
    args = parser.parse_args(argv)
    sources = [("this", ROOT, DECKCHECK_APP)]
    sources += [(s.split("=", 1)[0], Path(s.split("=", 1)[1]).resolve(), DECKCHECK_APP) for s in args.source]
    sources.append((TRIVIAL, ROOT, TRIVIAL_APP))
    requests = bodies(args.requests)
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in sources}
    with tempfile.TemporaryDirectory(prefix="deckcheck-mem-") as tmp:
        for r in range(args.rounds):
            for label, root, app in sources if r % 2 == 0 else sources[::-1]:
                log = Path(tmp) / f"{label}.log".replace(" ", "_")
                results[label].append(measure(label, root, requests, log, app))
    print(f"{args.requests} mixed validate requests, one worker, preloaded master; MiB, median of {args.rounds}")
    medians = {}
    for label, runs in results.items():
        med = medians[label] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        each = ", ".join(f"{r['private']:.1f}" for r in runs)
        print(
            f"{label:11s} worker private {med['private']:6.1f} (after the 1st request {med['first_private']:5.1f})"
            f"  PSS {med['pss']:6.1f}  RSS {med['rss']:6.1f}  master RSS {med['master_rss']:6.1f}"
            f"  copied from the master {med['copied']:5.1f} (after the 1st {med['first_copied']:4.1f})"
            f"  (200s: {med['ok']:.0f}; private per round: {each})"
        )
    failed = {label: med["ok"] for label, med in medians.items() if med["ok"] < args.requests}
    if failed:
        print(f"INVALID RUN: fewer than {args.requests} answers 200 {failed}; the figures above do not count")
        return 1, medians
    return 0, medians


def main(argv: list[str] | None = None) -> int:
    return run(argv)[0]


if __name__ == "__main__":
    raise SystemExit(main())
