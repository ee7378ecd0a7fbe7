"""gunicorn settings for deckcheck: ``deckcheck serve`` runs gunicorn with this module
(``--config python:deckcheck.gunicorn_conf``), so an installed wheel carries them.

Every value can be changed without editing it: ``DECKCHECK_BIND``,
``DECKCHECK_WORKERS``, ``DECKCHECK_THREADS`` and ``DECKCHECK_TIMEOUT`` here, and
any other gunicorn setting through ``GUNICORN_CMD_ARGS`` (command-line flags
win over this file).
"""

import os


def _cpus() -> int:
    """CPUs this process may run on (the affinity mask, which containers narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


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
# takes turns with the first for the GIL: under load it cost ~4-11% more CPU per request and
# a 50% higher p99 (BENCHMARKS.md). The gthread worker still keeps idle keep-alive
# connections in its poller, off the thread. Behind a buffering proxy (any load balancer)
# slow clients never hold a worker; exposed directly, raise DECKCHECK_THREADS.
workers = _int("DECKCHECK_WORKERS", _cpus() + 1)
worker_class = "gthread"
threads = _int("DECKCHECK_THREADS", 1)

# import the app (and load the card database) once in the master, then fork:
# workers share the database pages and start instantly
preload_app = True

timeout = _int("DECKCHECK_TIMEOUT", 30)  # a check takes milliseconds; 30 s means a stuck worker
graceful_timeout = 20  # SIGTERM: finish in-flight requests, then stop
keepalive = 5

accesslog = "-"  # stdout, for the container's log collector
errorlog = "-"  # stderr
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

# the heartbeat file lives in memory, not on a container's overlay disk
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

# no runtime control socket (gunicorn >= 25): its default path is shared by every
# gunicorn of the user, so parallel instances would take it from each other
control_socket_disable = True

# the longest request line gunicorn accepts (a longer one gets gunicorn's own plain 400)
limit_request_line = 8190


def when_ready(server):
    """In the master, after the app (and so the card database) loaded, before any worker forks."""
    import gc

    from deckcheck.cards import get_db

    info = get_db().info()
    # the database is ~100,000 long-lived objects: frozen, the workers' garbage collector never
    # walks them (a full pass took ~30 ms, a latency spike) nor writes to their pages (copy-on-write)
    gc.freeze()
    server.log.info("deckcheck: card database %s (%s cards) loaded in the master; %s workers will share it",
                    info["version"], info["cards"], server.num_workers)


def post_worker_init(worker):
    """In each worker: SIGHUP (``kill -HUP <worker pid>``) swaps in a new card database file
    in place, on the worker's next request (deckcheck.cards.DatabaseWatcher)."""
    from deckcheck.cards import install_sighup_handler

    install_sighup_handler()
