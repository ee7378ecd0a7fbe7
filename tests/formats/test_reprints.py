"""The reprint rule's reviewed verdicts (data/reprint-groups.csv, deckcheck/sync/reprints.py) and
the legal-by-reprint note: exact verdicts, fingerprints and messages.

The build tests use a tiny hand-written source and their own copy of the data tables, so a
deliberately unreviewed split is checked without the shared card data.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import deckcheck
from deckcheck.cards import files as dbfile
from deckcheck.cli import cli
from deckcheck.sync import build

JAN = "2024-01-15"  # Escape Rope BST 125 and Ultra Ball SVI 196 legal; the older prints are not
PSYCHIC = "Basic {P} Energy SVE 5"


# -- the shipped verdicts ---------------------------------------------------------

FIVE = [
    "1 Ultra Ball ROS 93",
    "1 Ultra Ball FLF 99",
    "1 Ultra Ball SUM 135",
    "1 Escape Rope PRC 127",
    "1 Escape Rope BUS 114",
]


def test_older_staples_are_legal_through_their_reworded_reprint():
    text = "\n".join([*FIVE, "4 Lechonk SVI 155", f"51 {PSYCHIC}"]) + "\n"
    report = deckcheck.check(text, "standard", JAN)
    assert report.valid, [p.message for p in report.problems]
    notes = [(p.code, p.severity, p.lines, p.message) for p in report.problems if p.rule == "legal-by-reprint"]
    assert notes == [
        (
            "R204",
            "info",
            (1,),
            "Line 1: Ultra Ball (ROS 93) is legal as Ultra Ball (SVI 196); play it with that card's text.",
        ),
        (
            "R204",
            "info",
            (2,),
            "Line 2: Ultra Ball (FLF 99) is legal as Ultra Ball (SVI 196); play it with that card's text.",
        ),
        (
            "R204",
            "info",
            (3,),
            "Line 3: Ultra Ball (SUM 135) is legal as Ultra Ball (SVI 196); play it with that card's text.",
        ),
        (
            "R204",
            "info",
            (4,),
            "Line 4: Escape Rope (PRC 127) is legal as Escape Rope (BST 125); play it with that card's text.",
        ),
        (
            "R204",
            "info",
            (5,),
            "Line 5: Escape Rope (BUS 114) is legal as Escape Rope (BST 125); play it with that card's text.",
        ),
    ]
    assert [ln.legal_via.id for ln in report.lines[:5]] == ["sv01-196"] * 3 + ["swsh5-125"] * 2
    assert [p.rule for p in report.problems if p.severity != "info"] == []


def test_the_note_names_the_newest_legal_printing():
    report = deckcheck.check(f"4 Ultra Ball SVI 196\n4 Lechonk SVI 155\n52 {PSYCHIC}\n", "standard", "2026-05-01")
    assert [p.message for p in report.problems if p.rule == "legal-by-reprint"] == [
        "Line 1: Ultra Ball (SVI 196) is legal as Ultra Ball (ASC 213); play it with that card's text."
    ]


def test_unlimited_names_the_newest_wording_to_play():
    """Handbook 4.2.2: in Unlimited every printing is legal, played with the newest version's wording
    (the newest out on the date: Pitch Black's Energy Switch is not out on 2026-05-01)."""
    text = (
        "4 Switch BS 95\n4 Energy Switch GEN 61\n4 Potion SVI 188\n4 Rainbow Energy TR 17\n4 Pikachu BS 58\n40 "
        "Water Energy BS 102\n"
    )
    report = deckcheck.check(text, "unlimited", "2026-05-01")
    assert [(p.code, p.severity, p.message) for p in report.problems] == [
        (
            "R204",
            "info",
            "Line 1: Switch (BS 95) is legal; play it with the text of its newest printing, Switch (PFL 123).",
        ),
        (
            "R204",
            "info",
            "Line 2: Energy Switch (GEN 61) is legal; play it with the text of its newest printing, "
            "Energy Switch (MEG 115).",
        ),
        (
            "R204",
            "info",
            "Line 3: Potion (SVI 188) is legal; play it with the text of its newest printing, Potion (POR 83).",
        ),
        (
            "R204",
            "info",
            "Line 5: Pikachu (BS 58) is legal; play it with the text of its newest printing, Pikachu (RR 112).",
        ),
    ]


def test_a_printing_legal_in_its_own_right_gets_no_note():
    report = deckcheck.check(f"4 Ultra Ball SVI 196\n4 Lechonk SVI 155\n52 {PSYCHIC}\n", "standard", JAN)
    assert report.valid and not [p for p in report.problems if p.rule == "legal-by-reprint"]


def test_rainbow_energy_ces_and_tr_stay_apart(db):
    ces, tr = db.find("CES", "151"), db.find("TR", "17")
    assert (ces.id, tr.id) == ("sm7-151", "base5-17")
    assert ces.fingerprint != tr.fingerprint
    report = deckcheck.check(f"1 Rainbow Energy TR 17\n4 Zorua DEX 70\n55 {PSYCHIC}\n", "expanded", "2026-05-01")
    problem = next(p for p in report.problems if p.rule == "not-in-format")
    assert problem.message == (
        "Rainbow Energy (TR 17) (line 1) is not legal in Expanded on 2026-05-01: its set, "
        "Team Rocket, is not in the card pool and no functionally identical reprint is legal."
    )
    assert problem.hint == (
        "Rainbow Energy (CES 151) is legal, but its text differs from this printing's, so the "
        "reprint rule does not cover this one."
    )
    assert not [p for p in report.problems if p.rule == "legal-by-reprint"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("CES", "127"), ("TRR", "83")),
        (("SUM", "135"), ("MEG", "131")),
        (("ROS", "93"), ("ASC", "213")),
        (("BUS", "114"), ("BST", "125")),
        (("PRC", "127"), ("BST", "125")),
        (("BCR", "133"), ("SVI", "193")),
    ],
)
def test_reviewed_identical_printings_share_a_fingerprint(db, a, b):
    assert db.find(*a).fingerprint == db.find(*b).fingerprint


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("TR", "17"), ("HS", "104")),
        (("BS", "94"), ("SVI", "188")),
        (("UL", "82"), ("MEG", "125")),
        (("BS", "79"), ("B2", "108")),
    ],
)
def test_reviewed_verdicts_in_the_shipped_database(db, a, b):
    """TR Rainbow differs from HS; Base Set Potion heals 20, not 30; UL Rare Candy takes a Stage 1;
    Base Set Super Energy Removal is only reworded ("your own Pokémon")."""
    same = a == ("BS", "79")
    assert (db.find(*a).fingerprint == db.find(*b).fingerprint) is same


def test_every_row_names_real_printings_and_a_verdict():
    rows = build.read_table("reprint-groups.csv")
    assert len(rows) >= 290
    assert {r["verdict"] for r in rows} == {"identical", "different"}
    assert all(r["reason"].strip() and r["printing"] and r["other"] for r in rows)
    assert all(r["other"] == "*" or r["verdict"] == "identical" or r["other"] != r["printing"] for r in rows)


# -- the build's check, on a small source ---------------------------------------


def _source(*texts: tuple[str, str, str]) -> dict:
    """One set per printing (release years 2020, 2021, ...): (card id suffix, name, effect)."""
    sets = [
        {
            "id": f"s{i}",
            "name": f"Set {i}",
            "series_id": "sv",
            "ptcgl_code": f"S{i}",
            "releaseDate": f"{2020 + i}-01-01",
        }
        for i in range(len(texts))
    ]
    cards = [
        {
            "id": f"s{i}-{n}",
            "name": name,
            "supertype": "Trainer",
            "subtypes": ["Item"],
            "set_id": f"s{i}",
            "number": n,
            "effect": effect,
        }
        for i, (n, name, effect) in enumerate(texts)
    ]
    return {"sets": sets, "cards": cards}


SPLIT = _source(
    ("1", "Gadget", "Draw 2 cards."), ("1", "Gadget", "You draw 2 cards."), ("1", "Gadget", "Draw 3 cards.")
)
HEADER = "name,printing,verdict,other,reason\n"


def _tables(tmp_path, rows: str = ""):
    for table in dbfile.data_dir().glob("*.csv"):  # every reviewed table as shipped, but the verdicts
        (tmp_path / table.name).write_text(table.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "reprint-groups.csv").write_text(HEADER + rows, encoding="utf-8")
    return tmp_path


def _fps(db: dict) -> dict[str, str]:
    return {r["id"]: r["fingerprint"] for r in build.iter_rows(db)}


def test_the_build_fails_on_an_unreviewed_split(tmp_path):
    with pytest.raises(build.BuildError) as err:
        build.build(SPLIT, _tables(tmp_path))
    assert str(err.value) == (
        "reprint-groups.csv has no verdict for 3 same-name text splits: Gadget: S2 1 (s2-1) vs S1 1 (s1-1); "
        "Gadget: S2 1 (s2-1) vs S0 1 (s0-1); Gadget: S1 1 (s1-1) vs S0 1 (s0-1). Compare the texts (deckcheck db "
        "splits) and add a row saying whether they are functionally identical or different."
    )


def test_a_new_printing_with_new_wording_fails_a_reviewed_build(tmp_path):
    rows = "Gadget,s1-1,identical,s0-1,\"'You draw' vs 'Draw'\"\nGadget,s2-1,different,*,\"3 cards, not 2\"\n"
    build.build(SPLIT, _tables(tmp_path, rows))  # reviewed: builds
    newer = _source(
        *[(c["number"], c["name"], c["effect"]) for c in SPLIT["cards"]],
        ("1", "Gadget", "Draw two cards from your deck."),
    )
    with pytest.raises(build.BuildError) as err:
        build.build(newer, _tables(tmp_path, rows))
    assert str(err.value) == (
        "reprint-groups.csv has no verdict for 1 same-name text split: Gadget: S3 1 (s3-1) vs S0 1 (s0-1), S1 1 "
        "(s1-1). Compare the texts (deckcheck db splits) and add a row saying whether they are functionally "
        "identical or different."
    )


def test_identical_joins_the_groups_on_the_newest_printings_fingerprint(tmp_path):
    bare = _fps(build.build(SPLIT, _tables(tmp_path, "Gadget,s2-1,different,*,x\nGadget,s1-1,different,s0-1,x\n")))
    assert len(set(bare.values())) == 3
    joined = _fps(build.build(SPLIT, _tables(tmp_path, "Gadget,s0-1,identical,s1-1,x\nGadget,s2-1,different,*,x\n")))
    assert joined["s0-1"] == joined["s1-1"] == bare["s1-1"] != joined["s2-1"] == bare["s2-1"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            "Gadget,s1-1,same,s0-1,x\n",
            "reprint-groups.csv row 1 (Gadget: s1-1 / s0-1): verdict must be identical or different, not 'same'",
        ),
        ("Gadget,s1-1,identical,s0-1,\n", "reprint-groups.csv row 1 (Gadget: s1-1 / s0-1): a verdict needs a reason"),
        (
            "Gadget,s1-1,identical,*,x\n",
            "reprint-groups.csv row 1 (Gadget: s1-1 / *): other is * (every other group) "
            "only for the verdict different",
        ),
        ("Widget,s1-1,identical,s0-1,x\n", "reprint-groups.csv row 1 (Widget: s1-1 / s0-1): s1-1 is 'Gadget'"),
        (
            "Gadget,s1-1,identical,s0-1,x\nGadget,s2-1,different,*,x\nGadget,s1-1,different,s0-1,x\n",
            "reprint-groups.csv row 3 (Gadget: s1-1 / s0-1): marked different, but identical rows join the two groups",
        ),
    ],
    ids=["bad-verdict", "no-reason", "star-identical", "wrong-name", "contradiction"],
)
def test_malformed_rows_fail_loudly(tmp_path, rows, message):
    with pytest.raises(build.BuildError) as err:
        build.build(SPLIT, _tables(tmp_path, rows))
    assert str(err.value) == message


def test_a_row_for_printings_that_share_a_text_must_go(tmp_path):
    twins = _source(("1", "Gadget", "Draw 2 cards."), ("1", "Gadget", "Draw 2 cards."))
    with pytest.raises(build.BuildError) as err:
        build.build(twins, _tables(tmp_path, "Gadget,s1-1,identical,s0-1,x\n"))
    assert str(err.value) == (
        "reprint-groups.csv row 1 (Gadget: s1-1 / s0-1): s1-1 is in no split (its text matches "
        "every other printing's, or it has none); remove the row"
    )


def test_rows_about_printings_the_source_lacks_are_skipped(tmp_path):
    build.build(_source(("1", "Gadget", "Draw 2 cards.")), _tables(tmp_path, "Gadget,s1-1,identical,s0-1,x\n"))


def test_db_splits_lists_every_split_with_its_texts(tmp_path):
    source = tmp_path / "source.json"
    source.write_text(__import__("json").dumps(SPLIT), encoding="utf-8")
    env = {"DECKCHECK_DATA_DIR": str(_tables(tmp_path, "Gadget,s1-1,identical,s0-1,\"'You draw' vs 'Draw'\"\n"))}
    result = CliRunner().invoke(cli, ["db", "splits", "--from", str(source)], env=env)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "Gadget (Trainer): 3 texts, 2 different cards, 1 pairs UNDECIDED",
        "  [1] S2 1 (s2-1): (Item) Draw 3 cards.",
        "  [2] S1 1 (s1-1): (Item) You draw 2 cards.",
        "  [2] S0 1 (s0-1): (Item) Draw 2 cards.",
        "1 splits, 1 with undecided pairs.",
    ]


# -- db sync builds the same way ---------------------------------------------------

from test_sync import api, paths, run_sync  # noqa: E402,F401  (fixtures: the recorded TCGdex API)


@pytest.mark.slow
def test_db_sync_refuses_a_catalogue_with_an_unreviewed_split(api, paths, tmp_path, monkeypatch):  # noqa: F811
    """The fixture catalogue has Rocky Helmet BCR 133 and its reworded reprint SVI 193; without
    their row the synced database is refused and the current one stays."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(dbfile.data_dir(), data)
    table = data / "reprint-groups.csv"
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [ln for ln in lines if not ln.startswith("Rocky Helmet,bw7-133,")]
    assert len(kept) == len(lines) - 1
    table.write_text("".join(kept), encoding="utf-8")
    monkeypatch.setenv("DECKCHECK_DATA_DIR", str(data))
    out, cache = paths
    result = run_sync(api, out, cache)
    assert result.status == "refused" and not out.exists()
    assert result.lines[-1] == (
        "  - the new database fails its own checks: reprint-groups.csv has no verdict for 1 same-name text split: "
        "Rocky Helmet: SVI 193 (sv01-193) vs BCR 133 (bw7-133). Compare the texts (deckcheck db splits) and add a "
        "row saying whether they are functionally identical or different."
    )
    monkeypatch.delenv("DECKCHECK_DATA_DIR")
    assert run_sync(api, out, cache).status == "written"
