"""A whole ``deckcheck check LIST`` process, and its imports, in two trees side by side.

Each tree's deckcheck is put first on ``PYTHONPATH`` and run as ``python -m deckcheck check LIST`` from a
folder of its own (no settings file), bytecode cached by a first run; ``PYTHONHASHSEED=0``:

* ``instructions``: the whole process under ``valgrind --tool=callgrind`` (exact, one run each);
* ``time``: wall and CPU (user + system) of the process, the trees alternated ``--runs`` times, medians;
* ``importtime``: the sum of ``-X importtime``'s self times of every module, medians of the runs.

    python benchmarks/startup_process.py --tree /tmp/startup-base --tree . [--runs 15] [--list FILE]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"
_TOTAL = re.compile(r"^==\d+== Collected : (\d+)", re.M)
_IMPORT = re.compile(r"^import time:\s+(\d+) \|", re.M)


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve()), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode written by the first run, read by the others
    return env


def _command(deck: str, *extra: str) -> list[str]:
    return [sys.executable, *extra, "-m", "deckcheck", "check", deck]


def instructions(tree: Path, folder: Path, deck: str) -> int:
    """Instructions of the whole process, counted by callgrind."""
    out = folder / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *_command(deck)],
        cwd=folder,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=False,
    )
    found = _TOTAL.search(done.stderr)
    if done.returncode not in (0, 1) or found is None:
        raise SystemExit(f"callgrind failed in {tree}:\n{done.stderr[-2000:]}")
    out.unlink(missing_ok=True)
    return int(found.group(1))


def timed(tree: Path, folder: Path, deck: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(_command(deck), cwd=folder, env=_env(tree), capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_total(tree: Path, folder: Path, deck: str) -> float:
    """Milliseconds of every module's own import time (``-X importtime``), summed."""
    done = subprocess.run(
        _command(deck, "-X", "importtime"), cwd=folder, env=_env(tree), capture_output=True, text=True, check=False
    )
    return sum(int(us) for us in _IMPORT.findall(done.stderr)) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, required=True, help="a tree (repeat: 2 trees)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--list", type=Path, default=LIST)
    parser.add_argument("--no-callgrind", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deck = args.list.name
        shutil.copy(args.list, folder / deck)
        for tree in args.tree:  # bytecode written, the database's files read once
            timed(tree, folder, deck)
        counts = {tree: 0 if args.no_callgrind else instructions(tree, folder, deck) for tree in args.tree}
        walls: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        cpus: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        imports: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        for _ in range(args.runs):
            for tree in args.tree:
                wall, cpu = timed(tree, folder, deck)
                walls[tree].append(wall)
                cpus[tree].append(cpu)
                imports[tree].append(import_total(tree, folder, deck))
    print(f"{'tree':40} {'instructions':>14} {'wall ms':>9} {'CPU ms':>9} {'imports ms':>11}")
    for tree in args.tree:
        print(
            f"{str(tree):40} {counts[tree]:>14,} {statistics.median(walls[tree]) * 1000:>9.1f} "
            f"{statistics.median(cpus[tree]) * 1000:>9.1f} {statistics.median(imports[tree]):>11.1f}"
        )


if __name__ == "__main__":
    main()
