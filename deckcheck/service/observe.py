"""What the service is doing: ``/metrics`` for Prometheus, and a request ID on every request.

Metrics (Prometheus text format at ``GET /metrics``; never rate limited; ``METRICS_ENABLED``
turns the endpoint off; ``deploy/nginx`` keeps it from the internet):

* ``deckcheck_http_requests_total{route, method, status}``: requests answered by the app, by
  route pattern (``/api/v1/formats/<format_id>``; ``unmatched`` for a 404), never by raw path.
* ``deckcheck_check_seconds{format}``: a histogram of the time the engine spent per check.
* ``deckcheck_problems_total{rule}``: problems reported, by rule name.
* ``deckcheck_rate_limited_total{route}``: requests refused by a rate limit (Discord's per-user
  limit is ``route="discord"``).
* ``deckcheck_database_info{version, built_at}``: 1 for the card database each worker serves.
* ``deckcheck_database_build_timestamp_seconds``: when that database was built (Unix time);
  ``deckcheck_database_age_seconds``: its age at the scrape, from the answering worker;
  ``deckcheck_database_newest_set_age_days``: days since its newest set was released.

Under gunicorn every worker's numbers are added up: prometheus_client's multiprocess mode,
with ``PROMETHEUS_MULTIPROC_DIR`` set up by ``deckcheck/service/gunicorn_conf.py`` (a fresh temporary directory
unless one is given). When a worker exits (a reload, a crash, ``max_requests``) the master's ``child_exit``
calls :func:`retire_process`: its live gauges go, and its counters, histograms and summaries are added into one
``<type>_archive.db`` file per type and its own files removed, so the folder (and the time a scrape takes) stays
the size of the live workers however often they are replaced, and no count is lost. Without that
variable (tests, one process) the process's own registry is served.

Request IDs: a request's ``X-Request-ID`` is kept when it is 1-128 characters of letters,
digits and ``._:-`` (what proxies and tracing systems send), otherwise a new one is made;
the answer carries it back in ``X-Request-ID`` and every log line of the request has it
(:mod:`deckcheck.service.logs`).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from typing import Any

from flask import Flask, Response, current_app
from flask.globals import request_ctx
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

from .. import cards, engine
from ..patterns import Pattern
from . import logs

EXTENSION = "deckcheck.metrics"
REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = Pattern(r"[A-Za-z0-9._:-]{1,128}")
#: check durations: a check takes ~50 us to a few ms; the slowest buckets catch a starved worker
CHECK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

REQUESTS = Counter("deckcheck_http_requests", "HTTP requests answered by the app", ["route", "method", "status"])
CHECK_SECONDS = Histogram(
    "deckcheck_check_seconds", "Time the engine spent checking one decklist", ["format"], buckets=CHECK_BUCKETS
)
PROBLEMS = Counter("deckcheck_problems", "Problems reported in checked decklists, by rule", ["rule"])
RATE_LIMITED = Counter("deckcheck_rate_limited", "Requests refused by a rate limit", ["route"])
DATABASE = Gauge(
    "deckcheck_database_info",
    "The card database a worker serves (1)",
    ["version", "built_at"],
    multiprocess_mode="liveall",
)
DATABASE_BUILT = Gauge(
    "deckcheck_database_build_timestamp_seconds", "When the served card database was built", multiprocess_mode="liveall"
)


def database_built(info: dict) -> float | None:
    """When a database was built, as Unix time, from its ``info()``.

    The hook for database facts: today the build date (``built_at``); a database that records
    when its newest data was published can be preferred here, and the age follows it.
    """
    value = info.get("built_at")
    if not value:
        return None
    try:
        when = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()


class _DatabaseAge:
    """A collector: the age of the answering worker's database at the moment of the scrape."""

    def collect(self):
        try:
            built = database_built(cards.get_db().info())
        except cards.DatabaseError:
            built = None
        family = GaugeMetricFamily(
            "deckcheck_database_age_seconds", "Age of the served card database (since its build)"
        )
        if built is not None:
            family.add_metric([], max(0.0, time.time() - built))
        yield family
        newest = GaugeMetricFamily(
            "deckcheck_database_newest_set_age_days",
            "Days since the newest set in the served card database was released",
        )
        try:
            days = cards.get_db().age_days(dt.date.today())
        except (cards.DatabaseError, AttributeError):
            days = None
        if days is not None:
            newest.add_metric([], days)
        yield newest


#: this process's ID, kept up to date across forks (os.getpid() is a system call on every request otherwise)
_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)


_counters: dict[tuple, Any] = {}  # (route, method, status) -> its labelled Counter
_METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))


class Metrics:
    """The app's side of the metrics (one per app; the metric objects are per process)."""

    def __init__(self) -> None:
        self._database: tuple[str, str] | None = None
        self._db: cards.CardDB | None = None
        self._pid: int | None = None

    def count(self, response):
        """One more request for its route, method and status (an ``after_request`` hook of this app; the
        labelled child is looked up once), and the database gauge kept on the database served."""
        req = request_ctx.request  # one context lookup instead of one per attribute
        method = req.method if req.method in _METHODS else "other"  # a client's method is not a label
        key = (_route(req), method, response.status_code)
        child = _counters.get(key)
        if child is None:
            child = _counters[key] = REQUESTS.labels(route=key[0], method=key[1], status=str(key[2]))
        child.inc()
        self.note_database()
        return response

    def rate_limited(self, req) -> None:
        RATE_LIMITED.labels(route=_route(req)).inc()

    def note_database(self) -> None:
        """Keep ``deckcheck_database_info`` on the database this process serves (it can be swapped,
        and a forked worker starts with gauges of its own). Costs two comparisons when nothing changed."""
        try:
            db, pid = cards.get_db(), _pid
        except cards.DatabaseError:  # /readyz says so; the metrics keep what they had
            return
        if db is self._db and pid == self._pid:
            return
        info = db.info()
        current = (info["version"], str(info.get("built_at") or ""))
        if self._database is not None and self._database != current and pid == self._pid:
            DATABASE.labels(*self._database).set(0)
        DATABASE.labels(*current).set(1)
        built = database_built(info)
        if built is not None:
            DATABASE_BUILT.set(built)
        self._database, self._db, self._pid = current, db, pid


def note_worker(app) -> None:
    """In a new gunicorn worker: record the database it serves before its first request."""
    metrics = getattr(app, "extensions", {}).get(EXTENSION)
    if metrics is not None:
        metrics.note_database()


def _route(req) -> str:
    if req.endpoint == "discord.interactions":
        return "discord"
    rule = req.url_rule
    return rule.rule if rule is not None else "unmatched"


#: labelled children looked up once (formats and rules are few and fixed; a labels() call is not free)
_check_seconds: dict[str, Histogram] = {}
_problems: dict[str, Counter] = {}


def _observe_report(report, seconds: float) -> None:
    child = _check_seconds.get(report.format)
    if child is None:
        child = _check_seconds[report.format] = CHECK_SECONDS.labels(format=report.format)
    child.observe(seconds)
    for problem in report.problems:
        counter = _problems.get(problem.rule)
        if counter is None:
            counter = _problems[problem.rule] = PROBLEMS.labels(rule=problem.rule)
        counter.inc()


#: the multiprocess files whose values add up across processes (counters, histograms, summaries), and the
#: gauge modes that merge into one value: a dead process's values of these are kept in an archive file
_SUMMED_TYPES = ("counter", "histogram", "summary")
_GAUGE_MERGE = {"sum": "sum", "max": "max", "min": "min", "mostrecent": "mostrecent"}


def retire_process(pid: int, path: str | None = None) -> None:
    """Bookkeeping in the gunicorn master for a worker that exited: prometheus_client's own
    ``mark_process_dead`` (its ``live*`` gauges leave /metrics), then every other file of the process is merged
    into the folder's archive file of its type (``counter_archive.db``: values added per sample; ``gauge_max_*``:
    the larger kept...) and removed. Gauges of mode ``all`` stay (they are labelled by process, by design).

    The archive is written to a temporary name (not ``*.db``, which a scrape reads) and renamed into place,
    then the process's files are removed: a scrape in between counts the dead process twice once, never
    misses it. Runs in the master only, one exit at a time."""
    from prometheus_client import multiprocess
    from prometheus_client.mmap_dict import MmapedDict

    folder = path or os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        return
    multiprocess.mark_process_dead(pid, folder)
    kinds = [(typ, f"{typ}_{pid}.db", f"{typ}_archive.db", "sum") for typ in _SUMMED_TYPES]
    kinds += [
        (f"gauge_{mode}", f"gauge_{mode}_{pid}.db", f"gauge_{mode}_archive.db", how)
        for mode, how in _GAUGE_MERGE.items()
    ]
    for _typ, name, archive_name, how in kinds:
        dead = os.path.join(folder, name)
        if not os.path.exists(dead):
            continue
        archive = os.path.join(folder, archive_name)
        merged: dict[str, tuple[float, float]] = {}
        sources = [archive, dead] if os.path.exists(archive) else [dead]
        for source in sources:
            for key, value, stamp, _pos in MmapedDict.read_all_values_from_file(source):
                if key not in merged:
                    merged[key] = (value, stamp)
                    continue
                old, old_stamp = merged[key]
                if how == "sum":
                    merged[key] = (old + value, max(old_stamp, stamp))
                elif how == "max":
                    merged[key] = max((old, old_stamp), (value, stamp))
                elif how == "min":
                    merged[key] = min((old, old_stamp), (value, stamp))
                elif stamp >= old_stamp:  # mostrecent
                    merged[key] = (value, stamp)
        temporary = archive + f".{os.getpid()}.tmp"
        out = MmapedDict(temporary)
        try:
            for key, (value, stamp) in merged.items():
                out.write_value(key, value, stamp)
        finally:
            out.close()
        os.replace(temporary, archive)
        os.unlink(dead)


def registry() -> CollectorRegistry:
    """What ``/metrics`` serves: every worker's numbers under gunicorn, else this process's."""
    reg = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(reg)
    else:
        from prometheus_client import REGISTRY

        for collector in list(REGISTRY._collector_to_names):
            reg.register(collector)
    reg.register(_DatabaseAge())
    return reg


def metrics_view():
    metrics: Metrics = _state()
    metrics.note_database()
    return Response(
        generate_latest(registry()), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"}
    )


def _state() -> Metrics:
    return current_app.extensions[EXTENSION]


class RequestIds:
    """WSGI middleware: the request's ID (kept or made), in the log context and echoed in the answer.

    A middleware rather than Flask hooks: a fifth of a Flask hook pair's cost a request (BENCHMARKS.md),
    and answers made outside the view functions carry the ID too."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        sent = environ.get("HTTP_X_REQUEST_ID")
        rid = sent.strip() if sent and _REQUEST_ID.fullmatch(sent.strip()) else os.urandom(16).hex()
        environ["deckcheck.request_id"] = rid
        header = (REQUEST_ID_HEADER, rid)

        def start(status, headers, exc_info=None):
            headers.append(header)
            return start_response(status, headers, exc_info)

        token = logs.request_id.set(rid)
        try:
            return self.wsgi_app(environ, start)
        finally:
            logs.request_id.reset(token)


def init_app(app: Flask) -> Metrics:
    """Request IDs, request counting and ``/metrics`` for ``app``."""
    metrics = Metrics()
    app.extensions[EXTENSION] = metrics
    app.after_request(metrics.count)  # bound to this app's metrics: no app context lookup per request
    app.wsgi_app = RequestIds(app.wsgi_app)  # type: ignore[method-assign]  # Flask's way to add middleware
    if _observe_report not in engine.REPORT_LISTENERS:
        engine.REPORT_LISTENERS.append(_observe_report)
    metrics.note_database()
    if app.config["METRICS_ENABLED"]:
        app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])
    return metrics
