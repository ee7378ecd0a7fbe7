"""A whole check answers the same with the one-step paths of issue #16 as without them.

``fastline.read_new`` (a never-seen line read in one step) and ``CardDB.printing_named`` (the usual
line's printing found with a few look-ups) each stand in for a general path that stays the
definition (``lineread.read_line``, ``CardDB.resolve_parts``). Here both are turned off
(:func:`general_paths`) and ``check(text, fmt, date)`` must give the same report, as a dict and as
the API's JSON (the line facts' encoded JSON included), cold and warm, for decklists made of real
card names, set codes and numbers in the shapes real lists (and mistakes) write them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

import orjson
import pytest
from conftest import SHIPPED_FORMATS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostile import per_byte  # noqa: F401  (fixture: the normal cost per byte and per line)

from deckcheck import cards, engine, names
from deckcheck.cards.db import CardDB
from deckcheck.deck import ResolvedLine
from deckcheck.decklist import fastline, lineread, parse
from deckcheck.engine import check
from deckcheck.engine import memos as engine_memos


@contextlib.contextmanager
def general_paths() -> Iterator[None]:
    """Every never-seen line read by the general reader, every line resolved by ``resolve_parts``, and a
    text read into rows by ``parse.read`` then resolved by ``engine.resolve_rows`` (not in one pass)."""
    with (
        mock.patch.object(parse, "read_new", lineread.read_line),
        mock.patch.object(engine.lines, "read_new", lineread.read_line),
        mock.patch.object(engine, "plain_lines", lambda text: None),
        mock.patch.object(CardDB, "printing_named", lambda self, name, set_code, number: None),
        no_printed_lines(),
    ):
        yield


@contextlib.contextmanager
def no_one_step_reading() -> Iterator[None]:
    """The one-step readings of a never-seen line (fastline's, the engine's card_parts) fail if taken."""
    with (
        mock.patch.object(fastline, "_card", side_effect=AssertionError("fast path")),
        mock.patch.object(engine.lines, "card_parts", side_effect=AssertionError("fast path")),
    ):
        yield


@contextlib.contextmanager
def no_printed_lines() -> Iterator[None]:
    """The database's index of usual lines (``CardDB.printed_line``) turned off: every line read and resolved."""
    with (
        mock.patch.object(CardDB, "printed_lines", lambda self: {}),
        mock.patch.object(CardDB, "known_lines", lambda self: {}),
        mock.patch.object(CardDB, "printed_line", lambda self, rest: None),
    ):
        yield


def forget_lines() -> None:
    """Empty every per-line memo: the line reader's, the database's and every format's line memos."""
    lineread.read_line.clear()
    names._basic_energy_type.clear()
    cards.get_db().clear_memo()
    engine_memos.forget_lines()


def _answers(text: str, fmt: str, on: str) -> tuple[dict, bytes]:
    report = check(text, fmt, on)
    return report.to_dict(), orjson.dumps(report.to_dict(line_view=ResolvedLine.json_fragment))


def assert_same(text: str, fmt: str = "standard", on: str = "2026-06-01") -> None:
    """The report of ``text`` with the fast paths (cold, then warm; every set code's usual lines indexed,
    then none) is the general paths' (cold, then warm)."""
    cards.get_db().index_usual_lines()
    forget_lines()
    fast_cold = _answers(text, fmt, on)
    fast_warm = _answers(text, fmt, on)
    forget_lines()
    with no_printed_lines():  # the pattern and printing_named, as for a code not indexed yet
        pattern_cold = _answers(text, fmt, on)
    forget_lines()
    with general_paths():
        slow_cold = _answers(text, fmt, on)
        slow_warm = _answers(text, fmt, on)
    forget_lines()
    assert fast_cold[0] == slow_cold[0], text
    assert fast_cold[1] == slow_cold[1], text
    assert pattern_cold == slow_cold, text
    assert fast_warm == slow_warm == slow_cold, text


def test_the_general_paths_are_really_taken():
    """general_paths() turns both fast paths off (this file's comparisons would prove nothing otherwise)."""
    forget_lines()
    with general_paths():
        with no_one_step_reading():
            check("4 Nest Ball SVI 181", "standard", "2026-06-01")
        assert cards.get_db().printing_named("Nest Ball", "SVI", "181") is None
    forget_lines()
    with general_paths(), mock.patch.object(engine, "_read_text", side_effect=AssertionError("one pass")):
        check("4 Nest Ball SVI 181", "standard", "2026-06-01")
    forget_lines()
    cards.get_db().index_usual_lines()
    # the usual line is found in the database's index of usual lines, without the pattern
    with no_one_step_reading():
        report = check("4 Nest Ball SVI 181", "standard", "2026-06-01")
    assert [ln.card.id if ln.card else None for ln in report.lines] == ["sv01-181"]
    forget_lines()
    with no_printed_lines(), no_one_step_reading():
        with pytest.raises(AssertionError, match="fast path"):
            check("4 Nest Ball SVI 181", "standard", "2026-06-01")
    assert cards.get_db().printing_named("Nest Ball", "SVI", "181") is not None
    forget_lines()
    with mock.patch.object(engine, "_read_text", side_effect=AssertionError("one pass")):
        with pytest.raises(AssertionError, match="one pass"):
            check("4 Nest Ball SVI 181", "standard", "2026-06-01")


def test_a_json_entry_written_as_a_text_line_is_not_that_lines_card():
    """The line memo keeps a JSON entry's facts apart from a text's line of the same characters: a
    text line is trusted by its text alone (one look-up), a JSON entry never is."""
    entry = '{"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}'
    forget_lines()
    first = check('{"cards": [' + entry + "]}", "standard", "2026-06-01")
    assert [(ln.raw, ln.card.name if ln.card else None) for ln in first.lines] == [(entry, "Nest Ball")]
    text = "4 Iono PAL 185\n" + entry
    as_text = check(text, "standard", "2026-06-01")
    assert [ln.raw for ln in as_text.lines] == ["4 Iono PAL 185"]
    assert [(p.rule, p.lines) for p in as_text.problems if p.rule == "unparsed-line"] == [("unparsed-line", (2,))]
    assert_same(text)
    forget_lines()


# -- lines made of the shipped database's cards ------------------------------------------------------


def _pools():
    db = cards.get_db()
    every = sorted(db.cards.values(), key=lambda c: c.id)
    # a spread of the database (every 37th card) and the cards real lists are made of
    picked = (
        every[::37]
        + [c for c in every if c.set_code in {"SVI", "PAL", "TWM", "SVE", "SVP", "PR-SV", "ASC", "CEL", "RR"}][::5]
    )
    aliases: dict[str, list[str]] = {}  # set id -> the codes of data/set-aliases.csv that look in it
    for alias, row in sorted(db._aliases.items()):
        for set_id in row.sets:
            aliases.setdefault(set_id, []).append(alias)
    return picked, aliases


_POOL = None


def pool():
    global _POOL
    if _POOL is None:
        _POOL = _pools()
    return _POOL


_LABELS = [
    "Pokémon: 12",
    "Pokemon - 12",
    "POKÉMON (12)",
    "##Trainer Cards - 30",
    "Trainer: 30",
    "trainer: 3",
    "Énergie : 8",
    "Energy",
    "Total Cards: 60",
    "total: 61",
    "Karten insgesamt: 60",
    "****** Pokémon Trading Card Game Deck List ******",
    "##Pokémon - 1",
    "Pokémon:  12",
    "Pokémon : 0012",
    "Pokémon\t: 12",
    "Trainer Cards:",
    "Dresseur (30)",
    "Entrenador - 1234567",
]


@st.composite
def card_line(draw) -> str:
    picked, aliases = pool()
    card = draw(st.sampled_from(picked))
    name = draw(
        st.sampled_from(
            [
                card.name,
                card.name,
                card.name,
                card.name.upper(),
                card.name.lower(),
                card.name.replace("'", "’"),
                card.name.replace("é", "e"),
                card.name + " ex",
                card.name.replace(" ", "  "),
                card.name.replace(" ", "\u00a0"),
                card.name + "\u0301",
                "\u200b" + card.name,
                "x",
                "X",
                draw(st.sampled_from(picked)).name,
                "Fire Energy",
                "Basic {R} Energy",
                "Darkness Energy",
            ]
        )
    )
    code = draw(
        st.sampled_from(
            [
                card.set_code,
                card.set_code,
                card.set_code.lower(),
                card.set_id.upper(),
                card.set_id,
                *aliases.get(card.set_id, []),
                "SVP",
                "PR-SV",
                "ENERGY",
                "Energy",
                "energy",
                "PH",
                "XYZ",
                "ＳＶＩ",
                "",
            ]
        )
    )
    number = draw(
        st.sampled_from(
            [
                card.number,
                card.number,
                card.number,
                "0" + card.number,
                "00" + card.number,
                card.number.lower(),
                card.number + "a",
                str(int(card.number) + 1) if card.number.isdigit() else "TG01",
                "".join(chr(ord(ch) + 0xFEE0) if ch.isdigit() else ch for ch in card.number),
                "GG12",
                "SV001",
                "12345",
                "",
            ]
        )
    )
    count = draw(st.sampled_from(["1", "2", "3", "4", "4", "4", "0", "00", "007", "999", "1000", "x4", "4x", "１"]))
    bullet = draw(st.sampled_from([""] * 6 + ["* ", "- ", "• ", "> ", "*", "** "]))
    tag = draw(st.sampled_from([""] * 8 + [" PH", " ph", " - ACESPEC", " [PH]"]))
    gap = draw(st.sampled_from([" "] * 12 + ["  ", "\t", "\u00a0", "\u3000"]))
    if draw(st.booleans()) or not code:
        parts = [bullet + count, name, code, number]
    else:
        parts = [bullet + count, name, f"({code} {number})" if number else f"({code})"]
    line = gap.join(p for p in parts if p) + tag
    return draw(st.sampled_from([""] * 10 + [" ", "\t"])) + line + draw(st.sampled_from([""] * 10 + [" ", "\t"]))


@st.composite
def decklist(draw) -> str:
    lines = draw(st.lists(st.one_of(card_line(), card_line(), card_line(), st.sampled_from(_LABELS)), max_size=14))
    if lines and draw(st.booleans()):
        lines.append(draw(st.sampled_from(lines)))  # the same line twice
    return draw(st.sampled_from(["\n", "\n", "\r\n", "\r"])).join(lines)


_FORMATS = st.sampled_from(SHIPPED_FORMATS)
_DATES = st.sampled_from(["2026-06-01", "2024-04-01", "2011-01-01", "1990-01-01"])


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decklist(), _FORMATS, _DATES)
def test_a_check_answers_the_same_without_the_fast_paths(text, fmt, on):
    assert_same(text, fmt, on)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decklist(), decklist(), _FORMATS, _FORMATS, _DATES, _DATES)
def test_line_memos_shared_between_decks_formats_and_dates(a, b, fmt_a, fmt_b, on_a, on_b):
    """Deck B after deck A (lines in common, read and resolved by one path) answers as B alone."""
    forget_lines()
    alone = _answers(b, fmt_b, on_b)
    forget_lines()
    _answers(a, fmt_a, on_a)
    with general_paths():
        _answers(a + "\n" + b, fmt_b, on_a)
    assert _answers(b, fmt_b, on_b) == alone
    forget_lines()
    with general_paths():
        _answers(a, fmt_a, on_a)
        _answers(a, fmt_b, on_b)
    assert _answers(b, fmt_b, on_b) == alone
    forget_lines()


# -- targeted lines -----------------------------------------------------------------------------------

#: lines either side of what the one-step paths take (each checked alone, in a deck, and twice)
TARGETED = [
    # a name that is a lone times sign before a code the usual reading leaves to the split (lower
    # case, Limitless's Energy): the general reader takes "x" for the times sign there
    "4 x svi 1",
    "4 X asc 109",
    "1 x sv-p 001",
    "4 x energy 2",
    "4 X Energy 2",
    "999 x ph 1",
    "* 4 x svi 1",
    "4 x SVI 1",
    "4 × svi 1",
    # counts
    "0 Nest Ball SVI 181",
    "00 Nest Ball SVI 181",
    "007 Nest Ball SVI 181",
    "999 Nest Ball SVI 181",
    "1000 Nest Ball SVI 181",
    "99999999999999999999999999 Nest Ball SVI 181",
    "１ Nest Ball SVI 181",
    "4x Nest Ball SVI 181",
    "x4 Nest Ball SVI 181",
    "Nest Ball SVI 181 x4",
    # whitespace and Unicode
    "4 Nest Ball SVI 181",
    "4  Nest Ball SVI 181",
    "4\tNest Ball SVI 181",
    "4 Nest\u00a0Ball SVI 181",
    "4 Nest Ball SVI 181 ",
    " 4 Nest Ball SVI 181",
    "4 Nest Ball SVI\u3000181",
    "4 Nest Ball SVI 181\u200b",
    "4 \u200bNest Ball SVI 181",
    "4 Nest Ball SVI １８１",
    "4 Nest Ball ＳＶＩ 181",
    "4 Nest Bal\u0301l SVI 181",
    "4 \u202eNest Ball SVI 181",
    "4 Nest Ball \U0001f600 SVI 181",
    "4 Nest Ball SVI 181\x1f",
    "4 Nest Ball SVI 181\x0b",
    "4 Nest Ball SVI\x85181",
    # bullets and tags
    "* 4 Dreepy TWM 128",
    "- 4 Dreepy TWM 128",
    "• 4 Dreepy TWM 128",
    "> 4 Dreepy TWM 128",
    "*4 Dreepy TWM 128",
    "** 4 Dreepy TWM 128",
    "1 Iono PAL 185 PH",
    "1 Iono PAL 185 ph",
    "1 Iono PAL 185 [PH]",
    "1 Iono PAL 185 PH PH",
    "1 Prime Catcher TEF 157 - ACESPEC",
    "* 1 Iono PAL 185 PH",
    # set codes and numbers
    "4 Nest Ball svi 181",
    "4 Nest Ball Svi 181",
    "4 Nest Ball sv01 181",
    "4 Nest Ball SV01 181",
    "4 Nest Ball SVI 0181",
    "4 Nest Ball SVI 181a",
    "4 Nest Ball (SVI 181)",
    "4 Nest Ball [SVI] 181",
    "4 Nest Ball sv01-181",
    "1 Pikachu with Grey Felt Hat SVP 085",
    "1 Pikachu with Grey Felt Hat SVP 85",
    "1 Pikachu with Grey Felt Hat PR-SV 085",
    "1 Pikachu with Grey Felt Hat svp 85",
    "1 Pikachu V SWSH SWSH061",
    "1 Pikachu V PR-SW 61",
    "1 Charizard VSTAR CRZ-GG 70",
    "1 Charizard VSTAR CRZ GG70",
    "1 Charizard VSTAR CRZ gg70",
    "1 Zacian V CEL 16",
    "1 Pikachu ex SV-P 12",
    "1 Lugia V SIT TG01",
    "1 Unown [A] PAL 1",
    "1 SVI SVI 181",
    "1 181 SVI 181",
    "1 PAL PAL 185",
    "4 Iono PAL 185",
    "4 Iono PAL 186",
    "4 iono PAL 185",
    "4 IONO PAL 185",
    "4 Iono PAL 80",
    "4 Nest Ball PAL 185",
    "4 Boss's Orders PAL 172",
    "4 Boss’s Orders PAL 172",
    "4 Boss`s Orders PAL 172",
    "4 Boss Orders PAL 172",
    "2 Dragapult ex TWM 130",
    "2 Dragapult-ex TWM 130",
    "2 Dragapult EX TWM 130",
    "2 Dragapult TWM 130",
    # printings sharing a code and number (CEL: Celebrations and its Classic Collection), the E4 glyph,
    # pokemontcg.io's disambiguator, RK9's ACE SPEC with a blank, numbers past the longest printing's
    "1 Palkia CEL 4",
    "1 Charizard CEL 4",
    "1 Claydol CEL 15",
    "1 Lunala CEL 15",
    "1 Charizard cel25c-4_A",
    "1 Bronzong E4 RR 16",
    "1 Bronzong 4 RR 16",
    "1 Bronzong⁴ RR 16",
    "1 Bronzong4 RR 16",
    "1 Bronzong 4 RR 17",
    "1 Prime Catcher TEF 157 - ACE SPEC",
    "1 Prime Catcher - ace spec",
    "1 Nest Ball SVI 12345678901234567",
    "1 Fire Energy BRS " + "1" * 5000,
    # basic Energy in every shape
    "8 Basic {R} Energy SVE 2",
    "8 Basic {R} Energy Energy 2",
    "8 Fire Energy SVE 2",
    "8 Fire Energy Energy 2",
    "8 Fire Energy energy 2",
    "8 Fire Energy ENERGY 2",
    "8 Fire Energy 2",
    "8 Fire Energy",
    "8 Fire Energy SVE 3",
    "8 Water Energy SVE 2",
    "8 Fire Energy SVI 230",
    "8 Fire Energy BRS R",
    "8 Psychic Energy XYEnergy 8",
    "8 Basic Fire Energy SVE 2",
    "8 Fire Energy sve 2",
    "8 Darkness Energy EX 158",
    "8 Darkness Energy N1 105",
    "8 Darkness Energy N1 104",
    "1 Fire Energy - Basic",
    # headers and totals
    "Pokémon: 14",
    "Pokemon: 14",
    "POKÉMON: 14",
    "pokémon: 14",
    "Pokémon : 14",
    "Pokémon:14",
    "Pokémon:  14",
    "Pokémon\u00a0: 14",
    "Pokémon: １４",
    "Pokémon: 0",
    "Pokémon: 1234567",
    "Pokémon (22)",
    "Pokémon ( 22 )",
    "##Pokémon - 22",
    "## Pokémon - 22",
    "#Pokémon: 3",
    "Pokémon",
    "Pokémon:",
    "Trainer Cards - 28",
    "Trainer  Cards: 28",
    "Énergie : 3",
    "Energie: 3",
    "Energía: 3",
    "Total Cards: 60",
    "Total cards: 60",
    "TOTAL CARDS: 60",
    "Total: 60",
    "Total Cards - 60",
    "Total Cards (60)",
    "Total Cards:",
    "Karten insgesamt: 60",
    "**Pokémon (12)**",
    "****** Pokémon Trading Card Game Deck List ******",
    "***",
    "* ***",
    "*** 4 Nest Ball SVI 181 ***",
]


@pytest.mark.slow
def test_targeted_lines_check_the_same_without_the_fast_paths():
    for raw in TARGETED:
        assert_same(raw)
        assert_same(f"{raw}\n{raw}", "expanded", "2024-04-01")
    assert_same("\n".join(TARGETED))
    assert_same("\r\n".join(TARGETED), "unlimited", "2011-01-01")
    assert_same("\r".join(reversed(TARGETED)), "glc", "1990-01-01")


# -- hostile lines through the usual line's pattern (vocab.USUAL) ---------------------------------------

_L = parse.MAX_DECKLIST_BYTES - 8


@pytest.mark.slow
@pytest.mark.parametrize(
    "unit",
    [" A1", " 1", " AB 1", " AB 1 PH", " a", " A 1", " 11111111", " ZZZZZZZZZ", " PH", "  ", " x"],
)
@pytest.mark.parametrize("head", ["1 A", "* 1 A", "1 x"])
def test_runs_through_the_one_step_pattern_are_linear(per_byte, head, unit):  # noqa: F811
    """Runs of tokens the usual line's pattern tries a set code and number at, at the byte limit:
    within test_hostile's 100x bound for a parse and a check, whatever reads them."""
    from test_hostile import _assert_linear, _timed

    for tail in (" x", " SVI 1", " SVI 1 PH", ""):
        text = head + unit * ((_L - len(head) - len(tail)) // len(unit)) + tail
        _assert_linear("parse", _timed(lambda text=text: parse.parse(text)), text, per_byte)
        _assert_linear("check", _timed(lambda text=text: check(text, "standard", "2026-05-01")), text, per_byte)
