"""Benchmark (issue #2): parse + resolve of a 60-card list, and service start.

Not a timed test: run it by hand, on a machine as quiet as you can get, and
compare figures taken in the same run.

    python benchmarks/bench_core.py [--deck PATH ...] [--runs 5000] [--starts 15]
                                    [--format standard] [--as-of 2026-05-01]

For each deck (default: the two committed 60-card example lists) it reports the
median, over ``--runs`` single calls pinned to one core, of:

* ``parse + resolve``: ``resolve_lines(parse(text), db)``, the issue's figure;
* ``parse`` alone and ``resolve`` alone (on a parse result made beforehand);
* the same three "cold": before every call the per-line memos are emptied (the
  parser's line memo, the database's resolution memo and the basic-Energy name
  memo), so every line is parsed and resolved from scratch, as for a list of
  cards the process has never seen; the caches that loading the database fills
  with every card's name and number (``names.name_key``, ``cards.number_key``)
  stay warm, as they are in a running service;
* ``deckcheck.check(text)``, the whole check, for reference.

Service start: ``python -c "import deckcheck, deckcheck.cards as c; c.get_db()"``
in a fresh subprocess ``--starts`` times (inheriting the one-core affinity),
median wall time from spawn to exit (the figure checked against the target) and
to the end of that code (the child's clock, before the interpreter's teardown),
and peak resident memory (the child's own VmHWM, printed by lines appended after
that code; ``ru_maxrss`` from ``os.wait4`` where there is no /proc), next to a
bare ``python -c pass`` for the interpreter's own share.

Targets: parse + resolve <= 100 µs; start <= 0.5 s and <= 100 MB.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import deckcheck  # noqa: E402
from deckcheck import cards, engine, names  # noqa: E402
from deckcheck.decklist import parse as parse_mod
from deckcheck.decklist.parse import parse  # noqa: E402

DEFAULT_DECKS = [
    ROOT / "tests" / "decks" / "ptcgl-en-charizard.txt",
    ROOT / "tests" / "decks" / "standard-legal-dragapult.txt",
]
START_CODE = "import deckcheck, deckcheck.cards as c; c.get_db()"
#: appended to the child's code: when it was done (its clock, before the interpreter's own teardown)
#: and its peak RSS (a forked child's ``ru_maxrss`` would also count this process's memory)
REPORT = (
    "\nimport os, time\nprint(time.time())\nif os.path.exists('/proc/self/status'):\n"
    "    print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0])"
)
TARGET_CORE_US = 100.0
TARGET_START_S = 0.5
TARGET_START_MB = 100.0


def clear_line_caches(db) -> None:
    """Forget every per-line memo (those that exist in this version of the code)."""
    line_holder = sys.modules.get("deckcheck.decklist.lineread", parse_mod)  # read_line, once parse._classify
    for holder, attr in ((parse_mod, "_classify"), (line_holder, "read_line"), (names, "_basic_energy_type")):
        fn = getattr(holder, attr, None)
        clear = getattr(fn, "cache_clear", None) or getattr(fn, "clear", None)  # lru_cache or memo.Memoised
        if clear is not None:
            clear()
    clear = getattr(db, "clear_memo", None)
    if clear is not None:
        clear()


def median_us(fn, runs: int, before=None) -> float:
    """Median of ``runs`` single calls of ``fn`` in µs; ``before()`` runs untimed before each call."""
    for _ in range(min(200, runs)):
        if before:
            before()
        fn()
    clock = time.perf_counter_ns
    samples = []
    for _ in range(runs):
        if before:
            before()
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return statistics.median(samples) / 1000


def start_once(code: str) -> tuple[float, float, float]:
    """(seconds to exit, seconds to the end of ``code``, peak RSS in MB) of one fresh interpreter.

    Wall time runs from just before the spawn to the exit (reaped with ``os.wait4``); the
    second figure stops where ``code`` ends (the child's ``time.time()``), without the
    interpreter's teardown. The peak is the child's VmHWM, read by the child itself at its
    end; where there is no /proc it falls back to ``ru_maxrss`` from ``os.wait4``, which on
    Linux also counts the memory of this (forked) process and so overstates.
    """
    t0, wall0 = time.perf_counter(), time.time()
    proc = subprocess.Popen([sys.executable, "-c", code + REPORT], cwd=ROOT, stdout=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().split()
    proc.stdout.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or not out:
        raise SystemExit(f"start-up command failed ({proc.returncode}): {code}")
    kib = int(out[1]) if len(out) > 1 else usage.ru_maxrss  # both in KiB on Linux
    return wall, float(out[0]) - wall0, kib / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", action="append", type=Path, help="a decklist file (repeatable)")
    ap.add_argument("--runs", type=int, default=5000)
    ap.add_argument("--starts", type=int, default=15)
    ap.add_argument("--format", default="standard")
    ap.add_argument("--as-of", default="2026-05-01")
    args = ap.parse_args(argv)
    decks = args.deck or DEFAULT_DECKS
    pinned = "no"
    if hasattr(os, "sched_setaffinity"):
        core = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {core})
        pinned = f"core {core}"
    db = cards.get_db()

    print(f"python {sys.version.split()[0]}, pinned to one core: {pinned}, {args.runs} runs per figure (median)")
    print(f"database {db.version}: {len(db.cards)} cards, {len(db.sets)} sets")
    rows: list[tuple[str, str, float | None]] = []
    for deck in decks:
        text = Path(deck).read_text(encoding="utf-8")
        parsed = parse(text)
        copies = sum(c.count for c in parsed.cards)
        label = f"{Path(deck).name} ({copies} cards, {len(parsed.cards)} card lines)"
        cold = lambda: clear_line_caches(db)  # noqa: E731
        both = lambda: engine.resolve_lines(parse(text), db)  # noqa: E731
        rows += [
            (label, "parse + resolve", median_us(both, args.runs)),
            (label, "  parse", median_us(lambda: parse(text), args.runs)),
            (label, "  resolve", median_us(lambda: engine.resolve_lines(parsed, db), args.runs)),
            (label, "parse + resolve, cold", median_us(both, args.runs, cold)),
            (label, "  parse, cold", median_us(lambda: parse(text), args.runs, cold)),
            (label, "  resolve, cold", median_us(lambda: engine.resolve_lines(parsed, db), args.runs, cold)),
            (
                label,
                f"check() {args.format} {args.as_of}",
                median_us(lambda: deckcheck.check(text, args.format, args.as_of), args.runs),
            ),
        ]
    current = None
    for label, what, us in rows:
        if label != current:
            print(f"\n{label}")
            current = label
        print(f"  {what:34s} {us:9.1f} µs")

    bare = [start_once("pass") for _ in range(max(3, args.starts // 3))]
    starts = [start_once(START_CODE) for _ in range(args.starts)]
    wall = statistics.median(w for w, _r, _m in starts)
    ready = statistics.median(r for _w, r, _m in starts)
    rss = statistics.median(m for _w, _r, m in starts)
    print(f"\nservice start, {args.starts} fresh processes: python -c {shlex.quote(START_CODE)}")
    print(f"  {'wall time to exit (median)':34s} {wall:9.3f} s   (min {min(w for w, _r, _m in starts):.3f} s)")
    print(f"  {'  to database loaded (median)':34s} {ready:9.3f} s   (min {min(r for _w, r, _m in starts):.3f} s)")
    print(f"  {'peak RSS (median)':34s} {rss:9.1f} MB  (max {max(m for _w, _r, m in starts):.1f} MB)")
    print(
        f"  {'bare python -c pass':34s} {statistics.median(w for w, _r, _m in bare):9.3f} s, "
        f"{statistics.median(m for _w, _r, m in bare):.1f} MB"
    )

    core = [us for _label, what, us in rows if what == "parse + resolve"]
    core_cold = [us for _label, what, us in rows if what == "parse + resolve, cold"]
    verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    print(
        f"\ntargets: parse + resolve <= {TARGET_CORE_US:.0f} µs: {verdict(max(core) <= TARGET_CORE_US)} "
        f"(cold: {verdict(max(core_cold) <= TARGET_CORE_US)}); "
        f"start <= {TARGET_START_S} s: {verdict(wall <= TARGET_START_S)}; "
        f"<= {TARGET_START_MB:.0f} MB: {verdict(rss <= TARGET_START_MB)}"
    )
    print("command: " + shlex.join(["python", os.path.relpath(__file__, Path.cwd()), *sys.argv[1:]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
