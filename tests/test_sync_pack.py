"""``db sync`` beside a damaged pack: the database is the JSON file, and a sync compares with it and
carries rows from it as it would without a pack (the pack only makes loading fast)."""

from __future__ import annotations

import pytest

from deckcheck import cards as _cards
from deckcheck import dbpack
from tests.test_sync import TCGDEX, api, old_db, paths, run_sync  # noqa: F401  (fixtures: the recorded TCGdex API)


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
