"""Tests for deckcheck.render's CI renderers on hand-made reports (no card database).

Each output format also has a golden test over real decks in ``tests/cli/test_cli.py``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from deckcheck.problems import Counts, Problem, Report
from deckcheck.render import (
    OUTPUT_FORMATS,
    Options,
    fails,
    github_data,
    github_property,
    render,
    render_github,
    render_junit,
    render_sarif,
    render_text,
    summary_line,
)

# the parts of the SARIF 2.1.0 schema (https://json.schemastore.org/sarif-2.1.0.json) a consumer relies on,
# written out here because the tests never download anything
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "$schema", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {"type": "object", "required": ["text"]},
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {
                                                        "level": {"enum": ["none", "note", "warning", "error"]}
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "level", "message", "locations"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "required": ["text"],
                                    "properties": {"text": {"type": "string", "minLength": 1}},
                                },
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {
                                                            "uri": {"type": "string", "format": "uri-reference"}
                                                        },
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {"startLine": {"type": "integer", "minimum": 1}},
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def report(*problems: Problem, fmt: str = "standard") -> Report:
    return Report(
        format=fmt,
        format_name=fmt.title(),
        as_of="2026-05-01",
        problems=list(problems),
        lines=[],
        counts=Counts(pokemon=20, trainer=30, energy=10),
        database={"version": "test"},
    )


SIZE = Problem("deck-size", "Your deck has 59 cards; it must have exactly 60 (add 1).")
COPIES = Problem("copy-limit", "You have 5 cards named Ultra Ball (lines 3, 9); the limit is 4.", lines=(3, 9))
GAP = Problem("evolution-gap", "Drakloak (line 2) evolves from Dreepy, which is not in your deck.", lines=(2,))
BY_NAME = Problem("resolved-by-name", 'Line 7: "Hilda" has no set code, so it was matched by name.', lines=(7,))
RESULTS = [
    ("decks/ok.txt", report()),
    ("decks/bad.txt", report(SIZE, COPIES, GAP, BY_NAME)),
    ("decks/warn.txt", report(GAP)),
]


# -- GitHub annotations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("100%", "100%25", "100%25"),
        ("a\r\nb\nc\rd", "a%0D%0Ab%0Ac%0Dd", "a%0D%0Ab%0Ac%0Dd"),
        ("decks/a:b,c.txt", "decks/a:b,c.txt", "decks/a%3Ab%2Cc.txt"),
        ("%0A", "%250A", "%250A"),  # an escape sequence in the input is not decoded later
    ],
    ids=["plain", "percent", "line-breaks", "colon-comma", "already-escaped"],
)
def test_github_escaping(text, data, prop):
    assert github_data(text) == data
    assert github_property(text) == prop


def test_github_annotation_escapes_file_title_and_message():
    """file= and title= take the property escaping; the message only the data escaping."""
    odd = Problem(
        "unparsed-line", 'Line 4 is not a card line: "50% off, today: 2\nfor 1".', lines=(4,), severity="error"
    )
    out = render_github([("decks/a,b:c.txt", report(odd))], Options(summary=False))
    assert out == (
        "::error file=decks/a%2Cb%3Ac.txt,line=4,title=unparsed-line (P101)::"
        'Line 4 is not a card line: "50%25 off, today: 2%0Afor 1".\n'
    )


def test_github_levels_and_lineless_problems_point_at_line_1():
    lines = render_github(RESULTS, Options(summary=False)).splitlines()
    assert lines == [
        "::error file=decks/bad.txt,line=1,title=deck-size (R101)::" + SIZE.message,
        "::error file=decks/bad.txt,line=3,title=copy-limit (R102)::" + COPIES.message.replace("%", "%25"),
        "::warning file=decks/bad.txt,line=2,title=evolution-gap (R301)::" + GAP.message,
        "::warning file=decks/warn.txt,line=2,title=evolution-gap (R301)::" + GAP.message,
        "::notice file=decks/bad.txt,line=7,title=resolved-by-name (C102)::" + BY_NAME.message,
    ]  # most severe first, then path and line


def test_github_message_carries_the_hint():
    p = Problem("no-basic-pokemon", "Your deck has no Basic Pokémon.", hint="Air Balloon is an Item.")
    assert render_github([("d.txt", report(p))], Options(summary=False)).endswith(
        "::Your deck has no Basic Pokémon. Air Balloon is an Item.\n"
    )


# -- text ------------------------------------------------------------------------------------


def test_text_is_one_problem_a_line_in_line_order_then_a_summary():
    assert render_text(RESULTS) == (
        "decks/bad.txt: deck-size Your deck has 59 cards; it must have exactly 60 (add 1).\n"
        "decks/bad.txt:2: evolution-gap (warning) Drakloak (line 2) evolves from Dreepy, which is not in your deck.\n"
        "decks/bad.txt:3: copy-limit You have 5 cards named Ultra Ball (lines 3, 9); the limit is 4.\n"
        'decks/bad.txt:7: resolved-by-name (info) Line 7: "Hilda" has no set code, so it was matched by name.\n'
        "decks/warn.txt:2: evolution-gap (warning) Drakloak (line 2) evolves from Dreepy, which is not in your deck.\n"
        "Checked 3 decks: 2 passed, 1 failed (2 errors, 2 warnings, 1 info).\n"
    )


def test_text_without_summary_and_colour():
    plain = render_text(RESULTS, Options(summary=False))
    assert "Checked" not in plain and "\x1b[" not in plain
    coloured = render_text(RESULTS, Options(color=True))
    assert "\x1b[31m" in coloured and "\x1b[33m" in coloured  # red errors, yellow warnings
    assert coloured.count("\n") == plain.count("\n") + 1


def test_text_escapes_control_characters_from_the_list():
    p = Problem("unparsed-line", 'Line 1 is not a card line: "\x1b[2Jhi\x0bthere".', lines=(1,), severity="error")
    out = render_text([("d.txt", report(p))], Options(summary=False))
    assert out == 'd.txt:1: unparsed-line Line 1 is not a card line: "\\x1b[2Jhi\\x0bthere".\n'


@pytest.mark.parametrize(
    ("results", "fail_on", "expected"),
    [
        ([], "error", "No decklists checked."),
        (RESULTS[:1], "error", "Checked 1 deck: all passed."),
        (RESULTS[2:], "error", "Checked 1 deck: all passed (1 warning)."),
        (RESULTS[2:], "warning", "Checked 1 deck: 0 passed, 1 failed (1 warning)."),
        (RESULTS, "warning", "Checked 3 decks: 1 passed, 2 failed (2 errors, 2 warnings, 1 info)."),
    ],
    ids=["none", "one-clean", "warning-passes", "warning-fails", "mixed"],
)
def test_summary_line(results, fail_on, expected):
    assert summary_line(results, fail_on) == expected


def test_fails_follows_fail_on():
    assert not fails(report(GAP)) and fails(report(GAP), "warning")
    assert fails(report(SIZE)) and not fails(report(BY_NAME), "warning")


# -- SARIF -----------------------------------------------------------------------------------


def test_sarif_has_the_required_structure():
    doc = json.loads(render_sarif(RESULTS + [("my decks/ä.txt", report(SIZE))]))
    jsonschema.validate(doc, SARIF_SUBSET, format_checker=jsonschema.FormatChecker())
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted({"deck-size", "copy-limit", "evolution-gap", "resolved-by-name"})
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    levels = {(r["ruleId"], r["level"]) for r in run["results"]}
    assert levels == {
        ("deck-size", "error"),
        ("copy-limit", "error"),
        ("evolution-gap", "warning"),
        ("resolved-by-name", "note"),
    }
    first = run["results"][0]["locations"][0]["physicalLocation"]
    assert first == {"artifactLocation": {"uri": "decks/bad.txt"}, "region": {"startLine": 1}}
    last = run["results"][-1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert last == "my%20decks/%C3%A4.txt"


def test_sarif_with_nothing_found_is_still_a_valid_run():
    doc = json.loads(render_sarif(RESULTS[:1]))
    jsonschema.validate(doc, SARIF_SUBSET)
    assert doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []


# -- JUnit -----------------------------------------------------------------------------------


def test_junit_has_one_test_case_per_deck_and_a_failure_per_failing_deck():
    root = ET.fromstring(render_junit(RESULTS))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["decks/ok.txt", "decks/bad.txt", "decks/warn.txt"]
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    assert cases[0].find("failure") is None and cases[0].find("system-out") is None
    failure = cases[1].find("failure")
    assert failure.get("type") == "deck-size" and failure.get("message") == RESULTS[1][1].summary
    assert "decks/bad.txt:3: copy-limit" in failure.text
    assert cases[2].find("failure") is None and "evolution-gap" in cases[2].find("system-out").text


def test_junit_fail_on_warning_fails_warning_only_decks():
    root = ET.fromstring(render_junit(RESULTS, Options(fail_on="warning")))
    assert root.get("failures") == "2"
    assert root.findall(".//testcase")[2].find("failure").get("type") == "evolution-gap"


def test_junit_survives_characters_xml_cannot_carry():
    p = Problem("unparsed-line", 'Line 1 is not a card line: "a\x00b\x1bc".', lines=(1,), severity="error")
    root = ET.fromstring(render_junit([("d\x07.txt", report(p))]))
    assert root.find(".//testcase").get("name") == "d\ufffd.txt"
    assert 'card line: "a\\x00b\\x1bc"' in root.find(".//failure").text  # as the text output shows it


# -- all formats -----------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
def test_every_format_renders_an_empty_run(output_format):
    out = render(output_format, [])
    assert out.endswith("\n") or (output_format == "jsonl" and out == "")
    if output_format in ("json", "sarif"):
        json.loads(out)
    if output_format == "junit":
        assert ET.fromstring(out).get("tests") == "0"


def test_json_is_the_report_json_with_a_path_one_deck_a_line():
    out = render("json", RESULTS)
    docs = json.loads(out)
    assert [d["path"] for d in docs] == ["decks/ok.txt", "decks/bad.txt", "decks/warn.txt"]
    assert docs[1] == {"path": "decks/bad.txt", **RESULTS[1][1].to_dict()}
    assert len(out.splitlines()) == len(RESULTS) + 2


@pytest.mark.slow
def test_the_xml_filter_is_exactly_the_complement_of_xml_char():
    """render._NOT_XML (written as the ranges XML 1.0 leaves out) against the Char production itself, over
    every code point: what it keeps is exactly what XML can carry."""
    from deckcheck.render.junit import _NOT_XML

    def xml_char(c: int) -> bool:
        return c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or 0x10000 <= c <= 0x10FFFF

    every = "".join(map(chr, range(0x110000)))
    assert _NOT_XML.sub("", every) == "".join(chr(c) for c in range(0x110000) if xml_char(c))
