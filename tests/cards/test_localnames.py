"""Card names in the players' languages (issue #32): real printings and TCGdex's names of them, as the
shipped ``data/names-i18n.json.gz`` holds them (``deckcheck db build --names-i18n``).

Names used (from /work/shared/carddata/names-i18n.json.gz): Nest Ball SVI 181 is Faiblo Ball (fr),
Nestball (de), Nido Ball (es), Minor Ball (it), Bola de Ninho (pt); Rare Candy MEG 125 is Super
Bonbon, Sonderbonbon, Caramelo Raro, Caramella rara, Doce Raro; Ultra Ball SVI 196 / MEG 131 is
Hyper Ball (fr), Hyperball (de), Ultra Bola (pt); Light Ball ASC 191 is Balle Lumière (fr); Iono
PAL 185 is Mashynn, Enigmara, e-Nigma, Kissara, Kissera. Sets' French codes: SVI is E&V, PAL EAP,
ASC HER, TWM MCR; ORP is both Lost Origin and Perfect Order.
"""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import deckcheck
from deckcheck.cards.localnames import LocalNames, from_dict, list_language
from deckcheck.decklist.lineread import read_line
from deckcheck.sync import localnames as sync_local

ON = "2026-05-01"

#: language -> (Nest Ball's name, Rare Candy's name, a misspelling of Rare Candy's, the suggestions for it)
BY_LANGUAGE = {
    "fr": ("Faiblo Ball", "Super Bonbon", "Super Bonbom", ("Super Bonbon", "Super Potion", "Super Ball")),
    "de": ("Nestball", "Sonderbonbon", "Sonderbonbn", ("Sonderbonbon", "Sonnkern")),
    "es": ("Nido Ball", "Caramelo Raro", "Caramelo Rar", ("Caramelo Raro", "Carameloraro", "Cramorant")),
    "it": (
        "Minor Ball",
        "Caramella rara",
        "Caramella rar",
        ("Caramella Rara", "Campanella Oscura", "Area della Festa"),
    ),
    "pt": ("Bola de Ninho", "Doce Raro", "Doce Rar", ("Doce Raro", "Poké Radar")),
}
LANGUAGE_NAMES = {"fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese"}


def _check(text: str):
    return deckcheck.check(text, "standard", ON)


def _rules(report) -> list[str]:
    return [p.rule for p in report.problems]


@pytest.mark.parametrize("lang", sorted(BY_LANGUAGE))
def test_a_printings_name_in_a_language_with_its_code_resolves_without_a_warning(lang, db):
    nest, candy, _typo, _ = BY_LANGUAGE[lang]
    report = _check(f"4 {nest} SVI 181\n4 {candy} MEG 125\n")
    lines = report.lines
    assert [(ln.card.id, ln.method, ln.language, ln.name_differs) for ln in lines] == [
        ("sv01-181", "printing", lang, False),
        ("me01-125", "printing", lang, False),
    ]
    assert "name-mismatch" not in _rules(report)
    (note,) = [p for p in report.problems if p.rule == "names-in-language"]
    assert note.severity == "info"
    assert note.message == (
        f"Card names were recognised in {LANGUAGE_NAMES[lang]} on 2 lines (lines 1, 2); each was checked as the "
        "card it names, and counts toward that card's copy limit with its English name."
    )
    assert note.lines == (1, 2)
    # a name of another printing at the code and number is still a mismatch: SVI 196 is Ultra Ball
    (ln,) = _check(f"4 {nest} SVI 196\n").lines
    assert (ln.card.id, ln.name_differs, ln.language) == ("sv01-196", True, None)


@pytest.mark.parametrize("lang", sorted(BY_LANGUAGE))
def test_a_name_alone_in_a_language_resolves_through_the_english_names_choice(lang, db):
    nest, candy, _typo, _ = BY_LANGUAGE[lang]
    report = _check(f"4 {nest}\n4 {candy}\n")
    english = [db.resolve_parts("Nest Ball", None, None).card, db.resolve_parts("Rare Candy", None, None).card]
    assert [ln.card for ln in report.lines] == english
    assert [(ln.method, ln.language) for ln in report.lines] == [("name", lang), ("name", lang)]
    assert "unknown-card" not in _rules(report)
    by_name = [p.message for p in report.problems if p.rule == "resolved-by-name"]
    assert by_name[0] == (
        f'Line 1: "{nest}" has no set code, so it was matched by name to {english[0].name} '
        f"({english[0].set_code} {english[0].number}), the card it names in {LANGUAGE_NAMES[lang]}."
    )


@pytest.mark.parametrize("lang", sorted(BY_LANGUAGE))
def test_did_you_mean_suggests_in_the_lists_language(lang):
    nest, _candy, typo, expected = BY_LANGUAGE[lang]
    report = _check(f"4 {nest}\n4 {typo}\n")
    (unknown,) = [ln for ln in report.lines if ln.card is None]
    assert unknown.suggestions == expected
    # the same misspelling in an English list: English names
    english = _check(f"4 Nest Ball SVI 181\n4 {typo}\n")
    assert "names-in-language" not in _rules(english)
    assert english.lines[1].suggestions == deckcheck.cards.get_db().suggest(typo) != expected
    (problem,) = [p for p in report.problems if p.rule == "unknown-card"]
    assert (
        problem.hint
        == f"Did you mean {', '.join(expected[:-1]) + ' or ' + expected[-1] if len(expected) > 1 else expected[0]}?"
    )


def test_the_copy_rule_counts_the_english_name_across_languages():
    report = _check("4 Ultra Ball SVI 196\n1 Hyper Ball SVI 196\n")
    (problem,) = [p for p in report.problems if p.rule == "copy-limit"]
    assert problem.message == "You have 5 cards named Ultra Ball (lines 1, 2); the limit is 4."
    assert (
        problem.hint
        == '"Hyper Ball" is Ultra Ball in French; a card\'s names in every language are one name for the limit.'
    )
    # three languages, no set code: one card
    report = _check("2 Faiblo Ball\n2 Nestball\n1 Nido Ball\n")
    (problem,) = [p for p in report.problems if p.rule == "copy-limit"]
    assert problem.message == "You have 5 cards named Nest Ball (lines 1, 2, 3); the limit is 4."
    assert problem.hint == (
        '"Faiblo Ball" is Nest Ball in French, "Nestball" is Nest Ball in German and "Nido Ball" is Nest Ball '
        "in Spanish; a card's names in every language are one name for the limit."
    )


def test_messages_name_the_card_as_written():
    report = _check("1 Hyper Ball SVI 196\n")
    (problem,) = [p for p in report.problems if p.rule == "legal-by-reprint"]
    assert problem.message == (
        "Line 1: Hyper Ball (Ultra Ball, SVI 196) is legal as Ultra Ball (ASC 213); play it with that card's text."
    )
    report = _check("1 Mashynn PAL 185\n")
    (problem,) = [p for p in report.problems if p.rule == "not-in-format"]
    assert problem.message.startswith("Mashynn (Iono, PAL 185) (line 1) is not legal in Standard on 2026-05-01: ")


@pytest.mark.parametrize(
    ("line", "card_id"),
    [
        ("4 Faiblo Ball E&V 181", "sv01-181"),  # & in a code
        ("4 Faiblo Ball (E&V 181)", "sv01-181"),
        ("4 Nest Ball e&v 181", "sv01-181"),  # an English name with a French code, lower case
        ("1 Mashynn EAP 185", "sv02-185"),
        ("1 Balle Lumière HER 191", "me02.5-191"),
        ("4 Fantyrm MCR 128", "sv06-128"),
        ("2 Poké Registre ORP 81", "me03-081"),  # ORP: Lost Origin and Perfect Order in French
    ],
)
def test_french_set_codes_are_the_sets_they_name(line, card_id, db):
    report = _check(line + "\n")
    (ln,) = report.lines
    assert (ln.card.id, ln.method, ln.name_differs) == (card_id, "printing", False)
    assert not {"unknown-set", "name-mismatch", "unknown-card"} & set(_rules(report))
    assert db.knows_set(line.split()[-2].strip("(").upper())
    # DEX is Dark Explorers in English and Dragons Exalted in French: the English set wins
    assert (db.sets_for_code("DEX")[0], db.sets_for_code("E&V")) == ("bw5", ("sv01",))


def test_a_french_code_with_a_wrong_number_is_no_newer_set():
    report = _check("4 Faiblo Ball E&V 999\n")
    (ln,) = report.lines
    assert (ln.card.name, ln.method, ln.language) == ("Nest Ball", "name-and-set", "fr")
    assert ln.card.set_id == "sv01"
    assert "unknown-set" not in _rules(report)


def test_english_first_then_the_lists_language():
    # Poppy is an Italian name of another card, and an English card name: English wins
    report = _check("1 Poppy\n")
    assert (report.lines[0].card.name, report.lines[0].language) == ("Poppy", None)
    # Lilia is Lileep in French, Iris in German, Drasna in Italian; Ultraball is Beast Ball in
    # German, Ultra Ball in Spanish: the list's language decides
    fr = _check("1 Lilia\n4 Faiblo Ball\n")
    de = _check("1 Lilia\n4 Nestball\n4 Sonderbonbon\n")
    it = _check("1 Lilia\n4 Minor Ball\n")
    assert [r.lines[0].card.name for r in (fr, de, it)] == ["Lileep", "Iris", "Drasna"]
    assert [r.lines[0].language for r in (fr, de, it)] == ["fr", "de", "it"]
    es = _check("1 Ultraball\n4 Nido Ball\n4 Caramelo Raro\n")
    de = _check("1 Ultraball\n4 Nestball\n")
    assert (es.lines[0].card.name, de.lines[0].card.name) == ("Ultra Ball", "Beast Ball")
    # alone, the first language of LANGUAGES' order that writes it
    assert _check("1 Lilia\n").lines[0].card.name == "Lileep"


def test_the_api_json_has_the_name_as_written_and_its_language():
    report = _check("4 Hyper Ball SVI 196\n4 Nest Ball SVI 181\n")
    first, second = report.to_dict()["cards"]
    assert (first["name_as_written"], first["language"], first["card"]["name"]) == ("Hyper Ball", "fr", "Ultra Ball")
    assert (second["name_as_written"], second["language"]) == ("Nest Ball", None)
    assert json.loads(json.dumps(report.to_dict()))["cards"][0]["language"] == "fr"


def test_list_language_counts_every_language_a_name_is_in():
    names = from_dict({"schema": 1, "english": ["A", "B"], "names": {"de": [["X", 0], ["Y", 1]], "es": [["X", 1]]}})

    class Line:
        def __init__(self, name, language):
            self.name, self.language, self.card = name, language, None

    assert list_language([Line("X", "de")], names) == "de"  # a tie: LANGUAGES' order
    assert list_language([Line("X", "de"), Line("Y", "de")], names) == "de"
    assert list_language([Line("X", "de")], None) is None
    assert list_language([Line("Z", None)], names) is None


def test_the_table_keeps_one_entry_per_distinct_name_and_drops_english_spellings():
    source = {
        "meta": {"source": "TCGdex", "commit": "c", "license": "MIT", "repository": "r"},
        "cards": {
            "a-1": {"fr": "Hyper Ball", "de": "Hyperball", "it": "Ultra Ball"},
            "b-2": {"fr": "Hyper Ball"},
            "c-3": {"fr": "Mew-ex"},  # the English name's key (Mew ex): found as English already
        },
        "sets": {
            "a": {"codes": {"official": "SVI", "fr": "E&V"}},
            "b": {"codes": {"official": "DEX", "fr": "DEX"}},
            "c": {"codes": {"fr": "SVI"}},
        },
    }
    rows = [
        [cid, name, "Trainer", [], None, [], None, cid[0]]
        for cid, name in (("a-1", "Ultra Ball"), ("b-2", "Ultra Ball"), ("c-3", "Mew ex"))
    ]
    table = sync_local.table(source, rows)
    assert table["english"] == ["Ultra Ball"]
    assert table["names"] == {"fr": [["Hyper Ball", 0]], "de": [["Hyperball", 0]]}
    sets = [{"id": "a", "ptcgl_code": "SVI"}, {"id": "b", "ptcgl_code": "DEX"}, {"id": "c", "ptcgl_code": "MEW"}]
    assert sync_local.local_codes(source, sets) == {"a": {"fr": "E&V"}}  # SVI is an English code: not c's
    again = from_dict(json.loads(gzip.decompress(sync_local.encode(table))))
    assert isinstance(again, LocalNames)
    assert again.pick("hyper ball") == ("fr", "Ultra Ball")
    assert sync_local.encode(table) == sync_local.encode(table)


@pytest.mark.parametrize(
    "raw",
    [
        {"schema": 2, "english": [], "names": {}},
        {"schema": 1, "english": [""], "names": {}},
        {"schema": 1, "english": ["A"], "names": {"fr": [["X", 1]]}},
        {"schema": 1, "english": ["A"], "names": {"fr": [["X"]]}},
        {"schema": 1, "english": ["A"], "names": {"fr": {"X": 0}}},
        [],
    ],
)
def test_a_malformed_table_is_refused(raw):
    from deckcheck.cards.localnames import NamesError

    with pytest.raises(NamesError):
        from_dict(raw)


_CODE_PART = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(left=_CODE_PART, right=_CODE_PART, number=st.integers(1, 9999))
def test_a_code_with_an_ampersand_is_read_as_a_code(left, right, number):
    code = f"{left}&{right}"
    fields = read_line(f"4 Faiblo Ball {code} {number}")[1]
    if any(c.isalpha() for c in code):
        assert (fields["name"], fields["set_code"], fields["number"]) == ("Faiblo Ball", code, str(number))
    else:
        assert fields["set_code"] is None and fields["name"] == f"Faiblo Ball {code} {number}"


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 21_000))  # up to ~64 KiB on one line: the decklist limit
def test_ampersand_runs_read_in_linear_time(n):
    import time

    line = "1 A " + "&" * n + " " + "A&" * n + "B 12"
    started = time.perf_counter()
    read_line(line)
    assert time.perf_counter() - started < 1.0  # 100x a linear reading of 64 KiB


def test_stored_keys_are_used_only_when_this_code_made_them(monkeypatch):
    from deckcheck.cards import index

    raw = {
        "schema": 1,
        "english": ["Ultra Ball"],
        "names": {"fr": [["Hyper Ball", 0]]},
        "keys": {"fingerprint": index.fingerprint(), "fr": ["stored key"]},
    }
    assert list(from_dict(raw).by_key) == ["stored key"]  # this code's keys: trusted as stored
    raw["keys"]["fingerprint"] = "other code"
    assert list(from_dict(raw).by_key) == ["hyper ball"]  # another names.py's: made again
    raw["keys"] = {"fingerprint": index.fingerprint(), "fr": []}
    assert list(from_dict(raw).by_key) == ["hyper ball"]  # not one per entry: made again


def test_a_sync_keeps_the_sets_codes_in_other_languages():
    from deckcheck.sync.install import _keep_local_codes

    new = {"sets": [{"id": "sv01"}, {"id": "sv02", "local_codes": {"fr": "EAP"}}, {"id": "me06"}]}
    previous = {"sets": [{"id": "sv01", "local_codes": {"fr": "E&V"}}, {"id": "sv02", "local_codes": {"fr": "X"}}]}
    _keep_local_codes(new, previous)
    assert new["sets"] == [
        {"id": "sv01", "local_codes": {"fr": "E&V"}},
        {"id": "sv02", "local_codes": {"fr": "EAP"}},  # the new database's own
        {"id": "me06"},
    ]


def test_a_translated_list_of_many_unknown_names_gets_suggestions_for_the_first_25_only():
    from deckcheck.engine import SUGGEST_MAX_NAMES

    text = "1 Faiblo Ball\n" + "".join(f"1 Super Bonbo{i:03d}\n" for i in range(999))
    report = _check(text)
    unknown = [ln for ln in report.lines if ln.card is None]
    assert len(unknown) == 999
    assert all("Super Bonbon" in ln.suggestions for ln in unknown[:SUGGEST_MAX_NAMES])
    assert all(ln.suggestions == () for ln in unknown[SUGGEST_MAX_NAMES:])
    assert "suggestions-skipped" in _rules(report)


def test_the_names_file_is_read_beside_the_database_and_a_broken_one_fails_loudly(tmp_path):
    import shutil

    from deckcheck import cards
    from deckcheck.cards import DatabaseError

    data = cards.default_path()
    for name in (data.name, data.name + ".pack"):
        shutil.copy(data.parent / name, tmp_path / name)
    alone = cards.load(tmp_path / data.name)
    assert alone.local_names() is None  # no names file beside it: English names only
    report = deckcheck.check("4 Faiblo Ball SVI 181\n", "standard", ON, db=alone)
    assert [p.rule for p in report.problems if p.rule in ("name-mismatch", "names-in-language")] == ["name-mismatch"]
    (tmp_path / "names-i18n.json.gz").write_bytes(b"\x1f\x8bnot gzip")
    broken = cards.load(tmp_path / data.name)
    with pytest.raises(DatabaseError, match="localized names at .*names-i18n.json.gz are unreadable"):
        broken.local_names()


def test_a_name_of_two_english_names_in_one_language_is_read_as_the_newest(db):
    source = {"cards": {"old-1": {"de": "EP-Teiler"}, "new-1": {"de": "EP-Teiler"}}, "sets": {}}
    rows = [
        ["old-1", "EXP. ALL", "Trainer", [], None, [], None, "old"],
        ["new-1", "Exp. Share", "Trainer", [], None, [], None, "new"],
    ]
    table = sync_local.table(source, rows, {"old": "2003-01-01", "new": "2023-03-31"})
    assert table["names"]["de"] == [
        ["EP-Teiler", table["english"].index("Exp. Share"), table["english"].index("EXP. ALL")]
    ]
    # the shipped table: a German name-only line is the newest card of that name
    res = db.resolve_parts("EP-Teiler", None, None)
    assert (res.card.name, res.language) == ("Exp. Share", "de")


@pytest.mark.parametrize("lang", sorted(BY_LANGUAGE))
def test_a_name_alone_in_a_language_keeps_its_language_on_a_date_before_the_newest_printing(lang):
    """On 2024-06-01 Rare Candy's newest printing (MEG 125, 2025-09-26) was not out: the line is read as
    the newest one out then, still as the card the name is in that language (the note, the message
    and the list's language for "did you mean" follow it)."""
    _nest, candy, typo, expected = BY_LANGUAGE[lang]
    report = deckcheck.check(f"4 {candy}\n4 {typo}\n", "standard", "2024-06-01")
    first = report.lines[0]
    assert (first.card.id, first.method, first.language) == ("sv04.5-089", "name", lang)
    (note,) = [p for p in report.problems if p.rule == "names-in-language"]
    assert note.lines == (1,)
    assert [p.message for p in report.problems if p.rule == "resolved-by-name"] == [
        f'Line 1: "{candy}" has no set code, so it was matched by name to Rare Candy (PAF 89), the card it names '
        f"in {LANGUAGE_NAMES[lang]}, the newest printing released by 2024-06-01 (Rare Candy (MEG 125) was "
        "released on 2025-09-26)."
    ]
    assert report.lines[1].suggestions == expected


@pytest.mark.parametrize(
    "line, lang, card_id",
    [
        ("3 Lugia V ASTRO", "es", "swsh12-139"),  # Spanish and Italian for Lugia VSTAR (SIT 139)
        ("3 Passe de Combat VIP", "fr", "swsh8-225"),  # French for Battle VIP Pass (FST 225)
        ("3 Pase de Combate VIP", "es", "swsh8-225"),
        ("3 Passe de Batalha VIP", "pt", "swsh8-225"),
    ],
)
def test_a_translated_name_ending_in_a_capital_word_is_the_whole_name_not_a_set_code(line, lang, card_id):
    """The reader takes a last all-capital word for a set code without a number; a name in another
    language that ends so (V ASTRO, VIP) is that name's card, named as written, with no unknown set."""
    text = f"4 Lugia V SIT 138\n{line}\n4 Archeops SIT 147\n" if "Lugia" in line else f"{line}\n"
    report = deckcheck.check(text, "standard", "2023-08-11")
    ln = [ln for ln in report.lines if ln.raw == line][0]
    whole = line[2:]
    assert (ln.card.id, ln.method, ln.language, ln.name, ln.set_code) == (card_id, "name", lang, whole, None)
    assert {"unknown-set", "copy-limit", "evolution-gap", "unknown-card"}.isdisjoint(_rules(report))
    (by_name,) = [p.message for p in report.problems if p.rule == "resolved-by-name" and ln.line in p.lines]
    assert by_name.startswith(f'Line {ln.line}: "{whole}" has no set code, so it was matched by name to ')
    assert by_name.endswith(f", the card it names in {LANGUAGE_NAMES[lang]}.")
    # before the card was printed, the line still names it as written
    (early,) = [
        p.message for p in deckcheck.check(f"{line}\n", "standard", "2019-08-16").problems if p.rule == "unknown-card"
    ]
    assert early.startswith(
        f'Line 1: no printing of "{whole}" had been released on 2019-08-16; the card was first printed on '
    )


@pytest.mark.parametrize("lang", sorted(BY_LANGUAGE))
def test_a_name_in_a_language_before_the_cards_first_printing_says_when_it_was_first_printed(lang):
    """Nest Ball was first printed in Sun & Moon (SUM 123, 2017-02-03): a list of 2012 naming it in any
    language names no card on that date, and says when the card was first printed, as an English line does."""
    nest = BY_LANGUAGE[lang][0]
    report = deckcheck.check(f"4 {nest}\n4 Nest Ball\n", "unlimited", "2012-08-11")
    messages = [p.message for p in report.problems if p.rule == "unknown-card"]
    first = (
        "the card was first printed on 2017-02-03 (Nest Ball (SUM 123)). Its 4 copies still count toward the deck size."
    )
    assert messages == [
        f'Line 1: no printing of "{nest}" had been released on 2012-08-11; {first}',
        f'Line 2: no printing of "Nest Ball" had been released on 2012-08-11; {first}',
    ]


def test_a_name_two_languages_write_for_different_cards_is_read_in_the_lists_language_before_either_was_printed():
    """Ultraball is Beast Ball in German (first printed 2018-08-03) and Ultra Ball in Spanish: a Spanish
    list of 2012 means Ultra Ball, though the German reading, tried first, names no card on that date."""
    spanish = deckcheck.check("4 Ultraball\n4 Caramelo Raro\n", "standard", "2012-08-10")
    assert [(ln.card.id, ln.language) for ln in spanish.lines] == [("bw5-102", "es"), ("bw5-100", "es")]
    assert "unknown-card" not in _rules(spanish)
    german = deckcheck.check("4 Ultraball\n4 Sonderbonbon\n", "standard", "2012-08-10")
    assert german.lines[0].card is None
    assert [p.message for p in german.problems if p.rule == "unknown-card"] == [
        'Line 1: no printing of "Ultraball" had been released on 2012-08-10; the card was first printed on '
        "2018-08-03 (Beast Ball (CES 125)). Its 4 copies still count toward the deck size."
    ]


def test_a_name_of_the_same_card_in_several_languages_is_said_in_the_lists_language():
    """Charizard Radiante is Radiant Charizard in Spanish and in Portuguese: in a Portuguese list its
    line, its message and the note all say Portuguese."""
    report = deckcheck.check(
        "1 Charizard Radiante\n1 Charizard Radiante CRZ 20\n4 Ultra Bola\n", "standard", "2024-08-16"
    )
    assert [ln.language for ln in report.lines] == ["pt", "pt", "pt"]
    (by_name, *_) = [p.message for p in report.problems if p.rule == "resolved-by-name"]
    assert by_name == (
        'Line 1: "Charizard Radiante" has no set code, so it was matched by name to Radiant Charizard (CRZ 20), '
        "the card it names in Portuguese."
    )
    (note,) = [p for p in report.problems if p.rule == "names-in-language"]
    assert note.message.startswith("Card names were recognised in Portuguese on 3 lines (lines 1, 2, 3);")
