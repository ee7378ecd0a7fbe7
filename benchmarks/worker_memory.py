"""Benchmark: a gunicorn worker's private memory after mixed ``POST /api/v1/validate`` requests.

Starts deckcheck (``deckcheck:create_app()``) and the trivial Flask endpoint of ``wrk_validate.py``
under the committed ``deckcheck/service/gunicorn_conf.py`` with one worker each, sends
``--requests`` validate requests to both (every list in ``tests/decks`` in every format, with the
card counts varied so most lines are new to the worker), then reads each worker's
``/proc/<pid>/smaps_rollup``: private memory (``Private_Clean + Private_Dirty``: pages only that
process holds), RSS and PSS, and the same for the master. ``--source LABEL=DIR`` measures another
checkout too (e.g. main's tree from ``git archive``).

    python benchmarks/worker_memory.py [--requests 1000] [--apps trivial,validate] [--source LABEL=DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrk_validate  # noqa: E402  (the same server start and stop)

ROOT = wrk_validate.ROOT
FORMATS = ("standard", "expanded", "unlimited", "glc")


def bodies(count: int) -> list[bytes]:
    """``count`` request bodies: the test lists in every format, counts moved between lines."""
    rng = random.Random(16)
    decks = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "decks").glob("*.txt"))]
    out = []
    for i in range(count):
        lines = decks[i % len(decks)].splitlines()
        if i >= len(decks) * len(FORMATS):  # after one of each as it is: new line texts
            lines = [_vary(line, rng) for line in lines]
        out.append(json.dumps({"decklist": "\n".join(lines), "format": FORMATS[(i // len(decks)) % 4]}).encode())
    return out


def _vary(line: str, rng: random.Random) -> str:
    m = re.match(r"(\d+)( .*)", line)
    return f"{rng.randint(1, 4)}{m.group(2)}" if m else line


def _booted(log: Path, seconds: float = 60) -> None:
    """Wait for the worker to boot before the first request: a lone worker sent requests while it
    booted answered none of them in this session's runs (not investigated; see the report)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and "Booting worker" not in log.read_text(errors="replace"):
        time.sleep(0.2)
    time.sleep(1.0)


def rollup(pid: int) -> dict[str, int]:
    """kB figures of /proc/<pid>/smaps_rollup."""
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        out[name] = int(value.split()[0])
    return out


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def measure(label: str, root: Path, args: argparse.Namespace, folder: Path) -> dict:
    ns = argparse.Namespace(workers=1, worker_threads=None)
    sent = bodies(args.requests)
    result = {}
    for name, spec in wrk_validate.APPS.items():
        if name not in args.apps.split(","):
            continue
        log = folder / f"{label}-{name}.log"
        proc, base = wrk_validate.start(spec, ns, log, root)
        try:
            url = base + wrk_validate.PATH
            _booted(log)
            wrk_validate.wait_ready(proc, url, sent[0], log)
            errors = 0
            for body in sent:
                try:
                    wrk_validate.post(url, body)
                except urllib.error.HTTPError:
                    errors += 1
            (worker,) = children(proc.pid)
            w, m = rollup(worker), rollup(proc.pid)
            result[name] = {
                "private": w["Private_Clean"] + w["Private_Dirty"],
                "rss": w["Rss"],
                "pss": w["Pss"],
                "shared": w["Shared_Clean"] + w["Shared_Dirty"],
                "master_rss": m["Rss"],
                "errors": errors,
            }
        finally:
            wrk_validate.stop(proc)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--source", action="append", default=[], metavar="LABEL=DIR")
    parser.add_argument("--apps", default="trivial,validate", help="which apps to measure (comma-separated)")
    args = parser.parse_args(argv)
    sources = [("this", ROOT)] + [(s.split("=", 1)[0], Path(s.split("=", 1)[1]).resolve()) for s in args.source]
    print(f"{args.requests} mixed validate requests per app, 1 worker; kB from /proc/<pid>/smaps_rollup")
    print(f"{'checkout':<10} {'app':<9} {'private':>9} {'rss':>9} {'pss':>9} {'shared':>9} {'master rss':>11} errors")
    with tempfile.TemporaryDirectory(prefix="deckcheck-mem-") as tmp:
        for label, root in sources:
            for name, r in measure(label, root, args, Path(tmp)).items():
                print(
                    f"{label:<10} {name:<9} {r['private']:>9} {r['rss']:>9} {r['pss']:>9} {r['shared']:>9} "
                    f"{r['master_rss']:>11} {r['errors']}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
