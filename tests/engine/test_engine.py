"""The engine: whole-deck verdicts as golden files, the report's shape, and bad input as data.

Goldens are ``tests/decks/rules/<deck>.<format>.<date>.json``: ``Report.to_dict()`` without
the volatile ``database`` block. Regenerate with ``DECKCHECK_REGEN=1 python -m pytest
tests/engine/test_engine.py`` and review the diff by hand before committing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

import deckcheck
from deckcheck import engine
from deckcheck.decklist.parse import parse
from deckcheck.engine.memos import LINE_MEMO_DATES, held, line_tables
from deckcheck.formats import FormatError

DECKS = Path(__file__).resolve().parent.parent / "decks"
RULES = DECKS / "rules"
REGEN = os.environ.get("DECKCHECK_REGEN") == "1"

#: (deck file stem, format, date): the example lists of reference 2.6 and our own fixtures
GOLDEN = [
    ("ptcgl-en-charizard", "standard", "2026-03-01"),
    ("ptcgl-en-charizard", "standard", "2026-05-01"),
    ("ptcgl-en-charizard", "expanded", "2026-05-01"),
    ("ptcgl-fr-random-line", "standard", "2026-03-01"),
    ("ptcgl-fr-random-line", "standard", "2026-05-01"),
    ("limitless-energy-set-code", "standard", "2026-03-01"),
    ("limitless-energy-set-code", "standard", "2026-05-01"),
    ("ptcgo-legacy", "expanded", "2026-05-01"),
    ("ptcgo-legacy", "unlimited", "2026-05-01"),
    ("standard-legal-dragapult", "standard", "2026-05-01"),
    ("standard-legal-dragapult", "standard-ptcgl", "2026-03-01"),
    ("glc-lightning", "glc", "2026-05-01"),
    ("glc-broken", "glc", "2026-05-01"),
    ("expanded-zoroark", "expanded", "2026-05-01"),
    # names in French and German (TCGdex's names of each printing), with and without set codes
    ("fr-names", "standard", "2026-05-01"),
    ("de-names", "standard", "2026-05-01"),
]


def _deck_path(stem: str) -> Path:
    own = RULES / f"{stem}.txt"
    return own if own.exists() else DECKS / f"{stem}.txt"


def _report_dict(stem: str, fmt: str, on: str) -> dict:
    got = deckcheck.check(_deck_path(stem).read_text(encoding="utf-8"), fmt, on).to_dict()
    got.pop("database")
    return got


@pytest.mark.parametrize(("stem", "fmt", "on"), GOLDEN, ids=[".".join(case) for case in GOLDEN])
def test_golden(stem, fmt, on):
    got = _report_dict(stem, fmt, on)
    golden = RULES / f"{stem}.{fmt}.{on}.json"
    if REGEN:
        golden.write_text(json.dumps(got, ensure_ascii=False, indent=2) + "\n", encoding="utf-8", newline="\n")
    assert golden.exists(), (
        f"no golden for {golden.name}: run DECKCHECK_REGEN=1 python -m pytest tests/engine/test_engine.py"
    )
    assert got == json.loads(golden.read_text(encoding="utf-8"))


def _verdict(report) -> tuple:
    """What must not depend on the spelling: validity, counts, problems, and each line's card
    (for basic Energy its name: Limitless's "Energy" pseudo set picks the newest printing)."""
    cards = [(ln.count, ln.card.key if ln.card.is_basic_energy else ln.card.id, ln.legal) for ln in report.lines]
    return (
        report.valid,
        report.counts.to_dict(),
        [(p.rule, p.cards, p.message.split(" (line")[0]) for p in report.problems],
        cards,
    )


@pytest.mark.parametrize("on", ["2026-05-01", "2026-03-01"])
def test_ptcgl_limitless_and_ptcgo_spellings_agree(on):
    ptcgl, limitless, ptcgo = (
        deckcheck.check(_deck_path(stem).read_text(encoding="utf-8"), "standard", on)
        for stem in ("standard-legal-dragapult", "dragapult-limitless", "dragapult-ptcgo")
    )
    assert _verdict(ptcgl) == _verdict(limitless) == _verdict(ptcgo)
    assert ptcgl.valid is (on == "2026-05-01")


# -- the report ------------------------------------------------------------------------

TEXT = "4 Dreepy TWM 128\n4 Drakloak TWM 129\n2 Dragapult ex TWM 130\n50 Basic {P} Energy SVE 5\n"


def test_report_shape():
    report = deckcheck.check(TEXT, "standard", "2026-05-01")
    out = report.to_dict()
    assert list(out) == [
        "valid",
        "format",
        "format_name",
        "as_of",
        "summary",
        "problems",
        "groups",
        "cards",
        "counts",
        "basic_pokemon",
        "database",
    ]
    assert (out["valid"], out["format"], out["as_of"], out["basic_pokemon"]) == (True, "standard", "2026-05-01", 4)
    assert out["counts"] == {"pokemon": 10, "trainer": 0, "energy": 50, "unknown": 0, "total": 60}
    assert out["summary"] == "Valid for Standard on 2026-05-01: 60 cards."
    assert out["cards"][0] == {
        "line": 1,
        "count": 4,
        "text": "4 Dreepy TWM 128",
        "name": "Dreepy",
        "name_as_written": "Dreepy",
        "language": None,
        "set": "TWM",
        "number": "128",
        "resolution": "printing",
        "suggestions": [],
        "legal": True,
        "legal_via": None,
        "banned": False,
        "card": {
            "id": "sv06-128",
            "name": "Dreepy",
            "supertype": "Pokémon",
            "subtypes": ["Basic"],
            "set": "TWM",
            "set_id": "sv06",
            "number": "128",
            "regulation_mark": "H",
            "types": ["Dragon"],
            "evolves_from": None,
            "rarity": "Common",
        },
    }
    assert set(out["database"]) == {"version", "built_at", "sources", "cards", "sets", "newest_set"}
    assert out["database"]["newest_set"] == {
        "id": "me05",
        "name": "Pitch Black",
        "code": "PBL",
        "release": "2026-07-17",
    }
    json.dumps(out)  # the API and the CLI serialise exactly this


def test_problems_are_ordered_errors_first_then_by_line():
    report = deckcheck.check("1 Dragapult ex TWM 130\n5 Ultra Ball MEG 131\nTotal Cards: 7\n", "standard", "2026-05-01")
    assert [(p.severity, p.rule) for p in report.problems] == [
        ("error", "deck-size"),
        ("error", "no-basic-pokemon"),
        ("error", "copy-limit"),
        ("warning", "evolution-gap"),
        ("warning", "total-mismatch"),
    ]
    assert report.summary == "Not valid for Standard on 2026-05-01: 6 cards, 3 errors, 2 warnings."


def test_every_rule_runs():
    # one list that breaks every Standard rule it can at once (a Radiant is a Basic Pokémon, so
    # no-basic-pokemon is left out; Standard bans nothing): nothing short-circuits
    text = (
        "5 Ultra Ball MEG 131\n2 Radiant Greninja ASR 46\n1 Prime Catcher TEF 157\n1 Master Ball TEF 153\n"
        "2 Lunala ◇ UPR 62\n1 Dragapult ex TWM 130\n1 Nest Bal\nhello there\n1 Switch\nTotal Cards: 3\n"
    )
    report = deckcheck.check(text, "standard", "2026-05-01")
    assert sorted({p.rule for p in report.problems}) == [
        "ace-spec-limit",
        "copy-limit",
        "deck-size",
        "evolution-gap",
        "not-in-format",
        "prism-star-limit",
        "radiant-limit",
        "resolved-by-name",
        "total-mismatch",
        "unknown-card",
        "unparsed-line",
    ]
    expanded = deckcheck.check(text + "1 Red Card GEN 71\n", "expanded", "2026-05-01")
    assert "banned" in {p.rule for p in expanded.problems}


@pytest.mark.parametrize(
    "text",
    ["", "   \n\n", "hello", "Pokémon: 3\n", "{", "\x00\x01\x02", "9" * 5000, "99999999 Nest Ball SVI 181", "4 ◇ ◇ ◇"],
    ids=["empty", "blank", "word", "header", "json", "binary", "digits", "huge-count", "symbols"],
)
def test_a_bad_deck_is_data(text):
    report = deckcheck.check(text, "standard", "2026-05-01")
    assert report.valid is False
    assert report.to_dict()["problems"]


def test_accepts_a_parse_result():
    parsed = parse(TEXT)
    assert (
        deckcheck.check(parsed, "standard", "2026-05-01").to_dict()
        == deckcheck.check(TEXT, "standard", "2026-05-01").to_dict()
    )


@pytest.mark.parametrize("path", sorted(DECKS.glob("*.txt")) + sorted(RULES.glob("*.txt")), ids=lambda p: p.stem)
@pytest.mark.parametrize("on", ["2026-05-01", "2020-01-01"], ids=["in-range", "before-range"])
def test_a_text_and_its_parse_result_give_one_report(path, on):
    """check() reads a text into card rows, never CardLines; a parse result's lines give the same report."""
    text = path.read_text(encoding="utf-8")
    assert deckcheck.check(parse(text), "standard", on).to_dict() == deckcheck.check(text, "standard", on).to_dict()


@pytest.mark.parametrize("as_of", ["2026-05-01", dt.date(2026, 5, 1), dt.datetime(2026, 5, 1, 23, 59)])
def test_as_of_forms(as_of):
    assert deckcheck.check(TEXT, "standard", as_of).as_of == "2026-05-01"


def test_as_of_defaults_to_today(monkeypatch):
    monkeypatch.setattr(engine, "_today", lambda: dt.date(2026, 5, 1))
    assert deckcheck.check(TEXT).as_of == "2026-05-01"
    assert deckcheck.check(TEXT).format == "standard"


def test_malformed_date_and_unknown_format_raise():
    with pytest.raises(ValueError):
        deckcheck.check(TEXT, "standard", "May 1st")
    with pytest.raises(FormatError):
        deckcheck.check(TEXT, "pauper", "2026-05-01")


def test_legality_is_memoised_per_date():
    text = "4 Iono PAL 185\n4 Dreepy TWM 128\n52 Basic {P} Energy SVE 5\n"
    # the same printing, checked on both sides of the rotation in turn, keeps its own answer per date
    for _ in range(2):
        assert deckcheck.check(text, "standard", "2026-04-09").valid
        assert not deckcheck.check(text, "standard", "2026-04-10").valid


def test_resolved_lines_have_every_field_as_the_constructor_sets_it() -> None:
    """The engine makes a ResolvedLine without its constructor: what it makes equals the constructor's."""
    from deckcheck import cards

    db = cards.get_db()
    fmt = engine.get_format("standard")
    on = dt.date(2026, 5, 1)
    text = "Pokémon: 2\n4 Dreepy TWM 128\n1 Pikachu\n2 Nosuchcard XYZ 1\n3 Basic {R} Energy SVE 2"
    for lines in (engine.resolve_lines(parse(text), db), engine.resolve_lines(parse(text), db, fmt, on)):
        for ln in lines:
            values = {name: getattr(ln, name) for name in engine.ResolvedLine.FIELDS}
            made = engine.ResolvedLine(**values)
            assert made == ln and repr(made) == repr(ln) and made.to_dict() == ln.to_dict()
            assert made != engine.ResolvedLine(**(values | {"line": ln.line + 1}))


# -- the line memo (engine.LineFacts) ----------------------------------------


def _line_json(ln) -> bytes:
    import orjson

    return orjson.dumps(ln.json_fragment())


@pytest.mark.parametrize(
    ("stem", "fmt", "on"),
    [*GOLDEN, ("ptcgl-en-charizard", "standard", "2020-01-01")],
    ids=[".".join(case) for case in GOLDEN] + ["before-range"],
)
def test_a_lines_json_is_its_to_dict_encoded_before_and_after_the_memo_holds_it(stem, fmt, on):
    import orjson

    from deckcheck.cards import Card

    text = _deck_path(stem).read_text(encoding="utf-8")
    for _ in range(2):  # the first check may fill the memo, the second reads it
        report = deckcheck.check(text, fmt, on)
        assert report.lines
        for ln in report.lines:
            assert _line_json(ln) == orjson.dumps(ln.to_dict(Card.json_fragment))
            assert json.loads(_line_json(ln)) == ln.to_dict()


def test_decks_share_a_lines_facts_but_not_its_line_number():
    first = deckcheck.check("4 Iono PAL 185\n56 Basic {P} Energy SVE 5\n", "standard", "2026-05-01")
    second = deckcheck.check("Trainer: 4\n\n4 Iono PAL 185\n", "standard", "2026-05-01")
    a, b = first.lines[0], second.lines[0]
    assert (a.line, b.line) == (1, 3)
    assert a.facts is b.facts
    assert json.loads(_line_json(a))["line"] == 1 and json.loads(_line_json(b))["line"] == 3
    assert a.facts.json_tail is not None  # encoded once, for both
    assert json.loads(_line_json(a)) | {"line": 3} == json.loads(_line_json(b))


def test_a_lines_facts_are_per_format_and_date():
    line = "4 Iono PAL 185"  # regulation mark G: legal until the 2026-04-10 rotation
    for _ in range(2):  # each answer comes back the same once the memos hold both dates
        before = deckcheck.check(line, "standard", "2026-04-09").lines[0]
        after = deckcheck.check(line, "standard", "2026-04-10").lines[0]
        expanded = deckcheck.check(line, "expanded", "2026-04-10").lines[0]
        assert (before.legal, after.legal, expanded.legal) == (True, False, True)
        assert len({id(before.facts), id(after.facts), id(expanded.facts)}) == 3
        assert [json.loads(_line_json(ln))["legal"] for ln in (before, after, expanded)] == [True, False, True]


def test_rows_with_one_text_but_other_fields_get_their_own_facts():
    """A JSON deck's line text is its entry written out: never trust it alone as the key."""
    from deckcheck import cards

    db, fmt, on = cards.get_db(), engine.get_format("standard"), dt.date(2026, 5, 1)

    def row(name, set_code, number, count=4):
        return (
            1,
            None,
            {
                "line": 0,
                "raw": "same text",
                "count": count,
                "name": name,
                "set_code": set_code,
                "number": number,
                "section": None,
                "tag": None,
            },
        )

    iono = engine.resolve_rows([row("Iono", "PAL", "185")], db, fmt, on)[0]
    dreepy = engine.resolve_rows([row("Dreepy", "TWM", "128")], db, fmt, on)[0]
    three = engine.resolve_rows([row("Dreepy", "TWM", "128", count=3)], db, fmt, on)[0]
    assert (iono.card.name, dreepy.card.name, three.card.name) == ("Iono", "Dreepy", "Dreepy")
    by_name = [engine.resolve_rows([row(name, None, None)], db, fmt, on)[0] for name in ("Iono", "Dreepy", "Iono")]
    assert [ln.card.name for ln in by_name] == ["Iono", "Dreepy", "Iono"]
    by_code = [engine.resolve_rows([row("Dreepy", code, "128")], db, fmt, on)[0] for code in ("TWM", None)]
    assert [ln.set_code for ln in by_code] == ["TWM", None]
    assert [json.loads(_line_json(ln))["set"] for ln in by_code] == ["TWM", None]
    by_number = [engine.resolve_rows([row("Dreepy", "TWM", number)], db, fmt, on)[0] for number in ("128", "999")]
    assert [json.loads(_line_json(ln))["number"] for ln in by_number] == ["128", "999"]
    assert [json.loads(_line_json(ln))["count"] for ln in (iono, dreepy, three)] == [4, 4, 3]
    assert json.loads(_line_json(dreepy))["card"]["name"] == "Dreepy"


@pytest.mark.parametrize("with_format", [True, False], ids=["format", "no-format"])
def test_the_line_memo_is_bounded(monkeypatch, with_format):
    from deckcheck import cards

    db, fmt, on = cards.get_db(), engine.get_format("standard"), dt.date(2026, 5, 1)
    memo = line_tables(db, fmt, on).lines if with_format else line_tables(db, None, None).lines
    assert memo.size == engine.LINE_MEMO_SIZE
    monkeypatch.setattr(memo, "size", 3)
    text = "\n".join(f"{n} Basic {{P}} Energy SVE 5" for n in range(1, 9))
    for _ in range(2):
        lines = engine.resolve_lines(parse(text), db, *((fmt, on) if with_format else ()))
        assert [ln.count for ln in lines] == list(range(1, 9))
        assert {ln.card.name for ln in lines} == {"Psychic Energy"}
        assert 0 < len(memo) <= 3


def test_a_long_line_is_not_kept_in_the_memo():
    from deckcheck import cards
    from deckcheck.names import MEMO_MAX_LEN

    db, fmt, on = cards.get_db(), engine.get_format("standard"), dt.date(2026, 5, 1)
    memo = line_tables(db, fmt, on).lines
    long_line = "4 Iono" + " " * MEMO_MAX_LEN + "PAL 185"
    report = deckcheck.check(long_line, fmt, on)
    assert report.lines[0].card.name == "Iono" and report.lines[0].facts is not None
    assert long_line not in memo
    short = deckcheck.check("4 Iono PAL 185", fmt, on)
    assert memo["4 Iono PAL 185"] is short.lines[0].facts


def test_a_format_keeps_line_memos_for_few_dates():
    from deckcheck import cards

    db, fmt = cards.get_db(), engine.get_format("standard")
    dates = [dt.date(2026, 4, day) for day in range(5, 12)]  # across the 2026-04-10 rotation
    memos = [line_tables(db, fmt, on).lines for on in dates]
    assert len(held(fmt)) <= LINE_MEMO_DATES and line_tables(db, fmt, dates[-1]).lines is memos[-1]
    for on in dates:
        assert deckcheck.check("4 Iono PAL 185", fmt, on).lines[0].legal is (on < dt.date(2026, 4, 10))


def test_a_printing_is_indexed_by_its_own_databases_card_in_another_database_of_the_same_version():
    """Two databases of one version (a test's, or one file read with other tables) share a format's
    line memo per line text, as they always did; a line of another text naming the same printing is
    indexed by the card of the database it is checked with, never by the other one's (the format's
    table per printing is per card, not per card id)."""
    import gzip

    from deckcheck import cards

    raw = json.loads(gzip.decompress(cards.default_path().read_bytes()))
    # the rows of one set (none of the printings released later than their set)
    raw = {key: value for key, value in raw.items() if key not in ("index", "printing_releases")}
    raw["cards"] = [row for row in raw["cards"] if row[0].startswith("sv01-")]
    version = "same-version-two-databases"
    plain = cards.from_dict(raw, version)
    raw["cards"] = [
        row[:3] + [[*row[3], "ACE SPEC"]] + row[4:] if row[0] == "sv01-181" else row for row in raw["cards"]
    ]
    ace = cards.from_dict(raw, version)
    first = deckcheck.check("4 Nest Ball SVI 181", "standard", "2026-05-01", db=plain)
    assert first.lines[0].card.subtypes == ("Item",)
    report = deckcheck.check("* 2 Nest Ball SVI 181\n1 Nest Ball SVI 181", "standard", "2026-05-01", db=ace)
    assert [ln.card.subtypes for ln in report.lines] == [("Item", "ACE SPEC")] * 2
    assert [(p.rule, p.lines) for p in report.problems if p.rule == "ace-spec-limit"] == [("ace-spec-limit", (1, 2))]


def test_summary_of_one_card_says_card():
    report = deckcheck.check("1 Ultra Ball MEG 131", "standard", "2026-05-01")
    assert report.summary == "Not valid for Standard on 2026-05-01: 1 card, 2 errors."


def test_the_engine_holds_its_own_line_memos_beside_the_format_and_database_they_were_made_for():
    from deckcheck import cards
    from deckcheck.cards.dbmemos import DBMemos
    from deckcheck.formats.memos import FormatMemos

    db, fmt, on = cards.get_db(), engine.get_format("standard"), dt.date(2026, 5, 1)
    report = deckcheck.check("4 Iono PAL 185", fmt, on)
    # one home: the engine's memos, not the format's or the database's
    assert "lines" not in FormatMemos.__slots__ and "lines" not in DBMemos.__slots__
    assert held(fmt)[(db.identity, on)].lines["4 Iono PAL 185"] is report.lines[0].facts
    # a format made anew (as the forecast makes one) starts with tables of its own
    future = fmt.replace(id=fmt.id)
    assert future == fmt and future is not fmt and len(held(future)) == 0
    assert line_tables(db, future, on) is not line_tables(db, fmt, on)


def test_forget_lines_empties_the_line_memos_and_the_printing_tables_unless_asked_not_to():
    from deckcheck import cards
    from deckcheck.engine.memos import forget_lines

    db, fmt, on = cards.get_db(), engine.get_format("standard"), dt.date(2026, 5, 1)
    deckcheck.check("4 Iono PAL 185", fmt, on)
    tables = line_tables(db, fmt, on)
    assert len(tables.lines) > 0 and len(tables.printings) > 0
    forget_lines(printings=False)
    assert len(tables.lines) == 0 and len(tables.printings) > 0
    deckcheck.check("4 Iono PAL 185", fmt, on)
    forget_lines()
    assert len(tables.lines) == 0 and len(tables.printings) == 0


def test_a_format_keeps_memos_for_a_bounded_number_of_dates():
    """Every date a check asks about fills a legality memo and line tables (up to one entry per printing): a
    format keeps them for at most LEGALITY_MEMO_DATES dates, the engine as many (a full memo is emptied before
    the next date goes in), so a worker asked about many dates stays within the bound README states."""
    from deckcheck.engine.memos import LINE_MEMO_DATES
    from deckcheck.formats.memos import LEGALITY_MEMO_DATES, memos_of

    fmt = engine.get_format("expanded").replace(id="expanded")  # memos of its own
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=40 * k) for k in range(LEGALITY_MEMO_DATES + 3)]
    for day in days:
        deckcheck.check("4 Iono PAL 185", fmt, day)
    kept = [day for (_db, day) in memos_of(fmt).legality.entries]
    assert LINE_MEMO_DATES == LEGALITY_MEMO_DATES <= 4
    assert 1 <= len(kept) <= LEGALITY_MEMO_DATES and kept[-1] == days[-1]
    tables = [day for (_db, day) in held(fmt).entries]
    assert 1 <= len(tables) <= LINE_MEMO_DATES and tables[-1] == days[-1]
