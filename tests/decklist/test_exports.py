"""Every export real tools write (issue 13): RK9 and Limitless JSON, pokemontcg.io decks, RK9 name
suffixes, lower-case set codes, a list in a Markdown code fence; the parse goldens of these
fixtures are in tests/decks (``*.parse.json``), these tests check what they resolve to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from deckcheck import check
from deckcheck.decklist.parse import MAX_DECKLIST_LINES, count_lines, parse

DECKS = Path(__file__).parent.parent / "decks"
ON = "2026-05-01"


def _deck(name: str) -> str:
    return (DECKS / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name, warnings",
    [
        ("rk9-deck", []),
        ("rk9-players", ["several-decks"]),
        ("limitless-api", []),
        ("limitless-standings", ["several-decks"]),
    ],
)
def test_rk9_and_limitless_json_resolve_to_their_60_cards(name, warnings):
    report = check(_deck(name), "standard", ON)
    assert report.counts.total == 60 and report.counts.unknown == 0
    assert all(ln.method in ("printing", "basic-energy") for ln in report.lines)
    assert [p.rule for p in report.problems] == warnings
    # the same deck as the PTCGL text export, line for line
    text = check(_deck("standard-legal-dragapult"), "standard", ON)
    assert [(ln.count, ln.card.id) for ln in report.lines] == [(ln.count, ln.card.id) for ln in text.lines]


def test_several_decks_name_the_one_checked():
    report = check(_deck("rk9-players"), "standard", ON)
    assert [(p.severity, p.message) for p in report.problems] == [
        (
            "warning",
            (
                "The JSON holds 2 decks (an event export); only the first (Alex Example's) was checked. Check "
                "one player's deck at a time to see the others."
            ),
        )
    ]


def test_pokemontcg_io_deck_resolves_by_its_card_ids():
    report = check(_deck("pokemontcg-io-deck"), "unlimited", ON)
    # only Unlimited's notes naming the newest wording to play (legal-by-reprint, info)
    assert {p.rule for p in report.problems} == {"legal-by-reprint"} and report.valid
    assert report.counts.total == 60 and report.counts.unknown == 0
    assert [ln.card.id for ln in report.lines][:3] == ["base1-46", "base1-24", "base1-4"]


def test_rk9_suffixes_in_json_names_are_tags():
    result = parse(
        json.dumps(
            {
                "cards": [
                    {"count": 4, "card": {"name": "Fighting Energy - Basic", "setCode": "SVE", "number": "6"}},
                    {"count": 1, "card": {"name": "Prime Catcher - ACESPEC", "setCode": "TEF", "number": "157"}},
                    {"count": 1, "card": {"name": "Porygon-Z", "setCode": "PRE", "number": "67"}},
                ]
            }
        )
    )
    assert [(c.name, c.tag, c.set_code, c.number) for c in result.cards] == [
        ("Fighting Energy", "Basic", "SVE", "6"),
        ("Prime Catcher", "ACESPEC", "TEF", "157"),
        ("Porygon-Z", None, "PRE", "67"),
    ]


def test_a_list_in_a_code_fence_ignores_the_prose_with_one_note():
    report = check(_deck("discord-code-fence"), "standard", "2026-03-20")
    assert report.counts.total == 60 and report.counts.unknown == 0
    notes = [(p.rule, p.severity, p.lines, p.message) for p in report.problems]
    assert notes == [
        ("prose-ignored", "info", (1, 12), "Lines 1 and 12 are outside the code block and were ignored as prose.")
    ]


def test_prose_beside_a_fence_on_a_line_of_the_list_is_named_too():
    """A fence may share its line with list text and with prose outside it (Discord): the list text is read,
    the prose beside it is named in the one note, with the lines that are only prose."""
    report = check(
        "my deck\n4 Nest Ball SVI 181 ```4 Pikachu ex SSP 57\n4 Iono PAL 185``` and a note", "standard", "2026-05-01"
    )
    assert [(ln.line, ln.count, ln.name) for ln in report.lines] == [(2, 4, "Pikachu ex"), (3, 4, "Iono")]
    assert [(p.rule, p.lines, p.message) for p in report.problems if p.rule == "prose-ignored"] == [
        (
            "prose-ignored",
            (1, 2, 3),
            "Line 1 is outside the code block and was ignored as prose. The text outside the code block on "
            "lines 2-3 was ignored as prose.",
        )
    ]


def test_a_code_fence_without_prose_says_nothing_and_json_inside_is_read():
    result = parse("```\n4 Iono PAL 185\n```")
    assert result.problems == [] and result.decorations == [1, 3] and [c.line for c in result.cards] == [2]
    fenced = parse("my deck:\n```json\n" + _deck("limitless-api") + "```\n")
    assert fenced.source == "json" and sum(c.count for c in fenced.cards) == 60
    assert [p.rule for p in fenced.problems] == ["prose-ignored"]
    # an unclosed fence: everything after it is the list
    assert [c.line for c in parse("list:\n```\n4 Iono PAL 185\n2 Arven SVI 166").cards] == [3, 4]


@pytest.mark.parametrize(
    "text, cards, decorations, notes",
    [
        # Discord lets a fence share its line with the list: the text inside is the list
        ("```4 Dreepy TWM 128\n56 Basic {P} Energy SVE 5\n```", [(1, 4), (2, 56)], [3], []),
        ("```\n4 Dreepy TWM 128\n56 Basic {P} Energy SVE 5```", [(2, 4), (3, 56)], [1], []),
        ("```4 Dreepy TWM 128\n56 Basic {P} Energy SVE 5```", [(1, 4), (2, 56)], [], []),
        ("```4 Dreepy TWM 128```", [(1, 4)], [], []),
        (
            "my list ```\n4 Dreepy TWM 128\n```",
            [(2, 4)],
            [3],
            ["Line 1 is outside the code block and was ignored as prose."],
        ),
        # one word after an opening fence is the block's language; after a closing one, prose
        (
            "```txt\n4 Dreepy TWM 128\n```thanks",
            [(2, 4)],
            [1],
            ["Line 3 is outside the code block and was ignored as prose."],
        ),
    ],
)
def test_a_fence_may_share_its_line_with_the_list(text, cards, decorations, notes):
    """A line with list text inside a fence was dropped whole as a fence line ("```4 Dreepy TWM 128"),
    or read with the fence in its name ("56 Basic {P} Energy SVE 5```": an unknown card)."""
    result = parse(text)
    assert [(c.line, c.count) for c in result.cards] == cards
    assert result.decorations == decorations and [p.message for p in result.problems] == notes
    assert all(c.name in ("Dreepy", "Basic {P} Energy") for c in result.cards)


def test_prose_lines_are_named_as_ranges():
    text = "hi\nthere\nfriends\n```\n4 Iono PAL 185\n```\nbye\n\n:)"
    assert [p.message for p in parse(text).problems] == [
        "Lines 1-3, 7 and 9 are outside the code block and were ignored as prose."
    ]


def test_lower_case_set_codes_resolve():
    report = check(_deck("lowercase-set-codes"), "standard", ON)
    assert [(ln.card.id, ln.method) for ln in report.lines] == [
        ("me02.5-109", "printing"),
        ("sv10-104", "printing"),
        ("sv10-114", "printing"),
        ("sv02-185", "printing"),
        ("sv08-057", "printing"),
        ("sv03.5-151", "printing"),
    ]


def test_json_entries_count_toward_the_line_limit():
    entries = [{"count": 1, "name": "Iono"}] * (MAX_DECKLIST_LINES + 1)
    assert count_lines(json.dumps({"cards": entries})) == MAX_DECKLIST_LINES + 1
    assert count_lines(json.dumps([{"cards": entries[:600]}, {"decklist": {"pokemon": entries[:600]}}])) == 1200
    pretty = json.dumps({"cards": entries[:3]}, indent=2)
    assert count_lines(pretty) == pretty.count("\n") + 1  # more lines than entries: the lines
    assert count_lines("[not json") == 1 and count_lines("{") == 1


# -- properties -------------------------------------------------------------------


_line = st.one_of(
    st.sampled_from(
        [
            "```",
            "```text",
            "```4 Iono PAL 185",
            "2 Arven SVI 166```",
            "hi ``` there",
            "4 Iono PAL 185",
            "Trainer: 4",
            "hello there",
            "",
            "  ",
            "* 2 Arven SVI 166",
            "Total Cards: 60",
            "{",
            "4 Gible asc 109",
        ]
    ),
    st.text(max_size=20).filter(lambda t: "\n" not in t and "\r" not in t),
)


def _accounted(result) -> list[int]:
    """Every line the result accounts for, once each; a line of list text may also carry the note that the
    prose beside it, outside the fence, was ignored (``prose-ignored``), which is no second reading."""
    lines = [h.line for h in result.headers] + [c.line for c in result.cards] + list(result.decorations)
    lines += [line for problem in result.problems if problem.rule != "prose-ignored" for line in problem.lines]
    if result.declared_total_line is not None:
        lines.append(result.declared_total_line)
    prose = [line for problem in result.problems if problem.rule == "prose-ignored" for line in problem.lines]
    return sorted(lines + [line for line in prose if line not in lines])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)  # a loaded machine: no per-example deadline
@given(st.lists(_line, max_size=12))
def test_every_line_of_a_fenced_list_is_accounted_for_once(lines: list[str]) -> None:
    text = "\n".join(["```", *lines])
    result = parse(text)
    assume(result.source == "text")  # JSON inside the fence is read as JSON: numbered by entries
    non_blank = [n for n, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    assert _accounted(result) == non_blank
    assert sum(p.rule == "prose-ignored" for p in result.problems) <= 1


_value = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 1005) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "cards",
                    "decklist",
                    "pokemon",
                    "trainer",
                    "energy",
                    "deck",
                    "card",
                    "count",
                    "name",
                    "set",
                    "setCode",
                    "number",
                    "id",
                    "player",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.mark.slow
@settings(deadline=None)
@given(_value)
def test_any_json_is_a_deck_or_one_problem_and_counts_its_entries(value) -> None:
    text = json.dumps(value)
    if not text.lstrip().startswith(("{", "[")):
        return
    result = parse(text)
    if result.source != "json":  # "[" then something other than {, [ or ]: a text line
        assert not text[1:].lstrip().startswith(("{", "[", "]"))
        return
    shape = [p for p in result.problems if p.rule == "json-shape"]
    assert len(shape) <= 1
    if shape:
        assert result.cards == [] and len(result.problems) == 1
    assert count_lines(text) >= len(result.cards)


def test_pokemontcg_io_card_objects_give_their_set_code():
    result = parse(
        json.dumps(
            {
                "cards": [
                    {
                        "count": 1,
                        "card": {
                            "id": "base1-4",
                            "name": "Charizard",
                            "number": "4",
                            "set": {"id": "base1", "name": "Base", "ptcgoCode": "BS"},
                        },
                    },
                    {"count": 2, "id": "base1-24", "name": "Charmeleon"},
                ]
            }
        )
    )
    assert [(c.name, c.set_code, c.number) for c in result.cards] == [
        ("Charizard", "BS", "4"),
        ("Charmeleon", "BASE1", "24"),
    ]
    assert [ln.card.id for ln in check(result, "unlimited", ON).lines] == ["base1-4", "base1-24"]


def test_pokemontcg_io_deck_of_current_sets_resolves_by_its_card_ids():
    """pokemontcg.io's set ids differ from TCGdex's for most sets since Sword & Shield (sv1, sv3pt5,
    me2pt5...): each is in data/set-aliases.csv, so no line is an unknown set."""
    ids = [
        ("sv3pt5-25", 4),
        ("sv1-196", 4),
        ("me1-131", 4),
        ("me2pt5-109", 4),
        ("zsv10pt5-1", 4),
        ("sv4pt5-91", 4),
        ("sv8pt5-101", 4),
        ("sv6pt5-38", 1),
        ("swsh12pt5gg-GG01", 1),
        ("sve-5", 30),
    ]
    deck = [{"id": "d-1", "name": "pokemontcg.io", "cards": [{"id": i, "name": "?", "count": n} for i, n in ids]}]
    report = check(json.dumps(deck), "unlimited", ON)
    assert report.counts.total == 60 and report.counts.unknown == 0
    assert [ln.card.id for ln in report.lines] == [
        "sv03.5-025",
        "sv01-196",
        "me01-131",
        "me02.5-109",
        "sv10.5b-001",
        "sv04.5-091",
        "sv08.5-101",
        "sv06.5-038",
        "swsh12.5gg-GG01",
        "sve-005",
    ]
    assert "unknown-set" not in {p.rule for p in report.problems}
