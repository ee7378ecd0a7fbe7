"""Every download is bounded (deckcheck/sync/fetch.py): ``deckcheck db pull`` and ``db sync`` against a
hostile server on 127.0.0.1 (test_sync's recorded-answer server, with its hostile faults).

Each case ends within its bounds with a one-line error, the current database unchanged and no
temporary file left: an endless or gzip-encoded ``.sha256``, a gzip bomb with a matching checksum, a
body or a head trickling one byte at a time, a file that is not a database (any JSON, any garbage), a
redirect to another host, and ``--every`` after a failed round; SIGTERM removes the temporary file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import signal
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import test_sync
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reload import NEST_BALL, ULTRA_BALL, write_db
from test_sync import TCGDEX, FakeAPI, run_sync

from deckcheck import cards as _cards
from deckcheck.cards import files as dbfile
from deckcheck.cli import dbsync as command
from deckcheck.sync import fetch, publish, tcgdex

DB = "/pub/cards.json.gz"
#: test_sync's fixtures: its recorded-answer server on 127.0.0.1 (with the hostile faults), a database and a cache path
api = test_sync.api
paths = test_sync.paths


def gzip_bomb(size: int) -> bytes:
    """gzip members of zeros that inflate to more than ``size`` bytes (about 1,000 times smaller)."""
    member = gzip.compress(b"\0" * (1 << 20), 9, mtime=0)
    return member * (size // (1 << 20) + 1)


@pytest.fixture()
def replica(tmp_path: Path) -> tuple[Path, bytes]:
    """The replica's current database (and its pack): (its path, its bytes)."""
    target = tmp_path / "replica" / "cards.json.gz"
    write_db(target, "2026-01-01T00:00:00Z")
    return target, target.read_bytes()


def publish_bytes(api: FakeAPI, blob: bytes, checksum: bytes | None = None) -> str:
    """Serve ``blob`` as the published database and its SHA-256 (or ``checksum``) as ``.sha256``; its URL."""
    api.overrides[DB] = blob
    api.overrides[DB + ".sha256"] = checksum or f"{hashlib.sha256(blob).hexdigest()}  cards.json.gz\n".encode()
    return api.base + DB


def a_new_database(tmp_path: Path) -> bytes:
    path = tmp_path / "new" / "cards.json.gz"
    write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
    return path.read_bytes()


def pull(*args: str):
    return CliRunner().invoke(command.pull_command, list(args), catch_exceptions=False)


def assert_untouched(target: Path, before: bytes) -> None:
    """The current database as it was, beside only its pack: no temporary file left."""
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["cards.json.gz", "cards.json.gz.pack"]


def error_line(result) -> str:
    """The command's error: one line, no traceback."""
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


# ---------------------------------------------------------------------------
# The checksum: endless, gzip-encoded
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_an_endless_checksum_is_read_no_further_than_its_cap(api, replica, tmp_path):
    target, before = replica
    url = publish_bytes(api, a_new_database(tmp_path))
    api.fault(DB + ".sha256", ("endless",))
    result = pull(url, "--to", str(target))
    assert result.exit_code == 1
    assert error_line(result) == f"Error: {url}.sha256: the answer is larger than 512 bytes"
    assert api.hits[DB] == 0
    assert_untouched(target, before)


@pytest.mark.slow
def test_a_gzip_encoded_checksum_is_capped_as_it_inflates(api, replica, tmp_path):
    target, before = replica
    url = publish_bytes(api, a_new_database(tmp_path))
    api.fault(DB + ".sha256", ("encoded", gzip.compress(b"0" * 200_000, 9)))  # 0.2 KB that inflate to 200 KB
    result = pull(url, "--to", str(target))
    assert result.exit_code == 1
    assert error_line(result) == (
        f"Error: {url}.sha256: the answer's gzip encoding is unusable: it decompresses to more than 512 bytes"
    )
    assert_untouched(target, before)
    # a small one is read as it inflates
    api.fault(DB + ".sha256", ("encoded", gzip.compress(api.overrides[DB + ".sha256"])))
    result = pull(url, "--to", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == api.overrides[DB]


@pytest.mark.slow
@pytest.mark.parametrize("encoded", [False, True])
@pytest.mark.parametrize("extra", [0, 1])
def test_a_checksum_of_exactly_its_cap_is_read_and_one_byte_more_is_not(api, encoded, extra):
    digest = hashlib.sha256(b"x").hexdigest()
    body = f"{digest}  {'n' * (fetch.CHECKSUM_MAX_BYTES - 67 + extra)}\n".encode()
    assert len(body) == fetch.CHECKSUM_MAX_BYTES + extra
    api.overrides[DB + ".sha256"] = body
    if encoded:
        api.fault(DB + ".sha256", ("encoded", gzip.compress(body)))
    with fetch.open_session([api.base]) as session:
        if not extra:
            assert publish.published_checksum(api.base + DB, session, 5.0, fetch.Deadline(60, "the pull")) == digest
            return
        with pytest.raises(fetch.DownloadError, match="more than 512 bytes" if encoded else "larger than 512 bytes"):
            publish.published_checksum(api.base + DB, session, 5.0, fetch.Deadline(60, "the pull"))


# ---------------------------------------------------------------------------
# The database: a gzip bomb with a matching checksum, an encoded bomb, not a database at all
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_gzip_bomb_with_a_matching_checksum_stops_at_the_json_cap(api, replica):
    target, before = replica
    url = publish_bytes(api, gzip_bomb(dbfile.MAX_JSON_BYTES))
    result = pull(url, "--to", str(target))
    assert result.exit_code == 3
    line = error_line(result)
    assert line == f"Error: card database at {url} is unreadable: it decompresses to more than 67,108,864 bytes"
    assert_untouched(target, before)


@pytest.mark.slow
def test_a_gzip_encoded_database_is_capped_as_it_inflates(api, replica, tmp_path):
    target, before = replica
    url = publish_bytes(api, a_new_database(tmp_path))
    api.fault(DB, ("encoded", gzip_bomb(dbfile.MAX_FILE_BYTES)))
    result = pull(url, "--to", str(target), "--sha256", hashlib.sha256(b"").hexdigest())
    assert result.exit_code == 1
    assert error_line(result) == (
        f"Error: {url}: the answer's gzip encoding is unusable: it decompresses to more than 67,108,864 bytes"
    )
    assert_untouched(target, before)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("blob", "why"),
    [
        (gzip.compress(b"[1,2,3]"), "is not a card database (JSON list, not an object)"),
        (b'"cards"', "is not a card database (JSON str, not an object)"),
        (gzip.compress(b'{"schema": 1, "fields": 7}'), "has an unknown layout (schema 1)"),
        (b"\x1f\x8bgarbage", "is unreadable: not gzip data"),
        (b"\x1f\x8b\x08\x00garbage", "is unreadable: the compressed data ends early"),
        (b"<html>not json</html>", "is unreadable: unexpected character"),
    ],
)
def test_a_file_that_is_not_a_database_is_one_line_and_the_old_one_stays(api, replica, blob, why):
    target, before = replica
    url = publish_bytes(api, blob)
    result = pull(url, "--to", str(target))
    assert result.exit_code == 3
    line = error_line(result)
    assert line.startswith("Error: ") and why in line and ".pull." not in line, line
    assert f" {url} " in line, line  # said of the URL, not of a temporary file
    assert_untouched(target, before)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
FIELDS = list(dbfile.FIELDS)
#: a database's keys, each with any JSON (and sometimes a right schema and fields), or anything at all
SHAPES = (
    JSON
    | st.fixed_dictionaries(
        {"schema": st.just(1), "fields": st.just(FIELDS)},
        optional={
            "sets": JSON,
            "cards": st.lists(st.lists(JSON, max_size=12), max_size=3),
            "index": JSON,
            "meta": JSON,
        },
    )
    | st.fixed_dictionaries(
        {
            "schema": st.just(1),
            "fields": st.just(FIELDS),
            "sets": st.lists(st.dictionaries(st.sampled_from(["id", "name", "code", "release"]), JSON), max_size=2),
            "cards": st.lists(st.lists(JSON, min_size=11, max_size=11), max_size=2),
            "meta": JSON,
        }
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=SHAPES, packed=st.booleans())
def test_any_json_is_a_database_or_a_database_error(tmp_path, raw, packed):
    """Any JSON shape, gzip or plain: :func:`deckcheck.cards.load` loads it or raises DatabaseError, never
    another exception (a ``db pull`` of it is a one-line error)."""
    path = tmp_path / "any.json.gz"
    text = json.dumps(raw).encode()
    path.write_bytes(gzip.compress(text) if packed else text)
    try:
        _cards.load(path)
    except _cards.DatabaseError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=64) | st.binary(max_size=64).map(lambda b: b"\x1f\x8b" + b))
def test_any_bytes_are_a_database_error(tmp_path, blob):
    path = tmp_path / "any.json.gz"
    path.write_bytes(blob)
    with pytest.raises(_cards.DatabaseError):
        _cards.load(path)


# ---------------------------------------------------------------------------
# The bounded gunzip (deckcheck/cards/files.py)
# ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    members=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
    cut=st.lists(st.integers(1, 5000), max_size=6),
    padding=st.sampled_from([b"", b"\0", b"\0" * 9]),
)
def test_inflate_reads_what_gzip_reads_in_any_pieces(members, cut, padding):
    blob = padding.join(gzip.compress(m, mtime=0) for m in members) + padding
    inflate = dbfile.Inflate(10**6)
    pieces, at = [], 0
    for size in [*cut, len(blob)]:
        pieces += inflate.feed(blob[at : at + size])
        at += size
    inflate.end()
    assert b"".join(pieces) == gzip.decompress(blob) == b"".join(members)
    assert all(len(p) <= dbfile.Inflate.PIECE for p in pieces)


@settings(max_examples=50, deadline=None)
@given(limit=st.integers(0, 3 * dbfile.Inflate.PIECE), extra=st.sampled_from([0, 1]))
def test_inflate_stops_one_byte_past_its_limit(limit, extra):
    blob = gzip.compress(b"a" * (limit + extra), 1, mtime=0)
    if extra:
        with pytest.raises(dbfile.InflateError, match=f"decompresses to more than {limit:,} bytes"):
            list(dbfile.Inflate(limit).feed(blob))
        with pytest.raises(dbfile.InflateError, match="more than"):
            dbfile.database_json(blob, limit)
    else:
        assert dbfile.database_json(blob, limit) == b"a" * limit


def test_inflate_refuses_broken_and_short_data():
    whole = gzip.compress(b"{}" * 100, mtime=0)
    with pytest.raises(dbfile.InflateError, match="ends early"):
        dbfile.database_json(whole[:-5])
    with pytest.raises(dbfile.InflateError, match="not gzip data"):
        dbfile.database_json(whole + b"trailing garbage")
    with pytest.raises(dbfile.InflateError, match="larger than 10 bytes"):
        dbfile.database_json(b"{" * 11, 10)


# ---------------------------------------------------------------------------
# Time: a body or a head trickling one byte at a time
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["trickle", "trickle-head"])
def test_a_trickle_ends_at_the_total_deadline(api, replica, tmp_path, kind):
    """1 byte every 3 s never trips the 5 s read timeout; the 2 s deadline ends the round."""
    target, before = replica
    url = publish_bytes(api, a_new_database(tmp_path))
    api.fault(DB, (kind, 3.0))
    started = time.monotonic()
    result = pull(url, "--to", str(target), "--timeout", "5", "--deadline", "2")
    assert result.exit_code == 1
    assert error_line(result) == f"Error: {url}: no complete answer within the pull's deadline of 2 s"
    assert time.monotonic() - started < 60  # 100 bytes would take 300 s; the deadline is 2 s
    assert_untouched(target, before)


# ---------------------------------------------------------------------------
# Hosts: a redirect stays on the host it was given
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_redirect_to_another_host_is_refused(api, replica, tmp_path):
    target, before = replica
    blob = a_new_database(tmp_path)
    url = publish_bytes(api, blob)
    elsewhere = url.replace("127.0.0.1", "localhost")
    api.fault(DB, ("redirect", elsewhere))
    result = pull(url, "--to", str(target))
    assert result.exit_code == 1
    assert error_line(result) == (
        f"Error: {url}: redirected to another host (localhost); refused: a download stays on 127.0.0.1"
    )
    assert [host for host, _path in api.hosts if host.startswith("localhost")] == []
    assert_untouched(target, before)
    # a host allowed by name is followed; so is a redirect on the same host
    api.fault(DB, ("redirect", elsewhere))
    result = pull(url, "--to", str(target), "--allow-host", "localhost")
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == blob
    other = tmp_path / "other" / "cards.json.gz"
    api.overrides["/pub/old.json.gz"] = b""
    api.fault("/pub/old.json.gz", ("redirect", "/pub/cards.json.gz"))
    result = pull(api.base + "/pub/old.json.gz", "--to", str(other), "--sha256", hashlib.sha256(blob).hexdigest())
    assert result.exit_code == 0 and result.output.startswith("Pulled"), result.output
    assert other.read_bytes() == blob


# ---------------------------------------------------------------------------
# --every: a failed round is retried with backoff; SIGTERM leaves no temporary file
# ---------------------------------------------------------------------------


def pull_process(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "deckcheck", "db", "pull", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition, what: str, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"no {what} in {seconds:g} s"
        time.sleep(0.05)


@pytest.mark.slow
def test_every_retries_a_failed_round_and_logs_one_line_each(api, replica):
    target, before = replica
    url = publish_bytes(api, gzip.compress(b"[1,2,3]"))
    proc = pull_process(url, "--to", str(target), "--every", "1")
    try:
        wait_for(lambda: api.hits[DB] >= 3 or proc.poll() is not None, "third round")
        assert proc.poll() is None, proc.communicate()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    lines = err.strip().splitlines()
    assert len(lines) >= 2 and "Traceback" not in err, err
    for n, line in enumerate(lines[:2], 1):
        assert line.startswith(f"Error: {url} is not a card database (JSON list, not an object)"), line
        assert f"(round {n} failed; next in " in line
    assert_untouched(target, before)


def test_every_backs_off_exponentially_with_jitter_up_to_a_cap():
    assert publish.round_wait(300, 0, 0.5) == 300  # a good round: the interval
    assert [publish.round_wait(300, n, 1.0) for n in (1, 2, 3, 4, 5, 6)] == [300, 600, 1200, 2400, 3600, 3600]
    assert publish.round_wait(300, 3, 0.5) == 600
    assert publish.round_wait(7200, 9, 1.0) == 7200  # an interval over the cap is the cap
    assert publish.round_wait(1, 10**6, 1.0) == publish.EVERY_BACKOFF_MAX


@pytest.mark.slow
def test_sigterm_during_a_download_leaves_no_temporary_file(api, replica, tmp_path):
    target, before = replica
    url = publish_bytes(api, a_new_database(tmp_path))
    api.fault(DB, ("trickle", 0.2))
    proc = pull_process(url, "--to", str(target))
    try:
        wait_for(lambda: any(p.name.startswith(".cards.json.gz.pull.") for p in target.parent.iterdir()), "temp file")
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert_untouched(target, before)


# ---------------------------------------------------------------------------
# db sync: the API's answers are bounded too
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (("endless",), "the answer is larger than 16,777,216 bytes"),
        (("encoded", gzip_bomb(fetch.API_MAX_BYTES)), "it decompresses to more than 16,777,216 bytes"),
        (("redirect", "http://localhost:1/v2/en/sets"), "redirected to another host (localhost); refused"),
        (
            ("status", 429, {"Retry-After": "3600"}),
            "HTTP 429 asking to retry after 3600 s, longer than the 120 s waited",
        ),
    ],
)
def test_a_sync_answer_is_bounded(api, paths, fault, reason):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets", fault)
    with pytest.raises(tcgdex.FetchError) as err:
        run_sync(api, out, cache)
    assert err.value.exit_code == 4
    assert str(err.value).startswith(f"GET {api.base}{TCGDEX}/sets failed: ") and reason in str(err.value)
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


@pytest.mark.slow
def test_a_sync_ends_at_its_run_deadline(api, paths):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets", ("trickle", 1.0))
    started = time.monotonic()
    with pytest.raises(tcgdex.FetchError, match="no complete answer within the sync's deadline of 1.5 s"):
        run_sync(api, out, cache, timeout=5.0, deadline=1.5)
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_sync_command_reports_the_deadline_in_one_line(api, paths):
    out, cache = paths
    api.fault(f"{TCGDEX}/sets", ("trickle-head", 1.0))
    args = ["--api-url", api.base + TCGDEX, "--output", str(out), "--cache-dir", str(cache), "--deadline", "1"]
    result = CliRunner().invoke(command.sync_command, args, catch_exceptions=False)
    assert result.exit_code == 4 and "Traceback" not in result.output
    assert f"Error: GET {api.base}{TCGDEX}/sets failed: no complete answer within the sync's deadline of 1 s" in (
        result.output
    )


def test_a_url_without_a_host_is_refused_before_any_download():
    result = CliRunner().invoke(command.pull_command, ["file:///etc/passwd"])
    assert result.exit_code == 2 and "not an http:// or https:// URL with a host" in result.output


@pytest.mark.slow
def test_a_sync_follows_a_redirect_to_an_allowed_host(api, paths):
    out, cache = paths
    elsewhere = api.base.replace("127.0.0.1", "localhost")
    api.fault(f"{TCGDEX}/sets", ("redirect", f"{elsewhere}{TCGDEX}/sets"))
    result = run_sync(api, out, cache, allow_hosts=("localhost",))
    assert result.status == "written"
    assert (elsewhere.removeprefix("http://"), f"{TCGDEX}/sets") in api.hosts


@pytest.mark.slow
def test_sigterm_ends_a_sync_at_once_and_leaves_no_temporary_file(api, paths):
    """The worker threads' downloads end with the process (a card trickling for hours does not hold it)."""
    out, cache = paths
    card = f"{TCGDEX}/cards/sv01-001"
    api.fault(card, ("trickle", 1.0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "deckcheck", "db", "sync", "--api-url", api.base + TCGDEX, "--output", str(out)]
        + ["--cache-dir", str(cache), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: api.hits[card] >= 1 or proc.poll() is not None, "trickling card")
        time.sleep(0.5)  # its first bytes are read
        assert proc.poll() is None, proc.communicate()
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)  # the trickle would take over an hour; its deadline 120 s
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert not out.exists()
    assert [p for p in out.parent.parent.rglob("*") if p.suffix == ".tmp" or ".sync." in p.name] == []


# ---------------------------------------------------------------------------
# https: the same bounds (the watchdog shuts TLS connections down too)
# ---------------------------------------------------------------------------


@pytest.fixture()
def tls_api(tmp_path):
    """test_sync's server behind TLS on 127.0.0.1 (a certificate made here): (the API, the certificate)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = test_sync._Server(("127.0.0.1", 0), test_sync._Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.api = FakeAPI(test_sync.FIXTURES)
    server.api.base = f"https://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.api, cert
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_over_https_a_trickle_ends_at_the_deadline_and_a_redirect_to_http_is_refused(tls_api, replica, tmp_path):
    api, cert = tls_api
    target, before = replica
    blob = a_new_database(tmp_path)
    url = publish_bytes(api, blob)
    env = {"REQUESTS_CA_BUNDLE": str(cert)}
    api.fault(DB, ("trickle", 3.0))
    result = CliRunner().invoke(
        command.pull_command, [url, "--to", str(target), "--timeout", "5", "--deadline", "2"], env=env
    )
    assert result.exit_code == 1
    assert error_line(result) == f"Error: {url}: no complete answer within the pull's deadline of 2 s"
    assert_untouched(target, before)
    api.fault(DB, ("redirect", url.replace("https://", "http://")))
    result = CliRunner().invoke(command.pull_command, [url, "--to", str(target)], env=env)
    assert result.exit_code == 1
    assert error_line(result) == f"Error: {url}: redirected from https to {url.replace('https://', 'http://')}; refused"
    assert_untouched(target, before)
    result = CliRunner().invoke(command.pull_command, [url, "--to", str(target)], env=env)
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == blob
