"""Plain words first: a problem's message leads and its code follows as a link to its entry on the rules
page (``/rules``, made from the registry); the name-mismatch hint tells a misspelling from another card
and from another language."""

from __future__ import annotations

import html
import re

import pytest

from deckcheck.engine import check
from deckcheck.registry import CATALOGUE, load_builtin_rules

load_builtin_rules()


@pytest.mark.parametrize(
    "line,hint",
    [
        (
            "2 Charizrd ex OBF 125",
            '"Charizrd ex" looks like a misspelling of Charizard ex: the set code and number decide the card.',
        ),
        ("1 Iono SVI 181", '"Iono" is another card: check the set code and number, or the name.'),
        (  # Japanese: a language the card data has no names in (French names are read as the card)
            "3 リザードンex OBF 125",
            '"リザードンex" is no English card name: a list in another language shows this on every line; '
            "otherwise check the set code and number.",
        ),
    ],
)
def test_the_name_mismatch_hint_tells_a_misspelling_from_another_card_and_another_language(line, hint):
    (p,) = [p for p in check(line, "standard", "2026-05-01").problems if p.rule == "name-mismatch"]
    assert p.hint == hint


def test_every_rule_has_a_description():
    assert [name for name, spec in CATALOGUE.items() if not spec.description] == []
    assert CATALOGUE["not-a-decklist"].module == "deckcheck.rules.reading"
    assert CATALOGUE["deck-size"].module == "deckcheck.rules.construction"


def test_the_rules_page_has_every_code_with_its_description_and_source(client):
    resp = client.get("/rules")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    ids = re.findall(r'<section id="([a-z-]+)" class="rule-entry', page)
    assert ids == [spec.name for spec in sorted(CATALOGUE.values(), key=lambda s: s.code)]
    entry = html.unescape(re.search(r'<section id="copy-limit".*?</section>', page, re.DOTALL).group(0))
    text = re.sub(r"<[^>]+>", "", entry)
    assert "R102" in text and "error" in text
    assert "At most limit cards with one name, summed over every line and printing" in text
    assert "Standard (limit 4)" in text
    assert "deckcheck/rules/construction.py" in text
    assert "Tournament Handbook" in page  # the formats' sources


def test_a_problem_leads_with_its_message_and_links_its_code(client):
    page = client.post(
        "/", data={"decklist": "2 Charizrd ex OBF 125\n", "format": "standard", "as_of": "2026-05-01"}
    ).get_data(as_text=True)
    item = re.search(r'<li id="problem-\d+" class="problem problem--warning[^"]*">.*?</li>', page, re.DOTALL).group(0)
    message = item.index('class="problem-message"')
    code = item.index('href="/rules#name-mismatch"')
    assert message < code
    assert re.search(r'href="/rules#name-mismatch"><span class="visually-hidden">rule </span>C103</a>', item)
