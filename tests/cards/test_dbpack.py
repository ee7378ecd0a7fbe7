"""The packed database beside the JSON one (deckcheck/cards/pack.py): made from the same rows, read
without parsing a record, used only for the file it was made from, and a damaged pack fails the
load with what is wrong."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import struct
from array import array

import orjson
import pytest

from deckcheck import cards
from deckcheck.cards import DatabaseError, columns, index
from deckcheck.cards import files as dbfile
from deckcheck.cards import pack as dbpack
from deckcheck.formats import default_formats
from deckcheck.sync import write
from deckcheck.sync.tables import BuildError
from deckcheck.sync.write import shipped_legality

P = dbpack._PREFIX_SIZE  # the magic bytes, the format, the header length and the digest
SET = {"id": "sv01", "name": "Scarlet & Violet", "series": "sv", "code": "SVI", "aliases": ["SVI"]}
SET = {**SET, "release": "2023-03-31", "official_count": 198}
ROWS = [
    ["sv01-181", "Nest Ball", "Trainer", ["Item"], None, [], "G", "sv01", "181", "Uncommon", "400d179c6d7da744"],
    ["sv01-196", "Ultra Ball", "Trainer", ["Item"], None, [], "G", "sv01", "196", "Uncommon", "5c7e7f1c1a4a9b0d"],
    ["sv01-258", "Nest Ball", "Trainer", ["Item"], None, [], "G", "sv01", "258", "Hyper Rare", "400d179c6d7da744"],
    ["sv01-257", "Basic Fire Energy", "Energy", ["Basic"], None, [], None, "sv01", "257", None, "name:aaaa"],
]


def tiny(path, rows=ROWS):
    db = {
        "schema": dbfile.SCHEMA_VERSION,
        "fields": list(dbfile.FIELDS),
        "sets": [SET],
        "cards": [list(r) for r in rows],
        "meta": {"built_at": "2026-01-01T00:00:00Z", "sources": {}, "cards": len(rows), "sets": 1},
    }
    write.write_database(db, path)
    return path


def _lookups(db):
    return (
        {k: [c.id for c in v] for k, v in db._by_name.items()},
        {k: [c.id for c in v] for k, v in db._by_number.items()},
        {k: c.id for k, c in db._basic_energy.items()},
        db._names,
        db._longest_name,
    )


def _from_json(path):
    blob = path.read_bytes()
    return cards.from_dict(json.loads(gzip.decompress(blob)), hashlib.sha256(blob).hexdigest()[:12], str(path))


def _no_json(monkeypatch):
    """Loading may not read the JSON's records: the pack answers."""

    def refuse(*args, **kwargs):
        raise AssertionError("the JSON was parsed")

    monkeypatch.setattr(cards, "from_dict", refuse)


@pytest.mark.slow
def test_the_shipped_pack_is_the_shipped_database_packed_by_this_code():
    """Fails when data/cards.json.gz was written again without its pack (``deckcheck db build``
    writes both) or the index code changed since (names.py, index.py)."""
    path = cards.default_path()
    blob = path.read_bytes()
    raw = json.loads(gzip.decompress(blob))
    releases = {s["id"]: s.get("release") or "" for s in raw["sets"]}
    raw["index"] = index.build_index(raw["cards"], releases, None, raw.get(dbfile.PRINTING_RELEASES))
    assert dbpack.pack_path(path).read_bytes() == cards.pack_of(raw, blob, shipped_legality)


@pytest.mark.slow
def test_loading_through_the_pack_answers_as_the_json_does(monkeypatch):
    path = cards.default_path()
    reference = _from_json(path)
    _no_json(monkeypatch)
    db = cards.load(path)
    assert db.cards._made.count(None) == len(db.cards._made) - len(db._basic_energy)  # cards made on first use
    assert (db.version, db.path, db.meta, db.sets) == (
        reference.version,
        reference.path,
        reference.meta,
        reference.sets,
    )
    assert list(db.cards) == list(reference.cards) and db.cards.values() == reference.cards.values()
    assert _lookups(db) == _lookups(reference)
    assert db.info() == reference.info() and db._by_code == reference._by_code and db._aliases == reference._aliases
    assert db.deck_rules() == reference.deck_rules() and db._set_ids == reference._set_ids
    # the name key of what each card evolves from: the pack's, as the JSON's cards make it
    made = [card._parent for card in db.cards.values()]
    assert made == [card.evolves_key for card in reference.cards.values()] and any(made)


def test_a_written_database_has_its_pack_and_loads_through_it(tmp_path, monkeypatch):
    path = tiny(tmp_path / "cards.json.gz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.json.gz", "cards.json.gz.pack"]
    reference = _from_json(path)
    _no_json(monkeypatch)
    db = cards.load(path)
    assert db.cards.values() == reference.cards.values() and _lookups(db) == _lookups(reference)
    assert db.find("SVI", "0181").id == "sv01-181" and [c.id for c in db.by_name("nest ball")] == [
        "sv01-181",
        "sv01-258",
    ]
    assert db.basic_energy("Fire").id == "sv01-257" and db.get("sv01-196").name == "Ultra Ball"
    assert db.resolve_parts("Nest Ball", "SVI", "999").method == "name-and-set"


def test_without_a_pack_or_with_the_pack_of_another_file_the_json_is_read(tmp_path, caplog):
    path = tiny(tmp_path / "cards.json.gz")
    pack = dbpack.pack_path(path)
    other = pack.read_bytes()
    pack.unlink()  # a user's own JSON database ($DECKCHECK_DB): read the slow way
    assert cards.load(path).cards.values() == _from_json(path).cards.values()
    tiny(path, ROWS[:2])  # written again: its new pack replaced by the one of the first file
    pack.write_bytes(other)
    with caplog.at_level(logging.WARNING, logger="deckcheck.cards"):
        db = cards.load(path)
    assert sorted(db.cards) == ["sv01-181", "sv01-196"]
    assert f"card database pack {pack} was made from another file than {path}: not used" in caplog.text


def test_a_pack_made_by_other_index_code_is_not_used(tmp_path, caplog, monkeypatch):
    path = tiny(tmp_path / "cards.json.gz")
    monkeypatch.setattr(cards, "fingerprint", lambda: "0123456789abcdef")
    with caplog.at_level(logging.WARNING, logger="deckcheck.cards"):
        db = cards.load(path)
    assert "was made by other index code: not used" in caplog.text
    assert sorted(db.cards) == sorted(r[0] for r in ROWS)


def _sections(data):
    """(header, {section name: (start, kind, count)}) of a pack."""
    size = struct.unpack_from("<8sIII", data)[2]
    header = orjson.loads(data[P : P + size])
    at, where = P + size, {}
    for name, kind, count, nbytes in header["sections"]:
        where[name] = (at, kind, count)
        at += nbytes
    return header, where


def _resign(data):
    """A pack whose digest is made again: the damage is then one the structure checks must see."""
    return data[:16] + dbpack.body_digest(data[P:]) + data[P:]


def _rewrite(data, name, values):
    header, where = _sections(data)
    start, kind, count = where[name]
    new = array(columns.ITEM[kind], values).tobytes()
    return _resign(data[:start] + new + data[start + len(new) :])


def _reheader(data, header):
    """A pack with another header (the same sections), its digest made again."""
    size = struct.unpack_from("<8sIII", data)[2]
    new = orjson.dumps(header)
    return _resign(data[:12] + struct.pack("<I", len(new)) + data[16:P] + new + data[P + size :])


def _fails(path, data, message):
    dbpack.pack_path(path).write_bytes(data)
    with pytest.raises(DatabaseError) as exc:
        cards.load(path)
    where = dbpack.pack_path(path)
    remedy = f"(delete it, or write it again with 'deckcheck db pack --db {path}')"
    assert str(exc.value) == f"card database pack at {where} is {message} {remedy}"


def test_a_damaged_pack_fails_the_load_saying_what_is_wrong(tmp_path):
    path = tiny(tmp_path / "cards.json.gz")
    good = dbpack.pack_path(path).read_bytes()
    header, where = _sections(good)
    total = len(good)
    _fails(path, good[:-7], f"truncated: {total - 7} bytes, its header describes {total}")
    _fails(path, good[: P - 2], "not a deckcheck database pack (wrong magic bytes)")
    flipped = bytearray(good)
    flipped[-3] ^= 0x01
    _fails(path, bytes(flipped), "damaged: its CRC-32 does not match its contents (changed after it was written)")
    _fails(path, b"PK\x03\x04" + good[4:], "not a deckcheck database pack (wrong magic bytes)")
    _fails(
        path,
        good[:8] + struct.pack("<I", 99) + good[12:],
        f"pack format 99, this deckcheck reads format {dbpack.FORMAT}",
    )
    n = header["rows"]
    rows = where["by_number.rows"]
    _fails(
        path,
        _rewrite(good, "by_number.rows", [n] * rows[2]),
        "the index's by_number table names rows that are not there",
    )
    _fails(
        path, _rewrite(good, "by_name.rows", [0, 1, 2, 7]), "the index's by_name table names rows that are not there"
    )
    sizes = where["by_name.sizes"][2]
    _fails(path, _rewrite(good, "by_name.sizes", [0] * sizes), "the index's by_name table has a key without rows")
    _fails(path, _rewrite(good, "supertype", [9] * n), "column supertype has a code out of range")
    _fails(path, _rewrite(good, "name", [len(header["values"]["name"])] * n), "column name has a code out of range")
    renamed = {**header, "sections": [["ids" if s[0] == "id" else s[0], *s[1:]] for s in header["sections"]]}
    _fails(path, _reheader(good, renamed), "section id is missing or of kind None")
    _fails(path, _reheader(good, {**header, "values": {}}), "malformed (KeyError('name'))")
    dbpack.pack_path(path).write_bytes(_reheader(good, header))  # the same header written again: loads
    assert sorted(cards.load(path).cards) == sorted(r[0] for r in ROWS)


def test_the_pack_refuses_what_it_cannot_hold(tmp_path):
    with pytest.raises(BuildError, match="a id value holds a NUL character"):
        tiny(tmp_path / "cards.json.gz", [["sv01-1\x00", *ROWS[0][1:]]])
    with pytest.raises(BuildError, match="card x names unknown set nowhere"):
        tiny(tmp_path / "cards.json.gz", [["x", *ROWS[0][1:7], "nowhere", *ROWS[0][8:]]])
    with pytest.raises(BuildError, match="a value of column supertype is not a str"):
        tiny(tmp_path / "cards.json.gz", [[*ROWS[0][:2], 7, *ROWS[0][3:]]])  # what a load of the pack refuses
    assert not list(tmp_path.iterdir())  # nothing written


def test_an_index_table_the_pack_does_not_know_reaches_loading_as_the_json_has_it(tmp_path, monkeypatch):
    """A table added to the index (deckcheck/cards/index.py) is carried in the pack's header as it is."""
    made = index.build_index
    monkeypatch.setattr(index, "build_index", lambda *a, **k: {**made(*a, **k), "lines": {"4 nest ball": [0, 2]}})
    path = tiny(tmp_path / "cards.json.gz")
    seen = []
    real = cards._index
    monkeypatch.setattr(cards, "_index", lambda db, d, ix, w: (seen.append(ix), real(db, d, ix, w))[1])
    _no_json(monkeypatch)
    cards.load(path)
    assert seen[0]["lines"] == {"4 nest ball": [0, 2]}


def test_db_pack_writes_the_pack_of_a_database_of_ones_own(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from deckcheck.cli import cli

    path = tiny(tmp_path / "mine.json.gz")
    pack = dbpack.pack_path(path)
    made = pack.read_bytes()
    pack.write_bytes(made[:100])  # damaged: the load fails until the pack is written again
    with pytest.raises(DatabaseError, match="is truncated"):
        cards.load(path)
    result = CliRunner().invoke(cli, ["db", "pack"], env={"DECKCHECK_DB": str(path)})
    assert result.exit_code == 0 and result.output == f"Wrote {pack} for {path}.\n", result.output
    assert pack.read_bytes() == made
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(b'{"schema": 1}'))
    result = CliRunner().invoke(cli, ["db", "pack", "--db", str(broken)])
    assert result.exit_code == 3 and not dbpack.pack_path(broken).exists()
    assert f"cannot write the pack of {broken}: card database {broken} has an unknown layout" in result.output
    _no_json(monkeypatch)
    assert sorted(cards.load(path).cards) == sorted(r[0] for r in ROWS)


# -- the index of usual lines, read in place; one cheap digest per file ------------------------------


def test_the_pack_holds_every_codes_usual_lines_read_in_place(tmp_path, monkeypatch):
    """A database read through its pack finds a usual line at its first sight (nothing made in the
    process: no code's table built), as the JSON database finds it once that code is indexed."""
    path = tiny(tmp_path / "cards.json.gz")
    reference = _from_json(path)
    reference.index_usual_lines()
    _no_json(monkeypatch)
    db = cards.load(path)
    assert db.printed_line("Nest Ball SVI 181") == (db.get("sv01-181"), "Nest Ball", "SVI", "181")
    assert db.printed_line("Nest Ball SVI 181 PH")[0] is db.get("sv01-181")
    assert db.printed_line("Basic {R} Energy SVI 257")[0] is db.get("sv01-257")
    for rest in (
        "Nest Ball SVI 0181",
        "Nest Ball SVI 999",
        "Nest Ball XYZ 181",
        "nest ball SVI 181",
        "",
        "Nest\ud800 Ball SVI 181",
    ):
        assert db.printed_line(rest) is None, rest
    # no code's table made in this process: only the lines found are kept
    assert set(db._usual.table) == {"Nest Ball SVI 181", "Basic {R} Energy SVI 257"} and db._usual.codes == set()
    assert db.index_usual_lines() == len(db.printed_lines()) == len(reference.printed_lines())
    # a server's master indexes before it forks: the pack's table is read in place, no dict of its entries
    # made (the workers would write their cards into its entries: pages copied on write)
    assert set(db._usual.table) == {"Nest Ball SVI 181", "Basic {R} Energy SVI 257"}
    assert sorted(db.printed_lines()) == sorted(reference.printed_lines())
    assert {rest: db.printed_line(rest)[1:] for rest in db.printed_lines()} == {
        rest: reference.printed_line(rest)[1:] for rest in reference.printed_lines()
    }
    assert db.indexed_codes() == reference.indexed_codes() == {"SVI", "SV01"}


def test_a_pack_made_with_another_set_alias_table_indexes_its_lines_code_by_code(tmp_path, monkeypatch):
    """Which codes the index of usual lines looks up is data/set-aliases.csv's (read at load): with a
    table of other rows than the pack was made with (SVI not looked up), the pack's index is not used."""
    path = tiny(tmp_path / "cards.json.gz")
    real = cards._load_aliases
    other = cards.SetAlias(("sv01",), "", 0, "by-name")
    monkeypatch.setattr(cards, "_load_aliases", lambda directory: {**real(directory), "SVI": other})
    db = cards.load(path)
    db.index_usual_lines()
    assert db._usual.packed is None and "SVI" not in db.indexed_codes()
    assert db.printed_line("Nest Ball SVI 181") is None


def test_a_damaged_index_of_usual_lines_fails_the_load_saying_what_is_wrong(tmp_path):
    path = tiny(tmp_path / "cards.json.gz")
    good = dbpack.pack_path(path).read_bytes()
    header, where = _sections(good)
    size, entries = where["usual.slots"][2], where["usual.hashes"][2]
    full = [i % entries + 1 for i in range(size)]  # no empty slot: a miss would never end
    _fails(path, _rewrite(good, "usual.slots", full), "the index of usual lines' hash table is malformed")
    _fails(
        path,
        _rewrite(good, "usual.codes", [len(header["usual"]["codes"])] * entries),
        "the index of usual lines' codes column has a code out of range",
    )
    _fails(
        path,
        _rewrite(good, "usual.rows", [len(ROWS)] * entries),
        "the index of usual lines' rows column has a code out of range",
    )
    _fails(
        path,
        _reheader(good, {**header, "usual": {**header["usual"], "numbers": [1]}}),
        "the index of usual lines' numbers table is malformed",
    )
    _fails(path, _reheader(good, {**header, "source": 7}), "the header's source is malformed")


def test_a_load_through_the_pack_reads_each_file_once_without_a_sha256(tmp_path, monkeypatch):
    """The pack records its JSON's SHA-256 (the database's version) and its length and CRC-32, which a
    load compares; the pack's own digest is a CRC-32 too."""
    path = tiny(tmp_path / "cards.json.gz")
    version = hashlib.sha256(path.read_bytes()).hexdigest()[:12]

    def refuse(*args, **kwargs):
        raise AssertionError("a SHA-256 was computed")

    monkeypatch.setattr(hashlib, "sha256", refuse)
    db = cards.load(path)
    assert db.version == version and db.get("sv01-181").name == "Nest Ball"
    assert dbpack.pack_path(path).read_bytes()[16:P] == dbpack.body_digest(dbpack.pack_path(path).read_bytes()[P:])


def test_a_damaged_legality_column_fails_the_load_saying_what_is_wrong(tmp_path):
    path = tiny(tmp_path / "cards.json.gz")
    good = dbpack.pack_path(path).read_bytes()
    header, where = _sections(good)
    assert sorted(header["legality"]) == sorted(default_formats())
    runs = where["legality.standard.via"][2]
    _fails(
        path,
        _rewrite(good, "legality.standard.via", [len(ROWS) + 1] * runs),
        "the legality in format standard names rows that are not there",
    )
    offsets = where["legality.glc.offsets"][2]
    _fails(
        path,
        _rewrite(good, "legality.standard.offsets", [0] * offsets),
        "the legality in format standard does not hold the runs its offsets say",
    )
    past = [0, runs + 9] + [where["legality.glc.starts"][2]] * (offsets - 2)
    _fails(path, _rewrite(good, "legality.glc.offsets", past), "the legality in format glc has an offset past its runs")
    _fails(path, _reheader(good, {**header, "legality": {"standard": "x"}}), "the header's legality table is malformed")


PROMOS = {"id": "svp", "name": "SVP Black Star Promos", "series": "sv", "code": "PR-SV", "aliases": ["PR-SV"]}
PROMOS = {**PROMOS, "release": "2023-03-31", "official_count": 0}
LATER = {**SET, "id": "sv08.5", "name": "Prismatic Evolutions", "code": "PRE", "aliases": ["PRE"]}
LATER = {**LATER, "release": "2025-01-17"}


def _with_promo(path, releases):
    rows = [
        ["sv08.5-105", "Black Belt's Training", "Trainer", ["Supporter"], None, [], "H", "sv08.5", "105", "U", "bbt1"],
        ["svp-219", "Black Belt's Training", "Trainer", ["Supporter"], None, [], "H", "svp", "219", None, "bbt1"],
        ["svp-220", "Black Belt's Training", "Trainer", ["Supporter"], None, [], "H", "svp", "220", None, "bbt1"],
    ]
    db = {
        "schema": dbfile.SCHEMA_VERSION,
        "fields": list(dbfile.FIELDS),
        "sets": [SET, LATER, PROMOS],
        "cards": rows,
        "meta": {"built_at": "2026-01-01T00:00:00Z", "sources": {}, "cards": len(rows), "sets": 3},
        dbfile.PRINTING_RELEASES: releases,
    }
    write.write_database(db, path)
    return path


def test_a_printings_own_release_is_its_cards_through_the_pack_and_the_json(tmp_path, monkeypatch):
    path = _with_promo(tmp_path / "cards.json.gz", {"svp-219": "2025-01-17"})
    reference = _from_json(path)
    _no_json(monkeypatch)
    db = cards.load(path)
    for loaded in (db, reference):
        assert [(c.id, c.release) for c in loaded.cards.values()] == [
            ("sv08.5-105", "2025-01-17"),
            ("svp-219", "2025-01-17"),
            ("svp-220", "2023-03-31"),
        ]
        # newest first by each printing's own release: the promo dated with its set comes before the other
        assert [c.id for c in loaded.by_name("Black Belt's Training")] == ["sv08.5-105", "svp-219", "svp-220"]
    assert _lookups(db) == _lookups(reference)


def test_a_printings_own_release_of_no_card_or_no_date_is_refused(tmp_path):
    with pytest.raises(BuildError, match="printing_releases names unknown card 'svp-999'"):
        _with_promo(tmp_path / "a.json.gz", {"svp-999": "2025-01-17"})
    with pytest.raises(BuildError, match="Invalid isoformat string"):
        _with_promo(tmp_path / "b.json.gz", {"svp-219": "soon"})
    path = _with_promo(tmp_path / "cards.json.gz", {"svp-219": "2025-01-17"})
    good = dbpack.pack_path(path).read_bytes()
    header, _where = _sections(good)
    _fails(
        path,
        _reheader(good, {**header, dbfile.PRINTING_RELEASES: ["svp-219"]}),
        ("the header's printing_releases table is malformed"),
    )
    _fails(
        path,
        _reheader(good, {**header, dbfile.PRINTING_RELEASES: {"svp-219": 20250117}}),
        ("the header's printing_releases table is malformed"),
    )


def test_a_pack_whose_printing_releases_name_no_card_or_no_date_fails_the_load(tmp_path):
    path = _with_promo(tmp_path / "cards.json.gz", {"svp-219": "2025-01-17"})
    good = dbpack.pack_path(path).read_bytes()
    header, _where = _sections(good)
    where = dbpack.pack_path(path)
    for table, why in (
        ({"svp-999": "2025-01-17"}, "printing_releases names unknown card 'svp-999'"),
        ({"svp-219": "soon"}, "Invalid isoformat string: 'soon'"),
    ):
        dbpack.pack_path(path).write_bytes(_reheader(good, {**header, dbfile.PRINTING_RELEASES: table}))
        with pytest.raises(DatabaseError) as exc:
            cards.load(path)
        assert str(exc.value) == f"card database pack at {where} is malformed: ValueError({why!r})"


# -- each printing's kind, worked out by the build ------------------------------------------------


def test_the_pack_holds_each_printings_kind_and_a_forged_one_fails_the_load(tmp_path, monkeypatch):
    """The build stores what each printing is for a deck (cards/kinds.py) and a card made from the pack
    carries it; a value no printing can have, or a header without the version, fails the load; a pack made
    with another version of kind_of is not read for it (its cards work their kinds out)."""
    from deckcheck.cards import kinds

    path = tiny(tmp_path / "cards.json.gz")
    good = dbpack.pack_path(path).read_bytes()
    header, where = _sections(good)
    assert header["kind_version"] == kinds.KIND_VERSION and where["kind"][1:] == ("u8", len(ROWS))
    db = cards.load(path)
    for card in map(db.cards.at, range(len(ROWS))):
        assert card._kind == kinds.kind_of(card.supertype, card.subtypes, card.evolves_from), card.id
    _fails(
        path, _rewrite(good, "kind", [kinds.OTHER + 1] * len(ROWS)), "the kind column has a value no printing can have"
    )
    _fails(
        path,
        _reheader(good, {k: v for k, v in header.items() if k != "kind_version"}),
        "the header's kind_version is not a number",
    )
    dbpack.pack_path(path).write_bytes(good)
    monkeypatch.setattr(cards, "KIND_VERSION", kinds.KIND_VERSION + 1)  # a pack made by another version
    other = cards.load(path)
    nest = other.get("sv01-181")
    assert nest._kind is None and nest.kind == kinds.TRAINER
