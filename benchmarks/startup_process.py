"""A whole ``deckcheck check LIST`` process, and its imports, in two trees side by side.

Each tree's deckcheck is put first on ``PYTHONPATH`` and run as ``python -m deckcheck check LIST`` from a
folder of its own (no settings file), bytecode cached by a first run; ``PYTHONHASHSEED=0``:

* ``instructions``: the whole process under ``valgrind --tool=callgrind`` (exact, one run each), and
  ``import instructions``: a process that only imports the command (``import deckcheck.cli.check``);
  ``worker instructions``: a process that builds the app and answers one validate request of the list
  (Flask's test client), as a new worker does;
* ``time``: wall and CPU (user + system) of the process, the trees alternated ``--runs`` times, medians;
* ``importtime``: ``-X importtime``'s self time of each module, its median over the runs, summed over
  the modules (a median per module: one slow run of a module on a shared machine does not count).

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
_IMPORT = re.compile(r"^import time:\s+(\d+) \|\s+\d+ \| +(\S+)$", re.M)


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve()), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode written by the first run, read by the others
    return env


def _command(deck: str, *extra: str) -> list[str]:
    return [sys.executable, *extra, "-m", "deckcheck", "check", deck]


#: a process that imports the check command and does nothing else
IMPORT_ONLY = [sys.executable, "-c", "import deckcheck.cli.check"]
#: a process that builds the app and answers one validate request of the list (argv[1])
WORKER = [
    sys.executable,
    "-c",
    "import sys\n"
    "from deckcheck.service.app import create_app\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "answer = create_app().test_client().post('/api/v1/validate', json={'decklist': text})\n"
    "assert answer.status_code == 200, answer.status_code\n",
]


def instructions(tree: Path, folder: Path, command: list[str]) -> int:
    """Instructions of the whole process running ``command``, counted by callgrind."""
    out = folder / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
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


def import_times(tree: Path, folder: Path, deck: str) -> dict[str, int]:
    """Each module's own import time in microseconds (``-X importtime``)."""
    done = subprocess.run(
        _command(deck, "-X", "importtime"), cwd=folder, env=_env(tree), capture_output=True, text=True, check=False
    )
    return {module: int(us) for us, module in _IMPORT.findall(done.stderr)}


def import_total(runs: list[dict[str, int]]) -> float:
    """Milliseconds: each module's median self time over the runs, summed."""
    modules = {module for run in runs for module in run}
    return sum(statistics.median(run.get(module, 0) for run in runs) for module in modules) / 1000


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
            subprocess.run([*WORKER, deck], cwd=folder, env=_env(tree), capture_output=True, check=True)
        counts = {tree: 0 if args.no_callgrind else instructions(tree, folder, _command(deck)) for tree in args.tree}
        imported = {tree: 0 if args.no_callgrind else instructions(tree, folder, IMPORT_ONLY) for tree in args.tree}
        worker = {tree: 0 if args.no_callgrind else instructions(tree, folder, [*WORKER, deck]) for tree in args.tree}
        walls: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        cpus: dict[Path, list[float]] = {tree: [] for tree in args.tree}
        imports: dict[Path, list[dict[str, int]]] = {tree: [] for tree in args.tree}
        for _ in range(args.runs):
            for tree in args.tree:
                wall, cpu = timed(tree, folder, deck)
                walls[tree].append(wall)
                cpus[tree].append(cpu)
                imports[tree].append(import_times(tree, folder, deck))
    print(
        f"{'tree':32} {'instructions':>14} {'import instr.':>14} {'worker instr.':>14} {'wall ms':>9} {'CPU ms':>9} "
        f"{'imports ms':>11}"
    )
    for tree in args.tree:
        print(
            f"{str(tree):32} {counts[tree]:>14,} {imported[tree]:>14,} {worker[tree]:>14,} "
            f"{statistics.median(walls[tree]) * 1000:>9.1f} "
            f"{statistics.median(cpus[tree]) * 1000:>9.1f} {import_total(imports[tree]):>11.1f}"
        )


if __name__ == "__main__":
    main()
