"""Real decklists: shapes and spellings earlier rounds left unread or misread (exact verdicts and messages).

Each section is one mechanism: the echo of long names in messages, RK9's ``- ACE SPEC`` written with
a blank, pokemontcg.io card ids with a ``_A`` disambiguator, printings that share a set code and a
number (the name picks), the Elite Four glyph of the Platinum SP Pokémon written ``4``, and the
Markdown shapes no tool writes (``~~~`` fences, numbered lists), which stay unparsed lines.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import deckcheck
from deckcheck.rules.words import ECHO_LIMIT, quoted

MARCH = "2026-03-01"


def _problems(text: str, fmt: str = "unlimited", as_of: str = MARCH) -> list[tuple[str, tuple[int, ...], str]]:
    report = deckcheck.check(text, fmt, as_of)
    return [(p.rule, tuple(p.lines), p.message) for p in report.problems]


def _messages(text: str, rule: str, fmt: str = "unlimited") -> list[str]:
    return [m for r, _lines, m in _problems(text, fmt) if r == rule]


# --- a long name is echoed cut, with its length ---------------------------------------------


def test_quoted_keeps_a_short_text_and_cuts_a_long_one_at_the_limit():
    assert quoted("Nest Ball") == '"Nest Ball"'
    assert quoted("A" * ECHO_LIMIT) == '"' + "A" * ECHO_LIMIT + '"'
    long = "B" * (ECHO_LIMIT + 1)
    assert quoted(long) == '"' + "B" * (ECHO_LIMIT - 1) + f'…" ({ECHO_LIMIT + 1} characters)'


def test_an_unknown_60kb_name_makes_a_short_message_with_its_line_and_length():
    name = "Zz" + "q" * 60_000
    (message,) = _messages(f"4 Nest Ball SVI 181\n1 {name}\n", "unknown-card")
    assert message == (
        f'Line 2: no card named "Zz{"q" * (ECHO_LIMIT - 3)}…" (60,002 characters) was found in the card '
        "database; its 1 copy still counts toward the deck size."
    )


def test_a_name_of_65000_blanks_between_two_words_is_echoed_cut():
    name = "Zz" + " " * 65_000 + "Top"
    (message,) = _messages(f"1 {name}\n", "unknown-card")
    assert message.startswith('Line 1: no card named "Zz   ')
    assert '…" (65,005 characters) was found' in message
    assert len(message) < 250


def test_a_long_name_on_a_known_printing_is_echoed_cut_in_name_mismatch():
    name = "Q" * 5_000
    (message,) = _messages(f"4 {name} SVI 181\n", "name-mismatch")
    assert message == (
        f'Line 1 names "{"Q" * (ECHO_LIMIT - 1)}…" (5,000 characters), but SVI 181 is Nest Ball; the line was '
        "checked as Nest Ball (SVI 181)."
    )


def test_a_long_name_with_an_unknown_set_is_echoed_cut():
    name = "Qx" * 3_000
    messages = [m for r, _l, m in _problems(f"1 {name} ZZQ 5\n") if r in ("unknown-set", "unknown-card")]
    assert messages == [
        f"Line 1: the card database knows no set ZZQ (its newest set is Pitch Black, released 2026-07-17), and no "
        f'card named "{("Qx" * 40)[: ECHO_LIMIT - 1]}…" (6,000 characters) was found; its 1 copy still counts '
        "toward the deck size."
    ]


# --- RK9's "- ACE SPEC" written with a blank --------------------------------------------------


def test_rk9_ace_spec_suffix_with_a_blank_is_a_tag_not_part_of_the_name():
    from deckcheck.decklist.parse import parse

    result = parse("1 Prime Catcher TEF 157 - ACE SPEC\n1 Prime Catcher - ACE SPEC\n1 Prime Catcher - Ace Spec\n")
    assert [(c.name, c.set_code, c.number, c.tag) for c in result.cards] == [
        ("Prime Catcher", "TEF", "157", "ACE SPEC"),
        ("Prime Catcher", None, None, "ACE SPEC"),
        ("Prime Catcher", None, None, "Ace Spec"),
    ]
    # the suffix alone, or without its dash, is no tag: the line keeps it
    assert [c.name for c in parse("1 - ACE SPEC\n1 Prime Catcher ACE SPEC\n").cards] == [
        "- ACE SPEC",
        "Prime Catcher ACE SPEC",
    ]


def test_rk9_json_name_with_ace_spec_and_a_blank_resolves_and_counts_as_ace_spec():
    import json

    text = json.dumps(
        {
            "cards": [
                {"count": 1, "card": {"name": "Prime Catcher - ACE SPEC", "setCode": "TEF", "number": "157"}},
                {"count": 1, "card": {"name": "Master Ball - ACE SPEC", "setCode": "TEF", "number": "153"}},
                {"count": 58, "card": {"name": "Psychic Energy - Basic", "setCode": "SVE", "number": "5"}},
            ]
        }
    )
    report = deckcheck.check(text, "standard", MARCH)
    assert [ln.card.name for ln in report.lines][:2] == ["Prime Catcher", "Master Ball"]
    assert [(p.rule, p.lines, p.message) for p in report.problems if p.rule == "ace-spec-limit"] == [
        (
            "ace-spec-limit",
            (1, 2),
            "You have 2 ACE SPEC cards (Prime Catcher, Master Ball) (lines 1, 2); the limit is 1 per deck.",
        )
    ]
    assert report.counts.unknown == 0
    assert [p.rule for p in report.problems if p.rule in ("name-mismatch", "unknown-card")] == []


def test_a_text_line_with_ace_spec_and_a_blank_resolves_without_unknown_card():
    problems = _problems(
        "1 Prime Catcher TEF 157 - ACE SPEC\n4 Nest Ball SVI 181\n55 Basic {P} Energy SVE 5\n", "standard"
    )
    assert [r for r, _l, _m in problems if r in ("unknown-card", "name-mismatch")] == []


@given(
    name=st.sampled_from(["Prime Catcher", "Porygon-Z", "Technical Machine: Devolution", "Pokégear 3.0", "Unown [A]"]),
    where=st.sampled_from(["", " TEF 157", " (TEF 157)", " TEF"]),
    dash=st.sampled_from(["-", "–", "—"]),
    ace=st.sampled_from(["ACE", "Ace", "ace"]),
    spec=st.sampled_from(["SPEC", "Spec", "spec"]),
)
def test_any_line_with_an_ace_spec_suffix_reads_as_the_line_without_it(name, where, dash, ace, spec):
    from deckcheck.decklist.parse import parse

    (plain,) = parse(f"1 {name}{where}").cards
    (tagged,) = parse(f"1 {name}{where} {dash} {ace} {spec}").cards
    assert (tagged.name, tagged.set_code, tagged.number, tagged.tag) == (
        plain.name,
        plain.set_code,
        plain.number,
        f"{ace} {spec}",
    )


# --- card ids with pokemontcg.io's "_A" disambiguator; printings sharing a code and number ----


def _ids(text: str, fmt: str = "unlimited") -> list[tuple[str | None, str | None, bool]]:
    report = deckcheck.check(text, fmt, MARCH)
    return [(ln.card.id if ln.card else None, ln.method, ln.name_differs) for ln in report.lines]


def test_pokemontcg_io_ids_with_a_disambiguator_resolve_to_the_named_printing():
    lines = [
        "1 Charizard cel25c-4_A",
        "1 Venusaur cel25c-15_A1",
        "1 Here Comes Team Rocket! cel25c-15_A2",
        "1 Claydol cel25c-15_A4",
    ]
    assert _ids("\n".join(lines)) == [
        ("ptcgio:cel25c-4_A", "alias", False),
        ("ptcgio:cel25c-15_A1", "alias", False),
        ("ptcgio:cel25c-15_A2", "alias", False),
        ("ptcgio:cel25c-15_A4", "alias", False),
    ]


def test_a_set_code_of_two_sets_finds_the_printing_that_bears_the_name():
    # CEL is Celebrations (cel25) and its Classic Collection (cel25cc): CEL 4 is Palkia in the
    # first, Charizard in the second; CEL-CC 15 is four cards
    lines = ["1 Charizard CEL 4", "1 Palkia CEL 4", "1 Claydol CEL-CC 15", "1 Rocket's Zapdos CEL-CC 15"]
    assert _ids("\n".join(lines)) == [
        ("ptcgio:cel25c-4_A", "printing", False),
        ("cel25-4", "printing", False),
        ("ptcgio:cel25c-15_A4", "alias", False),
        ("ptcgio:cel25c-15_A3", "alias", False),
    ]


def test_a_name_no_printing_at_the_code_and_number_bears_is_still_a_name_mismatch():
    assert _messages("1 Pikachu CEL 4\n", "name-mismatch") == [
        'Line 1 names "Pikachu", but CEL 4 is Palkia; the line was checked as Palkia (CEL 4).'
    ]


def test_json_ids_with_a_disambiguator_resolve_by_set_number_and_name():
    import json

    text = json.dumps({"cards": [{"count": 1, "id": "cel25c-15_A4", "name": "Claydol"}]})
    assert _ids(text) == [("ptcgio:cel25c-15_A4", "alias", False)]


@given(
    name=st.sampled_from(["Charizard", "Here Comes Team Rocket!", "Pokégear 3.0", "Porygon-Z"]),
    card_id=st.sampled_from(["cel25c-4", "cel25c-15", "swsh12pt5-160", "base1-4", "hsp-HGSS01"]),
    mark=st.sampled_from(["_A", "_B", "_A1", "_A4", "_C12"]),
)
def test_a_card_id_with_a_disambiguator_reads_as_the_id_without_it(name, card_id, mark):
    from deckcheck.decklist.parse import parse

    (plain,) = parse(f"1 {name} {card_id}").cards
    (marked,) = parse(f"1 {name} {card_id}{mark}").cards
    assert (marked.name, marked.set_code, marked.number) == (plain.name, plain.set_code, plain.number)
    assert plain.set_code is not None and plain.number is not None


# --- the Elite Four glyph of the Platinum SP Pokémon, written 4 --------------------------------


def test_a_name_ending_in_the_e4_glyph_is_read_whole_and_resolves_to_the_e4_card():
    from deckcheck.decklist.parse import parse

    result = parse("1 Infernape 4 RR 43\n2 Infernape 4\n1 Infernape 4 LV.X RR 108\n")
    assert [(c.count, c.name, c.set_code, c.number) for c in result.cards] == [
        (1, "Infernape 4", "RR", "43"),
        (2, "Infernape 4", None, None),
        (1, "Infernape 4 LV.X", "RR", "108"),
    ]
    text = "1 Infernape 4 RR 43\n2 Infernape 4\n1 Infernape⁴\n1 Infernape ⁴ RR 43\n1 Gallade 4 RR 20\n"
    assert _ids(text) == [
        ("pl2-43", "printing", False),
        ("pl2-43", "name", False),
        ("pl2-43", "name", False),
        ("pl2-43", "printing", False),
        ("pl2-20", "printing", False),
    ]
    assert _ids("1 Infernape 4 LV.X RR 108\n") == [("pl2-108", "printing", False)]
    problems = _problems(text)
    assert [(r, m) for r, _l, m in problems if r in ("name-mismatch", "unknown-card", "resolved-by-name")] == [
        (
            "resolved-by-name",
            'Line 2: "Infernape 4" has no set code, so it was matched by name to Infernape E4 (RR 43).',
        ),
        (
            "resolved-by-name",
            'Line 3: "Infernape⁴" has no set code, so it was matched by name to Infernape E4 (RR 43).',
        ),
    ]


def test_a_name_ending_in_4_that_no_e4_card_has_stays_unknown():
    (message,) = _messages("1 Porygon 4\n", "unknown-card")
    assert message == (
        'Line 1: no card named "Porygon 4" was found in the card database; its 1 copy still counts toward the '
        "deck size."
    )


def test_e4_spelling():
    from deckcheck.cards.spellings import e4_spelling

    assert e4_spelling("Infernape 4") == "Infernape E4"
    assert e4_spelling("Infernape⁴") == "Infernape E4"
    assert e4_spelling("Infernape  ⁴") == "Infernape E4"
    assert e4_spelling("Infernape 4 LV.X") == "Infernape E4 LV.X"
    assert e4_spelling("Mr. Mime 4") == "Mr. Mime E4"
    for other in ("Infernape", "4", "Energy Removal 2", "Pokégear 3.0", "Infernape 44", "Infernape 4 V", "1 4"):
        assert e4_spelling(other) is None


def test_classic_collection_codes_and_numbers_as_exports_write_them():
    lines = ["1 Charizard CEL-CC 4", "1 Charizard CEL-CC CC002", "1 Garchomp C LV.X cel25cc-CC018"]
    assert _ids("\n".join(lines)) == [
        ("ptcgio:cel25c-4_A", "alias", False),
        ("cel25cc-CC002", "alias", False),
        ("cel25cc-CC018", "printing", False),
    ]


# --- Markdown shapes no tool writes: "~~~" fences and numbered lists stay unparsed lines ---------
#
# rules-and-formats.md (2.1-2.6) lists what real tools write: PTCGL, PTCGO, Limitless, RK9, TCGplayer
# and Discord's ``` code blocks. No tool writes a "~~~" fence or numbers its lines ("1. 4 Nest Ball"):
# such lines are not guessed at; each is an unparsed line naming itself, and the list's card lines
# inside a "~~~" fence are still read.

_HINT = 'A card line looks like "4 Nest Ball SVI 181" and a header like "Trainer: 12".'


def _parsed(text: str):
    from deckcheck.decklist.parse import parse

    result = parse(text)
    return (
        [(c.line, c.count, c.name) for c in result.cards],
        [(p.rule, p.lines, p.message, p.hint) for p in result.problems],
    )


def test_tilde_fences_are_unparsed_lines_and_the_list_inside_is_read():
    cards, problems = _parsed("My list:\n~~~txt\n4 Nest Ball SVI 181\n~~~\n")
    assert cards == [(3, 4, "Nest Ball")]
    assert problems == [
        ("unparsed-line", (1,), 'Line 1 is not a card line or a section header: "My list:".', _HINT),
        ("unparsed-line", (2,), 'Line 2 is not a card line or a section header: "~~~txt".', _HINT),
        ("unparsed-line", (4,), 'Line 4 is not a card line or a section header: "~~~".', _HINT),
    ]


def test_numbered_list_lines_are_unparsed_lines_never_a_count():
    cards, problems = _parsed("1. 4 Nest Ball SVI 181\n2) 4 Iono PAL 185\n4 Iono PAL 185\n")
    assert cards == [(3, 4, "Iono")]
    assert problems == [
        ("unparsed-line", (1,), 'Line 1 is not a card line or a section header: "1. 4 Nest Ball SVI 181".', _HINT),
        ("unparsed-line", (2,), 'Line 2 is not a card line or a section header: "2) 4 Iono PAL 185".', _HINT),
    ]


@given(
    item=st.integers(min_value=1, max_value=99),
    mark=st.sampled_from([".", ")"]),
    line=st.sampled_from(["4 Nest Ball SVI 181", "1 Infernape 4 RR 43", "2 Iono", "4x Iono PAL 185"]),
)
def test_a_numbered_card_line_is_one_unparsed_line_on_its_line(item, mark, line):
    cards, problems = _parsed(f"4 Iono PAL 185\n{item}{mark} {line}\n")
    assert cards == [(1, 4, "Iono")]
    assert [(rule, lines) for rule, lines, _m, _h in problems] == [("unparsed-line", (2,))]


# --- a collector number no printing has, of thousands of digits: found nowhere, never a crash --


def test_a_number_of_thousands_of_digits_finds_nothing_and_never_raises():
    import json

    from deckcheck.cards import get_db
    from deckcheck.cards.spellings import MAX_NUMBER_LEN

    assert max(len(c.number) for c in get_db().cards.values()) <= MAX_NUMBER_LEN
    digits = "7" * 5_000
    texts = [
        f"1 Fire Energy BRS {digits}\n",
        json.dumps({"cards": [{"count": 1, "name": "Nest Ball", "set": "SVI", "number": digits}]}),
        json.dumps({"cards": [{"count": 1, "name": "Zzzq", "set": "CEL-CC", "number": digits}]}),
    ]
    assert [_ids(t) for t in texts] == [
        [("mee-002", "name", False)],
        [("sv01-181", "name-and-set", False)],
        [(None, "unresolved", False)],
    ]


def test_a_long_set_code_or_number_is_echoed_cut_with_its_length():
    import json

    from deckcheck.rules.words import clipped

    assert clipped("SVI") == "SVI" and clipped("Q" * 81) == "Q" * (ECHO_LIMIT - 1) + "… (81 characters)"
    code, digits = "Q" * 5_000, "7" * 5_000
    text = json.dumps({"cards": [{"count": 1, "name": "Nest Ball", "set": code, "number": "7"}]})
    (message,) = _messages(text, "unknown-set")
    assert message == (
        f"Line 1: the card database knows no set {'Q' * (ECHO_LIMIT - 1)}… (5,000 characters) (its newest set is "
        'Pitch Black, released 2026-07-17), so "Nest Ball" was matched by name to Nest Ball (PAF 84).'
    )
    (message,) = _messages(f"1 Fire Energy BRS {digits}\n", "resolved-by-name")
    assert message == (
        f'Line 1: no printing BRS {"7" * (ECHO_LIMIT - 1)}… (5,000 characters) of "Fire Energy" was found, so it '
        "was matched by name to Fire Energy (MEE 2)."
    )
    text = json.dumps({"cards": [{"count": 1, "name": "Zzzq", "set": "SVI", "number": digits}]})
    (message,) = _messages(text, "unknown-card")
    assert message == (
        f'Line 1: no card named "Zzzq" SVI {"7" * (ECHO_LIMIT - 1)}… (5,000 characters) was found in the card '
        "database; its 1 copy still counts toward the deck size."
    )


def test_a_long_player_name_in_an_event_export_is_echoed_cut():
    import json

    deck = {"cards": [{"count": 1, "name": "Nest Ball", "set": "SVI", "number": "181"}]}
    text = json.dumps([{"name": "P" * 10_000, **deck}, {"name": "Ann", **deck}])
    (message,) = _messages(text, "several-decks")
    assert message == (
        f"The JSON holds 2 decks (an event export); only the first ({'P' * (ECHO_LIMIT - 1)}…'s) was checked. "
        "Check one player's deck at a time to see the others."
    )
