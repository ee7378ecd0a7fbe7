"""Card resolution against the shipped database: the ladder, aliases and suggestions."""

import gc
import gzip
import json

import orjson
import pytest

import deckcheck
from deckcheck import cards, engine
from deckcheck.cards import DatabaseError, number_key
from deckcheck.decklist.parse import CardLine, parse
from deckcheck.engine.memos import line_tables
from deckcheck.names import basic_energy_type


def line(name, set_code=None, number=None, count=1):
    return CardLine(line=1, raw="", count=count, name=name, set_code=set_code, number=number)


def resolve(db, ln):
    """The resolution of a parsed card line (only its name, set code and number matter)."""
    return db.resolve_parts(ln.name, ln.set_code, ln.number)


@pytest.mark.parametrize(
    ("name", "set_code", "number", "method", "card_id"),
    [
        ("Ultra Ball", "SVI", "196", "printing", "sv01-196"),
        ("Nest Ball", "SVI", "181", "printing", "sv01-181"),
        ("Rotom V", "LOR", "58", "printing", "swsh11-058"),
        ("Xurkitree-GX", "PR-SM", "68", "printing", "smp-SM68"),
        ("Frosmoth", "SHF", "SV34", "printing", "swsh4.5sv-SV034"),
        ("Arceus {*}", "FLI", "96", "printing", "sm6-96"),
        # alias table: Limitless and PTCGL spellings
        ("Bibarel", "CRZ-GG", "25", "alias", "swsh12.5gg-GG25"),
        ("Frosmoth", "SHF", "107", "printing", "swsh4.5sv-SV034"),
        ("Fighting Energy", "TK-LYCANROC", "5", "alias", "tk-sm-l-5"),
        # basic Energy resolves by type whatever the set
        ("Basic {R} Energy", "SVE", "10", "printing", "sve-010"),
        ("Basic {R} Energy", "SVALT", "132", "basic-energy", "mee-002"),
        ("Basic {P} Energy", "Energy", "13", "basic-energy", "mee-005"),
        ("Lightning Energy", None, "4", "basic-energy", "mee-004"),
        # PTCGL-only ALT prints resolve by name
        ("Boss's Orders", "SWSHALT", "32", "name", "me02.5-183"),
        # name and set when the number is wrong
        ("Nest Ball", "SVI", "999", "name-and-set", "sv01-181"),
        # name only: the newest printing
        ("Telepathic {P} Energy", None, None, "name", "me03-088"),
    ],
)
def test_resolution_ladder(db, name, set_code, number, method, card_id):
    res = resolve(db, line(name, set_code, number))
    assert (res.method, res.card.id) == (method, card_id)


@pytest.mark.parametrize(
    ("name", "suggestions"),
    [
        ("Nest Bal", ("Nest Ball", "Net Ball", "Beast Ball")),
        ("Charzard ex", ("Charizard ex", "M Charizard-EX", "Charizard-GX")),
    ],
)
def test_unresolved_with_suggestions(db, name, suggestions):
    res = resolve(db, line(name))
    assert (res.card, res.method, res.suggestions) == (None, "unresolved", suggestions)


def test_gibberish_has_no_suggestions(db):
    res = resolve(db, line("zzqx vvvv"))
    assert (res.card, res.suggestions) == (None, ())


def test_card_facts(db):
    reversal = db.get("sv04-266")
    assert reversal.subtypes[0] == "Special" and not reversal.is_basic_energy
    assert db.get("bw7-137").is_ace_spec  # Computer Search BCR 137: BW ACE SPEC from data/ace-spec.csv
    assert not db.get("base1-71").is_ace_spec
    assert db.get("me01-131").mark == "I"
    assert db.get("sve-010").is_basic_energy


def test_card_to_dict_is_a_new_dict_every_time(db):
    """to_dict copies a view the card keeps; what a caller does with the copy never reaches it."""
    card = db.get("sv04-266")
    first = card.to_dict()
    assert first == {
        "id": "sv04-266",
        "name": card.name,
        "supertype": "Energy",
        "subtypes": list(card.subtypes),
        "set": card.set_code,
        "set_id": "sv04",
        "number": card.number,
        "regulation_mark": card.mark,
        "types": list(card.types),
        "evolves_from": None,
        "rarity": card.rarity,
    }
    first["name"] = "changed"
    first["subtypes"].append("changed")
    second = card.to_dict()
    assert second["name"] == card.name and second["subtypes"] == list(card.subtypes)
    assert second is not first and second["subtypes"] is not card.to_dict()["subtypes"]
    rebuilt = cards.Card(*(getattr(card, name) for name in cards.Card.__match_args__))
    assert rebuilt == card and hash(rebuilt) == hash(card) and repr(rebuilt) == repr(card)


@pytest.mark.slow
def test_ace_spec_flags_cover_both_eras(db):
    names = {c.name for c in db.cards.values() if c.is_ace_spec}
    assert {
        "Computer Search",
        "Dowsing Machine",
        "Scramble Switch",
        "Gold Potion",
        "Prime Catcher",
        "Master Ball",
        "Grand Tree",
        "Precious Trolley",
    } <= names


def test_search(db):
    assert db.search("nest bal")[0].name == "Nest Ball"
    assert [c.id for c in db.search(set_code="SVI", number="181")] == ["sv01-181"]
    assert len(db.search("ball")) == 20


@pytest.mark.parametrize(("a", "b"), [("TG01", "TG1"), ("007", "7"), ("sv034", "SV34"), ("146a", "146A")])
def test_number_key(a, b):
    assert number_key(a) == number_key(b)


def test_database_info(db):
    info = db.info()
    assert info["cards"] == 21180 and info["sets"] == 203
    assert info["sources"]["tcgdex"].startswith("d9083b73")
    assert len(info["version"]) == 12


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "card database not found at"),
        (b"not gzip, not json", "is unreadable"),
        (b"\x1f\x8b\x08\x00corrupt gzip stream", "is unreadable"),
        (b'{"schema": 99, "fields": [], "sets": [], "cards": []}', "has an unknown layout"),
    ],
)
def test_broken_database_fails_loudly(tmp_path, content, message):
    path = tmp_path / "cards.json.gz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(DatabaseError, match=message):
        cards.load(path)


# --- memo, hot swap and loading ------------------------------------------------


def _raw_database():
    return json.loads(gzip.decompress(cards.default_path().read_bytes()))


def test_resolve_is_memoised_on_name_set_and_number(db):
    db.clear_memo()
    first = resolve(db, line("Nest Ball", "SVI", "181"))
    assert resolve(db, line("Nest Ball", "SVI", "181", count=4)) is first  # the count does not matter
    assert resolve(db, line("Nest Ball", "SVI", "999")).method == "name-and-set"
    assert resolve(db, line("Nest Ball", "svi", "181")) == first  # its own entry, the same answer
    unresolved = resolve(db, line("Nest Bal"))
    assert resolve(db, line("Nest Bal")) is unresolved and unresolved.suggestions


def test_resolve_memo_is_bounded(db, monkeypatch):
    memo = db.resolution_memo()
    assert memo.size == cards.RESOLVE_MEMO_SIZE
    monkeypatch.setattr(memo, "size", 5)
    db.clear_memo()
    for number in range(1, 30):
        resolve(db, line("Nest Ball", "SVI", str(number)))
        assert len(memo) <= 5
    long_name = "Nest Ball " * 30
    res = resolve(db, line(long_name))
    assert res.method == "unresolved" and (long_name, None, None) not in memo
    db.clear_memo()


@pytest.mark.slow
def test_a_swapped_in_database_never_answers_from_the_old_ones_memo(db):
    text = "4 Nest Ball SVI 181\n4 Iono PAL 185"
    assert [ln.card.id for ln in engine.resolve_lines(parse(text), db)] == ["sv01-181", "sv02-185"]
    raw = _raw_database()
    raw["cards"] = [row for row in raw["cards"] if row[0] != "sv01-181"]
    other = cards.from_dict(raw, "test-swap")
    assert len(other.resolution_memo()) == 0 and len(line_tables(other, None, None).lines) == 0
    try:
        cards.set_db(other)
        lines = deckcheck.check(text, "standard", "2026-05-01").lines
        assert lines[0].card.id != "sv01-181" and lines[0].method in ("name-and-set", "name")
        assert lines[1].card.id == "sv02-185"
    finally:
        cards.set_db(db)
    assert [ln.card.id for ln in engine.resolve_lines(parse(text), db)] == ["sv01-181", "sv02-185"]


def test_number_key_takes_any_length():
    assert number_key("TG" + "0" * 300 + "12") == number_key("TG12") == ("TG", 12, "")
    assert number_key(" 7 ") == number_key("007") == ("", 7, "")
    assert number_key("SV-X") == ("SV-X", -1, "")
    assert number_key(None) is None


@pytest.mark.slow
def test_indexes_are_ordered(db):
    """Printings of a name: newest set first, then collector number, then id; basic Energy: newest."""
    for printings in db._by_name.values():
        keys = [(-int(c.release.replace("-", "") or 0), number_key(c.number), c.id) for c in printings]
        assert keys == sorted(keys)
    assert db._names == list(db._by_name)
    for energy_type, card in db._basic_energy.items():
        same = [c for c in db.cards.values() if c.is_basic_energy and basic_energy_type(c.name) == energy_type]
        assert card == max(same, key=lambda c: (c.release, c.id))
    for (set_id, key), found in db._by_number.items():
        assert all(c.set_id == set_id and number_key(c.number) == key for c in found)
    assert sum(len(found) for found in db._by_number.values()) == len(db.cards)


@pytest.mark.slow
def test_loading_leaves_the_garbage_collector_as_it_was(tmp_path):
    assert gc.isenabled()
    cards.load()
    assert gc.isenabled()
    gc.disable()
    try:
        cards.load()
        assert not gc.isenabled()
    finally:
        gc.enable()
    broken = tmp_path / "cards.json.gz"
    broken.write_bytes(b"not gzip, not json")
    with pytest.raises(DatabaseError):
        cards.load(broken)
    assert gc.isenabled()


@pytest.mark.slow
@pytest.mark.parametrize("query", ["", "   ", "!!!", "'-'"])
def test_search_without_a_name_finds_nothing(db, query):
    assert db.search(query) == []
    assert {c.set_id for c in db.search(query, set_code="SVI")} == {"sv01"}


def test_json_fragment_is_to_dict_encoded_once(db):
    card = db.find("SVI", "181")  # Nest Ball
    fragment = card.json_fragment()
    written = orjson.dumps({"card": fragment})  # orjson writes a fragment as it is
    assert written == b'{"card":' + orjson.dumps(card.to_dict()) + b"}"
    assert json.loads(written)["card"] == card.to_dict()
    assert card.json_fragment() is fragment


@pytest.mark.parametrize(
    ("set_code", "number", "card_id"),
    [
        # older promo codes and the number prefixes their printings carry (data/set-aliases.csv)
        ("PR-HS", "1", "hgssp-HGSS01"),
        ("PR-HS", "HGSS01", "hgssp-HGSS01"),
        ("HSP", "25", "hgssp-HGSS25"),
        ("PR-DPP", "1", "dpp-DP01"),
        ("PR-DP", "56", "dpp-DP56"),
        ("DPP", "DP56", "dpp-DP56"),
        # pokemontcg.io set ids, which its deck JSON names cards by (sv3pt5-25)
        ("sv1", "196", "sv01-196"),
        ("sv3pt5", "25", "sv03.5-025"),
        ("me2pt5", "109", "me02.5-109"),
        ("zsv10pt5", "1", "sv10.5b-001"),
        ("rsv10pt5", "86", "sv10.5w-086"),
        ("swsh12pt5gg", "GG01", "swsh12.5gg-GG01"),
        ("swsh45sv", "SV001", "swsh4.5sv-SV001"),
        ("sm35", "45", "sm3.5-45"),
        ("me5", "1", "me05-001"),
        ("mep1", "1", "mep-001"),
    ],
)
def test_older_promo_codes_and_pokemontcg_io_set_ids_are_known(db, set_code, number, card_id):
    assert db.knows_set(set_code)
    assert db.find(set_code, number).id == card_id


@pytest.mark.parametrize(
    ("name", "set_code", "number", "card_id"),
    [
        ("Unit Energy GRW", "UPR", "137", "sm5-137"),
        ("Unit Energy LPM", None, None, "sm5-138"),
        ("Unit Energy FDY", "FLI", "118", "sm6-118"),
        ("Blend Energy GRPD", "DRX", "117", "bw6-117"),
        ("Blend Energy WLFM", None, None, "bw6-118"),
    ],
)
def test_ptcgo_unit_and_blend_energy_names_resolve_without_a_mismatch(db, name, set_code, number, card_id):
    """PTCGO exports ``* 4 Unit Energy GRW UPR 137``: the same card as TCGdex's ``Unit Energy GrassFireWater``."""
    res = resolve(db, line(name, set_code, number))
    assert (res.card.id, res.name_differs) == (card_id, False)


@pytest.mark.parametrize(
    ("name", "set_code", "number", "method", "card_id"),
    [
        # a wrong number in a set whose "Darkness Energy" is Special: that card, not the basic Energy
        ("Darkness Energy", "N1", "105", "name-and-set", "neo1-104"),
        ("Metal Energy", "N1", "20", "name-and-set", "neo1-19"),
        ("Darkness Energy", "EX", "999", "name-and-set", "ecard1-158"),
        # a set whose card of that name is basic: the basic Energy by type (a printing missed: "name");
        # no set: the basic Energy by type
        ("Darkness Energy", "SVE", "99", "name", "mee-007"),
        ("Darkness Energy", "BLW", "999", "name", "mee-007"),
        ("Darkness Energy", None, "7", "basic-energy", "mee-007"),
    ],
)
def test_a_special_energy_named_like_a_basic_type_is_found_in_its_set(db, name, set_code, number, method, card_id):
    res = resolve(db, line(name, set_code, number))
    assert (res.method, res.card.id) == (method, card_id)


def _one_set_database(**set_fields) -> bytes:
    from deckcheck.cards.files import FIELDS, SCHEMA_VERSION

    card = ["sv01-1", "Pineco", "Pokémon", ["Basic"], None, ["Grass"], "G", "sv01", "1", "Common", "0" * 16]
    record = {"id": "sv01", "name": "Scarlet & Violet", "code": "SVI", "release": "2023-03-31", **set_fields}
    doc = {"schema": SCHEMA_VERSION, "fields": list(FIELDS), "sets": [record], "cards": [card], "meta": {}}
    if "meta" in set_fields:
        doc["meta"] = record.pop("meta")
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"code": 5}, r"set 'sv01': code is not text \(5\)"),
        ({"name": None}, r"set 'sv01': name is not text \(None\)"),
        ({"release": "last spring"}, r"Invalid isoformat string: 'last spring'"),
        ({"aliases": "SV1"}, r"set 'sv01': aliases is not a list of text"),
        ({"official_count": -3}, r"set 'sv01': official_count is not a count \(-3\)"),
        ({"meta": ["not", "an", "object"]}, r"meta is not an object"),
    ],
)
def test_a_set_or_meta_of_the_wrong_kind_fails_the_load_saying_which(tmp_path, fields, message):
    """A database whose set fields or meta are of the wrong kind fails at load with a DatabaseError naming
    the set and the field (it was an AttributeError traceback, or a load that broke checks later)."""
    path = tmp_path / "cards.json"
    path.write_bytes(_one_set_database(**fields))
    with pytest.raises(DatabaseError, match=r"is malformed: ValueError\(.*" + message):
        cards.load(path)
    path.write_bytes(_one_set_database())
    assert cards.load(path).sets["sv01"].code == "SVI"  # the same file with the field right loads


@pytest.mark.parametrize("code", ["SVALT", "SWSHALT", "SMALT", "BWALT"])
def test_ptcgl_alt_codes_are_read_by_name_without_an_unknown_set(code):
    """PTCGL's ALT codes name no printed set: the line is read by name (an info note), never as a set
    newer than the database (a warning telling the user to update)."""
    report = deckcheck.check(f"4 Rare Candy {code} 1\n", "standard", "2024-06-01")
    assert [(p.rule, p.severity) for p in report.problems if p.rule in ("unknown-set", "resolved-by-name")] == [
        ("resolved-by-name", "info")
    ]
    assert report.lines[0].card.id == "sv04.5-089"
