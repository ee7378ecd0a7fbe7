"""The line reader alone, cold: ``parse.read`` of the eight lists of ``bench_floor.py`` with the line memo
emptied before each, and ``card_parts`` over every line; and the regular expressions compiled on the way.

Run it on two trees in turn (``--tree``: a checkout whose ``deckcheck`` is imported first) and compare;
CPU time, the median of the rounds. ``--compiles`` counts instead the distinct patterns compiled by
``import deckcheck.engine`` and then by reading a PTCGL list (those whose compile is called from
``deckcheck/decklist/``, directly or through ``deckcheck/patterns.py``, in brackets).

    python benchmarks/reader_cold.py [--tree DIR] [--rounds 300] [--compiles]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiles(tree: Path) -> str:
    """``import deckcheck.engine: N distinct patterns compiled (D by decklist); after ...``."""
    counts = {"all": 0, "decklist": 0}
    seen: set[tuple[str, int]] = set()
    real = re._compile  # type: ignore[attr-defined]

    def counting(pattern: object, flags: int) -> object:
        if isinstance(pattern, str) and (pattern, flags) not in seen:
            seen.add((pattern, flags))
            counts["all"] += 1
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.endswith(("re/__init__.py", "patterns.py")):
                frame = frame.f_back  # type: ignore[assignment]
            counts["decklist"] += frame is not None and "/decklist/" in frame.f_code.co_filename
        return real(pattern, flags)

    re._compile = counting  # type: ignore[attr-defined]
    import deckcheck.engine  # noqa: F401
    from deckcheck.decklist import parse

    at_import = dict(counts)
    parse.parse((tree / "tests" / "decks" / "ptcgl-en-charizard.txt").read_text(encoding="utf-8"))
    return (
        f"import deckcheck.engine: {at_import['all']} distinct patterns compiled ({at_import['decklist']} by "
        f"decklist); after parse of a PTCGL list: {counts['all']} ({counts['decklist']})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--compiles", action="store_true")
    args = ap.parse_args()
    sys.path[:0] = [str(args.tree), str(args.tree / "benchmarks")]
    if args.compiles:
        print(f"{args.tree}: {compiles(args.tree)}")
        return
    import bench_floor as bf

    from deckcheck.decklist import fastline, lineread, parse

    texts = [p.read_text(encoding="utf-8") for p, _ in bf.LISTS]
    lines = [line for text in texts for line in text.splitlines() if line]
    clock = time.process_time_ns
    cold, parts = [], []
    for _ in range(args.rounds):
        spent = 0
        for text in texts:
            lineread.read_line.clear()
            start = clock()
            parse.read(text)
            spent += clock() - start
        cold.append(spent / len(texts) / 1000)
        start = clock()
        for line in lines:
            fastline.card_parts(line)
        parts.append((clock() - start) / len(lines))
    print(
        f"{args.tree}: cold parse.read {statistics.median(cold):.1f} µs a list; "
        f"card_parts {statistics.median(parts):.0f} ns a line"
    )


if __name__ == "__main__":
    main()
