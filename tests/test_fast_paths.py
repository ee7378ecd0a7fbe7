"""Fast paths answer what the slower code they replaced answered: the split-based reading of the
usual card line (against the regular expression it replaced) and fold()'s combining-mark table
filled on use (against deleting unicodedata.combining characters one by one)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckcheck import lineread, names

#: the fast path's shape before it was read with str.split (its definition, kept as the oracle)
_COMMON_CARD = re.compile(
    r"([1-9][0-9]{0,2}) (\S+(?: \S+)*?) ([A-Z0-9]{2,8}(?:-[A-Za-z0-9]{1,20})?) ([0-9]{1,4})( PH)?"
)


def _oracle(raw: str):
    m = _COMMON_CARD.fullmatch(raw)
    # a name that starts with a lone times sign ("2 x Pidgeot ex OBF 164") goes the long way
    if (
        m
        and lineread._is_set_code(m.group(3))
        and lineread._ASCII_LETTER.search(m.group(2))
        and m.group(2)[:2] not in ("x ", "X ", "× ")
    ):
        return (lineread.CARD, int(m.group(1)), m.group(2), m.group(3).upper(), m.group(4), m.group(5) and "PH")
    return None


TOKENS = st.sampled_from(
    [
        "4",
        "04",
        "1",
        "999",
        "1000",
        "0",
        "Nest",
        "Ball",
        "SVI",
        "PAL",
        "sv1",
        "SV-P",
        "TG",
        "181",
        "01",
        "12345",
        "PH",
        "GX",
        "ex",
        "MEW-en",
        "Energy",
        "(SVI)",
        "[PAL]",
        "é",
        "Poké",
        "x4",
        "-",
        "A1",
        "B2",
        "ME05",
        "2a",
        "SWSH-123",
        "x",
        "×",
    ]
)
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\t", "\u00a0", " \u2003"])


@st.composite
def lines(draw):
    toks = draw(st.lists(TOKENS, min_size=0, max_size=7))
    out = ""
    for i, tok in enumerate(toks):
        out += (draw(SEPARATORS) if i else "") + tok
    return draw(st.sampled_from(["", " ", "\t"])) + out + draw(st.sampled_from(["", "", " ", "\u3000"]))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(lines())
def test_fast_path_matches_the_regular_expression(raw):
    assert lineread._common_card(raw) == _oracle(raw)


@pytest.mark.slow
@given(st.text(max_size=40))
@settings(max_examples=1000, deadline=None)
def test_fast_path_matches_the_regular_expression_on_any_text(raw):
    assert lineread._common_card(raw) == _oracle(raw)


def test_fast_path_examples():
    assert lineread._common_card("4 Nest Ball SVI 181") == (lineread.CARD, 4, "Nest Ball", "SVI", "181", None)
    assert lineread._common_card("1 Iono PAL 185 PH") == (lineread.CARD, 1, "Iono", "PAL", "185", "PH")
    assert lineread._common_card("2 Pikachu ex SV-P 12") == (lineread.CARD, 2, "Pikachu ex", "SV-P", "12", None)
    assert lineread._common_card("1 PH PAL 185 PH") == (lineread.CARD, 1, "PH", "PAL", "185", "PH")
    for raw in (
        "4  Nest Ball SVI 181",
        "2 x Pidgeot ex OBF 164",
        "4 4 \u2003Nest SVI 4",
        "04 Nest Ball SVI 181",
        "4 Nest Ball SVI 18100",
        "4 SVI 181",
        "4 Nest\tBall SVI 181",
        "4 Nest Ball svi 181",
        "4 Nest Ball SVI 181 ",
        "4 123 SVI 181",
    ):
        assert lineread._common_card(raw) is None, raw


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


def _is_set_code_oracle(text: str) -> bool:
    return bool(lineread._SET_CODE.fullmatch(text)) and text.partition("-")[0] not in lineread._NAME_SUFFIXES


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.text(alphabet="ABCSVIPLxyzé0129-ÀßǅＡ", max_size=10), st.text(max_size=10)))
def test_is_set_code_fast_path_matches_the_pattern(text):
    assert lineread._is_set_code(text) == _is_set_code_oracle(text)


def test_is_set_code_examples():
    for code in ("SVI", "SV1", "ME05", "SV-P", "SWSH-123"):
        assert lineread._is_set_code(code), code
    for text in ("GX", "V", "123", "svi", "S", "ABCDEFGHI", "SVé", "ǅA", "ＡＢ", "SV-"):
        assert not lineread._is_set_code(text), text
