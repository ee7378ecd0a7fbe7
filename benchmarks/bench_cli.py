"""Benchmark: ``deckcheck check`` over 1,000 decklist files in one run, start-up included.

Writes 1,000 list files (the example decks in ``tests/decks/``, varied by
count and order so no two are identical) into a temporary folder, then runs::

    deckcheck check DIR --as-of 2026-05-01 --output-format json > /dev/null

as a subprocess several times and reports the median wall time. Target: <= 3 s.

    python benchmarks/bench_cli.py [--files 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "tests" / "decks"
TARGET_SECONDS = 3.0


def write_decks(folder: Path, count: int, seed: int = 5) -> None:
    """``count`` list files built from the example decks: lines shuffled within the file, counts nudged."""
    rng = random.Random(seed)
    sources = [p.read_text(encoding="utf-8") for p in sorted(DECKS.glob("*.txt"))]
    for i in range(count):
        lines = sources[i % len(sources)].splitlines()
        if i >= len(sources):
            rng.shuffle(lines)
            lines = [_nudge(line, rng) for line in lines]
        sub = folder / f"group{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"deck{i:04d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _nudge(line: str, rng: random.Random) -> str:
    head, _, rest = line.partition(" ")
    if head.isdigit() and rest and rng.random() < 0.3:
        return f"{max(1, int(head) + rng.choice((-1, 1)))} {rest}"
    return line


def command(folder: Path) -> list[str]:
    exe = shutil.which("deckcheck")
    base = [exe] if exe else [sys.executable, "-m", "deckcheck"]
    return base + ["check", str(folder), "--as-of", "2026-05-01", "--output-format", "json"]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run; CPU time shows when a busy machine inflates the wall time."""
    cpu, start = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"deckcheck exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return elapsed, _child_cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
        folder = Path(tmp)
        write_decks(folder, args.files)
        cmd = command(folder)
        run_once(cmd)  # warm the page cache and .pyc files
        runs = [run_once(cmd) for _ in range(args.runs)]
    times = sorted(wall for wall, _ in runs)
    median = statistics.median(times)
    cpu = statistics.median(c for _, c in runs)
    print(
        f"deckcheck check: {args.files} files, {args.runs} runs, {os.cpu_count()} CPUs: "
        f"median wall {median:.2f} s (min {times[0]:.2f} s, max {times[-1]:.2f} s), median CPU {cpu:.2f} s; "
        f"target <= {TARGET_SECONDS:.1f} s wall"
    )
    print("command: " + " ".join(cmd[:-6] + ["check", "DIR", "--as-of", "2026-05-01", "--output-format", "json"]))
    return 0 if median <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
