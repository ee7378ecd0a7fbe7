"""A JSON deck is decoded once per request: the size limit's count of its entries and the reading of its
rows share the value (jsondeck._load_json keeps the last text's)."""

from __future__ import annotations

import json
from unittest import mock

from deckcheck import check
from deckcheck.decklist import jsondeck
from deckcheck.decklist.limits import MAX_DECKLIST_BYTES, decklist_limit

DECK = json.dumps({"cards": [{"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}]})


def test_the_kept_value_is_bounded_by_the_decklist_size_limit():
    assert jsondeck.KEEP_MAX_CHARS == MAX_DECKLIST_BYTES


def test_the_limit_check_and_the_check_decode_a_json_deck_once():
    text = "".join(DECK)  # a text object of its own, as a request's
    with mock.patch.object(jsondeck.json, "loads", wraps=json.loads) as loads:
        assert decklist_limit(text) is None
        report = check(text, "standard", "2026-05-01")
    assert loads.call_count == 1
    assert [(ln.count, ln.card.id) for ln in report.lines] == [(4, "sv01-181")]


def test_another_text_is_decoded_again_even_when_equal():
    first, second = DECK + " ", DECK + " "
    assert first == second and first is not second
    with mock.patch.object(jsondeck.json, "loads", wraps=json.loads) as loads:
        assert jsondeck.json_entries(first) == 1
        assert jsondeck.json_entries(second) == 1
        assert jsondeck.json_entries(second) == 1
    assert loads.call_count == 2


def test_a_text_over_the_size_limit_is_not_kept():
    big = json.dumps({"cards": [{"count": 1, "name": "x" * 100}] * 1000})
    assert len(big) > jsondeck.KEEP_MAX_CHARS
    jsondeck.json_entries(big)
    assert jsondeck._last is None or jsondeck._last[0] is not big
