"""Benchmark: the worst decklists within the 64 KiB / 1,000-line limits against a normal list.

Times ``deckcheck.check()`` in-process on each hostile input and on the baseline (the
60-card ``standard-legal-dragapult.txt``) in the same run, alternating baseline and input
so machine noise hits both, and reports medians. Every run starts cold: the name, parse,
resolution, suggestion and line memos are cleared first (a flood of unique input never hits
them). Not a timed test: run it by hand.

    python benchmarks/hostile.py [--runs 15] [--only spaces,parens]

The goal (issue 13): every input "well under a second", i.e. linear in its size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import deckcheck  # noqa: E402
from deckcheck import cards, names
from deckcheck.decklist import lineread, parse  # noqa: E402
from deckcheck.engine import memos as engine_memos  # noqa: E402

LIMIT = parse.MAX_DECKLIST_BYTES
ON = "2026-05-01"


def _fit(text: str) -> str:
    return text.encode("utf-8")[:LIMIT].decode("utf-8", errors="ignore")


def inputs() -> dict[str, str]:
    """The issue's reproductions, at the byte limit."""
    return {
        "1 A + 65,530 spaces + B": _fit("1 A" + " " * LIMIT + "B"),
        "1 A + 65,530 tabs + B": _fit("1 A" + "\t" * LIMIT + "B"),
        "1 A + 32,765 NBSP + B": _fit("1 A" + "\u00a0" * LIMIT + "B"),
        "1 A + 21,843 U+3000 + B": _fit("1 A" + "\u3000" * LIMIT + "B"),
        "1 A + (x) x 21,844": _fit("1 A" + "(x)" * LIMIT),
        "1 A + ( x 65,533": _fit("1 A" + "(" * LIMIT),
        "1 A + ' -' x 32,765 + EX": _fit("1 A" + " -" * (LIMIT // 2 - 4) + "EX"),
        "1 A + combining marks": _fit("1 A" + "\u0301" * LIMIT),
        "1 A + ' δ' x 21,844": _fit("1 A" + " δ" * LIMIT),
        "1 A + symbols ◇☆♀♂": _fit("1 A" + "◇☆♀♂" * LIMIT),
        "1,000 unique long names": "\n".join(f"1 Unique Name {i:04d} " + "y" * 45 for i in range(1000)),
        "1,000 distinct unknown names": "\n".join(f"1 Nest Bal{i:04d} Zq" for i in range(1000)),
        "1,000 lines of (x) x 20": "\n".join("1 A" + "(x)" * 20 for _ in range(1000)),
    }


def _clear(db) -> None:
    db.clear_memo()
    names._name_key_memo.clear()
    names._basic_energy_type.clear()
    lineread.read_line.clear()
    engine_memos.forget_lines()


def _once(db, text: str) -> float:
    _clear(db)
    start = time.perf_counter()
    deckcheck.check(text, "standard", ON, db=db)
    return time.perf_counter() - start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--only", default="", help="comma-separated words; run the inputs whose label has one")
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    db = cards.get_db()
    normal = (ROOT / "tests" / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
    deckcheck.check(normal, "standard", ON, db=db)  # load the formats and legality tables
    names.fold("é")  # and the combining-mark table
    chosen = {
        k: v
        for k, v in inputs().items()
        if not args.only or any(w.strip() and w.strip() in k for w in args.only.split(","))
    }
    print(f"{args.runs} cold runs each, alternating with the baseline; medians; standard on {ON}")
    print(f"{'input':34} {'bytes':>7} {'lines':>6} {'median':>10} {'baseline':>10} {'ratio':>7} {'per KiB':>9}")
    for label, text in chosen.items():
        size = len(text.encode())
        assert size <= LIMIT and text.count("\n") < parse.MAX_DECKLIST_LINES, label
        base, hostile = [], []
        for _ in range(args.runs):
            base.append(_once(db, normal))
            hostile.append(_once(db, text))
        b, h = statistics.median(base), statistics.median(hostile)
        print(
            f"{label:34} {size:7d} {text.count(chr(10)) + 1:6d} {h * 1e3:8.1f}ms {b * 1e3:8.2f}ms "
            f"{h / b:6.0f}x {h * 1e3 / (size / 1024):7.2f}ms"
        )
    print(f"baseline: {Path('tests/decks/standard-legal-dragapult.txt')} ({len(normal.encode())} bytes), cold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
