"""One rate limit for all checking work: the API, the page form, share links, /extras
(deckcheck/service/ratelimit.py)."""

from __future__ import annotations

import base64
import zlib

import pytest
import requests
from conftest import start_gunicorn
from test_limits import redis_url  # noqa: F401 - the module's redis-server fixture

from deckcheck import create_app
from deckcheck.service import ratelimit

DECK = "4 Nest Ball SVI 181\n"
D = base64.urlsafe_b64encode(zlib.compress(DECK.encode())).decode().rstrip("=")
CHECKS = [
    ("POST", "/", {"data": {"decklist": DECK, "format": "standard"}}),
    ("GET", f"/?d={D}&format=standard", {}),
    ("GET", "/?deck=4+Nest+Ball+SVI+181&format=standard", {}),
    ("POST", "/extras", {"json": {"decklist": DECK}}),
    ("POST", "/api/v1/validate", {"json": {"decklist": DECK}}),
    ("GET", "/api/v1/formats", {}),
]


def make_app(**config):
    return create_app({"TESTING": True, **config})


@pytest.mark.slow
def test_every_check_counts_against_one_budget_per_client():
    client = make_app(RATELIMIT_DEFAULT=f"{len(CHECKS)} per minute").test_client()
    for method, path, kwargs in CHECKS:
        answer = client.open(path, method=method, **kwargs)
        assert answer.status_code == 200, path
        assert answer.headers["X-RateLimit-Limit"] == str(len(CHECKS))
    remaining = [client.open(path, method=method, **kwargs) for method, path, kwargs in CHECKS]
    assert [a.status_code for a in remaining] == [429] * len(CHECKS)
    page = remaining[0]
    assert page.mimetype == "text/html" and "Too many requests: the limit is" in page.get_data(as_text=True)
    assert remaining[3].get_json()["error"]["code"] == "rate_limited"
    # reading the documentation, probing, and opening the empty page are never limited
    for path in ("/api/v1/docs", "/api/v1/openapi.json", "/healthz", "/readyz", "/", "/?format=expanded"):
        assert client.get(path).status_code == 200, path


def test_share_of_divides_each_amount_rounding_up():
    assert ratelimit.share_of("60 per minute", 3) == "20 per 1 minute"
    assert ratelimit.share_of("10 per second; 1000 per day", 3) == "4 per 1 second; 334 per 1 day"
    assert ratelimit.share_of("60 per minute", 1) == "60 per minute"
    assert ratelimit.share_of("", 4) == ""


def _statuses(base: str, n: int) -> list[requests.Response]:
    answers = []
    for i in range(n):
        method, path, kwargs = CHECKS[i % 4]  # the page form, share links and extras, in turn
        with requests.Session() as fresh:  # a new connection each time: either worker may answer
            answers.append(fresh.request(method, base + path, timeout=30, **kwargs))
    return answers


@pytest.mark.server
def test_with_memory_storage_each_of_two_workers_allows_half_so_the_total_never_exceeds_the_limit():
    proc, base = start_gunicorn(workers=2, env={"DECKCHECK_RATELIMIT_DEFAULT": "4 per minute"})
    try:
        answers = _statuses(base, 10)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    allowed = [a for a in answers if a.status_code == 200]
    assert 2 <= len(allowed) <= 4
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"2"}


@pytest.mark.server
def test_page_checks_share_the_apis_budget_across_two_workers_through_redis(redis_url):  # noqa: F811
    proc, base = start_gunicorn(
        workers=2,
        env={
            "DECKCHECK_RATELIMIT_STORAGE_URI": redis_url,
            "DECKCHECK_RATELIMIT_DEFAULT": "5 per minute",
            "DECKCHECK_RATELIMIT_KEY_PREFIX": "test-budget",
        },
    )
    try:
        answers = _statuses(base, 4)
        with requests.Session() as fresh:
            answers.append(fresh.post(base + "/api/v1/validate", json={"decklist": DECK}, timeout=30))
        answers += _statuses(base, 4)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert [a.status_code for a in answers] == [200] * 5 + [429] * 4
    assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1", "0"]
