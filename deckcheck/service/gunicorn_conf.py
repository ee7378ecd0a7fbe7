"""gunicorn settings for deckcheck: ``deckcheck serve`` runs gunicorn with this module
(``--config python:deckcheck.service.gunicorn_conf``), so an installed wheel carries them.

Every value can be changed without editing it: ``DECKCHECK_BIND``,
``DECKCHECK_WORKERS``, ``DECKCHECK_THREADS``, ``DECKCHECK_TIMEOUT`` and ``DECKCHECK_REUSE_PORT`` here
(the worker's own timeouts are read by deckcheck/service/worker/), and
any other gunicorn setting through ``GUNICORN_CMD_ARGS`` (command-line flags
win over this file).
"""

import os
import shutil
import tempfile


def _cpus() -> int:
    """CPUs this process may use: the affinity mask, narrowed by a cgroup CPU quota (a container's
    CPU limit), at least 1 (deckcheck/service/runtime.py)."""
    from deckcheck.service.runtime import cpu_count

    return cpu_count()


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {value!r}") from None
    if number < 1:
        raise SystemExit(f"{name} must be at least 1, not {number}")
    return number


wsgi_app = "deckcheck:create_app()"

# 127.0.0.1 by default: a checkout serves only this machine until told otherwise
# (the Docker image sets DECKCHECK_BIND=0.0.0.0:8000)
bind = os.environ.get("DECKCHECK_BIND", "127.0.0.1:8000").replace(",", " ").split()

# a check is CPU work under Python's GIL (parse, resolve, rules): one worker per CPU plus
# one to cover a worker busy in I/O, and one thread each. A second thread in a worker only
# takes turns with the first for the GIL: under load it costs more CPU per request and a
# higher p99 (BENCHMARKS.md). The gthread worker still keeps idle keep-alive
# connections in its poller, off the thread. Behind a buffering proxy (any load balancer)
# slow clients never hold a worker; exposed directly, raise DECKCHECK_THREADS.
workers = _int("DECKCHECK_WORKERS", _cpus() + 1)
# gthread, with request heads and bodies taken in off-thread: slow and idle clients wait in the
# worker's poller, not on a thread (deckcheck/service/worker/; DECKCHECK_HEADER_TIMEOUT, _BODY_TIMEOUT)
worker_class = "deckcheck.service.worker.DeckcheckWorker"
threads = _int("DECKCHECK_THREADS", 1)

# import the app (and load the card database) once in the master, then fork:
# workers share the database pages and start instantly
preload_app = True

# every worker listens on a socket of its own, one of the port's SO_REUSEPORT group, and the system hashes each
# new connection to one of them: connections spread evenly over the workers. With one shared socket, the worker
# that happened to wake first took most of them, and a kept-alive connection stays with the worker that took it
# (one worker answered 92-100% of keep-alive traffic). DECKCHECK_REUSE_PORT=0 goes back to one shared socket
# (needed for sockets handed over by systemd, which gunicorn ignores in this mode)
reuse_port = os.environ.get("DECKCHECK_REUSE_PORT", "1").strip() not in ("0", "false", "no", "off")

timeout = _int("DECKCHECK_TIMEOUT", 30)  # a check takes milliseconds; 30 s means a stuck worker
graceful_timeout = 20  # SIGTERM: finish in-flight requests, then stop
keepalive = 5

accesslog = "-"  # stdout, for the container's log collector
errorlog = "-"  # stderr
# JSON lines with a request ID, one access line per request (deckcheck/service/logs.py); the format below
# is used with DECKCHECK_LOG_FORMAT=text
logger_class = "deckcheck.service.logs.GunicornLogger"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'

# /metrics adds up every worker's numbers: prometheus_client's multiprocess mode needs a
# directory shared by the workers, set before the app (and prometheus_client) is imported.
# A given PROMETHEUS_MULTIPROC_DIR is emptied at start; otherwise a fresh one is made and removed.
_own_metrics_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _own_metrics_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="deckcheck-metrics-")
else:
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
    for _name in os.listdir(os.environ["PROMETHEUS_MULTIPROC_DIR"]):
        if _name.endswith(".db"):
            os.unlink(os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], _name))

# the heartbeat file lives in memory, not on a container's overlay disk
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

# no runtime control socket (gunicorn >= 25): its default path is shared by every
# gunicorn of the user, so parallel instances would take it from each other
control_socket_disable = True

# the longest request line gunicorn accepts (a longer one gets gunicorn's own plain 400)
limit_request_line = 8190


# the card database file is watched by the master (every DECKCHECK_DB_RELOAD_INTERVAL seconds,
# default 30, 0: only on SIGHUP); a new one is loaded there and the workers restarted, so they
# share it; the workers themselves only look at the file when a SIGHUP is sent to one of them
try:
    _db_reload_interval = float(os.environ.get("DECKCHECK_DB_RELOAD_INTERVAL", "").strip() or 30)
except ValueError:
    raise SystemExit(
        f"DECKCHECK_DB_RELOAD_INTERVAL must be a number of seconds, not {os.environ['DECKCHECK_DB_RELOAD_INTERVAL']!r}"
    ) from None
os.environ["DECKCHECK_DB_RELOAD_INTERVAL"] = "0"


def on_starting(server):
    from deckcheck.service import runtime

    runtime.set_draining(False)


def when_ready(server):
    """In the master, after the app (and so the card database) loaded, before any worker forks."""
    import gc

    from deckcheck.cards import get_db

    # every module the workers' hooks import, imported before any fork and before the master starts
    # a thread: a fork while a thread of the master holds a module's import lock leaves the worker that
    # imports it waiting forever (an app that does not import them itself: benchmarks/trivial_app.py)
    from deckcheck.cards import watch as dbwatch  # noqa: F401
    from deckcheck.service import observe, ratelimit, runtime, warmup  # noqa: F401

    info = get_db().info()
    # what a worker imports for its first unknown card name (the name suggestions): imported here
    # instead, so the workers share its pages (~4 MiB of each worker's private memory otherwise)
    import rapidfuzz.fuzz
    import rapidfuzz.process  # noqa: F401

    # what each worker's first requests would do once (code specialisation, today's format tables), done here
    try:
        warmed = warmup.warm_up(server.app.wsgi()) if server.cfg.preload_app else 0
    except Exception:  # noqa: BLE001 - a warm-up is an optimisation: the workers then do it themselves
        server.log.warning("deckcheck: the warm-up in the master failed", exc_info=True)
        warmed = 0
    # the database is ~100,000 long-lived objects: frozen, the workers' garbage collector never
    # walks them (a full pass over them is a latency spike) nor writes to their pages (copy-on-write)
    gc.freeze()
    server.log.info(
        "deckcheck: card database %s (%s cards) loaded in the master, warmed up (%s checks), %s objects frozen; "
        "%s workers will share it",
        info["version"],
        info["cards"],
        warmed,
        gc.get_freeze_count(),
        server.num_workers,
    )
    # SIGTERM: /readyz 503 for DECKCHECK_DRAIN_SECONDS (default 5), then a graceful stop
    runtime.install_drain(server, runtime.drain_seconds())
    runtime.MasterReloader(server, _db_reload_interval).start()


def on_reload(server):
    """SIGHUP to the master: load the database file there first (a file that does not load leaves
    the last good database), then gunicorn forks new workers from it."""
    from pathlib import Path

    from deckcheck.cards import get_db
    from deckcheck.service import runtime

    path = get_db().path
    runtime.load_into_master(Path(path) if path else None, server.log)


def child_exit(server, worker):
    """In the master, after a worker exited: its live gauges leave /metrics, its counts move into the
    metrics folder's archive files and its own files are removed (deckcheck.service.observe.retire_process)."""
    from deckcheck.service import observe

    observe.retire_process(worker.pid)


def on_exit(server):
    if _own_metrics_dir:
        shutil.rmtree(os.environ.get("PROMETHEUS_MULTIPROC_DIR", ""), ignore_errors=True)


def post_fork(server, worker):
    """In each new worker: with memory:// rate-limit counters, each worker allows its share of the limit."""
    from deckcheck.service import ratelimit

    ratelimit.set_processes(server.num_workers)


def post_worker_init(worker):
    """In each worker: SIGHUP (``kill -HUP <worker pid>``) swaps in a new card database file
    in place, on the worker's next request (deckcheck.cards.watch.DatabaseWatcher)."""
    from deckcheck.cards.watch import install_sighup_handler
    from deckcheck.service import observe

    install_sighup_handler()
    # the worker's database gauge from its start, not from its first request: /metrics lists
    # every live worker even while one has not answered anything yet
    observe.note_worker(worker.wsgi)
