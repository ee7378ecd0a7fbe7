"""Fast paths answer what the slower code they replaced answered: fold()'s combining-mark table
filled on use (against deleting unicodedata.combining characters one by one), the usual line's
printing found without resolve_parts, and the database's index of usual lines. The line readers'
one-step readings are tests/decklist/test_usual_line.py's."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckcheck import names
from deckcheck.cards.index import SEP, number_norm
from deckcheck.cards.printings import Resolution
from deckcheck.cards.spellings import MAX_NUMBER_LEN
from deckcheck.decklist import fastline
from deckcheck.names import lookup_key


def _fold_oracle(text: str) -> str:
    if text.isascii():
        return text.replace("`", "'")
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).translate(names._APOSTROPHES))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=12))
def test_fold_deletes_exactly_the_combining_characters(text):
    assert names.fold(text) == _fold_oracle(text)


def test_the_combining_table_stays_bounded():
    every = "".join(chr(cp) for cp in range(0x300, 0x300 + 3 * names._COMBINING_KEPT) if not 0xD800 <= cp < 0xE000)
    assert names.fold("Flabe\u0301be\u0301 " + every) == _fold_oracle("Flabe\u0301be\u0301 " + every)
    assert len(names._combining_marks()) <= names._COMBINING_KEPT
    assert names.fold("Pok\u00e9mon") == "Pokemon"


# -- the usual line's printing found without resolve_parts (CardDB.printing_named) -----------------


def _printing_named_agrees(db, name: str, code: str, number: str) -> bool:
    """printing_named answers None or exactly what the general resolution answers; True when it answers."""
    fast = db.printing_named(name, code, number)
    if fast is not None:
        assert Resolution(fast, "printing") == db._resolve(name, code, number), (name, code, number)
    return fast is not None


@pytest.mark.slow
def test_printing_named_answers_as_the_general_resolution_for_every_card():
    from deckcheck import cards

    db = cards.get_db()
    answered = 0
    for card in db.cards.values():
        for name in (card.name, card.name.upper(), card.name + " ex"):
            for number in (card.number, "0" + card.number, card.number + "1"):
                answered += _printing_named_agrees(db, name, card.set_code, number)
    assert answered > len(db.cards) // 2  # most cards' own name, code and number take the short way


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(["Nest Ball", "Iono", "Fire Energy", "Basic Fire Energy", "Darkness Energy", "Unown", "Nest"]),
    st.sampled_from(["SVI", "PAL", "SVE", "ENERGY", "SV1", "N1", "EX", "PR-SV", "svi", "XYZ", "BRS", "SUM"]),
    st.sampled_from(["181", "185", "2", "02", "7", "104", "105", "TG01", "SV001", "999", "1"]),
)
def test_printing_named_answers_as_the_general_resolution(name, code, number):
    from deckcheck import cards

    _printing_named_agrees(cards.get_db(), name, code, number)


def test_printing_facts_are_the_facts_of_a_printing_resolution():
    """A line naming its printing gets, slot by slot, the facts LineFacts.__init__ makes of a
    "printing" resolution, with the printing's legality and profile (made for the first line naming
    it, then kept per card for the format and date), with a format and without one."""
    import datetime as dt

    from deckcheck import cards, engine
    from deckcheck.deck import LineFacts, line_profile

    db = cards.get_db()
    card = db.printing_named("Nest Ball", "SVI", "181")
    assert card is not None
    for fmt, on in (
        (engine.get_format("standard"), dt.date(2026, 5, 1)),
        (engine.get_format("standard"), dt.date(2027, 9, 1)),
        (None, None),
    ):
        via, ban = fmt.legality(card, db, on) if fmt is not None and on is not None else (None, None)
        at = engine.lines._Lines(db, fmt, on)
        if at.printings is not None:
            at.printings.clear()
        for raw, count in (("4 Nest Ball SVI 181", 4), ("* 2 Nest Ball SVI 181", 2)):  # made, then from the table
            made = LineFacts(count, "Nest Ball", "SVI", "181", Resolution(card, "printing"), via, ban, raw)
            made.profile = line_profile(made, db.deck_rules())
            fast = engine.lines._new_facts(at, raw, count, "Nest Ball", "SVI", "181")
            assert {s: getattr(fast, s) for s in LineFacts.__slots__} == {
                s: getattr(made, s) for s in LineFacts.__slots__
            }


def _printing_named_before(db, name: str, set_code: str, number: str):
    """CardDB.printing_named as it was before its places table (session 6): the definition the
    table-driven one is checked against."""
    code = set_code.upper()
    alias = db._aliases.get(code)
    ids = db._by_code.get(code)
    if not ids or alias is not None and alias.action != "lookup" or len(number) > MAX_NUMBER_LEN:
        return None
    norm = SEP + (number if number.isdigit() and number.isascii() and number[0] != "0" else number_norm(number))
    for set_id in ids:
        hit = db._by_number.slot(set_id + norm)
        if hit:
            card = hit[0]
            return card if card.name == name or lookup_key(name) == card.key.lower() else None
    return None


def test_every_number_index_key_is_its_own_norm():
    """printing_named looks a number up as written first: right only because every key's number
    part is a fixed point of number_norm."""
    from deckcheck import cards

    numbers = {key.partition(SEP)[2] for key in cards.get_db()._by_number._rows}
    assert len(numbers) > 500
    assert [n for n in numbers if number_norm(n) != n] == []


@pytest.mark.slow
def test_printing_named_answers_as_before_for_every_card_and_code():
    """Every card of the pool, under every code that names its set (its code, aliases, set id, an
    alias row of data/set-aliases.csv), in upper and lower case, with the number as printed and
    written otherwise, under its name and another: the same card (or None) as before."""
    from deckcheck import cards

    db = cards.get_db()
    codes_of: dict[str, set[str]] = {}
    for code, ids in db._by_code.items():
        for set_id in ids:
            codes_of.setdefault(set_id, set()).add(code)
    for code, alias in db._aliases.items():
        for set_id in alias.sets:
            codes_of.setdefault(set_id, set()).add(code)
    answered = asked = 0
    for card in db.cards.values():
        codes = {card.set_code, *codes_of.get(card.set_id, ()), "XYZ"}
        numbers = {card.number, "0" + card.number, "00" + card.number, card.number.lower(), card.number + "1"}
        numbers |= {" " + card.number, card.number + "a", "1" * 17, "٣"}
        for code in codes | {c.lower() for c in codes}:
            for number in numbers:
                for name in (card.name, card.name.upper()):
                    got = db.printing_named(name, code, number)
                    assert got == _printing_named_before(db, name, code, number), (name, code, number)
                    asked += 1
                    answered += got is not None
    assert answered > len(db.cards) and asked > 20 * len(db.cards)


def test_written_energy_names_are_the_types_basic_energy_type_reads():
    from deckcheck.cards.spellings import WRITTEN_ENERGY

    assert len(WRITTEN_ENERGY) == 4 * len(names.BASIC_ENERGY_TYPES)
    for written, kind in WRITTEN_ENERGY.items():
        assert names.basic_energy_type(written) == kind, written
    assert WRITTEN_ENERGY["Basic {R} Energy"] == "Fire" and WRITTEN_ENERGY["Darkness Energy"] == "Darkness"


# -- the usual lines of every set code, found with one look-up (CardDB.printed_line) ---------------


def _assert_printed_lines_agree(db) -> int:
    """Every entry of ``db``'s index of usual lines, with every set code indexed, is what the pattern reads
    of its text after a count (bare, after a bullet, with a PH tag) and the card printing_named answers
    for those parts; answers how many entries there are."""
    db.index_usual_lines()
    entries = list(db.printed_lines())
    for rest in entries:
        card, name, code, number = db.printed_line(rest)
        assert fastline.card_parts(f"1 {rest}") == (1, name, code, number), rest
        for bullet in fastline.BULLETS:  # what the engine reads past before the count
            assert fastline.card_parts(f"{bullet} 999 {rest} PH") == (999, name, code, number), rest
        assert db.printing_named(name, code, number) is card, rest
        assert db.printed_line(rest + " PH") == (card, name, code, number), rest
        assert f"{name} {code} {number}" == rest
    return len(entries)


@pytest.mark.slow
def test_the_index_of_usual_lines_answers_as_the_pattern_and_printing_named_for_every_code():
    from deckcheck import cards

    db = cards.get_db()
    entries = _assert_printed_lines_agree(db)
    assert entries > len(db.cards)  # every printing (bar a few a name or a number of another shape), and spellings
    # the names lists write that are not the printed name: a typographic apostrophe, basic Energy's names
    assert db.printed_line("Boss’s Orders MEG 114")[0].id == db.printed_line("Boss's Orders MEG 114")[0].id
    for written in ("Basic {R} Energy", "Basic Fire Energy", "Fire Energy"):
        assert db.printed_line(f"{written} SVE 2")[0].id == "sve-002", written
    assert db.printed_line("{R} Energy SVE 2") is None  # not the pattern's shape (a name starts with a letter)
    # a blank or a hyphen before ex, EX and GX, as printed and the other way (PTCGO's Dragapult-ex)
    for rest, card_id in (
        ("Dragapult ex TWM 130", "sv06-130"),
        ("Dragapult-ex TWM 130", "sv06-130"),
        ("Shaymin-EX ROS 77", "xy6-77"),
        ("Shaymin EX ROS 77", "xy6-77"),
    ):
        assert db.printed_line(rest)[0].id == card_id, rest
    assert db.printed_line("Dragapult-ex TWM 130")[1] == "Dragapult-ex"  # the name as written, as the reader reads it
    assert db.printed_line("Dragapult-EX TWM 130") is None  # another spelling: the long way


@pytest.mark.slow
def test_the_index_of_usual_lines_is_the_same_from_the_json_database_and_its_pack():
    """The pack's rows are read without making their cards (CardTable.peek); the JSON's rows are read as
    they are: the two databases index the same lines to the same cards."""
    import gzip

    import orjson

    from deckcheck import cards

    packed = cards.get_db()
    raw = orjson.loads(gzip.decompress(Path(packed.path).read_bytes()))
    plain = cards.from_dict(raw, "test-index", packed.path)
    for db in (packed, plain):
        db.index_usual_lines()
    assert _assert_printed_lines_agree(plain) == len(packed.printed_lines())
    assert {rest: db_card_id(packed, rest) for rest in packed.printed_lines()} == {
        rest: db_card_id(plain, rest) for rest in plain.printed_lines()
    }


def db_card_id(db, rest: str) -> str:
    return db.printed_line(rest)[0].id


def test_a_set_codes_usual_lines_are_indexed_at_its_index_after_th_line():
    """One list's few lines of a code are read the long way; the code's INDEX_AFTER-th line makes its index."""
    import gzip

    import orjson

    from deckcheck import cards
    from deckcheck.cards.usuallines import INDEX_AFTER

    # a database read without its pack (whose table holds every code's lines): nothing indexed yet
    db = cards.from_dict(orjson.loads(gzip.decompress(cards.default_path().read_bytes())), "test-index")
    for _ in range(INDEX_AFTER - 1):
        assert db.printed_line("Nest Ball SVI 181") is None
        assert db.printed_line("Iono PAL 185") is None
    assert db.indexed_codes() == set() and db.printed_lines() == {}
    assert db.printed_line("Nest Ball SVI 181")[0].id == "sv01-181"
    assert db.indexed_codes() == {"SVI"} and db.printed_line("Ultra Ball SVI 196")[0].id == "sv01-196"
    assert db.printed_line("Iono PAL 185")[0].id == "sv02-185"
    assert db.indexed_codes() == {"SVI", "PAL"}
    assert db.index_usual_lines() == len(db.printed_lines()) > len(db.cards)


def test_the_index_of_usual_lines_keeps_only_codes_printing_named_looks_in():
    from deckcheck import cards

    db = cards.get_db()
    db.index_usual_lines()
    assert db.printed_line("Nest Ball SVI 181")[0].id == "sv01-181"
    assert db.printed_line("Nest Ball SVI 181 PH")[0].id == "sv01-181"
    before = db.indexed_codes()
    for rest in ("Nest Ball XYZZY 181", "Nest Ball SVI 181 PH PH", "Nest Ball 181", "Nest Ball svi 181", "PH", ""):
        assert db.printed_line(rest) is None, rest
    assert db.indexed_codes() == before  # a code no set has (or of another shape) is never indexed
    for rest in (
        "Nest Ball SVI 0181",
        "Nest Ball  SVI 181",
        "nest ball SVI 181",
        "Nest Ball SVI 181 ",
        "4 Nest Ball SVI 1",
    ):
        assert db.printed_line(rest) is None, rest  # another spelling: read the long way


def test_the_one_pass_sets_an_indexed_lines_facts_as_printing_facts_does():
    """engine.lines._read_text makes the facts of a line the index of usual lines holds as
    _printing_facts does: the same facts, slot by slot, with the printing table's entry and without
    it, and the line kept in the line memo."""
    import datetime as dt

    from deckcheck import cards, engine
    from deckcheck.deck import LineFacts

    db = cards.get_db()
    db.index_usual_lines()
    for fmt, on in ((engine.get_format("standard"), dt.date(2026, 5, 1)), (None, None)):
        for raw, count in (("4 Nest Ball SVI 181", 4), ("* 2 Boss’s Orders MEG 114 PH", 2)):
            rest = raw.split(" ", 2 if raw[0] == "*" else 1)[-1]
            card, name, code, number = db.printed_line(rest)
            for with_entry in (False, True):
                at = engine.lines._Lines(db, fmt, on)
                at.memo.clear()
                if at.printings is not None and not with_entry:
                    at.printings.clear()
                (line,) = engine.lines._read_text([raw], db, fmt, on)[1]
                assert at.memo.get(raw) is line.facts
                if at.printings is not None and not with_entry:
                    at.printings.clear()
                made = engine.lines._printing_facts(at, raw, count, (card, name, code, number))
                for slot in LineFacts.__slots__:
                    assert getattr(line.facts, slot) == getattr(made, slot), (raw, slot)


def test_the_one_pass_takes_a_headers_section_and_files_the_rest_as_read_does():
    """engine.lines._read_text makes no Header (check() reports none): a header, warm or cold, sets the
    section of the card lines after it; a total, a banner and an unparsed line are filed as read()
    files them."""
    import datetime as dt

    from deckcheck import cards, engine
    from deckcheck.decklist import parse
    from deckcheck.decklist.lineread import read_line

    db = cards.get_db()
    text = (
        "****** Pokémon Trading Card Game Deck List ******\n"
        "Pokémon: 1\n4 Nest Ball SVI 181\n##Trainer Cards - 4\n1 Iono PAL 185\n"
        "Energy (2)\n2 Basic {R} Energy SVE 2\nnot a card line at all\nTotal Cards: 7\n"
    )
    lines = text.splitlines()
    read_result, rows = parse.read(text)
    for cold in (True, False):
        if cold:
            read_line.memo.clear()
        result, out = engine.lines._read_text(lines, db, engine.get_format("standard"), dt.date(2026, 5, 1))
        assert result.headers == []
        assert [(ln.line, ln.section) for ln in out] == [(n, section) for n, section, _ in rows]
        assert [(ln.line, ln.section) for ln in out] == [(3, "pokemon"), (5, "trainer"), (7, "energy")]
        assert (result.declared_total, result.declared_total_line) == (7, 9)
        assert result.problems == read_result.problems and [p.lines for p in result.problems] == [(8,)]
        assert result.decorations == read_result.decorations == [1]
