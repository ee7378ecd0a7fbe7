"""Building the shipped database from a merged catalogue: data fixes, determinism, loud failures."""

import gzip
import json

import pytest
from click.testing import CliRunner

from deckcheck import cards
from deckcheck.cards import files as dbfile
from deckcheck.cli import cli
from deckcheck.sync import build, write


def _card(cid, name, supertype, subtypes, **extra):
    set_id, number = cid.rsplit("-", 1)
    return {
        "id": cid,
        "name": name,
        "supertype": supertype,
        "subtypes": subtypes,
        "set_id": set_id,
        "number": number.lstrip("0"),
        **extra,
    }


SOURCE = {
    "meta": {"tcgdex_commit": "abc123", "ptcgio_commit": "def456"},
    "sets": [
        {
            "id": "bw7",
            "name": "Boundaries Crossed",
            "series_id": "bw",
            "ptcgl_code": "BCR",
            "code_aliases": ["BCR"],
            "releaseDate": "2012-11-07",
            "official_count": 149,
        },
        {
            "id": "sv04",
            "name": "Paradox Rift",
            "series_id": "sv",
            "ptcgl_code": "PAR",
            "code_aliases": ["PAR"],
            "releaseDate": "2023-11-03",
            "official_count": 182,
        },
        {
            "id": "sve",
            "name": "Scarlet & Violet Energy",
            "series_id": "sv",
            "ptcgl_code": "SVE",
            "code_aliases": ["SVE"],
            "releaseDate": "2023-03-31",
            "official_count": 24,
        },
    ],
    "cards": [
        _card("bw7-137", "Computer Search", "Trainer", ["Item"], rarity="Rare", effect="Discard 2 cards."),
        _card("bw7-138", "Crystal Edge", "Trainer", ["Pokémon Tool"], effect="Edge."),
        _card("bw7-139", "Crystal Wall", "Trainer", ["Pokémon Tool"], effect="Wall."),
        _card("bw7-140", "Gold Potion", "Trainer", ["Item"], effect="Heal."),
        # TCGdex marks this Special Energy as basic (energyType "Normal")
        _card(
            "sv04-266",
            "Reversal Energy",
            "Energy",
            ["Basic"],
            regulationMark="G",
            effect="As long as this card is attached to a Pokémon, it provides {C} Energy.",
        ),
        _card(
            "sv04-160",
            "Counter Catcher",
            "Trainer",
            ["Item"],
            regulationMark="g",
            effect="You can use this card only if you have more Prize cards remaining than your opponent.",
        ),
        _card("sve-002", "Fire Energy", "Energy", ["Basic"]),
        _card(
            "sv04-001",
            "Pineco",
            "Pokémon",
            ["Basic"],
            hp=70,
            types=["Grass"],
            regulationMark="G",
            attacks=[{"name": "Tackle", "cost": ["Colorless"], "damage": "10"}],
            retreat=1,
        ),
    ],
}


def _rows(db_dict):
    return {row["id"]: row for row in build.iter_rows(db_dict)}


def test_build_applies_the_data_fixes():
    rows = _rows(build.build(SOURCE, built_at="2026-01-01T00:00:00Z"))
    assert rows["bw7-137"]["subtypes"] == ["Item", "ACE SPEC"]  # from data/ace-spec.csv
    assert rows["sv04-266"]["subtypes"] == ["Special"]  # Special Energy mistyped as basic
    assert rows["sve-002"]["subtypes"] == ["Basic"]
    assert rows["sv04-160"]["mark"] == "G"  # lower-case mark upper-cased
    assert rows["sv04-001"]["types"] == ["Grass"]


def test_build_ships_facts_not_text():
    db_dict = build.build(SOURCE, built_at="2026-01-01T00:00:00Z")
    blob = json.dumps(db_dict)
    assert "provides" not in blob and "Tackle" not in blob
    assert db_dict["fields"] == list(dbfile.FIELDS)
    assert db_dict["meta"]["sources"] == {"tcgdex": "abc123", "pokemon-tcg-data": "def456"}
    assert db_dict["meta"]["built_at"] == "2026-01-01T00:00:00Z"


def test_build_records_the_newest_set_with_cards():
    """The database knows its own age: the newest set it has cards of, with the release date."""
    db_dict = build.build(SOURCE, built_at="2026-01-01T00:00:00Z")
    newest = max(
        (s for s in SOURCE["sets"] if any(c["set_id"] == s["id"] for c in SOURCE["cards"])),
        key=lambda s: s["releaseDate"],
    )
    assert db_dict["meta"]["newest_set"] == {
        "id": newest["id"],
        "name": newest["name"],
        "code": newest["ptcgl_code"],
        "release": newest["releaseDate"],
    }
    # an announced set without cards is not the newest; loading the file picks the same set
    source = {
        **SOURCE,
        "sets": SOURCE["sets"]
        + [{"id": "me09", "name": "Later", "ptcgl_code": "LTR", "releaseDate": "2030-01-01", "series_id": "me"}],
    }
    later = build.build(source, built_at="2026-01-01T00:00:00Z")
    assert later["meta"]["newest_set"] == db_dict["meta"]["newest_set"]
    loaded = cards.from_dict(later, "test")
    assert cards.newest_set_info(loaded.newest_set()) == later["meta"]["newest_set"]
    assert loaded.knows_set("LTR")  # a known code, though no card of it is in the database yet


def test_build_is_deterministic(tmp_path):
    a, b = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    write.write_database(build.build(SOURCE, built_at="2026-01-01T00:00:00Z"), a)
    write.write_database(build.build(SOURCE, built_at="2026-01-01T00:00:00Z"), b)
    assert a.read_bytes() == b.read_bytes()
    loaded = cards.load(a)
    assert loaded.get("sv04-266").subtypes == ("Special",)


def test_reworded_trainers_share_a_fingerprint():
    old = _card(
        "sm4-91",
        "Counter Catcher",
        "Trainer",
        ["Item"],
        effect="You can play this card only if you have more Prize cards remaining than your opponent.\n\n"
        "Switch 1 of your opponent’s Benched Pokémon with their Active Pokémon.",
    )
    new = _card(
        "sv04-160",
        "Counter Catcher",
        "Trainer",
        ["Item"],
        effect="You can use this card only if you have more Prize cards remaining than your opponent.\n\n"
        "Switch in 1 of your opponent's Benched Pokémon to the Active Spot.",
    )
    rewordings = [
        (build.normalise_text(r["old"]), build.normalise_text(r["new"])) for r in build.read_table("rewordings.csv")
    ]
    assert build.fingerprint(old, ["Item"], rewordings) == build.fingerprint(new, ["Item"], rewordings)
    assert build.fingerprint(old, ["Item"], rewordings) != build.fingerprint(old, ["Item", "ACE SPEC"], rewordings)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"cards": []}, "source must be an object with 'sets' and 'cards'"),
        (
            {**SOURCE, "cards": [c for c in SOURCE["cards"] if c["id"] != "bw7-139"]},
            r"ace-spec.csv rows match no card: \['Crystal Wall'\]",
        ),
        (
            {**SOURCE, "cards": SOURCE["cards"] + [{"id": "x-1", "supertype": "Trainer"}]},
            "card record without id or name",
        ),
    ],
)
def test_broken_source_fails_loudly(source, message):
    with pytest.raises(build.BuildError, match=message):
        build.build(source)


def test_db_build_command(tmp_path):
    src = tmp_path / "src.json.gz"
    with gzip.open(src, "wt", encoding="utf-8") as fh:
        json.dump(SOURCE, fh)
    out = tmp_path / "out" / "cards.json.gz"
    result = CliRunner().invoke(cli, ["db", "build", "--from", str(src), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {out}: 8 cards in 3 sets.\n"
    assert len(cards.load(out).cards) == 8


def test_db_build_command_broken_source(tmp_path):
    src = tmp_path / "broken.json"
    src.write_text("{not json")
    result = CliRunner().invoke(cli, ["db", "build", "--from", str(src), "--output", str(tmp_path / "o.gz")])
    assert result.exit_code == 3
    assert "cannot read card source" in result.output
    assert not (tmp_path / "o.gz").exists()


def test_set_image_path():
    assert build.set_image_path({"id": "sv01", "series_id": "sv"}) == "en/sv/sv01"
    assert build.set_image_path({"id": "sv01", "series_id": "sv", "image": "img/en/sv/sv01"}) == "img/en/sv/sv01"
    assert build.set_image_path({"id": "sv01", "series_id": "sv", "image": None}) is None  # a sync found none
    assert build.set_image_path({"id": "x1"}) is None


def test_a_data_table_that_cannot_be_read(tmp_path):
    """The core's reader (deckcheck/cards/files.py) raises its own error; the builder's says the build failed,
    with the same words, so `db build` reports it (exit 3) instead of a traceback."""
    with pytest.raises(dbfile.TableError, match=r"^cannot read data table .*rewordings\.csv: No such file"):
        dbfile.read_table("rewordings.csv", tmp_path)
    with pytest.raises(build.BuildError, match=r"^cannot read data table .*rewordings\.csv: No such file"):
        build.build(SOURCE, tmp_path)
    assert dbfile.read_table("set-aliases.csv") == build.read_table("set-aliases.csv") != []
