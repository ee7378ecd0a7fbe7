"""Limits for shared use (deckcheck/service/ratelimit.py): rate limits per client, API keys, Redis storage, CORS.

The Redis tests start Debian's ``redis-server`` on a free loopback port (no
persistence) and stop it afterwards. Like the browser tests, they never skip:
without ``redis-server`` they fail and say how to get it (``tests/run.sh``
installs it).
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
import redis
import requests
from conftest import free_port, start_gunicorn

import deckcheck
from deckcheck import create_app
from deckcheck.service.schemas import ErrorSchema

FORMATS = "/api/v1/formats"
DECK = "4 Nest Ball SVI 181\n"


def make_app(**config):
    return create_app({"TESTING": True, **config})


def assert_rate_limited(answer, limit: str, client: str = "address"):
    """A 429 in the error envelope with Retry-After (seconds) and the rate limit headers."""
    data = answer.get_json() if hasattr(answer, "get_json") else answer.json()
    assert answer.status_code == 429
    assert ErrorSchema().validate(data) == {}
    retry_after = int(answer.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert data["error"]["code"] == "rate_limited"
    assert data["error"]["details"] == {"limit": limit, "retry_after": retry_after, "client": client}
    assert data["error"]["message"].startswith(f"Too many requests: the limit is {limit} ")
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.headers["X-RateLimit-Remaining"] == "0"
    assert answer.headers["X-Deckcheck-Version"] == deckcheck.__version__


# -- rate limits per client ---------------------------------------------------------


def test_anonymous_limit_is_shared_by_every_api_endpoint_then_429_in_the_envelope():
    client = make_app(RATELIMIT_DEFAULT="3 per minute").test_client()
    answers = [
        client.get(FORMATS),
        client.get("/api/v1/cards?q=nest"),
        client.post("/api/v1/validate", json={"decklist": DECK}),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"3"}
    assert all(int(a.headers["X-RateLimit-Reset"]) > time.time() for a in answers)
    blocked = client.get("/api/v1/formats/standard")
    assert_rate_limited(blocked, "3 per 1 minute")
    assert blocked.get_json()["error"]["message"] == (
        f"Too many requests: the limit is 3 per 1 minute for each client address. "
        f"Retry in {blocked.headers['Retry-After']} seconds."
    )


def test_the_limits_are_read_once_when_the_app_is_made():
    """A running app keeps the limits it was made with: the config changed afterwards is not read by a request."""
    app = make_app(RATELIMIT_DEFAULT="2 per minute")
    app.config.update(RATELIMIT_DEFAULT="100 per minute", RATELIMIT_KEYED="100 per minute")
    client = app.test_client()
    answers = [client.get(FORMATS) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[0].headers["X-RateLimit-Limit"] == "2"
    assert_rate_limited(answers[2], "2 per 1 minute")


def test_probes_web_page_static_files_and_preflights_are_not_limited():
    client = make_app(RATELIMIT_DEFAULT="1 per minute").test_client()
    assert client.get(FORMATS).status_code == 200
    assert client.get(FORMATS).status_code == 429
    for path in ("/healthz", "/readyz", "/", "/static/deckcheck.css"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert "X-RateLimit-Limit" not in answer.headers
    preflight = client.options(
        "/api/v1/validate", headers={"Origin": "https://other.example", "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 200


def test_each_client_address_has_its_own_bucket():
    app = make_app(RATELIMIT_DEFAULT="1 per minute")
    client = app.test_client()

    def status(addr):
        return client.get(FORMATS, environ_base={"REMOTE_ADDR": addr}).status_code

    assert [status("10.0.0.1"), status("10.0.0.1"), status("10.0.0.2")] == [200, 429, 200]


@pytest.mark.slow
def test_forwarded_for_counts_only_behind_trusted_proxies():
    def statuses(app):
        client = app.test_client()
        return [
            client.get(FORMATS, headers={"X-Forwarded-For": addr}).status_code
            for addr in ("192.0.2.1", "192.0.2.2", "192.0.2.1")
        ]

    # not trusted: a client cannot escape its limit by making up addresses
    assert statuses(make_app(RATELIMIT_DEFAULT="1 per minute")) == [200, 429, 429]
    assert statuses(make_app(RATELIMIT_DEFAULT="1 per minute", TRUSTED_PROXIES=1)) == [200, 200, 429]


def test_limits_can_be_turned_off():
    client = make_app(RATELIMIT_ENABLED=False, RATELIMIT_DEFAULT="1 per minute").test_client()
    answers = [client.get(FORMATS) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert "X-RateLimit-Limit" not in answers[0].headers


@pytest.mark.parametrize(
    ("name", "value"),
    [("RATELIMIT_DEFAULT", "lots"), ("RATELIMIT_KEYED", "5 per fortnight"), ("DISCORD_RATELIMIT", "often")],
)
def test_a_malformed_limit_stops_the_app_at_start_up(name, value):
    with pytest.raises(ValueError, match=f"{name} '{value}' is not a rate limit"):
        make_app(**{name: value})


# -- API keys -------------------------------------------------------------------------

KEYS = "alpha-key-0123456789, bravo-key-9876543210"


@pytest.mark.slow
def test_an_api_key_lifts_the_anonymous_limit_with_a_bucket_of_its_own():
    client = make_app(RATELIMIT_DEFAULT="1 per minute", RATELIMIT_KEYED="3 per minute", API_KEYS=KEYS).test_client()
    assert client.get(FORMATS).status_code == 200
    anonymous = client.get(FORMATS)
    assert_rate_limited(anonymous, "1 per 1 minute")
    assert anonymous.get_json()["error"]["message"].endswith(", or send an API key (X-API-Key) for a higher limit.")
    keyed = [
        client.get(FORMATS, headers={"X-API-Key": "alpha-key-0123456789"}),
        client.get(FORMATS, headers={"Authorization": "Bearer alpha-key-0123456789"}),
        client.get(FORMATS, headers={"Authorization": "bearer alpha-key-0123456789"}),
    ]
    assert [(a.status_code, a.headers["X-RateLimit-Limit"], a.headers["X-RateLimit-Remaining"]) for a in keyed] == [
        (200, "3", "2"),
        (200, "3", "1"),
        (200, "3", "0"),
    ]
    over = client.get(FORMATS, headers={"X-API-Key": "alpha-key-0123456789"})
    assert_rate_limited(over, "3 per 1 minute", client="api-key")
    assert "for this API key" in over.get_json()["error"]["message"]
    # another key, another bucket
    assert client.get(FORMATS, headers={"X-API-Key": "bravo-key-9876543210"}).status_code == 200


def test_an_empty_keyed_limit_means_no_limit_for_keys():
    client = make_app(RATELIMIT_DEFAULT="1 per minute", RATELIMIT_KEYED="", API_KEYS=KEYS).test_client()
    answers = [client.get(FORMATS, headers={"X-API-Key": "bravo-key-9876543210"}) for _ in range(5)]
    assert {a.status_code for a in answers} == {200}


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (
            KEYS,
            "The API key is not valid: check it, or send the request without X-API-Key or Authorization to use "
            "the anonymous limit.",
        ),
        ("", "This service has no API keys: send the request without X-API-Key or Authorization."),
    ],
)
def test_an_unknown_api_key_is_a_401_in_the_envelope(keys, message):
    client = make_app(API_KEYS=keys).test_client()
    for headers in ({"X-API-Key": "alpha-key-012345678"}, {"Authorization": "Bearer nope"}):
        answer = client.get(FORMATS, headers=headers)
        assert answer.status_code == 401
        assert answer.get_json() == {"error": {"code": "unauthorized", "message": message, "details": {}}}
        assert answer.headers["WWW-Authenticate"] == 'Bearer realm="deckcheck"'
    # other authorization schemes are not API keys, and the page and probes ignore keys
    assert client.get(FORMATS, headers={"Authorization": "Basic dXNlcjpwYXNz"}).status_code == 200
    assert client.get("/healthz", headers={"X-API-Key": "nope"}).status_code == 200


def test_api_keys_from_the_environment(monkeypatch):
    monkeypatch.setenv("DECKCHECK_API_KEYS", "env-key-1,env-key-2")
    monkeypatch.setenv("DECKCHECK_RATELIMIT_KEYED", "7 per minute")
    client = create_app({"TESTING": True}).test_client()
    assert client.get(FORMATS, headers={"X-API-Key": "env-key-2"}).headers["X-RateLimit-Limit"] == "7"


# -- CORS -------------------------------------------------------------------------------


def test_preflight_from_another_origin_is_allowed():
    client = make_app().test_client()
    answer = client.options(
        "/api/v1/validate",
        headers={
            "Origin": "https://decks.example.org",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Content-Type, X-API-Key",
        },
    )
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert {h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")} == {
        "content-type",
        "x-api-key",
    }
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert answer.headers["Access-Control-Max-Age"] == "600"


def test_responses_expose_retry_after_and_the_version_to_scripts():
    client = make_app(RATELIMIT_DEFAULT="1 per minute").test_client()
    for status in (200, 429):
        answer = client.get(FORMATS, headers={"Origin": "https://decks.example.org"})
        assert answer.status_code == status
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        exposed = {h.strip() for h in answer.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"Retry-After", "X-Deckcheck-Version", "X-RateLimit-Remaining"} <= exposed


def test_cors_origins_can_be_narrowed():
    client = make_app(CORS_ORIGINS="https://a.example, https://b.example").test_client()
    allowed = client.get(FORMATS, headers={"Origin": "https://b.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://b.example"
    assert "Origin" in allowed.headers["Vary"]
    assert "Access-Control-Allow-Origin" not in client.get(FORMATS, headers={"Origin": "https://c.example"}).headers


@pytest.mark.parametrize("origins", ["*", "https://a.example"])
def test_a_request_without_origin_gets_no_cors_headers_but_vary_origin(origins):
    """Not a browser page: no CORS work, and caches keep its answer apart from a page's."""
    client = make_app(CORS_ORIGINS=origins).test_client()
    for answer in (
        client.get(FORMATS),
        client.post("/api/v1/validate", json={"decklist": "4 Nest Ball SVI 181"}),
        client.get("/api/v1/nowhere"),
    ):
        assert not [h for h in answer.headers.keys() if h.startswith("Access-Control-")]
        assert answer.headers["Vary"] == "Origin"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("POST", "/api/v1/validate", 200),
        ("GET", "/api/v1/nowhere", 404),
        ("PUT", "/api/v1/validate", 405),
        ("POST", "/api/v1/boom", 500),
    ],
)
def test_answers_to_a_page_get_cors_headers_errors_too(method, path, status):
    app = make_app(PROPAGATE_EXCEPTIONS=False)

    @app.post("/api/v1/boom")
    def boom():
        raise RuntimeError("a bug")

    answer = app.test_client().open(
        path, method=method, json={"decklist": "4 Nest Ball SVI 181"}, headers={"Origin": "https://decks.example.org"}
    )
    assert answer.status_code == status
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert "X-Deckcheck-Version" in answer.headers["Access-Control-Expose-Headers"]


def test_the_web_page_gets_no_cors_headers():
    answer = make_app().test_client().get("/", headers={"Origin": "https://other.example"})
    assert "Access-Control-Allow-Origin" not in answer.headers


# -- Redis: one limit for every instance -----------------------------------------------


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A throwaway redis-server on 127.0.0.1 (no persistence) for this module; stopped afterwards."""
    exe = shutil.which("redis-server")
    if not exe:
        pytest.fail(
            "redis-server is not installed: apt-get install redis-server (tests/run.sh does); "
            "the Redis storage tests do not skip.",
            pytrace=False,
        )
    port = free_port()
    proc = subprocess.Popen(
        [
            exe,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path_factory.mktemp("redis")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"redis://127.0.0.1:{port}"
    connection = redis.Redis.from_url(url)
    deadline = time.monotonic() + 10
    while True:
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"redis-server did not start: {proc.stderr.read().decode()[-1000:]}")
            time.sleep(0.05)
    yield url
    connection.close()
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.server
def test_two_instances_share_the_limit_through_redis(redis_url):
    config = {
        "RATELIMIT_DEFAULT": "4 per minute",
        "RATELIMIT_STORAGE_URI": redis_url,
        "RATELIMIT_KEY_PREFIX": "test-shared",
    }
    one, two = make_app(**config).test_client(), make_app(**config).test_client()
    statuses = [client.get(FORMATS).status_code for client in (one, two, one, two)]
    assert statuses == [200, 200, 200, 200]
    assert_rate_limited(one.get(FORMATS), "4 per 1 minute")
    assert_rate_limited(two.get(FORMATS), "4 per 1 minute")
    assert redis.Redis.from_url(redis_url).keys("LIMITS:LIMITER/test-shared/*")


@pytest.mark.server
def test_in_memory_instances_count_alone():
    """Why Redis: with the default memory:// storage each instance (and gunicorn worker) counts apart."""
    one, two = (make_app(RATELIMIT_DEFAULT="1 per minute").test_client() for _ in range(2))
    assert [one.get(FORMATS).status_code, two.get(FORMATS).status_code] == [200, 200]


def test_redis_stores_a_digest_of_the_api_key_never_the_key(redis_url):
    client = make_app(RATELIMIT_STORAGE_URI=redis_url, RATELIMIT_KEY_PREFIX="test-digest", API_KEYS=KEYS).test_client()
    assert client.get(FORMATS, headers={"X-API-Key": "alpha-key-0123456789"}).status_code == 200
    keys = [k.decode() for k in redis.Redis.from_url(redis_url).keys("LIMITS:LIMITER/test-digest/*")]
    assert len(keys) == 1 and "/key:" in keys[0] and "alpha-key" not in keys[0]


def test_an_unreachable_redis_does_not_fail_requests():
    client = make_app(
        RATELIMIT_DEFAULT="2 per minute", RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{free_port()}"
    ).test_client()
    # the first request finds Redis down and falls back to counting in memory
    assert [client.get(FORMATS).status_code for _ in range(3)] == [200, 200, 429]


@pytest.mark.server
def test_gunicorn_workers_share_the_limit_through_redis(redis_url):
    """Two gunicorn workers, configured through the environment, count against one Redis limit."""
    proc, base = start_gunicorn(
        workers=2,
        env={
            "DECKCHECK_RATELIMIT_STORAGE_URI": redis_url,
            "DECKCHECK_RATELIMIT_DEFAULT": "5 per minute",
            "DECKCHECK_RATELIMIT_KEY_PREFIX": "test-gunicorn",
        },
    )
    try:
        answers = []
        for _ in range(6):
            with requests.Session() as fresh:  # a new connection each time: either worker may answer
                answers.append(fresh.get(base + FORMATS, timeout=30))
        assert [a.status_code for a in answers] == [200, 200, 200, 200, 200, 429]
        assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1", "0"]
        assert_rate_limited(answers[-1], "5 per 1 minute")
        assert requests.get(base + "/healthz", timeout=30).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
