"""The one decklist-limit check (deckcheck/decklist/limits.py) that every entry point calls."""

from __future__ import annotations

import json

from deckcheck.decklist import parse
from deckcheck.decklist.limits import (
    MAX_DECKLIST_BYTES,
    MAX_DECKLIST_LINES,
    InputLimit,
    byte_limit,
    decklist_limit,
    line_limit,
)


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
