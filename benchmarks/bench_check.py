"""Benchmark: one ``deckcheck.check()`` of a 60-card list, pinned to one core.

Reports the median time of a full check (text in, Report out) and of its stages:
parse, resolve (cards.py), and the engine's own part (legality, every rule,
report building) measured as ``check(parse_result)`` minus resolve. Not a timed
test: run it by hand.

    python benchmarks/bench_check.py [--deck tests/decks/standard-legal-dragapult.txt]
                                     [--format standard] [--as-of 2026-05-01] [--runs 5000]

Target for the full check: <= 150 µs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import deckcheck  # noqa: E402
from deckcheck import engine  # noqa: E402
from deckcheck.cards import get_db  # noqa: E402
from deckcheck.decklist.parse import parse  # noqa: E402

TARGET_US = 150.0


def median_us(fn, runs: int) -> float:
    """Median of ``runs`` single calls, in microseconds (after a warm-up)."""
    for _ in range(min(200, runs)):
        fn()
    return statistics.median(timeit.repeat(fn, number=1, repeat=runs)) * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default=str(ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"))
    ap.add_argument("--format", default="standard")
    ap.add_argument("--as-of", default="2026-05-01")
    ap.add_argument("--runs", type=int, default=5000)
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    text = Path(args.deck).read_text(encoding="utf-8")
    db = get_db()
    parsed = parse(text)
    report = deckcheck.check(parsed, args.format, args.as_of, db=db)
    print(
        f"deck: {Path(args.deck).name} ({report.counts.total} cards, {len(report.lines)} lines), "
        f"{args.format} on {args.as_of}: {'valid' if report.valid else 'not valid'}"
    )

    full = median_us(lambda: deckcheck.check(text, args.format, args.as_of), args.runs)
    t_parse = median_us(lambda: parse(text), args.runs)
    t_resolve = median_us(lambda: engine.resolve_lines(parsed, db), args.runs)
    t_engine = median_us(lambda: deckcheck.check(parsed, args.format, args.as_of, db=db), args.runs)
    t_dict = median_us(report.to_dict, args.runs)
    rows = [
        ("check(text) full", full),
        ("  parse(text)", t_parse),
        ("  resolve lines (cards.py)", t_resolve),
        ("  check(parse_result)", t_engine),
        ("  engine only: legality + rules + report", t_engine - t_resolve),
        ("report.to_dict() (not part of check)", t_dict),
    ]
    for label, us in rows:
        print(f"{label:44s} {us:8.1f} µs")
    print(f"target for the full check: <= {TARGET_US:.0f} µs ({'met' if full <= TARGET_US else 'not met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
