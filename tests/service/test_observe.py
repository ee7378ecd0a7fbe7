"""Observability: /metrics (Prometheus, all gunicorn workers added up), request IDs, JSON logs."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from pathlib import Path

import pytest
import requests
from conftest import free_port
from prometheus_client.parser import text_string_to_metric_families
from test_serve import serve_on_free_port, stop

from deckcheck import create_app
from deckcheck.cards import get_db
from deckcheck.service import logs, observe

DECKS = Path(__file__).resolve().parent.parent / "decks"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")


def samples(text: str) -> dict[tuple, float]:
    """Every sample of a scrape: (name, sorted labels without pid) -> value, summed over pids."""
    out: dict[tuple, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            key = (s.name, tuple(sorted((k, v) for k, v in s.labels.items() if k != "pid")))
            out[key] = out.get(key, 0.0) + s.value
    return out


def test_request_ids_are_kept_when_usable_and_made_otherwise():
    client = create_app({"TESTING": True}).test_client()
    assert client.get("/healthz", headers={"X-Request-ID": "edge-42.a:b"}).headers["X-Request-ID"] == "edge-42.a:b"
    for sent in ("", "has space", "x" * 129, "<script>"):
        made = client.get("/healthz", headers={"X-Request-ID": sent}).headers["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", made), sent
    assert client.get("/nowhere").headers["X-Request-ID"]  # errors too


def test_metrics_count_requests_by_route_problems_by_rule_checks_and_rejections():
    app = create_app({"TESTING": True, "RATELIMIT_DEFAULT": "2 per minute"})
    client = app.test_client()
    before = samples(client.get("/metrics").get_data(as_text=True))
    assert client.post("/api/v1/validate", json={"decklist": "4 Nest Ball SVI 181\n"}).status_code == 200
    assert client.get("/api/v1/formats/standard").status_code == 200
    assert client.get("/api/v1/formats").status_code == 429
    scrape = client.get("/metrics")
    assert scrape.status_code == 200 and scrape.headers["Content-Type"].startswith("text/plain")
    after = samples(scrape.get_data(as_text=True))

    def grew(name, **labels):
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0) - before.get(key, 0)

    assert grew("deckcheck_http_requests_total", route="/api/v1/validate", method="POST", status="200") == 1
    assert grew("deckcheck_http_requests_total", route="/api/v1/formats/<format_id>", method="GET", status="200") == 1
    assert grew("deckcheck_http_requests_total", route="/api/v1/formats", method="GET", status="429") == 1
    assert grew("deckcheck_rate_limited_total", route="/api/v1/formats") == 1
    assert grew("deckcheck_check_seconds_count", format="standard") == 1
    assert grew("deckcheck_problems_total", rule="deck-size") == 1
    assert grew("deckcheck_problems_total", rule="no-basic-pokemon") == 1
    version = app.extensions[observe.EXTENSION]._database[0]
    assert any(k[0] == "deckcheck_database_info" and ("version", version) in k[1] and v == 1 for k, v in after.items())
    assert after[("deckcheck_database_age_seconds", ())] > 0
    # /metrics itself is never limited
    assert client.get("/metrics").status_code == 200


def test_the_masters_warm_up_counts_nothing_and_leaves_the_hooks_as_they_were():
    from deckcheck import engine
    from deckcheck.service import warmup

    app = create_app({"TESTING": True, "RATELIMIT_DEFAULT": "2 per minute"})
    client = app.test_client()
    hooks, listeners = list(app.after_request_funcs[None]), list(engine.REPORT_LISTENERS)

    def counted() -> dict[tuple, float]:
        """deckcheck's counts but the scrapes' own (and the database's age, which moves with the clock)."""
        scrape = samples(client.get("/metrics").get_data(as_text=True))
        return {
            k: v
            for k, v in scrape.items()
            if k[0].startswith("deckcheck_") and ("route", "/metrics") not in k[1] and "age" not in k[0]
        }

    before = counted()
    assert warmup.warm_up(app) == 8  # every format, then text/plain, forecast and chat: all 200
    db = get_db()  # and the database's index of usual lines made, every set code's
    assert db.indexed_codes() == set(db._printing_places()) and len(db.printed_lines()) > len(db.cards)
    assert all(a is b for a, b in zip(app.after_request_funcs[None], hooks, strict=True))
    assert engine.REPORT_LISTENERS == listeners
    assert counted() == before  # no request, check or problem counted
    # the client's budget is untouched: two checks allowed, the third refused (and now counted)
    assert [client.post("/api/v1/validate", json={"decklist": LEGAL}).status_code for _ in range(3)] == [200, 200, 429]
    key = ("deckcheck_http_requests_total", (("method", "POST"), ("route", "/api/v1/validate"), ("status", "200")))
    assert counted()[key] - before.get(key, 0) == 2
    assert warmup.warm_up(object()) == 0  # not a deckcheck app (benchmarks/trivial_app.py): nothing to do


def test_database_age_comes_from_the_build_date():
    assert observe.database_built({"built_at": "2026-01-02T03:04:05Z"}) == 1767323045.0
    assert observe.database_built({"built_at": None}) is None
    assert observe.database_built({"built_at": "not a date"}) is None


def test_json_lines_carry_time_level_logger_and_the_request_id():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    log = logging.getLogger("deckcheck.test-json")
    log.addHandler(handler)
    log.propagate = False
    try:
        token = logs.request_id.set("rid-1")
        log.warning("careful: %s", "x", extra={"route": "/"})
        logs.request_id.reset(token)
    finally:
        log.removeHandler(handler)
    line = json.loads(stream.getvalue())
    assert line["level"] == "warning" and line["logger"] == "deckcheck.test-json"
    assert (line["message"], line["request_id"], line["route"]) == ("careful: x", "rid-1", "/")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])


def test_flask_limiters_warnings_reach_the_json_log():
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    logs.configure_root(logging.INFO, stream)
    try:
        client = create_app(
            {"TESTING": True, "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}"}
        ).test_client()
        assert client.get("/api/v1/formats", headers={"X-Request-ID": "rid-redis"}).status_code == 200
    finally:
        root.handlers[:], root.level = saved
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    warned = [line for line in lines if line["logger"] == "flask-limiter" and line["level"] in ("warning", "error")]
    assert warned, lines
    assert warned[0]["request_id"] == "rid-redis"


@pytest.mark.server
@pytest.mark.slow
def _database_pids(base: str) -> set[str]:
    """The pids /metrics lists a database for (the master and each live worker)."""
    return {
        line.split('pid="')[1].split('"')[0]
        for line in requests.get(base + "/metrics", timeout=30).text.splitlines()
        if line.startswith("deckcheck_database_info{")
    }


def test_under_gunicorn_metrics_add_up_every_worker_and_access_lines_are_json():
    proc, _port, base = serve_on_free_port(2, {"DECKCHECK_RATELIMIT_ENABLED": "false"})
    try:
        # both workers up (each records its database when it starts): on a loaded machine the first
        # can answer before the second has booted, and would then answer every request
        deadline = time.monotonic() + 60
        while len(_database_pids(base)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        for i in range(12):
            with requests.Session() as fresh:  # new connections: both workers answer some
                fresh.post(
                    base + "/api/v1/validate",
                    data=LEGAL.encode(),
                    timeout=30,
                    headers={"Content-Type": "text/plain", "X-Request-ID": f"load-{i}"},
                )
        scrapes = []
        for _ in range(4):
            with requests.Session() as fresh:
                scrapes.append(samples(fresh.get(base + "/metrics", timeout=30).text))
        pids = _database_pids(base)
    finally:
        rc, out, err = stop(proc)
    key = ("deckcheck_http_requests_total", (("method", "POST"), ("route", "/api/v1/validate"), ("status", "200")))
    assert [s[key] for s in scrapes] == [12.0] * 4  # whichever worker answers the scrape
    assert [s[("deckcheck_check_seconds_count", (("format", "standard"),))] for s in scrapes] == [12.0] * 4
    assert len(pids) == 3  # the master and both workers (each records its database when it starts)
    access = [json.loads(line) for line in out.splitlines() if '"gunicorn.access"' in line]
    validated = [a for a in access if a["path"] == "/api/v1/validate"]
    assert sorted(a["request_id"] for a in validated) == sorted(f"load-{i}" for i in range(12))
    # which worker takes a connection is the kernel's choice: every one that answered is a live worker
    assert {a["status"] for a in validated} == {200} and {str(a["pid"]) for a in validated} <= pids
    errors = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert errors and all({"time", "level", "logger", "message"} <= set(e) for e in errors)
    assert rc == 0


def test_every_api_answer_says_nosniff():
    client = create_app({"TESTING": True}).test_client()
    for path in ("/api/v1/formats", "/api/v1/nowhere", "/api/v1/openapi.json"):
        assert client.get(path).headers.getlist("X-Content-Type-Options") == ["nosniff"], path


def _db_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.db"))


@pytest.mark.server
@pytest.mark.slow
def test_workers_replaced_by_reloads_leave_no_files_behind_and_no_count_is_lost(tmp_path):
    """A reload (SIGHUP to the master) replaces every worker: the metrics folder keeps the live workers'
    files and one archive per type, never a file per dead worker, and the request counts of the dead add up."""
    import signal
    import time

    from test_reload import _children

    folder = tmp_path / "metrics"
    folder.mkdir()
    proc, _port, base = serve_on_free_port(
        2, {"DECKCHECK_RATELIMIT_ENABLED": "false", "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    )
    key = ("deckcheck_http_requests_total", (("method", "GET"), ("route", "/healthz"), ("status", "200")))
    try:
        sent = 1  # the /healthz that found the server up
        for _reload in range(6):
            for _ in range(5):
                with requests.Session() as fresh:
                    assert fresh.get(base + "/healthz", timeout=30).status_code == 200
                sent += 1
            old = set(_children(proc.pid))
            proc.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                now = set(_children(proc.pid))
                if len(now) == 2 and not now & old:
                    break
                time.sleep(0.1)
            assert not set(_children(proc.pid)) & old, "the old workers did not exit"
            requests.get(base + "/healthz", timeout=30)  # the new workers answer (and write their files)
            sent += 1
        with requests.Session() as fresh:
            scraped = samples(fresh.get(base + "/metrics", timeout=30).text)
        live = {str(pid) for pid in _children(proc.pid)}
        names = _db_files(folder)
    finally:
        stop(proc)
    # one file set for each live worker (and the master's), and the archives: nothing of the 12 dead workers
    owners = {name.rsplit("_", 1)[1].removesuffix(".db") for name in names}
    assert owners <= live | {str(proc.pid), "archive"}, names
    assert scraped[key] == sent  # the dead workers' counts are kept (in the archive)


def test_retiring_a_process_keeps_every_merged_value_and_removes_its_files(tmp_path):
    """Counters and histograms add up, a max gauge keeps the larger, a live gauge goes: the scrape of the
    folder is the same before and after (but for the live gauge), with the dead process's files gone."""
    from prometheus_client.mmap_dict import MmapedDict, mmap_key
    from prometheus_client.multiprocess import MultiProcessCollector

    def put(name: str, values: dict) -> None:
        out = MmapedDict(str(tmp_path / name))
        for (metric, sample, labels), value in values.items():
            out.write_value(mmap_key(metric, sample, [k for k, _ in labels], [v for _, v in labels], "h"), value, 0.0)
        out.close()

    for pid, n in ((101, 3.0), (102, 4.0)):
        put(f"counter_{pid}.db", {("c", "c_total", (("r", "a"),)): n})
        put(f"histogram_{pid}.db", {("h", "h_bucket", (("le", "1.0"),)): n, ("h", "h_sum", ()): n / 2})
        put(f"gauge_max_{pid}.db", {("g", "g", ()): n * 10})
        put(f"gauge_liveall_{pid}.db", {("l", "l", ()): 1.0})

    def scrape() -> dict:
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for m in MultiProcessCollector(None, str(tmp_path)).collect()
            for s in m.samples
        }

    before = scrape()
    observe.retire_process(101, str(tmp_path))
    put("counter_103.db", {("c", "c_total", (("r", "a"),)): 1.0})
    observe.retire_process(103, str(tmp_path))
    after = scrape()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "counter_102.db",
        "counter_archive.db",
        "gauge_liveall_102.db",
        "gauge_max_102.db",
        "gauge_max_archive.db",
        "histogram_102.db",
        "histogram_archive.db",
    ]
    assert after.pop(("c_total", (("r", "a"),))) == before.pop(("c_total", (("r", "a"),))) + 1 == 8.0
    assert before.pop(("l", (("pid", "101"),))) == 1.0
    assert after == before
    assert after[("g", ())] == 40.0 and after[("h_sum", ())] == 3.5 and after[("h_count", ())] == 7.0
