"""The legality of every printing in each shipped format, worked out when the pack is written and read
back at a check (deckcheck/formats/stored.py): the same answers as the format's code, for the whole
pool, on the days around every date the format files name; not trusted for other format files."""

from __future__ import annotations

import datetime as dt

import pytest

from deckcheck import cards
from deckcheck.formats import default_formats
from deckcheck.formats.legality import FormatLegality

ONE_DAY = dt.timedelta(days=1)


def _named_days(fmt) -> list[dt.date]:
    """Every date the format's file names (its earliest day, rotations, regulation marks' first days, bans'
    starts and ends), with the day before and the day after each."""
    named = {fmt.pool.earliest, *(r.start for r in fmt.pool.rotations), *(m.start for m in fmt.pool.mark_dates)}
    named |= {day for ban in fmt.bans for day in (ban.since, ban.until) if day is not None}
    return sorted({day + shift for day in named for shift in (-ONE_DAY, dt.timedelta(0), ONE_DAY)})


@pytest.mark.slow
@pytest.mark.parametrize("format_id", sorted(default_formats()))
def test_the_stored_legality_is_the_formats_own_over_the_whole_pool(format_id):
    db = cards.get_db()
    fmt = default_formats()[format_id]
    stored = fmt.stored_legality(db)
    assert stored is not None and stored.digest == fmt.legality_digest()
    days = _named_days(fmt)
    at, bans = db.cards.at, fmt.bans
    wrong = []
    for row in range(len(db.cards)):
        card = at(row)
        for day in days:
            via, ban = stored.answer(row, day.toordinal())
            kept = (at(via - 1) if via else None, bans[ban - 1] if ban else None)
            made = (fmt.legal_via(card, db, day), fmt.ban_for(card, db, day))
            if kept[0] is not made[0] or kept[1] is not made[1]:
                wrong.append((card.id, day.isoformat(), kept, made))
    assert wrong == []


def test_a_check_reads_the_shipped_formats_legality_from_the_pack(monkeypatch):
    """The shipped standard's legality of a list's printings is the pack's: the format's code is not asked."""

    def refuse(*args, **kwargs):
        raise AssertionError("legality worked out")

    db = cards.load(cards.default_path())  # a database object of its own: no memo holds an answer
    fmt = default_formats()["standard"]
    nest, iono = db.get("sv01-181"), db.get("sv02-185")
    asked = [(nest, dt.date(2023, 4, 13)), (nest, dt.date(2023, 4, 14)), (nest, dt.date(2026, 5, 1))]
    asked += [(iono, dt.date(2024, 5, 1)), (iono, dt.date(2026, 5, 1))]
    made = [(fmt.legal_via(card, db, day), fmt.ban_for(card, db, day)) for card, day in asked]
    assert made[0] == (None, None) and made[1][0] is nest and made[3][0] is iono  # before its set, and in
    monkeypatch.setattr(FormatLegality, "legal_via", refuse)
    monkeypatch.setattr(FormatLegality, "ban_for", refuse)
    kept = [fmt.legality(card, db, day) for card, day in asked]
    assert all(k[0] is m[0] and k[1] is m[1] for k, m in zip(kept, made, strict=True)), (kept, made)


def test_a_format_of_other_files_is_answered_by_its_code():
    """A format of the same id with another ban list (a file a user changed, or the rotation forecast's
    format made from the shipped one) never takes the pack's answers; a format a user adds has none."""
    db = cards.load(cards.default_path())
    shipped = default_formats()["expanded"]
    changed = shipped.replace(bans=shipped.bans[1:])  # the same id, another ban list
    assert shipped.stored_legality(db) is not None and changed.stored_legality(db) is None
    first = shipped.bans[0]
    card = db.by_name(first.name)[0]
    day = (first.since or dt.date(2020, 1, 1)) + ONE_DAY
    assert shipped.legality(card, db, day)[1] is first
    assert changed.legality(card, db, day) == (changed.legal_via(card, db, day), changed.ban_for(card, db, day))
    assert changed.legality(card, db, day)[1] is not first
    own = shipped.replace(id="my-expanded")  # a format a user adds: none stored
    assert own.stored_legality(db) is None


def test_a_pack_read_with_another_set_alias_table_answers_legality_by_the_formats_code(monkeypatch):
    """Which printings a ban by set code and number covers, and which sets a rotation by sets holds, go
    through data/set-aliases.csv (read at load): with a table of other rows than the pack was made with,
    the pack's legality is not used (as its index of usual lines is not)."""
    real = cards._load_aliases
    # AOR now also names Scarlet & Violet's set: Expanded's ban on "AOR 74" covers SVI 74 (Pawmi) too
    other = cards.SetAlias(("xy7", "sv01"), "", 0, "lookup")
    monkeypatch.setattr(cards, "_load_aliases", lambda directory: {**real(directory), "AOR": other})
    db = cards.load(cards.default_path())
    fmt = default_formats()["expanded"]
    pawmi, day = db.get("sv01-074"), dt.date(2024, 1, 1)
    ban = fmt.ban_for(pawmi, db, day)
    assert ban is not None and ban.name == "Forest of Giant Plants"
    assert fmt.stored_legality(db) is None
    assert fmt.legality(pawmi, db, day) == (fmt.legal_via(pawmi, db, day), ban)


def test_the_legality_reader_answers_as_the_format_does_and_shares_its_memo(monkeypatch):
    """The engine's reader of a format's legality on one date reads the pack's rows itself: the same answers
    as :meth:`legality` (the format's code is not asked), put in the format's memo of that date; a card
    of no row of the database (another database's) and a format without stored legality are worked out."""

    def refuse(*args, **kwargs):
        raise AssertionError("legality worked out")

    db = cards.load(cards.default_path())
    fmt = default_formats()["expanded"]
    day = dt.date(2024, 1, 1)
    banned = db.by_name(fmt.bans[0].name)[0]
    sample = [db.get("sv01-181"), db.get("sv02-185"), banned, db.get("base1-4")]
    made = [(fmt.legal_via(card, db, day), fmt.ban_for(card, db, day)) for card in sample]
    assert made[2][1] is fmt.bans[0] and made[1][0] is sample[1]  # banned; Iono legal as itself
    with monkeypatch.context() as m:
        m.setattr(FormatLegality, "legal_via", refuse)
        m.setattr(FormatLegality, "ban_for", refuse)
        read = fmt.legality_reader(db, day)
        kept = [read(card) for card in sample]
        assert all(k[0] is w[0] and k[1] is w[1] for k, w in zip(kept, made, strict=True)), (kept, made)
        assert all(fmt.legality_table(db, day).get(card.id) is k for card, k in zip(sample, kept, strict=True))
    other = sample[0].replace(id="nowhere-1")
    assert read(other) == (fmt.legal_via(other, db, day), fmt.ban_for(other, db, day))
    own = fmt.replace(id="my-expanded")  # no stored legality: the format's code
    assert own.legality_reader(db, day)(banned) == (own.legal_via(banned, db, day), own.ban_for(banned, db, day))
