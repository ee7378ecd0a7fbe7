"""Warm and cold ``check()`` as ratios to the floor, for one checkout: run it under each checkout in
turn to compare two trees on the same machine state (issue #16).

    for tree in /path/to/old /path/to/new; do PYTHONPATH=$tree python benchmarks/ab_floor.py $tree 30; done

Uses that checkout's own ``benchmarks/bench_floor.py`` (its lists, floor, variants and
``clear_line_caches``): each round checks the eight lists warm (with the floor beside each), then a
new variant of each cold (every per-line memo emptied first), then warms them again; CPU time of this
thread, medians of the rounds.
"""

from __future__ import annotations

import random
import statistics
import sys
import time


def main(argv: list[str]) -> int:
    tree, rounds = argv[0], int(argv[1]) if len(argv) > 1 else 30
    sys.path.insert(0, tree + "/benchmarks")
    import bench_floor as bf  # noqa: PLC0415  (the checkout's own, from its folder)

    import deckcheck
    from deckcheck import cards

    texts = [(p.read_text(encoding="utf-8"), f) for p, f in bf.LISTS]
    db = cards.get_db()
    table = bf.floor_table(texts)
    for t, f in texts:
        deckcheck.check(t, f, bf.AS_OF)
    rng = random.Random(5)
    clock = time.thread_time_ns
    warm, cold, floor = [], [], []
    for _ in range(rounds):
        w = c = fl = 0
        for t, f in texts:
            a = clock()
            deckcheck.check(t, f, bf.AS_OF)
            w += clock() - a
            a = clock()
            bf.floor(t, table)
            fl += clock() - a
        for t, f in texts:
            v = bf.variant(t, rng)
            bf.clear_line_caches(db)
            a = clock()
            deckcheck.check(v, f, bf.AS_OF)
            c += clock() - a
        for t, f in texts:
            deckcheck.check(t, f, bf.AS_OF)
        n = 1000 * len(texts)
        warm.append(w / n)
        cold.append(c / n)
        floor.append(fl / n)
    w, c, f = statistics.median(warm), statistics.median(cold), statistics.median(floor)
    print(f"{tree}: warm {w:.1f} µs ({w / f:.2f}x)  cold {c:.1f} µs ({c / f:.2f}x)  floor {f:.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
