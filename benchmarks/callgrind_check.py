"""Instructions per check, counted by valgrind's callgrind: the steady comparison the timed benchmarks lack.

The machine's timings swing ~1.5x from run to run; instruction counts do not. Each measure runs a
workload at two round counts under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``, bytecode
cached) and subtracts, so start-up, imports and the database load cancel out; the figure is
instructions per unit (a list, or a request):

* ``warm``: ``check()`` of the eight lists of ``bench_floor.py`` (memos holding their lines), per list;
* ``cold``: ``check()`` of a variant (counts moved, lines shuffled) after every per-line memo is
  emptied (``bench_floor.clear_line_caches``), the emptying subtracted (``clear``), per list;
* ``floor-warm``, ``floor-cold``: the floor on the same texts;
* ``validate``, ``trivial``: one ``POST /api/v1/validate`` of the wrk benchmark's list through the
  WSGI app (deckcheck's after the master's warm-up; ``benchmarks/trivial_app.py``), per request;
  ``check-one`` and ``to-dict``: that list's ``check()`` and its report's JSON, per call;
* ``first-sight``: what a fresh process (``deckcheck check``, a new worker) meets: after one tiny
  warm-up check (``4 Nest Ball SVI 181``), the first check of each of the eight lists, per list (a
  child that checks the eight lists once less a child that checks none: ``--low``/``--high`` unused),
  and ``start-up``, all of the child that checks none (imports, the database's load, the warm-up).

Except for ``first-sight``, the database's index of usual lines is made up front, as the service's
master makes it.

    python benchmarks/callgrind_check.py [--tree DIR] [--low 20] [--high 60] [MEASURE ...]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURES = (
    "warm",
    "cold",
    "clear",
    "floor-warm",
    "floor-cold",
    "validate",
    "trivial",
    "check-one",
    "to-dict",
    "first-sight",
)
#: rounds of variants of the eight lists made for the cold measures: --high may be at most 8 times this
VARIANT_ROUNDS = 16
#: what a measure's count is divided by: a round of the eight lists, or one unit
PER_ROUND = {"warm": 8, "floor-warm": 8}


def inner(tree: Path, measure: str, reps: int) -> None:
    """The workload, in the child valgrind runs (``tree``'s deckcheck and benchmarks first on the path)."""
    sys.path[:0] = [str(tree), str(tree / "benchmarks")]
    os.environ.setdefault("DECKCHECK_RATELIMIT_ENABLED", "false")
    import bench_floor as bf

    import deckcheck
    from deckcheck import cards

    db = cards.get_db()
    texts = [(p.read_text(encoding="utf-8"), f) for p, f in bf.LISTS]
    if measure == "first-sight":
        deckcheck.check("4 Nest Ball SVI 181\n", "standard", bf.AS_OF)
        for t, f in texts[: 8 * reps]:
            deckcheck.check(t, f, bf.AS_OF)
        return
    for t, f in texts:
        deckcheck.check(t, f, bf.AS_OF)
    bf.index_usual_lines(db)
    rng = random.Random(1)
    # as many variants at every round count (made outside the rounds, but their making is counted: the
    # same work in both runs of a measure cancels out)
    variants = [(bf.variant(t, rng), f) for _ in range(VARIANT_ROUNDS) for t, f in texts]
    table = bf.floor_table(texts)
    if measure == "warm":
        for _ in range(reps):
            for t, f in texts:
                deckcheck.check(t, f, bf.AS_OF)
    elif measure in ("cold", "clear"):
        for v, f in variants[:reps]:
            bf.clear_line_caches(db)
            if measure == "cold":
                deckcheck.check(v, f, bf.AS_OF)
    elif measure == "floor-warm":
        for _ in range(reps):
            for t, _f in texts:
                bf.floor(t, table)
    elif measure == "floor-cold":
        for v, _f in variants[:reps]:
            bf.floor(v, table)
    else:
        wsgi(tree, measure, reps)


def wsgi(tree: Path, measure: str, reps: int) -> None:
    from werkzeug.test import EnvironBuilder

    import deckcheck
    from benchmarks.trivial_app import app as trivial
    from deckcheck.render.json import cards_json
    from deckcheck.service.warmup import warm_up

    text = (tree / "tests" / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
    body = json.dumps({"decklist": text, "format": "standard", "as_of": "2026-05-01"}).encode()
    environ = EnvironBuilder(path="/api/v1/validate", method="POST", data=body, content_type="application/json")
    base = environ.get_environ()
    app = deckcheck.create_app()
    warm_up(app)

    def call(wsgi_app) -> bytes:
        env = {**base, "wsgi.input": io.BytesIO(body)}
        it = wsgi_app(env, lambda status, headers, exc_info=None: None)
        try:
            return b"".join(it)
        finally:
            getattr(it, "close", lambda: None)()

    for _ in range(5):
        call(app), call(trivial)
    report = deckcheck.check(text, "standard", "2026-05-01")
    for _ in range(reps):
        if measure == "validate":
            call(app)
        elif measure == "trivial":
            call(trivial)
        elif measure == "check-one":
            deckcheck.check(text, "standard", "2026-05-01")
        else:
            report.to_dict(cards_view=cards_json)


def count(tree: Path, measure: str, reps: int) -> int:
    """Instructions of one child running ``measure`` ``reps`` times (all of it: start-up included)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__]
    cmd += ["--inner", measure, str(reps), "--tree", str(tree)]
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", done.stderr)
    if m is None:
        raise SystemExit(f"no instruction count from valgrind for {measure}:\n{done.stderr[-2000:]}")
    return int(m.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("measures", nargs="*", metavar="MEASURE", help=f"any of {', '.join(MEASURES)}")
    parser.add_argument("--tree", type=Path, default=ROOT, help="a checkout of deckcheck to measure")
    parser.add_argument("--low", type=int, default=20)
    parser.add_argument("--high", type=int, default=60)
    parser.add_argument("--inner", nargs=2, metavar=("MEASURE", "REPS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    if args.inner:
        inner(tree, args.inner[0], int(args.inner[1]))
        return 0
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is missing: apt-get install valgrind")
    measures = args.measures or ["warm", "cold", "clear", "floor-warm", "floor-cold"]
    if not 0 < args.low < args.high <= VARIANT_ROUNDS * 8:
        parser.error(f"--low and --high: 0 < low < high <= {VARIANT_ROUNDS * 8}")
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        parser.error(f"unknown measure {', '.join(unknown)} (known: {', '.join(MEASURES)})")
    # the tree's .pyc files written first: a module compiled in one counted run and not the other (a
    # stale .pyc, a file edited meanwhile) adds its compiling to the difference (tens of millions)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for folder in ("deckcheck", "benchmarks"):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / folder)], env=env, check=True)
    per: dict[str, float] = {}
    for measure in measures:
        if measure == "first-sight":  # the eight lists checked once, less none
            start = count(tree, measure, 0)
            per[measure] = (count(tree, measure, 1) - start) / 8
            print(f"{'start-up':11s} {start / 1e6:9.1f}M instructions: a fresh process to its warm-up check's end")
        else:
            high, low = count(tree, measure, args.high), count(tree, measure, args.low)
            per[measure] = (high - low) / (args.high - args.low) / PER_ROUND.get(measure, 1)
        unit = (
            "request"
            if measure in ("validate", "trivial")
            else "list"
            if measure in PER_ROUND or measure == "first-sight"
            else "call"
        )
        print(f"{measure:11s} {per[measure] / 1000:9.1f}k instructions a {unit}")
    if "cold" in per and "clear" in per:
        per["cold"] -= per["clear"]
        print(f"cold, the emptying of the memos taken off: {per['cold'] / 1000:.1f}k")
    for measure, floor in (("warm", "floor-warm"), ("cold", "floor-cold")):
        if measure in per and floor in per:
            print(f"{measure} / floor: {per[measure] / per[floor]:.2f}x")
    shown = ["python", "benchmarks/callgrind_check.py", "--tree", str(tree), "--low", str(args.low)]
    print("command: " + " ".join([*shown, "--high", str(args.high), *measures]))
    return 0


def process_instructions(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> int:
    """Instructions of one whole process under callgrind, its interpreter's start and exit included, with
    ``PYTHONHASHSEED=0`` and bytecode caching on: what ``bench_floor.py``'s issue #30 rows count (the first
    sight of the lists in a fresh process, a whole one-file ``deckcheck check``). Apart from :func:`count`,
    which runs this file's own workloads: here ``cmd`` is any command."""
    env = {k: v for k, v in (os.environ if env is None else env).items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    m = re.search(r"Collected : (\d+)", done.stderr)
    if m is None:
        raise SystemExit(f"no instruction count from valgrind for {cmd}:\n{done.stderr[-2000:]}")
    return int(m.group(1))


if __name__ == "__main__":
    raise SystemExit(main())
