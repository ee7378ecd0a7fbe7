"""Tests for deckcheck.decklist.parse: golden decklists, single lines, and properties.

Goldens live in ``tests/decks``: ``NAME.txt`` is the input as bytes (BOM and
line endings included) and ``NAME.parse.json`` the expected ``ParseResult``.
A case is any ``NAME.parse.json`` (other tests keep their own decks in the same
folder). Regenerate with ``DECKCHECK_REGEN=1 python -m pytest tests/decklist/test_parse.py``
and read the diff before committing it; to add a case, write ``NAME.txt``,
create an empty ``NAME.parse.json`` and regenerate.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from deckcheck.decklist import lineread
from deckcheck.decklist import parse as parse_module
from deckcheck.decklist.parse import CardLine, Header, ParseResult, parse
from deckcheck.decklist.vocab import usual_card

DECKS = Path(__file__).parent.parent / "decks"
REGEN = os.environ.get("DECKCHECK_REGEN") == "1"
HINT = 'A card line looks like "4 Nest Ball SVI 181" and a header like "Trainer: 12".'


def _read(name: str) -> str:
    """A fixture decoded from its exact bytes: no newline translation, BOM kept."""
    return (DECKS / name).read_bytes().decode("utf-8")


def _only(result: ParseResult) -> CardLine:
    assert result.problems == [] and len(result.cards) == 1, result
    return result.cards[0]


def _messages(result: ParseResult) -> list[tuple[tuple[int, ...], str]]:
    return [(p.lines, p.message) for p in result.problems]


# --- golden decklists -------------------------------------------------------


GOLDENS = sorted(DECKS.glob("*.parse.json"))


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.removesuffix(".parse.json"))
def test_golden(golden: Path) -> None:
    deck = golden.with_name(golden.name.removesuffix(".parse.json") + ".txt")
    got = parse(deck.read_bytes().decode("utf-8")).to_dict()
    if REGEN:
        golden.write_text(json.dumps(got, ensure_ascii=False, indent=2) + "\n", encoding="utf-8", newline="\n")
    assert got == json.loads(golden.read_text(encoding="utf-8"))


def test_goldens_cover_every_format() -> None:
    cases = {p.name.removesuffix(".parse.json") for p in GOLDENS}
    assert cases >= {
        "ptcgl-en-charizard",
        "ptcgl-fr-random-line",
        "limitless-energy-set-code",
        "ptcgo-legacy",  # reference 2.6
        "ptcgl-de-headers",
        "ptcgl-pt-headers",
        "ptcgl-es-headers",
        "ptcgl-it-headers",
        "limitless-copy-counts",
        "rk9-suffixes",
        "x-counts",
        "parentheses-and-brackets",
        "crlf-bom",
        "lone-cr",
        "curly-apostrophes-accents",
        "json-deck",
        "json-invalid",
        "headerless",
        "youtube-description",
        "alnum-numbers",
        "tricky-names",
        "rk9-deck",
        "rk9-players",
        "limitless-api",
        "limitless-standings",
        "pokemontcg-io-deck",  # issue 13
        "json-unknown-shape",
        "discord-code-fence",
        "lowercase-set-codes",
    }


def test_fixture_bytes_survive() -> None:
    """Editors and pre-commit hooks like to 'fix' these; the goldens depend on them."""
    crlf = (DECKS / "crlf-bom.txt").read_bytes()
    assert crlf.startswith(b"\xef\xbb\xbf") and b"\r\n" in crlf and b"\n" not in crlf.replace(b"\r\n", b"")
    lone_cr = (DECKS / "lone-cr.txt").read_bytes()
    assert b"\r" in lone_cr and b"\n" not in lone_cr


def test_example_1_ptcgl_english() -> None:
    result = parse(_read("ptcgl-en-charizard.txt"))
    assert result.problems == [] and result.decorations == []
    assert [(h.section, h.count) for h in result.headers] == [("pokemon", 14), ("trainer", 12), ("energy", 3)]
    assert len(result.cards) == 29 and sum(c.count for c in result.cards) == 60
    assert (result.declared_total, result.declared_total_line) == (60, 36)
    assert [c.line for c in result.cards if c.tag == "PH"] == [3, 9, 34]
    svalt = CardLine(33, "1 Basic {R} Energy SVALT 132", 1, "Basic {R} Energy", "SVALT", "132", "energy")
    assert result.cards[-2] == svalt


def test_example_2_french_random_line() -> None:
    result = parse(_read("ptcgl-fr-random-line.txt"))
    assert [(h.label, h.section, h.count) for h in result.headers] == [
        ("Pokémon", "pokemon", 9),
        ("Dresseur", "trainer", 12),
        ("Énergie", "energy", 3),
    ]
    assert sum(c.count for c in result.cards) == 60 and result.declared_total == 60
    assert _messages(result) == [((33,), 'Line 33 is not a card line or a section header: "Random line at the end".')]


def test_example_3_limitless_energy_set_code() -> None:
    result = parse(_read("limitless-energy-set-code.txt"))
    assert result.problems == [] and sum(c.count for c in result.cards) == 60
    energy = [(c.name, c.set_code, c.number) for c in result.cards if c.section == "energy"]
    assert energy == [("Basic {P} Energy", "ENERGY", "13"), ("Basic {R} Energy", "ENERGY", "10")]


def test_example_4_legacy_ptcgo() -> None:
    result = parse(_read("ptcgo-legacy.txt"))
    assert result.problems == [] and result.decorations == [1, 44]
    assert [(h.label, h.count) for h in result.headers] == [("Pokémon", 30), ("Trainer Cards", 10), ("Energy", 20)]
    assert sum(c.count for c in result.cards) == 60 and result.declared_total == 60
    assert result.cards[-2].set_code == "TK-ALOLANRAICHU" and result.cards[-2].name == "Psychic Energy"


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_line_endings_do_not_matter(ending: str) -> None:
    text = _read("ptcgl-en-charizard.txt")
    assert parse("\ufeff" + text.replace("\n", ending)) == parse(text)


# --- single card lines ------------------------------------------------------

LINES = [
    # PTCGL
    ("2 Pidgey MEW 16", (2, "Pidgey", "MEW", "16", None)),
    ("1 Mimikyu PAL 97 PH", (1, "Mimikyu", "PAL", "97", "PH")),
    ("3 Basic {R} Energy SVE 10 PH", (3, "Basic {R} Energy", "SVE", "10", "PH")),
    ("1 Basic {R} Energy SVALT 132", (1, "Basic {R} Energy", "SVALT", "132", None)),
    ("3 Boss's Orders SWSHALT 32", (3, "Boss's Orders", "SWSHALT", "32", None)),
    ("1 Technical Machine: Devolution PAR 177", (1, "Technical Machine: Devolution", "PAR", "177", None)),
    ("4 Pokégear 3.0 SVI 186", (4, "Pokégear 3.0", "SVI", "186", None)),
    ("4 Pokégear 3.0", (4, "Pokégear 3.0", None, None, None)),
    ("2 Porygon-Z CRE 113", (2, "Porygon-Z", "CRE", "113", None)),
    ("1 Xurkitree-GX PR-SM 68", (1, "Xurkitree-GX", "PR-SM", "68", None)),
    ("1 Bellelba & Brycen-Man CEC 186", (1, "Bellelba & Brycen-Man", "CEC", "186", None)),
    (
        "1 Professor's Research (Professor Turo) SVI 189",
        (1, "Professor's Research (Professor Turo)", "SVI", "189", None),
    ),
    ("2 Professor's Research (Professor Sada)", (2, "Professor's Research (Professor Sada)", None, None, None)),
    ("1 Telepathic {P} Energy PAL 190", (1, "Telepathic {P} Energy", "PAL", "190", None)),
    ("4 Boss’s Orders PAL 172", (4, "Boss’s Orders", "PAL", "172", None)),
    ("1 Thunder Mountain ◇ LOT 191", (1, "Thunder Mountain ◇", "LOT", "191", None)),
    ("1 Mew ex PR-SV 53", (1, "Mew ex", "PR-SV", "53", None)),
    ("1 Rayquaza 30C 12", (1, "Rayquaza", "30C", "12", None)),
    # Limitless
    ("3 Basic {P} Energy Energy 13", (3, "Basic {P} Energy", "ENERGY", "13", None)),
    ("2 Mewtwo CRZ-GG 25", (2, "Mewtwo", "CRZ-GG", "25", None)),
    ("1 Lost City LOR-TG TG21", (1, "Lost City", "LOR-TG", "TG21", None)),
    # early PTCGL and PTCGO basic Energy: a number and no set
    ("8 Fire Energy 2", (8, "Fire Energy", None, "2", None)),
    ("* 11 Lightning Energy 4", (11, "Lightning Energy", None, "4", None)),
    # legacy PTCGO
    ("* 2 Doduo GEN 55", (2, "Doduo", "GEN", "55", None)),
    ("* 10 Psychic Energy TK-AlolanRaichu 20", (10, "Psychic Energy", "TK-ALOLANRAICHU", "20", None)),
    ("* 1 Arceus {*} FLI 96", (1, "Arceus {*}", "FLI", "96", None)),
    ("1 Xerneas PR-XY XY05", (1, "Xerneas", "PR-XY", "XY05", None)),
    # alphanumeric collector numbers: the letter prefix is upper-cased, the rest kept
    ("1 Charizard ex SHF SV34", (1, "Charizard ex", "SHF", "SV34", None)),
    ("1 Zeraora PAF sv034", (1, "Zeraora", "PAF", "SV034", None)),
    ("1 Mewtwo CRZ GG44", (1, "Mewtwo", "CRZ", "GG44", None)),
    ("1 Mew BKT 146a", (1, "Mew", "BKT", "146a", None)),
    ("1 Zacian V PR-SW SWSH205", (1, "Zacian V", "PR-SW", "SWSH205", None)),
    # Limitless's own code of the Sword & Shield promos (data/set-aliases.csv SP), no name ends in SP
    ("1 Zacian V SP 18", (1, "Zacian V", "SP", "18", None)),
    ("1 Flareon GEN RC6", (1, "Flareon", "GEN", "RC6", None)),
    ("2 Water Energy CL 90", (2, "Water Energy", "CL", "90", None)),
    # RK9 suffixes
    ("4 Fighting Energy - Basic", (4, "Fighting Energy", None, None, "Basic")),
    ("1 Prime Catcher - ACESPEC", (1, "Prime Catcher", None, None, "ACESPEC")),
    # counts
    ("4x Iono PAL 185", (4, "Iono", "PAL", "185", None)),
    ("x4 Iono PAL 185", (4, "Iono", "PAL", "185", None)),
    ("4× Iono", (4, "Iono", None, None, None)),
    ("2X Iono", (2, "Iono", None, None, None)),
    ("Iono x4", (4, "Iono", None, None, None)),
    ("Iono PAL 185 x4", (4, "Iono", "PAL", "185", None)),
    ("004 Iono", (4, "Iono", None, None, None)),
    ("999 Iono", (999, "Iono", None, None, None)),
    # a quoted line (Discord, Markdown)
    ("> 4 Dreepy TWM 128", (4, "Dreepy", "TWM", "128", None)),
    # a times sign standing alone after the count (hand-written lists); no card name starts with one
    ("2 x Pidgeot ex OBF 164", (2, "Pidgeot ex", "OBF", "164", None)),
    ("4 X Nest Ball", (4, "Nest Ball", None, None, None)),
    ("4 × Nest Ball", (4, "Nest Ball", None, None, None)),
    ("* 4 x Ultra Ball FLF 99", (4, "Ultra Ball", "FLF", "99", None)),
    ("4 x", (4, "x", None, None, None)),
    # a list typed in lower case: "ph" is the PTCGL tag only after a number
    ("4 nest ball svi 181 ph", (4, "nest ball", "SVI", "181", "PH")),
    ("4 Nest Ball ph", (4, "Nest Ball ph", None, None, None)),
    # set in parentheses or brackets, set without a number
    ("4 Nest Ball (SVI 181)", (4, "Nest Ball", "SVI", "181", None)),
    ("3 Dunsparce (PAL)", (3, "Dunsparce", "PAL", None, None)),
    ("1 Goldeen [ME05] 13", (1, "Goldeen", "ME05", "13", None)),
    ("1 Lost Vacuum [crz]", (1, "Lost Vacuum", "CRZ", None, None)),
    ("2 Bisharp ASC", (2, "Bisharp", "ASC", None, None)),
    ("2 Mew PR-SV", (2, "Mew", "PR-SV", None, None)),
    # an all-capital name ending is not a set
    ("2 Pikachu VMAX", (2, "Pikachu VMAX", None, None, None)),
    ("1 Arceus VSTAR", (1, "Arceus VSTAR", None, None, None)),
    ("1 Hoopa EX", (1, "Hoopa EX", None, None, None)),
    ("1 Tapu Lele GX", (1, "Tapu Lele GX", None, None, None)),
    ("1 Lugia LEGEND", (1, "Lugia LEGEND", None, None, None)),
    ("1 Luxray GL", (1, "Luxray GL", None, None, None)),
    # a name always keeps at least one token
    ("1 N NVI 101", (1, "N", "NVI", "101", None)),
    ("1 N", (1, "N", None, None, None)),
    ("1 AZ", (1, "AZ", None, None, None)),
    ("1 PH", (1, "PH", None, None, None)),
    ("1 Mimikyu PH", (1, "Mimikyu", None, None, "PH")),
    # a number without a set stays in the name unless the name ends in Energy
    ("4 Iono 185", (4, "Iono 185", None, None, None)),
    # a set code in lower case, before a number, is a set (issue 13); name endings never are
    ("4 Iono pal 185", (4, "Iono", "PAL", "185", None)),
    ("4 Cynthia's Gible asc 109", (4, "Cynthia's Gible", "ASC", "109", None)),
    ("2 Mew ex 151", (2, "Mew ex 151", None, None, None)),
    ("2 Mew ex mew 151", (2, "Mew ex", "MEW", "151", None)),
    ("1 Pikachu gx 12", (1, "Pikachu gx 12", None, None, None)),
    ("1 Iono Pal 185", (1, "Iono Pal 185", None, None, None)),
    # markup and spacing
    ("- 4 Iono PAL 185", (4, "Iono", "PAL", "185", None)),
    ("• 4 Iono PAL 185", (4, "Iono", "PAL", "185", None)),
    ("4  Nest   Ball  SVI 181", (4, "Nest   Ball", "SVI", "181", None)),
    ("\t4 Iono PAL 185  ", (4, "Iono", "PAL", "185", None)),
]


@pytest.mark.parametrize("line, expected", LINES, ids=[line for line, _ in LINES])
def test_card_line(line: str, expected: tuple) -> None:
    card = _only(parse(line))
    assert (card.count, card.name, card.set_code, card.number, card.tag) == expected
    assert (card.line, card.raw, card.section) == (1, line, None)


# --- headers, totals, decorations -------------------------------------------

HEADERS = [
    ("Pokémon: 14", "pokemon", "Pokémon", 14),
    ("Pokemon: 14", "pokemon", "Pokemon", 14),
    ("POKÉMON: 1", "pokemon", "POKÉMON", 1),
    ("Pokémon : 9", "pokemon", "Pokémon", 9),
    ("Trainer: 12", "trainer", "Trainer", 12),
    ("Dresseur: 12", "trainer", "Dresseur", 12),
    ("Treinador: 12", "trainer", "Treinador", 12),
    ("Entrenador: 12", "trainer", "Entrenador", 12),
    ("Allenatore: 12", "trainer", "Allenatore", 12),
    ("Energy: 3", "energy", "Energy", 3),
    ("Énergie : 3", "energy", "Énergie", 3),
    ("Energie: 3", "energy", "Energie", 3),
    ("Energia: 3", "energy", "Energia", 3),
    ("Energía: 3", "energy", "Energía", 3),
    ("Pokémon (22)", "pokemon", "Pokémon", 22),
    ("##Pokémon - 30", "pokemon", "Pokémon", 30),
    ("##Trainer Cards - 10", "trainer", "Trainer Cards", 10),
    ("##Energy - 20", "energy", "Energy", 20),
    ("## Trainer: 19", "trainer", "Trainer", 19),
    ("Trainer:", "trainer", "Trainer", None),
    ("Energy", "energy", "Energy", None),
    ("  Pokémon: 14  ", "pokemon", "Pokémon", 14),
    # Markdown bold around the header (a Discord post)
    ("**Pokémon (12)**", "pokemon", "Pokémon", 12),
    ("__Trainer: 4__", "trainer", "Trainer", 4),
    ("**Energy**", "energy", "Energy", None),
]


@pytest.mark.parametrize("line, section, label, count", HEADERS, ids=[h[0] for h in HEADERS])
def test_header(line: str, section: str, label: str, count: int | None) -> None:
    result = parse(line)
    assert result.headers == [Header(1, section, label, count)]
    assert result.cards == [] and result.problems == []


TOTALS = [
    "Total Cards: 60",
    "Karten insgesamt: 60",
    "Total de cartes : 60",
    "Total de cartas: 60",
    "Carte totali: 60",
    "Cartas totales: 60",
    "Total Cards - 60",
    "Total: 60",
    "**Total Cards: 60**",
]


@pytest.mark.parametrize("line", TOTALS)
def test_declared_total(line: str) -> None:
    result = parse(f"4 Iono PAL 185\n\n{line}")
    assert (result.declared_total, result.declared_total_line) == (60, 3)
    assert result.headers == [] and result.problems == [] and len(result.cards) == 1


def test_second_total_is_a_problem() -> None:
    result = parse("Total Cards: 60\nTotal Cards: 59")
    assert (result.declared_total, result.declared_total_line) == (60, 1)
    assert _messages(result) == [((2,), "Line 2 repeats the card total; the total on line 1 is the one checked.")]


def test_cards_take_the_nearest_header_above() -> None:
    text = "4 Iono PAL 185\nPokémon: 1\n1 Mew MEW 151\nTotal Cards: 5\n1 Pikachu SVI 62\nDresseur: 1\n1 Arven SVI 166"
    result = parse(text)
    assert [(c.line, c.section) for c in result.cards] == [(1, None), (3, "pokemon"), (5, "pokemon"), (7, "trainer")]


def test_banners_are_decorations() -> None:
    text = "****** Pokémon Trading Card Game Deck List ******\n\n* 1 Wally GEN 127\n******"
    result = parse(text)
    assert result.decorations == [1, 4] and result.problems == [] and len(result.cards) == 1


# --- problems ---------------------------------------------------------------

UNPARSED = [
    ("0:00 Intro", "0:00 Intro"),
    ("https://limitlesstcg.com/decks/list/12345", "https://limitlesstcg.com/decks/list/12345"),
    ("-----", "-----"),
    ("🔥🔥🔥", "🔥🔥🔥"),
    ("4", "4"),
    ("4 ---", "4 ---"),
    ("Iono PAL 185", "Iono PAL 185"),
    ("Stage 1: 12", "Stage 1: 12"),
    ("Total Cards:", "Total Cards:"),
    ("Pokémon: 1234567", "Pokémon: 1234567"),
    ("\x00", "\\u0000"),
    ("a\ud800b", "a\\ud800b"),
    ("x" * 61, "x" * 59 + "…"),
    ("  padded junk  ", "padded junk"),
]


@pytest.mark.parametrize("line, shown", UNPARSED, ids=[repr(u[0])[:30] for u in UNPARSED])
def test_unparsed_line(line: str, shown: str) -> None:
    result = parse(f"Trainer: 1\n{line}")
    assert result.cards == [] and len(result.problems) == 1
    problem = result.problems[0]
    assert (problem.rule, problem.code, problem.severity) == ("unparsed-line", "P101", "warning")
    assert problem.lines == (2,)
    assert problem.message == f'Line 2 is not a card line or a section header: "{shown}".'
    assert problem.hint == HINT


BAD_COUNTS = [
    ("0 Iono PAL 185", 'Line 1 asks for 0 copies of "Iono"; a card line needs 1 to 999 copies.'),
    ("1000 Iono", 'Line 1 asks for 1000 copies of "Iono"; a card line needs 1 to 999 copies.'),
    ("Iono x0", 'Line 1 asks for 0 copies of "Iono"; a card line needs 1 to 999 copies.'),
    ("0x Iono", 'Line 1 asks for 0 copies of "Iono"; a card line needs 1 to 999 copies.'),
    ("9" * 5000 + " Iono", 'Line 1 asks for 99999999999… copies of "Iono"; a card line needs 1 to 999 copies.'),
]


@pytest.mark.parametrize("line, message", BAD_COUNTS, ids=["zero", "1000", "x0", "0x", "huge"])
def test_bad_count(line: str, message: str) -> None:
    result = parse(line)
    assert result.cards == [] and _messages(result) == [((1,), message)]


# --- JSON decks -------------------------------------------------------------


def test_json_deck() -> None:
    text = json.dumps({"cards": [{"count": 4, "name": "Iono", "set": "pal", "number": 185}, {"count": 2, "name": "N"}]})
    result = parse("\ufeff  " + text)
    assert result.source == "json" and result.problems == []
    assert result.cards == [
        CardLine(1, '{"count": 4, "name": "Iono", "set": "pal", "number": 185}', 4, "Iono", "PAL", "185"),
        CardLine(2, '{"count": 2, "name": "N"}', 2, "N"),
    ]


def test_invalid_json_is_one_problem() -> None:
    result = parse('{"cards": [\n  {"count": 4, "name": "Iono"}\n  {"count": 1}\n]}')
    assert result.source == "json" and result.cards == []
    assert _messages(result) == [
        ((1,), "The deck starts with { but is not valid JSON: Expecting ',' delimiter at line 3, column 3.")
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '{"cards": ' + "[" * 100_000,
            (
                "The deck starts with { but could not be read as JSON: its arrays and "
                "objects are nested too deeply to read (a deck nests a few levels)."
            ),
        ),
        (
            "[" * 30_000 + "]" * 30_000,
            (
                "The deck starts with [ but could not be read as JSON: its arrays and "
                "objects are nested too deeply to read (a deck nests a few levels)."
            ),
        ),
        (
            '{"cards": [{"count": ' + "9" * 5000 + "}]}",
            ("The deck starts with { but could not be read as JSON: it has a number of more than 4,300 digits."),
        ),
    ],
    ids=["deep", "deep-closed", "huge-int"],
)
def test_unreadable_json(text: str, message: str) -> None:
    """Precise messages, no Python internals cut mid-word (they read "maximum recursion depth exceeded
    while decoding a JSON arra…." before)."""
    result = parse(text)
    assert [(p.rule, p.lines, p.message) for p in result.problems] == [("unparsed-line", (1,), message)]


@pytest.mark.parametrize(
    "text",
    [
        '{"cards": {"count": 4}}',
        '{"main": [{"qty": 4, "card": "Iono"}]}',
        "[]",
        '[["Iono", 4]]',
        '{"deck": "4 Iono PAL 185"}',
    ],
)
def test_json_of_no_known_shape_is_one_error_naming_the_shapes(text: str) -> None:
    result = parse(text)
    assert result.source == "json" and result.cards == []
    assert [(p.rule, p.severity, p.lines, p.message) for p in result.problems] == [
        (
            "json-shape",
            "error",
            (1,),
            f"The JSON is not a deck in a shape deckcheck reads; it reads {parse_module.JSON_SHAPES}.",
        )
    ]
    assert '{"decklist": {"pokemon"' in parse_module.JSON_SHAPES and '{"cards": [{"count"' in parse_module.JSON_SHAPES


WHOLE = "a count is a whole number from 1 to 999."
JSON_ENTRIES = [
    ('[4, "Iono"]', 'Entry 1 of the JSON deck is not an object: [4, "Iono"].'),
    ('"4 Iono"', 'Entry 1 of the JSON deck is not an object: "4 Iono".'),
    ('{"name": "Iono"}', f"Entry 1 of the JSON deck has count null; {WHOLE}"),
    ('{"count": 0, "name": "Iono"}', f"Entry 1 of the JSON deck has count 0; {WHOLE}"),
    ('{"count": 1000, "name": "Iono"}', f"Entry 1 of the JSON deck has count 1000; {WHOLE}"),
    ('{"count": "4", "name": "Iono"}', f'Entry 1 of the JSON deck has count "4"; {WHOLE}'),
    ('{"count": 2.5, "name": "Iono"}', f"Entry 1 of the JSON deck has count 2.5; {WHOLE}"),
    ('{"count": true, "name": "Iono"}', f"Entry 1 of the JSON deck has count true; {WHOLE}"),
    ('{"count": 4}', "Entry 1 of the JSON deck has no card name."),
    ('{"count": 4, "name": "  "}', "Entry 1 of the JSON deck has no card name."),
    ('{"count": 4, "name": "Iono", "set": 185}', 'Entry 1 of the JSON deck has a "set" that is not text.'),
    (
        '{"count": 4, "name": "Iono", "number": [185]}',
        'Entry 1 of the JSON deck has a "number" that is neither text nor a whole number.',
    ),
]


@pytest.mark.parametrize("entry, message", JSON_ENTRIES, ids=[e for e, _ in JSON_ENTRIES])
def test_bad_json_entry(entry: str, message: str) -> None:
    result = parse('{"cards": [' + entry + "]}")
    assert result.cards == [] and _messages(result) == [((1,), message)]


# --- properties -------------------------------------------------------------


def _fixture_lines() -> list[str]:
    lines = set()
    for path in DECKS.glob("*.txt"):  # every deck in the folder, ours or not, is good material
        lines.update(re.split(r"\r\n|\r|\n", path.read_bytes().decode("utf-8").lstrip("\ufeff")))
    return sorted(lines)


_REAL_LINES = _fixture_lines() + [line for line, _ in LINES] + [h[0] for h in HEADERS] + TOTALS
_ODD = ["\ud800", "\udfff", "\x00", "\u2028", "\x85", "\x0c", "\ufeff", "\u200b", "{", "*" * 6, "#", "(", "[x]", "PH"]
_line = st.one_of(
    st.sampled_from(_REAL_LINES),
    st.sampled_from(_ODD),
    st.text(max_size=30),
    st.text(st.characters(exclude_categories=()), max_size=12),
    st.builds("{} {}".format, st.sampled_from(_REAL_LINES), st.sampled_from(_ODD + ["x4", "- Basic", "(SVI 1)"])),
    st.builds("{} {}".format, st.integers(-5, 10**30), st.sampled_from(["Iono", "Fire Energy 2", "???"])),
)
_deck_text = st.builds(
    lambda bom, pairs: ("\ufeff" if bom else "") + "".join(line + end for line, end in pairs),
    st.booleans(),
    st.lists(st.tuples(_line, st.sampled_from(["\n", "\r\n", "\r", ""])), max_size=25),
)


def _non_blank_lines(text: str) -> list[int]:
    """The spec of a line: split on CRLF, CR or LF after one leading BOM; blank means whitespace only."""
    text = text[1:] if text.startswith("\ufeff") else text
    return [n for n, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1) if line.strip()]


def _accounted(result: ParseResult) -> list[int]:
    lines = [h.line for h in result.headers] + [c.line for c in result.cards] + list(result.decorations)
    lines += [line for problem in result.problems for line in problem.lines]
    if result.declared_total_line is not None:
        lines.append(result.declared_total_line)
    return sorted(lines)


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.filter_too_much])
@given(_deck_text)
def test_every_non_blank_line_is_accounted_for_once(text: str) -> None:
    result = parse(text)
    assume(result.source == "text")
    assert _accounted(result) == _non_blank_lines(text)
    headers = sorted(result.headers, key=lambda h: h.line)
    for card in result.cards:
        above = [h.section for h in headers if h.line < card.line]
        assert card.section == (above[-1] if above else None)
        assert 1 <= card.count <= 999 and any(ch.isalpha() for ch in card.name)
        assert card.name in card.raw and card.name == card.name.strip()


@pytest.mark.slow
@given(st.one_of(_deck_text, st.text(st.sampled_from("a \r\n\u2028\x0b"))))
def test_count_lines_counts_the_lines_parse_numbers(text: str) -> None:
    """str.split on LF when there is no CR, the regular expression otherwise: the same count."""
    spec = len(re.split(r"\r\n|\r|\n", text)) - (1 if text.endswith(("\n", "\r")) else 0) if text else 0
    assert parse_module.count_lines(text) == spec


@settings(max_examples=300)
@given(st.text(st.characters(exclude_categories=())))
def test_parse_never_raises(text: str) -> None:
    assert isinstance(parse(text), ParseResult)


@given(st.text())
def test_parse_never_raises_on_plain_text(text: str) -> None:
    assert isinstance(parse(text), ParseResult)


_json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 2000) | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=4,
)
_json_entry = st.one_of(
    _json_value,
    st.fixed_dictionaries(
        {"count": st.integers(-2, 1001) | _json_value, "name": st.text(max_size=12) | _json_value},
        optional={"set": st.text(max_size=5) | _json_value, "number": st.integers(0, 300) | _json_value},
    ),
)


@pytest.mark.slow
@given(st.lists(_json_entry, max_size=8))
def test_every_json_entry_is_accounted_for_once(entries: list) -> None:
    result = parse(json.dumps({"cards": entries}))
    assert result.source == "json"
    assert _accounted(result) == list(range(1, len(entries) + 1))


@given(st.text())
def test_json_looking_text_never_raises(text: str) -> None:
    assert parse("{" + text).source == "json"


# --- the line memo and the fast path ------------------------------------------


def test_memo_keeps_line_numbers_and_sections() -> None:
    """The memo is keyed on a line's text: its number and section still come from the deck."""
    text = "4 Iono PAL 185\nPokémon: 1\n4 Iono PAL 185\n0 Iono PAL 185\nTrainer: 2\n\n4 Iono PAL 185\n0 Iono PAL 185"
    for _ in range(2):  # the second parse answers every line from the memo
        result = parse(text)
        assert [(c.line, c.section) for c in result.cards] == [(1, None), (3, "pokemon"), (7, "trainer")]
        assert {c.raw for c in result.cards} == {"4 Iono PAL 185"}
        assert [(h.line, h.section) for h in result.headers] == [(2, "pokemon"), (5, "trainer")]
        assert [p.lines for p in result.problems] == [(4,), (8,)]
        assert [p.message[:7] for p in result.problems] == ["Line 4 ", "Line 8 "]


def test_memo_gives_the_same_result_as_a_fresh_parse() -> None:
    texts = [_read(p.name) for p in sorted(DECKS.glob("*.txt"))]
    warm = [parse(text) for text in texts]
    lineread.read_line.clear()
    assert [parse(text) for text in texts] == warm
    assert [parse(text) for text in texts] == warm


def test_memo_is_bounded_and_skips_long_lines() -> None:
    assert lineread.read_line.memo.size == 8192
    lineread.read_line.clear()
    long_name = "Very " * 60 + "Long Ball"
    line = f"4 {long_name} SVI 181"
    assert len(line) > lineread.read_line.memo.max_len
    card = _only(parse(f"Trainer: 1\n{line}"))
    assert (card.line, card.count, card.name, card.set_code, card.number, card.section) == (
        2,
        4,
        long_name,
        "SVI",
        "181",
        "trainer",
    )
    assert len(lineread.read_line.memo) == 1  # the header only


def test_card_lines_are_ordinary_frozen_card_lines() -> None:
    """The parser builds CardLine without its __init__; the result must not differ."""
    card = parse("Energy: 1\n3 Basic {R} Energy SVE 10 PH").cards[0]
    made = CardLine(2, "3 Basic {R} Energy SVE 10 PH", 3, "Basic {R} Energy", "SVE", "10", "energy", "PH")
    assert card == made and hash(card) == hash(made) and repr(card) == repr(made)
    assert vars(card) == vars(made) and list(vars(card)) == list(vars(made))
    assert card.to_dict() == made.to_dict()
    with pytest.raises(AttributeError):
        card.count = 4  # type: ignore[misc]


@pytest.mark.parametrize("path", sorted(DECKS.glob("*.txt")), ids=lambda p: p.stem)
def test_read_gives_the_card_lines_as_rows(path: Path) -> None:
    """read() is parse() with each card line as (line, section, fields): the same values, and the rest alike."""
    text = _read(path.name)
    result, rows = parse_module.read(text)
    parsed = parse(text)
    made = [CardLine(**{**fields, "line": n, "section": section}) for n, section, fields in rows]
    assert made == parsed.cards and result.cards == []
    assert parse_module.card_rows(parsed) == [(c.line, c.section, vars(c)) for c in made]
    result.cards = parsed.cards
    assert result == parsed


def test_headers_are_ordinary_frozen_headers() -> None:
    """The parser builds Header without its __init__ too."""
    header = parse("3 Nest Ball SVI 181\nDresseur (12)").headers[0]
    made = Header(2, "trainer", "Dresseur", 12)
    assert header == made and hash(header) == hash(made) and repr(header) == repr(made)
    assert vars(header) == vars(made) and list(vars(header)) == list(vars(made))
    with pytest.raises(AttributeError):
        header.count = 4  # type: ignore[misc]


_FAST_PATH = [
    "2 Pidgey MEW 16",
    "1 Mimikyu PAL 97 PH",
    "4 Basic {R} Energy SVE 10",
    "1 PH SVI 12",
    "1 N NVI 101",
    "1 Psychic Energy TK-AlolanRaichu 20",
    "3 Boss's Orders PAL 172",
    "1 Rayquaza 30C 12",
    "* 2 Doduo GEN 55",
    "3 Basic {P} Energy Energy 13",
    "1 ポケモン SVI 12",
]
_NOT_FAST_PATH = [
    "1 Foo 12 34",
    "2 Pikachu V 25",
    "0 Iono PAL 185",
    "004 Iono PAL 185",
    "1000 Iono PAL 185",
    "4  Nest Ball SVI 181",
    "4 Nest Ball SVI 181 ",
    "1 Lost City LOR-TG TG21",
    "4 Nest Ball (SVI 181)",
    "1 Foo SVI 12 PH PH",
]


@pytest.mark.parametrize("line", _FAST_PATH + _NOT_FAST_PATH)
def test_fast_path_reads_like_the_token_reader(line: str) -> None:
    """The usual line's one-step reading (vocab.usual_card) answers what the long way reads, or leaves
    the line to it (tests/decklist/test_usual_line.py tries it on every shape of line)."""
    fast = usual_card(line)
    assert (fast is not None) == (line in _FAST_PATH)
    general = lineread._card_fields(line) or (lineread.UNPARSED, line.strip())
    assert lineread._classify_line(line) == general
    if fast is not None:
        assert (lineread.CARD, *fast) == general


@pytest.mark.parametrize(
    "text, measured",
    [
        ("", (0, "lines")),
        ("1 Iono\n" * 3, (3, "lines")),
        (json.dumps({"cards": [{"count": 1, "name": "Iono"}] * 5}), (5, "card entries")),
        (json.dumps({"cards": [{"count": 1, "name": "Iono"}] * 2}, indent=2), (12, "lines")),
        ("[not json", (1, "lines")),
    ],
)
def test_measure_lines_says_what_it_counted(text, measured):
    """A limit message names card entries when a JSON deck's entries are what went over (1,001 entries
    on one line were "1,001 lines")."""
    assert parse_module.measure_lines(text) == measured
    assert parse_module.count_lines(text) == measured[0]
