"""The lookup index stored in the database file (deckcheck/cards/index.py) and how loading uses it."""

from __future__ import annotations

import copy
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deckcheck import cards
from deckcheck.cards import DatabaseError, index
from deckcheck.sync import write


@pytest.fixture(scope="module")
def raw():
    return json.loads(gzip.decompress(cards.default_path().read_bytes()))


def _releases(raw):
    return {s["id"]: s.get("release") or "" for s in raw["sets"]}


def _lookups(db):
    """What resolution reads from a database's index, as plain values."""
    return (
        {k: [c.id for c in v] for k, v in db._by_name.items()},
        {k: [c.id for c in v] for k, v in db._by_number.items()},
        {k: c.id for k, c in db._basic_energy.items()},
        db._names,
        db._newest,
    )


@pytest.mark.slow
def test_the_shipped_database_carries_the_index_this_code_makes(raw):
    """Fails when names.py or index.py changed and data/cards.json.gz was not written again
    (``deckcheck db build``); loading still works then, by indexing the cards itself."""
    stored = raw["index"]
    assert stored["fingerprint"] == index.fingerprint(), "write the database again: deckcheck db build"
    made = index.build_index(raw["cards"], _releases(raw), None, raw["printing_releases"])
    changed = [(row[1], k, n) for row, k, n in zip(raw["cards"], stored["keys"], made["keys"], strict=True) if k != n]
    # the tripwire of NAME_KEY_VERSION: names.py gives other keys than the shipped index holds
    assert not changed, f"name keys changed ({changed[:3]}...): bump index.NAME_KEY_VERSION, then deckcheck db build"
    assert stored == made
    assert cards._usable(stored, raw["cards"], _releases(raw), raw["printing_releases"], "shipped")


@pytest.mark.slow
def test_a_database_loads_the_same_with_and_without_its_index(raw):
    with_index = cards.from_dict(raw, "a")
    without = cards.from_dict({k: v for k, v in raw.items() if k != "index"}, "b")
    assert _lookups(with_index) == _lookups(without)
    assert with_index.find("SVI", "181").id == "sv01-181" == without.find("svi", "0181").id


@pytest.mark.slow
def test_an_index_of_other_rows_or_other_code_is_not_used(raw, caplog):
    edited = copy.deepcopy(raw)
    edited["cards"] = [row for row in edited["cards"] if row[0] != "sv01-181"]  # rows changed, index not
    assert not cards._usable(edited["index"], edited["cards"], _releases(edited), edited["printing_releases"], "edited")
    assert "made from other card rows" in caplog.text
    db = cards.from_dict(edited, "edited")
    assert db.find("SVI", "181") is None and "sv01-181" not in db.cards
    other = copy.deepcopy(raw)
    other["index"]["fingerprint"] = "someone else"
    assert not cards._usable(other["index"], other["cards"], _releases(other), other["printing_releases"], "other")


@pytest.mark.parametrize(
    "breakage",
    [
        lambda ix: ix["by_name"].__setitem__("nest ball", [10**9]),
        lambda ix: ix["by_number"].__setitem__("sv01\x1f181", ["0"]),
        lambda ix: ix["by_number"].__setitem__("sv01\x1f181", []),
        lambda ix: ix["basic_energy"].__setitem__("Fire", -1),
        lambda ix: ix["keys"].pop(),
        lambda ix: ix.__setitem__("by_name", []),
    ],
)
@pytest.mark.slow
def test_a_malformed_index_is_never_used(raw, breakage):
    broken = copy.deepcopy(raw)
    breakage(broken["index"])
    with pytest.raises(index.IndexError_):
        index.check_index(broken["index"], len(broken["cards"]))
    assert not cards._usable(broken["index"], broken["cards"], _releases(broken), broken["printing_releases"], "broken")
    db = cards.from_dict(broken, "broken")
    assert db.find("SVI", "181").id == "sv01-181" and db.basic_energy("Fire").name == "Fire Energy"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: rows[0].pop(), "malformed"),
        (lambda rows: rows[0].__setitem__(3, "Basic"), "malformed"),
        (lambda rows: rows[0].__setitem__(8, 181), "malformed"),
        (lambda rows: rows.append("not a row"), "malformed"),
        (lambda rows: rows[0].__setitem__(7, "no-such-set"), "names unknown set no-such-set"),
    ],
)
@pytest.mark.slow
def test_every_row_is_checked_when_the_file_is_loaded(raw, tmp_path, change, message):
    """Cards are made on first use, so loading checks every row first: a broken row fails the
    load, never a later request."""
    broken = copy.deepcopy(raw)
    change(broken["cards"])
    path = tmp_path / "cards.json.gz"
    path.write_bytes(gzip.compress(json.dumps(broken).encode()))
    with pytest.raises(DatabaseError, match=message):
        cards.load(path)


@pytest.mark.slow
def test_cards_are_made_on_first_use_and_kept(raw):
    db = cards.from_dict(raw, "lazy")
    assert db.cards._made.count(None) == len(db.cards._made) - len(db._basic_energy)
    card = db.get("sv01-181")
    assert db.get("sv01-181") is card is db.cards["sv01-181"] is db.find("SVI", "181")
    assert card.key == "nest ball" and card.set_code == "SVI" and card.subtypes == ("Item",)
    assert db.get("no-such-card") is None and "no-such-card" not in db.cards
    with pytest.raises(KeyError):
        db.cards["no-such-card"]
    assert len(db.cards.values()) == len(db.cards) == len(raw["cards"])


@pytest.mark.slow
def test_written_databases_carry_their_index(tmp_path, raw):
    path = tmp_path / "cards.json.gz"
    write.write_database({k: v for k, v in raw.items() if k != "index"}, path)
    written = json.loads(gzip.decompress(path.read_bytes()))
    assert written["index"] == raw["index"]


@pytest.mark.parametrize(
    ("number", "norm"), [("TG01", "TG1"), ("007", "7"), (" 181 ", "181"), ("sv-x", "SV-X"), ("12a", "12A"), ("0", "0")]
)
def test_number_norm_is_number_key_as_text(number, norm):
    assert index.number_norm(number) == norm
    assert index.number_key(norm) == index.number_key(number)


def test_the_fingerprint_is_the_versions_a_person_bumps():
    assert index.fingerprint() == f"layout-{index.INDEX_LAYOUT}.names-{index.NAME_KEY_VERSION}"


@pytest.mark.slow
def test_a_comment_in_every_module_leaves_the_shipped_pack_in_use(tmp_path):
    """The pack is trusted by the versions its index records, not by the source text: a copy
    of the package with a comment added to every module (and no source files' digests to
    match) still loads the shipped pack and its stored index, without reading the JSON."""
    package = Path(index.__file__).resolve().parent.parent  # deckcheck/
    shutil.copytree(package, tmp_path / "deckcheck", ignore=shutil.ignore_patterns("__pycache__", "data"))
    for module in (tmp_path / "deckcheck").rglob("*.py"):
        module.write_text(module.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    probe = (
        "import logging, sys; logging.basicConfig(level=logging.WARNING)\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, '__module__', '').startswith('__editable__')]\n"
        "from deckcheck import cards\n"
        "cards.from_dict = None  # the JSON read record by record: must not happen\n"
        "db = cards.load()\n"
        "print(cards.__file__, db.find('SVI', '181').name)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "DECKCHECK_DATA_DIR": str(cards.default_path().parent)}
    env.pop("DECKCHECK_DB", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(tmp_path / "deckcheck" / "cards" / "__init__.py"), "Nest", "Ball"]
    assert "not used" not in done.stderr, done.stderr
