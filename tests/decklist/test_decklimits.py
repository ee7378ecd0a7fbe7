"""The one decklist-limit check (deckcheck/decklist/limits.py) that every entry point calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckcheck.decklist import parse
from deckcheck.decklist.limits import (
    MAX_DECKLIST_BYTES,
    MAX_DECKLIST_LINES,
    InputLimit,
    byte_limit,
    decklist_limit,
    line_limit,
)
from deckcheck.decklist.validtext import not_unicode


def test_a_decklist_within_the_limits_is_over_none():
    assert decklist_limit("4 Iono PAL 185\n" * MAX_DECKLIST_LINES) is None
    assert decklist_limit("") is None
    assert decklist_limit("é" * (MAX_DECKLIST_BYTES // 2)) is None  # two bytes each: exactly the limit


def test_bytes_are_counted_in_utf8_and_checked_before_lines():
    over = decklist_limit("é" * (MAX_DECKLIST_BYTES // 2) + "x")
    assert over == InputLimit("bytes", MAX_DECKLIST_BYTES + 1, MAX_DECKLIST_BYTES, "bytes")
    assert over.measured == "65,537 bytes"
    assert over.details() == {"limit": MAX_DECKLIST_BYTES, "size": MAX_DECKLIST_BYTES + 1, "unit": "bytes"}
    both = decklist_limit("\n" * (MAX_DECKLIST_BYTES + 1))
    assert both is not None and both.unit == "bytes"
    assert byte_limit(10, 10) is None and byte_limit(11, 10) == InputLimit("bytes", 11, 10, "bytes")


def test_lines_over_the_limit_name_what_was_counted():
    over = decklist_limit("1 A\n" * (MAX_DECKLIST_LINES + 1))
    assert over == InputLimit("lines", MAX_DECKLIST_LINES + 1, MAX_DECKLIST_LINES, "lines")
    assert over.measured == "1,001 lines" and over.details()["unit"] == "lines"
    assert line_limit("a\r\nb\rc\n", 2) == InputLimit("lines", 3, 2, "lines")
    assert line_limit("a\nb\n", 2) is None  # a final line break starts no line


def test_a_json_deck_counts_its_card_entries_when_they_are_more_than_its_lines():
    entries = [{"count": 1, "name": "Iono", "set": "PAL", "number": "185"}] * (MAX_DECKLIST_LINES + 1)
    over = decklist_limit(json.dumps({"cards": entries}))
    assert over == InputLimit("lines", MAX_DECKLIST_LINES + 1, MAX_DECKLIST_LINES, "card entries")
    assert over.measured == "1,001 card entries (each counts as a line)"


def test_the_problem_is_the_input_limit_rules():
    problem = InputLimit("lines", 3, 2, "lines").problem("Too long.")
    assert (problem.rule, problem.code, problem.severity) == ("input-limit", "P103", "error")
    assert problem.message == "Too long."


def test_parse_still_offers_the_limits():
    assert (parse.MAX_DECKLIST_BYTES, parse.MAX_DECKLIST_LINES) == (MAX_DECKLIST_BYTES, MAX_DECKLIST_LINES)
    assert parse.count_lines("a\nb") == 2 and parse.measure_lines("a") == (1, "lines")


# -- not_unicode: text that is not valid Unicode, raw or as a JSON deck's escape ------------------


def _decodes(json_text: str) -> bool:
    """The oracle: whether Python's JSON reader gives text that UTF-8 can write out."""

    def walk(value) -> bool:
        if isinstance(value, str):
            return _encodes(value)
        if isinstance(value, dict):
            return all(walk(k) and walk(v) for k, v in value.items())
        if isinstance(value, list):
            return all(walk(v) for v in value)
        return True

    return walk(json.loads(json_text))


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=500, deadline=None, derandomize=True)
@given(names=st.lists(st.text(st.characters(exclude_categories=())), min_size=1, max_size=3))
def test_a_json_deck_is_refused_exactly_when_its_text_would_not_encode(names):
    deck = json.dumps({"cards": [{"count": 4, "name": n} for n in names]})  # a surrogate: its \\u escape
    found = not_unicode(deck)
    assert (found is None) == _decodes(deck)
    if found is not None:
        assert found.escaped and found.line == 1
        assert deck[found.column - 1 : found.column + 1] == "\\u"
        assert 0xD800 <= found.code_point <= 0xDFFF


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=st.text(st.characters(exclude_categories=())))
def test_raw_text_is_refused_exactly_when_utf8_cannot_write_it(text):
    found = not_unicode(text)
    if _encodes(text) and "\\u" not in text:
        assert found is None
    if not _encodes(text):
        assert found is not None and not found.escaped
        offset = sum(len(line) + 1 for line in text.split("\n")[: found.line - 1]) if "\r" not in text else None
        if offset is not None:
            assert text[offset + found.column - 1] == chr(found.code_point)


@pytest.mark.parametrize(
    "text, where",
    [
        ("4 Pikachu \\ud800 SVI 1\n", None),  # a text list: a backslash is text
        ('{"cards": [{"count": 4, "name": "\\\\ud800"}]}', None),  # an escaped backslash, then "ud800"
        ('{"cards": [{"count": 4, "name": "\\ud83d\\ude00"}]}', None),  # a pair: one character
        ('{"cards": [{"count": 4, "name": "\\uD83D\\uDE00"}]}', None),
        ('{"cards": [{"count": 4, "name": "\\ud800"}]}', (1, 34, 0xD800, True)),
        ('{"cards": [{"count": 4, "name": "\\udc00\\ud800"}]}', (1, 34, 0xDC00, True)),
        ('{"cards": [{"count": 4, "name": "\\ud83d x"}]}', (1, 34, 0xD83D, True)),
        ('{"cards": [{"count": 4, "name": "\\ud83d\\u0041"}]}', (1, 34, 0xD83D, True)),
        ('\ufeff{"cards":\r\n [{"count": 4, "name": "\\uDFFF"}]}', (2, 25, 0xDFFF, True)),
        ('[{"count": 4,\r"name": "a"},\n{"count": 1, "name": "\\ud800"}]', (3, 23, 0xD800, True)),
        ('Decks:\n```json\n{"cards": [{"count": 4, "name": "\\ud800"}]}\n```\n', (3, 34, 0xD800, True)),
        ("```\n4 Pikachu \\ud800 SVI 1\n```\n", None),  # a text list in fences
        ("4 Nest Ball SVI 181\n4 Iono \ud800 PAL 185", (2, 8, 0xD800, False)),
        ("a\r\nb\rc\n\udfff", (4, 1, 0xDFFF, False)),
        ("\ud83d\ude00", (1, 1, 0xD83D, False)),  # two code points: UTF-8 writes neither
    ],
)
def test_not_unicode_says_where(text, where):
    found = not_unicode(text)
    assert (None if found is None else (found.line, found.column, found.code_point, found.escaped)) == where
