"""Hostile input is cheap (issue 13): linear time at the 64 KiB / 1,000-line limits, bounded memos,
and a bounded amount of fuzzy-suggestion work per deck.

The time bounds are 100x the normal cost, scaled to the input's size: the normal cost is
measured in the same run (a real 60-card list, memos cleared) per byte and per line, and an
input may take 100x (its bytes x the cost per byte + its lines x the cost per line). Only
super-linear behaviour (a backtracking pattern over a run of blanks, a pass per parenthesis)
can fail that.
"""

from __future__ import annotations

import datetime as dt
import statistics
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import deckcheck
from deckcheck import cards, engine, names
from deckcheck.decklist import lineread, parse
from deckcheck.engine import memos as engine_memos
from deckcheck.formats import default_formats

LIMIT_BYTES, LIMIT_LINES = parse.MAX_DECKLIST_BYTES, parse.MAX_DECKLIST_LINES
NORMAL = (Path(__file__).resolve().parent.parent / "decks" / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
ON = "2026-05-01"

#: pieces the generated runs are made of: blanks of every kind, brackets, hyphens, marks, symbols
PIECES = [
    " ",
    "\t",
    "\u00a0",
    "\u3000",
    "\u2003",
    "(",
    ")",
    "(x)",
    "[",
    "]",
    "[A]",
    "-",
    " -",
    "- ",
    "\u0301",
    "\u0308",
    "◇",
    "☆",
    "★",
    "♀",
    "♂",
    "δ",
    "α",
    "&",
    "+",
    "!",
    " !",
    "?",
    "{",
    "}",
    "{*}",
    "{R}",
    "{star}",
    "<>",
    "'",
    "’",
    ".",
    ":",
    "LV.X",
    " LV.",
    "EX",
    "-GX",
    " ex",
    "Prism Star",
    " Delta Species",
    "é",
    "x",
]


def _clear() -> None:
    db = cards.get_db()
    db.clear_memo()
    names._name_key_memo.clear()
    names._basic_energy_type.clear()
    lineread.read_line.clear()
    engine_memos.forget_lines()


def _median(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        _clear()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@pytest.fixture(scope="module")
def per_byte():
    """Seconds of the normal work (name keys, parse, the whole check; cold) per input byte and per
    line: ``{kind: (per byte, per line)}``."""
    deckcheck.check(NORMAL, "standard", ON)  # load the database and formats first
    size, lines = len(NORMAL.encode()), NORMAL.count("\n") + 1
    card_names = [row[2]["name"] for row in parse.read(NORMAL)[1]]
    keys = _median(lambda: [names.name_key(n) for n in card_names])
    parsing = _median(lambda: parse.parse(NORMAL))
    checking = _median(lambda: deckcheck.check(NORMAL, "standard", ON))
    return {
        "name_key": (keys / sum(map(len, card_names)), keys / len(card_names)),
        "parse": (parsing / size, parsing / lines),
        "check": (checking / size, checking / lines),
    }


def _within_limits(text: str) -> str:
    """Cut ``text`` to the byte limit on a character boundary and to the line limit."""
    text = text.encode("utf-8")[:LIMIT_BYTES].decode("utf-8", errors="ignore")
    return "\n".join(text.split("\n")[:LIMIT_LINES])


@st.composite
def hostile_texts(draw) -> str:
    """One long run (a card line of 64 KiB) or 1,000 lines of shorter runs, at the limits."""
    unit = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4)))
    head = draw(st.sampled_from(["1 A", "4 Nest", "", "Pokémon: ", "1 Professor's Research "]))
    tail = draw(st.sampled_from(["B", "", " SVI 181", " ex", ")", " PH"]))
    if draw(st.booleans()):
        return _within_limits(head + unit * (LIMIT_BYTES // len(unit.encode())) + tail)
    per_line = max(1, (LIMIT_BYTES // LIMIT_LINES - len(head) - len(tail) - 8) // len(unit.encode()))
    lines = (
        [
            f"{head}{i}{unit * per_line}{tail}" if draw(st.booleans()) else head + unit * per_line + tail
            for i in range(LIMIT_LINES)
        ]
        if draw(st.booleans())
        else [head + unit * per_line + tail] * LIMIT_LINES
    )
    return _within_limits("\n".join(lines))


def _timed(fn) -> float:
    _clear()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _assert_linear(kind: str, seconds: float, text: str, per_byte: dict) -> None:
    size, lines = len(text.encode()), text.count("\n") + 1
    byte_cost, line_cost = per_byte[kind]
    bound = 100 * (byte_cost * size + line_cost * lines)
    assert seconds < bound, (
        f"{kind} took {seconds:.3f} s on {size} bytes in {lines} lines; 100x the normal cost is {bound:.3f} s"
    )


HOSTILE = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


@pytest.mark.slow
@HOSTILE
@given(text=hostile_texts())
def test_name_key_is_linear(per_byte, text):
    _assert_linear("name_key", _timed(lambda: names.name_key(text)), text, per_byte)


@pytest.mark.slow
@HOSTILE
@given(text=hostile_texts())
def test_parse_is_linear(per_byte, text):
    _assert_linear("parse", _timed(lambda: parse.parse(text)), text, per_byte)


@pytest.mark.slow
@HOSTILE
@given(text=hostile_texts())
def test_check_is_linear(per_byte, text):
    _assert_linear("check", _timed(lambda: deckcheck.check(text, "standard", ON)), text, per_byte)


@pytest.mark.parametrize(
    "text",
    [
        "1 A" + " " * (LIMIT_BYTES - 4) + "B",
        "1 A" + "\u00a0" * (LIMIT_BYTES // 2 - 4) + "B",
        "1 A" + "\u3000" * (LIMIT_BYTES // 3 - 4) + "B",
        "1 A" + "(x)" * ((LIMIT_BYTES - 3) // 3),
        "1 A" + "(" * (LIMIT_BYTES - 3),
        "1 A" + " -" * ((LIMIT_BYTES - 6) // 2) + "EX",
        "1 A" + " δ" * ((LIMIT_BYTES - 3) // 3),
        "\n".join(f"1 Unknown Card Number {i:04d} Zyx" for i in range(LIMIT_LINES)),
    ],
    ids=["spaces", "nbsp", "ideographic-space", "parens", "open-parens", "hyphens", "deltas", "1000-unknown-names"],
)
@pytest.mark.slow
def test_the_reported_worst_inputs_are_linear(per_byte, text):
    """The reproductions of the issue (5.3 s for 8,000 spaces, 44.6 s for 20,000 "(x)") at the limit."""
    assert len(text.encode()) <= LIMIT_BYTES and text.count("\n") < LIMIT_LINES
    _assert_linear("name_key", _timed(lambda: names.name_key(text)), text, per_byte)
    _assert_linear("check", _timed(lambda: deckcheck.check(text, "standard", ON)), text, per_byte)


def test_keys_of_long_runs():
    assert names.name_key("1 A" + " " * 60_000 + "B") == "1 a b"
    assert names.name_key("Boss's Orders" + " (Giovanni)" * 5000) == "bosss orders"
    assert names.name_key("Nest" + "\t\u00a0\u3000" * 10_000 + "Ball") == "nest ball"
    assert names.name_key("A" + "(x)" * 20_000) == "a" + " x" * 20_000


@pytest.mark.slow
def test_combining_marks_all_lie_below_the_limit():
    """fold() deletes combining characters through a table of the code points below COMBINING_LIMIT."""
    import unicodedata

    assert [cp for cp in range(names.COMBINING_LIMIT, 0x110000) if unicodedata.combining(chr(cp))] == []


# -- suggestions: a bounded amount of fuzzy work per deck ---------------------------------


def test_suggestions_for_the_first_names_only():
    n = engine.SUGGEST_MAX_NAMES
    lines = [f"1 Nest Bal{'l' * (i % 3)} Zq{i:03d}" for i in range(n + 40)]
    first = deckcheck.check("\n".join(lines[n : n + 20]), "standard", ON)  # these lines' facts get suggestions
    orjson.dumps(first.to_dict(line_view=engine.ResolvedLine.json_fragment))  # and their JSON
    assert all(ln.suggestions for ln in first.lines)
    report = deckcheck.check("\n".join(lines), "standard", ON)
    unknown = [ln for ln in report.lines if ln.card is None]
    assert len(unknown) == n + 40
    assert all(ln.suggestions for ln in unknown[:n]) and not any(ln.suggestions for ln in unknown[n:])
    note = [p for p in report.problems if p.rule == "suggestions-skipped"]
    assert [(p.code, p.severity, p.message, p.lines) for p in note] == [
        (
            "P105",
            "info",
            f"Suggestions were looked up for the first {n} unknown card names only; 40 more unknown names got none.",
            tuple(range(n + 1, n + 41)),
        )
    ]
    # the JSON says the same as the lines (a skipped line never borrows a cached line's suggestions)
    rows = orjson.loads(orjson.dumps(report.to_dict(line_view=engine.ResolvedLine.json_fragment)))["cards"]
    assert [bool(r["suggestions"]) for r in rows] == [True] * n + [False] * 40


def test_a_repeated_unknown_name_counts_once():
    lines = ["1 Nest Bal"] * 30 + [f"1 Zq{i} Card" for i in range(engine.SUGGEST_MAX_NAMES - 1)]
    report = deckcheck.check("\n".join(lines), "standard", ON)
    assert [p.rule for p in report.problems if p.rule == "suggestions-skipped"] == []
    assert report.lines[29].suggestions == ("Nest Ball", "Net Ball", "Beast Ball")


def test_a_query_too_long_to_match_costs_no_fuzzy_search():
    db = cards.get_db()
    assert db.suggest("Nest Ball" + "x" * 200) == ()
    assert db.suggest("Nest Bal") == ("Nest Ball", "Net Ball", "Beast Ball")


# -- memory: every memo stays bounded under a flood of unique long names --------------------


def _memo_sizes(db, fmt, on) -> dict[str, int]:
    return {
        **names.memo_sizes(),
        "parse": len(lineread.read_line.memo),
        "resolve": len(db.resolution_memo()),
        "suggest": len(db._memos.suggested),
        "lines": len(engine_memos.line_tables(db, None, None).lines),
        "format-lines": len(engine_memos.line_tables(db, fmt, on).lines),
        "format-memos": len(engine_memos.held(fmt)),
        "format-printings": len(engine_memos.line_tables(db, fmt, on).printings),  # card ids only
    }


@pytest.mark.slow
def test_ten_thousand_unique_long_names_keep_every_memo_bounded():
    db, fmt = cards.get_db(), default_formats()["standard"]
    on = dt.date.fromisoformat(ON)
    bounds = {
        "name_key": names.NAME_MEMO_SIZE,
        "basic_energy_type": names.NAME_MEMO_SIZE,
        "parse": lineread.read_line.memo.size,
        "resolve": cards.RESOLVE_MEMO_SIZE,
        "suggest": cards.RESOLVE_MEMO_SIZE,
        "lines": engine.LINE_MEMO_SIZE,
        "format-lines": engine.LINE_MEMO_SIZE,
        "format-memos": engine_memos.LINE_MEMO_DATES,
        "format-printings": len(db.cards),
    }
    _clear()
    # short enough to be memoised (each memo fills up to its bound and starts again)
    for batch in range(100):
        deck = "\n".join(f"1 Unique {batch:03d}-{i:03d} " + "y" * 150 for i in range(100))
        deckcheck.check(deck, "standard", ON)
    sizes = _memo_sizes(db, fmt, on)
    assert all(sizes[k] <= bounds[k] for k in bounds), (sizes, bounds)
    assert sizes["resolve"] > 0 and sizes["parse"] > 0
    # longer than MEMO_MAX_LEN: nothing is kept at all
    before = _memo_sizes(db, fmt, on)
    for batch in range(100):
        deck = "\n".join(f"1 Long {batch:03d}-{i:03d} " + "z" * 600 for i in range(100))
        deckcheck.check(deck, "standard", ON)
    assert _memo_sizes(db, fmt, on) == before


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.text(max_size=200),
    surrogate=st.integers(0xD800, 0xDFFF),
    escaped=st.booleans(),
)
def test_check_of_a_text_with_a_lone_surrogate_gives_a_report_that_can_be_written_out(before, surrogate, escaped):
    """The library's check() is an entry point too: a lone surrogate, in the text or as a JSON deck's
    escape, is one unreadable-file problem on its line, and the report is valid UTF-8 as JSON."""
    if escaped:
        text = orjson.dumps({"cards": [{"count": 4, "name": before}]}).decode()[:-4] + f'\\u{surrogate:04x}"}}]}}'
    else:
        text = f"4 Pikachu {before}{chr(surrogate)} SVI 1"
    report = deckcheck.check(text, "standard", "2024-06-01")
    assert [p.rule for p in report.problems] == ["unreadable-file"]
    assert report.problems[0].message.endswith(
        "a lone surrogate (half of a UTF-16 pair), which is not a character: the text is not valid Unicode. "
        "Remove it, or write the character it was meant to be."
    )
    assert not report.valid and report.lines == []
    orjson.dumps(report.to_dict())  # raises on a lone surrogate
