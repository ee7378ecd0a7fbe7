"""The TCGdex side of ``deckcheck db sync``: download and validate the English catalogue.

One bounded session (:mod:`deckcheck.sync.fetch`: a timeout on every read, a deadline on every answer
and on the run, a byte cap on every answer, one host, urllib3 retries with backoff on connection
errors, 429 and 5xx, ``Retry-After`` honoured up to a cap), a bounded thread pool and an
on-disk cache of card payloads, so a run that was interrupted resumes where it stopped. The set
list and every set are always fetched fresh; every card of every set comes from ``/cards/{id}``.
Every payload is validated (:mod:`deckcheck.sync.payloads`): a bad record is reported (id and
reason) and skipped.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import json
import logging
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import click

from . import payloads
from .fetch import (
    ANSWER_DEADLINE,
    API_MAX_BYTES,
    SYNC_DEADLINE,
    BodyBrokeOff,
    Deadline,
    DownloadError,
    fetch,
    open_session,
)
from .payloads import ValidationError

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.tcgdex.net/v2/en"
EXCLUDED_SERIES = frozenset({"tcgp"})  # Pokémon TCG Pocket: a different (digital) game
EXIT_REFUSED = 1
EXIT_DOWNLOAD = 4


class SyncError(Exception):
    """The sync cannot go on; nothing was written."""

    exit_code = EXIT_REFUSED


class FetchError(SyncError):
    """A payload could not be downloaded, even after the retries."""

    exit_code = EXIT_DOWNLOAD

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------
# HTTP: one session, retries, timeouts, cache
# ---------------------------------------------------------------------------


class TcgdexClient:
    """GET JSON from one API base URL: TCGdex's (and, for the cross-check, pokemontcg.io's).

    Every answer is a bounded download (:func:`~deckcheck.sync.fetch.fetch`): at most
    :data:`~deckcheck.sync.fetch.API_MAX_BYTES`, whole within
    :data:`~deckcheck.sync.fetch.ANSWER_DEADLINE` and within the run's ``deadline``, from the base
    URL's host (and ``allow_hosts``) only. Not the API client of :mod:`deckcheck.client`, which
    talks to a deckcheck service.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: tuple[float, float] = (5.0, 30.0),
        retries: int = 5,
        backoff: float = 0.5,
        workers: int = 4,
        headers: dict | None = None,
        body_retries: int = 2,
        deadline: float = SYNC_DEADLINE,
        allow_hosts: tuple[str, ...] = (),
    ):
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.backoff = backoff
        self.body_retries = body_retries
        self.deadline = Deadline(deadline, "the sync")
        try:
            self.session = open_session(
                [self.base],
                allow_hosts=allow_hosts,
                retries=retries,
                backoff=backoff,
                pool_size=workers,
                what="db sync",
            )
        except DownloadError as exc:
            raise SyncError(f"--api-url {exc}") from None
        self.session.headers["Accept"] = "application/json"
        if headers:
            self.session.headers.update(headers)
        self.requests = 0

    def url(self, path: str) -> str:
        return self.base + path

    def get_json(self, path: str, params: dict | None = None):
        """The decoded JSON body of ``GET base+path``.

        urllib3 retries connection errors, read timeouts, 429 and 5xx; a body that
        breaks off or is not JSON is fetched again here (``body_retries`` times).
        :raises FetchError: when no complete answer came.
        """
        url = self.url(path)
        problem = None
        for attempt in range(self.body_retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)))
            self.requests += 1
            clock = self.deadline.sooner(ANSWER_DEADLINE, "the answer")
            try:
                body = fetch(self.session, url, params=params, cap=API_MAX_BYTES, deadline=clock, timeout=self.timeout)
            except BodyBrokeOff as exc:
                problem = exc.reason
                continue
            except DownloadError as exc:
                raise FetchError(f"GET {url} failed: {exc.reason}", exc.status) from None
            try:
                return json.loads(body)
            except ValueError:
                problem = f"the response is not complete JSON ({len(body)} bytes)"
        raise FetchError(f"GET {url} failed: {problem}")

    def close(self) -> None:
        self.session.close()


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "deckcheck" / "tcgdex"


class Cache:
    """Card payloads on disk, one JSON file per URL: ``<root>/<host>/<path>.json``.

    An entry older than ``max_age`` seconds is a miss, so upstream corrections are
    picked up; a run that stopped half-way reuses what it already fetched.
    """

    def __init__(self, root: Path | None, max_age: float):
        self.root = Path(root) if root else None
        self.max_age = max_age
        self.hits = 0

    def path(self, url: str) -> Path | None:
        if self.root is None:
            return None
        parts = urlsplit(url)
        segments = [quote(seg, safe="-._") for seg in parts.path.split("/") if seg not in ("", ".", "..")]
        if not segments:
            return None
        host = quote(parts.netloc, safe="-.").replace("%3A", "_")
        return self.root.joinpath(host, *segments[:-1], segments[-1] + ".json")

    def get(self, url: str):
        path = self.path(url)
        if path is None:
            return None
        try:
            if time.time() - path.stat().st_mtime > self.max_age:
                return None
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        self.hits += 1
        return payload

    def put(self, url: str, payload) -> None:
        path = self.path(url)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(payload, fh, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:  # a cache that cannot be written only costs a refetch
            log.warning("cannot write cache entry %s: %s", path, exc)


def run_pool(items: list, fn: Callable, workers: int, label: str, progress: bool) -> list:
    """``fn`` over ``items`` in a bounded pool, results in input order; the first
    :class:`FetchError` cancels what has not started and is raised."""
    if not items:
        return []
    results: list = [None] * len(items)
    show = progress and sys.stderr.isatty()
    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(click.progressbar(length=len(items), label=label, file=sys.stderr)) if show else None
        pool = stack.enter_context(
            cf.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="deckcheck-sync")
        )
        # the pool exits first (LIFO): a failure cancels the downloads that have not started
        stack.callback(pool.shutdown, wait=True, cancel_futures=True)
        futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
        for fut in cf.as_completed(futures):
            results[futures[fut]] = fut.result()
            if bar is not None:
                bar.update(1)
    return results


# ---------------------------------------------------------------------------
# Download
# ---------------------------------------------------------------------------


@dataclass
class SkippedRecord:
    """A record that was reported and skipped."""

    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass
class Catalogue:
    """Validated TCGdex payloads."""

    sets: list[dict]
    cards: list[dict]
    problems: list[SkippedRecord] = field(default_factory=list)
    skipped_card_ids: set[str] = field(default_factory=set)
    skipped_set_ids: set[str] = field(default_factory=set)
    from_cache: int = 0
    fetched: int = 0
    #: sets the API lists without one usable card yet (announced, not filled): id -> "name (why)"
    placeholder_sets: dict[str, str] = field(default_factory=dict)
    #: cards whose payload is still a placeholder (no game data): left out, fetched again next time
    placeholder_cards: list[str] = field(default_factory=list)


#: names TCGdex gives a card that is announced but not transcribed yet
PLACEHOLDER_NAMES = frozenset({"?", "??", "???", "tba", "tbd", "unknown", "placeholder"})


def is_placeholder(card: dict) -> bool:
    """A card record that holds no game data yet: a placeholder name, or a Pokémon without HP,
    attacks and abilities (no real Pokémon card in the catalogue is like that; Trainers and
    Energy without text exist, so only their name can say)."""
    if card["name"].strip().lower() in PLACEHOLDER_NAMES:
        return True
    return (
        card["category"] == "Pokemon" and not card.get("hp") and not card.get("attacks") and not card.get("abilities")
    )


#: a card to fetch: (set id, card id)
CardJob = tuple[str, str]


def download(
    client: TcgdexClient, cache: Cache, *, workers: int = 4, refresh: bool = False, progress: bool = True
) -> Catalogue:
    """Every English set and card, validated. Bad records are skipped and listed.

    :raises FetchError: when a set or card could not be downloaded (the sync stops).
    :raises SyncError: when the set list itself is unusable.
    """
    catalogue = Catalogue([], [])
    briefs = _set_briefs(client, catalogue.problems)
    sets = _fetch_sets(client, briefs, catalogue, workers, progress)
    jobs = _card_jobs(sets, catalogue)
    fetch = functools.partial(_fetch_card, client, cache, refresh)
    usable = _collect_cards(jobs, run_pool(jobs, fetch, workers, "Cards", progress), catalogue)
    # a set with cards listed but not one usable yet is announced, not filled: left out like an empty one
    for s in sets:
        if s["id"] not in catalogue.placeholder_sets and not usable[s["id"]]:
            catalogue.placeholder_sets[s["id"]] = f"{s['name']} (no card with game data yet)"
    catalogue.sets = [s for s in sets if s["id"] not in catalogue.placeholder_sets]
    return catalogue


def _set_briefs(client: TcgdexClient, problems: list[SkippedRecord]) -> list[dict]:
    """The entries of the set list (``GET /sets``), validated, each id once."""
    raw_list = client.get_json("/sets")
    if not isinstance(raw_list, list):
        raise SyncError(f"the set list at {client.url('/sets')} is not a JSON array")
    briefs, seen = [], set()
    for i, item in enumerate(raw_list):
        try:
            brief = payloads.load(payloads.SetBriefSchema, item)
        except ValidationError as exc:
            problems.append(SkippedRecord(f"set {_ident(item, i)} (set list)", payloads.reason(exc)))
            continue
        if brief["id"] not in seen:
            seen.add(brief["id"])
            briefs.append(brief)
    if not briefs:
        raise SyncError(f"the set list at {client.url('/sets')} has no usable set")
    return briefs


def _fetch_set(client: TcgdexClient, brief: dict) -> tuple[dict | None, SkippedRecord | None]:
    payload = client.get_json(f"/sets/{_q(brief['id'])}")
    try:
        detail = payloads.load(payloads.SetSchema, payload)
    except ValidationError as exc:
        return None, SkippedRecord(f"set {brief['id']}", payloads.reason(exc))
    if detail["id"] != brief["id"]:
        return None, SkippedRecord(f"set {brief['id']}", f"the answer is for set {detail['id']!r}")
    return detail, None


def _fetch_sets(
    client: TcgdexClient, briefs: list[dict], catalogue: Catalogue, workers: int, progress: bool
) -> list[dict]:
    """Every set of the list (``GET /sets/{id}``) but those of an excluded series; a bad one is skipped."""
    sets = []
    fetched = run_pool(briefs, functools.partial(_fetch_set, client), workers, "Sets ", progress)
    for brief, (detail, problem) in zip(briefs, fetched, strict=True):
        if problem:
            catalogue.problems.append(problem)
            catalogue.skipped_set_ids.add(brief["id"])
        elif detail["serie"]["id"] not in EXCLUDED_SERIES:
            sets.append(detail)
    return sets


def _card_jobs(sets: list[dict], catalogue: Catalogue) -> list[CardJob]:
    """The cards the sets list (their briefs taken out of the set records), each id once per set;
    a set listed with no cards is a placeholder."""
    jobs: list[CardJob] = []
    for s in sets:
        if not s["cards"]:
            catalogue.placeholder_sets[s["id"]] = f"{s['name']} (listed with no cards)"
        ids = set()
        for i, item in enumerate(s.pop("cards")):
            try:
                brief = payloads.load(payloads.CardBriefSchema, item)
            except ValidationError as exc:
                catalogue.problems.append(
                    SkippedRecord(f"card {_ident(item, i)} (set {s['id']})", payloads.reason(exc))
                )
                continue
            if brief["id"] not in ids:
                ids.add(brief["id"])
                jobs.append((s["id"], brief["id"]))
    return jobs


def _fetch_card(
    client: TcgdexClient, cache: Cache, refresh: bool, job: CardJob
) -> tuple[dict | SkippedRecord | None, str]:
    """(the card, a :class:`SkippedRecord` or None for a placeholder; "cache" or "fetched")."""
    set_id, card_id = job
    url = client.url(f"/cards/{_q(card_id)}")
    payload = None if refresh else cache.get(url)
    if payload is not None:
        try:
            card = _check_card(payloads.load(payloads.TcgdexCardSchema, payload), set_id, card_id)
            if not is_placeholder(card):
                return card, "cache"
        except (ValidationError, _Mismatch):
            pass
        payload = None  # a stale, placeholder or foreign entry: fetch it again
    try:
        payload = client.get_json(f"/cards/{_q(card_id)}")
    except FetchError as exc:
        if exc.status == 404:  # listed by its set but not served: a record problem, not an outage
            return SkippedRecord(f"card {card_id}", "listed by its set but the API answers 404"), "fetched"
        raise
    try:
        card = _check_card(payloads.load(payloads.TcgdexCardSchema, payload), set_id, card_id)
    except ValidationError as exc:
        return SkippedRecord(f"card {card_id}", payloads.reason(exc)), "fetched"
    except _Mismatch as exc:
        return SkippedRecord(f"card {card_id}", str(exc)), "fetched"
    if is_placeholder(card):  # not cached: the next sync asks again and picks the real card up
        return None, "fetched"
    cache.put(url, payload)
    return card, "fetched"


def _collect_cards(
    jobs: list[CardJob], results: list[tuple[dict | SkippedRecord | None, str]], catalogue: Catalogue
) -> Counter:
    """Sort the fetched cards into the catalogue (cards, skipped, placeholders, counts); returns
    set id -> its number of usable cards."""
    counts: Counter = Counter()
    usable: Counter = Counter()
    for (set_id, card_id), (result, how) in zip(jobs, results, strict=True):
        counts[how] += 1
        if result is None:
            catalogue.placeholder_cards.append(card_id)
        elif isinstance(result, SkippedRecord):
            catalogue.problems.append(result)
            catalogue.skipped_card_ids.add(card_id)
        else:
            catalogue.cards.append(result)
            usable[set_id] += 1
    catalogue.from_cache, catalogue.fetched = counts["cache"], counts["fetched"]
    return usable


class _Mismatch(Exception):
    pass


def _check_card(card: dict, set_id: str, card_id: str) -> dict:
    if card["id"] != card_id:
        raise _Mismatch(f"the answer is for card {card['id']!r}")
    if card["set"]["id"] != set_id:
        raise _Mismatch(f"the card says it is in set {card['set']['id']!r}, not {set_id!r}")
    return card


def _ident(item, index: int) -> str:
    return str(item.get("id")) if isinstance(item, dict) and item.get("id") else f"#{index + 1}"


def _q(ident: str) -> str:
    return quote(ident, safe="-._!")
