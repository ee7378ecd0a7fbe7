"""deckcheck/dates.py: one reading of a date for every entry point (the command line, the repository settings,
the API, the web page, Discord): the same texts are the same date everywhere, or refused everywhere."""

from __future__ import annotations

import datetime as dt

import pytest

from deckcheck.cli import cli
from deckcheck.dates import parse_date

MAY_FIRST = dt.date(2026, 5, 1)
#: texts that are 2026-05-01 as ISO 8601 writes it (and Python reads it), with blanks around them
SAME = ["2026-05-01", "20260501", "2026-W18-5", " 2026-05-01 ", "2026-05-01\t"]
#: texts that are no date
NOT = ["2026-02-30", "01/05/2026", "May 1", "2026-05-01T10:00", "", "2026-05-011", "２０２６-05-01"]


@pytest.mark.parametrize("text", SAME)
def test_iso_forms_and_blanks_around_are_one_date(text):
    assert parse_date(text) == MAY_FIRST


@pytest.mark.parametrize("text", NOT)
def test_anything_else_is_refused_naming_the_text(text):
    with pytest.raises(ValueError, match=r"is not a date \(YYYY-MM-DD\)"):
        parse_date(text)


def test_a_long_text_is_refused_without_being_read_whole():
    with pytest.raises(ValueError) as raised:
        parse_date("2026-05-01" * 10_000)
    assert len(str(raised.value)) < 100


@pytest.mark.parametrize("text", SAME)
def test_every_entry_point_reads_the_same_date(text, client, runner, tmp_path):
    deck = "4 Nest Ball SVI 181\n"
    api = client.post("/api/v1/validate", json={"decklist": deck, "as_of": text})
    assert api.status_code == 200 and api.get_json()["as_of"] == "2026-05-01", api.get_data()
    page = client.post("/", data={"decklist": deck, "format": "standard", "as_of": text})
    assert page.status_code == 200 and "on 2026-05-01" in page.get_data(as_text=True)
    (tmp_path / "deck.txt").write_text(deck, encoding="utf-8")
    result = runner.invoke(cli, ["check", str(tmp_path / "deck.txt"), "--as-of", text, "--output-format", "jsonl"])
    assert result.exit_code == 1 and '"as_of":"2026-05-01"' in result.output, result.output


@pytest.mark.parametrize("text", ["2026-02-30", "01/05/2026"])
def test_every_entry_point_refuses_the_same_texts(text, client, runner, tmp_path):
    deck = "4 Nest Ball SVI 181\n"
    assert client.post("/api/v1/validate", json={"decklist": deck, "as_of": text}).status_code == 422
    page = client.post("/", data={"decklist": deck, "format": "standard", "as_of": text}).get_data(as_text=True)
    assert "is not a date" in page
    (tmp_path / "deck.txt").write_text(deck, encoding="utf-8")
    result = runner.invoke(cli, ["check", str(tmp_path / "deck.txt"), "--as-of", text])
    assert result.exit_code == 2 and "is not a date (YYYY-MM-DD)" in result.output
