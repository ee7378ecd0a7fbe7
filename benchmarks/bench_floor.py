"""Benchmark (issues #16, #30): deckcheck as a ratio to floors, warm, cold, first sight, start-up, 1,000 files.

Not a timed test: run it by hand and read the ratios, which are taken in the same run
(the machine is shared, so absolute figures move with its load; the ratios move less).

    python benchmarks/bench_floor.py [--rounds 30] [--starts 10] [--files 1000] [--cli-runs 3]
                                     [--http [--http-rounds 4] [--http-duration 5]] [--memory]
                                     [--phases] [--quick] [--no-instructions] [--process-lists 2]

One run of ``python benchmarks/bench_floor.py --http --memory`` prints every figure of both issues,
a profile of where a check's time goes, and last two tables of targets, one line each with its figure
and "met" or "NOT met" (and, when not met, what stands in the way), and the command: issue #16's
(warm, cold, start-up, ``--version``, 1,000 files, HTTP by req/s, memory halved) and issue #30's
(first sight by instructions and by time, a whole one-file process by instructions and by time, warm,
1,000 files, HTTP by server CPU, memory over the trivial app's). ``--phases`` prints the profile alone
(under a second); ``--quick`` makes a smoke run (few rounds, 100 files: the 1,000 files targets are then
not judged); ``--no-instructions`` leaves out callgrind's counts (minutes).

The lists: eight 60-card lists from ``tests/`` (tournament-style lists in four export shapes,
each checked in the format it is legal in: four Standard, three Expanded, one GLC; the
issue's "8 Prague 2026 lists" are not in the repository).

The floor (the issue's minimal baseline): split the text into lines, split each line once
on its first blank (past PTCGO's ``* `` bullet), look the rest of the line up in one dict, count copies by the card's
name key; pure Python. ``floor+6`` also answers six Standard verdicts from the facts that
one lookup returns (60 cards, at most 4 copies of a name other than basic Energy, at most
one ACE SPEC, at most one Radiant, at least one Basic Pokémon, every card legal in the
list's format). Its
table holds every line of the lists (the text after the count) with the key and facts
deckcheck gave it; it is built before timing starts, like a perfect precomputed index.

Figures (CPU time of this thread, ``time.thread_time_ns``, per list; medians over rounds;
each round runs floor, floor+6, deckcheck warm and deckcheck cold on every list, in an
order that alternates from round to round):

* warm: ``deckcheck.check(text, format, as_of)`` on the lists as they are, with every
  memo holding their lines (what a service sees for lines it met before);
* cold: each round checks new variants of the lists (counts moved between lines and the
  lines shuffled inside their section, so most line texts are new) and every per-line
  memo is emptied before each call (``clear_line_caches``): a list whose lines the process
  has never seen, as a server's worker meets it (the tables bounded by the card database kept:
  each format's per-card tables, and from session 8 the database's index of usual lines, made for
  every set code up front as the service's master makes it before forking); the floor runs on the
  same variants;
* cold, per-card tables emptied too: the same variants with each format's legality and printing
  tables emptied as well (:func:`clear_card_tables`; the database's index of usual lines kept);
* ``to_dict``: ``check(...).to_dict()``, warm;
* fresh process: in ``--starts`` new interpreters, the first check of one list after the
  database is loaded and the engine imported (``check()`` imports the engine and its rules on first
  use, timed apart), and the same list a second time, against the floor in that child;
* start-up: ``python -c "import deckcheck, deckcheck.cards as c; c.get_db()"`` (wall time
  to the database loaded, and the child's CPU time), ``deckcheck --version``, ``python -c pass``;
* 1,000 files: ``deckcheck check DIR --as-of 2026-05-01 --output-format json`` over 1,000
  files made from the eight lists with counts moved and lines shuffled (each file distinct);
* the profile (``benchmarks/floor_profile.py``): check() in its steps (split, read + resolve, ``Deck``,
  the rules, the report, the rest), each timed on its own, warm and cold, and the cold read line kind by
  line kind (card lines the database's index of usual lines finds, card lines it does not, other lines):
  µs per line and lines per list; every figure also as a ratio to the floor on the same texts;
* ``--http``: ``benchmarks/wrk_validate.py --rounds 4 --duration 5`` run in this process (its
  :func:`~wrk_validate.run`; minutes): validate's median req/s as a ratio to a trivial Flask endpoint's
  on the same gunicorn (the target), and the server CPU per request, trivial/validate;
* ``--memory``: ``benchmarks/worker_memory.py --requests 1000 --rounds 2`` run in this process: one
  worker's private memory after 1,000 mixed validate requests (the target), after its first request,
  and the trivial Flask app's under the same settings (the framework's own floor).

Issue #30's rows:

* first sight: ``--starts`` fresh processes each load the database, make one tiny warm-up check
  (``WARM_UP_DECK``), then meet each of the eight lists once, as a user meets it: checked once (CPU time
  of that call) and once through the floor (its first pass in that process), check first in one
  process and the floor first in the next; the ratio is the sum of the checks over the sum of the
  floor's passes, median of the processes. By instructions (callgrind,
  ``callgrind_check.process_instructions``): a child that meets the eight lists less one that meets
  none, per list, for the check and for the floor. Beside them, a cProfile of the first checks (own
  time, added up over several processes) and the garbage collector's share of their time;
* a whole one-file process: ``deckcheck check LIST --format F --as-of D`` against
  ``benchmarks/floor_process.py`` (a fresh interpreter that reads the pack, checks its SHA-256 once,
  reads a precomputed table of the lines' facts and prints the same verdict: checked for every list
  before timing), each list in turn, ``--cli-runs`` runs each, alternated; CPU time (median), and
  callgrind's instructions for ``--process-lists`` lists, with the interpreter's own start
  (``python -c pass``) and the imports and database load (``START_CODE``) counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import deckcheck  # noqa: E402
from deckcheck import cards, names  # noqa: E402
from deckcheck.decklist import parse as parse_mod

#: the eight 60-card lists, each with the format it is legal in (a tournament list is checked in its own)
LISTS = [
    (ROOT / "tests" / p, fmt)
    for p, fmt in (
        ("decks/standard-legal-dragapult.txt", "standard"),
        ("cli/decks/valid.txt", "standard"),
        ("decks/rules/dragapult-limitless.txt", "standard"),
        ("decks/rules/dragapult-ptcgo.txt", "standard"),
        ("decks/ptcgl-en-charizard.txt", "expanded"),
        ("decks/ptcgl-fr-random-line.txt", "expanded"),
        ("decks/limitless-energy-set-code.txt", "expanded"),
        ("decks/rules/glc-lightning.txt", "glc"),
    )
]
AS_OF = "2026-05-01"
START_CODE = "import deckcheck, deckcheck.cards as c; c.get_db()"
#: children run with bytecode caching on (as an installed package does), whatever this shell says
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TARGETS = {"warm": 1.5, "cold": 4.0, "start": 0.15, "version": 0.1, "files": 1.0, "http": 0.85}
#: a worker's private memory after 1,000 mixed validates as the issue's session 5 measured it (MiB,
#: benchmarks/worker_memory.py; BENCHMARKS.md), and the target: "per-worker private memory halved"
MEMORY_BASELINE_MIB = 25.4
MEMORY_TARGET_MIB = MEMORY_BASELINE_MIB / 2  # 12.7


# -- the floor ---------------------------------------------------------------------------


#: what PTCGO writes before a card line's count (``* 4 Dreepy TWM 128``): the floor reads past it
BULLET = "* "


def floor_table(texts: list[tuple[str, str]]) -> dict[str, tuple]:
    """Line text after the count -> (name key, legal, basic Energy, ACE SPEC, Radiant, Basic Pokémon),
    as deckcheck resolves it; lines deckcheck cannot resolve map to their own text."""
    table: dict[str, tuple] = {}
    for text, fmt in texts:
        for line in deckcheck.check(text, fmt, AS_OF).to_dict()["cards"]:
            rest = line["text"].removeprefix(BULLET).partition(" ")[2]
            card = line["card"]
            if card is None:
                table[rest] = (rest, False, False, False, False, False)
                continue
            sub = card["subtypes"]
            table[rest] = (
                card["name"],
                bool(line["legal"]),
                card["supertype"] == "Energy" and "Basic" in sub,
                "ACE SPEC" in sub,
                "Radiant" in sub,
                card["supertype"] == "Pokémon" and "Basic" in sub,
            )
    return table


def floor(text: str, table: dict) -> dict:
    """Split lines, one dict lookup per line, count by name."""
    counts: dict[str, int] = {}
    get = table.get
    for line in text.splitlines():
        head, _, rest = line.strip().removeprefix(BULLET).partition(" ")
        if head.isdigit():
            facts = get(rest)
            if facts is not None:
                key = facts[0]
                counts[key] = counts.get(key, 0) + int(head)
    return counts


def floor6(text: str, table: dict) -> tuple[bool, ...]:
    """The floor plus six Standard verdicts from the facts of that one lookup."""
    counts: dict[str, int] = {}
    get = table.get
    total = aces = radiant = basics = 0
    legal = True
    energy: set[str] = set()
    for line in text.splitlines():
        head, _, rest = line.strip().removeprefix(BULLET).partition(" ")
        if head.isdigit():
            facts = get(rest)
            if facts is not None:
                n = int(head)
                key = facts[0]
                counts[key] = counts.get(key, 0) + n
                total += n
                legal = legal and facts[1]
                if facts[2]:
                    energy.add(key)
                if facts[3]:
                    aces += n
                if facts[4]:
                    radiant += n
                if facts[5]:
                    basics += n
    four = all(n <= 4 for k, n in counts.items() if k not in energy)
    return (total == 60, four, aces <= 1, radiant <= 1, basics >= 1, legal)


# -- cold variants -------------------------------------------------------------------------


def variant(text: str, rng: random.Random) -> str:
    """The list with its counts moved between card lines and its lines shuffled, section by section
    (the same cards and total, mostly new line texts)."""
    out: list[str] = []
    block: list[str] = []

    def flush():
        cardlines = [ln.partition(" ") for ln in block]
        counts = [h for h, _, _ in cardlines]
        rng.shuffle(counts)
        rests = [r for _, _, r in cardlines]
        rng.shuffle(rests)
        out.extend(f"{c} {r}" for c, r in zip(counts, rests, strict=True))
        block.clear()

    for line in text.splitlines():
        head = line.strip().partition(" ")[0]
        if head.isdigit() and line == line.strip():
            block.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out) + "\n"


def clear_line_caches(db) -> None:
    """Forget every per-line memo of this version of the code (parse, names, the database's, and the
    engine's line memos of every format, which hold a line's resolution and legality)."""
    line_holder = sys.modules.get("deckcheck.decklist.lineread", parse_mod)  # read_line, once parse._classify
    for holder, attr in ((parse_mod, "_classify"), (line_holder, "read_line"), (names, "_basic_energy_type")):
        fn = getattr(holder, attr, None)
        clear = getattr(fn, "cache_clear", None) or getattr(fn, "clear", None)  # lru_cache or memo.Memoised
        if clear is not None:
            clear()
    db.clear_memo()
    # the engine's line memos (line text -> facts) are per-line memos too
    try:
        from deckcheck.engine.memos import forget_lines
    except ImportError:  # a tree before the engine held its memos: the formats held them
        from deckcheck.formats import FORMAT_MEMOS, default_formats

        for fmt in default_formats().values():
            held = FORMAT_MEMOS.of(fmt).lines
            for key in list(held):
                getattr(held[key], "lines", held[key]).clear()  # session 7: a LineTables holds the line memo
    else:
        forget_lines(printings=False)  # the line memos only: the printing tables are kept (clear_card_tables)


def index_usual_lines(db) -> None:
    """Make the database's index of usual lines, every set code's, as a server's master does before it
    forks (session 8: ``CardDB.index_usual_lines``; a process that runs long makes the codes it meets
    often on its own, at their 160th line read the long way)."""
    index = getattr(db, "index_usual_lines", None)
    if index is not None:
        index()


def clear_card_tables() -> None:
    """Forget the per-card tables too (each format's legality answers and, from session 7, what a line
    naming a printing comes to): tables bounded by the card database, kept across lists like a
    precomputed index, so the cold rounds keep them; ``cold, tables emptied`` empties them as well.
    The database's index of usual lines (session 8) is kept: it belongs to the database as a server
    loads it (made once, before the workers fork), and remaking it every round churned ~9 MB of the
    heap, which slowed the warm rounds measured after it (2.8x the floor against 2.0x by
    instructions)."""
    from deckcheck.formats import FORMAT_MEMOS, default_formats

    for fmt in default_formats().values():
        memos = FORMAT_MEMOS.of(fmt)
        for key in list(memos.legality):
            memos.legality[key].clear()
        for key in list(getattr(memos, "lines", ())):  # the engine's tables, before it held them itself
            printings = getattr(memos.lines[key], "printings", None)  # session 7
            if printings is not None:
                printings.clear()
    try:
        from deckcheck.engine.memos import forget_lines
    except ImportError:
        pass
    else:
        forget_lines()  # the engine's own tables (line memos and printings)


# -- in-process rounds ---------------------------------------------------------------------


def cpu_ns(fn) -> int:
    clock = time.thread_time_ns
    t0 = clock()
    fn()
    return clock() - t0


def in_process(texts: list[tuple[str, str]], rounds: int) -> dict[str, list[float]]:
    """µs per list (sum over the lists / number of lists), one value per round, for each measure."""
    db = cards.get_db()
    table = floor_table(texts)
    rng = random.Random(16)
    # variants for the cold rounds, made up front (their lines go into the floor's table: same cards)
    variants = [[(variant(t, rng), fmt) for t, fmt in texts] for _ in range(rounds)]
    for t, fmt in texts:  # warm every memo
        deckcheck.check(t, fmt, AS_OF)
    index_usual_lines(db)
    measures: dict[str, list[float]] = {
        k: [] for k in ("floor", "floor+6", "warm", "to_dict", "cold", "floor cold", "cold tables")
    }
    check = deckcheck.check
    for r in range(rounds):
        sums = dict.fromkeys(measures, 0)
        order = texts if r % 2 == 0 else texts[::-1]
        for text, fmt in order:
            steps = [
                ("floor", lambda: floor(text, table)),
                ("floor+6", lambda: floor6(text, table)),
                ("warm", lambda: check(text, fmt, AS_OF)),
                ("to_dict", lambda: check(text, fmt, AS_OF).to_dict()),
            ]
            for name, fn in steps if r % 2 == 0 else steps[::-1]:
                sums[name] += cpu_ns(fn)
        for v, fmt in variants[r]:
            sums["floor cold"] += cpu_ns(lambda: floor(v, table))
            clear_line_caches(db)
            sums["cold"] += cpu_ns(lambda: check(v, fmt, AS_OF))
        for v, fmt in variants[r][::-1]:  # the same variants again, with every per-card table emptied too
            clear_line_caches(db)
            clear_card_tables()
            sums["cold tables"] += cpu_ns(lambda: check(v, fmt, AS_OF))
        for t, fmt in texts:  # back to warm for the next round
            check(t, fmt, AS_OF)
        for k in measures:
            measures[k].append(sums[k] / len(texts) / 1000)
    return measures


# -- fresh processes -----------------------------------------------------------------------

CHILD = r"""
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
import deckcheck, deckcheck.cards as c
db = c.get_db()
ready = time.perf_counter() - t0; ready_cpu = time.process_time() - c0
sys.path.insert(0, {bench!r})
from bench_floor import floor, AS_OF
table = json.load(open({table!r}))
text, fmt = open({deck!r}, encoding="utf-8").read(), {fmt!r}
clock = time.thread_time_ns
# check() imports the engine (and the rules) on first use: timed apart, as the issue's first check was
# measured when `import deckcheck` imported them
i = clock(); import deckcheck.engine
a = clock(); deckcheck.check(text, fmt, AS_OF); b = clock(); deckcheck.check(text, fmt, AS_OF); d = clock()
floor(text, table); e = clock(); floor(text, table); f = clock()
print(json.dumps([ready, ready_cpu, (b - a) / 1000, (d - b) / 1000, (e - d) / 1000, (f - e) / 1000, (a - i) / 1e6]))
"""


def fresh(texts: list[tuple[str, str]], starts: int) -> list[list[float]]:
    table = floor_table(texts)
    out = []
    with tempfile.TemporaryDirectory(prefix="deckcheck-floor-") as tmp:
        tpath = Path(tmp) / "table.json"
        tpath.write_text(json.dumps(table))
        for i in range(starts):
            deck, fmt = LISTS[i % len(LISTS)]
            code = CHILD.format(bench=str(ROOT / "benchmarks"), table=str(tpath), deck=str(deck), fmt=fmt)
            proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=CHILD_ENV)
            if proc.returncode:
                raise SystemExit(f"fresh-process child failed: {proc.stderr[-2000:]}")
            out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


# -- issue #30: first sight in a fresh process, a whole one-file process ---------------------

#: the one tiny check a fresh process makes before it meets the lists (what its first caller does once)
WARM_UP_DECK = "4 Nest Ball SVI 181\n"
#: a fresh interpreter: the database loaded, one tiny warm-up check, then each list met once, checked
#: (``check``) or through the floor (``floor``), in the order given; with ``profile``, the checks under
#: cProfile and the costliest functions by own time printed instead of times. The floor's code is this
#: module's (its source put in the child: the child imports nothing of the benchmarks)
FIRST_SIGHT_CHILD = r"""
import json, sys, time
BULLET = {bullet!r}
{floor_source}
table = json.load(open({table!r}, encoding="utf-8"))
lists = [(open(p, encoding="utf-8").read(), f) for p, f in {lists!r}][:{meet}]  # all read, {meet} met
if "check" in {order!r}:
    import deckcheck, deckcheck.cards
    deckcheck.cards.get_db()
    deckcheck.check({warm_up!r}, "standard", {as_of!r})
clock = time.thread_time_ns
out = {{"check": [], "floor": []}}
if {profile!r}:
    import cProfile, pstats
    profiler = cProfile.Profile()
    profiler.enable()
    for text, fmt in lists:
        deckcheck.check(text, fmt, {as_of!r})
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    print(json.dumps([[k[0], k[1], k[2], v[2]] for k, v in stats.items()]))
    raise SystemExit(0)
import gc
in_gc = [0, 0]  # ns in the collector's passes during the checks, and when the running pass started


def collecting(phase, info):
    if phase == "start":
        in_gc[1] = clock()
    else:
        in_gc[0] += clock() - in_gc[1]


gc.callbacks.append(collecting)
for what in {order!r}:
    for text, fmt in lists:
        if what == "check":
            a = clock(); deckcheck.check(text, fmt, {as_of!r}); b = clock()
        else:
            a = clock(); floor(text, table); b = clock()
        out[what].append((b - a) / 1000)
        if what == "check":
            out.setdefault("gc", []).append(in_gc[0] / 1000)
            in_gc[0] = 0
print(json.dumps(out))
"""


def first_sight_code(table: Path, order: list[str], meet: int = len(LISTS), profile: bool = False) -> str:
    """The child of :data:`FIRST_SIGHT_CHILD` that meets the first ``meet`` lists (every list's file is read,
    met or not), in this order of ``check`` and ``floor``."""
    import inspect

    return FIRST_SIGHT_CHILD.format(
        floor_source=inspect.getsource(floor),
        bullet=BULLET,
        table=str(table),
        lists=[(str(p), f) for p, f in LISTS],
        meet=meet,
        order=order,
        warm_up=WARM_UP_DECK,
        as_of=AS_OF,
        profile=profile,
    )


def first_sight_times(table: Path, children: int) -> list[dict[str, list[float]]]:
    """CPU µs of each list's first check and first floor pass in ``children`` fresh processes (check first in
    one, the floor first in the next)."""
    out = []
    for i in range(children):
        order = ["check", "floor"] if i % 2 == 0 else ["floor", "check"]
        code = first_sight_code(table, order)
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=CHILD_ENV)
        if proc.returncode:
            raise SystemExit(f"first-sight child failed: {proc.stderr[-2000:]}")
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def first_sight_profile(table: Path, children: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Where the eight first checks in fresh processes spend their time, by own time (cProfile), added up
    over ``children`` processes (one process's few milliseconds put a single slow call on top): the
    costliest functions and deckcheck's packages (``engine``, ``formats``, ``cards``...; C functions
    count apart), each with its share of the whole."""
    own: dict[str, float] = {}
    packages: dict[str, float] = {}
    for _ in range(children):
        code = first_sight_code(table, ["check"], profile=True)
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=CHILD_ENV)
        if proc.returncode:
            raise SystemExit(f"first-sight profile child failed: {proc.stderr[-2000:]}")
        for path, line, function, seconds in json.loads(proc.stdout.strip().splitlines()[-1]):
            name = f"{function} ({path.rsplit('/', 1)[-1]}:{line})"
            own[name] = own.get(name, 0.0) + seconds
            where = path.replace("\\", "/").split("/deckcheck/", 1)
            package = (
                "C functions"
                if path == "~"
                else where[1].split("/")[0].removesuffix(".py")
                if len(where) == 2
                else "other Python"
            )
            packages[package] = packages.get(package, 0.0) + seconds
    total = sum(own.values())
    top = sorted(own.items(), key=lambda kv: -kv[1])[:4]
    by_package = sorted(packages.items(), key=lambda kv: -kv[1])
    return [(n, t / total) for n, t in top], [(n, t / total) for n, t in by_package]


def first_sight_instructions(table: Path) -> tuple[float, float]:
    """Instructions a list, (first check, first floor pass), in a fresh process after the warm-up check:
    a child that meets the eight lists less one that meets none (callgrind; start-up and the warm-up
    cancel out)."""
    from callgrind_check import process_instructions

    per = []
    for what in ("check", "floor"):
        counts = [
            process_instructions([sys.executable, "-c", first_sight_code(table, [what], meet)], ROOT, CHILD_ENV)
            for meet in (len(LISTS), 0)
        ]
        per.append((counts[0] - counts[1]) / len(LISTS))
    return per[0], per[1]


def one_file_commands(table: Path, deck: Path, fmt: str) -> tuple[list[str], list[str]]:
    """(``deckcheck check DECK``, the floor process for the same list: ``floor_process.py``)."""
    check_cmd = deckcheck_cmd() + ["check", str(deck), "--format", fmt, "--as-of", AS_OF]
    pack = Path(str(cards.get_db().path) + ".pack")
    floor_cmd = [sys.executable, str(ROOT / "benchmarks" / "floor_process.py"), str(pack), str(table), str(deck)]
    return check_cmd, floor_cmd


def verdict_of(cmd: list[str]) -> int:
    return subprocess.run(cmd, cwd=ROOT, env=CHILD_ENV, capture_output=True).returncode


def one_file_times(table: Path, runs: int) -> dict[str, list[float]]:
    """CPU s of whole processes, each list in turn: ``deckcheck check`` and the floor process, alternated;
    a list whose floor verdict differs from deckcheck's stops the run."""
    out: dict[str, list[float]] = {"check": [], "floor": []}
    for deck, fmt in LISTS:
        check_cmd, floor_cmd = one_file_commands(table, deck, fmt)
        if verdict_of(check_cmd) != verdict_of(floor_cmd):
            raise SystemExit(f"the floor process's verdict on {deck.name} is not deckcheck's")
        for r in range(runs):
            pair = [("check", check_cmd), ("floor", floor_cmd)]
            for what, cmd in pair if r % 2 == 0 else pair[::-1]:
                out[what].append(run_child(cmd)[1])
    return out


def one_file_instructions(table: Path, lists: int) -> list[tuple[str, int, int]]:
    """(list, instructions of ``deckcheck check``, of the floor process), for the first ``lists`` lists."""
    from callgrind_check import process_instructions

    out = []
    for deck, fmt in LISTS[:lists]:
        check_cmd, floor_cmd = one_file_commands(table, deck, fmt)
        out.append(
            (
                deck.name,
                process_instructions(check_cmd, ROOT, CHILD_ENV),
                process_instructions(floor_cmd, ROOT, CHILD_ENV),
            )
        )
    return out


def run_child(cmd: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one subprocess."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code not in (0, 1):
        raise SystemExit(f"{shlex.join(cmd)} exited {code}: {err.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def deckcheck_cmd() -> list[str]:
    exe = shutil.which("deckcheck")
    return [exe] if exe else [sys.executable, "-m", "deckcheck"]


def write_files(folder: Path, texts: list[tuple[str, str]], count: int) -> None:
    rng = random.Random(1000)
    for i in range(count):
        sub = folder / f"group{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"deck{i:04d}.txt").write_text(variant(texts[i % len(texts)][0], rng), encoding="utf-8")


# -- report --------------------------------------------------------------------------------


def med(values) -> float:
    return statistics.median(values)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--cli-runs", type=int, default=3)
    ap.add_argument("--http", action="store_true", help="also run wrk_validate.py (takes minutes)")
    ap.add_argument("--http-rounds", type=int, default=4, help="wrk_validate.py's --rounds")
    ap.add_argument("--http-duration", type=int, default=5, help="wrk_validate.py's --duration (seconds)")
    ap.add_argument("--memory", action="store_true", help="also run worker_memory.py (a minute or more)")
    ap.add_argument("--phases", action="store_true", help="only the profile of a check (its steps, line kinds)")
    ap.add_argument("--quick", action="store_true", help="few rounds (a smoke run, not for figures)")
    ap.add_argument(
        "--no-instructions", action="store_true", help="issue #30's rows by time only (no callgrind: minutes less)"
    )
    ap.add_argument(
        "--process-lists", type=int, default=2, help="lists whose whole one-file process callgrind counts (1-8)"
    )
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.starts, args.files, args.cli_runs, args.process_lists = 3, 2, 100, 1, 1
    texts = [(p.read_text(encoding="utf-8"), fmt) for p, fmt in LISTS]
    load = os.getloadavg()[0]
    db = cards.get_db()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load:.2f}; "
        f"database {db.version}: {len(db.cards)} cards"
    )
    print(f"{len(texts)} lists: {', '.join(f'{p.name} ({fmt})' for p, fmt in LISTS)}")

    command = "command: " + shlex.join(
        ["python", "benchmarks/bench_floor.py", *(sys.argv[1:] if argv is None else argv)]
    )
    if args.phases:
        run_profile(texts, args.rounds)
        print(command)
        return 0
    for cmd in (
        [sys.executable, "-c", START_CODE],
        deckcheck_cmd() + ["--version"],
        deckcheck_cmd() + ["check", str(LISTS[0][0])],
    ):
        run_child(cmd)  # writes the .pyc files the measured runs read

    m = in_process(texts, args.rounds)
    f, f6 = med(m["floor"]), med(m["floor+6"])
    warm, cold, fcold = med(m["warm"]), med(m["cold"]), med(m["floor cold"])
    print(f"\nin process, {args.rounds} alternated rounds, CPU µs per list (median of rounds)")
    print(f"  floor (split, one lookup a line, count)   {f:8.1f} µs")
    print(f"  floor + six Standard verdicts             {f6:8.1f} µs")
    print(
        f"  deckcheck warm  check()                   {warm:8.1f} µs   {warm / f:5.2f}x floor  {warm / f6:5.2f}x floor+6"
    )
    print(
        f"  deckcheck warm  check().to_dict()         {med(m['to_dict']):8.1f} µs   {med(m['to_dict']) / f:5.2f}x floor"
    )
    print(
        f"  deckcheck cold  check() (new lines)       {cold:8.1f} µs   {cold / fcold:5.2f}x floor  "
        f"(floor on the same variants {fcold:.1f} µs)"
    )
    tables = med(m["cold tables"])
    print(
        f"  the same, per-card tables emptied too     {tables:8.1f} µs   {tables / fcold:5.2f}x floor  "
        "(each format's legality and printing tables: see clear_card_tables)"
    )

    db = cards.get_db()
    ph = run_profile(texts, args.rounds)
    indexed_codes = getattr(db, "indexed_codes", None)  # session 8: the index of usual lines, code by code
    indexed = indexed_codes() if indexed_codes is not None else None
    if indexed is not None:
        print(
            f"  set codes with their usual lines indexed by now: {len(indexed)} of {len(db._printing_places())} "
            f"(a code at its {getattr(sys.modules['deckcheck.cards.usuallines'], 'INDEX_AFTER', '?')}th line read the long way)"
        )

    fr = fresh(texts, args.starts)
    print(f"\nfresh process, {args.starts} children (first check after the database is loaded)")
    print(
        f"  first check                               {med(r[2] for r in fr):8.1f} µs   "
        f"{med(r[2] / r[4] for r in fr):5.1f}x the floor's first call ({med(r[4] for r in fr):.1f} µs)"
    )
    print(
        f"  same list again                           {med(r[3] for r in fr):8.1f} µs   "
        f"{med(r[3] / r[5] for r in fr):5.1f}x the floor's second call ({med(r[5] for r in fr):.1f} µs)"
    )
    print(
        f"  import + database loaded (in the child)   {med(r[0] for r in fr):8.3f} s wall, {med(r[1] for r in fr):.3f} s CPU"
    )
    print(
        f"  then the engine and rules imported        {med(r[6] for r in fr):8.1f} ms CPU (check() imports them on "
        "first use; not in the first check above)"
    )

    start_code = START_CODE
    bare = [run_child([sys.executable, "-c", "pass"]) for _ in range(args.starts)]
    starts = [run_child([sys.executable, "-c", start_code]) for _ in range(args.starts)]
    version = [run_child(deckcheck_cmd() + ["--version"]) for _ in range(args.starts)]
    print(f"\nstart-up, {args.starts} fresh processes each (wall to exit / CPU), median")
    print(
        f"  python -c pass                            {med(w for w, _ in bare):8.3f} s   {med(c for _, c in bare):.3f} s CPU"
    )
    print(
        f"  import deckcheck + database loaded        {med(w for w, _ in starts):8.3f} s   {med(c for _, c in starts):.3f} s CPU"
    )
    print(
        f"  deckcheck --version                       {med(w for w, _ in version):8.3f} s   {med(c for _, c in version):.3f} s CPU"
    )

    with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
        folder = Path(tmp)
        write_files(folder, texts, args.files)
        cmd = deckcheck_cmd() + ["check", str(folder), "--as-of", AS_OF, "--output-format", "json"]
        run_child(cmd)  # page cache, .pyc files
        runs = [run_child(cmd) for _ in range(args.cli_runs)]
    fw, fc = med(w for w, _ in runs), med(c for _, c in runs)
    print(
        f"\ndeckcheck check DIR --as-of {AS_OF} --output-format json, {args.files} files "
        f"(the lists, counts moved, lines shuffled), {args.cli_runs} runs"
    )
    print(f"  median                                    {fw:8.2f} s wall  {fc:.2f} s CPU")

    i30 = issue30_measures(texts, args)

    http = mem = None
    if args.http:
        http_args = ["--rounds", str(args.http_rounds), "--duration", str(args.http_duration)]
        print(f"\nHTTP (benchmarks/wrk_validate.py {shlex.join(http_args)}, in this process):", flush=True)
        from benchmarks import wrk_validate

        code, http = wrk_validate.run(http_args)
        # beside validate's server CPU beyond the trivial endpoint's, the check itself: its list checked
        # here (warm, as every request of the run posts the same list; the rest is the service's path)
        deck = wrk_validate.DECK.read_text(encoding="utf-8")
        http["code"] = code
        http["check_ms"] = med(cpu_ns(lambda: deckcheck.check(deck, "standard", AS_OF)) for _ in range(200)) / 1e6
    if args.memory:
        mem_args = ["--requests", "1000", "--rounds", "2"]
        print(f"\nworker memory (benchmarks/worker_memory.py {shlex.join(mem_args)}, in this process):", flush=True)
        from benchmarks import worker_memory

        code, mem = worker_memory.run(mem_args)
        mem = {**mem, "code": code}

    start_cpu = med(c for _, c in starts)
    version_cpu = med(c for _, c in version)
    print("\ntargets (CPU time, as the machine is shared; HTTP by requests per second):")
    profiled = {}
    if ph is not None:
        import floor_profile  # imports this module (by name): not at the top

        profiled = {w: f"  (costliest steps, profile above: {floor_profile.biggest(ph, w)})" for w in ("warm", "cold")}
    target(
        f"warm check <= {TARGETS['warm']}x floor", f"{warm / f:.2f}x", warm / f <= TARGETS["warm"], profiled.get("warm")
    )
    target(
        f"cold check <= {TARGETS['cold']}x floor",
        f"{cold / fcold:.2f}x",
        cold / fcold <= TARGETS["cold"],
        profiled.get("cold"),
    )
    # "start-up to a loaded database": from the first import to the database loaded, in the child (the
    # interpreter's own start and exit, `python -c pass`, are not deckcheck's; shown beside it)
    ready_cpu = med(r[1] for r in fr)
    target(
        f"start-up <= {TARGETS['start']} s",
        f"{ready_cpu:.3f} s",
        ready_cpu <= TARGETS["start"],
        f"  (import deckcheck + get_db() in a fresh interpreter, CPU; the whole process to its exit {start_cpu:.3f} s "
        f"against `python -c pass` {med(c for _, c in bare):.3f} s)",
    )
    target(f"--version <= {TARGETS['version']} s", f"{version_cpu:.3f} s", version_cpu <= TARGETS["version"])
    files_ok = fc <= TARGETS["files"] if args.files == 1000 else None
    target(
        f"1,000 files <= {TARGETS['files']} s",
        f"{fc:.2f} s",
        files_ok,
        None if files_ok is not None else f"  ({args.files} files: not the target's 1,000)",
    )
    if http is None:
        target(f"HTTP validate/trivial >= {TARGETS['http']}", "-", None, "  (not measured: add --http)")
    else:
        target(
            f"HTTP validate/trivial >= {TARGETS['http']}",
            f"{http['ratio']:.2f}",
            http["ratio"] >= TARGETS["http"] if not http["code"] else None,
            f"  (median req/s of each; rounds {', '.join(f'{r:.2f}' for r in http['round_ratios'])}; server CPU "
            f"per request trivial/validate {http['cpu_ratio']:.2f}: {http['trivial_cpu_ms']:.3f} / "
            f"{http['validate_cpu_ms']:.3f} ms (system {http['trivial_sys_ms']:.3f} / {http['validate_sys_ms']:.3f}), "
            f"validate's {http['validate_cpu_ms'] - http['trivial_cpu_ms']:.3f} ms "
            f"more; check() of its list, warm, in this process: {http['check_ms']:.3f} ms)"
            + (" INVALID RUN: errors" if http["code"] else ""),
        )
    if mem is None:
        target(f"worker private memory <= {MEMORY_TARGET_MIB:.1f} MiB", "-", None, "  (not measured: add --memory)")
    else:
        this, trivial = mem["this"], mem.get("trivial app")
        target(
            f"worker private memory <= {MEMORY_TARGET_MIB:.1f} MiB",
            f"{this['private']:.1f} MiB",
            this["private"] <= MEMORY_TARGET_MIB if not mem["code"] else None,
            f"  (half of {MEMORY_BASELINE_MIB} MiB; {this['first_private']:.1f} MiB after the 1st request + "
            f"{this['private'] - this['first_private']:.1f} over the 1,000"
            + (
                f"; trivial app {trivial['private']:.1f} MiB ({trivial['first_private']:.1f} after its 1st)"
                if trivial
                else ""
            )
            + ")"
            + (" INVALID RUN: errors" if mem["code"] else ""),
        )
    issue30_targets(
        i30,
        warm / f,
        profiled.get("warm"),
        fc if args.files == 1000 else None,
        med(c for _, c in bare),
        start_cpu,
        http,
        mem,
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(command)
    return 0


#: issue #30's targets: first sight (by instructions, by time) and a whole one-file process as ratios to
#: their floors, warm, 1,000 files (CPU s), HTTP (server CPU per request, trivial/validate) and a worker's
#: private memory over the trivial app's (MiB)
TARGETS_30 = {
    "first instructions": 4.0,
    "first time": 6.0,
    "process": 2.0,
    "warm": 1.5,
    "files": 0.5,
    "http cpu": 0.90,
    "memory over trivial": 3.0,
}


def issue30_measures(texts: list[tuple[str, str]], args) -> dict:
    """Issue #30's figures: the first sight of the eight lists in fresh processes (CPU time per list, each
    check timed once; a profile of it; callgrind's instructions) and whole one-file processes (CPU time;
    callgrind's instructions, with the interpreter's start and the imports apart), each beside its floor."""
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="deckcheck-first-") as tmp:
        table = Path(tmp) / "table.json"
        table.write_text(json.dumps(floor_table(texts)), encoding="utf-8")
        out["first"] = first_sight_times(table, args.starts)
        out["profile"] = first_sight_profile(table, max(3, args.starts // 2))
        out["process"] = one_file_times(table, args.cli_runs)
        if not args.no_instructions:
            from callgrind_check import process_instructions

            out["first ins"] = first_sight_instructions(table)
            out["process ins"] = one_file_instructions(table, args.process_lists)
            out["python ins"] = process_instructions([sys.executable, "-c", "pass"], ROOT, CHILD_ENV)
            out["start ins"] = process_instructions([sys.executable, "-c", START_CODE], ROOT, CHILD_ENV)
    first = out["first"]
    per_check = med(statistics.mean(c["check"]) for c in first)
    per_floor = med(statistics.mean(c["floor"]) for c in first)
    out["first ratio"] = med(sum(c["check"]) / sum(c["floor"]) for c in first)
    print(f"\nfirst sight, {len(first)} fresh processes: the database loaded, one tiny check, then each list once")
    print(
        f"  first check of a list                     {per_check:8.1f} µs   {out['first ratio']:5.2f}x the floor's "
        f"first pass ({per_floor:.1f} µs)"
    )
    print(
        "  by list (µs, median): "
        + ", ".join(f"{p.stem} {med(c['check'][i] for c in first):.0f}" for i, (p, _) in enumerate(LISTS))
    )
    print("  costliest functions of the first checks (cProfile, own time): " + _shares(out["profile"][0]))
    print("  the same by deckcheck's package: " + _shares(out["profile"][1]))
    out["gc share"] = med(sum(c["gc"]) / sum(c["check"]) for c in first)
    print(
        f"  of the first checks' time, the garbage collector's passes: {out['gc share']:.0%} (median of the processes)"
    )
    if "first ins" in out:
        check_ins, floor_ins = out["first ins"]
        print(
            f"  by instructions (callgrind, the lists met less none) {check_ins / 1000:8.1f}k a list   "
            f"{check_ins / floor_ins:5.2f}x the floor's {floor_ins / 1000:.1f}k"
        )
    proc = out["process"]
    out["process ratio"] = med(proc["check"]) / med(proc["floor"])
    print(f"\na whole one-file process, each list in turn, {args.cli_runs} runs each (CPU s, median)")
    print(
        f"  deckcheck check LIST --format F --as-of {AS_OF}  {med(proc['check']):.3f} s   "
        f"{out['process ratio']:5.2f}x the floor process's {med(proc['floor']):.3f} s "
        "(benchmarks/floor_process.py: reads the pack, one SHA-256, a precomputed table, the verdict)"
    )
    if "process ins" in out:
        for name, check_ins, floor_ins in out["process ins"]:
            print(
                f"  by instructions, {name:<32} {check_ins / 1e6:7.1f}M   {check_ins / floor_ins:5.2f}x the floor "
                f"process's {floor_ins / 1e6:.1f}M"
            )
        print(
            f"  of which python -c pass {out['python ins'] / 1e6:.1f}M; python -c '{START_CODE}' "
            f"{out['start ins'] / 1e6:.1f}M"
        )
    return out


def _shares(top: list[tuple[str, float]]) -> str:
    return ", ".join(f"{name} {share:.0%}" for name, share in top)


def issue30_targets(
    i30: dict,
    warm_ratio: float,
    warm_profile: str | None,
    files_cpu: float | None,
    python_cpu: float,
    start_cpu: float,
    http: dict | None,
    mem: dict | None,
) -> None:
    """The issue #30 targets table: each figure, met or not, and when not what stands in the way."""
    t = TARGETS_30
    print("\nissue #30 targets (ratios to floors measured in this run):")
    profile = (
        f"  (the first checks by package, cProfile own time: {_shares(i30['profile'][1][:4])}; "
        f"the collector's passes {i30['gc share']:.0%} of their time)"
    )
    if "first ins" in i30:
        check_ins, floor_ins = i30["first ins"]
        ratio = check_ins / floor_ins
        ok = ratio <= t["first instructions"]
        target(
            f"first sight <= {t['first instructions']}x floor, instructions",
            f"{ratio:.2f}x",
            ok,
            f"  ({check_ins / 1000:.0f}k / {floor_ins / 1000:.0f}k a list)" + ("" if ok else profile),
        )
    else:
        target(f"first sight <= {t['first instructions']}x floor, instructions", "-", None, "  (--no-instructions)")
    ok = i30["first ratio"] <= t["first time"]
    target(f"first sight <= {t['first time']}x floor, time", f"{i30['first ratio']:.2f}x", ok, None if ok else profile)
    proc = i30["process"]
    if "process ins" in i30:
        ratios = [c / f for _, c, f in i30["process ins"]]
        ratio = med(ratios)
        ok = ratio <= t["process"]
        check_ins = med(c for _, c, _ in i30["process ins"])
        note = f"  ({check_ins / 1e6:.0f}M / {med(f for _, _, f in i30['process ins']) / 1e6:.0f}M"
        if not ok:
            note += (
                f"; of deckcheck's: the interpreter {i30['python ins'] / 1e6:.0f}M, imports and the database "
                f"{(i30['start ins'] - i30['python ins']) / 1e6:.0f}M, the check and its output "
                f"{(check_ins - i30['start ins']) / 1e6:.0f}M"
            )
        target(f"one-file process <= {t['process']}x floor, instructions", f"{ratio:.2f}x", ok, note + ")")
    else:
        target(f"one-file process <= {t['process']}x floor, instructions", "-", None, "  (--no-instructions)")
    ok = i30["process ratio"] <= t["process"]
    note = f"  ({med(proc['check']):.3f} / {med(proc['floor']):.3f} s CPU"
    if not ok:
        note += (
            f"; of deckcheck's: python -c pass {python_cpu:.3f} s, import deckcheck and the database "
            f"{start_cpu - python_cpu:.3f} s, the check and its output {med(proc['check']) - start_cpu:.3f} s"
        )
    target(f"one-file process <= {t['process']}x floor, time", f"{i30['process ratio']:.2f}x", ok, note + ")")
    ok = warm_ratio <= t["warm"]
    target(f"warm check <= {t['warm']}x floor", f"{warm_ratio:.2f}x", ok, None if ok else warm_profile)
    if files_cpu is None:
        target(f"1,000 files <= {t['files']} s", "-", None, "  (not 1,000 files: not judged)")
    else:
        ok = files_cpu <= t["files"]
        note = f"  (start-up {start_cpu:.3f} s, then {(files_cpu - start_cpu):.3f} s for the files)"
        target(f"1,000 files <= {t['files']} s", f"{files_cpu:.2f} s", ok, None if ok else note)
    if http is None:
        target(f"HTTP server CPU trivial/validate >= {t['http cpu']}", "-", None, "  (not measured: add --http)")
    else:
        ok = http["cpu_ratio"] >= t["http cpu"] if not http["code"] else None
        note = (
            f"  ({http['trivial_cpu_ms']:.3f} / {http['validate_cpu_ms']:.3f} ms a request"
            + (
                ""
                if ok
                else f"; validate's {http['validate_cpu_ms'] - http['trivial_cpu_ms']:.3f} ms more, of which the "
                f"check of its list {http['check_ms']:.3f} ms"
            )
            + ")"
            + (" INVALID RUN: errors" if http["code"] else "")
        )
        target(f"HTTP server CPU trivial/validate >= {t['http cpu']}", f"{http['cpu_ratio']:.2f}", ok, note)
    if mem is None or mem.get("trivial app") is None:
        target(
            f"worker private <= trivial + {t['memory over trivial']:.0f} MiB",
            "-",
            None,
            "  (not measured: add --memory)",
        )
    else:
        this, trivial = mem["this"], mem["trivial app"]
        over = this["private"] - trivial["private"]
        ok = over <= t["memory over trivial"] if not mem["code"] else None
        note = (
            f"  ({this['private']:.1f} / {trivial['private']:.1f} MiB"
            + (
                ""
                if ok
                else f"; {this['first_private'] - trivial['first_private']:+.1f} after the first request, "
                f"{(this['private'] - this['first_private']) - (trivial['private'] - trivial['first_private']):+.1f} "
                f"more growth over the 1,000; of the private memory, the master's pages copied on write "
                f"{this.get('copied', -1):.1f} against the trivial app's {trivial.get('copied', -1):.1f}, "
                f"{this.get('first_copied', -1):.1f} and {trivial.get('first_copied', -1):.1f} after the first request"
            )
            + ")"
            + (" INVALID RUN: errors" if mem["code"] else "")
        )
        target(f"worker private <= trivial + {t['memory over trivial']:.0f} MiB", f"{over:+.1f} MiB", ok, note)


def target(label: str, figure: str, ok: bool | None, note: str | None = None) -> None:
    """One line of the targets: the target, the figure, met / NOT met (None: not judged), a note."""
    judged = "not judged" if ok is None else verdict(ok)
    print(f"  {label:<40} {figure:>10}  {judged:<10}{note or ''}".rstrip())


def run_profile(texts: list[tuple[str, str]], rounds: int) -> dict | None:
    """Print the profile (benchmarks/floor_profile.py); None when it could not run."""
    import floor_profile  # imports this module (by name): not at the top

    try:
        ph = floor_profile.profile(texts, rounds)
    except Exception as exc:  # noqa: BLE001 - its steps mirror engine.check(): a change there must not stop the run
        print(f"\nprofile failed: {exc!r} (benchmarks/floor_profile.py mirrors deckcheck/engine/__init__.py's check())")
        return None
    floor_profile.show(ph)
    return ph


if __name__ == "__main__":
    sys.exit(main())
