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


# -- every entry read or named: sections in any spelling, entries elsewhere, items that are no deck -------

_PIKACHU = {"count": 4, "name": "Pikachu ex", "set": "SSP", "number": "57"}
_BALL = {"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}


def _shape_problems(value) -> tuple[int, list[tuple[str, str]]]:
    report = check(json.dumps(value), "standard", "2026-05-01")
    told = [(p.rule, p.message) for p in report.problems if p.rule in ("json-shape", "several-decks", "unparsed-line")]
    return report.counts.total, told


def test_a_section_key_is_read_in_any_case_accents_and_number():
    for key in ("trainer", "Trainer", "TRAINERS", "trainers"):
        assert _shape_problems({"decklist": {"Pokémon": [_PIKACHU], key: [_BALL]}}) == (8, []), key
    # two spellings of one section are both read
    assert _shape_problems({"pokemon": [_PIKACHU], "trainer": [_BALL], "Trainers": [_BALL]}) == (12, [])


def test_entries_the_deck_holds_elsewhere_are_named_not_dropped():
    assert _shape_problems({"pokemon": [_PIKACHU], "cards": [_BALL, _BALL]}) == (
        4,
        [
            (
                "unparsed-line",
                'The JSON deck\'s "cards" holds 2 entries that were not read (a deck is read from one place: '
                "its sections or one list).",
            )
        ],
    )
    assert _shape_problems({"decklist": {"pokemon": [_PIKACHU], "trainer": {"0": _BALL}}}) == (
        4,
        [("unparsed-line", 'The JSON deck\'s "trainer" holds a section that is not a list of card entries (dict).')],
    )
    # the export's own keys are not entries: a player's name, a record, tags, Limitless's "deck" object
    real = {"name": "Ann", "record": {"wins": 5}, "tags": ["a"], "deck": {"id": "x", "icons": ["pikachu"]}}
    assert _shape_problems({**real, "decklist": {"pokemon": [_PIKACHU]}}) == (4, [])


def test_items_of_an_array_of_decks_that_are_no_deck_are_counted_in_the_warning():
    assert _shape_problems([{"player": "Ann", "cards": [_PIKACHU]}, 5, "x", {"note": 1}]) == (
        4,
        [("several-decks", "The JSON holds one deck (Ann's) and 3 items that are no deck; only the deck was checked.")],
    )
    two = [{"player": "Ann", "cards": [_PIKACHU]}, {"player": "Bo", "cards": [_BALL]}, None]
    assert _shape_problems(two)[1] == [
        (
            "several-decks",
            "The JSON holds 2 decks (an event export) and 1 item that is no deck; only the first (Ann's) was "
            "checked. Check one player's deck at a time to see the others.",
        )
    ]
