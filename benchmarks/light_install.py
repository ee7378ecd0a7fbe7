"""Benchmark: what ``pip install deckcheck`` (no extras) costs, against ``pip install 'deckcheck[server]'``.

Builds the wheel from this checkout, installs it into two new virtualenvs (no system
site-packages) at the versions of requirements.lock, one without extras and one with the
``server`` extra, and reports for each: the disk the install added to the fresh virtualenv
(``du``), the distributions it brought, and the CPU time (user + sys, median; wall time next to
it) of ``deckcheck --version``. CPU time, because wall time on a shared machine mostly measures
the other work.

    python benchmarks/light_install.py [--runs 21]

Needs the ``build`` package and setuptools >= 77 in the running Python (the test extra has
both), and pip's package index (or its cache).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def du_kib(path: Path) -> int:
    return int(subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


def timed(argv: list[str], runs: int, cwd: Path) -> tuple[float, float]:
    """Median CPU seconds (user + sys of the child) and median wall seconds of ``argv`` over ``runs`` runs."""
    cpu, wall = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(tmp / "dist"), str(ROOT)],
            check=True,
            capture_output=True,
            env=env,
        )
        wheel = next((tmp / "dist").glob("*.whl"))
        for label, spec in (("deckcheck (no extras)", str(wheel)), ("deckcheck[server]", f"{wheel}[server]")):
            venv = tmp / label.split()[0]
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
            fresh = du_kib(venv)
            subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "-c",
                    str(ROOT / "requirements.lock"),
                    spec,
                ],
                check=True,
                env=env,
            )
            added = du_kib(venv) - fresh
            frozen = subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    "-m",
                    "pip",
                    "list",
                    "--format=freeze",
                    "--exclude",
                    "pip",
                    "--exclude",
                    "setuptools",
                ],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            ).stdout.split()
            cpu, wall = timed([str(venv / "bin" / "deckcheck"), "--version"], args.runs, tmp)
            print(
                f"{label}: +{added / 1024:.1f} MiB on disk, {len(frozen)} distributions; "
                f"deckcheck --version {cpu * 1000:.0f} ms CPU (wall {wall * 1000:.0f} ms), median of {args.runs}"
            )
            print("  " + " ".join(frozen))
        base_cpu, base_wall = timed([sys.executable, "-c", "pass"], args.runs, tmp)
        print(f"python -c pass: {base_cpu * 1000:.0f} ms CPU (wall {base_wall * 1000:.0f} ms), median of {args.runs}")


if __name__ == "__main__":
    main()
