"""``deckcheck db sync`` against a real HTTP server on 127.0.0.1 serving recorded TCGdex answers.

The recorded answers (tests/fixtures/tcgdex/, written by tests/fixtures/make_tcgdex.py)
are served by a ThreadingHTTPServer in a thread; each test programs faults per path
(HTTP 500, a read that outlasts the timeout, 429 with Retry-After, a body cut short, a
record without a required field, a set list that shrank). After each sync the database
on disk is either the new complete one or the old one, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from click.testing import CliRunner

from deckcheck import cards as _cards
from deckcheck.cards import files as dbfile
from deckcheck.cli import dbsync as command
from deckcheck.sync import install, mapping, payloads, pokemontcg, tcgdex

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tcgdex"
TCGDEX = "/v2/en"
FIXTURE_CARDS = 40  # 12 SVI + 8 SVE + 7 CRI + 3 MEP + 10 BCR; the Pocket set is ignored
ON = dt.date(2026, 6, 1)  # Standard: marks H, I, J (and basic Energy) since 2026-04-10


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------


class FakeAPI:
    """Recorded answers by path, with per-path overrides and a queue of faults per path."""

    def __init__(self, root: Path):
        self.root = root
        self.overrides: dict[str, object] = {}
        self.faults: dict[str, list[tuple]] = defaultdict(list)
        self.hits: Counter = Counter()
        self.hosts: list[tuple[str, str]] = []  # (Host header, path) of every request
        self.lock = threading.Lock()
        self.base = ""

    def fault(self, path: str, *faults: tuple) -> None:
        """Queue faults for the next requests of ``path`` (``("status", 500)``,
        ``("status", 429, {"Retry-After": "1"})``, ``("sleep", 1.0)``, ``("truncate",)``, ``("cut",)``;
        hostile ones: ``("endless",)`` a body that never ends, ``("encoded", blob)`` ``blob`` sent as
        the gzip Content-Encoding of the answer, ``("trickle", seconds)`` the body one byte per
        ``seconds``, ``("trickle-head", seconds)`` the head likewise, ``("redirect", url)`` a 302)."""
        self.faults[path].extend(faults)

    def payload(self, path: str):
        if path in self.overrides:
            return self.overrides[path]
        segments = path.strip("/").split("/")
        if ".." in segments or path.endswith(".json"):
            return None
        file = self.root.joinpath(*segments[:-1], segments[-1] + ".json")  # set ids may hold a dot: sv03.5
        if not file.is_file():
            return None
        return json.loads(file.read_text(encoding="utf-8"))

    def card(self, card_id: str) -> dict:
        return self.payload(f"{TCGDEX}/cards/{card_id}")

    def set_card(self, card_id: str, payload) -> None:
        self.overrides[f"{TCGDEX}/cards/{card_id}"] = payload

    def route(self, path: str, query: dict) -> str:
        return path


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stalls

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict | None = None, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        api: FakeAPI = self.server.api
        parts = urlsplit(self.path)
        path = api.route(unquote(parts.path), parse_qs(parts.query))
        with api.lock:
            api.hits[path] += 1
            api.hosts.append((self.headers.get("Host", ""), path))
            fault = api.faults[path].pop(0) if api.faults[path] else None
        kind = fault[0] if fault else None
        if kind == "status":
            self._send(
                fault[1], json.dumps({"error": f"status {fault[1]}"}).encode(), fault[2] if len(fault) > 2 else None
            )
            return
        if kind == "sleep":
            time.sleep(fault[1])
        if kind in ("endless", "encoded", "trickle", "trickle-head", "redirect"):
            self._hostile(fault, api.payload(path))
            return
        payload = api.payload(path)
        if payload is None:
            self._send(404, b'{"error":"not found"}')
            return
        body = payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False).encode()
        if kind == "truncate":  # a well-formed HTTP answer whose JSON stops half-way
            self._send(200, body[: len(body) // 2])
        elif kind == "cut":  # the connection drops before Content-Length bytes came
            self._send(200, body[: len(body) // 2], length=len(body))
            self.close_connection = True
        else:
            self._send(200, body)

    def _hostile(self, fault: tuple, payload) -> None:
        kind = fault[0]
        if kind == "redirect":
            self._send(302, b"", {"Location": fault[1]})
            return
        if kind == "endless":  # no length, no end: blocks of zeros until the client leaves
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            while True:
                self.wfile.write(b"0" * 65536)
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if kind == "encoded":
            self._send(200, fault[1], {"Content-Encoding": "gzip"})
        elif kind == "trickle":
            self._send(200, b"", length=len(body))
            for i in range(len(body)):
                time.sleep(fault[1])
                self.wfile.write(body[i : i + 1])
        else:  # trickle-head
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body):
                time.sleep(fault[1])
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # an answer that never ends, or a kept connection, does not block the teardown

    def handle_error(self, request, client_address):  # a client that timed out and left is expected
        pass


@pytest.fixture()
def api():
    server = _Server(("127.0.0.1", 0), _Handler)
    server.api = FakeAPI(FIXTURES)
    server.api.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.api
    server.shutdown()
    server.server_close()


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def run_sync(api: FakeAPI, out: Path, cache: Path, **kw):
    opts = dict(
        dry_run=False,
        force=False,
        cache_dir=cache,
        workers=3,
        timeout=2.0,
        connect_timeout=2.0,
        retries=3,
        backoff=0.0,
        progress=False,
        today=ON,
    )
    opts.update(kw)
    return install.sync(api.base + TCGDEX, out, **opts)


@pytest.fixture()
def paths(tmp_path):
    return tmp_path / "db" / "cards.json.gz", tmp_path / "cache"


@pytest.fixture()
def old_db(api, paths):
    """A current database made by a first sync, with Pineco's mark recorded as H and Nest Ball
    missing (a catalogue from before a correction); returns its bytes."""
    out, _cache = paths
    api.set_card("sv01-001", {**api.card("sv01-001"), "regulationMark": "H"})
    sv01 = api.payload(f"{TCGDEX}/sets/sv01")
    api.overrides[f"{TCGDEX}/sets/sv01"] = {**sv01, "cards": [c for c in sv01["cards"] if c["id"] != "sv01-181"]}
    result = run_sync(api, out, out.parent / "first-cache")
    assert result.status == "written", result.lines
    api.overrides.clear()
    api.hits.clear()
    return out.read_bytes()


def rows(path: Path) -> dict[str, dict]:
    raw = json.loads(gzip.decompress(path.read_bytes()))
    return {r[0]: dict(zip(raw["fields"], r, strict=True)) for r in raw["cards"]}


def card_hits(api: FakeAPI) -> int:
    return sum(n for p, n in api.hits.items() if p.startswith(f"{TCGDEX}/cards/"))


# ---------------------------------------------------------------------------
# A normal sync
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_normal_sync_maps_fixes_and_codes(api, paths):
    out, cache = paths
    result = run_sync(api, out, cache)
    assert result.status == "written" and result.exit_code == 0
    # the database and its pack (deckcheck/cards/pack.py), made from it, nothing else
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name, out.name + ".pack"]
    db = _cards.load(out)
    assert db.version == result.version
    assert len(db.cards) == FIXTURE_CARDS
    assert {s.id: s.code for s in db.sets.values()} == {
        "bw7": "BCR",
        "sv01": "SVI",
        "sve": "SVE",
        "mep": "MEP",
        "me04": "CRI",
    }
    assert api.hits[f"{TCGDEX}/sets/A1"] == 1 and "A1-001" not in db.cards  # Pocket: read, then left out
    assert db.get("mep-030").mark == "J"  # served as lower-case "j"
    assert db.get("me04-084").subtypes == ("Special",)  # energyType "Normal" on a Special Energy
    assert db.get("sve-003").is_basic_energy
    assert db.get("bw7-137").is_ace_spec and db.get("bw7-138").is_ace_spec  # unflagged BW ACE SPECs
    assert db.get("bw7-107").name == "Farfetch'd"  # typographic apostrophe
    assert db.get("me04-003").subtypes == ("Stage 2", "ex")  # TCGdex says suffix "EX"
    assert db.get("sv01-001").number == "1" and db.get("bw7-49").name == "Keldeo-EX"
    assert db.find("SVI", "181").name == "Nest Ball"
    # card images: each set's path under the image host, from its cards' image URLs
    assert {s.id: s.image for s in db.sets.values()} == {
        "bw7": "en/bw/bw7",
        "sv01": "en/sv/sv01",
        "sve": "en/sv/sve",
        "mep": "en/me/mep",
        "me04": "en/me/me04",
    }
    assert db.meta["sources"]["tcgdex"] == api.base + TCGDEX
    assert any("Cards: 40 in 5 sets" in line for line in result.lines)


@pytest.mark.slow
def test_second_sync_is_served_from_the_cache_and_changes_nothing(api, paths):
    out, cache = paths
    run_sync(api, out, cache)
    before, first_hits = out.read_bytes(), card_hits(api)
    assert first_hits == FIXTURE_CARDS
    result = run_sync(api, out, cache)
    assert result.status == "unchanged"
    assert card_hits(api) == first_hits  # every card came from the cache; the set list was fetched again
    assert api.hits[f"{TCGDEX}/sets"] == 2
    assert out.read_bytes() == before
    result = run_sync(api, out, cache, refresh=True)
    assert card_hits(api) == 2 * FIXTURE_CARDS and result.status == "unchanged"


@pytest.mark.slow
def test_same_rows_as_db_build_for_the_same_records(api, paths):
    """Synced with the shipped database as its base, every fixture card gets exactly the row
    that ``db build`` made from the merged catalogue (fingerprints included)."""
    shipped = _cards.load(dbfile.data_dir() / _cards.DEFAULT_DB_FILE)
    client = tcgdex.TcgdexClient(api.base + TCGDEX, retries=0, backoff=0)
    catalogue = tcgdex.download(client, tcgdex.Cache(None, 0), progress=False)
    db, _carried = mapping.build_database(catalogue, shipped, "test")
    fields = db["fields"]
    for row in db["cards"]:
        if not row[0].startswith(mapping.PTCGIO_ONLY_PREFIX):
            card = shipped.get(row[0])
            expected = [
                card.id,
                card.name,
                card.supertype,
                list(card.subtypes),
                card.evolves_from,
                list(card.types),
                card.mark,
                card.set_id,
                card.number,
                card.rarity,
                card.fingerprint,
            ]
            assert dict(zip(fields, row, strict=True)) == dict(zip(fields, expected, strict=True))
    # without a base, only what TCGdex cannot tell differs: pokemon-tcg-data's "Tera" here
    bare, _ = mapping.build_database(catalogue, None, "test")
    fp_at = fields.index("fingerprint")
    assert all(row[fp_at] == shipped.get(row[0]).fingerprint for row in bare["cards"])
    diffs = {row[0] for row in bare["cards"] if list(shipped.get(row[0]).subtypes) != row[3]}
    assert diffs == {"sv01-032"}


# ---------------------------------------------------------------------------
# Retries, timeouts and broken answers
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_500_then_success(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/cards/sv01-001", ("status", 500), ("status", 503))
    result = run_sync(api, out, cache)
    assert result.status == "written"
    assert api.hits[f"{TCGDEX}/cards/sv01-001"] == 3
    assert out.read_bytes() != old_db
    new = rows(out)
    assert new["sv01-001"]["mark"] == "G" and "sv01-181" in new
    text = "\n".join(result.lines)
    assert "sv01-001 Pineco: H -> G" in text
    assert "Standard legality changed on 2026-06-01 (1):\n  sv01-001 Pineco: legal -> not legal" in text
    assert "Cards added (1): sv01-181" in text


@pytest.mark.slow
def test_a_read_timeout_is_retried(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/cards/sve-003", ("sleep", 1.5))
    started = time.monotonic()
    result = run_sync(api, out, cache, timeout=0.4)
    assert result.status == "written"
    assert api.hits[f"{TCGDEX}/cards/sve-003"] == 2
    assert time.monotonic() - started < 10


@pytest.mark.slow
def test_timeouts_that_do_not_stop_leave_the_old_file_and_the_rerun_resumes(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/cards/me04-084", *[("sleep", 0.8)] * 2)
    with pytest.raises(tcgdex.FetchError) as err:
        run_sync(api, out, cache, timeout=0.3, retries=1, workers=1)
    assert err.value.exit_code == 4 and "me04-084" in str(err.value) and "timed out" in str(err.value)
    assert out.read_bytes() == old_db
    fetched_before = {p for p in api.hits if p.startswith(f"{TCGDEX}/cards/")} - {f"{TCGDEX}/cards/me04-084"}
    api.hits.clear()
    result = run_sync(api, out, cache)  # the cache holds what the first run validated
    assert result.status == "written"
    refetched = {p for p in api.hits if p.startswith(f"{TCGDEX}/cards/")}
    assert fetched_before and not (refetched & fetched_before)
    assert card_hits(api) == FIXTURE_CARDS - len(fetched_before)


@pytest.mark.slow
def test_429_with_retry_after_is_honoured(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets/me04", ("status", 429, {"Retry-After": "1"}))
    started = time.monotonic()
    result = run_sync(api, out, cache)
    assert result.status == "written"
    assert api.hits[f"{TCGDEX}/sets/me04"] == 2
    assert time.monotonic() - started >= 1.0


@pytest.mark.slow
def test_retries_run_out(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets", *[("status", 502)] * 3)
    with pytest.raises(tcgdex.FetchError, match="HTTP 502"):
        run_sync(api, out, cache, retries=2)
    assert api.hits[f"{TCGDEX}/sets"] == 3
    assert out.read_bytes() == old_db


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["truncate", "cut"])
def test_a_body_cut_short_once_is_fetched_again(api, paths, old_db, kind):
    out, cache = paths
    api.fault(f"{TCGDEX}/cards/bw7-133", (kind,))
    result = run_sync(api, out, cache)
    assert result.status == "written"
    assert api.hits[f"{TCGDEX}/cards/bw7-133"] == 2


@pytest.mark.slow
def test_truncated_json_every_time_leaves_the_old_file(api, paths, old_db):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets/bw7", *[("truncate",)] * 3)
    with pytest.raises(tcgdex.FetchError, match="not complete JSON"):
        run_sync(api, out, cache)
    assert out.read_bytes() == old_db
    assert not list(out.parent.glob("*.tmp")) and not list(out.parent.glob("*.tmp.pack"))


# ---------------------------------------------------------------------------
# Bad records, shrinking catalogues, safety checks
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_record_missing_required_fields_is_reported_and_skipped(api, paths, old_db):
    out, cache = paths
    spewpa = {k: v for k, v in api.card("sv01-009").items() if k != "name"}
    api.set_card("sv01-009", spewpa)  # in the current database: its row stays
    api.set_card("sv01-181", {k: v for k, v in api.card("sv01-181").items() if k != "category"})  # new card
    result = run_sync(api, out, cache)
    assert result.status == "written"
    reasons = {p.where: p.reason for p in result.problems}
    assert reasons == {
        "card sv01-009": "name: Missing data for required field.",
        "card sv01-181": "category: Missing data for required field.",
    }
    new = rows(out)
    assert new["sv01-009"] == rows_of(old_db)["sv01-009"]
    assert "sv01-181" not in new and new["sv01-001"]["mark"] == "G"
    text = "\n".join(result.lines)
    assert "Skipped 2 invalid record(s)" in text and "Kept the current row of 1 card(s)" in text
    # an invalid payload is not cached: the next run asks again
    api.overrides.clear()
    api.hits.clear()
    run_sync(api, out, cache)
    assert api.hits[f"{TCGDEX}/cards/sv01-009"] == 1 and api.hits[f"{TCGDEX}/cards/sv01-001"] == 0


def rows_of(blob: bytes) -> dict[str, dict]:
    raw = json.loads(gzip.decompress(blob))
    return {r[0]: dict(zip(raw["fields"], r, strict=True)) for r in raw["cards"]}


@pytest.mark.slow
def test_bad_set_payloads_are_reported(api, paths):
    out, cache = paths
    listing = api.payload(f"{TCGDEX}/sets")
    api.overrides[f"{TCGDEX}/sets"] = listing + [{"id": "../etc", "name": "x"}, {"name": "no id"}]
    api.overrides[f"{TCGDEX}/sets/mep"] = {**api.payload(f"{TCGDEX}/sets/mep"), "releaseDate": "26/09/2025"}
    result = run_sync(api, out, cache)
    assert result.status == "written"
    where = sorted(p.where for p in result.problems)
    assert where == ["set #8 (set list)", "set ../etc (set list)", "set mep"]
    assert "mep" not in _cards.load(out).sets


@pytest.mark.slow
def test_a_catalogue_that_shrank_is_refused_unless_forced(api, paths, old_db):
    out, cache = paths
    listing = api.payload(f"{TCGDEX}/sets")
    api.overrides[f"{TCGDEX}/sets"] = [s for s in listing if s["id"] not in ("bw7", "me04")]
    result = run_sync(api, out, cache)
    assert result.status == "refused" and result.exit_code == 1
    text = "\n".join(result.lines)
    assert "loses 2 set(s): bw7, me04" in text and "fewer than the current 39" in text
    assert out.read_bytes() == old_db
    assert not list(out.parent.glob("*.tmp")) and not list(out.parent.glob("*.tmp.pack"))
    result = run_sync(api, out, cache, force=True)
    assert result.status == "written"
    assert len(_cards.load(out).cards) == FIXTURE_CARDS - 17
    assert any(line.startswith("Warning (--force)") for line in result.lines)


@pytest.mark.slow
def test_a_small_shrink_is_allowed_but_a_database_that_fails_its_checks_never_is(api, paths, old_db):
    out, cache = paths
    sv01 = api.payload(f"{TCGDEX}/sets/sv01")
    api.overrides[f"{TCGDEX}/sets/sv01"] = {**sv01, "cards": [c for c in sv01["cards"] if c["id"] != "sv01-196"]}
    result = run_sync(api, out, cache)  # 1 of 38 cards gone (2.6 %), 1 added
    assert result.status == "written" and "Cards removed (1): sv01-196" in "\n".join(result.lines)
    current = out.read_bytes()
    # Computer Search is in data/ace-spec.csv: a BCR without it fails the build's own check
    bw7 = api.payload(f"{TCGDEX}/sets/bw7")
    api.overrides[f"{TCGDEX}/sets/bw7"] = {**bw7, "cards": [c for c in bw7["cards"] if c["id"] != "bw7-137"]}
    result = run_sync(api, out, cache, force=True)
    assert result.status == "refused"
    assert "fails its own checks: ace-spec.csv rows match no card" in "\n".join(result.lines)
    assert out.read_bytes() == current


@pytest.mark.slow
def test_dry_run_writes_nothing(api, paths, old_db):
    out, cache = paths
    result = run_sync(api, out, cache, dry_run=True)
    assert result.status == "dry-run" and result.exit_code == 0
    assert out.read_bytes() == old_db
    assert result.version and result.version != _cards.load(out).version
    assert not list(out.parent.glob("*.tmp")) and not list(out.parent.glob("*.tmp.pack"))


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def _cli(args):
    return CliRunner().invoke(command.sync_command, args, catch_exceptions=False)


@pytest.mark.slow
def test_command_exit_codes(api, paths, old_db):
    out, cache = paths
    common = [
        "--api-url",
        api.base + TCGDEX,
        "--output",
        str(out),
        "--cache-dir",
        str(cache),
        "--backoff",
        "0",
        "--retries",
        "1",
    ]
    result = _cli(common + ["--dry-run"])
    assert result.exit_code == 0, result.output
    assert "Dry run:" in result.output and "Regulation marks changed (1):" in result.output
    api.fault(f"{TCGDEX}/sets", ("status", 500), ("status", 500))
    result = _cli(common)
    assert result.exit_code == 4 and "HTTP 500" in result.output and "running again resumes" in result.output
    api.overrides[f"{TCGDEX}/sets"] = [s for s in api.payload(f"{TCGDEX}/sets") if s["id"] != "mep"]
    result = _cli(common)
    assert result.exit_code == 1 and "Refused to replace" in result.output and "loses 1 set(s): mep" in result.output
    assert out.read_bytes() == old_db
    del api.overrides[f"{TCGDEX}/sets"]
    result = _cli(common)
    assert result.exit_code == 0 and "Wrote " in result.output


def test_registered_under_db():
    from deckcheck.cli import cli

    result = CliRunner().invoke(cli, ["db", "sync", "--help"])
    assert result.exit_code == 0 and "--api-url" in result.output and "--force" in result.output


# ---------------------------------------------------------------------------
# Schemas and mapping details
# ---------------------------------------------------------------------------


def test_card_schema():
    base = {
        "id": "sv01-001",
        "localId": 1,
        "name": "Pineco",
        "category": "Pokemon",
        "set": {"id": "sv01"},
        "attacks": [{"name": "Ram", "cost": ["Grass"], "damage": 10}],
        "weaknesses": [{"type": "Fire", "value": "×2"}],
        "brandNewField": {"x": 1},
    }
    card = payloads.TcgdexCardSchema().load(base)
    assert card["localId"] == "1" and card["attacks"][0]["damage"] == "10" and "brandNewField" not in card
    for bad, reason in [
        ({"category": "Item"}, "category: Must be one of"),
        ({"hp": "lots"}, "hp: Not a valid integer"),
        ({"localId": None}, "localId: Field may not be null"),
        ({"set": None}, "set: Field may not be null"),
    ]:
        with pytest.raises(payloads.ValidationError) as err:
            payloads.TcgdexCardSchema().load({**base, **bad})
        assert payloads.reason(err.value).startswith(reason)


def test_set_image_paths_come_from_the_cards_image_urls():
    def card(set_id, local, image):
        return {"set": {"id": set_id}, "localId": local, "image": image}

    assert mapping.set_image_paths(
        [
            card("sv01", "001", None),  # no image: the next card of the set decides
            card("sv01", "002", "https://assets.tcgdex.net/en/sv/sv01/002"),
            card("sv02", "TG01", "https://mirror.test/img/en/sv/sv02/TG01/"),
            card("sv03", "005", "https://assets.tcgdex.net/en/sv/other/005"),  # not this set's: left out
            card("sv04", "7", "https://assets.tcgdex.net/sv04/7"),  # nothing before the set id
        ]
    ) == {"sv01": "en/sv/sv01", "sv02": "img/en/sv/sv02"}


def test_names_marks_and_numbers():
    assert mapping.official_name({"name": "Shaymin EX", "category": "Pokemon"}) == "Shaymin-EX"
    assert mapping.official_name({"name": "Metagross GX", "category": "Pokemon"}) == "Metagross-GX"
    assert mapping.official_name({"name": "Boss’s Orders", "category": "Trainer"}) == "Boss's Orders"
    assert mapping.official_name({"name": "Koraidon ex", "category": "Pokemon"}) == "Koraidon ex"
    assert [mapping.normalise_mark(v) for v in ("j", " H ", "None", None, "")] == ["J", "H", None, None, None]
    assert [mapping.collector_number(v) for v in ("001", "0", "TG01", "SWSH050")] == ["1", "0", "TG01", "SWSH050"]
    derive = mapping.derive_subtypes
    assert derive({"name": "Gardevoir ◇", "category": "Pokemon", "stage": "Stage2"}, "sm", {}) == [
        "Stage 2",
        "Prism Star",
    ]
    assert derive(
        {"name": "Prime Catcher", "category": "Trainer", "trainerType": "Item", "rarity": "ACE SPEC Rare"}, "sv", {}
    ) == ["Item", "ACE SPEC"]
    assert derive({"name": "Mewtwo EX", "category": "Pokemon"}, "bw", {}) == ["Basic", "EX"]
    assert derive({"name": "Radiant Greninja", "category": "Pokemon", "stage": "Basic"}, "swsh", {}) == [
        "Basic",
        "Radiant",
    ]


def test_cache_paths_stay_inside_the_cache(tmp_path):
    cache = tcgdex.Cache(tmp_path, 3600)
    path = cache.path("http://127.0.0.1:8080/v2/en/cards/exu-%3F")
    assert path.is_relative_to(tmp_path) and path.name == "exu-%253F.json"
    assert cache.path("http://h/v2/../../etc/passwd").is_relative_to(tmp_path)
    cache.put("http://h/v2/en/cards/a-1", {"id": "a-1"})
    assert cache.get("http://h/v2/en/cards/a-1") == {"id": "a-1"}
    assert tcgdex.Cache(tmp_path, -1).get("http://h/v2/en/cards/a-1") is None  # too old: a miss


# ---------------------------------------------------------------------------
# --source pokemontcg: cross-check only
# ---------------------------------------------------------------------------


class PtcgioAPI(FakeAPI):
    def route(self, path, query):
        if path == "/v2/cards":
            set_id = (query.get("q") or [""])[0].removeprefix("set.id:")
            return f"/v2/cards/{set_id}"
        return path


@pytest.mark.slow
def test_pokemontcg_cross_check_reports_divergences_and_writes_nothing(api, paths, old_db):
    out, _cache = paths
    ptcg = PtcgioAPI(FIXTURES / "pokemontcg")
    server = _Server(("127.0.0.1", 0), _Handler)
    server.api = ptcg
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        db = _cards.load(out)
        lines = []
        found = pokemontcg.crosscheck_pokemontcg(
            f"http://127.0.0.1:{server.server_address[1]}/v2",
            db,
            backoff=0,
            today=dt.date(2026, 11, 29),
            echo=lines.append,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert lines[0].startswith("Compared 29 cards in 3 sets")  # sv1, sve, bw7 (pokemontcg.io lacks me4, mep)
    # pokemon-tcg-data still calls the G-mark SVI cards Standard-legal (PROVENANCE.md: stale)
    assert any(
        d.startswith("sv01-009 Spewpa: Standard not legal here on 2026-11-29, legal at pokemontcg.io") for d in found
    )
    assert any("sv01-001 Pineco: regulation mark H here, G at pokemontcg.io" in d for d in found)
    assert out.read_bytes() == old_db


@pytest.mark.slow
def test_pokemontcg_command_exit_codes(api, paths, old_db, tmp_path):
    """Only the command turns the cross-check's failures into exit codes: 3 for a database that cannot be
    read (as everywhere in the CLI), 1 for an answer without pokemontcg.io's ``data`` array."""
    out, _cache = paths
    missing = tmp_path / "none.json.gz"
    result = _cli(["--source", "pokemontcg", "--api-url", api.base + TCGDEX, "--output", str(missing)])
    assert result.exit_code == 3 and result.output.startswith("Error: ") and str(missing) in result.output
    result = _cli(["--source", "pokemontcg", "--api-url", api.base + TCGDEX, "--output", str(out), "--backoff", "0"])
    assert result.exit_code == 1
    assert result.output == f"Error: the set list at {api.base + TCGDEX}/sets has no 'data' array\n"


# ---------------------------------------------------------------------------
# Sets announced but not filled yet (issue 19)
# ---------------------------------------------------------------------------

NEW_SET = "me06"


def announce(api: FakeAPI, cards: list[dict]) -> None:
    """List a new set, Abyss Eye (AEY, 2026-09-25), with these card payloads."""
    briefs = [{"id": c["id"], "localId": c["localId"], "name": c["name"]} for c in cards]
    api.overrides[f"{TCGDEX}/sets"] = api.payload(f"{TCGDEX}/sets") + [
        {"id": NEW_SET, "name": "Abyss Eye", "cardCount": {"total": len(cards), "official": 0}}
    ]
    api.overrides[f"{TCGDEX}/sets/{NEW_SET}"] = {
        "id": NEW_SET,
        "name": "Abyss Eye",
        "releaseDate": "2026-09-25",
        "serie": {"id": "me", "name": "Mega Evolution"},
        "abbreviation": {"official": "AEY"},
        "cardCount": {"total": len(cards), "official": 0},
        "cards": briefs,
    }
    for c in cards:
        api.set_card(c["id"], c)


def new_card(api: FakeAPI, number: int, *, filled: bool) -> dict:
    """A card of the new set: a real Pokémon record, or the placeholder TCGdex holds before it is transcribed."""
    base = api.card("me04-001")
    card = {
        **base,
        "id": f"{NEW_SET}-{number:03d}",
        "localId": f"{number:03d}",
        "name": f"Abyssmon {number}",
        "set": {"id": NEW_SET, "name": "Abyss Eye"},
    }
    if not filled:
        card = {k: v for k, v in card.items() if k not in ("hp", "attacks", "weaknesses", "retreat", "types")}
    return card


@pytest.mark.slow
def test_a_set_listed_with_no_cards_is_skipped_with_a_note_and_every_other_set_kept(api, paths, old_db):
    out, cache = paths
    before = _cards.load(out)
    announce(api, [])
    result = run_sync(api, out, cache)
    assert result.status == "written", result.lines  # not refused: nothing lost, nothing shrunk
    assert (
        "Skipped 1 set(s) the API lists without usable cards yet (announced, not filled; looked at again next "
        "sync): me06 Abyss Eye (listed with no cards)"
    ) in result.lines
    db = _cards.load(out)
    assert set(db.sets) == set(before.sets) and NEW_SET not in db.sets
    assert set(before.cards) <= set(db.cards) and len(db.cards) == FIXTURE_CARDS
    assert not db.knows_set("AEY")  # so a list naming it says the set is unknown
    assert db.info()["newest_set"]["id"] == "me04"


@pytest.mark.slow
def test_a_set_that_empties_upstream_keeps_its_current_cards(api, paths, old_db):
    out, cache = paths
    mep = api.payload(f"{TCGDEX}/sets/mep")
    api.overrides[f"{TCGDEX}/sets/mep"] = {**mep, "cards": []}
    result = run_sync(api, out, cache)
    assert result.status == "written", result.lines
    text = "\n".join(result.lines)
    assert "mep MEP Black Star Promos (listed with no cards)" in text and "loses" not in text
    db = _cards.load(out)
    assert {"mep-028", "mep-030", "mep-031"} <= set(db.cards) and db.sets["mep"].code == "MEP"


@pytest.mark.slow
def test_a_new_sets_cards_are_picked_up_over_several_syncs(api, paths, old_db):
    out, cache = paths
    announce(api, [new_card(api, 1, filled=True), new_card(api, 2, filled=False), new_card(api, 3, filled=False)])
    result = run_sync(api, out, cache)
    assert result.status == "written", result.lines
    assert (
        "Skipped 2 placeholder card(s) without game data yet (fetched again next sync): me06-002, me06-003"
        in result.lines
    )
    db = _cards.load(out)
    assert sorted(c.id for c in db.cards.values() if c.set_id == NEW_SET) == ["me06-001"]
    assert db.find("AEY", "1").name == "Abyssmon 1"
    assert db.info()["newest_set"] == {"id": NEW_SET, "name": "Abyss Eye", "code": "AEY", "release": "2026-09-25"}
    assert db.meta["newest_set"] == db.info()["newest_set"] and db.meta["built_at"] == db.info()["built_at"]
    # the next sync (the same cache) asks for the placeholders again and takes what has been filled
    api.set_card("me06-002", new_card(api, 2, filled=True))
    api.hits.clear()
    result = run_sync(api, out, cache)
    assert result.status == "written" and "Cards added (1): me06-002" in result.lines
    assert api.hits[f"{TCGDEX}/cards/me06-002"] == 1 and api.hits[f"{TCGDEX}/cards/me06-001"] == 0
    api.set_card("me06-003", new_card(api, 3, filled=True))
    result = run_sync(api, out, cache)
    assert result.status == "written" and "Cards added (1): me06-003" in result.lines
    assert not any("placeholder" in line for line in result.lines)
    assert len(_cards.load(out).cards) == FIXTURE_CARDS + 3


@pytest.mark.slow
def test_a_set_of_placeholders_only_is_skipped(api, paths, old_db):
    out, cache = paths
    announce(api, [new_card(api, 1, filled=False), {**new_card(api, 2, filled=True), "name": "???"}])
    result = run_sync(api, out, cache)
    assert result.status == "written", result.lines
    assert any("me06 Abyss Eye (no card with game data yet)" in line for line in result.lines)
    assert NEW_SET not in _cards.load(out).sets


def test_is_placeholder():
    pokemon = {"name": "Weedle", "category": "Pokemon", "hp": 50}
    assert not tcgdex.is_placeholder(pokemon)
    assert tcgdex.is_placeholder({"name": "Weedle", "category": "Pokemon"})
    assert tcgdex.is_placeholder({**pokemon, "name": " TBA "})
    # text-less reprints exist
    assert not tcgdex.is_placeholder({"name": "Professor's Research", "category": "Trainer"})
    assert not tcgdex.is_placeholder({"name": "Fire Energy", "category": "Energy"})
