"""Formats as data: every shipped format loads and cites its sources; broken files fail loudly."""

from __future__ import annotations

import datetime as dt
import re
import textwrap

import pytest
from conftest import SHIPPED_FORMATS

import deckcheck
from deckcheck.cards.files import data_dir
from deckcheck.cards.index import number_key
from deckcheck.formats import FormatError, default_formats, load_formats
from deckcheck.formats.legality import _set_legal_date
from deckcheck.names import name_key
from deckcheck.rules import REGISTRY


@pytest.fixture(scope="module")
def formats():
    return load_formats()


# -- the shipped formats --------------------------------------------------------------


def test_every_shipped_format_loads(formats):
    assert sorted(formats) == list(SHIPPED_FORMATS)
    assert default_formats() is default_formats()  # loaded once per process


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_shipped_format_cites_its_sources(formats, fid):
    fmt = formats[fid]
    assert fmt.name and fmt.description and fmt.sources
    assert set(fmt.rules) <= set(REGISTRY)
    assert all(r.source for r in fmt.pool.rotations)
    assert all(m.source for m in fmt.pool.mark_dates)
    assert all(b.source for b in fmt.bans)


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_shipped_pool_names_real_sets(formats, db, fid):
    pool = formats[fid].pool
    series = {s.series for s in db.sets.values()}
    assert pool.series <= series
    assert (pool.include_sets | pool.exclude_sets) <= set(db.sets)


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_every_allowed_printing_is_a_real_printing_of_a_closed_set(formats, db, fid):
    pool = formats[fid].pool
    assert pool.closed_sets <= pool.exclude_sets
    for allowed in pool.allowed:
        assert allowed.source and allowed.since
        for code, number in allowed.printings:
            found = [
                c
                for c in db.by_name(allowed.name)
                if allowed.covers(c, db) and number_key(c.number) == number_key(number) and c.set_code == code
            ]
            assert found and all(c.set_id in pool.closed_sets for c in found), f"{allowed.name} {code} {number}"


def test_only_glc_closes_a_set_to_the_reprint_rule(formats):
    assert {fid: sorted(f.pool.closed_sets) for fid, f in formats.items() if f.pool.closed_sets} == {"glc": ["cel25cc"]}
    assert [(a.name, a.printings) for a in formats["glc"].pool.allowed] == [
        ("Reshiram", (("CEL", "CC20"), ("CEL", "113"))),
        ("Zekrom", (("CEL", "CC21"), ("CEL", "114"))),
    ]


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_every_ban_names_real_printings(formats, db, fid):
    for ban in formats[fid].bans:
        if ban.by_name:
            assert db.by_name(ban.name), ban.name
        for code, number in ban.printings:
            card = db.find(code, number)
            assert card is not None, f"{ban.name} {code} {number}"
            assert card.key == name_key(ban.name), f"{code} {number} is {card.name}"
            assert ban.covers(card, db)


def test_rule_provenance(formats):
    glc = formats["glc"].to_dict()
    set_by = {r["rule"]: r["set_by"] for r in glc["rules"]}
    assert set_by["copy-limit"] == "glc" and set_by["deck-size"] == "standard"
    assert "radiant-limit" not in set_by and "prism-star-limit" not in set_by
    assert glc["extends"] == "standard"
    assert glc["bans"][10] == {
        "name": "Double Colorless Energy",
        "printings": ["all printings"],
        "since": "2025-04-24",
        "until": None,
        "source": "GLC ban list: SLG 69 'and all other versions'",
    }


def test_standard_rotation_history(formats):
    pool = formats["standard"].pool
    assert [(r.start.isoformat(), r.min_mark) for r in pool.rotations] == [
        ("2006-09-01", None),
        ("2007-09-01", None),
        ("2008-09-01", None),
        ("2010-09-01", None),
        ("2011-07-01", None),
        ("2012-09-01", None),
        ("2013-08-28", None),
        ("2014-09-01", None),
        ("2015-09-01", None),
        ("2016-09-01", None),
        ("2017-09-01", None),
        ("2018-09-01", None),
        ("2019-08-15", None),
        ("2020-08-28", None),
        ("2021-09-10", "D"),
        ("2023-04-14", "E"),
        ("2024-04-05", "F"),
        ("2025-04-11", "G"),
        ("2026-04-10", "H"),
    ]
    assert pool.min_mark(dt.date(2026, 4, 9)) == "G" and pool.min_mark(dt.date(2026, 4, 10)) == "H"
    assert formats["standard-ptcgl"].pool.min_mark(dt.date(2026, 3, 26)) == "H"
    assert formats["standard"].to_dict()["pool"]["mark_dates"][3] == {
        "mark": "J",
        "from": "2026-03-06",
        "source": "Tournament Handbook 4.1.1 regulation-mark table (reference 2.5)",
    }


@pytest.mark.parametrize(
    ("release", "rule", "legal"),
    [
        ("2023-03-31", "third-friday", "2023-04-14"),  # Scarlet & Violet: the G mark's first legal day
        ("2024-03-22", "third-friday", "2024-04-05"),  # Temporal Forces: H
        ("2025-03-28", "third-friday", "2025-04-11"),  # Journey Together: I
        ("2025-07-17", "third-friday", "2025-08-01"),  # Black Bolt, a Thursday
        ("2026-05-22", "third-friday", "2026-06-05"),  # Chaos Rising
        ("2026-05-22", "release", "2026-05-22"),
        (None, "third-friday", None),
    ],
)
def test_set_legal_date(release, rule, legal):
    got = _set_legal_date(rule, release)
    assert (got.isoformat() if got else None) == legal


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_a_date_before_the_data_is_a_problem(formats, fid):
    earliest = formats[fid].pool.earliest
    report = deckcheck.check("60 Basic {P} Energy SVE 5", fid, earliest - dt.timedelta(days=1))
    assert [p.rule for p in report.problems if p.rule != "no-basic-pokemon"] == ["date-out-of-range"]
    report = deckcheck.check("60 Basic {P} Energy SVE 5", fid, earliest)
    assert "date-out-of-range" not in [p.rule for p in report.problems]


def test_unknown_format_id():
    with pytest.raises(
        FormatError,
        match="^" + re.escape(f"unknown format 'modern' (known: {', '.join(SHIPPED_FORMATS)})") + "$",
    ):
        deckcheck.check("", "modern", "2026-05-01")


# -- extending --------------------------------------------------------------------------

BASE = """
id = "base"
name = "Base"
description = "A test format."
sources = ["tests"]

[rules]
deck-size = { size = 60 }
copy-limit = { limit = 4 }

[pool]
kind = "all"
earliest = 1999-01-09
"""


def _write(tmp_path, **files):
    for stem, text in files.items():
        (tmp_path / f"{stem}.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_a_format_extends_another(tmp_path):
    child = """
    id = "child"
    name = "Child"
    extends = "base"
    [rules]
    copy-limit = { limit = 1 }
    deck-size = false
    single-type = {}
    """
    formats = load_formats(_write(tmp_path, base=BASE, child=child))
    fmt = formats["child"]
    reading = {"unparsed-line": {}, "prose-ignored": {}, "several-decks": {}, "json-shape": {}, "not-a-decklist": {}}
    assert fmt.rules == {**reading, "copy-limit": {"limit": 1}, "single-type": {}}
    assert fmt.pool == formats["base"].pool
    assert fmt.rule_sources == {**dict.fromkeys(reading, "base"), "copy-limit": "child", "single-type": "child"}
    report = deckcheck.check("1 Dreepy TWM 128\n2 Ultra Ball MEG 131\n", fmt, "2026-05-01")
    assert [p.rule for p in report.problems] == ["copy-limit"]


def test_a_format_that_never_names_the_parsers_rules_still_reports_what_it_could_not_read(tmp_path):
    """The parser's rules are in every format unless one turns them off by name: a format file written
    before they were rules (or without them) must not drop unreadable lines silently."""
    formats = load_formats(_write(tmp_path, base=BASE))
    report = deckcheck.check("1 Dreepy TWM 128\nwhat is this\n", formats["base"], "2026-05-01")
    assert [(p.rule, p.lines) for p in report.problems if p.rule == "unparsed-line"] == [("unparsed-line", (2,))]
    off = BASE.replace("[rules]", "[rules]\nunparsed-line = false", 1)
    formats = load_formats(_write(tmp_path, base=off))
    report = deckcheck.check("1 Dreepy TWM 128\nwhat is this\n", formats["base"], "2026-05-01")
    assert [p.rule for p in report.problems if p.rule == "unparsed-line"] == []


MARKS = """
id = "marks"
name = "Marks"
sources = ["tests"]

[rules]
deck-size = { size = 60 }

[pool]
kind = "regulation-marks"
earliest = 2023-04-14
set_legal_from = "release"

[[pool.rotations]]
from = 2023-04-14
lowest_mark = "E"
source = "tests"

[[pool.mark_dates]]
mark = "G"
from = 2023-04-14
source = "tests"
"""


def test_a_child_pool_is_merged_over_its_parents(tmp_path):
    """A child's [pool] keys replace its parent's one by one (an array of tables whole); the keys it
    does not give are the parent's."""
    child = """
    name = "Child"
    extends = "marks"
    [pool]
    earliest = 2024-04-05
    [[pool.rotations]]
    from = 2024-04-05
    lowest_mark = "F"
    source = "child"
    """
    formats = load_formats(_write(tmp_path, marks=MARKS, child=child))
    parent, pool = formats["marks"].pool, formats["child"].pool
    assert pool.kind == "regulation-marks" and pool.earliest == dt.date(2024, 4, 5)
    assert [(r.start, r.min_mark, r.source) for r in pool.rotations] == [(dt.date(2024, 4, 5), "F", "child")]
    assert pool.mark_dates == parent.mark_dates and len(pool.mark_dates) == 1
    assert pool.legal_delay == "release"  # the parent's, not the default


def test_a_child_pool_of_another_kind_starts_afresh(tmp_path):
    """Keys of the parent's kind would not fit another kind: a pool of its own kind replaces the table."""
    child = 'name = "Child"\nextends = "marks"\n[pool]\nkind = "all"\nearliest = 1999-01-09\n'
    pool = load_formats(_write(tmp_path, marks=MARKS, child=child))["child"].pool
    assert (pool.kind, pool.earliest, pool.legal_delay, pool.rotations, pool.mark_dates) == (
        "all",
        dt.date(1999, 1, 9),
        "third-friday",
        (),
        (),
    )


def test_standard_ptcgl_takes_standards_mark_dates(formats, tmp_path):
    """standard-ptcgl.toml no longer copies Standard's mark dates: the merged pool gives the Format
    the copy gave (loaded again here with the copy put back)."""
    shipped = data_dir() / "formats"
    text = (shipped / "standard-ptcgl.toml").read_text(encoding="utf-8")
    assert "mark_dates" not in text
    copy = "".join(
        f'\n[[pool.mark_dates]]\nmark = "{m.mark}"\nfrom = {m.start.isoformat()}\nsource = "{m.source}"\n'
        for m in formats["standard"].pool.mark_dates
    )
    (tmp_path / "standard.toml").write_text((shipped / "standard.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "standard-ptcgl.toml").write_text(text + copy, encoding="utf-8")
    with_copy = load_formats(tmp_path)["standard-ptcgl"]
    merged = formats["standard-ptcgl"]
    assert [m.mark for m in merged.pool.mark_dates] == ["G", "H", "I", "J"]
    assert merged.pool == with_copy.pool
    assert merged.to_dict() == with_copy.to_dict()
    assert merged.replace(path="") == with_copy.replace(path="")


def test_unparsed_line_false_turns_it_off(tmp_path):
    """A parse-level rule is a rule like any other: ``unparsed-line = false`` in a format file
    turns it off (the engine does not add the parser's problems back)."""
    shipped = data_dir() / "formats"
    (tmp_path / "standard.toml").write_text((shipped / "standard.toml").read_text(encoding="utf-8"), encoding="utf-8")
    quiet = 'name = "Quiet"\nextends = "standard"\n[rules]\nunparsed-line = false\nprose-ignored = false\n'
    formats = load_formats(_write(tmp_path, quiet=quiet))
    assert "unparsed-line" not in formats["quiet"].rules and "unparsed-line" in formats["standard"].rules
    text = "```\nhello there\n4 Dreepy TWM 128\n```\nthis line is no card at all ???\n"
    loud = deckcheck.check(text, formats["standard"], "2026-05-01")
    assert {p.rule for p in loud.problems} >= {"unparsed-line", "prose-ignored"}
    quiet_report = deckcheck.check(text, formats["quiet"], "2026-05-01")
    assert {p.rule for p in quiet_report.problems} == {p.rule for p in loud.problems} - {
        "unparsed-line",
        "prose-ignored",
    }


def test_every_parse_level_rule_is_a_format_rule(formats):
    """What the parser reports is registered as a rule, and Standard (so every shipped format) names it."""
    parse_level = {"unparsed-line", "prose-ignored", "several-decks", "json-shape"}
    assert parse_level <= set(REGISTRY)
    for fid in SHIPPED_FORMATS:
        assert parse_level <= set(formats[fid].rules), fid


# -- broken files fail loudly, naming the file --------------------------------------------

KNOWN = ", ".join(sorted(REGISTRY))
HEAD = 'name = "Broken"\nextends = "base"\n'

BROKEN = {
    "unknown-rule": (
        HEAD + "[rules]\ndeck-sise = { size = 60 }",
        "broken.toml: unknown rule 'deck-sise'; did you mean 'deck-size'?",
    ),
    "unknown-rule-far": (
        HEAD + "[rules]\nfrobnicate = {}",
        f"broken.toml: unknown rule 'frobnicate'; known rules: {KNOWN}",
    ),
    "param-type": (
        HEAD + '[rules]\ndeck-size = { size = "60" }',
        "broken.toml: rule 'deck-size' parameter size must be a whole number >= 0, not '60'",
    ),
    "param-negative": (
        HEAD + "[rules]\ncopy-limit = { limit = -1 }",
        "broken.toml: rule 'copy-limit' parameter limit must be a whole number >= 0, not -1",
    ),
    "param-bool": (
        HEAD + "[rules]\ncopy-limit = { limit = true }",
        "broken.toml: rule 'copy-limit' parameter limit must be a whole number >= 0, not True",
    ),
    "param-names": (
        HEAD + '[rules]\nrule-box = { subtypes = "ex" }',
        "broken.toml: rule 'rule-box' parameter subtypes must be a list of strings, not 'ex'",
    ),
    "param-groups": (
        HEAD + '[rules]\nexclusive-group = { groups = [["Boss\'s Orders"]] }',
        "broken.toml: rule 'exclusive-group' parameter groups must be a list of lists of at least 2 "
        'strings, not [["Boss\'s Orders"]]',
    ),
    "param-extra": (
        HEAD + "[rules]\ncopy-limit = { limit = 4, max = 5 }",
        "broken.toml: rule 'copy-limit' takes no parameter max",
    ),
    "param-missing": (HEAD + "[rules]\ncopy-limit = {}", "broken.toml: rule 'copy-limit' needs parameter limit"),
    "rule-not-table": (
        HEAD + "[rules]\ndeck-size = 60",
        "broken.toml: rule 'deck-size' must be a table of parameters (or false to remove it)",
    ),
    "remove-absent": (
        HEAD + "[rules]\nsingle-type = false",
        "broken.toml: removes rule 'single-type', which is not in effect",
    ),
    "unknown-key": (
        HEAD + 'rulez = "x"',
        "broken.toml: unknown key 'rulez' (allowed: id, name, description, extends, sources, rules, pool, bans)",
    ),
    "id-mismatch": ('id = "other"\n' + HEAD, "broken.toml: id 'other' differs from the file name"),
    "name-missing": ('name = ""\nextends = "base"', "broken.toml: name must be a non-empty string"),
    "extends-unknown": ('name = "Broken"\nextends = "nope"', "broken.toml: extends unknown format 'nope'"),
    "pool-kind": (
        HEAD + '[pool]\nkind = "marks"\nearliest = 2023-04-14',
        "broken.toml: pool.kind must be one of regulation-marks, sets, all, not 'marks'",
    ),
    "pool-key": (
        HEAD + '[pool]\nkind = "all"\nearliest = 2023-04-14\nseries = ["sv"]',
        "broken.toml: [pool] of kind 'all': unknown key 'series' (allowed: kind, earliest, set_legal_from, "
        "reprint_rule)",
    ),
    "pool-date": (
        HEAD + '[pool]\nkind = "all"\nearliest = "2023-13-01"',
        "broken.toml: pool.earliest: '2023-13-01' is not a date (YYYY-MM-DD)",
    ),
    "pool-datetime": (
        HEAD + '[pool]\nkind = "all"\nearliest = 2023-04-14T10:00:00',
        "broken.toml: pool.earliest: 2023-04-14 10:00:00 is not a date (YYYY-MM-DD); give a date without a time",
    ),
    "pool-no-earliest": (  # a format of its own (a child's [pool] takes its parent's earliest)
        'name = "Broken"\n[pool]\nkind = "all"',
        "broken.toml: pool.earliest is missing (the first date the format's data covers)",
    ),
    "pool-delay": (
        HEAD + '[pool]\nkind = "all"\nearliest = 2023-04-14\nset_legal_from = "monday"',
        "broken.toml: pool.set_legal_from must be 'third-friday' or 'release', not 'monday'",
    ),
    "pool-reprint": (
        HEAD + '[pool]\nkind = "all"\nearliest = 2023-04-14\nreprint_rule = "yes"',
        "broken.toml: pool.reprint_rule must be true or false",
    ),
    "pool-sets-empty": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14',
        "broken.toml: a sets pool needs series or include_sets",
    ),
    "closed-not-excluded": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["sv"]\nexclude_sets = ["mfb"]\n'
        'closed_sets = ["cel25cc", "mfb"]',
        "broken.toml: pool.closed_sets names cel25cc, not in pool.exclude_sets",
    ),
    "allow-without-closed": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["sv"]\n'
        'allow = [{ name = "Reshiram", printings = ["CEL CC20"], since = 2021-10-22, source = "x" }]',
        "broken.toml: pool.allow is for printings of pool.closed_sets, and it is empty",
    ),
    "allow-undated": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["swsh"]\nexclude_sets = ["cel25cc"]\n'
        'closed_sets = ["cel25cc"]\nallow = [{ name = "Reshiram", printings = ["CEL CC20"], source = "x" }]',
        "broken.toml: pool.allow[1] (Reshiram): since is missing (the date its source allows it from)",
    ),
    "allow-no-printings": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["swsh"]\nexclude_sets = ["cel25cc"]\n'
        'closed_sets = ["cel25cc"]\nallow = [{ name = "Reshiram", since = 2021-10-22, source = "x" }]',
        "broken.toml: pool.allow[1] (Reshiram): lists no printings",
    ),
    "allow-key": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["swsh"]\nexclude_sets = ["cel25cc"]\n'
        'closed_sets = ["cel25cc"]\nallow = [{ name = "Reshiram", printings = ["CEL CC20"], since = 2021-10-22, '
        'source = "x", until = 2030-01-01 }]',
        "broken.toml: pool.allow[1]: unknown key 'until' (allowed: name, printings, since, source, unconfirmed)",
    ),
    "allow-source": (
        HEAD + '[pool]\nkind = "sets"\nearliest = 2023-04-14\nseries = ["swsh"]\nexclude_sets = ["cel25cc"]\n'
        'closed_sets = ["cel25cc"]\nallow = [{ name = "Reshiram", printings = ["CEL CC20"], since = 2021-10-22 }]',
        "broken.toml: pool.allow[1]: source must be a non-empty string",
    ),
    "no-rotations": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14',
        "broken.toml: a regulation-marks pool needs at least one [[pool.rotations]]",
    ),
    "rotation-mark": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'from = 2023-04-14\nlowest_mark = "e"\nsource = "x"',
        "broken.toml: pool.rotations[1]: lowest_mark must be one capital letter, not 'e'",
    ),
    "rotation-date": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'from = "April"\nlowest_mark = "E"\nsource = "x"',
        "broken.toml: pool.rotations[1].from: 'April' is not a date (YYYY-MM-DD)",
    ),
    "rotation-source": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'from = 2023-04-14\nlowest_mark = "E"',
        "broken.toml: pool.rotations[1]: source must be a non-empty string",
    ),
    "rotation-key": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'from = 2023-04-14\nlowest = "E"\nsource = "x"',
        "broken.toml: pool.rotations[1]: unknown key 'lowest' (allowed: from, lowest_mark, sets, promos, source, "
        "unconfirmed)",
    ),
    "rotation-order": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n'
        '[[pool.rotations]]\nfrom = 2024-04-05\nlowest_mark = "F"\nsource = "x"\n'
        '[[pool.rotations]]\nfrom = 2023-04-14\nlowest_mark = "E"\nsource = "x"',
        "broken.toml: pool.rotations must be in date order, one per date",
    ),
    "rotation-after-earliest": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-01-01\n'
        '[[pool.rotations]]\nfrom = 2023-04-14\nlowest_mark = "E"\nsource = "x"',
        "broken.toml: pool.earliest 2023-01-01 is before the first rotation (2023-04-14), so "
        "the pool on those days is unknown",
    ),
    "mark-date-twice": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n'
        '[[pool.rotations]]\nfrom = 2023-04-14\nlowest_mark = "E"\nsource = "x"\n'
        '[[pool.mark_dates]]\nmark = "J"\nfrom = 2026-03-06\nsource = "x"\n'
        '[[pool.mark_dates]]\nmark = "J"\nfrom = 2026-03-07\nsource = "x"',
        "broken.toml: pool.mark_dates lists a mark twice",
    ),
    "ban-no-printings": (
        HEAD + 'bans = [{ name = "Red Card", source = "x" }]',
        "broken.toml: bans[1] (Red Card): lists no printings (set all_printings = true for a ban by name)",
    ),
    "ban-printing": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN71"], source = "x" }]',
        "broken.toml: bans[1] (Red Card): printing 'GEN71' must be 'SET NUMBER'",
    ),
    "ban-duplicate": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], source = "x", since = 2019-11-15 },\n'
        '        { name = "Red Card", printings = ["XY 124", "GEN 071"], source = "y", since = 2019-11-15 }]',
        "broken.toml: bans[2] (Red Card): bans a printing that an earlier entry already bans",
    ),
    "ban-key": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], source = "x", from = 2020-01-01 }]',
        "broken.toml: bans[1]: unknown key 'from' (allowed: name, printings, all_printings, since, until, source, "
        "unconfirmed)",
    ),
    "ban-date": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], source = "x", since = "soon" }]',
        "broken.toml: bans[1].since: 'soon' is not a date (YYYY-MM-DD)",
    ),
    "ban-source": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], since = 2019-11-15 }]',
        "broken.toml: bans[1]: source must be a non-empty string",
    ),
    "ban-undated": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], source = "x" }]',
        "broken.toml: bans[1] (Red Card): since is missing (the date the ban took effect)",
    ),
    "ban-until-before-since": (
        HEAD + 'bans = [{ name = "Red Card", printings = ["GEN 71"], source = "x", '
        "since = 2019-11-15, until = 2019-11-15 }]",
        "broken.toml: bans[1] (Red Card): until 2019-11-15 is not after since 2019-11-15",
    ),
    "rotation-undated": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'lowest_mark = "E"\nsource = "x"',
        "broken.toml: pool.rotations[1]: from is missing (the rotation's effective date)",
    ),
    "rotation-marks-and-sets": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2023-04-14\n[[pool.rotations]]\n'
        'from = 2023-04-14\nlowest_mark = "E"\nsets = ["SVI"]\nsource = "x"',
        "broken.toml: pool.rotations[1]: give lowest_mark (a rotation by regulation mark) or sets (by set), "
        "one of them",
    ),
    "rotation-promo": (
        HEAD + '[pool]\nkind = "regulation-marks"\nearliest = 2013-08-28\n[[pool.rotations]]\n'
        'from = 2013-08-28\nsets = ["NXD"]\npromos = ["BW33"]\nsource = "x"',
        "broken.toml: pool.rotations[1]: promos entry 'BW33' must be 'SET FIRST-NUMBER' (PR-BLW BW33)",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_format_file_fails_loudly(tmp_path, case):
    text, message = BROKEN[case]
    with pytest.raises(FormatError) as err:
        load_formats(_write(tmp_path, base=BASE, broken=text + "\n"))
    assert str(err.value) == message


def test_extends_loop(tmp_path):
    a = 'id = "a"\nname = "A"\nextends = "b"\n'
    b = 'id = "b"\nname = "B"\nextends = "a"\n'
    with pytest.raises(FormatError) as err:
        load_formats(_write(tmp_path, a=a, b=b))
    assert str(err.value) == "a.toml: formats extend each other in a loop: a -> b -> a"


def test_not_toml(tmp_path):
    with pytest.raises(FormatError, match=r"^broken\.toml: not valid TOML: "):
        load_formats(_write(tmp_path, base=BASE, broken="name = "))


def test_no_pool_and_nothing_to_extend(tmp_path):
    with pytest.raises(FormatError) as err:
        load_formats(_write(tmp_path, broken='name = "Broken"\n'))
    assert str(err.value) == "broken.toml: no [pool] and nothing to extend"


def test_empty_folder(tmp_path):
    with pytest.raises(FormatError, match="^no format files in "):
        load_formats(tmp_path)


# -- functional identity (the reprint rule's fingerprint) ------------------------------------

SAME = [
    ("Rare Candy", "GRI 165", "MEG 125"),
    ("Counter Catcher", "CIN 91", "PAR 160"),
    ("Ultra Ball", "SVI 196", "MEG 131"),
    ("Ultra Ball", "SLG 68", "SLG 68a"),  # the alternate print's text carries the Item reminder
    ("Copycat", "TRR 83", "CES 127"),  # the Handbook's own example of functionally identical cards
    ("Master Ball", "PLB 94", "TEF 153"),  # "Shuffle your deck afterward." / "Then, shuffle your deck."
    ("Energy Search", "BLW 93", "SVI 172"),
    ("Professor's Research", "SSH 178", "SVI 189"),  # Professor Magnolia / no subtitle
]
DIFFERENT = [
    ("Computer Search", "BS 71", "BCR 137"),  # the ACE SPEC
    ("Rainbow Energy", "TR 17", "CES 151"),  # the Handbook's example of cards that are not
    ("Potion", "BS 94", "SVI 188"),
    ("Master Ball", "DX 88", "TEF 153"),
    ("Unown", "LOT 90", "LOT 91"),
]


def _printing(db, name, printing):
    code, number = printing.split()
    card = db.find(code, number)
    assert card is not None and card.key == name_key(name), printing
    return card


@pytest.mark.parametrize(("name", "a", "b"), SAME, ids=[f"{n} {a}={b}" for n, a, b in SAME])
def test_functionally_identical_printings_share_a_fingerprint(db, name, a, b):
    assert _printing(db, name, a).fingerprint == _printing(db, name, b).fingerprint


@pytest.mark.parametrize(("name", "a", "b"), DIFFERENT, ids=[f"{n} {a}!={b}" for n, a, b in DIFFERENT])
def test_different_printings_do_not(db, name, a, b):
    assert _printing(db, name, a).fingerprint != _printing(db, name, b).fingerprint


def test_reprint_rule_examples(formats, db):
    standard, on = formats["standard"], dt.date(2026, 5, 1)
    ultra_ball = _printing(db, "Ultra Ball", "SVI 196")
    assert standard.in_pool(ultra_ball, db, on) is False
    assert standard.legal_via(ultra_ball, db, on).mark == "I"
    iono = _printing(db, "Iono", "PAL 185")
    assert standard.legal_via(iono, db, dt.date(2026, 3, 1)) is iono
    assert standard.legal_via(iono, db, on) is None
    # basic Energy is always legal, even from a set not legal yet (MEE: released 2025-09-25, legal from
    # 2025-10-10); a printing not released yet is legal as one of its type out on the date (issue #28)
    energy = db.basic_energy("Fire")
    assert (energy.set_code, energy.release) == ("MEE", "2025-09-25")
    assert standard.legal_via(energy, db, dt.date(2025, 10, 1)) is energy
    assert standard.legal_via(energy, db, dt.date(2023, 4, 14)).label == "Fire Energy (SVE 2)"


def _tables(tmp_path, exceptions: str):
    from deckcheck.cards.files import data_dir

    for name in (
        "ace-spec.csv",
        "rewordings.csv",
        "reprint-groups.csv",
        "name-merges.csv",
        "name-parts.csv",
        "deck-rules.csv",
        "evolution-bypass.csv",
    ):
        (tmp_path / name).write_text((data_dir() / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "functional-exceptions.csv").write_text(
        "name,set_code,number,variant,not_same_as,source\n" + exceptions, encoding="utf-8"
    )
    return tmp_path


TWINS = {
    "sets": [
        {"id": "s1", "name": "One", "series_id": "sv", "ptcgl_code": "ONE", "releaseDate": "2024-01-05"},
        {"id": "s2", "name": "Two", "series_id": "sv", "ptcgl_code": "TWO", "releaseDate": "2025-01-03"},
    ],
    "cards": [
        {
            "id": f"s{i}-1",
            "name": "Gadget",
            "supertype": "Trainer",
            "subtypes": ["Item"],
            "set_id": f"s{i}",
            "number": "1",
            "effect": "Draw 2 cards.",
        }
        for i in (1, 2)
    ],
}


def test_functional_exceptions_split_a_variant(tmp_path):
    from deckcheck.sync import build

    same = {r["id"]: r["fingerprint"] for r in build.iter_rows(build.build(TWINS, _tables(tmp_path, "")))}
    assert same["s1-1"] == same["s2-1"]
    table = _tables(tmp_path, 'Gadget,ONE,1,errata-2025,TWO 1,"the 2024 print was errata\'d"\n')
    split = {r["id"]: r["fingerprint"] for r in build.iter_rows(build.build(TWINS, table))}
    assert split["s1-1"] != split["s2-1"] and split["s2-1"] == same["s2-1"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "Gadget,ONE,1,,TWO 1,x\n",
            "functional-exceptions.csv: Gadget ONE 1 and TWO 1 still share a fingerprint; give the row a variant",
        ),
        ("Gadget,ONE,7,,,x\n", "functional-exceptions.csv: Gadget ONE 7: no such printing in the source"),
        ("Widget,ONE,1,,,x\n", "functional-exceptions.csv: Widget ONE 1: that printing is 'Gadget'"),
        (
            "Gadget,ONE,1,,TWO 9,x\n",
            "functional-exceptions.csv: Gadget ONE 1: not_same_as TWO 9 is no printing of that name in the source",
        ),
    ],
    ids=["pair-joined", "no-printing", "wrong-name", "no-other"],
)
def test_functional_exceptions_fail_loudly(tmp_path, row, message):
    from deckcheck.sync import build

    with pytest.raises(build.BuildError) as err:
        build.build(TWINS, _tables(tmp_path, row))
    assert str(err.value) == message


def test_functional_exceptions_skip_sets_missing_from_the_source(tmp_path):
    from deckcheck.sync import build

    build.build(TWINS, _tables(tmp_path, "Computer Search,BCR,137,,BS 71,x\n"))


@pytest.mark.parametrize("fmt_id", sorted(default_formats()))
def test_ban_for_screens_cards_as_the_bans_cover_them(fmt_id):
    """Format.ban_for skips the bans for a card no ban can cover (its name key and number in none of
    them): the same first ban as looking at every ban, for every card a ban names or numbers and a
    spread of the pool, on dates before and after the bans."""
    import datetime as dt

    from deckcheck import cards
    from deckcheck.cards.index import number_key
    from deckcheck.names import name_key

    db, fmt = cards.get_db(), default_formats()[fmt_id]
    names = {name_key(ban.name) for ban in fmt.bans}
    numbers = {number_key(n) for ban in fmt.bans for _code, n in ban.printings}
    every = sorted(db.cards.values(), key=lambda c: c.id)
    near = [c for c in every if c.key in names or number_key(c.number) in numbers]
    assert (len(near) > 20) == bool(fmt.bans)
    for on in (dt.date(2010, 1, 1), dt.date(2016, 1, 1), dt.date(2026, 5, 1)):
        for card in near + every[::97]:
            looked = next((b for b in fmt.bans if b.in_force(on) and b.covers(card, db)), None)
            assert fmt.ban_for(card, db, on) == looked, (card.id, on)
    if fmt.bans:
        assert any(fmt.ban_for(card, db, dt.date(2026, 5, 1)) for card in near)


# -- the formats' tables of one database object -----------------------------------------------------


def test_a_database_loaded_again_from_the_same_file_gets_its_own_legality_answers():
    """Two database objects of one version (the same file loaded twice: a test's app, a library user's
    cards.load) each get legality answers made of their own cards: a printing legal as itself is no
    reprint of itself, whichever object asked first, and a line answers the same warm or cold."""
    from deckcheck import cards
    from deckcheck.engine import check

    fmt, on = default_formats()["standard"], dt.date(2026, 6, 1)
    first, second = cards.get_db(), cards.load(cards.default_path())
    assert first.version == second.version and first is not second
    check("4 Dreepy TWM 128", fmt, on, db=first)  # the first object's answers made and kept
    for db in (first, second):
        card = db.printing_named("Dreepy", "TWM", "128")
        assert fmt.legality(card, db, on) == (card, None) and fmt.legality(card, db, on)[0] is card
        for text in ("4 dreepy TWM 128", "4 Dreepy TWM 128", "3 Dreepy TWM 128"):
            report = check(text, fmt, on, db=db)
            assert [ln.to_dict()["legal_via"] for ln in report.lines] == [None], text
            assert [p.rule for p in report.problems] == ["deck-size"], text


# -- every format's history, each date sourced ------------------------------------------------------


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_every_ban_and_rotation_is_dated_and_sourced(formats, fid):
    """A ban or rotation of a shipped format without its effective date or its source is a defect
    (the loader refuses one without them: this checks what it loaded)."""
    fmt = formats[fid]
    for ban in fmt.bans:
        assert ban.since is not None and ban.source.strip(), ban
        assert ban.until is None or ban.until > ban.since, ban
    for rotation in fmt.pool.rotations:
        assert rotation.source.strip() and (rotation.min_mark or rotation.sets), rotation
    starts = [r.start for r in fmt.pool.rotations]
    assert starts == sorted(set(starts)) and (not starts or starts[0] <= fmt.pool.earliest)


@pytest.mark.parametrize("fid", SHIPPED_FORMATS)
def test_every_set_code_and_printing_a_format_names_is_in_the_database(formats, fid):
    from deckcheck import cards

    db, fmt = cards.get_db(), formats[fid]
    for rotation in fmt.pool.rotations:
        for code in rotation.sets:
            assert db.sets_for_code(code) or code in db.sets, (rotation.start, code)
            # a code of several sets names one product (Hidden Fates and its Shiny Vault), never two
            # sets of different years (RR is Rising Rivals and Team Rocket Returns: write pl2)
            assert len({db.sets[s].release for s in db.sets_for_code(code)}) <= 1, (rotation.start, code)
        for code, number in rotation.promos:
            assert db.find(code, number) is not None, (rotation.start, code, number)
    for ban in fmt.bans:
        for code, number in ban.printings:
            card = db.find(code, number)
            assert card is not None and name_key(card.name) == name_key(ban.name), (ban.name, code, number)


@pytest.mark.parametrize(
    ("fid", "first"),
    [("standard", "2006-09-01"), ("expanded", "2014-09-01"), ("glc", "2021-07-14"), ("standard-ptcgl", "2023-03-30")],
)
def test_a_date_before_a_format_existed_names_its_first_date(fid, first):
    day = dt.date.fromisoformat(first)
    before = (day - dt.timedelta(days=1)).isoformat()
    report = deckcheck.check("60 Basic {P} Energy SVE 5", fid, before)
    problem = next(p for p in report.problems if p.rule == "date-out-of-range")
    name = default_formats()[fid].name
    assert problem.message == (
        f"{name} legality is known from {first} on; {before} is earlier, so card legality was not checked."
    )
    assert "date-out-of-range" not in [
        p.rule for p in deckcheck.check("60 Basic {P} Energy SVE 5", fid, first).problems
    ]


def _verdict(fid: str, code: str, number: str, on: str) -> str:
    """'legal', 'banned' or 'not-in-format' for one real printing in a shipped format on a date."""
    from deckcheck import cards

    db = cards.get_db()
    card = db.find(code, number)
    assert card is not None, (code, number)
    via, ban = default_formats()[fid].legality(card, db, dt.date.fromisoformat(on))
    return "banned" if ban else "legal" if via else "not-in-format"


@pytest.mark.parametrize(
    ("fid", "printing", "before", "on", "was", "becomes"),
    [
        # Modified, EX Deoxys-on from 2006-09-01, with Nintendo promos from 029 on
        ("standard", "PR-NP 28", "2006-09-01", "2006-09-01", "not-in-format", "not-in-format"),
        ("standard", "PR-NP 29", "2006-09-01", "2006-09-01", "legal", "legal"),
        # the 2011 rotation, on 2011-07-01 (early, before the National Championships): Majestic Dawn-on to HGSS-on
        ("standard", "MD 1", "2011-06-30", "2011-07-01", "legal", "not-in-format"),
        # Standard by sets: Black & White left on 2013-08-28 (Klinklang BLW 76 has no later reprint)
        ("standard", "BLW 76", "2013-08-27", "2013-08-28", "legal", "not-in-format"),
        # promos from a number on: BW33 and higher stayed on 2013-08-28, BW32 left
        ("standard", "PR-BLW BW32", "2013-08-27", "2013-08-28", "legal", "not-in-format"),
        ("standard", "PR-BLW BW33", "2013-08-27", "2013-08-28", "legal", "legal"),
        # HeartGold & SoulSilver left on 2012-09-01 (Call of Legends with it)
        ("standard", "CL 1", "2012-08-31", "2012-09-01", "legal", "not-in-format"),
        # Primal Clash-on from 2016-09-01, with XY promos from XY36 on
        ("standard", "FFI 1", "2016-08-31", "2016-09-01", "legal", "not-in-format"),
        ("standard", "PR-XY XY35", "2016-08-31", "2016-09-01", "legal", "not-in-format"),
        ("standard", "PR-XY XY36", "2016-08-31", "2016-09-01", "legal", "legal"),
        # Ultra Prism-on, with SM94 and up, from 2019-08-15: Crimson Invasion and SM93 left
        ("standard", "CIN 1", "2019-08-14", "2019-08-15", "legal", "not-in-format"),
        ("standard", "PR-SM SM93", "2019-08-14", "2019-08-15", "legal", "not-in-format"),
        ("standard", "PR-SM SM94", "2019-08-14", "2019-08-15", "legal", "legal"),
        # the first rotation by regulation mark, 2021-09-10: D and later only
        ("standard", "TEU 33", "2021-09-09", "2021-09-10", "legal", "not-in-format"),
        # Standard's own bans
        ("standard", "PHF 99", "2015-06-14", "2015-06-15", "legal", "banned"),
        ("standard", "UNB 78", "2020-08-27", "2020-08-28", "legal", "banned"),
        # Pokémon TCG Live rotates before in-person play: F left Live on 2025-03-27, in-person on 2025-04-11
        ("standard-ptcgl", "LOR 131", "2025-03-26", "2025-03-27", "legal", "not-in-format"),
        ("standard", "LOR 131", "2025-03-27", "2025-04-11", "legal", "not-in-format"),
        # and D left in-person play on 2023-04-14 (Zacian V SSH 138, mark D)
        ("standard", "SSH 138", "2023-04-13", "2023-04-14", "legal", "not-in-format"),
        # Expanded bans with their dates, and an unban
        ("expanded", "PHF 99", "2015-06-14", "2015-06-15", "legal", "banned"),
        ("expanded", "NXD 72", "2015-08-31", "2015-09-01", "legal", "banned"),
        ("expanded", "NXD 72", "2017-08-31", "2017-09-01", "banned", "legal"),
        ("expanded", "AOR 74", "2017-08-31", "2017-09-01", "legal", "banned"),
        ("expanded", "PLF 101", "2018-08-16", "2018-08-17", "legal", "banned"),
        ("expanded", "BKP 98a", "2019-02-14", "2019-02-15", "legal", "banned"),
        ("expanded", "CIN 96", "2019-02-14", "2019-02-15", "legal", "banned"),
        ("expanded", "CIN 96", "2021-03-04", "2021-03-05", "banned", "legal"),
        ("expanded", "LOT 90", "2019-02-14", "2019-02-15", "legal", "banned"),
        ("expanded", "UNB 165", "2019-11-14", "2019-11-15", "legal", "banned"),
        ("expanded", "EVS 83", "2026-04-09", "2026-04-10", "legal", "banned"),
        # GLC's ban list by date
        ("glc", "PHF 99", "2021-11-15", "2021-11-16", "legal", "banned"),
        ("glc", "SHF 21", "2022-11-10", "2022-11-11", "legal", "banned"),
        ("glc", "PHF 93", "2026-04-19", "2026-04-20", "legal", "banned"),
    ],
)
def test_verdicts_change_on_the_announced_dates(fid, printing, before, on, was, becomes):
    code, number = printing.rsplit(" ", 1)
    assert (_verdict(fid, code, number, before), _verdict(fid, code, number, on)) == (was, becomes)


def test_a_rotation_by_sets_says_why_a_card_left():
    report = deckcheck.check(
        "4 Klinklang BLW 76\n4 Victini PR-BLW BW32\n52 Basic {P} Energy SVE 5", "standard", "2013-08-28"
    )
    messages = [p.message for p in report.problems if p.rule == "not-in-format"]
    assert messages == [
        "Klinklang (BLW 76) (line 1) is not legal in Standard on 2013-08-28: its set, Black & White, is not in the "
        "card pool of the rotation of 2013-08-28 and no functionally identical reprint is legal.",
        "Victini (PR-BLW BW32) (line 2) is not legal in Standard on 2013-08-28: only promos from number BW33 on of "
        "its set, BW Black Star Promos, are in the card pool of the rotation of 2013-08-28 and no functionally "
        "identical reprint is legal.",
    ]


def test_the_formats_api_describes_a_rotation_by_sets_and_an_unban(formats):
    rotation = next(r for r in formats["standard"].to_dict()["pool"]["rotations"] if r["from"] == "2013-08-28")
    assert (rotation["from"], rotation["lowest_legal_mark"], rotation["promos"]) == (
        "2013-08-28",
        None,
        ["PR-BLW BW33+"],
    )
    assert rotation["sets"][:3] == ["NXD", "DEX", "DRX"] and "unconfirmed" in rotation
    shiftry = next(b for b in formats["expanded"].to_dict()["bans"] if b["name"] == "Shiftry")
    assert (shiftry["since"], shiftry["until"]) == ("2015-09-01", "2017-09-01")


def test_live_rotated_before_in_person_play():
    """Between Pokémon TCG Live's date and the in-person date a rotated card is out on Live only:
    D on 2023-03-30 / 2023-04-14, F on 2025-03-27 / 2025-04-11."""
    for printing, day in (("SSH 138", "2023-04-13"), ("LOR 131", "2025-04-10")):
        code, number = printing.split()
        assert (_verdict("standard-ptcgl", code, number, day), _verdict("standard", code, number, day)) == (
            "not-in-format",
            "legal",
        ), printing


def test_the_description_follows_the_date():
    standard = default_formats()["standard"]
    days = ("2026-05-01", "2025-06-01", "2023-05-01", "2019-09-01")
    assert {d: standard.description_on(dt.date.fromisoformat(d)) for d in days} == {
        "2026-05-01": "Regulation-mark format: H, I, J and later marks since 2026-04-10.",
        "2025-06-01": "Regulation-mark format: G, H, I and later marks since 2025-04-11.",
        "2023-05-01": "Regulation-mark format: E, F, G and later marks since 2023-04-14.",
        "2019-09-01": "Sets UPR and later since 2019-08-15.",
    }
    expanded = default_formats()["expanded"]
    assert expanded.description_on(dt.date(2026, 5, 1)) == expanded.description


def test_the_descriptions_over_time_are_the_description_of_every_day():
    """Format.descriptions (what the page picks from by date without the server): every day from 2005 to
    2028 reads the sentence description_on writes for it."""
    for fmt in default_formats().values():
        changes = fmt.descriptions()
        assert changes[0][0] is None and [d for d, _ in changes[1:]] == sorted(d for d, _ in changes[1:])
        day = dt.date(2005, 1, 1)
        while day < dt.date(2028, 1, 1):
            iso = day.isoformat()
            picked = [text for since, text in changes if since is None or since <= iso][-1]
            assert picked == fmt.description_on(day), (fmt.id, iso)
            day += dt.timedelta(days=1)
