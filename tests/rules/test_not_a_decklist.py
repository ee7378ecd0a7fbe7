"""Text that is not a decklist: one ``not-a-decklist`` problem in place of a warning per line, in the
engine, and so in the API and the command line."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from deckcheck.cli import cli
from deckcheck.engine import check, get_format
from deckcheck.rules.notes import NOT_A_DECKLIST_MIN

ON = "2026-05-01"
PROSE = "We played this list at the regional and it went 7-2; the notes below say why."


def prose(n: int) -> list[str]:
    return [f"{PROSE} ({i})" for i in range(n)]


def rules_of(report) -> list[str]:
    return [p.rule for p in report.problems]


def test_mostly_prose_is_one_problem_naming_the_first_card_line():
    text = "\n".join(prose(40) + ["2 Iono PAL 185", "4 Nest Ball SVI 181"] + prose(10))
    report = check(text, "standard", ON)
    assert "unparsed-line" not in rules_of(report)
    (p,) = [p for p in report.problems if p.rule == "not-a-decklist"]
    assert (p.code, p.severity, p.lines) == ("P120", "error", ())
    assert p.message == (
        "This does not look like a decklist: 50 of its 52 lines are not card lines. "
        'The first line that looks like a card is line 41: "2 Iono PAL 185".'
    )
    assert p.hint == 'Paste only the list: one card per line, its count first, like "4 Nest Ball SVI 181".'
    assert report.problems[0] is p  # it comes first: it is about the whole text


def test_no_card_line_at_all():
    report = check("\n".join(prose(5)), "standard", ON)
    (p,) = [p for p in report.problems if p.rule == "not-a-decklist"]
    assert (
        p.message
        == "This does not look like a decklist: 5 of its 5 lines are not card lines. No line looks like a card."
    )


def test_a_few_stray_lines_keep_their_own_warnings():
    few = "\n".join(prose(NOT_A_DECKLIST_MIN - 1))
    assert rules_of(check(few, "standard", ON)).count("unparsed-line") == NOT_A_DECKLIST_MIN - 1
    # as many prose lines as card lines: a list with notes, each line its own warning
    half = "\n".join(prose(4) + ["4 Nest Ball SVI 181"] * 4)
    assert rules_of(check(half, "standard", ON)).count("unparsed-line") == 4
    assert "not-a-decklist" not in rules_of(check(half, "standard", ON))


def test_a_format_that_turns_it_off_gets_the_warnings_back():
    fmt = get_format("standard")
    off = fmt.replace(rules={k: v for k, v in fmt.rules.items() if k != "not-a-decklist"})
    report = check("\n".join(prose(6)), off, ON)
    assert rules_of(report).count("unparsed-line") == 6 and "not-a-decklist" not in rules_of(report)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=120))
def test_either_one_problem_or_a_warning_per_line(kinds):
    """Any mix of card lines (True) and prose (False): one not-a-decklist exactly when the prose lines are
    at least NOT_A_DECKLIST_MIN and more than the card lines, else one unparsed-line per prose line."""
    lines = ["1 Nest Ball SVI 181" if k else f"{PROSE} {i}" for i, k in enumerate(kinds)]
    rules = rules_of(check("\n".join(lines), "standard", ON))
    bad = kinds.count(False)
    if bad >= NOT_A_DECKLIST_MIN and bad > kinds.count(True):
        assert rules.count("not-a-decklist") == 1 and "unparsed-line" not in rules
    else:
        assert rules.count("unparsed-line") == bad and "not-a-decklist" not in rules


def test_the_command_line_and_the_api_say_it_once(tmp_path, client):
    text = "\n".join(prose(30) + ["4 Nest Ball SVI 181"])
    path = tmp_path / "notes.txt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", str(path), "--as-of", ON, "--output-format", "json"])
    (report,) = json.loads(result.stdout)
    assert [p["rule"] for p in report["problems"]].count("not-a-decklist") == 1
    assert "unparsed-line" not in [p["rule"] for p in report["problems"]]
    answer = client.post("/api/v1/validate", json={"decklist": text, "as_of": ON}).get_json()
    assert answer["problems"][0]["rule"] == "not-a-decklist"
    assert len(answer["problems"]) == len(report["problems"])
