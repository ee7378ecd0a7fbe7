"""deckcheck.wording: the one home of how a message words a count."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deckcheck.wording import noun, plural

PACKAGE = Path(__file__).resolve().parent.parent / "deckcheck"

#: a count's noun made plural inline, ``{n} card{'s' if n != 1 else ''}`` or ``{'' if n == 1 else 's'}``,
#: in either quotes: the job of :func:`plural`
INLINE_PLURAL = re.compile(
    r"""\{\s*(['"])s\1\s+if\s+[^}\n]*!=\s*1"""  # {'s' if n != 1 else ''}
    r"""|\{\s*(['"])\2\s+if\s+[^}\n]*==\s*1\s+else\s+(['"])s\3"""  # {'' if n == 1 else 's'}
)


@pytest.mark.parametrize(
    ("n", "word", "many", "said"),
    [
        (0, "card", None, "0 cards"),
        (1, "card", None, "1 card"),
        (2, "card", None, "2 cards"),
        (1, "copy", "copies", "1 copy"),
        (3, "copy", "copies", "3 copies"),
        (2, "more unknown name", None, "2 more unknown names"),
    ],
)
def test_plural_words_a_count(n, word, many, said):
    assert plural(n, word, many) == said


@pytest.mark.parametrize(("n", "said"), [(1, "line"), (2, "lines"), (0, "lines")])
def test_noun_is_the_word_alone(n, said):
    assert noun(n, "line") == said
    assert noun(n, "copy", "copies") == {"line": "copy", "lines": "copies"}[said]


def test_the_pattern_finds_an_inline_plural():
    for source in (
        "f\"{n} card{'s' if n != 1 else ''}\"",
        'f\'{n} card{"s" if n != 1 else ""}\'',
        "f\"in {wait} second{'' if wait == 1 else 's'}.\"",
        "f\"{n} more problem{'' if n == 1 else 's'}\"",
    ):
        assert INLINE_PLURAL.search(source), source
    assert not INLINE_PLURAL.search("f\"{plural(n, 'card')}\"")


def test_no_module_words_a_count_plural_by_itself():
    """Every ``N thing(s)`` in a message goes through :func:`plural`: one rule for the plural (and for an
    irregular one), not a copy in each message."""
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "wording.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INLINE_PLURAL.search(line)
    ]
    assert found == []
