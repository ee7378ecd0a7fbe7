"""``deckcheck db sync``: keep the card database current from the TCGdex REST API.

The only module that talks to a public card API. One run:

1. downloads the English set list (always fresh), every set (always fresh) and every
   card of every set (``/cards/{id}``), through one :class:`requests.Session` with a
   timeout on every call, urllib3 retries with backoff on connection errors, 429 and
   5xx (``Retry-After`` honoured, capped), a bounded thread pool and an on-disk cache
   of card payloads, so a run that was interrupted resumes where it stopped;
2. validates every payload with the marshmallow schemas below: a bad record is
   reported (id and reason) and skipped;
3. maps the records to the merged-catalogue shape that ``db build`` reads (names,
   pokemontcg.io-style subtypes, PTCGL set codes, upper-case marks) and runs
   :func:`deckcheck.build.build` on it, so fingerprints and data fixes are the same;
4. writes the result beside the target, loads it back with :func:`deckcheck.cards.load`
   and its own checks, compares it with the current database and only then renames
   it over the current file. It refuses (exit 1) when the new database has more than
   5 % fewer cards or loses a set, unless ``--force``; a file that fails its own
   checks is never installed.

What TCGdex cannot tell (the pokemon-tcg-data subtypes such as Tera or Fusion Strike,
pokemon-tcg-data collector numbers, PTCGL set codes, a mark TCGdex lacks) is carried
over from the current database for cards and sets it already has.

Exit codes: 0 written, unchanged or dry run; 1 refused (the current file is kept);
4 the catalogue could not be downloaded completely (nothing written; cached payloads
are kept, so running again resumes).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import gzip
import json
import logging
import os
import re
import sys
import tempfile
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import click
import requests
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

from . import build as _build
from . import cards as _cards

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.tcgdex.net/v2/en"
DEFAULT_PTCGIO_URL = "https://api.pokemontcg.io/v2"
RETRY_STATUSES = (429, 500, 502, 503, 504)
MAX_SHRINK = 0.05
EXCLUDED_SERIES = frozenset({"tcgp"})  # Pokémon TCG Pocket: a different (digital) game
PTCGIO_ONLY_PREFIX = "ptcgio:"
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
# Schemas of the TCGdex payloads (unknown fields are ignored: the API grows)
# ---------------------------------------------------------------------------

_ID = validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9._!?%-]*$", error="not a TCGdex id")


class _StrOrInt(fields.Field):
    """TCGdex writes ``localId``, damage and weakness values as a string or a number."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError("must be a string or an integer")
        return str(value)


class _Base(Schema):
    class Meta:
        unknown = EXCLUDE


def _opt(field_cls=fields.String, *args, **kwargs):
    return field_cls(*args, allow_none=True, load_default=None, **kwargs)


class CardCountSchema(_Base):
    official = _opt(fields.Integer)
    total = _opt(fields.Integer)


class SetBriefSchema(_Base):
    """One entry of ``GET /sets``."""

    id = fields.String(required=True, validate=_ID)
    name = fields.String(required=True, validate=validate.Length(min=1))
    cardCount = _opt(fields.Nested, CardCountSchema)


class SerieBriefSchema(_Base):
    id = fields.String(required=True, validate=validate.Length(min=1))
    name = _opt()


class AbbreviationSchema(_Base):
    official = _opt()


class SetSchema(_Base):
    """``GET /sets/{id}``; its card briefs are checked one by one with :class:`CardBriefSchema`."""

    id = fields.String(required=True, validate=_ID)
    name = fields.String(required=True, validate=validate.Length(min=1))
    serie = fields.Nested(SerieBriefSchema, required=True)
    releaseDate = _opt(validate=validate.Regexp(r"^\d{4}-\d{2}-\d{2}$", error="not a YYYY-MM-DD date"))
    cardCount = _opt(fields.Nested, CardCountSchema)
    abbreviation = _opt(fields.Nested, AbbreviationSchema)
    tcgOnline = _opt()
    cards = fields.List(fields.Raw(), required=True)


class CardBriefSchema(_Base):
    id = fields.String(required=True, validate=_ID)
    localId = _StrOrInt(required=True)
    name = _opt()


class _AbilitySchema(_Base):
    type = _opt()
    name = _opt()  # a few old Poké-Powers have no name in TCGdex
    effect = _opt()


class _AttackSchema(_Base):
    name = _opt()  # unnamed in TCGdex for a few old cards (neo4-113)
    cost = fields.List(fields.String(), allow_none=True, load_default=list)
    damage = _opt(_StrOrInt)
    effect = _opt()


class _WeaknessSchema(_Base):
    type = fields.String(required=True)
    value = _opt(_StrOrInt)


class _CardSetSchema(_Base):
    id = fields.String(required=True, validate=_ID)
    name = _opt()


class CardSchema(_Base):
    """``GET /cards/{id}``: the fields the database is made from."""

    id = fields.String(required=True, validate=_ID)
    localId = _StrOrInt(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1))
    category = fields.String(required=True, validate=validate.OneOf(["Pokemon", "Trainer", "Energy"]))
    set = fields.Nested(_CardSetSchema, required=True)
    rarity = _opt()
    hp = _opt(fields.Integer)
    types = _opt(fields.List, fields.String())
    evolveFrom = _opt()
    stage = _opt()
    suffix = _opt()
    trainerType = _opt()
    energyType = _opt()
    regulationMark = _opt()
    abilities = _opt(fields.List, fields.Nested(_AbilitySchema))
    attacks = _opt(fields.List, fields.Nested(_AttackSchema))
    effect = _opt()
    weaknesses = _opt(fields.List, fields.Nested(_WeaknessSchema))
    resistances = _opt(fields.List, fields.Nested(_WeaknessSchema))
    retreat = _opt(fields.Integer)
    legal = _opt(fields.Dict)
    #: the printing's image base URL, ``<assets host>/<lang>/<serie id>/<set id>/<local id>``
    image = _opt()


#: one instance each: building a marshmallow schema costs more than loading a card with it
_SCHEMAS = {cls.__name__: cls() for cls in (SetBriefSchema, SetSchema, CardBriefSchema, CardSchema)}


def _reason(error: ValidationError | Exception) -> str:
    """``name: Missing data for required field.`` from a marshmallow error."""
    if not isinstance(error, ValidationError):
        return str(error)
    out = []

    def walk(prefix, value):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
            for v in value:
                walk(prefix, v)
        else:
            text = " ".join(value) if isinstance(value, list) else str(value)
            out.append(f"{prefix}: {text}" if prefix else text)

    walk("", error.messages)
    return "; ".join(out)[:300]


def _load(schema: Schema, payload) -> dict:
    if not isinstance(payload, dict):
        raise ValidationError(f"expected a JSON object, got {type(payload).__name__}")
    return schema.load(payload)


# ---------------------------------------------------------------------------
# HTTP: one session, retries, timeouts, cache
# ---------------------------------------------------------------------------


class _Retry(Retry):
    """urllib3 retries, with ``Retry-After`` capped so a hostile header cannot stall a sync for hours."""

    MAX_RETRY_AFTER = 120.0

    def get_retry_after(self, response):
        seconds = super().get_retry_after(response)
        return None if seconds is None else min(seconds, self.MAX_RETRY_AFTER)


class Client:
    """GET JSON from one API base URL."""

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
    ):
        from . import __version__

        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.backoff = backoff
        self.body_retries = body_retries
        retry = _Retry(
            total=retries,
            connect=retries,
            read=retries,
            status=retries,
            other=0,
            backoff_factor=backoff,
            backoff_max=30.0,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset({"GET"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        adapter = HTTPAdapter(max_retries=retry, pool_connections=2, pool_maxsize=max(1, workers))
        self.session = requests.Session()
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers.update({"User-Agent": f"deckcheck/{__version__} (db sync)", "Accept": "application/json"})
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
            try:
                resp = self.session.get(url, params=params, timeout=self.timeout)
            except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError) as exc:
                problem = f"the response broke off ({exc.__class__.__name__})"
                continue
            except requests.RequestException as exc:
                raise FetchError(f"GET {url} failed: {_short(exc)}") from exc
            if resp.status_code != 200:
                raise FetchError(f"GET {url} failed: HTTP {resp.status_code}", resp.status_code)
            try:
                return resp.json()
            except ValueError:
                problem = f"the response is not complete JSON ({len(resp.content)} bytes)"
        raise FetchError(f"GET {url} failed: {problem}")

    def close(self) -> None:
        self.session.close()


def _short(exc: Exception) -> str:
    text = str(exc)
    m = re.search(r"\(Caused by (\w+)\(", text)
    kind = m.group(1) if m else exc.__class__.__name__
    if "timed out" in text.lower() or isinstance(exc, requests.Timeout):
        return f"timed out ({kind})"
    if "too many" in text.lower() and "error responses" in text.lower():
        return f"too many error responses ({kind})"
    return kind if m else text[:200]


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
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError as exc:  # a cache that cannot be written only costs a refetch
            log.warning("cannot write cache entry %s: %s", path, exc)


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


def _pool(items: list, fn: Callable, workers: int, label: str, progress: bool) -> list:
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


def download(
    client: Client, cache: Cache, *, workers: int = 4, refresh: bool = False, progress: bool = True
) -> Catalogue:
    """Every English set and card, validated. Bad records are skipped and listed.

    :raises FetchError: when a set or card could not be downloaded (the sync stops).
    :raises SyncError: when the set list itself is unusable.
    """
    problems: list[SkippedRecord] = []
    raw_list = client.get_json("/sets")
    if not isinstance(raw_list, list):
        raise SyncError(f"the set list at {client.url('/sets')} is not a JSON array")
    briefs, seen = [], set()
    for i, item in enumerate(raw_list):
        try:
            brief = _load(_SCHEMAS["SetBriefSchema"], item)
        except ValidationError as exc:
            problems.append(SkippedRecord(f"set {_ident(item, i)} (set list)", _reason(exc)))
            continue
        if brief["id"] not in seen:
            seen.add(brief["id"])
            briefs.append(brief)
    if not briefs:
        raise SyncError(f"the set list at {client.url('/sets')} has no usable set")

    def fetch_set(brief):
        payload = client.get_json(f"/sets/{_q(brief['id'])}")
        try:
            detail = _load(_SCHEMAS["SetSchema"], payload)
        except ValidationError as exc:
            return None, SkippedRecord(f"set {brief['id']}", _reason(exc))
        if detail["id"] != brief["id"]:
            return None, SkippedRecord(f"set {brief['id']}", f"the answer is for set {detail['id']!r}")
        return detail, None

    sets, skipped_sets = [], set()
    for brief, (detail, problem) in zip(briefs, _pool(briefs, fetch_set, workers, "Sets ", progress)):
        if problem:
            problems.append(problem)
            skipped_sets.add(brief["id"])
        elif detail["serie"]["id"] not in EXCLUDED_SERIES:
            sets.append(detail)

    wanted: list[tuple[str, str, dict]] = []  # (set id, card id, brief)
    placeholder_sets: dict[str, str] = {}
    for s in sets:
        if not s["cards"]:
            placeholder_sets[s["id"]] = f"{s['name']} (listed with no cards)"
        ids = set()
        for i, item in enumerate(s.pop("cards")):
            try:
                brief = _load(_SCHEMAS["CardBriefSchema"], item)
            except ValidationError as exc:
                problems.append(SkippedRecord(f"card {_ident(item, i)} (set {s['id']})", _reason(exc)))
                continue
            if brief["id"] not in ids:
                ids.add(brief["id"])
                wanted.append((s["id"], brief["id"], brief))

    counts = Counter()

    def fetch_card(job):
        set_id, card_id, _brief = job
        url = client.url(f"/cards/{_q(card_id)}")
        payload = None if refresh else cache.get(url)
        if payload is not None:
            try:
                card = _check_card(_load(_SCHEMAS["CardSchema"], payload), set_id, card_id)
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
            card = _check_card(_load(_SCHEMAS["CardSchema"], payload), set_id, card_id)
        except ValidationError as exc:
            return SkippedRecord(f"card {card_id}", _reason(exc)), "fetched"
        except _Mismatch as exc:
            return SkippedRecord(f"card {card_id}", str(exc)), "fetched"
        if is_placeholder(card):  # not cached: the next sync asks again and picks the real card up
            return None, "fetched"
        cache.put(url, payload)
        return card, "fetched"

    cards, skipped_cards, placeholders = [], set(), []
    usable: Counter = Counter()
    for (set_id, card_id, _b), (result, how) in zip(wanted, _pool(wanted, fetch_card, workers, "Cards", progress)):
        counts[how] += 1
        if result is None:
            placeholders.append(card_id)
        elif isinstance(result, SkippedRecord):
            problems.append(result)
            skipped_cards.add(card_id)
        else:
            cards.append(result)
            usable[set_id] += 1
    # a set with cards listed but not one usable yet is announced, not filled: left out like an empty one
    for s in sets:
        if s["id"] not in placeholder_sets and not usable[s["id"]]:
            placeholder_sets[s["id"]] = f"{s['name']} (no card with game data yet)"
    sets = [s for s in sets if s["id"] not in placeholder_sets]
    return Catalogue(
        sets,
        cards,
        problems,
        skipped_cards,
        skipped_sets,
        counts["cache"],
        counts["fetched"],
        placeholder_sets,
        placeholders,
    )


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


# ---------------------------------------------------------------------------
# Mapping TCGdex records to the merged-catalogue shape (see PROVENANCE.md, trim.py)
# ---------------------------------------------------------------------------

SUPERTYPE = {"Pokemon": "Pokémon", "Trainer": "Trainer", "Energy": "Energy"}
STAGE_MAP = {
    "Basic": "Basic",
    "Stage1": "Stage 1",
    "Stage2": "Stage 2",
    "BREAK": "BREAK",
    "LEVEL-UP": "Level-Up",
    "MEGA": "MEGA",
    "VMAX": "VMAX",
    "VSTAR": "VSTAR",
    "V-UNION": "V-UNION",
    "RESTORED": "Restored",
    "Baby": "Baby",
}
TRAINER_MAP = {
    "Item": "Item",
    "Supporter": "Supporter",
    "Stadium": "Stadium",
    "Tool": "Pokémon Tool",
    "Ace Spec": "ACE SPEC",
    "Technical Machine": "Technical Machine",
    "Goldenrod Game Corner": "Goldenrod Game Corner",
    "Rocket's Secret Machine": "Rocket's Secret Machine",
}
TAG_TEAM_SUPPORTER_SETS = frozenset({"sm9", "sm10", "sm11", "sm115", "sm12", "smp"})
_HYPHEN = re.compile(r"^(.*\S) (EX|GX)$")


def official_name(card: dict) -> str:
    """``Shaymin EX`` -> ``Shaymin-EX`` (BW-SM style, as printed), ``’`` -> ``'``; ``ex`` stays."""
    name = card["name"].replace("’", "'")
    if card.get("category") == "Pokemon":
        m = _HYPHEN.match(name)
        if m:
            return f"{m.group(1)}-{m.group(2)}"
    return name


def normalise_mark(value) -> str | None:
    """Upper-case; TCGdex's ``"None"`` and the lower-case ``j`` of one MEP card are fixed here."""
    if value is None or str(value).strip().lower() in ("", "none", "null"):
        return None
    return str(value).strip().upper()


def collector_number(local_id: str) -> str:
    return (local_id.lstrip("0") or "0") if local_id.isdigit() else local_id


def derive_subtypes(card: dict, serie_id: str | None, stage_by_name: dict[str, str]) -> list[str]:
    """pokemontcg.io-style subtypes from TCGdex stage/suffix/trainerType/rarity and the name.

    The same rules as the merged catalogue's ``derived`` subtypes; Tera, Ancient, Future,
    the Strike styles, Ultra Beast and Team Plasma cannot be seen here.
    """
    name = official_name(card)
    cat = card.get("category")
    out: list[str] = []
    if cat == "Pokemon":
        stage = STAGE_MAP.get(card.get("stage") or "")
        suffix = card.get("suffix")
        if name.endswith(" ex") or " ex " in name:
            tag = "ex"
        elif name.endswith("-EX") or name.endswith(" EX"):
            tag = "EX"
        elif "TAG TEAM" in (suffix or "") or ("&" in name and name.endswith("GX")):
            tag = "TAG TEAM-GX"
        elif name.endswith("GX"):
            tag = "GX"
        elif name.endswith("VMAX"):
            tag = "VMAX"
        elif name.endswith("VSTAR"):
            tag = "VSTAR"
        elif name.endswith("V-UNION"):
            tag = "V-UNION"
        elif name.endswith(" V"):
            tag = "V"
        else:
            tag = suffix if suffix in ("SP", "Prime", "Legend") else None
        if stage is None or stage == "MEGA" and tag == "ex":
            # TCGdex leaves the stage of many EX/GX cards empty: infer it from the evolution line
            pre = card.get("evolveFrom")
            if not pre:
                stage = "Basic" if not (name.startswith("M ") or tag in ("VMAX", "VSTAR", "V-UNION")) else stage
            else:
                stage = {"Basic": "Stage 1", "Stage 1": "Stage 2"}.get(stage_by_name.get(pre), stage or "Stage 1")
        if tag == "Legend":
            out.append("LEGEND")
        elif stage:
            out.append(stage)
        if name.startswith("M ") and tag == "EX" and "MEGA" not in out:
            out = ["MEGA"]
        if name.startswith("Mega ") and tag == "ex" and "MEGA" not in out:
            out.append("MEGA")
        if tag == "TAG TEAM-GX":
            out += ["TAG TEAM", "GX"]
        elif tag in ("ex", "EX", "GX", "V", "SP", "Prime"):
            out.append(tag)
        elif tag in ("VMAX", "VSTAR", "V-UNION") and tag not in out:
            out.append(tag)
        if name.startswith("Radiant "):
            out.append("Radiant")
        if "◇" in name:
            out.append("Prism Star")
        if "★" in name or "☆" in name or name.endswith(" Star") and serie_id == "ex":
            out.append("Star")
        if serie_id in ("dp", "pl") and re.search(r" (G|GL|C|FB|E4|4)$", name):
            out.append("SP")
    elif cat == "Trainer":
        tt = TRAINER_MAP.get(card.get("trainerType") or "")
        if tt == "ACE SPEC":
            out += ["Item", "ACE SPEC"]
        elif tt:
            out.append(tt)
        if tt == "Supporter" and " & " in name and card.get("set_id") in TAG_TEAM_SUPPORTER_SETS:
            out.append("TAG TEAM")
        if "◇" in name:
            out.append("Prism Star")
    elif cat == "Energy":
        # decided from the name and the absence of text, never from energyType (14 Special Energies say "Normal")
        out.append("Basic" if _build.is_basic_energy({"supertype": "Energy", **card, "name": name}) else "Special")
        if "◇" in name:
            out.append("Prism Star")
    if "ACE SPEC" in (card.get("rarity") or "") and "ACE SPEC" not in out:
        out.append("ACE SPEC")
    seen: set[str] = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def _alias_codes(directory: Path | None) -> dict[str, str]:
    """set id -> a plain alias code from ``data/set-aliases.csv`` (no prefix/offset), a last resort."""
    out: dict[str, str] = {}
    for row in _build.read_table("set-aliases.csv", directory):
        sets = (row.get("sets") or "").split()
        if (
            (row.get("action") or "lookup") == "lookup"
            and len(sets) == 1
            and not row.get("prefix")
            and not row.get("offset")
        ):
            out.setdefault(sets[0], row["alias"].upper())
    return out


def _set_codes(s: dict, previous: _cards.CardDB | None, alias_codes: dict[str, str]) -> tuple[str | None, list[str]]:
    """PTCGL code and aliases: the current database's for a set it knows (they came from
    pokemon-tcg-data ``ptcgoCode``), else TCGdex ``tcgOnline``, else the official
    abbreviation (``SHF:SV`` -> ``SHF``: sub-sets share the parent code), else
    ``data/set-aliases.csv``."""
    abbr = ((s.get("abbreviation") or {}).get("official") or "").strip() or None
    if abbr and ":" in abbr:
        abbr = abbr.split(":")[0]
    online = (s.get("tcgOnline") or "").strip() or None
    prev = previous.sets.get(s["id"]) if previous else None
    if prev and prev.code:
        code = prev.code
        aliases = {code, *prev.aliases}
    else:
        code = online or abbr or alias_codes.get(s["id"])
        aliases = {code} if code else set()
    aliases |= {x for x in (abbr, online) if x}
    return code, sorted(aliases)


def _sort_local(local_id: str):
    m = re.match(r"^([A-Za-z-]*)(\d+)(.*)$", local_id)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else (local_id, 0, "")


def set_image_paths(cards: list[dict]) -> dict[str, str]:
    """Set id -> the path of its card images under the image host (``en/sv/sv01``), from the
    first card whose ``image`` URL ends in ``/<set id>/<local id>``; a set none of whose cards
    has an image is left out (the page shows its cards as text)."""
    out: dict[str, str] = {}
    for c in cards:
        set_id, image = c["set"]["id"], c.get("image")
        if set_id in out or not isinstance(image, str):
            continue
        path = urlsplit(image).path.strip("/")
        tail = f"/{set_id}/{c['localId']}"
        if path.endswith(tail) and len(path) > len(tail):
            out[set_id] = path[: -len(c["localId"]) - 1]
    return out


def map_catalogue(
    sets: list[dict], cards: list[dict], previous: _cards.CardDB | None = None, directory: Path | None = None
) -> dict:
    """Validated TCGdex sets and cards -> the merged-catalogue dict that :func:`build.build` reads."""
    alias_codes = _alias_codes(directory)
    serie_of = {s["id"]: s["serie"]["id"] for s in sets}
    release = {s["id"]: s.get("releaseDate") or "" for s in sets}
    out_sets = []
    for s in sorted(sets, key=lambda s: (s.get("releaseDate") or "", s["id"])):
        code, aliases = _set_codes(s, previous, alias_codes)
        out_sets.append(
            {
                "id": s["id"],
                "name": s["name"],
                "series_id": s["serie"]["id"],
                "series": s["serie"].get("name"),
                "releaseDate": s.get("releaseDate"),
                "ptcgl_code": code,
                "code_aliases": aliases,
                "official_count": (s.get("cardCount") or {}).get("official"),
            }
        )
    image_of = set_image_paths(cards)
    for rec in out_sets:
        rec["image"] = image_of.get(rec["id"])
    stage_votes: dict[str, Counter] = defaultdict(Counter)
    for c in cards:
        if c["category"] == "Pokemon" and c.get("stage") in STAGE_MAP:
            stage_votes[c["name"]][STAGE_MAP[c["stage"]]] += 1
            stage_votes[official_name(c)][STAGE_MAP[c["stage"]]] += 1
    if previous:
        for pc in previous.cards.values():
            for st in ("Basic", "Stage 1", "Stage 2"):
                if pc.supertype == "Pokémon" and st in pc.subtypes:
                    stage_votes[pc.name][st] += 1
    stage_by_name = {n: v.most_common(1)[0][0] for n, v in stage_votes.items()}
    out_cards = []
    for c in sorted(cards, key=lambda c: (release.get(c["set"]["id"], ""), c["set"]["id"], _sort_local(c["localId"]))):
        set_id = c["set"]["id"]
        supertype = SUPERTYPE[c["category"]]
        prev = previous.cards.get(c["id"]) if previous else None
        if prev is not None and prev.supertype != supertype:
            prev = None  # the record changed kind: nothing of the old one applies
        flat = {**c, "set_id": set_id}
        rec = {
            "id": c["id"],
            "name": official_name(c),
            "supertype": supertype,
            # the current database's subtypes are pokemon-tcg-data's where it had the card (richer)
            "subtypes": list(prev.subtypes) if prev else derive_subtypes(flat, serie_of.get(set_id), stage_by_name),
            "evolvesFrom": c.get("evolveFrom") or (prev.evolves_from if prev else None),
            "hp": c.get("hp"),
            "types": c.get("types"),
            "regulationMark": normalise_mark(c.get("regulationMark")) or (prev.mark if prev else None),
            "set_id": set_id,
            "number": prev.number if prev else collector_number(c["localId"]),
            "localId": c["localId"],
            "rarity": c.get("rarity"),
            "abilities": c.get("abilities"),
            "attacks": [
                {**a, "damage": None if a.get("damage") in (None, "") else str(a["damage"])}
                for a in c.get("attacks") or []
            ]
            or None,
            "effect": c.get("effect"),
            "weaknesses": c.get("weaknesses"),
            "resistances": c.get("resistances"),
            "retreat": c.get("retreat"),
        }
        out_cards.append({k: v for k, v in rec.items() if k == "subtypes" or v not in (None, [], {})})
    return {"meta": {}, "sets": out_sets, "cards": out_cards}


def build_database(
    catalogue: Catalogue,
    previous: _cards.CardDB | None,
    source_url: str,
    directory: Path | None = None,
    now: dt.datetime | None = None,
) -> tuple[dict, list[str]]:
    """The database dict for ``catalogue``, plus the ids of rows kept from ``previous``.

    Kept from the current database: the row of a card whose new payload was invalid (a
    bad upstream record never removes a card that decks may use), the records only
    pokemon-tcg-data has (ids ``ptcgio:...``, which ``db build`` merged in and TCGdex
    can never bring), and a text-less card's fingerprint made from pokemon-tcg-data
    rules text.
    :raises build.BuildError: when the data tables do not fit the catalogue.
    """
    now = now or dt.datetime.now(dt.UTC)
    source = map_catalogue(catalogue.sets, catalogue.cards, previous, directory)
    db = _build.build(source, directory, built_at=now.strftime("%Y-%m-%dT%H:%M:%SZ"))
    fp_at = _build.FIELDS.index("fingerprint")
    carried: list[str] = []
    if previous:
        for row in db["cards"]:
            old = previous.cards.get(row[0])
            if old and row[fp_at].startswith("name:") and old.fingerprint.startswith("rules:"):
                row[fp_at] = old.fingerprint
        have = {row[0] for row in db["cards"]}
        set_ids = {s["id"] for s in db["sets"]}
        # a set the API now lists without usable cards (announced, not filled) keeps what the current
        # database has of it: never a lost set or a shrunken catalogue
        for set_id in sorted(set(catalogue.placeholder_sets) & set(previous.sets) - set_ids):
            old_set = previous.sets[set_id]
            db["sets"].append(
                {
                    "id": old_set.id,
                    "name": old_set.name,
                    "series": old_set.series,
                    "code": old_set.code,
                    "aliases": list(old_set.aliases),
                    "release": old_set.release,
                    "official_count": old_set.official_count,
                }
            )
            set_ids.add(set_id)
        keep = [cid for cid in sorted(catalogue.skipped_card_ids) if cid in previous.cards]
        # records that only pokemon-tcg-data has (ids "ptcgio:..."): TCGdex can never bring them
        keep += [cid for cid in previous.cards if cid.startswith(PTCGIO_ONLY_PREFIX)]
        # the current cards of a set whose payloads are placeholders now
        keep += [cid for cid in catalogue.placeholder_cards if cid in previous.cards]
        keep += [cid for cid, c in previous.cards.items() if c.set_id in catalogue.placeholder_sets]
        for card_id in keep:
            old = previous.cards[card_id]
            if card_id not in have and old.set_id in set_ids:
                db["cards"].append(
                    [
                        old.id,
                        old.name,
                        old.supertype,
                        list(old.subtypes),
                        old.evolves_from,
                        list(old.types),
                        old.mark,
                        old.set_id,
                        old.number,
                        old.rarity,
                        old.fingerprint,
                    ]
                )
                have.add(card_id)
                carried.append(card_id)
    db["meta"]["cards"] = len(db["cards"])
    db["meta"]["sets"] = len(db["sets"])
    db["meta"]["newest_set"] = _build.newest_set(db["sets"], db["cards"])
    db["meta"]["sources"] = {"tcgdex": source_url, "base": previous.version if previous else None}
    db["meta"]["synced_at"] = db["meta"]["built_at"]
    return db, carried


# ---------------------------------------------------------------------------
# Checks, comparison, summary
# ---------------------------------------------------------------------------


def self_checks(new: _cards.CardDB, raw: dict, previous: _cards.CardDB | None) -> list[str]:
    """What must hold for any database we install (``--force`` does not skip these)."""
    out = []
    if not new.cards:
        out.append("it has no cards")
    if len(new.cards) != len(raw["cards"]):
        out.append(f"it has {len(raw['cards']) - len(new.cards)} duplicate card id(s)")
    if previous:
        for energy in ("Grass", "Fire", "Water", "Lightning", "Psychic", "Fighting", "Darkness", "Metal"):
            if previous.basic_energy(energy) and not new.basic_energy(energy):
                out.append(f"it has no basic {energy} Energy")
    return out


def safety_checks(new: _cards.CardDB, previous: _cards.CardDB | None) -> list[str]:
    """What makes a sync suspicious (``--force`` installs it anyway)."""
    if previous is None:
        return []
    out = []
    old_n, new_n = len(previous.cards), len(new.cards)
    if new_n < old_n * (1 - MAX_SHRINK):
        out.append(
            f"it has {new_n} cards, {old_n - new_n} fewer than the current {old_n} "
            f"({(old_n - new_n) / old_n:.0%}; at most {MAX_SHRINK:.0%} may go)"
        )
    lost = sorted(set(previous.sets) - set(new.sets))
    had = Counter(c.set_id for c in previous.cards.values())
    has = Counter(c.set_id for c in new.cards.values())
    emptied = sorted(sid for sid in set(previous.sets) & set(new.sets) if had[sid] and not has[sid])
    if lost:
        out.append(f"it loses {len(lost)} set(s): {', '.join(lost[:20])}")
    if emptied:
        out.append(f"it has no cards in {len(emptied)} set(s) that had some: {', '.join(emptied[:20])}")
    return out


@dataclass
class Summary:
    sets_added: list[str] = field(default_factory=list)
    sets_removed: list[str] = field(default_factory=list)
    cards_added: list[str] = field(default_factory=list)
    cards_removed: list[str] = field(default_factory=list)
    marks_changed: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    legality_changed: list[tuple[str, str, bool, bool]] = field(default_factory=list)
    on: dt.date | None = None


def compare(previous: _cards.CardDB | None, new: _cards.CardDB, on: dt.date | None = None) -> Summary:
    """Sets and cards added/removed, regulation marks changed, and Standard legality on ``on``
    (today) for the cards whose mark or fingerprint changed."""
    on = on or dt.date.today()
    out = Summary(on=on)
    old_sets = previous.sets if previous else {}
    old_cards = previous.cards if previous else {}
    out.sets_added = sorted(set(new.sets) - set(old_sets))
    out.sets_removed = sorted(set(old_sets) - set(new.sets))
    out.cards_added = sorted(set(new.cards) - set(old_cards))
    out.cards_removed = sorted(set(old_cards) - set(new.cards))
    if previous is None:
        return out
    changed = []
    for cid, card in new.cards.items():
        old = old_cards.get(cid)
        if old is None:
            continue
        if old.mark != card.mark:
            out.marks_changed.append((cid, card.name, old.mark, card.mark))
        if old.mark != card.mark or old.fingerprint != card.fingerprint:
            changed.append((old, card))
    try:
        from .formats import default_formats

        standard = default_formats()["standard"]
    except Exception as exc:  # noqa: BLE001 - the summary must not break a sync
        log.warning("Standard legality not compared: %s", exc)
        return out

    def legal(card, db) -> bool:
        via, ban = standard.legality(card, db, on)
        return via is not None and ban is None

    for old, card in changed:
        before, after = legal(old, previous), legal(card, new)
        if before != after:
            out.legality_changed.append((card.id, card.name, before, after))
    return out


def _listing(items: list[str], limit: int = 12) -> str:
    more = f" … and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def summary_lines(s: Summary, previous: _cards.CardDB | None, new: _cards.CardDB) -> list[str]:
    lines = []
    if previous is not None:
        lines.append(
            f"Cards: {len(new.cards)} (was {len(previous.cards)}): {len(s.cards_added)} added, "
            f"{len(s.cards_removed)} removed. Sets: {len(new.sets)} (was {len(previous.sets)})."
        )
    else:
        lines.append(f"Cards: {len(new.cards)} in {len(new.sets)} sets (no current database to compare with).")
    if s.sets_added:
        per_set = Counter(c.set_id for c in new.cards.values())
        lines.append(
            f"Sets added ({len(s.sets_added)}): "
            + _listing(
                [
                    f"{sid} {new.sets[sid].name} ({new.sets[sid].code or '-'}, {per_set[sid]} cards)"
                    for sid in s.sets_added
                ]
            )
        )
    if s.sets_removed:
        lines.append(f"Sets removed ({len(s.sets_removed)}): {_listing(s.sets_removed)}")
    if previous is not None and s.cards_added:
        lines.append(f"Cards added ({len(s.cards_added)}): {_listing(s.cards_added)}")
    if s.cards_removed:
        lines.append(f"Cards removed ({len(s.cards_removed)}): {_listing(s.cards_removed)}")
    if s.marks_changed:
        lines.append(f"Regulation marks changed ({len(s.marks_changed)}):")
        lines += [
            f"  {cid} {name}: {old or '-'} -> {new_mark or '-'}" for cid, name, old, new_mark in s.marks_changed[:50]
        ]
    if s.legality_changed:
        word = {True: "legal", False: "not legal"}
        lines.append(f"Standard legality changed on {s.on.isoformat()} ({len(s.legality_changed)}):")
        lines += [f"  {cid} {name}: {word[a]} -> {word[b]}" for cid, name, a, b in s.legality_changed[:50]]
    return lines


# ---------------------------------------------------------------------------
# The whole sync
# ---------------------------------------------------------------------------


@dataclass
class SyncResult:
    status: str  # written | unchanged | dry-run | refused
    output: Path
    lines: list[str]
    problems: list[SkippedRecord]
    summary: Summary | None = None
    version: str | None = None
    previous_version: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_REFUSED if self.status == "refused" else 0


def _read_previous(path: Path) -> tuple[_cards.CardDB | None, dict | None, str | None]:
    if not path.exists():
        return None, None, None
    try:
        db = _cards.load(path)
        blob = path.read_bytes()
        raw = json.loads(gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob)
        return db, raw, None
    except (_cards.DatabaseError, OSError, ValueError, EOFError, zlib.error) as exc:
        return None, None, str(exc) or repr(exc)


def sync(
    api_url: str = DEFAULT_API_URL,
    output: str | os.PathLike | None = None,
    *,
    base: str | os.PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    refresh: bool = False,
    cache_dir: str | os.PathLike | None = None,
    max_age: float = 12 * 3600,
    workers: int = 4,
    timeout: float = 30.0,
    connect_timeout: float = 5.0,
    retries: int = 5,
    backoff: float = 0.5,
    progress: bool = True,
    today: dt.date | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> SyncResult:
    """Download, build, check and (unless refused or ``dry_run``) install a new database.

    :raises FetchError: the catalogue could not be downloaded completely (nothing written).
    :raises SyncError: the set list is unusable (nothing written).
    """
    target = Path(output) if output else _cards.default_path()
    base_path = Path(base) if base else target
    previous, previous_raw, unreadable = _read_previous(base_path)
    lines: list[str] = []
    if unreadable:
        lines.append(f"Warning: the current database is unreadable ({unreadable}); nothing to compare with.")
    cache = Cache(Path(cache_dir) if cache_dir else default_cache_dir(), max_age)
    client = Client(api_url, timeout=(connect_timeout, timeout), retries=retries, backoff=backoff, workers=workers)
    try:
        catalogue = download(client, cache, workers=workers, refresh=refresh, progress=progress)
    finally:
        client.close()
    lines.append(
        f"Fetched {len(catalogue.sets)} sets and {len(catalogue.cards)} cards from {api_url} "
        f"({catalogue.fetched} card downloads, {catalogue.from_cache} from the cache)."
    )
    if catalogue.placeholder_sets:
        lines.append(
            f"Skipped {len(catalogue.placeholder_sets)} set(s) the API lists without usable cards yet "
            "(announced, not filled; looked at again next sync): "
            + _listing([f"{sid} {what}" for sid, what in sorted(catalogue.placeholder_sets.items())])
        )
    if catalogue.placeholder_cards:
        lines.append(
            f"Skipped {len(catalogue.placeholder_cards)} placeholder card(s) without game data yet "
            f"(fetched again next sync): {_listing(sorted(catalogue.placeholder_cards))}"
        )
    if catalogue.problems:
        lines.append(f"Skipped {len(catalogue.problems)} invalid record(s):")
        lines += [f"  {p}" for p in catalogue.problems[:100]]
    for line in lines:
        echo(line)
    lines_out = list(lines)

    def refuse(reasons: list[str], *, new_db=None, summary=None) -> SyncResult:
        msg = [f"Refused to replace {target}; the current database is unchanged:"] + [f"  - {r}" for r in reasons]
        for line in msg:
            echo(line)
        return SyncResult(
            "refused",
            target,
            lines_out + msg,
            catalogue.problems,
            summary,
            new_db.version if new_db else None,
            previous.version if previous else None,
        )

    try:
        db_dict, carried = build_database(catalogue, previous, api_url.rstrip("/"))
    except _build.BuildError as exc:
        return refuse([f"the new database fails its own checks: {exc}"])
    kept_bad = [cid for cid in carried if cid in catalogue.skipped_card_ids]
    kept_other = sum(cid.startswith(PTCGIO_ONLY_PREFIX) for cid in carried)
    kept_waiting = len(carried) - len(kept_bad) - kept_other
    for line in (
        (
            [f"Kept the current row of {len(kept_bad)} card(s) whose new record was invalid: {_listing(kept_bad)}"]
            if kept_bad
            else []
        )
        + (
            [f"Kept {kept_other} record(s) that only pokemon-tcg-data has (ids {PTCGIO_ONLY_PREFIX}...)."]
            if kept_other
            else []
        )
        + (
            [f"Kept the current row of {kept_waiting} card(s) that the API holds as placeholders now."]
            if kept_waiting
            else []
        )
    ):
        echo(line)
        lines_out.append(line)

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".sync.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        _build.write_database(db_dict, tmp)
        try:
            new_db = _cards.load(tmp)
        except _cards.DatabaseError as exc:
            return refuse([f"the new database fails its own checks: {exc}"])
        hard = self_checks(new_db, db_dict, previous)
        if hard:
            return refuse([f"the new database fails its own checks: {r}" for r in hard], new_db=new_db)
        summary = compare(previous, new_db, today)
        for line in summary_lines(summary, previous, new_db):
            echo(line)
            lines_out.append(line)
        soft = safety_checks(new_db, previous)
        if soft and not force:
            return refuse(soft + ["run again with --force to install it anyway"], new_db=new_db, summary=summary)
        for reason in soft:
            line = f"Warning (--force): {reason}"
            echo(line)
            lines_out.append(line)
        prev_version = previous.version if previous else None
        if (
            previous_raw is not None
            and previous_raw.get("sets") == db_dict["sets"]
            and previous_raw.get("cards") == db_dict["cards"]
        ):
            line = f"No changes: {target} left as it is (version {prev_version})."
            echo(line)
            return SyncResult(
                "unchanged", target, lines_out + [line], catalogue.problems, summary, prev_version, prev_version
            )
        if dry_run:
            line = f"Dry run: {target} not written (it would become version {new_db.version})."
            echo(line)
            return SyncResult(
                "dry-run", target, lines_out + [line], catalogue.problems, summary, new_db.version, prev_version
            )
        os.replace(tmp, target)
        line = (
            f"Wrote {target}: {len(new_db.cards)} cards in {len(new_db.sets)} sets "
            f"(version {prev_version or '-'} -> {new_db.version})."
        )
        echo(line)
        return SyncResult(
            "written", target, lines_out + [line], catalogue.problems, summary, new_db.version, prev_version
        )
    finally:
        if tmp.exists():
            tmp.unlink()


# ---------------------------------------------------------------------------
# Cross-check against pokemontcg.io v2 (retiring 2027-03-01): reads only
# ---------------------------------------------------------------------------


def crosscheck_pokemontcg(
    api_url: str,
    db: _cards.CardDB,
    *,
    api_key: str | None = None,
    workers: int = 4,
    timeout: float = 30.0,
    connect_timeout: float = 5.0,
    retries: int = 5,
    backoff: float = 0.5,
    today: dt.date | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> list[str]:
    """Regulation marks and Standard legality of the cards both sources have; returns the divergences.

    pokemontcg.io's set ids differ from TCGdex's, so sets are matched by PTCGL code
    (``ptcgoCode``) and then by name; cards by collector number. Never writes anything.
    pokemontcg.io's own ``legalities.standard`` is known to be stale (PROVENANCE.md), so a
    legality divergence is a hint for a human, not a verdict.
    """
    from .formats import default_formats

    on = today or dt.date.today()
    standard = default_formats()["standard"]
    client = Client(
        api_url,
        timeout=(connect_timeout, timeout),
        retries=retries,
        backoff=backoff,
        workers=workers,
        headers={"X-Api-Key": api_key} if api_key else None,
    )
    by_code: dict[str, list[str]] = defaultdict(list)
    by_name: dict[str, str] = {}
    for s in db.sets.values():
        for code in {s.code or "", *s.aliases} - {""}:
            by_code[code.upper()].append(s.id)
        by_name.setdefault(_build.normalise_text(s.name), s.id)
    try:
        payload = client.get_json("/sets", params={"pageSize": 250})
        ptcg_sets = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(ptcg_sets, list):
            raise SyncError(f"the set list at {client.url('/sets')} has no 'data' array")
        pairs = []
        for ps in ptcg_sets:
            if not isinstance(ps, dict) or not ps.get("id"):
                continue
            ours = by_name.get(_build.normalise_text(ps.get("name") or ""))
            if ours is None:
                cands = by_code.get((ps.get("ptcgoCode") or "").upper(), [])
                ours = cands[0] if len(cands) == 1 else None
            if ours:
                pairs.append((ps["id"], ours))

        def fetch(pair):
            pid, _ours = pair
            out, page = [], 1
            while True:
                body = client.get_json("/cards", params={"q": f"set.id:{pid}", "page": page, "pageSize": 250})
                data = body.get("data") if isinstance(body, dict) else None
                if not isinstance(data, list):
                    raise SyncError(f"pokemontcg.io cards of {pid}: no 'data' array")
                out += data
                if not data or len(out) >= int(body.get("totalCount") or 0):
                    return out
                page += 1

        results = _pool(pairs, fetch, workers, "Sets ", True)
    finally:
        client.close()
    numbers = {(c.set_id, _cards.number_key(c.number)): c for c in db.cards.values()}
    divergences, compared = [], 0
    for (pid, ours), ptcg_cards in zip(pairs, results):
        for pc in ptcg_cards:
            card = numbers.get((ours, _cards.number_key(str(pc.get("number") or ""))))
            if card is None:
                continue
            compared += 1
            their_mark = normalise_mark(pc.get("regulationMark"))
            if their_mark and card.mark and their_mark != card.mark:
                divergences.append(
                    f"{card.id} {card.name}: regulation mark {card.mark} here, "
                    f"{their_mark} at pokemontcg.io ({pc.get('id')})"
                )
            theirs = ((pc.get("legalities") or {}).get("standard") or "").lower() == "legal"
            via, ban = standard.legality(card, db, on)
            mine = via is not None and ban is None
            if theirs != mine:
                divergences.append(
                    f"{card.id} {card.name}: Standard {'legal' if mine else 'not legal'} here on "
                    f"{on.isoformat()}, {'legal' if theirs else 'not legal'} at pokemontcg.io "
                    f"({pc.get('id')})"
                )
    echo(f"Compared {compared} cards in {len(pairs)} sets with {api_url}: {len(divergences)} divergence(s).")
    for line in divergences[:200]:
        echo(f"  {line}")
    return divergences


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------


class _NoDatabase(click.ClickException):
    """The database to cross-check cannot be read: exit 3, as elsewhere in the CLI."""

    exit_code = 3


@click.command("sync")
@click.option(
    "--api-url",
    default=None,
    metavar="URL",
    help=f"API base URL (default: {DEFAULT_API_URL}; with --source pokemontcg: {DEFAULT_PTCGIO_URL}).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Database to replace (default: the service's database path).",
)
@click.option(
    "--base",
    type=click.Path(dir_okay=False),
    default=None,
    help="Database to compare with and to take set codes and subtypes from (default: --output).",
)
@click.option("--dry-run", is_flag=True, help="Download, build, check and report; write nothing.")
@click.option(
    "--force", is_flag=True, help="Install even if the new database has over 5 percent fewer cards or lost a set."
)
@click.option("--refresh", is_flag=True, help="Ignore cached card payloads and download every card again.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Card payload cache (default: ~/.cache/deckcheck/tcgdex).",
)
@click.option(
    "--max-age",
    type=click.FloatRange(min=0),
    default=12.0,
    show_default=True,
    help="Hours a cached card payload is reused.",
)
@click.option("--workers", type=click.IntRange(1, 16), default=4, show_default=True, help="Parallel downloads.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Read timeout per request, seconds (the connect timeout is 5 s).",
)
@click.option(
    "--retries",
    type=click.IntRange(0, 20),
    default=5,
    show_default=True,
    help="Retries per request on connection errors, timeouts, 429 and 5xx.",
)
@click.option(
    "--backoff",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="Backoff factor: waits grow as factor x 2^n seconds between retries (at most 30 s).",
)
@click.option(
    "--source",
    type=click.Choice(["tcgdex", "pokemontcg"]),
    default="tcgdex",
    show_default=True,
    help="pokemontcg: cross-check marks and Standard legality against pokemontcg.io v2 (no writes).",
)
@click.option("--api-key", envvar="POKEMONTCG_API_KEY", default=None, help="pokemontcg.io key (X-Api-Key).")
def sync_command(
    api_url,
    output,
    base,
    dry_run,
    force,
    refresh,
    cache_dir,
    max_age,
    workers,
    timeout,
    retries,
    backoff,
    source,
    api_key,
) -> None:
    """Update the card database from the TCGdex API (https://api.tcgdex.net).

    Exit status: 0 written, unchanged or dry run; 1 refused (the new database
    shrank, lost a set or failed its checks: the current file is unchanged);
    4 the download failed (nothing written; run again to resume from the cache).
    """
    echo = click.echo
    if source == "pokemontcg":
        path = Path(output) if output else _cards.default_path()
        try:
            db = _cards.load(path)
            crosscheck_pokemontcg(
                api_url or DEFAULT_PTCGIO_URL,
                db,
                api_key=api_key,
                workers=workers,
                timeout=timeout,
                retries=retries,
                backoff=backoff,
                echo=echo,
            )
        except _cards.DatabaseError as exc:
            raise _NoDatabase(str(exc)) from exc
        except SyncError as exc:
            echo(f"Error: {exc}", err=True)
            sys.exit(exc.exit_code)
        return  # divergences are for a human to read: exit 0
    try:
        result = sync(
            api_url or DEFAULT_API_URL,
            output,
            base=base,
            dry_run=dry_run,
            force=force,
            refresh=refresh,
            cache_dir=cache_dir,
            max_age=max_age * 3600,
            workers=workers,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            echo=echo,
        )
    except SyncError as exc:
        echo(f"Error: {exc}", err=True)
        echo("Nothing was written; payloads already downloaded are cached, so running again resumes.", err=True)
        sys.exit(exc.exit_code)
    if result.exit_code:
        sys.exit(result.exit_code)


__all__: Iterable[str] = (
    "sync",
    "sync_command",
    "download",
    "map_catalogue",
    "build_database",
    "Client",
    "Cache",
    "CardSchema",
    "SetSchema",
    "SetBriefSchema",
    "SyncError",
    "FetchError",
)
