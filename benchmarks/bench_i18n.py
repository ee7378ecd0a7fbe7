"""What card names in other languages (issue #32) cost: start-up, a warm check of English lists, the
first unknown name of a process, and a warm check of French and German lists, for two checkouts
measured in turn (A, B, A, B...) in fresh processes; CPU time, medians.

    python benchmarks/bench_i18n.py OLD_TREE NEW_TREE --rounds 15

Each tree is run with its own code and its own ``data/`` (``PYTHONPATH=tree``). The English lists
are ``bench_floor.LISTS`` of the new tree; the French and German lists are
``tests/decks/rules/{fr,de}-names.txt`` (a tree without the names file reads them as unknown names).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
clock = time.process_time
t0 = clock()
from deckcheck import cards
db = cards.get_db()
start = clock() - t0
import deckcheck
sys.path.insert(0, {bench!r})
import bench_floor as bf
texts = [(p.read_text(encoding="utf-8"), f) for p, f in bf.LISTS]
for t, f in texts:
    deckcheck.check(t, f, bf.AS_OF)
warm = []
for _ in range(20):
    a = clock()
    for t, f in texts:
        deckcheck.check(t, f, bf.AS_OF)
    warm.append((clock() - a) / len(texts))
a = clock()
deckcheck.check("4 Nest Ball SVI 181\n1 Pikachu Exx SSP 999\n", "standard", bf.AS_OF)
first_unknown = clock() - a
local = [(Path(p).read_text(encoding="utf-8")) for p in {local!r}]
for t in local:
    deckcheck.check(t, "standard", bf.AS_OF)
lw = []
for _ in range(20):
    a = clock()
    for t in local:
        deckcheck.check(t, "standard", bf.AS_OF)
    lw.append((clock() - a) / len(local))
print(json.dumps({{"start": start, "warm": sorted(warm)[len(warm) // 2], "first_unknown": first_unknown,
                   "local_warm": sorted(lw)[len(lw) // 2]}}))
"""


def run(tree: Path, bench: Path, local: list[str]) -> dict[str, float]:
    code = "from pathlib import Path\n" + CHILD.format(bench=str(bench), local=local)
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    env.pop("DECKCHECK_DB", None)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    bench = args.new.resolve() / "benchmarks"
    local = [str(args.new.resolve() / "tests/decks/rules" / f"{lang}-names.txt") for lang in ("fr", "de")]
    got: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name in ("old", "new"):
            got[name].append(run(getattr(args, name).resolve(), bench, local))
    print(f"load average {os.getloadavg()[0]:.2f}; {args.rounds} rounds, old and new in turn")
    for key, unit, scale in (
        ("start", "ms", 1e3),
        ("warm", "µs", 1e6),
        ("first_unknown", "ms", 1e3),
        ("local_warm", "µs", 1e6),
    ):
        old = statistics.median(r[key] for r in got["old"])
        new = statistics.median(r[key] for r in got["new"])
        print(f"{key:14} old {old * scale:9.2f} {unit}   new {new * scale:9.2f} {unit}   new/old {new / old:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
