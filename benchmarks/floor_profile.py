"""The profile of ``bench_floor.py`` (issue #16): where a check's time goes, warm and cold, as ratios to the floor.

Printed by every full run of ``benchmarks/bench_floor.py`` and alone by ``bench_floor.py --phases``.
CPU time of this thread (``time.thread_time_ns``), µs per list, medians over rounds, on the eight lists
(warm) and on new variants of them each round (cold: every per-line memo emptied before each timed call,
the database's index of usual lines made up front, as ``bench_floor``'s cold rounds do); the floor runs on
the same texts.

* check() in its steps, each timed on its own as :func:`deckcheck.engine.check` runs them (:func:`steps`
  replicates check's code; the run first makes sure its report is check's, JSON for JSON): split
  (``parse.plain_lines``), read + resolve (``engine._read_text``), ``Deck(...)``, the rules (``Context``,
  ``fmt.rule_plan()``, each rule the deck has anything for, ``Problem.from_finding``, the parser's problems
  kept), the report (``sort_problems``, ``Report(...)``), and the rest: check() timed whole minus the steps
  (the format and date looked up, the database fetched, the listeners), medians minus medians, so the rows
  add up (a negative rest is noise: take more rounds). The clock's own cost is taken off each timing.
* cold, line kind by line kind: the variants' non-empty lines grouped as card lines the database's index
  of usual lines finds (``CardDB.printed_line`` of the text after the count, after a bullet), card lines
  it does not find, and the other lines (headers, totals); each list's lines of one kind are read together
  by ``engine._read_text`` after the memos are emptied. µs per line (the cost of a call with no lines
  taken off), lines per list and µs per list, which add up (with one call's cost) to the cold read.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import sys
import time
from itertools import compress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_floor as bf  # noqa: E402

import deckcheck  # noqa: E402
from deckcheck import cards, engine  # noqa: E402
from deckcheck.deck import Context, Deck  # noqa: E402
from deckcheck.decklist.fastline import BULLETS, COUNTS  # noqa: E402
from deckcheck.decklist.parse import plain_lines  # noqa: E402
from deckcheck.problems import Problem, Report, sort_problems  # noqa: E402
from deckcheck.registry import REGISTRY  # noqa: E402

#: check()'s steps, in its order, with what the report calls them
STEPS = {
    "split": "split (parse.plain_lines)",
    "read": "read + resolve (engine._read_text)",
    "Deck": "Deck(...)",
    "rules": "rules (Context, rule_plan, rules, Problems)",
    "report": "report (sort_problems, Report)",
    "rest": "rest (check() whole - the steps)",
}
TIMED = list(STEPS)[:-1]  # the rest is check() whole minus these
#: line kinds of the cold read
KINDS = {
    "hit": "card line, index of usual lines finds it",
    "miss": "card line, index does not find it",
    "other": "other line (header, total)",
}
clock = time.thread_time_ns


def steps(text: str, fmt, on: dt.date, iso: str, db) -> tuple[Report, list[int]]:
    """:func:`deckcheck.engine.check`'s code for a text (no forecast, no database age, a date in the
    format's range), with the clock read between its steps: (the report, ns of each step of STEPS but
    the rest)."""
    t0 = clock()
    lines = plain_lines(text)
    t1 = clock()
    parsed, rows = engine._read_text(lines, db, fmt, on)
    t2 = clock()
    d = Deck(rows, parsed.problems, parsed.declared_total, parsed.declared_total_line, db=db)
    t3 = clock()
    ctx = Context(fmt, on, db)
    problems: list[Problem] = []
    plan, wants = fmt.rule_plan()
    for name, fn, args in compress(plan, wants(d)):
        for f in fn(d, ctx, *args) if args else fn(d, ctx):
            problems.append(Problem.from_finding(REGISTRY[name], f))
    if len(d.unknown) > engine.SUGGEST_MAX_NAMES:
        skipped = engine._suggestions_skipped(d)
        if skipped:
            problems.append(skipped)
    if parsed.problems:
        rules = fmt.rules
        problems.extend(p for p in parsed.problems if p.rule in rules or p.rule not in REGISTRY)
    t4 = clock()
    report = Report(
        fmt.id,
        fmt.name,
        iso,
        sort_problems(problems) if problems else problems,
        rows,
        d.counts(),
        db.info(),
        d.basic_pokemon,
        {},
    )
    t5 = clock()
    return report, [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4]


def line_kinds(text: str, db) -> dict[str, list[str]]:
    """The text's non-empty lines by kind (KINDS), as ``engine._read_text`` tells them apart."""
    out: dict[str, list[str]] = {k: [] for k in KINDS}
    for raw in plain_lines(text) or ():
        if not raw:
            continue
        head, _, rest = raw.partition(" ")
        if head in BULLETS:
            head, _, rest = rest.partition(" ")
        if COUNTS.get(head) is None:
            out["other"].append(raw)
        else:
            out["hit" if db.printed_line(rest) is not None else "miss"].append(raw)
    return out


def overheads() -> tuple[int, int]:
    """ns of two clock reads back to back, and of ``bf.cpu_ns`` on a function doing nothing (medians)."""
    pairs, calls = [], []
    for _ in range(2001):
        a = clock()
        b = clock()
        pairs.append(b - a)
        calls.append(bf.cpu_ns(lambda: None))
    return int(statistics.median(pairs)), int(statistics.median(calls))


def unfaithful(texts: list[tuple[str, str]], variants: list[tuple[str, str]], db, on: dt.date, iso: str) -> int:
    """How many of the texts (warm) and variants (cold) :func:`steps` answers another report for than
    check() does (0: it mirrors check)."""
    wrong = 0
    for group, cold in ((texts, False), (variants, True)):
        for text, fmt in group:
            if cold:
                bf.clear_line_caches(db)
            mine = steps(text, engine.get_format(fmt), on, iso, db)[0].to_dict()
            if cold:
                bf.clear_line_caches(db)
            wrong += mine != deckcheck.check(text, fmt, bf.AS_OF).to_dict()
    return wrong


def profile(texts: list[tuple[str, str]], rounds: int, seed: int = 7) -> dict:
    """Medians over ``rounds`` (µs per list unless said): ``warm`` and ``cold`` {step or ``check`` or
    ``floor``: µs}, ``kinds`` {kind: (µs a line, lines a list)}, ``call`` (µs of a call with no lines),
    ``overhead`` (ns taken off a timing), ``unfaithful`` (see :func:`unfaithful`), ``rounds``."""
    db = cards.get_db()
    on = dt.date.fromisoformat(bf.AS_OF)
    iso = on.isoformat()
    rng = random.Random(seed)
    table = bf.floor_table(texts)
    for t, fmt in texts:
        deckcheck.check(t, fmt, bf.AS_OF)
    bf.index_usual_lines(db)
    variants = [[(bf.variant(t, rng), fmt) for t, fmt in texts] for _ in range(rounds)]
    kinds = [[line_kinds(v, db) for v, _ in vs] for vs in variants]  # before any timing (it looks lines up)
    wrong = unfaithful(texts, variants[0], db, on, iso)
    pair, call = overheads()
    check = deckcheck.check
    names = [*TIMED, "check", "floor"]
    series: dict[str, dict[str, list[float]]] = {"warm": {}, "cold": {}}
    kind_series: dict[str, list[tuple[float, float]]] = {k: [] for k in KINDS}
    calls: list[float] = []
    for r in range(rounds):
        sums = {w: dict.fromkeys(names, 0) for w in series}
        ksums, klines, kcalls, csum = dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0), 0
        order = list(range(len(texts))) if r % 2 == 0 else list(range(len(texts)))[::-1]
        for i in order:
            (t, name), (v, _) = texts[i], variants[r][i]
            fmt = engine.get_format(name)
            check(t, name, bf.AS_OF)  # this list's lines back in the memos (the last cold step emptied them)
            for which, text in (("warm", t), ("cold", v)):
                cold, into = which == "cold", sums[which]
                for part in ("steps", "whole") if r % 2 == 0 else ("whole", "steps"):
                    if cold:
                        bf.clear_line_caches(db)
                    if part == "steps":
                        for step, ns in zip(TIMED, steps(text, fmt, on, iso, db)[1], strict=True):
                            into[step] += ns - pair
                    else:
                        into["check"] += bf.cpu_ns(lambda: check(text, name, bf.AS_OF)) - call
                into["floor"] += bf.cpu_ns(lambda: bf.floor(text, table)) - call
            for kind, batch in kinds[r][i].items():
                if batch:
                    bf.clear_line_caches(db)
                    a = clock()
                    engine._read_text(batch, db, fmt, on)
                    ksums[kind] += clock() - a - pair
                    klines[kind] += len(batch)
                    kcalls[kind] += 1
            bf.clear_line_caches(db)
            a = clock()
            engine._read_text([], db, fmt, on)
            csum += clock() - a - pair
        n = len(texts)
        for which, into in sums.items():
            for k in names:
                series[which].setdefault(k, []).append(into[k] / n / 1000)
        per_call = csum / n
        calls.append(per_call / 1000)
        for kind in KINDS:
            if klines[kind]:
                each = (ksums[kind] - kcalls[kind] * per_call) / klines[kind] / 1000
                kind_series[kind].append((each, klines[kind] / n))
    medians = {w: {k: statistics.median(v) for k, v in series[w].items()} for w in series}
    for got in medians.values():  # so that the rows add up to check()'s (a negative rest: noise, take more rounds)
        got["rest"] = got["check"] - sum(got[s] for s in TIMED)
    return {
        **medians,
        "kinds": {
            k: (statistics.median(e for e, _ in v), statistics.median(c for _, c in v))
            for k, v in kind_series.items()
            if v
        },
        "call": statistics.median(calls),
        "overhead": (pair, call),
        "unfaithful": wrong,
        "rounds": rounds,
    }


def show(ph: dict) -> None:
    """Print a :func:`profile`."""
    warm, cold = ph["warm"], ph["cold"]
    print(
        f"\nprofile, {ph['rounds']} rounds, CPU µs per list (median of rounds; each step timed on its own, "
        "as check() runs it; x: to the floor on the same texts)"
    )
    if ph["unfaithful"]:
        print(
            f"  WARNING: on {ph['unfaithful']} texts the steps' report differs from check()'s: deckcheck/engine/__init__.py's "
            "check() changed; benchmarks/floor_profile.py's steps() no longer mirrors it"
        )
    print(f"  {'step':<46} {'warm µs':>8} {'x':>6}   {'cold µs':>8} {'x':>6}")
    for key, label in [*STEPS.items(), ("check", "check() whole"), ("floor", "floor")]:
        w, c = warm[key], cold[key]
        print(f"  {label:<46} {w:8.1f} {w / warm['floor']:5.2f}x   {c:8.1f} {c / cold['floor']:5.2f}x")
    print(
        "  cold read + resolve, line kind by line kind (each list's lines of one kind read together, the "
        "memos emptied before)"
    )
    print(f"  {'kind':<46} {'µs/line':>8} {'lines/list':>11} {'µs/list':>8} {'x floor':>8}")
    total = ph["call"]
    for key, label in KINDS.items():
        if key not in ph["kinds"]:
            continue
        each, per_list = ph["kinds"][key]
        total += each * per_list
        print(
            f"  {label:<46} {each:8.2f} {per_list:11.2f} {each * per_list:8.1f} {each * per_list / cold['floor']:7.2f}x"
        )
    print(
        f"  {'a call with no lines (_Lines, ParseResult)':<46} {'':8} {1:11.2f} {ph['call']:8.1f} "
        f"{ph['call'] / cold['floor']:7.2f}x"
    )
    print(
        f"  {'sum':<46} {'':8} {'':11} {total:8.1f} {total / cold['floor']:7.2f}x   (read + resolve cold above: "
        f"{cold['read']:.1f} µs)"
    )
    pair, call = ph["overhead"]
    print(f"  (taken off each timing: the clock's own cost, {pair} ns a step, {call} ns a whole call)")


def biggest(ph: dict, which: str, n: int = 3) -> str:
    """The ``n`` costliest steps of ``which`` (warm or cold) with their ratios to the floor."""
    got = ph[which]
    top = sorted(STEPS, key=lambda k: -got[k])[:n]
    return ", ".join(f"{k} {got[k] / got['floor']:.2f}x" for k in top)
