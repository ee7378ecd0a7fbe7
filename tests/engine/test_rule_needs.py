"""A rule's ``needs`` (issue #16): the engine does not call a rule whose deck attribute is empty, and
that changes no report.

Every rule that declares ``needs`` must have nothing to say on a deck where that attribute is empty.
Here every rule runs on every deck (:func:`every_rule`), each call of a rule whose need is empty
must find nothing, and the report must be the one the engine's plan gives: as a dict and as the
API's JSON, for the decklists of ``test_fast_equivalence`` in every shipped format and on dates
in and out of the formats' data.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from test_fast_equivalence import _DATES, _FORMATS, decklist

import deckcheck
from deckcheck.deck import ResolvedLine
from deckcheck.engine import get_format
from deckcheck.formats import FORMAT_MEMOS, RulePlan, load_formats
from deckcheck.registry import ALWAYS, CATALOGUE, REGISTRY, WARNING, Finding, rule

DECKS = Path(__file__).parent.parent / "decks"


@contextlib.contextmanager
def every_rule(fmt_id: str, said: list[tuple[str, bool, int]]) -> Iterator[None]:
    """Run every rule of the format on every deck; note (rule, its need present, findings) per call."""
    fmt = get_format(fmt_id)
    steps, _ = fmt.rule_plan()

    def wrapped(name, fn):
        need = REGISTRY[name].needs_of(fmt)

        def run(deck, ctx, *args):
            found = list(fn(deck, ctx, *args))
            said.append((name, bool(getattr(deck, need)), len(found)))
            return found

        return run

    plan = RulePlan([(name, wrapped(name, fn), args) for name, fn, args in steps], lambda deck: (True,) * len(steps))
    with mock.patch.object(FORMAT_MEMOS.of(fmt), "plan", plan):
        yield


def _answers(text: str, fmt: str, on: str) -> tuple[dict, bytes]:
    report = deckcheck.check(text, fmt, on)
    return report.to_dict(), orjson.dumps(report.to_dict(line_view=ResolvedLine.json_fragment))


def assert_same(text: str, fmt: str, on: str) -> list[tuple[str, bool, int]]:
    said: list[tuple[str, bool, int]] = []
    planned = _answers(text, fmt, on)
    with every_rule(fmt, said):
        everything = _answers(text, fmt, on)
    assert planned == everything, text
    assert [(name, n) for name, present, n in said if not present and n] == [], text
    return said


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decklist(), _FORMATS, _DATES)
def test_a_rule_skipped_for_its_needs_has_nothing_to_say(text, fmt, on):
    assert_same(text, fmt, on)


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("standard-legal-dragapult.txt", "standard"),
        ("ptcgl-en-charizard.txt", "expanded"),
        ("rules/glc-lightning.txt", "glc"),
        ("rules/dragapult-limitless.txt", "unlimited"),
        ("rules/dragapult-ptcgo.txt", "standard-ptcgl"),
    ],
)
def test_real_lists_answer_the_same_with_every_rule_run(path, fmt):
    said = assert_same((DECKS / path).read_text(encoding="utf-8"), fmt, "2026-05-01")
    # the plan does skip rules on these lists (else this file would prove nothing)
    assert any(not present for _, present, _ in said)


def test_the_plan_skips_what_the_deck_has_nothing_for():
    """wants(deck) is each step's need's value: radiant-limit is not run on a deck with no Radiant."""
    said: list[tuple[str, bool, int]] = []
    with every_rule("standard", said):
        deckcheck.check("4 Dreepy TWM 128\n1 Radiant Greninja ASR 46", "standard", "2026-05-01")
        deckcheck.check("4 Dreepy TWM 128", "standard", "2026-05-01")
    first, second = said[: len(said) // 2], said[len(said) // 2 :]
    assert ("radiant-limit", True, 0) in first and ("radiant-limit", False, 0) in second
    assert ("deck-size", True, 1) in first and ("deck-size", True, 1) in second  # ALWAYS: always present
    # legal-by-reprint needs the reprinted lines, but in a format of every card every known line
    assert REGISTRY["legal-by-reprint"].needs_of(get_format("standard")) == "reprinted"
    assert REGISTRY["legal-by-reprint"].needs_of(get_format("unlimited")) == "known"


def test_a_rule_with_needs_runs_only_when_the_deck_has_it(tmp_path):
    """A registered rule declaring needs="radiant" is called on a deck with a Radiant Pokémon and not
    on one without; a rule without needs (ALWAYS) on both."""
    from deckcheck.cards.files import data_dir

    calls: list[str] = []

    @rule("test-needs", code="T998", severity=WARNING, title="A rule of this test", needs="radiant")
    def needing(deck, ctx):
        calls.append("needing")
        yield Finding(f"{len(deck.radiant)} Radiant.")

    @rule("test-always", code="T997", severity=WARNING, title="Another rule of this test")
    def always(deck, ctx):
        calls.append("always")
        return ()

    try:
        assert REGISTRY["test-needs"].needs == "radiant" and REGISTRY["test-always"].needs == ALWAYS
        (tmp_path / "standard.toml").write_text((data_dir() / "formats" / "standard.toml").read_text(encoding="utf-8"))
        (tmp_path / "t.toml").write_text(
            'name = "T"\nextends = "standard"\n[rules]\ntest-needs = {}\ntest-always = {}\n', encoding="utf-8"
        )
        fmt = load_formats(tmp_path)["t"]
        on = dt.date(2026, 5, 1)
        with_radiant = deckcheck.check("4 Dreepy TWM 128\n1 Radiant Greninja ASR 46", fmt, on)
        assert calls == ["needing", "always"]
        without = deckcheck.check("4 Dreepy TWM 128", fmt, on)
        assert calls == ["needing", "always", "always"]
    finally:
        for name in ("test-needs", "test-always"):
            del REGISTRY[name], CATALOGUE[name]
    assert [p.message for p in with_radiant.problems if p.rule == "test-needs"] == ["1 Radiant."]
    assert [p for p in without.problems if p.rule == "test-needs"] == []


# -- the GLC rules' one-loop tests against the plain definitions ----------------------------------------


def _glc_reference(report) -> tuple[bool, bool]:
    """(single-type has something to say, rule-box has), from the report's lines as the rules define them."""
    fmt = get_format("glc")
    kinds = set(fmt.rules["rule-box"]["subtypes"])
    known = [ln.card for ln in report.lines if ln.card is not None]
    typed = [set(card.types) for card in known if card.supertype == "Pokémon" and card.types]
    mixed = bool(typed) and not set.intersection(*typed)
    boxed = any(kinds & set(card.subtypes) for card in known)
    return mixed, boxed


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decklist(), decklist())
def test_glc_single_type_and_rule_box_say_what_their_definitions_say(a, b):
    for text in (a, b, a + "\n" + b):  # the Rule Box memo of subtypes seen clear, filled by earlier decks
        report = deckcheck.check(text, "glc", "2026-06-01")
        rules = {p.rule for p in report.problems}
        assert ("single-type" in rules, "rule-box" in rules) == _glc_reference(report), text


def test_glc_rule_box_after_clear_decks():
    """A Rule Box card is found whatever the decks before it left in the memo of clear subtypes."""
    clear = "1 Pikachu SVI 62\n1 Nest Ball SVI 181"
    boxed = clear + "\n1 Iron Hands ex PAR 70"
    for text in (clear, boxed, clear, boxed):
        report = deckcheck.check(text, "glc", "2026-06-01")
        assert ("rule-box" in {p.rule for p in report.problems}) == (text == boxed)
