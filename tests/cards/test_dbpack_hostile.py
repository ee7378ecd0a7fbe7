"""A pack forged with a digest that matches (the digest finds damage, not intent): whatever its
header declares (counts, lengths, sizes), the load fails at once with what is wrong, as a
DatabaseError, never another exception and never an allocation the file's size does not bound."""

from __future__ import annotations

import struct
import tracemalloc
from array import array

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dbpack import ROWS, P, _sections, tiny

from deckcheck import cards
from deckcheck.cards import DatabaseError, columns
from deckcheck.cards import pack as dbpack


def _parts(data: bytes) -> tuple[dict, list[bytes]]:
    """A pack's header and its sections' bytes."""
    header, where = _sections(data)
    size = struct.unpack_from("<8sIII", data)[2]
    payload, at, blobs = data[P + size :], 0, []
    for _name, _kind, _count, nbytes in header["sections"]:
        blobs.append(payload[at : at + nbytes])
        at += nbytes
    return header, blobs


def _forge(header: dict, blobs: list[bytes]) -> bytes:
    """A pack of this header and these sections, its digest right."""
    head = orjson.dumps(header)
    body = head + b"".join(blobs)
    return dbpack.MAGIC + struct.pack("<II", dbpack.FORMAT, len(head)) + dbpack.body_digest(body) + body


def _load_fails(path, data: bytes) -> str:
    dbpack.pack_path(path).write_bytes(data)
    with pytest.raises(DatabaseError) as exc:
        cards.load(path)
    prefix = f"card database pack at {dbpack.pack_path(path)} is "
    assert str(exc.value).startswith(prefix), str(exc.value)
    return str(exc.value)[len(prefix) :].removesuffix(
        f" (delete it, or write it again with 'deckcheck db pack --db {path}')"
    )


def _with_section(header: dict, blobs: list[bytes], name: str, kind: str, values: list[int]) -> tuple[dict, list]:
    header, blobs = orjson.loads(orjson.dumps(header)), list(blobs)
    for i, section in enumerate(header["sections"]):
        if section[0] == name:
            blobs[i] = array(columns.ITEM[kind], values).tobytes()
            section[1:] = [kind, len(values), len(blobs[i])]
    return header, blobs


def test_group_sizes_whose_sum_overflows_fail_the_load_saying_so(tmp_path):
    """Sizes each a u32 whose running sum passes 2**32 (the offsets are u32 too)."""
    path = tiny(tmp_path / "cards.json.gz")
    header, blobs = _parts(dbpack.pack_path(path).read_bytes())
    for part in ("by_name", "by_number"):
        count = next(s[2] for s in header["sections"] if s[0] == f"{part}.sizes")
        forged = _with_section(header, blobs, f"{part}.sizes", "u32", [2**32 - 1] * count)
        rows = next(s[2] for s in header["sections"] if s[0] == f"{part}.rows")
        assert _load_fails(path, _forge(*forged)) == (
            f"the index's {part} groups hold {(2**32 - 1) * count} rows, not {rows}"
        )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": 2**31}, "column name does not have 2147483648 rows"),
        ({"rows": 2**63}, "column name does not have 9223372036854775808 rows"),
        ({"rows": -1}, "the header's row count is not a count"),
        ({"rows": True}, "the header's row count is not a count"),
        ({"basic_energy": {"Fire": -1}}, "the index's basic_energy table names rows that are not there"),
        ({"basic_energy": {"Fire": 2**40}}, "the index's basic_energy table names rows that are not there"),
    ],
)
def test_huge_or_negative_numbers_in_the_header_fail_fast_without_allocating(tmp_path, change, message):
    path = tiny(tmp_path / "cards.json.gz")
    header, blobs = _parts(dbpack.pack_path(path).read_bytes())
    data = _forge({**header, **change}, blobs)
    tracemalloc.start()
    try:
        assert _load_fails(path, data) == message
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 1024 * 1024  # a tiny pack: nothing sized by the header's claims


@pytest.mark.parametrize(
    ("section", "field", "value", "message"),
    [
        ("name", 2, 2**31, "section name holds 4 bytes for 2147483648 values"),
        ("name", 3, -1, "section name is cut short"),
        ("fingerprint", 2, 2**31, "section fingerprint holds 4 values, its header says 2147483648"),
        ("by_name.rows", 2, 2**32, "section by_name.rows holds 4 bytes for 4294967296 values"),
    ],
)
def test_huge_or_negative_section_counts_fail_fast(tmp_path, section, field, value, message):
    path = tiny(tmp_path / "cards.json.gz")
    header, blobs = _parts(dbpack.pack_path(path).read_bytes())
    header = orjson.loads(orjson.dumps(header))
    for s in header["sections"]:
        if s[0] == section:
            s[field] = value
    assert _load_fails(path, _forge(header, blobs)) == message


def test_a_string_column_of_other_bytes_than_utf8_fails_the_load(tmp_path):
    path = tiny(tmp_path / "cards.json.gz")
    header, blobs = _parts(dbpack.pack_path(path).read_bytes())
    at = [s[0] for s in header["sections"]].index("id")
    blobs[at] = b"\xff" + blobs[at][1:]
    assert _load_fails(path, _forge(header, blobs)).startswith("malformed (UnicodeDecodeError(")


def test_a_pack_cut_at_every_section_boundary_fails_as_truncated(tmp_path):
    path = tiny(tmp_path / "cards.json.gz")
    good = dbpack.pack_path(path).read_bytes()
    header, _ = _parts(good)
    at = len(good) - sum(s[3] for s in header["sections"])
    for _name, _kind, _count, nbytes in header["sections"]:
        assert _load_fails(path, good[:at]) == f"truncated: {at} bytes, its header describes {len(good)}"
        at += nbytes
    assert _load_fails(path, good[:P]).startswith("truncated: the header needs ")


def test_the_command_a_damaged_pack_names_writes_it_again(tmp_path):
    """The message's remedy is the command that writes the pack of that very file (db build would
    need a catalogue, and writes the default database, not this one)."""
    import shlex

    from click.testing import CliRunner

    from deckcheck.cli import cli

    path = tiny(tmp_path / "own.json.gz")
    pack = dbpack.pack_path(path)
    made = pack.read_bytes()
    pack.write_bytes(made[:60])
    with pytest.raises(DatabaseError) as exc:
        cards.load(path)
    command = str(exc.value).rpartition("write it again with '")[2].removesuffix("')")
    assert command == f"deckcheck db pack --db {path}"
    result = CliRunner().invoke(cli, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert pack.read_bytes() == made and sorted(cards.load(path).cards) == sorted(r[0] for r in ROWS)


def test_a_pack_written_again_is_picked_up_by_the_watcher(tmp_path):
    """A new database whose pack is damaged is not swapped in (the current one stays); the remedy the
    message names (db pack) rewrites only the pack, and the watcher then swaps the database in on its
    next look, as it would for a new file (not only after a SIGHUP or the next database)."""
    from test_reload import NEST_BALL, ULTRA_BALL, Clock, write_db

    from deckcheck.cards import watch as dbwatch
    from deckcheck.sync import write

    before = cards._current
    try:
        path = tmp_path / "cards.json.gz"
        write_db(path, "2026-01-01T00:00:00Z")
        cards.set_db(cards.load(path))
        v1 = cards.get_db().version
        clock = Clock()
        watcher = dbwatch.DatabaseWatcher(path, 5, background=False, clock=clock)
        v2 = write_db(path, "2026-02-01T00:00:00Z", rows=(NEST_BALL, ULTRA_BALL))
        pack = dbpack.pack_path(path)
        made = pack.read_bytes()
        pack.write_bytes(made[:60])
        clock.now += 5
        watcher.maybe_reload()
        assert cards.get_db().version == v1 and "is truncated" in watcher.last_error
        write.write_pack(path)
        assert pack.read_bytes() == made
        clock.now += 5
        watcher.maybe_reload()
        assert cards.get_db().version == v2 and watcher.swaps == 1 and watcher.last_error is None
        clock.now += 5
        watcher.maybe_reload()  # nothing changed since: no load
        assert watcher.swaps == 1
    finally:
        cards._current = before


def test_db_build_of_a_catalogue_the_pack_cannot_hold_fails_with_the_reason(tmp_path):
    """A collector number with a NUL (the pack's by_number keys are NUL-joined text): db build says
    so and writes nothing, as for a source it cannot read (exit 3), not a BuildError traceback."""
    import gzip
    import json

    from click.testing import CliRunner
    from test_build import SOURCE, _card

    from deckcheck.cli import cli

    pineco = _card("sv04-002", "Pineco", "Pokémon", ["Basic"], hp=70, types=["Grass"], regulationMark="G", retreat=1)
    src = tmp_path / "src.json.gz"
    with gzip.open(src, "wt", encoding="utf-8") as fh:
        json.dump({**SOURCE, "cards": [*SOURCE["cards"], {**pineco, "number": "2\x00"}]}, fh)
    out = tmp_path / "out" / "cards.json.gz"
    result = CliRunner().invoke(cli, ["db", "build", "--from", str(src), "--output", str(out)])
    assert result.exit_code == 3, result.exception
    assert "the database cannot be written: a by_number.keys value holds a NUL character" in result.output
    assert not out.exists() and not dbpack.pack_path(out).exists()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 300) | st.sampled_from([255, 256, 65535, 65536]), max_size=300),
    st.integers(0, 2**33) | st.integers(0, 70000),
    st.sampled_from(["B", "H", "I"]),
)
def test_the_range_check_of_a_column_is_max_s(values, top, typecode):
    """all_below and zeros read columns byte by byte (all_below plane by plane, from the most significant);
    they answer as max() and count() do, at every boundary, for one-, two- and four-byte values."""
    values = [v & {"B": 0xFF, "H": 0xFFFF, "I": 0xFFFFFFFF}[typecode] for v in values]
    column = array(typecode, values)
    assert columns.all_below(column, top) == (not values or max(values) < top)
    assert columns.zeros(column) == values.count(0)
    if values:
        assert columns.all_below(column, max(values) + 1) and not columns.all_below(column, max(values))
