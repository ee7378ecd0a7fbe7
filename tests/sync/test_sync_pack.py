"""``db sync`` beside a damaged pack: the database is the JSON file, and a sync compares with it and
carries rows from it as it would without a pack (the pack only makes loading fast)."""

from __future__ import annotations

import pytest
from test_publish import served_folder  # noqa: F401  (fixture: a folder served on 127.0.0.1)
from test_sync import TCGDEX, api, old_db, paths, run_sync  # noqa: F401  (fixtures: the recorded TCGdex API)

from deckcheck import cards as _cards
from deckcheck.cards import pack as dbpack


@pytest.mark.slow
def test_a_damaged_pack_does_not_make_sync_forget_the_current_database(api, paths, old_db):  # noqa: F811
    out, cache = paths
    pack = dbpack.pack_path(out)
    pack.write_bytes(pack.read_bytes()[:100])  # cut short (a full disk, a copy stopped half way)
    with pytest.raises(_cards.DatabaseError, match="is truncated"):
        _cards.load(out)
    listing = api.payload(f"{TCGDEX}/sets")
    api.overrides[f"{TCGDEX}/sets"] = [s for s in listing if s["id"] not in ("bw7", "me04")]
    result = run_sync(api, out, cache)
    text = "\n".join(result.lines)
    # compared with the JSON file, as without a pack: a catalogue that shrank is refused
    assert result.status == "refused", text
    assert "loses 2 set(s): bw7, me04" in text and "unreadable" not in text
    assert f"Warning: the current database was read without its pack (card database pack at {pack} is truncated" in text
    assert out.read_bytes() == old_db


@pytest.mark.slow
def test_pull_of_a_current_database_writes_its_pack_again_when_the_pack_is_damaged_or_stale(served_folder, tmp_path):  # noqa: F811
    """An unchanged database is not fetched again, but a pack the load would refuse (damaged) or pass
    over (made from another file) is written again: the replica loads, and loads fast."""
    from test_dbpack import ROWS, tiny

    from deckcheck.sync import publish

    folder, base = served_folder
    source = tiny(tmp_path / "cards.json.gz")
    publish.publish(source, folder)
    target = tmp_path / "replica" / "cards.json.gz"
    url = f"{base}/cards.json.gz"
    assert publish.pull(url, target)[0]
    pack = dbpack.pack_path(target)
    made = pack.read_bytes()
    pack.write_bytes(made[:100])
    with pytest.raises(_cards.DatabaseError, match="is truncated"):
        _cards.load(target)
    assert publish.pull(url, target)[0] is False
    assert pack.read_bytes() == made
    other = tiny(tmp_path / "other" / "cards.json.gz", ROWS[:2])
    pack.write_bytes(dbpack.pack_path(other).read_bytes())  # the pack of another file: not used
    assert publish.pull(url, target)[0] is False
    assert pack.read_bytes() == made


@pytest.mark.slow
def test_pull_of_a_database_the_pack_cannot_hold_fails_as_a_database_error(served_folder, tmp_path):  # noqa: F811
    """A database that loads from its JSON but that a pack cannot hold (a card id with a NUL, which a
    text column joins on; written by other code than db build and db sync) is refused like a file that
    does not load (DatabaseError: exit status 3, and a pulling sidecar reports it and goes on), not
    with a BuildError traceback."""
    import gzip
    import json

    from test_dbpack import ROWS, SET

    from deckcheck.cards import files as dbfile
    from deckcheck.sync import publish

    folder, base = served_folder
    source = tmp_path / "cards.json.gz"
    db = {
        "schema": dbfile.SCHEMA_VERSION,
        "fields": list(dbfile.FIELDS),
        "sets": [SET],
        "cards": [["sv01-181\x00", *ROWS[0][1:]], *ROWS[1:]],
        "meta": {},
    }
    source.write_bytes(gzip.compress(json.dumps(db).encode()))
    assert sorted(_cards.load(source).cards)[0] == "sv01-181\x00"  # the JSON loads
    publish.publish(source, folder)
    target = tmp_path / "replica" / "cards.json.gz"
    with pytest.raises(_cards.DatabaseError, match="cannot write the pack of .*: a id value holds a NUL character"):
        publish.pull(f"{base}/cards.json.gz", target)
    assert not target.exists() and not dbpack.pack_path(target).exists()


@pytest.mark.slow
def test_a_catalogue_the_pack_cannot_hold_is_refused_with_the_reason(api, paths, old_db):  # noqa: F811
    """A collector number with a NUL (a by_number key of the pack's text column) is refused as a
    sync that fails its checks is (the current database kept), not a BuildError traceback."""
    out, cache = paths
    api.set_card("sv01-181", {**api.card("sv01-181"), "localId": "181\x00"})  # new: not in old_db
    result = run_sync(api, out, cache)
    assert result.status == "refused" and result.exit_code == 1, result.lines
    assert "  - the database cannot be written: a by_number.keys value holds a NUL character" in result.lines
    assert out.read_bytes() == old_db
    assert sorted(p.name for p in out.parent.glob("cards*")) == [out.name, out.name + ".pack"]  # no temporary file
