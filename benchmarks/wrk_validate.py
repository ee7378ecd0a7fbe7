"""Benchmark: ``POST /api/v1/validate`` under wrk, against a trivial Flask JSON endpoint on the same gunicorn.

Starts gunicorn twice on free loopback ports with the committed
``deckcheck/service/gunicorn_conf.py`` (same workers, threads and logging): once for deckcheck
(``deckcheck:create_app()``), once for ``benchmarks/trivial_app.py``. Then wrk
(Debian's package) posts a real 60-card list as JSON
(``tests/decks/standard-legal-dragapult.txt``, Standard, as of 2026-05-01) to
each, after a warm-up, in interleaved rounds of a bounded time, and the script
prints the median requests per second of both and their ratio (the headline),
the per-round ratios, latency percentiles and server CPU per request. Every request runs a
full check: the service caches no answers.

Targets: validate throughput >= 85 % of the trivial endpoint's (issue #16: "HTTP >= 0.85 of the trivial
endpoint"); validate p99 <= 20 ms.

Contenders: ``--worker-class`` (repeatable) runs each app under each gunicorn worker class named
(``gthread``, ``deckcheck.service.worker.DeckcheckWorker``; default: the config's), and ``--source LABEL=DIR``
(repeatable) runs each under another checkout of deckcheck as well as this one (e.g. main's tree from
``git archive``, for a before/after in one run). Every contender's two apps run at once, the rounds go
through all of them (the order reversed every other round), and the report adds each contender's
throughput as a ratio to the first one's.

    python benchmarks/wrk_validate.py [--duration 10] [--connections 4] [--threads 1] [--rounds 12]
                                      [--workers N] [--worker-threads N]
                                      [--worker-class CLASS ...] [--source LABEL=DIR ...]

From Python, :func:`run` answers the return code and the first contender's figures
(``benchmarks/bench_floor.py --http`` folds them into its targets).
"""

from __future__ import annotations

import argparse
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
DECK = ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"
APPS = {"trivial": "benchmarks.trivial_app:app", "validate": "deckcheck:create_app()"}
PATH = "/api/v1/validate"
TARGET_RATIO = 0.85  # issue #16's number
TARGET_P99_MS = 20.0
#: one client address sends everything here: the per-address rate limit would answer 429s
BENCH_ENV = {"DECKCHECK_RATELIMIT_ENABLED": "false"}
_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lua_script(folder: Path, body: bytes) -> Path:
    """A wrk script that POSTs ``body`` as JSON."""
    body_path = folder / "body.json"
    body_path.write_bytes(body)
    script = folder / "post.lua"
    script.write_text(
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f'local f = assert(io.open({json.dumps(str(body_path))}, "rb"))\n'
        'wrk.body = f:read("*a")\n'
        "f:close()\n",
        encoding="utf-8",
    )
    return script


def start(
    app_spec: str, args: argparse.Namespace, log: Path, root: Path = ROOT, worker_class: str | None = None
) -> tuple[subprocess.Popen, str]:
    """gunicorn with the committed settings of the checkout at ``root`` on a free loopback port; returns
    (process, base URL)."""
    port = free_port()
    # a checkout from before the service modules moved into deckcheck/service/ (--source) has them in deckcheck/
    moved = (root / "deckcheck" / "service" / "gunicorn_conf.py").is_file()
    if worker_class and not moved:
        worker_class = worker_class.replace("deckcheck.service.", "deckcheck.", 1)
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:deckcheck.service.gunicorn_conf" if moved else "python:deckcheck.gunicorn_conf",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.worker_threads:
        cmd += ["--threads", str(args.worker_threads)]
    if worker_class:
        cmd += ["--worker-class", worker_class]
    cmd.append(app_spec)
    env = {**os.environ, **BENCH_ENV}
    if root != ROOT:  # that checkout's deckcheck, not the installed one
        env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err)
    return proc, f"http://127.0.0.1:{port}"


def post(url: str, body: bytes) -> dict:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def wait_ready(proc: subprocess.Popen, url: str, body: bytes, log: Path) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            return post(url, body)
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 s")


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wrk(url: str, script: Path, args: argparse.Namespace, seconds: int) -> tuple[list[str], str]:
    cmd = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s", "--latency", "-s", str(script), url]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60, check=True)
    return cmd, done.stdout


def parse_wrk(output: str) -> dict:
    """Requests/s, latency percentiles (ms) and error counts from wrk's ``--latency`` report."""
    figures = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))}
    for pct in ("50", "75", "90", "99"):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)
        figures[f"p{pct}"] = float(m.group(1)) * _UNITS[m.group(2)]
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    figures["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    figures["socket_errors"] = sum(int(g) for g in m.groups()) if m else 0
    figures["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    return figures


def server_cpu(master: int) -> tuple[float, float]:
    """(user, system) CPU seconds of the gunicorn master and its workers so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == master or ppid == master:
            user += int(fields[11]) / tick
            system += int(fields[12]) / tick
    return user, system


def run_round(name: str, proc: subprocess.Popen, url: str, script: Path, args: argparse.Namespace) -> tuple:
    """One wrk measurement of one app: (wrk command, figures with server CPU per request)."""
    user_before, sys_before = server_cpu(proc.pid)
    cmd, output = wrk(url, script, args, args.duration)
    figures = parse_wrk(output)
    # CPU per request depends less on what else the machine runs than req/s does; user (Python) and
    # system (the kernel: sockets) apart
    user, system = server_cpu(proc.pid)
    per = 1000 / max(figures["requests"], 1)
    figures["user_ms"], figures["sys_ms"] = (user - user_before) * per, (system - sys_before) * per
    figures["cpu_ms"] = figures["user_ms"] + figures["sys_ms"]
    return cmd, figures


def contenders(args: argparse.Namespace) -> dict[str, tuple[Path, str | None]]:
    """Label -> (checkout, worker class or None for the config's): every source under every worker class."""
    sources = [("", ROOT)]
    for item in args.source:
        label, sep, folder = item.partition("=")
        if not sep or not label or not Path(folder, "deckcheck", "__init__.py").is_file():
            raise SystemExit(f"--source wants LABEL=DIR, DIR a checkout of deckcheck: {item!r}")
        sources.append((label, Path(folder).resolve()))
    classes = args.worker_class or [None]
    out = {}
    for label, root in sources:
        for worker_class in classes:
            name = " ".join(filter(None, [label, (worker_class or "").rsplit(".", 1)[-1] if len(classes) > 1 else ""]))
            out[name or "this"] = (root, worker_class)
    return out


def measure(body: bytes, script: Path, args: argparse.Namespace, folder: Path) -> tuple[dict, dict, list]:
    """Every contender's two apps up at once, rounds interleaved (each contender's trivial then validate,
    then the other way round), so that all see the same machine: a neighbour's load on this shared VM moves
    req/s by tens of percent within a minute. Returns ({contender: {app: rounds}}, {contender: per-round
    throughput ratios}, the wrk command)."""
    servers = {}
    runs = contenders(args)
    try:
        for label, (root, worker_class) in runs.items():
            for name in APPS:
                log = folder / f"{label}-{name}.log".replace(" ", "_")
                proc, base = start(APPS[name], args, log, root, worker_class)
                servers[label, name] = (proc, base + PATH, log)
        for (label, name), (proc, url, log) in servers.items():
            answer = wait_ready(proc, url, body, log)
            if name == "validate" and answer.get("valid") is not True:
                raise SystemExit(f"the benchmark deck is not valid ({label}): {answer.get('summary', answer)}")
            wrk(url, script, args, args.warmup)
        rounds = {label: {name: [] for name in APPS} for label in runs}
        ratios = {label: [] for label in runs}
        for i in range(args.rounds):
            order = [(label, name) for label in runs for name in APPS]
            if i % 2:
                order.reverse()
            this = {}
            for label, name in order:
                proc, url, _ = servers[label, name]
                cmd, this[label, name] = run_round(name, proc, url, script, args)
                rounds[label][name].append(this[label, name])
            for label in runs:
                ratios[label].append(this[label, "validate"]["rps"] / this[label, "trivial"]["rps"])
    finally:
        for proc, _, _ in servers.values():
            stop(proc)
    return rounds, ratios, cmd


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def summarise(rounds: list[dict]) -> dict:
    """The median of each figure over the rounds (requests and errors: totals)."""
    out = {key: median([r[key] for r in rounds]) for key in rounds[0]}
    for key in ("requests", "non_2xx", "socket_errors"):
        out[key] = sum(r[key] for r in rounds)
    out["p99_worst"] = max(r["p99"] for r in rounds)
    return out


def run(argv: list[str] | None = None) -> tuple[int, dict]:
    """The benchmark as :func:`main` runs it (same output); answers (return code, the first contender's
    figures: :func:`figures`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds of measurement per app and round")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of unmeasured load first")
    parser.add_argument("--connections", type=int, default=4, help="wrk connections (concurrent clients)")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument(
        "--workers", type=int, default=None, help="gunicorn workers (default: deckcheck/service/gunicorn_conf.py)"
    )
    parser.add_argument(
        "--worker-threads",
        type=int,
        default=None,
        help="gunicorn threads per worker (default: deckcheck/service/gunicorn_conf.py)",
    )
    parser.add_argument("--rounds", type=int, default=12, help="interleaved measurements per app; medians are reported")
    parser.add_argument(
        "--worker-class",
        action="append",
        default=[],
        help="a gunicorn worker class to run both apps under (repeat to compare; default: the config's)",
    )
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="another checkout of deckcheck to run as well (repeat for more), e.g. main's tree from git archive",
    )
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    body = json.dumps(
        {"decklist": DECK.read_text(encoding="utf-8"), "format": "standard", "as_of": "2026-05-01"}
    ).encode()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="deckcheck-wrk-") as tmp:
        folder = Path(tmp)
        script = lua_script(folder, body)
        rounds, ratios, cmd = measure(body, script, args, folder)
    results = {label: {name: summarise(rounds[label][name]) for name in APPS} for label in rounds}
    for label in results:
        if len(results) > 1:
            root, worker_class = contenders(args)[label]
            print(f"\n== {label}: {root}, worker class {worker_class or 'from the config'}")
        report(results[label], ratios[label], args, cmd)
    if len(results) > 1:
        compare(results)
    # other processes on the machine skew both runs: say how busy it was
    print(f"load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    failed = {
        (label, name): r["non_2xx"] + r["socket_errors"]
        for label, apps in results.items()
        for name, r in apps.items()
        if r["non_2xx"] + r["socket_errors"]
    }
    first = next(iter(results))
    summary = figures(first, results[first], ratios[first])
    if failed:
        print(f"INVALID RUN: error responses or socket errors {failed}; the figures above do not count")
        return 1, {**summary, "invalid": failed}
    return 0, summary


def main(argv: list[str] | None = None) -> int:
    return run(argv)[0]


def figures(label: str, results: dict, ratios: list[float]) -> dict:
    """One contender's headline figures: ``ratio`` (median req/s, validate/trivial), ``round_ratios``,
    ``cpu_ratio`` (server CPU per request, trivial/validate), ``validate_cpu_ms``, ``trivial_cpu_ms`` (and
    their system part, ``validate_sys_ms``, ``trivial_sys_ms``),
    ``p99_worst`` (validate's worst round, ms), ``validate_rps``, ``trivial_rps``, ``label``."""
    trivial, validate = results["trivial"], results["validate"]
    return {
        "label": label,
        "ratio": validate["rps"] / trivial["rps"],
        "round_ratios": list(ratios),
        "cpu_ratio": trivial["cpu_ms"] / validate["cpu_ms"],
        "validate_cpu_ms": validate["cpu_ms"],
        "trivial_cpu_ms": trivial["cpu_ms"],
        "validate_sys_ms": validate["sys_ms"],
        "trivial_sys_ms": trivial["sys_ms"],
        "p99_worst": validate["p99_worst"],
        "validate_rps": validate["rps"],
        "trivial_rps": trivial["rps"],
    }


def report(results: dict, ratios: list[float], args: argparse.Namespace, cmd: list[str]) -> None:
    trivial, validate = results["trivial"], results["validate"]
    ratio = validate["rps"] / trivial["rps"]
    shown = " ".join(cmd[:-3] + ["post.lua", "http://127.0.0.1:PORT" + PATH])
    print(
        f"wrk: {shown}  (rounds: {args.rounds}, warm-up {args.warmup}s; deckcheck/service/gunicorn_conf.py, workers "
        f"{args.workers or 'from the config'}, threads {args.worker_threads or 'from the config'}, "
        f"CPUs {os.cpu_count()})"
    )
    print(
        f"{'endpoint':<10} {'req/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'requests':>9} {'errors':>7} "
        f"{'server CPU ms/req':>18} {'(user':>7} {'+ sys)':>7}"
    )
    for name, r in results.items():
        errors = r["non_2xx"] + r["socket_errors"]
        print(
            f"{name:<10} {r['rps']:>9.1f} {r['p50']:>8.2f} {r['p90']:>8.2f} {r['p99']:>8.2f} "
            f"{r['requests']:>9} {errors:>7} {r['cpu_ms']:>18.3f} {r['user_ms']:>7.3f} {r['sys_ms']:>7.3f}"
        )
    # wrk opens its 4 connections afresh each round and the kernel hands them to the 3 workers
    # at random: a round where one worker got none (or all) is an outlier in either direction,
    # so the headline compares each app's median round rather than pairing two placements
    print(
        f"validate/trivial throughput, median req/s of each: {ratio:.1%} (target >= {TARGET_RATIO:.0%}: "
        f"{'met' if ratio >= TARGET_RATIO else 'MISSED'})"
    )
    print(
        "validate/trivial throughput round by round: "
        + ", ".join(f"{r:.1%}" for r in ratios)
        + f"; their median {median(ratios):.1%}"
    )
    print(f"server CPU per request, trivial/validate: {trivial['cpu_ms'] / validate['cpu_ms']:.1%}")
    worst = validate["p99_worst"]
    print(
        f"validate p99: {validate['p99']:.2f} ms median, {worst:.2f} ms in the worst round "
        f"(target <= {TARGET_P99_MS:.0f} ms: {'met' if worst <= TARGET_P99_MS else 'MISSED'})"
    )


def compare(results: dict) -> None:
    """Each contender's median req/s and server CPU per request as a ratio to the first contender's."""
    first = next(iter(results))
    print(f"\n== contenders against {first!r} (median req/s ratio; server CPU ms/req ratio)")
    print(f"{'contender':<28} {'trivial':>16} {'validate':>16} {'validate/trivial':>17}")
    for label, apps in results.items():
        cells = []
        for name in APPS:
            rps = apps[name]["rps"] / results[first][name]["rps"]
            cpu = apps[name]["cpu_ms"] / results[first][name]["cpu_ms"]
            cells.append(f"{rps:6.1%} ; {cpu:5.2f}x")
        ratio = apps["validate"]["rps"] / apps["trivial"]["rps"]
        print(f"{label:<28} {cells[0]:>16} {cells[1]:>16} {ratio:>17.1%}")


if __name__ == "__main__":
    sys.exit(main())
