"""The name-key audit over the whole card pool, and its reviewed tables (issue 13).

No two different printed names share a key unless ``data/name-merges.csv`` says they are
one name; every bracketed name part is reviewed in ``data/name-parts.csv``. ``db build``
runs the audit; these tests run it on the shipped database and on fake pools.
"""

from __future__ import annotations

import pytest

from deckcheck import cards
from deckcheck.names import name_key
from deckcheck.sync import build, nameaudit


def _source(*names):
    pokemon = [
        {
            "id": f"sv04-{i}",
            "name": name,
            "supertype": "Pokémon",
            "subtypes": ["Basic"],
            "set_id": "sv04",
            "number": str(i),
            "hp": 70,
            "types": ["Grass"],
            "regulationMark": "G",
            "attacks": [{"name": "Tackle", "cost": ["Colorless"], "damage": "10"}],
        }
        for i, name in enumerate(names, 1)
    ]
    return {
        "meta": {},
        "cards": pokemon,
        "sets": [
            {
                "id": "sv04",
                "name": "Paradox Rift",
                "series_id": "sv",
                "ptcgl_code": "PAR",
                "code_aliases": ["PAR"],
                "releaseDate": "2023-11-03",
                "official_count": 182,
            }
        ],
    }


@pytest.fixture(scope="module")
def pool():
    db = cards.get_db()
    return [(c.name, c.supertype) for c in db.cards.values()]


@pytest.fixture(scope="module")
def tables():
    return build.read_table("name-merges.csv"), build.read_table("name-parts.csv")


@pytest.mark.slow
def test_every_merge_in_the_shipped_pool_is_reviewed(pool, tables):
    assert nameaudit.audit(pool, *tables) == []


def test_every_reviewed_row_names_printed_names(pool, tables):
    """A row for a name the pool no longer has is stale: review it again."""
    merges, parts = tables
    printed = {name for name, _ in pool}
    assert [r for r in merges if r["name"] not in printed or r["same_as"] not in printed] == []
    assert [r for r in merges if name_key(r["name"]) != name_key(r["same_as"])] == []
    assert [r["name"] for r in parts if r["name"] not in printed] == []


def test_the_merges_the_review_kept(tables):
    merges, _ = tables
    joined = {(r["name"], r["same_as"]) for r in merges}
    assert ("Professor's Research (Professor Oak)", "Professor's Research") in joined
    assert ("Boss's Orders (Giovanni)", "Boss's Orders") in joined
    assert ("Nidoran♀ δ", "Nidoran♀") in joined
    assert ("Gengar LV.X", "Gengar") in joined
    assert not [
        r for r in merges if "♂" in r["name"] and "♀" in r["same_as"] or "♀" in r["name"] and "♂" in r["same_as"]
    ]


@pytest.mark.slow
def test_an_unreviewed_merge_fails_the_audit(pool, tables):
    """The check that guards the table: a name the key merges without a row is an error."""
    fake = [*pool, ("Nest-Ball", "Trainer")]  # a new printed spelling of Nest Ball
    problems = nameaudit.audit(fake, *tables)
    assert problems == [
        (
            "unreviewed merge: 'Nest Ball' and 'Nest-Ball' share the key 'nest ball' (add a row to "
            "data/name-merges.csv if they are one name, else fix the key)"
        )
    ]
    with pytest.raises(nameaudit.NameAuditError, match="Nest-Ball"):
        nameaudit.check(fake, *tables)


def test_a_merge_of_two_reviewed_groups_still_fails():
    """Rows join names; two names reviewed into different groups do not merge through the key."""
    merges = [
        {"name": "Gengar LV.X", "same_as": "Gengar", "reason": "level"},
        {"name": "Gengar δ", "same_as": "Gengar Prime", "reason": "made up"},
    ]
    cards_ = [("Gengar", "Pokémon"), ("Gengar LV.X", "Pokémon"), ("Gengar δ", "Pokémon")]
    problems = nameaudit.audit(cards_, merges, [])
    assert problems == [
        (
            "unreviewed merge: 'Gengar' and 'Gengar δ' share the key 'gengar' (add a row to data/name-merges.csv if "
            "they are one name, else fix the key)"
        ),
        (
            "unreviewed merge: 'Gengar LV.X' and 'Gengar δ' share the key 'gengar' (add a row to data/name-merges.csv "
            "if they are one name, else fix the key)"
        ),
    ]


def test_rows_need_reasons_and_decisions():
    problems = nameaudit.audit(
        [],
        [{"name": "A", "same_as": "B", "reason": " "}],
        [{"name": "C (D)", "part": "D", "decision": "maybe", "reason": "x"}],
    )
    assert problems == [
        "name-merges.csv: the row 'A' -> 'B' gives no reason",
        "name-parts.csv: the row for 'C (D)' needs a decision (part, dropped, translation) and a reason",
    ]


def test_a_bracketed_name_needs_its_row():
    assert nameaudit.audit([("Ancient Technical Machine [Fire]", "Trainer")], [], []) == [
        (
            "unreviewed name part: 'Ancient Technical Machine [Fire]' has a bracketed part and no row in "
            "data/name-parts.csv"
        )
    ]


def test_a_row_the_key_disagrees_with_fails():
    rows = [{"name": "PokéDex (HANDY909)", "part": "HANDY909", "decision": "dropped", "reason": "wrong on purpose"}]
    assert nameaudit.audit([("PokéDex (HANDY909)", "Trainer")], [], rows) == [
        "'PokéDex (HANDY909)': the key 'pokedex handy909' should be 'pokedex' (dropped)"
    ]


def test_a_trainer_whose_key_drops_its_delta_fails():
    assert nameaudit.audit([("Secret Plate δ", "Trainer")], [], []) == [
        "'Secret Plate δ' is not a Pokémon but its key 'secret plate' drops its δ"
    ]
    assert nameaudit.audit([("Mystery Plate δ", "Trainer"), ("Latias δ", "Pokémon")], [], []) == []


def test_db_build_fails_on_an_unreviewed_merge():
    """The audit runs inside the build (db build and db sync share build.build)."""
    with pytest.raises(build.BuildError, match=r"unreviewed merge: 'Pine co' and 'Pine-co' share the key 'pine co'"):
        build.build(_source("Pine-co", "Pine co"))
    assert len(build.build(_source("Pine-co", "Nidoran♀", "Nidoran♂", "Nidoran ♀"))["cards"]) == 4  # reviewed


def test_db_build_command_names_the_unreviewed_merge(tmp_path):
    import gzip
    import json

    from click.testing import CliRunner

    from deckcheck.cli import cli

    src = tmp_path / "src.json.gz"
    with gzip.open(src, "wt", encoding="utf-8") as fh:
        json.dump(_source("Porygon-Z", "Porygon Z"), fh)
    out = tmp_path / "cards.json.gz"
    result = CliRunner().invoke(cli, ["db", "build", "--from", str(src), "--output", str(out)])
    assert result.exit_code != 0
    assert "unreviewed merge: 'Porygon Z' and 'Porygon-Z' share the key 'porygon z'" in result.output
    assert not out.exists()
