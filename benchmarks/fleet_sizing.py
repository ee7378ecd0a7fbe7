"""Sizing a fleet: checks per second per worker, memory per worker, and memory after a database swap.

Starts ``deckcheck serve`` (gunicorn, deckcheck's worker) with 1 and then 2 workers on a free
loopback port, posts a real 60-card list to ``/api/v1/validate`` with wrk, and reads each
process's proportional set size (PSS: shared pages divided among the processes sharing them)
from ``/proc/<pid>/smaps_rollup``. Then it swaps the card database two ways and measures again:

* in the master (the default: the master notices the new file, loads it and re-forks the
  workers, so they share it);
* in each worker (``DECKCHECK_DB_RELOAD_INTERVAL=0`` and ``kill -HUP <worker>``: each loads
  its own copy).

    python benchmarks/fleet_sizing.py [--duration 10] [--connections 4]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.wrk_validate import lua_script  # noqa: E402

DECK = ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return sorted(out)


def memory(pid: int) -> dict[str, float]:
    """Rss, Pss and private (clean + dirty) memory of one process, MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) / 1024
    return {"rss": fields["Rss"], "pss": fields["Pss"], "private": fields["Private_Clean"] + fields["Private_Dirty"]}


def readyz(base: str) -> dict:
    with urllib.request.urlopen(base + "/readyz", timeout=10) as answer:
        return json.load(answer)


def wait_up(base: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            readyz(base)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the service did not start")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes, seconds."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def wrk(base: str, script: Path, args, master: int | None = None) -> tuple[float, float | None]:
    """(requests per second, server CPU ms per request)."""
    pids = ([master] + children(master)) if master else []
    before = cpu_seconds(pids) if pids else 0.0
    out = subprocess.run(
        ["wrk", "-t1", f"-c{args.connections}", f"-d{args.duration}s", "-s", str(script), base + "/api/v1/validate"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    errors = re.search(r"Socket errors: .*|Non-2xx.*", out)
    if errors:
        print("  wrk:", errors.group(0))
    done = int(re.search(r"(\d+) requests in", out).group(1))
    cpu = (cpu_seconds(pids) - before) * 1000 / done if pids and done else None
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), cpu


def show(label: str, master: int) -> list[dict]:
    rows = [memory(pid) for pid in children(master)]
    m = memory(master)
    print(
        f"  {label}: master PSS {m['pss']:.1f} MiB; workers PSS "
        + ", ".join(f"{r['pss']:.1f}" for r in rows)
        + " MiB; workers private "
        + ", ".join(f"{r['private']:.1f}" for r in rows)
        + " MiB; RSS "
        + ", ".join(f"{r['rss']:.1f}" for r in rows)
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=4)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    body = json.dumps(
        {"decklist": DECK.read_text(encoding="utf-8"), "format": "standard", "as_of": "2026-05-01"}
    ).encode()
    print(f"CPUs {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        script = lua_script(folder, body)
        db = folder / "cards.json.gz"
        shutil.copy(ROOT / "data" / "cards.json.gz", db)
        for workers, mode in ((1, "master"), (2, "master"), (2, "worker")):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            env = {
                **os.environ,
                "DECKCHECK_BIND": f"127.0.0.1:{port}",
                "DECKCHECK_DB": str(db),
                "DECKCHECK_RATELIMIT_ENABLED": "false",
                "DECKCHECK_DRAIN_SECONDS": "0",
                "DECKCHECK_DB_RELOAD_INTERVAL": "1" if mode == "master" else "0",
                "DECKCHECK_LOG_FORMAT": "json",
            }
            proc = subprocess.Popen(
                [sys.executable, "-m", "deckcheck", "serve", "--workers", str(workers)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_up(base)
                wrk(base, script, argparse.Namespace(connections=args.connections, duration=2))  # warm-up
                rps, cpu = wrk(base, script, args, proc.pid)
                print(
                    f"{workers} worker(s), database reloads in the {mode}: {rps:.0f} checks/s "
                    f"({rps / workers:.0f} per worker); server CPU {cpu:.3f} ms per check "
                    f"(~{1000 / cpu:.0f} checks/s per busy CPU)"
                )
                show("after load", proc.pid)
                if workers == 2:
                    before = readyz(base)["database"]["version"]
                    raw = gzip.decompress(db.read_bytes())
                    tmp = folder / "next.json.gz"
                    tmp.write_bytes(gzip.compress(raw, compresslevel=6 if mode == "master" else 5, mtime=1))
                    os.replace(tmp, db)  # same cards, a new version
                    if mode == "worker":
                        for pid in children(proc.pid):
                            os.kill(pid, signal.SIGHUP)  # each worker loads the file itself
                    deadline = time.monotonic() + 60
                    while readyz(base)["database"]["version"] == before and time.monotonic() < deadline:
                        time.sleep(0.2)
                    time.sleep(3)  # the old workers stop gracefully
                    wrk(base, script, args)
                    show(
                        "after a swap in the master (re-forked workers)"
                        if mode == "master"
                        else "after a swap in each worker (SIGHUP to each)",
                        proc.pid,
                    )
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
