"""deckcheck/patterns.py: a pattern is compiled at its first use, once, and answers as the compiled one."""

from __future__ import annotations

import re
from unittest import mock

from deckcheck.patterns import Pattern


def test_a_pattern_is_compiled_at_its_first_use_and_only_then():
    with mock.patch("deckcheck.patterns.re.compile", wraps=re.compile) as compiling:
        pattern = Pattern(r"([0-9]+)-(?P<b>[a-z]+)", re.I)
        assert compiling.call_count == 0
        assert pattern.fullmatch("12-AB").groups() == ("12", "AB")
        assert compiling.call_count == 1
        for _ in range(3):
            assert pattern.match("1-a x") and pattern.search("x 1-a") and not pattern.fullmatch("1-")
        assert [m.group(1) for m in pattern.finditer("1-a 22-b")] == ["1", "22"]
        assert pattern.split("x1-a y") == ["x", "1", "a", " y"]
        assert pattern.sub("#", "1-a 2-b") == "# #"
        assert pattern.compiled() is pattern.compiled() and pattern.compiled().flags & re.I
        assert compiling.call_count == 1


def test_each_method_answers_as_the_compiled_patterns_before_and_after_the_first_use():
    source = r"\r\n|\r|\n"
    text = "a\r\nb\rc\nd"
    expected = re.compile(source)
    for first in ("split", "finditer", "sub", "search", "match", "fullmatch"):
        pattern = Pattern(source)
        assert pattern.split(text) == expected.split(text), first
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in expected.finditer(text)]
        assert pattern.sub(" ", text) == expected.sub(" ", text)
        assert pattern.search(text).span() == expected.search(text).span()
        assert pattern.match(text) is None and pattern.fullmatch("\r\n") is not None
