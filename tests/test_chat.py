"""Chat replies (deckcheck/chat.py) and ``POST /api/v1/validate?style=chat``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckcheck import chat, check
from deckcheck.problems import CATALOGUE, SEVERITIES, Counts, Problem, Report
from deckcheck.service import web

DECKS = Path(__file__).resolve().parent / "decks"
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
LINK = "https://deckcheck.example/?d=abc&format=standard&as_of=2026-05-01"


def report(*problems: Problem, total: int = 60) -> Report:
    return Report("standard", "Standard", DATE, list(problems), [], Counts(pokemon=total), {})


COPY = Problem("copy-limit", "You have 5 cards named Nest Ball (line 12); a deck may have at most 4.", lines=(12,))
SIZE = Problem("deck-size", "The deck has 59 cards; a deck has exactly 60.")
BASIC = Problem("no-basic-pokemon", "The deck has no Basic Pokémon.")
EVOLUTION = Problem("evolution-gap", "Drakloak (lines 3, 9) evolves from Dreepy, which the deck lacks.", lines=(3, 9))
NOTE = Problem("resolved-by-name", "Iono (line 22) was found by its name alone: Iono (PAL 185).", lines=(22,))


# -- exact replies ----------------------------------------------------------------


def test_a_valid_deck_is_one_line():
    assert chat.reply(check(LEGAL, "standard", DATE)) == "✅ Valid for Standard on 2026-05-01 (60 cards)."


def test_valid_with_a_warning_and_a_note():
    assert chat.reply(report(EVOLUTION, NOTE)) == (
        "✅ Valid for Standard on 2026-05-01 (60 cards), with 1 warning.\n"
        "• lines 3, 9 (warning): Drakloak evolves from Dreepy, which the deck lacks.\n"
        "• line 22 (note): Iono was found by its name alone: Iono (PAL 185)."
    )


def test_not_valid_lists_the_problems_as_short_lines():
    assert chat.reply(report(COPY, SIZE, BASIC, EVOLUTION, total=59), LINK) == (
        "❌ Not valid for Standard on 2026-05-01: 3 errors, 1 warning.\n"
        "• line 12: You have 5 cards named Nest Ball; a deck may have at most 4.\n"
        "• The deck has 59 cards; a deck has exactly 60.\n"
        "• The deck has no Basic Pokémon.\n"
        "• lines 3, 9 (warning): Drakloak evolves from Dreepy, which the deck lacks."
    )


def test_one_error_is_singular_and_many_lines_are_shortened():
    many = Problem("copy-limit", "Too many.", lines=tuple(range(1, 9)))
    assert chat.reply(report(many)) == (
        "❌ Not valid for Standard on 2026-05-01: 1 error.\n• lines 1, 2, 3, 4, 5, …: Too many."
    )


def test_a_warning_without_lines_and_a_message_on_several_lines():
    odd = Problem("total-mismatch", "The list says 61 cards\n  but has 60.")
    assert chat.reply(report(odd)) == (
        "✅ Valid for Standard on 2026-05-01 (60 cards), with 1 warning.\n• warning: The list says 61 cards but has 60."
    )


def test_a_cut_reply_ends_with_the_count_and_the_link():
    problems = [Problem("copy-limit", f"Problem number {i} " + "x" * 180, lines=(i,)) for i in range(1, 31)]
    text = chat.reply(report(*problems), LINK)
    lines = text.split("\n")
    assert chat.length(text) <= 2000
    assert lines[0] == "❌ Not valid for Standard on 2026-05-01: 30 errors."
    kept = len(lines) - 2
    assert lines[1:-1] == [chat.problem_line(p) for p in problems[:kept]]  # whole lines, in order
    assert lines[-1] == f"… and {30 - kept} more problems: {LINK}"
    # the next line would not have fitted
    longer = "\n".join(lines[:-1] + [chat.problem_line(problems[kept]), f"… and {29 - kept} more problems: {LINK}"])
    assert chat.length(longer) > 2000


def test_one_more_problem_is_singular():
    problems = [Problem("copy-limit", "y" * 390, lines=(i,)) for i in range(1, 6)]
    text = chat.reply(report(*problems), LINK, limit=1800)
    assert text.endswith(f"… and 1 more problem: {LINK}")


def test_a_link_too_long_to_fit_is_left_out():
    problems = [Problem("copy-limit", "z" * 300, lines=(i,)) for i in range(1, 20)]
    text = chat.reply(report(*problems), "https://x.example/?d=" + "a" * 2500)
    assert chat.length(text) <= 2000
    assert text.endswith(" more problems.") and "https://" not in text


def test_a_long_message_is_cut_on_its_line():
    line = chat.problem_line(Problem("unknown-card", "w" * 1000, lines=(1,)))
    assert chat.length(line) == chat.MAX_LINE and line.endswith("…") and line.startswith("• line 1: www")


def test_lengths_count_utf16_code_units():
    assert chat.length("ab") == 2 and chat.length("🐉") == 2 and chat.length("é") == 1
    assert chat.truncate("🐉🐉🐉", 4) == "🐉…"
    assert chat.truncate("abc", 3) == "abc" and chat.truncate("abcd", 3) == "ab…"


def test_escape_applies_to_messages_only():
    problem = Problem("unparsed-line", "Line 4 *x_y* is not a card line.", lines=(4,), severity="error")
    assert (
        chat.reply(report(problem), escape=lambda s: s.replace("*", "\\*")).split("\n")[1]
        == "• line 4: Line 4 \\*x_y\\* is not a card line."
    )


def test_a_real_illegal_deck_is_cut_with_its_share_link(app):
    result = check(CHARIZARD, "standard", DATE)
    with app.test_request_context("/"):
        link = chat.link_for("http://deckcheck.test", CHARIZARD, result)
        assert link == "http://deckcheck.test" + web.share_path(CHARIZARD, "standard", DATE)
    text = chat.reply(result, link)
    assert chat.length(text) <= 2000
    assert text.split("\n")[0] == chat.verdict(result)
    assert text.endswith(f"more problems: {link}")
    assert web.decode_deck(link.split("d=")[1].split("&")[0], 65536) == CHARIZARD


def test_link_for_falls_back_to_the_page_when_the_share_link_is_too_long():
    result = check(CHARIZARD, "standard", DATE)
    assert chat.link_for("http://deckcheck.test/", CHARIZARD, result, max_length=100) == "http://deckcheck.test/"


# -- never over the limit ------------------------------------------------------------

problems_strategy = st.lists(
    st.builds(
        Problem,
        rule=st.sampled_from(sorted(CATALOGUE)),
        message=st.text(max_size=1500),
        lines=st.lists(st.integers(1, 10**6), max_size=12).map(tuple),
        severity=st.sampled_from(SEVERITIES),
    ),
    max_size=150,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    problems=problems_strategy,
    link=st.one_of(st.none(), st.text(min_size=1, max_size=2500)),
    format_name=st.text(min_size=1, max_size=300),
    total=st.integers(0, 10**9),
)
@pytest.mark.slow
def test_a_reply_never_exceeds_the_limit(problems, link, format_name, total):
    result = Report("x", format_name, DATE, problems, [], Counts(pokemon=total), {})
    text = chat.reply(result, link)
    assert chat.length(text) <= chat.LIMIT
    assert text.split("\n")[0] == chat.verdict(result)
    assert chat.length(chat.body(result, link)) <= chat.EMBED_DESCRIPTION_LIMIT
    everything = [chat.verdict(result)] + [chat.problem_line(p) for p in problems]
    if text != "\n".join(everything):  # cut: whole problem lines in order, then the count
        *kept, footer = text.split("\n")
        assert kept == everything[: len(kept)]
        assert footer.startswith(f"… and {len(everything) - len(kept)} more problem")


# -- the API ------------------------------------------------------------------------


def _app_at(public_url: str):
    """An app made with ``PUBLIC_URL`` (the API reads its settings when the app is made)."""
    from conftest import UNTHROTTLED

    from deckcheck import create_app

    return create_app({"TESTING": True, "RATELIMIT_DEFAULT": UNTHROTTLED, "PUBLIC_URL": public_url})


def test_style_chat_adds_the_reply_to_the_report():
    client = _app_at("https://deckcheck.example").test_client()
    answer = client.post(
        "/api/v1/validate?style=chat", json={"decklist": CHARIZARD, "as_of": DATE}, base_url="http://evil.example"
    )
    data = answer.get_json()
    result = check(CHARIZARD, "standard", DATE)
    with client.application.test_request_context("/"):
        link = "https://deckcheck.example" + web.share_path(CHARIZARD, "standard", DATE)
    assert answer.status_code == 200
    assert data.pop("chat") == chat.reply(result, link)
    assert data == client.post("/api/v1/validate", json={"decklist": CHARIZARD, "as_of": DATE}).get_json()


def test_public_base_url_is_used_for_the_link():
    app = _app_at("https://decks.example.org/check")
    data = (
        app.test_client()
        .post("/api/v1/validate?style=chat&as_of=2026-05-01", data=CHARIZARD, content_type="text/plain")
        .get_json()
    )
    assert "https://decks.example.org/check/?d=" in data["chat"]


def test_style_full_and_no_style_have_no_chat_field(client):
    for path in ("/api/v1/validate", "/api/v1/validate?style=full"):
        assert "chat" not in client.post(path, json={"decklist": LEGAL, "as_of": DATE}).get_json()


def test_unknown_style_is_a_422(client):
    answer = client.post("/api/v1/validate?style=slack", json={"decklist": LEGAL})
    assert answer.status_code == 422
    assert answer.get_json() == {
        "error": {
            "code": "unprocessable",
            "message": "Invalid request: style: Unknown style 'slack'. Known styles: full, chat.",
            "details": {"query": {"style": ["Unknown style 'slack'. Known styles: full, chat."]}},
        }
    }


@pytest.mark.parametrize("deck", ["standard-legal-dragapult.txt", "ptcgl-en-charizard.txt"])
def test_report_schema_accepts_the_chat_field(client, deck):
    from deckcheck.service.schemas import ReportSchema

    data = client.post(
        "/api/v1/validate?style=chat", json={"decklist": (DECKS / deck).read_text(encoding="utf-8"), "as_of": DATE}
    ).get_json()
    assert ReportSchema().validate(data) == {}


def test_the_chat_reply_names_translated_cards_as_written(client):
    french = (DECKS / "rules" / "fr-names.txt").read_text(encoding="utf-8")
    data = client.post("/api/v1/validate?style=chat", json={"decklist": french, "as_of": DATE}).get_json()
    reply = data["chat"]
    assert "• lines 14, 15: You have 5 cards named Ultra Ball; the limit is 4.\n" in reply
    assert (
        "• line 15 (note): Line 15: Hyper Ball (Ultra Ball, SVI 196) is legal as Ultra Ball (ASC 213); play it "
        "with that card's text." in reply
    )
    assert "Card names were recognised in French on 21 lines" in reply
    assert ' names "' not in reply  # no name-mismatch warning
    line = next(c for c in data["cards"] if c["line"] == 15)
    assert (line["name_as_written"], line["language"], line["card"]["name"]) == ("Hyper Ball", "fr", "Ultra Ball")
